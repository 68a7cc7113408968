"""Turn a candidate tree into a callable kernel: compile .cu/.hip with the vendor compiler, build a
PyTorch C++ extension (torch-ext-cuda / torch-ext-hip), or import a Triton module. Needs torch only for the calling side
and for an extension's build; compiling a .cu/.hip needs only the compiler.
"""
from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

COMPILE_TIMEOUT_S = 600


class CompileError(RuntimeError):
    """The candidate did not build or import; the message is the compiler's or importer's log."""


COMPILER_ENV = {"cuda": "GAUNTLET_NVCC", "hip": "GAUNTLET_HIPCC"}   # a compiler named by path


def find_compiler(language: str) -> str:
    name, fallbacks = {
        "cuda": ("nvcc", ["/usr/local/cuda/bin/nvcc"]),
        "hip": ("hipcc", ["/opt/rocm/bin/hipcc"]),
    }[language]
    env = COMPILER_ENV[language]
    for candidate in (os.environ.get(env), shutil.which(name), *fallbacks):
        if candidate and Path(candidate).exists():
            return candidate
    raise CompileError(f"{name} not found (set {env} or put it on PATH)")


def compiler_versions() -> dict[str, str]:
    """{'nvcc': 'release 12.4', 'hipcc': 'HIP version: 6.1...'} for the vendor compilers found (the
    same lookup as a build); recorded with every result so a number names what compiled it."""
    import re
    found = {}
    for language, tool in (("cuda", "nvcc"), ("hip", "hipcc")):
        try:
            path = find_compiler(language)
            text = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
        except (CompileError, OSError, subprocess.TimeoutExpired):
            continue
        found[tool] = (re.findall(r"release [\d.]+|HIP version: [\w.\-]+", text) or [text.strip()[-60:]])[0]
    return found


def compile_command(language: str, source: Path, output: Path, arch: str, flags=()) -> list[str]:
    """The harness owns the base flags; a task may only add to them."""
    if language == "cuda":
        return [find_compiler("cuda"), "-O3", "-std=c++17", "-shared", "-Xcompiler", "-fPIC",
                f"-arch={arch}", *flags, "-o", str(output), str(source)]
    if language == "c":      # native kernels on the CPU (the native path without a GPU)
        return [shutil.which("cc") or "cc", "-O2", "-shared", "-fPIC", *flags, "-o", str(output), str(source)]
    if language == "hip":
        return [find_compiler("hip"), "-O3", "-std=c++17", "-shared", "-fPIC",
                f"--offload-arch={arch}", *flags, "-o", str(output), str(source)]
    if language in EXTENSION_LANGUAGES:
        return extension_command(source, output, arch, flags, hip=language == "torch-ext-hip")
    raise ValueError(f"{language} is not a compiled language")


# The runner languages of a torch-extension candidate ([candidate] kind = "torch-extension"), by the
# category's target: the HIP one's source is built by the HIP compiler on a GPU (task.language).
EXTENSION_LANGUAGES = ("torch-ext-cuda", "torch-ext-hip")
# Kernels that launch device kernels from compiled code, which the native launch check looks for on
# a GPU (kernel_runner.Runner._native_launch_check): a native launch's, and a torch extension's forward.
LAUNCHING_LANGUAGES = ("cuda", "hip", *EXTENSION_LANGUAGES)
# torch.utils.cpp_extension's own flags for an extension's device code (COMMON_NVCC_FLAGS;
# COMMON_HIP_FLAGS and COMMON_HIPCC_FLAGS, which ROCm's build adds with -DWITH_HIP), copied rather
# than imported: that module imports setuptools, which a runner's environment need not have.
TORCH_NVCC_FLAGS = ("-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
                    "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__", "--expt-relaxed-constexpr")
