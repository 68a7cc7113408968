"""Static anti-reward-hacking checks on the candidate's source (see docs/evaluation.md).

Python (Triton categories) is parsed with `ast`: names are resolved through the file's own imports
and aliases (`import torch.nn.functional as F`, `from time import perf_counter as pc`), so a check
sees what is called, not how it is spelled. C/C++ (.cu/.hip) is scanned token by token after comments,
string and character literals are removed: the identifiers that matter (runtime API calls, libc
functions, types) are single tokens, so a token scan does not match them inside comments or words,
and needs no compiler. Its limit, stated in the docs: the preprocessor can build a name the scan
never sees (`#define S(x) cuda##x`), which is why `##` pasting that produces a flagged prefix is
flagged, and why the dynamic defences do not rely on it.

Every finding is a flag `kind: detail`; a flagged candidate scores zero. Standard library only.
"""
from __future__ import annotations

import ast
import re

# -- Python ---------------------------------------------------------------------------------------
FORBIDDEN_IMPORTS = {
    "os": "process_control", "sys": "process_control", "subprocess": "process_control",
    "signal": "process_control", "shutil": "process_control", "pathlib": "process_control",
    "io": "process_control", "tempfile": "process_control", "pickle": "process_control",
    "ctypes": "native_access", "cffi": "native_access", "mmap": "native_access",
    "gc": "introspection", "inspect": "introspection", "importlib": "introspection",
    "builtins": "introspection", "weakref": "introspection", "types": "introspection",
    "threading": "thread_injection", "_thread": "thread_injection", "multiprocessing": "thread_injection",
    "concurrent": "thread_injection", "asyncio": "thread_injection",
    "time": "timer_patching", "timeit": "timer_patching",
    "runner": "harness_access", "gauntlet_reference": "harness_access", "reference": "harness_access",
    "socket": "process_control", "urllib": "process_control", "requests": "process_control",
    # ways out of the process or into the interpreter's machinery that are not on the list above
    "runpy": "introspection", "atexit": "process_control", "codecs": "introspection", "marshal": "introspection",
    "faulthandler": "process_control", "site": "introspection", "sysconfig": "introspection",
    "resource": "process_control", "fcntl": "process_control", "pty": "process_control",
    "select": "process_control", "selectors": "process_control", "zipimport": "introspection",
    "code": "introspection", "codeop": "introspection", "pdb": "introspection", "ast": "introspection",
    "dis": "introspection", "copyreg": "introspection", "numba": "native_access", "cupy": "library_fallback",
    # a GPU kernel task is not computed on the host
    "numpy": "numpy_compute", "scipy": "numpy_compute",
}
FORBIDDEN_BUILTINS = {
    "__import__": "introspection", "eval": "introspection", "exec": "introspection",
    "compile": "introspection", "globals": "introspection", "locals": "introspection",
    "vars": "introspection", "open": "process_control", "breakpoint": "process_control",
    "setattr": "introspection", "delattr": "introspection", "input": "process_control",
}
# getattr is allowed (Triton code uses it) unless its name argument is not a literal.
DUNDER_ATTRS = {"__dict__", "__globals__", "__code__", "__builtins__", "__subclasses__", "__bases__",
                "__class__", "__mro__", "__closure__", "__defaults__", "__kwdefaults__", "__getattribute__",
                "__setattr__", "__import__", "__loader__", "__spec__", "__self__", "__func__"}
TIMING_ATTRS = {"record", "elapsed_time", "synchronize", "perf_counter", "perf_counter_ns", "monotonic",
                "time", "Event", "current_stream", "default_stream", "do_bench", "median", "isclose",
                "allclose", "equal", "run"}
STREAM_CALLS = {"torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.ExternalStream", "torch.cuda.set_stream",
                "torch.Stream", "torch.cuda.StreamContext", "torch.cuda.graph", "torch.cuda.CUDAGraph",
                "torch.cuda.graphs", "torch.cuda.set_sync_debug_mode"}
SUBCLASS_CALLS = {"torch.Tensor._make_subclass", "torch._C._TensorBase", "torch.Tensor.as_subclass",
                  "torch.Tensor._make_wrapper_subclass", "torch.utils._python_dispatch.TorchDispatchMode",
                  "torch.overrides.TorchFunctionMode"}
