"""`gauntlet tasks import aka` on AgentKernelArena's torch-extension HIP format (hip2hip/gpumode,
torch2hip), with small tasks in that format written for this test (tests/fixtures/aka_hip; never AKA's
own files): the real CLI, the real probe and reference check on the CPU, `tasks validate` over the
output, and the judge on the CPU for the imported tasks (the CPU build of the torch-extension kind
compiles C++ only, so the fixture's "HIP" file is plain C++ with the same contract)."""
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO, gauntlet

FIXTURES = REPO / "tests" / "fixtures" / "aka_hip"
SHIFT = "hip2hip/gpumode_ScaleShift"       # parameters (one constant), a float attribute, shape-list cases
ROWSUM = "torch2hip/gpumode_7_RowSum"      # AKA ships the HIP file empty; torch.rand inputs; a bool argument


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("aka_hip") / "tasks"
    return out, gauntlet("tasks", "import", "aka", FIXTURES, "--out", out)


def _load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_counts_per_category_and_skip_reasons(imported):
    out, proc = imported
    report = json.loads((out / "aka-import.json").read_text())
    assert report["by_category"] == {
        "hip2hip": {"total": 3, "imported": 1, "skipped": {"fn-not-returned": 1, "native-harness": 1}},
        "torch2hip": {"total": 1, "imported": 1, "skipped": {}}}
    rows = {t["path"]: t for t in report["tasks"]}
    two = rows["hip2hip/gpumode/TwoCalls"]
    assert two["status"] == "skipped" and "forward computes with fn's result" in two["detail"]
    assert rows["hip2hip/others/native_add"]["reason"] == "native-harness"
    assert rows["hip2hip/gpumode/ScaleShift"]["start"] == "shipped"
    assert rows["torch2hip/gpumode/7_RowSum"]["start"] == "stub"
    assert re.search(r"^hip2hip +3 +1 +fn-not-returned: 1, native-harness: 1$", proc.stdout, re.M)
    assert report["torch_compute_in_baseline"] == {"hip2hip": 0, "torch2hip": 0}
    assert "hip2hip: 0 imported task(s) whose shipped source computes with PyTorch" in proc.stdout
    assert sorted(p.relative_to(out).as_posix() for p in out.glob("*/*") if p.is_dir()) == [SHIFT, ROWSUM]


def test_hip2hip_task_is_the_shipped_extension_with_aka_tolerance(imported):
    from runner.tasks.task import Origin, load_task
    out, _ = imported
    task = load_task(out / SHIFT, out)
    assert task.kind == "torch-extension" and task.language == "torch-ext-hip" and task.category == "hip2hip"
    assert task.entry == "hip/hip_1_ScaleShift.hip" and task.editable == ("hip/hip_1_ScaleShift.hip",)
    assert task.symbol == "forward"
    assert (out / SHIFT / task.entry).read_text() == \
        (FIXTURES / "tasks/hip2hip/gpumode/ScaleShift/hip/hip_1_ScaleShift.hip").read_text()
    # the fixture's checker has rtol 2e-4, atol 3e-5 (AKA's has 1e-4 / 1e-5): read from it
    assert (task.tolerances["float32"].atol, task.tolerances["float32"].rtol) == (3e-5, 2e-4)
    assert task.origin == Origin("aka", "hip2hip/gpumode/ScaleShift", "hip2hip", "unknown")
    assert [c.params for c in task.configs("seen")] == [
        {"shape": "([4, 16],)"}, {"shape": "([8, 16],)"}, {"shape": "([2, 6, 16],)"}, {"shape": "([4, 10, 16],)"}]
    hidden = [eval(c.params["shape"]) for c in task.configs("unseen")]
    seen = [eval(c.params["shape"]) for c in task.configs("seen")]
    assert hidden and not any(h in seen for h in hidden)
    for (shape,) in hidden:
        assert shape[-1] == 16                      # the same in every AKA case: the model's features
        assert shape[0] <= 8 and (len(shape) == 2 or shape[1] <= 10)   # never past AKA's largest there
    assert any(v % 2 for (shape,) in hidden for v in shape[:-1])       # odd extents


def test_reference_is_the_functional_fn_on_captured_arguments(imported):
    """make_inputs gives what the functional forward passes to fn (input, the two parameters aligned
    from the module, its float attribute); the constant scale (ones) is drawn around 1; the reference
    equals the module's own forward on those parameters."""
    import torch
    from runner.tasks.task import load_task
    out, _ = imported
    task = load_task(out / SHIFT, out)
    ref = _load_module(task.reference, "aka_hip_ref_shift")
    config = task.configs("seen")[2].params
    args = ref.make_inputs(config, torch.Generator().manual_seed(5), "cpu")
    assert [type(a).__name__ for a in args] == ["Tensor", "Tensor", "Tensor", "float"]
    x, scale, shift, alpha = args
    assert list(x.shape) == [2, 6, 16] and list(scale.shape) == [16] and alpha == 0.5
    assert not torch.equal(scale, torch.ones(16)) and (scale - 1).abs().max() < 1     # drawn around 1
    again = ref.make_inputs(config, torch.Generator().manual_seed(5), "cpu")
    other = ref.make_inputs(config, torch.Generator().manual_seed(6), "cpu")
    assert all(torch.equal(a, b) for a, b in zip(args[:3], again[:3]))
    assert not torch.equal(args[1], other[1]) and not torch.equal(args[2], other[2])   # parameters follow the seed
    module_file = FIXTURES / "tasks/hip2hip/gpumode/ScaleShift/pytorch_code_module/py_1_ScaleShift.py"
    model = _load_module(module_file, "aka_hip_fixture_module").ScaleShift(16, 0.5)
    with torch.no_grad():
        model.scale.copy_(scale)
        model.shift.copy_(shift)
        want = model(x)
    assert torch.allclose(ref.reference(*args), want, rtol=0, atol=1e-6)