TORCH_HIP_PLATFORM_FLAGS = ("-DWITH_HIP", "-D__HIP_PLATFORM_AMD__=1", "-DUSE_ROCM=1", "-DHIPBLAS_V2")
TORCH_HIPCC_FLAGS = ("-DCUDA_HAS_FP16=1", "-D__HIP_NO_HALF_OPERATORS__=1", "-D__HIP_NO_HALF_CONVERSIONS__=1",
                     "-DHIP_ENABLE_WARP_SYNC_BUILTINS=1")


def extension_module(library: Path) -> str:
    """The Python name of a torch extension built as `library` (its PyInit_ symbol): one per build,
    so a baseline's and a candidate's extension never share a name in one process."""
    return "gauntlet_ext_" + library.stem.rsplit("-", 1)[-1]


def _uses_blas(source: Path) -> bool:
    """The rule for linking the vendor BLAS: the source names it (a cublas*/hipblas* header, type or
    call). torch_cuda/torch_hip do not re-export it, and a shared library links with its symbols
    left undefined, so without it a cublasSgemm would be resolved, or not, only at the extension's load."""
    import re
    try:
        text = source.read_text(errors="replace")
    except OSError:
        return False
    return re.search(r"\b(cublas|hipblas)\w*", text) is not None


def extension_command(source: Path, output: Path, arch: str, flags=(), hip: bool = False) -> list[str]:
    """A PyTorch C++ extension (`#include <torch/extension.h>`, PYBIND11_MODULE(TORCH_EXTENSION_NAME, m))
    compiled and linked against the torch this process imported, as torch.utils.cpp_extension would
    build it, in one compiler command (no ninja, no cpp_extension cache). `arch` says where it runs,
    as for a native kernel (kernel_runner.Runner._compile: device_arch, "native" on the CPU); `hip`:
    the task targets HIP (a `*2hip` category, runner language torch-ext-hip).

      CPU ("native"): c++ -x c++, torch's CPU libraries (c10, torch_cpu, torch, torch_python);
      NVIDIA (sm_XY), CUDA: nvcc -x cu with cpp_extension's CUDA flags, c10_cuda/torch_cuda and the
        shared CUDA runtime (the one torch loaded; nvcc's default is its static copy);
      NVIDIA (sm_XY), HIP: the HIP compiler's command (find_compiler("hip") as a native HIP kernel's:
        on an NVIDIA host only bench/hip_shim/hipcc, which turns it into nvcc's), linking the CUDA torch;
      AMD (gfxNNN), HIP: hipcc -x hip with cpp_extension's HIP flags (__HIP_PLATFORM_AMD__, USE_ROCM),
        c10_hip/torch_hip (hipcc links the HIP runtime itself).
    The vendor BLAS (-lcublas / -lhipblas) is linked when the source names it (_uses_blas)."""
    import sysconfig
    import torch
    root = Path(torch.__file__).resolve().parent
    lib = root / "lib"
    common = [f"-DTORCH_EXTENSION_NAME={extension_module(output)}", "-DTORCH_API_INCLUDE_EXTENSION_H",
              f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}",
              "-isystem", str(root / "include"), "-isystem", str(root / "include/torch/csrc/api/include"),
              "-isystem", sysconfig.get_paths()["include"]]

    def libraries(device: str) -> list[str]:     # cpp_extension's _prepare_ldflags order
        own = {"cpu": [], "cuda": ["-lc10_cuda", "-ltorch_cuda"], "rocm": ["-lc10_hip", "-ltorch_hip"]}[device]
        return [f"-L{lib}", "-lc10", *own[:1], "-ltorch_cpu", *own[1:], "-ltorch", "-ltorch_python"]

    if arch == "native":
        return [shutil.which("c++") or "c++", "-O2", "-std=c++20", "-shared", "-fPIC", "-x", "c++", *common,
                *flags, str(source), "-x", "none", *libraries("cpu"), f"-Wl,-rpath,{lib}", "-o", str(output)]
    blas = _uses_blas(source)
    if arch.startswith("gfx"):
        if not hip:
            raise CompileError("a CUDA torch extension is built for an NVIDIA GPU, not for ROCm")
        return [find_compiler("hip"), "-O3", "-std=c++20", "-shared", "-fPIC", f"--offload-arch={arch}",
                "-fno-gpu-rdc", "-x", "hip", *TORCH_HIP_PLATFORM_FLAGS, *TORCH_HIPCC_FLAGS, *common, *flags,
                str(source), *libraries("rocm"), *(["-lhipblas"] if blas else []), f"-Wl,-rpath,{lib}",
                "-o", str(output)]
    if hip:     # HIP source on an NVIDIA GPU: no ROCm platform flags (the torch here is CUDA's)
        return [find_compiler("hip"), "-O3", "-std=c++20", "-shared", "-fPIC", f"--offload-arch={arch}",
                "-x", "hip", *TORCH_HIPCC_FLAGS, *common, *flags, str(source), *libraries("cuda"),
                *(["-lhipblas"] if blas else []), "-lcudart", f"-Wl,-rpath,{lib}", "-o", str(output)]
    return [find_compiler("cuda"), "-O3", "-std=c++20", "-shared", "-Xcompiler", "-fPIC", f"-arch={arch}",
            "-x", "cu", *TORCH_NVCC_FLAGS, *common, *flags, str(source), *libraries("cuda"),
            *(["-lcublas"] if blas else []), "-cudart", "shared", "-lcudart", "-Xlinker", f"-rpath,{lib}",
            "-o", str(output)]


