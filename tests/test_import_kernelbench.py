"""`gauntlet tasks import kernelbench` on small KernelBench-format problems written for this test
(tests/fixtures/kernelbench; never KernelBench's own files): real CLI subprocesses, the real
child that runs each reference on the CPU, `tasks validate` over the output, and the judge on the
CPU for one imported torch2triton task (the stub fails, the reference's math as a candidate passes)."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO, gauntlet

FIXTURES = REPO / "tests" / "fixtures" / "kernelbench"
CATEGORIES = ("--category", "torch2triton", "--category", "torch2cuda", "--category", "torch2hip")
IMPORTED = ["kb1_001_relu_scale", "kb1_002_sum_over_a_dimension", "kb1_003_conv2d_asymmetric_kernel",
            "kb1_005_relu", "kb1_006_leakyrelu", "kb1_007_layernorm", "kb2_001_gemm_gelu"]
GEMM_GELU = "torch2triton/kb2_001_gemm_gelu"
MAX_MIB = 8          # below the fixture ReLU's 64 MiB of input + output: it must be scaled down


def _import(out: Path) -> subprocess.CompletedProcess:
    return gauntlet("tasks", "import", "kernelbench", FIXTURES, "--level", "1", "--level", "2", *CATEGORIES,
                    "--out", out, "--max-mib", str(MAX_MIB))


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("kb") / "tasks"
    return out, _import(out)


def test_import_writes_tasks_and_skips_with_reasons(imported):
    out, proc = imported
    report = json.loads((out / "kernelbench-import.json").read_text())
    assert report["levels"] == {
        "level1": {"problems": 7, "imported": 6, "skipped": {"data-dependent-shape": 1}},
        "level2": {"problems": 3, "imported": 1, "skipped": {"dropout": 1, "other-library": 1}}}
    reasons = {p["file"]: p.get("reason") for p in report["problems"]}
    assert reasons["level1/4_Select_above_threshold.py"] == "data-dependent-shape"   # found by running it
    assert reasons["level2/2_Gemm_Dropout_Softmax.py"] == "dropout"
    assert reasons["level2/3_Scale_with_numpy.py"] == "other-library"
    assert "level1/4_Select_above_threshold.py" in proc.stdout and "data-dependent-shape" in proc.stdout
    for category in ("torch2triton", "torch2cuda", "torch2hip"):
        assert sorted(p.name for p in (out / category).iterdir()) == IMPORTED
    hip = (out / "torch2hip" / "kb2_001_gemm_gelu" / "task.toml").read_text()
    assert 'extends = "torch2cuda/kb2_001_gemm_gelu"' in hip
    assert sorted(p.name for p in (out / "torch2hip" / "kb2_001_gemm_gelu").iterdir()) == \
        ["README.md", "kernel.hip", "task.toml"]


def test_sizes_become_configs_scaled_to_the_bound_and_hidden_ones_differ(imported):
    import tomllib
    out, _ = imported
    relu = out / "torch2cuda" / "kb1_001_relu_scale"
    seen, *more_seen = tomllib.loads((relu / "configs.toml").read_text())["config"]
    assert seen["name"] == "kernelbench-scaled"
    assert set(seen) == {"name", "batch_size", "dim", "work_bytes", "work_flops"}
    assert seen["batch_size"] * seen["dim"] * 4 * 2 <= MAX_MIB * 2**20 < 64 * 65536 * 2 * 4 * 2
    assert seen["work_bytes"] == seen["batch_size"] * seen["dim"] * 4 * 2        # x in, y out
    # three seen configs, the others with other aspect ratios
    assert len(more_seen) == 2
    ratios = {c["dim"] / c["batch_size"] for c in (seen, *more_seen)}
    assert len(ratios) == 3, (seen, more_seen)
    relu_hidden = tomllib.loads((relu / "hidden" / "configs.toml").read_text())["config"]
    assert any(h["dim"] % 2 for h in relu_hidden)       # `dim` here is an extent (KernelBench uses it both ways)
    reduce_hidden = tomllib.loads((out / "torch2cuda" / "kb1_002_sum_over_a_dimension" / "hidden" /
                                   "configs.toml").read_text())["config"]
    assert {h["reduce_dim"] for h in reduce_hidden} == {1}                  # ... and `reduce_dim = 1` an axis
    assert any(h["batch_size"] == 1 for h in reduce_hidden)                  # an extent of 1 (m = 1)
    assert any((h["dim1"], h["dim2"]) != (256, 300) for h in reduce_hidden)  # `dim1, dim2 = 256, 300`: sizes
    conv = out / "torch2cuda" / "kb1_003_conv2d_asymmetric_kernel"
    conv_seen, *_ = tomllib.loads((conv / "configs.toml").read_text())["config"]
    # the problem's own sizes (they fit): a tuple is one key per item, `height = width = 64` two keys
    assert {k: v for k, v in conv_seen.items() if not k.startswith("work_")} == {
        "name": "kernelbench", "batch_size": 8, "in_channels": 3, "out_channels": 16,
        "kernel_size_0": 3, "kernel_size_1": 5, "height": 64, "width": 64}
    hidden = tomllib.loads((conv / "hidden" / "configs.toml").read_text())["config"]
    assert len(hidden) >= 3
    # every parameter varies in some hidden config: extents, channels and both kernel sizes
    for key in ("batch_size", "in_channels", "out_channels", "kernel_size_0", "kernel_size_1", "height", "width"):
        assert any(h[key] != conv_seen[key] for h in hidden), key
    assert any(h["kernel_size_0"] != 3 and h["kernel_size_0"] % 2 for h in hidden)   # another odd kernel size
    assert any(h["batch_size"] == 1 for h in hidden)
    assert any(h["height"] % 2 and h["width"] % 2 for h in hidden)             # odd sizes
    assert any(h["height"] != h["width"] for h in hidden)                      # another aspect ratio
    readme = (out / "torch2triton" / "kb2_001_gemm_gelu" / "README.md").read_text()
    for row in ("| 0 | `input0` | input | float32 [128, 512] |", "| 1 | `linear_weight` | weight | float32 [256, 512] |",
                "| 2 | `linear_bias` | weight | float32 [256] |", "| 5 | `out_features` | size | int = 256 |"):
        assert row in readme


def test_imported_tasks_validate(imported):
    out, _ = imported
    proc = gauntlet("tasks", "validate", "--tasks-root", out)
    assert proc.stdout.strip().splitlines()[-1] == "21 valid, 0 invalid"


def _attempt(run_dir: Path) -> dict:
    [result] = list(run_dir.glob("attempts/*/result.json"))
    return json.loads(result.read_text())


GEMM_GELU_IN_TORCH = '''
import torch


def forward(input0, linear_weight, linear_bias, batch_size, in_features, out_features):
    assert input0.shape == (batch_size, in_features) and linear_weight.shape == (out_features, in_features)
    return torch.nn.functional.gelu(input0 @ linear_weight.t() + linear_bias)
'''


def test_stub_fails_and_the_references_math_passes_on_the_cpu(imported, tmp_path):
    out, _ = imported
    tasks = tmp_path / "tasks"
    shutil.copytree(out, tasks)
    noop = gauntlet("run", "--agent", "noop", "--tasks", GEMM_GELU, "--tasks-root", tasks, "--device", "cpu",
                    "--out", tmp_path / "noop", check=False)
    r = _attempt(tmp_path / "noop")
    assert noop.returncode != 0 or not r["correct_seen"]
    assert r["compiled"] is False or (r["correct_seen"] is False and r["correct_unseen"] is False), r
    # the reference's math written as a candidate (not a custom kernel, but correct) through the oracle
    task_dir = tasks / GEMM_GELU
    (task_dir / "solution").mkdir()
    (task_dir / "solution" / "kernel.py").write_text(GEMM_GELU_IN_TORCH)
    with open(task_dir / "task.toml", "a") as f:
        f.write('\n[solution]\ndir = "solution"\n')
    gauntlet("run", "--agent", "oracle", "--tasks", GEMM_GELU, "--tasks-root", tasks, "--device", "cpu",
             "--out", tmp_path / "oracle", check=False)
    r = _attempt(tmp_path / "oracle")
    assert r["compiled"] and r["correct_seen"] and r["correct_unseen"], r
    assert {c["split"] for c in r["configs"]} == {"seen", "unseen"} and len(r["configs"]) >= 4


def test_listing_never_executes_a_problem(tmp_path):
    from runner.tasks.importers.kernelbench import Problem, parse_problem
    marker = tmp_path / "executed"
    problem = tmp_path / "7_Side_effect.py"
    problem.write_text((FIXTURES / "level1" / "1_ReLU_Scale.py").read_text()
                       + f"\nopen({str(marker)!r}, 'w').write('ran')\n")
    parsed = parse_problem(problem, 1)
    assert isinstance(parsed, Problem) and parsed.task_name == "kb1_007_side_effect"
    assert not marker.exists()


@pytest.mark.parametrize("args, message", [
    (("--level", "3", "--category", "torch2triton"), "KB_CHECKOUT: no KernelBench/level3 (or level3) folder"),
    (("--level", "1", "--category", "torch2hip"), "--category: torch2hip extends the torch2cuda task"),
])
def test_bad_input_is_one_line(tmp_path, args, message):
    proc = gauntlet("tasks", "import", "kernelbench", FIXTURES, *args, "--out", tmp_path / "o", check=False)
    assert proc.returncode != 0 and message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_cli_start_up_does_not_import_torch():
    code = "import sys, runner.cli; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 0


def _configs(task):
    return [*task.configs("seen"), *task.configs("unseen")]


def _fails_everywhere(out: Path, task_id: str, candidate) -> list[str]:
    """The configs (seen and hidden) on which `candidate(args)` matches the reference, by the judge's
    own inputs and comparison; [] when it fails every one."""
    import torch

    from runner.evaluator.judge.evaluation import import_reference
    from runner.evaluator.judge.policy import WARMUP_SEED
    from runner.evaluator.judge.values import Mismatch, config_seed, compare, freeze_reference, make_inputs, run_reference
    from runner.tasks.task import load_task
    task = load_task(out / task_id, out)
    reference = import_reference(task.reference)
    passed = []
    for config in _configs(task):
        args = make_inputs(reference, config, torch.Generator().manual_seed(config_seed(config, WARMUP_SEED)), "cpu")
        try:
            compare(task, freeze_reference(candidate(args)), run_reference(reference, args))
            passed.append(config.name)
        except Mismatch:
            pass
    return passed


@pytest.mark.parametrize("task", ["torch2triton/kb1_005_relu", "torch2triton/kb1_006_leakyrelu"])
def test_a_kernel_returning_its_input_fails_an_imported_activation(imported, task):
    out, _ = imported
    assert _fails_everywhere(out, task, lambda args: args[0].clone()) == []


def test_a_kernel_dropping_the_bias_fails_an_imported_norm(imported):
    import torch
    out, _ = imported

    def no_bias(args):
        x, weight, _bias = args[:3]
        return torch.nn.functional.layer_norm(x, x.shape[-1:], weight, None)
    assert _fails_everywhere(out, "torch2triton/kb1_007_layernorm", no_bias) == []

    def exact(args):    # the same math with the bias: the check above is not failing everything anyway
        x, weight, bias = args[:3]
        return torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias)
    assert len(_fails_everywhere(out, "torch2triton/kb1_007_layernorm", exact)) >= 4


def test_the_same_checkout_imports_to_the_same_tasks(imported, tmp_path):
    out, _ = imported
    again = tmp_path / "again"
    _import(again)
    files = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    for rel in files:
        assert (out / rel).read_bytes() == (again / rel).read_bytes(), rel


def test_no_size_decision_reads_a_clock(tmp_path, monkeypatch):
    """The probe (what the import child runs per problem) with every clock of `time` raising."""
    import time

    from runner.tasks.importers import kernelbench as kb
    problem = kb.parse_problem(FIXTURES / "level1" / "3_Conv2d_asymmetric_kernel.py", 1)
    ref = tmp_path / "ref.py"
    ref.write_text(kb.render_reference(problem, "test"))
    spec = kb._spec(ref, problem, kb.Limits(max_bytes=MAX_MIB * 2**20))

    def clock(*_):
        raise AssertionError("the importer read a clock")
    for name in ("time", "perf_counter", "monotonic", "process_time", "time_ns", "perf_counter_ns", "monotonic_ns",
                 "process_time_ns"):
        monkeypatch.setattr(time, name, clock)
    answer = kb._probe_main(spec)
    assert answer["ok"] and len(answer["hidden"]) >= 3