def test_torch2hip_gets_a_stub_with_the_captured_signature(imported):
    import torch
    from runner.tasks.task import load_task
    out, _ = imported
    task = load_task(out / ROWSUM, out)
    assert task.kind == "torch-extension" and task.category == "torch2hip"
    stub = (out / ROWSUM / "hip/hip_7_RowSum.hip").read_text()
    assert "torch::Tensor forward(torch::Tensor arg0, bool arg1)" in stub
    assert "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)" in stub and "TORCH_CHECK(false" in stub
    assert [c.params for c in task.configs("seen")] == [{"b": 4, "n": 32}, {"b": 8, "n": 64}, {"b": 16, "n": 48}]
    ref = _load_module(task.reference, "aka_hip_ref_rowsum")
    assert ref.DOMAIN == (0,)                       # torch.rand: made signed, with outliers
    x, keepdim = ref.make_inputs(task.configs("seen")[0].params, torch.Generator().manual_seed(0), "cpu")
    assert keepdim is True and bool((x < 0).any())
    assert torch.equal(ref.reference(x, keepdim), x.sum(-1, keepdim=True))


def test_imported_tasks_validate(imported):
    out, _ = imported
    proc = gauntlet("tasks", "validate", "--tasks-root", out)
    assert "2 valid, 0 invalid" in proc.stdout, proc.stdout


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")
def test_shipped_extension_passes_and_stub_fails_through_the_judge(imported, tmp_path):
    from runner.evaluator.judge.evaluation import evaluate
    from runner.tasks.task import load_task
    out, _ = imported
    shipped = evaluate(load_task(out / SHIFT, out), None, "cpu", splits=("seen", "unseen"), measure=False)
    assert shipped.compiled, shipped.compile_log
    assert shipped.configs and all(c.correct for c in shipped.configs), [(c.config, c.error) for c in shipped.configs]
    # wrong: ignores the drawn scale (AKA's ones): fails
    task = load_task(out / SHIFT, out)
    wrong = tmp_path / "wrong" / "hip"
    wrong.mkdir(parents=True)
    (wrong / "hip_1_ScaleShift.hip").write_text((out / SHIFT / task.entry).read_text().replace("* ps[f]", ""))
    bad = evaluate(task, wrong.parent, "cpu", splits=("seen",), measure=False)
    assert bad.compiled and not bad.correct("seen")
    stub = evaluate(load_task(out / ROWSUM, out), None, "cpu", splits=("seen",), measure=False)
    assert stub.compiled, stub.compile_log
    assert not stub.correct("seen")


def test_hidden_sizes_keep_fixed_and_tied_extents_and_stay_within_aka_sizes():
    from runner.tasks.importers.aka_hip import hidden_cases
    # q, k, v shapes equal in every case; d_model 4 the same in every case; seq 16..64
    cases = [([8, 16, 4], [8, 16, 4], [8, 16, 4]), ([16, 32, 4], [16, 32, 4], [16, 32, 4]),
             ([32, 64, 4], [32, 64, 4], [32, 64, 4])]
    hidden = [c for _, c in hidden_cases(cases)]
    assert hidden and not any(h in cases for h in hidden)
    for q, k, v in hidden:
        assert q == k == v and q[2] == 4 and q[0] <= 32 and q[1] <= 64
    assert any(q[0] % 2 and q[1] % 2 for q, _, _ in hidden)
    # a relation between extents that differ (matmul: a's columns are b's rows) is kept where it held in every case
    mm = [([16, 32], [32, 16]), ([32, 64], [64, 32]), ([8, 8], [8, 8])]
    for a, b in (c for _, c in hidden_cases(mm)):
        assert a[1] == b[0] and a[0] == b[1]
    # one case of its structure: extents of at least 8 vary, smaller ones stay
    (tag, first), *_ = hidden_cases([(4, 512, 3)])
    assert first[0] == 4 and first[2] == 3 and first[1] < 512


def test_reading_hip_tasks_never_executes_them(tmp_path):
    """The static mapping reads AKA's files with ast only: code that would run on import does not."""
    from runner.tasks.importers.aka import list_tasks, parse_runner
    from runner.tasks.importers.aka_hip import HipMapped
    root = tmp_path / "aka"
    shutil.copytree(FIXTURES / "tasks", root / "tasks")
    marker = tmp_path / "ran"
    module = root / "tasks/hip2hip/gpumode/ScaleShift/pytorch_code_module/py_1_ScaleShift.py"
    module.write_text(f"open({str(marker)!r}, 'w').close()\n" + module.read_text())
    mapped = {t.path: parse_runner(t) for t in list_tasks(root, ["hip2hip", "torch2hip"])}
    assert isinstance(mapped["hip2hip/gpumode/ScaleShift"], HipMapped) and not marker.exists()


def test_pytorch_compute_in_a_shipped_source_is_named_not_skipped():
    from runner.tasks.importers.aka_hip import torch_compute
    source = """
    // at::mm(a, b) in a comment is no call
    /* torch::softmax(x, 1) */
    auto y = torch::empty_like(x);             // allocation: not compute
    auto z = at::addmm(bias, x, w.t());
    auto s = torch::sigmoid(z);
    TORCH_CHECK(x.scalar_type() == at::kFloat, "float");
    """
    assert torch_compute(source) == ["addmm", "sigmoid"]
