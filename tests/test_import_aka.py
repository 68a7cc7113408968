"""`gauntlet tasks import aka` on small AgentKernelArena-format tasks written for this test
(tests/fixtures/aka; never AKA's own files): the real CLI, the real reference check on the CPU,
`tasks validate` over the output, and the judge on the CPU (Triton interpreter) for the imported
tasks: AKA's shipped kernel (noop) passes, a wrong kernel fails, and the result records AKA's path
and category."""
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from .conftest import REPO, gauntlet

FIXTURES = REPO / "tests" / "fixtures" / "aka"
SCALE = "triton2triton/vllm_triton_scale_rows"
ADD_BIAS = "triton2triton/vllm_triton_add_bias"     # AKA's function writes its output in place
GATHER = "triton2triton/vllm_triton_gather_rows"    # writes an argument and returns a view of it
HALF = "triton2triton/vllm_triton_half_scale"       # float16 out, checked as out.float() against float32
PACK = "triton2triton/vllm_triton_pack_bits"        # a uint32 output
CACHE = "triton2triton/vllm_triton_cache_write"     # the reference: a runner function writing in place
GROUP = "triton2triton/vllm_triton_group_dequant"   # the inputs take K // group_size
IMPORTED = (SCALE, ADD_BIAS, GATHER, HALF, PACK, CACHE, GROUP)


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("aka") / "tasks"
    return out, gauntlet("tasks", "import", "aka", FIXTURES, "--out", out)


def test_import_counts_per_category_and_skip_reason(imported):
    out, proc = imported
    report = json.loads((out / "aka-import.json").read_text())
    assert report["by_category"] == {
        "hip2hip": {"total": 1, "imported": 0, "skipped": {"torch-extension": 1}},
        "image_kernel": {"total": 1, "imported": 0, "skipped": {"image-bound": 1}},
        "repository": {"total": 1, "imported": 0, "skipped": {"repository": 1}},
        "torch2flydsl": {"total": 1, "imported": 0, "skipped": {"flydsl": 1}},
        "triton2triton": {"total": 9, "imported": 7,
                          "skipped": {"pytest-harness": 1, "reference-reads-sizes": 1}}}
    reasons = {t["path"]: t.get("reason") for t in report["tasks"]}
    assert reasons["triton2triton/vllm/triton_scale_sized"] == "reference-reads-sizes"   # reads the loop's `cols`
    assert report["aka_commit"] == "unknown"          # the fixtures are no checkout of their own
    assert re.search(r"^triton2triton +9 +7 +pytest-harness: 1, reference-reads-sizes: 1$", proc.stdout, re.M)
    assert sorted(p.name for p in (out / "triton2triton").iterdir()) == sorted(t.split("/")[1] for t in IMPORTED)


def test_task_maps_shapes_tolerance_and_origin(imported):
    from runner.tasks.task import Origin, load_task
    out, _ = imported
    task = load_task(out / SCALE, out)
    assert task.origin == Origin("aka", "triton2triton/vllm/triton_scale_rows", "triton2triton", "unknown")
    assert task.entry == task.editable[0] == "source/triton_scale_rows.py" and task.symbol == "scale_rows"
    assert [c.params for c in task.configs("seen")] == [{"rows": 4, "cols": 64}, {"rows": 8, "cols": 96},
                                                       {"rows": 16, "cols": 128}]
    hidden = [c.params for c in task.configs("unseen")]
    assert len(hidden) == 4 and not any(h in [c.params for c in task.configs("seen")] for h in hidden)
    assert (task.tolerance("float32").atol, task.tolerance("float32").rtol) == (1e-3, 1e-3)   # AKA's allclose
    # rows are all powers of two (a contract), cols vary by multiples of 32: the space keeps both
    assert task.space.fixed == {"rows": (4, 8, 16)} and task.space.shape["cols"].multiple_of == 32
    in_place = load_task(out / ADD_BIAS, out)
    assert in_place.entry == "source/gauntlet_entry.py" and in_place.tolerance("float32").atol == 0.0   # torch.equal
    text = (out / SCALE / "reference.py").read_text()
    assert "def reference_scale_rows" in text and "def _affine" in text and "load_module" not in text


def test_imported_tasks_validate(imported):
    out, _ = imported
    proc = gauntlet("tasks", "validate", "--tasks-root", out)
    assert proc.stdout.strip().splitlines()[-1] == "7 valid, 0 invalid"


def _attempts(run_dir: Path) -> dict:
    return {r["task"]: r for r in (json.loads(p.read_text()) for p in run_dir.glob("attempts/*/result.json"))}


WRONG = '''
import torch


def scale_rows(x, w, eps=0.5):
    return x * w            # forgets eps
'''