def compile_native(language: str, tree: Path, entry: str, arch: str, flags=(),
                   out_dir: Path | None = None) -> tuple[Path, str]:
    """Compile tree/entry into a shared library; returns (library, log). Raises CompileError."""
    source = tree / entry
    if not source.is_file():
        raise CompileError(f"{entry}: file not found")
    digest = hashlib.sha256(source.read_bytes() + repr((language, arch, flags)).encode()).hexdigest()[:16]
    out_dir = out_dir or tree / ".build"
    out_dir.mkdir(parents=True, exist_ok=True)
    library = out_dir / f"{Path(entry).stem}-{digest}.so"
    cmd = compile_command(language, source, library, arch, flags)
    # hipcc picks its platform from what it finds; a host with nvcc too would get the CUDA one.
    env = {**os.environ, "HIP_PLATFORM": "amd"} if language in ("hip", "torch-ext-hip") else None
    try:
        proc = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        raise CompileError(f"compiler timed out after {COMPILE_TIMEOUT_S} s") from None
    log = " ".join(cmd) + "\n" + proc.stdout + proc.stderr
    if proc.returncode != 0 or not library.is_file():
        raise CompileError(log)
    return library, log


def import_module(path: Path, name: str):
    """Import a candidate/reference file under a fresh module name, with its folder importable."""
    if not path.is_file():
        raise CompileError(f"{path.name}: file not found")
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # a candidate may raise anything, SystemExit included
        raise CompileError(f"importing {path.name} failed: {type(exc).__name__}: {exc}") from None
    return module


@dataclass
class Kernel:
    """A callable under test. `prepare` makes per-call state outside any timed region; `run` is timed."""
    name: str
    python_fn: object = None        # Python kernels and the PyTorch reference
    native_fn: object = None        # ctypes function of a compiled kernel
    keepalive: object = None        # the CDLL, so the library stays loaded

    def prepare(self, args: list, spec, pattern: int = 0, allocate=None):
        """Native kernels get harness-allocated outputs: contiguous, of the shapes and dtypes in
        `spec` (tensors, typically on the meta device), poisoned with `pattern` so that elements the
        kernel does not write fail, and a kernel relying on what the buffer held before fails too.
        `allocate(i, shape, dtype)` makes output i where the harness wants it (the judge's arena)."""
        if self.native_fn is None:
            return None
        import torch
        like = spec if isinstance(spec, (tuple, list)) else (spec,)
        device = next((a.device for a in args if isinstance(a, torch.Tensor)), torch.device("cpu"))
        outs = [allocate(i, tuple(t.shape), t.dtype) if allocate is not None
                else torch.empty(tuple(t.shape), dtype=t.dtype, device=device) for i, t in enumerate(like)]
        for out in outs:
            poison(out, pattern)
        return outs

    def run(self, args: list, state):
        if self.native_fn is None:
            return self.python_fn(*args)
        import torch
        c_args = [to_c(a) for a in args] + [ctypes.c_void_p(o.data_ptr()) for o in state]
        stream = torch.cuda.current_stream().cuda_stream if torch.cuda.is_available() else 0
        rc = self.native_fn(*c_args, ctypes.c_void_p(stream))
        if rc != 0:
            raise RuntimeError(f"{self.name}: launch returned {rc}")
        return state[0] if len(state) == 1 else tuple(state)


