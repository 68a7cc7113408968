"""The torch-extension candidate kind ([candidate] kind = "torch-extension"): AgentKernelArena's HIP
contract, a PyTorch C++ extension whose pybind `forward` the judge calls. On this CPU host it is built
with c++ against the CPU torch's headers and libraries, and its forward computes on the CPU; this
proves the build / load / call plumbing through the real judge (sandboxed runners, the reference,
the checks), not a GPU build (docs/importers.md, "AgentKernelArena's HIP tasks")."""
import shutil
from pathlib import Path

import pytest

from runner.tasks.task import TaskError, load_task

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "torch_ext_tasks"
TASK = "torch2hip/extscale"

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")

HEADER = "#include <torch/extension.h>\n"
BINDING = "\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"forward\", &forward); }\n"

# The work done by the extension's own C++ loop: what a HIP forward's kernel does on the GPU.
HONEST = HEADER + """
torch::Tensor forward(torch::Tensor x, double alpha) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* src = xc.data_ptr<float>();
    float* dst = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); ++i) dst[i] = static_cast<float>(alpha) * src[i];
    return y;
}
""" + BINDING

# Correct, but PyTorch computes it: at::mul goes through the dispatcher, where the op watch sits.
FALLBACK = HEADER + """
torch::Tensor forward(torch::Tensor x, double alpha) { return at::mul(x, alpha); }
""" + BINDING

# AKA's shipped hip2hip GELU works in place and returns its input: the judge refuses that.
IN_PLACE = HEADER + """
torch::Tensor forward(torch::Tensor x, double alpha) {
    float* p = x.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i) p[i] *= static_cast<float>(alpha);
    return x;
}
""" + BINDING


@pytest.fixture
def task(tmp_path):
    root = tmp_path / "tasks"
    shutil.copytree(FIXTURES, root)
    return load_task(root / TASK, root)


def evaluate_source(task, tmp_path, source: str, name: str):
    from runner.evaluator.judge.evaluation import evaluate
    candidate = tmp_path / name
    candidate.mkdir()
    (candidate / "kernel.cpp").write_text(source)
    return evaluate(task, candidate, "cpu", splits=("seen", "unseen"), measure=False)


def test_the_kind_is_read_from_task_toml(task, tmp_path):
    from runner.workspace import workspace_view
    assert task.kind == "torch-extension" and task.language == "torch-ext-hip"
    view = tmp_path / "view" / "task.toml"        # the agent's copy keeps it: its self-check builds the same
    shutil.copytree(task.root, view.parent)
    view.write_text(workspace_view(task))
    assert load_task(view.parent, workspace_view=True).language == "torch-ext-hip"
    toml = tmp_path / "tasks" / TASK / "task.toml"
    toml.write_text(toml.read_text().replace('kind = "torch-extension"', 'kind = "pybind"'))
    with pytest.raises(TaskError, match="candidate.kind"):
        load_task(toml.parent, tmp_path / "tasks")


def test_the_agent_is_told_the_extension_contract(task):
    from runner.agents.agent import build_prompt
    prompt = build_prompt(task, 600, 1_900_000_000, "CHECK", "cpu", "/opt/venv/bin/python", 10.0)
    assert "is a PyTorch C++ extension" in prompt and "extern \"C\"" not in prompt
    assert "- Compile: `CHECK --no-timing`" in prompt


@pytest.mark.slow
def test_an_extension_is_built_loaded_and_called_by_the_judge(task, tmp_path):
    ev = evaluate_source(task, tmp_path, HONEST, "honest")
    assert ev.compiled, ev.compile_log
    assert [(c.config, c.correct) for c in ev.configs] == [("small", True), ("hidden-odd", True)]
    # A CPU forward has no device kernel: the static check says so, and it is the only flag.
    assert ev.flags == ["no_custom_kernel: no __global__ function in kernel.cpp"]


@pytest.mark.slow
def test_the_shipped_stub_builds_and_fails(task):
    from runner.evaluator.judge.evaluation import evaluate
    ev = evaluate(task, None, "cpu", splits=("seen",), measure=False)
    assert ev.compiled, ev.compile_log
    assert not ev.correct("seen")


@pytest.mark.slow
def test_pytorch_compute_inside_the_extension_is_seen(task, tmp_path):
    ev = evaluate_source(task, tmp_path, FALLBACK, "fallback")
    assert ev.compiled and ev.correct("seen")
    assert any(f.startswith("torch_fallback") and "aten.mul" in f for f in ev.flags), ev.flags


@pytest.mark.slow
def test_an_in_place_forward_is_refused(task, tmp_path):
    ev = evaluate_source(task, tmp_path, IN_PLACE, "in_place")
    assert ev.compiled and not ev.correct("seen")
    assert all("is (a view of) an input" in (c.error or "") for c in ev.configs), [c.error for c in ev.configs]


@pytest.mark.slow
def test_a_build_error_is_a_compile_failure(task, tmp_path):
    ev = evaluate_source(task, tmp_path, HEADER + "torch::Tensor forward(", "broken")
    assert not ev.compiled and "error" in ev.compile_log