SUBCLASS_ATTRS = {"_make_subclass", "_make_wrapper_subclass", "as_subclass", "__torch_function__",
                  "__torch_dispatch__", "_C"}
# PyTorch doing the computation for a candidate that must write a kernel.
TORCH_COMPUTE = {
    "matmul", "mm", "bmm", "addmm", "addbmm", "baddbmm", "mv", "dot", "einsum", "tensordot", "linear",
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "softmax", "log_softmax",
    "layer_norm", "rms_norm", "group_norm", "batch_norm", "gelu", "silu", "relu", "sigmoid", "tanh",
    "exp", "log", "sum", "mean", "var", "std", "rsqrt", "sqrt", "pow", "cumsum", "cumprod", "max", "min",
    "amax", "amin", "argmax", "argmin", "sort", "topk", "norm", "mul", "add", "sub", "div", "where",
    "scaled_dot_product_attention", "baddbmm", "outer", "kron", "chain_matmul", "lerp", "addcmul",
    "addcdiv", "clamp", "abs", "neg", "reciprocal", "square", "erf", "cos", "sin", "logsumexp",
    "transpose_copy", "t_copy", "compile",
}
TENSOR_COMPUTE_METHODS = {
    "matmul", "mm", "bmm", "softmax", "log_softmax", "sum", "mean", "exp", "log", "sigmoid", "tanh",
    "relu", "gelu", "silu", "rsqrt", "sqrt", "pow", "cumsum", "norm", "var", "std", "amax", "amin",
    "max", "min", "mul", "add", "sub", "div", "mul_", "add_", "sub_", "div_", "addmm", "baddbmm",
    "logsumexp", "erf", "clamp", "abs", "neg", "square", "reciprocal", "lerp", "addcmul", "dot", "mv",
}
HALF_NAMES = {"torch.float16", "torch.half", "torch.bfloat16", "tl.float16", "tl.bfloat16",
              "triton.language.float16", "triton.language.bfloat16", "tl.float8e4nv", "tl.float8e5",
              "torch.float8_e4m3fn", "torch.float8_e5m2"}
HALF_METHODS = {"half", "bfloat16"}
TF32_ATTRS = {"allow_tf32"}


NON_TENSOR_FACTORIES = {"set", "list", "dict", "frozenset", "tuple", "collections.deque", "collections.defaultdict",
                        "collections.OrderedDict", "collections.Counter", "str", "bytearray"}