@pytest.fixture(scope="module")
def noop(imported, tmp_path_factory) -> dict:
    """noop (AKA's kernel as shipped, the baseline as candidate) through the judge on the CPU, every
    imported fixture task: {task: result}."""
    out, _ = imported
    tmp = tmp_path_factory.mktemp("aka-noop")
    shutil.copytree(out, tmp / "tasks")
    gauntlet("run", "--agent", "noop", *(a for t in IMPORTED for a in ("--tasks", t)), "--tasks-root", tmp / "tasks",
             "--device", "cpu", "--out", tmp / "noop", check=False)
    return _attempts(tmp / "noop")


def _passes(result: dict) -> bool:
    return result["compiled"] and result["correct_seen"] and result["correct_unseen"] and not result.get("flags")


def test_shipped_kernel_passes_and_a_wrong_one_fails_through_the_judge(imported, noop, tmp_path):
    out, _ = imported
    tasks = tmp_path / "tasks"
    shutil.copytree(out, tasks)
    for task in (SCALE, ADD_BIAS):        # X->X: AKA's kernel as shipped is the baseline, and correct
        r = noop[task]
        assert _passes(r), r
        assert r["origin"]["benchmark"] == "aka" and r["origin"]["category"] == "triton2triton"
    solution = tasks / SCALE / "solution" / "source"
    solution.mkdir(parents=True)
    (solution / "triton_scale_rows.py").write_text(WRONG)
    with open(tasks / SCALE / "task.toml", "a") as f:
        f.write('\n[solution]\ndir = "solution"\n')
    gauntlet("run", "--agent", "oracle", "--tasks", SCALE, "--tasks-root", tasks, "--device", "cpu",
             "--out", tmp_path / "wrong", check=False)
    r = _attempts(tmp_path / "wrong")[SCALE]
    assert r["compiled"] and not r["correct_seen"], r


def test_a_function_returning_a_view_of_its_argument_is_called_on_a_copy(imported, noop):
    """vLLM's gather_block_tables writes `dst` and returns `dst[:n]`: the judge refuses an output
    that is (a view of) an input, and a call that changes its inputs (so copying the view after the
    call is not enough). The entry calls it on a copy of `dst`."""
    from runner.tasks.task import load_task
    out, _ = imported
    task = load_task(out / GATHER, out)
    assert task.entry == "source/gauntlet_entry.py" and list(task.editable) == ["source/triton_gather_rows.py", task.entry]
    assert "args[i] = args[i].clone()" in (out / GATHER / task.entry).read_text()
    assert _passes(noop[GATHER]), noop[GATHER]


def test_the_entry_copies_any_output_that_shares_an_input_at_run_time(imported, tmp_path, monkeypatch):
    """Whatever the source returns: an output sharing memory with an argument the entry did not copy
    (here the source function swapped for one returning its input) comes back as a copy."""
    import importlib.util

    import torch
    out, _ = imported
    monkeypatch.syspath_prepend(str(out / GATHER / "source"))
    spec = importlib.util.spec_from_file_location("aka_gather_entry", out / GATHER / "source" / "gauntlet_entry.py")
    entry = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(entry)
    idx, src, dst = torch.arange(2, dtype=torch.int32), torch.ones(4, 8, dtype=torch.int32), torch.zeros(4, 8, dtype=torch.int32)
    monkeypatch.setattr(entry._source, "gather_rows", lambda i, s, d: (s[1:], i.view(-1)))
    got = entry.gather_rows(idx, src, dst)
    assert [torch.equal(g, w) for g, w in zip(got, (src[1:], idx))] == [True, True]
    held = {t.untyped_storage().data_ptr() for t in (idx, src, dst)}
    assert not {g.untyped_storage().data_ptr() for g in got} & held


def test_an_output_the_check_compared_converted_is_returned_converted(imported, noop):
    """AKA compared `out.float()` (float16) with a float32 reference: reference.py returns float32, so
    the entry returns the output as `.float()`, in the dtype AKA compared it in."""
    from runner.tasks.importers.aka import AkaTask, Mapped, parse_runner
    import yaml
    folder = FIXTURES / "tasks" / "triton2triton" / "vllm" / "triton_half_scale"
    parsed = parse_runner(AkaTask("triton2triton/vllm/triton_half_scale", "triton2triton", folder,
                                  yaml.safe_load((folder / "config.yaml").read_text())))
    assert isinstance(parsed, Mapped) and parsed.casts == [["float"]] and parsed.returned_args == []
    out, _ = imported
    assert (out / HALF / "source" / "gauntlet_entry.py").read_text().rstrip().endswith("return out.float()")
    assert _passes(noop[HALF]), noop[HALF]