POISON_PATTERNS = 2


def poison(tensor, pattern: int = 0) -> None:
    """Fill with garbage a correct kernel overwrites. Pattern 0: NaN for floats; pattern 1: a huge
    finite negative value (a kernel that tests for NaN to detect the harness still fails). Integers
    get an unlikely value per pattern."""
    import torch
    if tensor.is_floating_point():
        tensor.fill_(float("nan") if pattern % 2 == 0 else -0.5 * torch.finfo(tensor.dtype).max)
    elif tensor.dtype == torch.bool:
        tensor.fill_(pattern % 2 == 0)
    elif tensor.dtype.is_signed:
        # One byte per element cannot hold the wider pattern (fill_ raises on overflow).
        wide = tensor.element_size() > 1
        tensor.fill_((-0x5A5A if wide else -0x5A) if pattern % 2 == 0 else (0x3C3C if wide else 0x3C))
    else:
        tensor.fill_(0xA5 if pattern % 2 == 0 else 0x5A)


def to_c(value):
    import torch
    if isinstance(value, torch.Tensor):
        return ctypes.c_void_p(value.data_ptr())
    if isinstance(value, bool):
        return ctypes.c_int64(int(value))
    if isinstance(value, int):
        return ctypes.c_int64(value)
    if isinstance(value, float):
        return ctypes.c_float(value)
    raise TypeError(f"cannot pass {type(value).__name__} to a C kernel")


def load_native(library: Path, symbol: str, name: str) -> Kernel:
    try:
        lib = ctypes.CDLL(str(library))
        fn = getattr(lib, symbol)
    except (OSError, AttributeError) as exc:
        raise CompileError(f"loading {library.name}: {exc}") from None
    fn.restype = ctypes.c_int
    return Kernel(name=name, native_fn=fn, keepalive=lib)


def load_extension(library: Path, symbol: str, name: str) -> Kernel:
    """Import a built torch extension; its `symbol` is called like a Python kernel (it allocates and
    returns its outputs). torch is imported first: the extension's pybind casters are torch's."""
    import importlib.machinery
    import torch  # noqa: F401
    module_name = extension_module(library)
    loader = importlib.machinery.ExtensionFileLoader(module_name, str(library))
    spec = importlib.util.spec_from_file_location(module_name, library, loader=loader)
    try:
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except BaseException as exc:  # its static initialisers are the candidate's code
        raise CompileError(f"loading {library.name}: {type(exc).__name__}: {exc}") from None
    fn = getattr(module, symbol, None)
    if not callable(fn):
        raise CompileError(f"{library.name} defines no callable {symbol!r}")
    return Kernel(name=name, python_fn=fn, keepalive=module)


def load_python(path: Path, symbol: str, name: str) -> Kernel:
    module = import_module(path, f"gauntlet_{name}_{abs(hash(str(path)))}")
    fn = getattr(module, symbol, None)
    if not callable(fn):
        raise CompileError(f"{path.name} defines no callable {symbol!r}")
    return Kernel(name=name, python_fn=fn)


def device_arch(device: str) -> str:
    """The compile target of the GPU in use: sm_XY on NVIDIA, gfxNNN on AMD."""
    import torch
    props = torch.cuda.get_device_properties(0)
    if device == "rocm":
        return props.gcnArchName.split(":")[0]
    return f"sm_{props.major}{props.minor}"