def _constant(node):
    """The value of a constant expression (string/number literals and + between them), else None."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _constant(node.left), _constant(node.right)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
    if isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values):
        return "".join(str(v.value) for v in node.values)
    return None


class _Resolver(ast.NodeVisitor):
    """Maps local names to the dotted names they stand for: imports and aliases (`import torch as t`,
    `from torch import os as o`), plain assignments (`f = torch.softmax`, `a, b = torch.nn, 1`) and
    `getattr(x, "constant")`; and collects names bound to plain containers (a set's `.add()` is not
    PyTorch)."""

    def __init__(self):
        self.aliases: dict[str, str] = {}
        self.containers: set[str] = set()

    def visit_Assign(self, node):
        pairs = []
        for target in node.targets:
            if isinstance(target, ast.Name):
                pairs.append((target, node.value))
            elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(node.value, (ast.Tuple, ast.List)) \
                    and len(target.elts) == len(node.value.elts):
                pairs += list(zip(target.elts, node.value.elts))
        for target, value in pairs:
            if not isinstance(target, ast.Name):
                continue
            if isinstance(value, (ast.Set, ast.List, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)) or (
                    isinstance(value, ast.Call) and (dotted(value.func, self.aliases) or "") in NON_TENSOR_FACTORIES):
                self.containers.add(target.id)
                continue
            name = dotted(value, self.aliases)
            roots = {v.split(".")[0] for v in self.aliases.values()} | {"torch", "F", "tl", "triton", "np", "numpy"}
            if name and name.split(".")[0] in roots:
                self.aliases[target.id] = name
        self.generic_visit(node)

    def visit_Import(self, node):
        for a in node.names:
            self.aliases[(a.asname or a.name).split(".")[0] if not a.asname else a.asname] = \
                a.name if a.asname else a.name.split(".")[0]

    def visit_ImportFrom(self, node):
        for a in node.names:
            self.aliases[a.asname or a.name] = f"{node.module or ''}.{a.name}".lstrip(".")


def dotted(node, aliases) -> str | None:
    parts = []
    while True:
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and len(node.args) >= 2 and isinstance(_constant(node.args[1]), str):
            parts.append(_constant(node.args[1]))       # getattr(torch, "soft" + "max") is torch.softmax
            node = node.args[0]
        else:
            break
    if not isinstance(node, ast.Name):
        return None
    head = aliases.get(node.id, node.id)
    return ".".join([head, *reversed(parts)])


def _normalise(name: str) -> str:
    for prefix, full in (("triton.language.", "tl."), ("torch.nn.functional.", "F.")):
        if name.startswith(prefix):
            return full + name[len(prefix):]
    return name


def check_python(source: str, *, custom_kernel: bool = True, fp32_task: bool = False,
                 filename: str = "kernel.py") -> list[str]:
    """Flags for one Python candidate file. `custom_kernel`: the category asks for a kernel, so
    PyTorch compute calls are a fallback; `fp32_task`: no tensor of the task is half/bf16."""
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError:
        return []  # the import fails and the compile gate reports it
    resolver = _Resolver()
    resolver.visit(tree)
    aliases = resolver.aliases
    flags: list[str] = []

    def flag(kind, detail, node):
        flags.append(f"{kind}: {detail} ({filename}:{getattr(node, 'lineno', '?')})")

    jit_seen = False
    in_jit: set[int] = set()      # nodes inside @triton.jit bodies: device code, not host PyTorch
    bound: set[str] = set()       # names the file binds itself (a parameter called `input` is fine)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bound.add(node.name)
            bound.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
            if any((dotted(d.func if isinstance(d, ast.Call) else d, aliases) or "").split(".")[-1] == "jit"
                   for d in node.decorator_list):
                in_jit.update(id(n) for n in ast.walk(node))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.ClassDef):
            bound.add(node.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                root = a.name.split(".")[0]
                if root in FORBIDDEN_IMPORTS:
                    flag(FORBIDDEN_IMPORTS[root], f"import {a.name}", node)
        elif isinstance(node, ast.ImportFrom):
            root = (node.module or "").split(".")[0]
            if node.level:
                flag("harness_access", "relative import", node)
            elif root in FORBIDDEN_IMPORTS:
                flag(FORBIDDEN_IMPORTS[root], f"from {node.module} import ...", node)
            elif root == "torch" and any(a.name in SUBCLASS_ATTRS for a in node.names):
                flag("tensor_subclass", f"from {node.module} import {node.names[0].name}", node)
        elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            flag("try_fallback", "try/except (a fallback path the checks may not exercise)", node)
        elif isinstance(node, ast.ClassDef):
            for base in node.bases:
                name = _normalise(dotted(base, aliases) or "")
                if name in ("torch.Tensor", "Tensor", "torch._C._TensorBase", "torch._C.TensorBase") or \
                        name.endswith("TorchDispatchMode") or name.endswith("TorchFunctionMode"):
                    flag("tensor_subclass", f"class {node.name}({name})", node)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Attribute):
                        name = dotted(t, aliases) or ""
                        root = name.split(".")[0]
                        if root in ("torch", "time", "triton", "tl", "statistics", "math", "builtins") \
                                or t.attr in TIMING_ATTRS:
                            flag("timer_patching", f"assignment to {name or t.attr}", node)
                        if t.attr in TF32_ATTRS:
                            flag("precision_downgrade", f"assignment to {name or t.attr}", node)
                        if t.attr in DUNDER_ATTRS:
                            flag("introspection", f"assignment to .{t.attr}", node)
        elif isinstance(node, ast.Global):
            pass
        elif isinstance(node, ast.Attribute):
            if node.attr in DUNDER_ATTRS:
                flag("introspection", f".{node.attr}", node)
            elif node.attr in SUBCLASS_ATTRS:
                flag("tensor_subclass", f".{node.attr}", node)
            chain = dotted(node, aliases) or ""
            for part in chain.split(".")[1:]:     # a forbidden module reached through another: torch.sys, np.os
                if part in FORBIDDEN_IMPORTS and part not in ("time", "io", "types", "code", "select", "site"):
                    flag(FORBIDDEN_IMPORTS[part], chain, node)
            if node.attr == "numpy" and custom_kernel:
                flag("numpy_compute", f".{node.attr}", node)
        elif isinstance(node, ast.Name):
            if node.id in FORBIDDEN_BUILTINS and node.id not in aliases and node.id not in bound:
                flag(FORBIDDEN_BUILTINS[node.id], f"{node.id}", node)
            elif node.id == "__builtins__":
                flag("introspection", "__builtins__", node)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) and custom_kernel:
            flag("torch_fallback", "@ operator", node)
        elif isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                d = dec.func if isinstance(dec, ast.Call) else dec
                if (dotted(d, aliases) or "").split(".")[-1] in ("jit", "autotune", "heuristics"):
                    jit_seen = True
        if isinstance(node, ast.Call):
            name = _normalise(dotted(node.func, aliases) or "")
            last = name.split(".")[-1] if name else (node.func.attr if isinstance(node.func, ast.Attribute) else "")
            if name in STREAM_CALLS or last in ("Stream", "ExternalStream", "set_stream", "CUDAGraph"):
                flag("stream_injection", name or last, node)
            elif name.startswith(("threading.", "multiprocessing.", "concurrent.", "_thread.")):
                flag("thread_injection", name, node)
            if name in SUBCLASS_CALLS:
                flag("tensor_subclass", name, node)
            if name.startswith(("numpy.", "np.", "scipy.")) and custom_kernel:
                flag("numpy_compute", name, node)
            if name in ("getattr", "setattr", "hasattr") and len(node.args) >= 2 and \
                    _constant(node.args[1]) is None:
                flag("introspection", f"{name} with a computed name", node)
            if name in ("setattr",) or (name == "getattr" and len(node.args) >= 2 and
                                        isinstance(node.args[1], ast.Constant) and
                                        str(node.args[1].value) in DUNDER_ATTRS | TIMING_ATTRS):
                flag("introspection", f"{name}(..., {ast.unparse(node.args[1]) if len(node.args) > 1 else ''})", node)
            if custom_kernel and name:
                if (name.startswith(("torch.", "F.")) and last in TORCH_COMPUTE) or name.startswith(("F.", "torch.nn.", "torch.special.", "torch.linalg.", "torch.fft.")) \
                        and not name.startswith("torch.nn.Module"):
                    flag("torch_fallback", name, node)
                elif name.startswith("torch._C") or name.startswith("torch.ops."):
                    flag("torch_fallback", name, node)
            if custom_kernel and isinstance(node.func, ast.Attribute) and id(node) not in in_jit \
                    and not name.startswith(("tl.", "triton.")):
                head = dotted(node.func.value, aliases) or ""
                if node.func.attr in TENSOR_COMPUTE_METHODS and not head.startswith(("tl", "triton", "math")) \
                        and head not in resolver.containers:
                    flag("torch_fallback", f".{node.func.attr}()", node)
            if fp32_task:
                if isinstance(node.func, ast.Attribute) and node.func.attr in HALF_METHODS:
                    flag("precision_downgrade", f".{node.func.attr}()", node)
                for kw in node.keywords:
                    if kw.arg in ("allow_tf32", "input_precision") and isinstance(kw.value, ast.Constant) and \
                            kw.value.value in (True, "tf32", "tf32x3"):
                        flag("precision_downgrade", f"{kw.arg}={kw.value.value!r}", node)
        if fp32_task and isinstance(node, ast.Attribute):
            name = _normalise(dotted(node, aliases) or "")
            if name in HALF_NAMES or name.replace("triton.language", "tl") in HALF_NAMES:
                flag("precision_downgrade", name, node)
    if custom_kernel and not jit_seen:
        flags.append(f"no_custom_kernel: no @triton.jit function in {filename}")
    return _dedupe(flags)


# -- C / C++ (.cu, .hip) --------------------------------------------------------------------------
_C_LITERALS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|##|#\s*[a-z]+|<\s*[\w./]+\s*>")
NATIVE_FORBIDDEN = {
    # side streams and graphs: work the harness's stream does not order
    "stream_injection": {"cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority",
                         "hipStreamCreate", "hipStreamCreateWithFlags", "hipStreamCreateWithPriority",
                         "cudaStreamPerThread", "hipStreamPerThread", "cudaStreamBeginCapture",
                         "hipStreamBeginCapture", "cudaGraphLaunch", "hipGraphLaunch", "cudaLaunchHostFunc",
                         "hipLaunchHostFunc", "cudaStreamAddCallback", "hipStreamAddCallback"},
    "thread_injection": {"pthread_create", "thread", "async", "jthread", "fork", "vfork", "clone",
                         "omp_set_num_threads", "pthread_detach"},
    "timer_patching": {"cudaEventRecord", "hipEventRecord", "cudaEventElapsedTime", "hipEventElapsedTime",
                       "cudaEventCreate", "hipEventCreate", "cudaDeviceSetLimit", "hipDeviceSetLimit",
                       "cudaCtxResetPersistingL2Cache", "cudaStreamSetAttribute", "hipStreamSetAttribute"},
    "process_control": {"system", "popen", "execv", "execve", "execvp", "execl", "execlp", "_exit", "exit",
                        "abort", "quick_exit", "kill", "fopen", "open", "openat", "creat", "unlink", "remove",
                        "rename", "getenv", "setenv", "dlopen", "dlsym", "mprotect", "mmap", "ptrace",
                        "write", "fwrite", "freopen"},
    "library_fallback": {"cublasSgemm", "cublasGemmEx", "cublasLtMatmul", "cublasCreate", "cudnnCreate",
                         "hipblasCreate", "rocblas_create_handle", "hipblasLtMatmul", "cublasSgemmStridedBatched"},
}
NATIVE_HALF = {"__half", "half2", "__half2", "__nv_bfloat16", "__nv_bfloat162", "hip_bfloat16",
               "__hip_bfloat16", "__float2half", "__float2half_rn", "__float2bfloat16", "__half2float",
               "__hmul", "__hadd", "__hfma", "wmma", "mma_sync", "__nv_fp8_e4m3", "nv_bfloat16"}
NATIVE_INCLUDES = {"thread": "thread_injection", "pthread.h": "thread_injection", "future": "thread_injection",
                   "unistd.h": "process_control", "dlfcn.h": "process_control", "cublas_v2.h": "library_fallback",
                   "cudnn.h": "library_fallback", "hipblas.h": "library_fallback", "hipblas/hipblas.h": "library_fallback",
                   "rocblas.h": "library_fallback", "rocblas/rocblas.h": "library_fallback", "fstream": "process_control",
                   "cstdlib": "process_control", "stdlib.h": "process_control", "sys/mman.h": "process_control",
                   "cuda_fp16.h": "precision", "cuda_bf16.h": "precision", "hip/hip_fp16.h": "precision",
                   "hip/hip_bf16.h": "precision", "mma.h": "precision"}


def check_native(source: str, *, fp32_task: bool = False, filename: str = "kernel.cu") -> list[str]:
    """Flags for one CUDA/HIP source, from its tokens (comments and literals removed)."""
    includes = re.findall(r'#\s*include\s*[<"]([^>"]+)[>"]', re.sub(r"//[^\n]*|/\*.*?\*/", "", source, flags=re.S))
    code = _C_LITERALS.sub(" ", source)
    tokens = [t for t in _TOKEN.findall(code)]
    names = set(tokens)
    flags: list[str] = []
    for kind, bad in NATIVE_FORBIDDEN.items():
        for name in sorted(names & bad):
            flags.append(f"{kind}: {name} ({filename})")
    for inc in includes:
        kind = NATIVE_INCLUDES.get(inc.strip())
        if kind == "precision":
            if fp32_task:
                flags.append(f"precision_downgrade: #include <{inc}> ({filename})")
        elif kind:
            flags.append(f"{kind}: #include <{inc}> ({filename})")
    if fp32_task:
        for name in sorted(names & NATIVE_HALF):
            flags.append(f"precision_downgrade: {name} ({filename})")
        # `half` the CUDA type (a declaration `half x`, `half*`, a cast `(half)`), not a variable named half
        if re.search(r"\bhalf\s*(?:\*|&|\s[A-Za-z_]\w*\s*[=;,\)\[])|\(\s*half\s*\)|<\s*half\s*>", code):
            flags.append(f"precision_downgrade: half ({filename})")
    if "##" in tokens:
        flags.append(f"obfuscation: ## token pasting ({filename})")
    if "__global__" not in names:
        flags.append(f"no_custom_kernel: no __global__ function in {filename}")
    return _dedupe(flags)


def _dedupe(flags):
    seen, out = set(), []
    for f in flags:
        if f not in seen:
            seen.add(f)
            out.append(f)
    return out
