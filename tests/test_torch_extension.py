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


# -- the GPU build's commands, compiled here by nvcc (nothing runs: this host has no GPU) ------------
# What a runner on an NVIDIA GPU runs (build.extension_command for arch sm_90), given -c: compiled to
# an object, not linked, since this host's CPU wheel has no libc10_cuda/libtorch_cuda to link; its
# link line is read from nvcc's -dryrun instead. -DC10_CUDA_NO_CMAKE_CONFIGURE_FILE: the CPU wheel
# ships the c10/cuda headers without the cuda_cmake_macros.h its CMake build generates (a CUDA
# wheel has it; the flag skips the include). The sources are the GPU fixtures' solutions, which
# bench/torch_ext_gpu_check.sh runs on a GPU.
ROOT = Path(__file__).resolve().parent.parent
NVCC = shutil.which("nvcc") or next((p for p in ("/usr/local/cuda/bin/nvcc",) if Path(p).exists()), None)
SHIM = ROOT / "bench" / "hip_shim" / "hipcc"
NO_CMAKE_MACROS = ("-DC10_CUDA_NO_CMAKE_CONFIGURE_FILE",)
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="no nvcc")


def _gpu_command(tmp_path, monkeypatch, source: Path, hip: bool) -> tuple[list[str], str]:
    from runner.evaluator.build import extension_command
    monkeypatch.setenv("GAUNTLET_NVCC", NVCC)
    monkeypatch.setenv("GAUNTLET_HIPCC", str(SHIM))
    library = tmp_path / "kernel-0123456789abcdef.so"
    cmd = extension_command(source, library, "sm_90", NO_CMAKE_MACROS, hip=hip)
    assert cmd[-2:] == ["-o", str(library)]
    return cmd, "gauntlet_ext_0123456789abcdef"


def _compile_object(cmd: list[str], tmp_path) -> Path:
    import subprocess
    obj = tmp_path / "kernel.o"
    proc = subprocess.run([*cmd[:-2], "-c", "-o", str(obj)], capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0 and obj.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return obj


def _symbols(obj: Path) -> str:
    """The object's demangled symbols; it must hold device code (nvcc's fatbin section) too."""
    import subprocess
    sections = subprocess.run(["objdump", "-h", str(obj)], capture_output=True, text=True, check=True).stdout
    assert ".nv_fatbin" in sections, sections[-2000:]
    return subprocess.run(["nm", "-C", str(obj)], capture_output=True, text=True, check=True).stdout


def _link_line(cmd: list[str]) -> str:
    """The host link command nvcc would run for `cmd` (-dryrun: nothing is compiled or linked)."""
    import subprocess
    proc = subprocess.run([*cmd, "-dryrun"], capture_output=True, text=True, timeout=120)
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if " -shared " in ln and "-o" in ln]
    assert lines, proc.stdout[-2000:] + proc.stderr[-2000:]
    return lines[-1]


def test_the_command_follows_the_target_and_the_platform(tmp_path, monkeypatch):
    """Which compiler, flags and torch libraries each (arch, target) gets; a CUDA extension for ROCm
    is refused. A real hipcc for ROCm is not here, so the ROCm command is only read."""
    from runner.evaluator.build import CompileError, compile_command, extension_command
    src = tmp_path / "k.hip"
    src.write_text("#include <torch/extension.h>\n")
    monkeypatch.setenv("GAUNTLET_HIPCC", str(SHIM))
    monkeypatch.setenv("GAUNTLET_NVCC", str(SHIM))      # any file: find_compiler only needs it to exist
    out = tmp_path / "k-0011223344556677.so"
    rocm = extension_command(src, out, "gfx942", hip=True)
    assert rocm[0] == str(SHIM) and "--offload-arch=gfx942" in rocm and rocm[rocm.index("-x") + 1] == "hip"
    assert {"-D__HIP_PLATFORM_AMD__=1", "-DUSE_ROCM=1", "-lc10_hip", "-ltorch_hip"} <= set(rocm)
    assert not {"-lc10_cuda", "-ltorch_cuda", "-lcudart", "-lhipblas"} & set(rocm)
    hip_on_nvidia = compile_command("torch-ext-hip", src, out, "sm_90")
    assert {"--offload-arch=sm_90", "-lc10_cuda", "-ltorch_cuda", "-lcudart"} <= set(hip_on_nvidia)
    assert not {"-D__HIP_PLATFORM_AMD__=1", "-DUSE_ROCM=1", "-lc10_hip"} & set(hip_on_nvidia)
    cuda = compile_command("torch-ext-cuda", src, out, "sm_90")
    assert cuda[cuda.index("-x") + 1] == "cu" and "-arch=sm_90" in cuda and "-D__CUDA_NO_HALF_OPERATORS__" in cuda
    assert "-lcublas" not in cuda
    src.write_text("#include <torch/extension.h>\n#include <cublas_v2.h>\n")
    assert "-lcublas" in compile_command("torch-ext-cuda", src, out, "sm_90")
    cpu = compile_command("torch-ext-hip", src, out, "native")
    assert cpu[cpu.index("-x") + 1] == "c++" and "-ltorch_cuda" not in cpu
    with pytest.raises(CompileError, match="not for ROCm"):
        extension_command(src, out, "gfx942", hip=False)


@needs_nvcc
@pytest.mark.slow
def test_the_cuda_command_compiles_a_cuda_extension(tmp_path, monkeypatch):
    cmd, module = _gpu_command(tmp_path, monkeypatch, FIXTURES / "torch2cuda/extscale/solution/kernel.cu", hip=False)
    assert cmd[0] == NVCC
    symbols = _symbols(_compile_object(cmd, tmp_path))
    assert f"PyInit_{module}" in symbols                       # TORCH_EXTENSION_NAME reached the binding
    assert "scale_kernel(float const*, float*, float, long)" in symbols      # its device kernel's host stub
    link = _link_line(cmd)
    assert all(f" {lib} " in link for lib in ("-lc10", "-lc10_cuda", "-ltorch_cpu", "-ltorch_cuda", "-ltorch",
                                              "-ltorch_python", "-lcudart")), link
    assert "-lcudart_static" not in link and "-rpath" in link


@needs_nvcc
@pytest.mark.slow
def test_the_shim_compiles_a_hip_extension_in_akas_format(tmp_path, monkeypatch):
    """The HIP command as a runner on an NVIDIA GPU gives it to GAUNTLET_HIPCC (bench/hip_shim/hipcc,
    nvcc through the header mapping): hipLaunchKernelGGL, HIP_KERNEL_NAME, c10::hip's stream,
    AT_DISPATCH_FLOATING_TYPES, as AgentKernelArena's .hip extensions are written."""
    cmd, module = _gpu_command(tmp_path, monkeypatch, FIXTURES / "torch2hip/extscale_gpu/solution/kernel.hip",
                               hip=True)
    assert cmd[0] == str(SHIM) and "-x" in cmd and cmd[cmd.index("-x") + 1] == "hip"
    symbols = _symbols(_compile_object(cmd, tmp_path))
    assert f"PyInit_{module}" in symbols
    assert "void scale_kernel<float>(float const*, float*, float, long long)" in symbols   # both dispatched types
    assert "void scale_kernel<double>(double const*, double*, double, long long)" in symbols
    link = _link_line(cmd)
    assert all(f" {lib} " in link for lib in ("-lc10_cuda", "-ltorch_cuda", "-ltorch_python", "-lcudart")), link
    assert "-lcudart_static" not in link and "-rpath" in link