def test_a_reference_a_runner_function_computes_in_place_is_kept(imported, noop):
    """vLLM's reshape_and_cache_flash: AKA's reference is `reference_reshape_and_cache(key, value,
    key_cache_ref, ...)`, a statement whose function writes the cache it is given. The importer kept
    only the clone before it: the reference returned the zeros it was given, and the shipped kernel
    failed every config on the H200 (max error 3.72)."""
    out, _ = imported
    text = (out / CACHE / "reference.py").read_text()
    assert "def reference_cache_write" in text and "reference_cache_write(x, cache_ref, slots)" in text, text
    assert _passes(noop[CACHE]), noop[CACHE]


def test_a_uint32_output_goes_through_the_judge(noop):
    """vLLM's pack_bitmatrix returns uint32: the judge's protocol carries it (bit 31 set included)."""
    assert _passes(noop[PACK]), noop[PACK]


def test_a_quotient_the_inputs_take_stays_exact_on_hidden_configs(imported, noop):
    """vLLM's fused_moe_gptq_awq makes scales of K // group_size groups; every AKA shape divides
    exactly and the kernel indexes as if it did. The [space] picks group_size on its own, and the
    importer's hidden configs paired K=64 with group_size=128 (no group at all: an illegal address on
    the H200). The fixture, imported without the constraint, drew that pair too, and its kernel
    crashed the CPU runner (SIGSEGV) there."""
    from runner.tasks.task import load_task
    out, _ = imported
    task = load_task(out / GROUP, out)
    assert task.space.constraints == ("K % group_size == 0",)
    hidden = [c.params for c in task.configs("unseen")]
    assert len(hidden) == 4 and all(c["K"] % c["group_size"] == 0 for c in hidden), hidden
    assert _passes(noop[GROUP]), noop[GROUP]


def test_a_divisibility_the_space_already_keeps_is_not_written():
    """`nchunks = seqlen // chunk_size` where seqlen steps by 128 and chunk_size is 64 or 128: every
    drawn config divides already, so the [space] stays as it was (vLLM's ssd tasks)."""
    from runner.tasks.importers.aka import space_toml
    seen = [{"seqlen": 128, "chunk_size": 64}, {"seqlen": 384, "chunk_size": 128}]
    assert space_toml(seen, ["seqlen % chunk_size == 0", "seqlen % 2 == 0"]) == space_toml(seen)
    seen = [{"K": 64, "group_size": 32}, {"K": 96, "group_size": 32}, {"K": 128, "group_size": 64}]
    assert 'constraints = ["K % group_size == 0"]\n' in space_toml(seen, ["K % group_size == 0", "K % 2 == 0"])


def test_reading_a_task_never_executes_it(tmp_path):
    from runner.tasks.importers.aka import AkaTask, Mapped, parse_runner
    import yaml
    folder = tmp_path / "triton2triton" / "vllm" / "side_effect"
    shutil.copytree(FIXTURES / "tasks" / "triton2triton" / "vllm" / "triton_scale_rows", folder)
    marker = tmp_path / "executed"
    runner = folder / "scripts" / "task_runner.py"
    runner.write_text(runner.read_text() + f"\nopen({str(marker)!r}, 'w').write('ran')\n")
    config = yaml.safe_load((folder / "config.yaml").read_text())
    parsed = parse_runner(AkaTask("triton2triton/vllm/side_effect", "triton2triton", folder, config))
    assert isinstance(parsed, Mapped) and parsed.symbol == "scale_rows" and not marker.exists()


@pytest.mark.parametrize("checkout, args, message", [
    ("tests", (), "AKA_CHECKOUT: no tasks/ folder"),
    ("tests/fixtures/aka", ("--category", "cuda2cuda"), "--category cuda2cuda: no task of that type"),
])
def test_bad_input_is_one_line(tmp_path, checkout, args, message):
    proc = gauntlet("tasks", "import", "aka", REPO / checkout, *args, "--out", tmp_path / "o", check=False)
    assert proc.returncode != 0 and message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_bad_source_table_is_one_line(imported, tmp_path):
    from runner.tasks.task import TaskError, load_task
    out, _ = imported
    tasks = tmp_path / "tasks"
    shutil.copytree(out / "triton2triton", tasks / "triton2triton")
    toml = tasks / SCALE / "task.toml"
    toml.write_text(toml.read_text().replace('path = "triton2triton/vllm/triton_scale_rows"\n', ""))
    with pytest.raises(TaskError, match=r"task.toml: source.path: required"):
        load_task(tasks / SCALE, tasks)
    assert tomllib.loads(toml.read_text())["source"]["benchmark"] == "aka"


def test_cli_start_up_does_not_import_torch_or_yaml():
    code = "import sys, runner.cli; sys.exit('torch' in sys.modules or 'yaml' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 0
