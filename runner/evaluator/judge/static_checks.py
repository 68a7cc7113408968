"""Static anti-reward-hacking checks on the candidate's source (see docs/evaluation.md).

The checks read the source and never run it. They explain a verdict; the walls are the process
separation and the dynamic checks. Every finding is a flag `kind: detail (file:line)`; a flagged
candidate scores zero. Standard library only: this runs where only torch, triton and numpy exist.

Python (Triton categories) is checked in two passes over its `ast`:
1. A resolver maps every expression to the set of dotted *origins* it may stand for, whatever the
   spelling: imports and their aliases, assignments (tuple targets too), parameters with defaults,
   `getattr` with a name built from literals, `vars(m)[...]`, `m.__dict__[...]`, `sys.modules[...]`,
   `importlib.import_module`, `__import__`, containers holding callables, what local functions return.
   `torch.os.system` resolves to `os.system`. A value returned by a torch call is `torch.Tensor()`,
   by a numpy call `numpy.ndarray()`; what the file cannot tell (a parameter) is `?`.
2. Rules over origins: what is reached (modules that escape the process, harness internals, dynamic
   code), what is called (PyTorch or NumPy computing the result), what is written (patched timers),
   and which attributes are touched (dunders, frames, tensor subclassing). Strings are read on their
   own too: one that names a forbidden module or holds a dunder path is flagged whoever receives it,
   since no list of the functions that turn a string into a module is complete.
A method is read as PyTorch compute only on a receiver that resolves to torch, or, for a name no
other Python object has (`.softmax()`, `.mul_()`), on a receiver of unknown origin; `s.add(x)` on a
set, or on an object of unknown origin, is not.

C/C++ (.cu/.hip) is scanned token by token after comments, string and character literals are
removed: the identifiers that matter (runtime API calls, libc functions, types) are single tokens, so
a token scan does not match them inside comments or words, and needs no compiler. Its limit: the
preprocessor can build a name the scan never sees (`#define S(x) cuda##x`), which is why `##`
pasting is flagged. Library names that are also ordinary words (`half`, `thread`, `write`) are
flagged only where the file does not declare that name itself (`int half = n / 2;`).

In a PyTorch->X task a C++ source (a torch extension) must not compute with PyTorch's C++ API. Every
name under `at::`, `torch::` or `c10::` (namespace aliases and object-like macros expanded) is
compute unless each of its parts is on an allow list of allocation, metadata, views, copies and
launcher plumbing (the op watch's ALLOWED_ATEN and C++ types, guards, streams): `at::native::`,
`at::cuda::blas::`, `at::_ops::`, `c10::Dispatcher` are off it as namespaces. Unqualified spellings
are read against every ATen name (aten_names.py) off the allow list: a method call `x.mm(w)`, and a
free call `matmul(a, b)` (argument-dependent lookup finds at::matmul on a Tensor argument, no
`using` needed) in a file that reaches PyTorch, unless the file declares that name itself or it is
also a C/CUDA math or std name (`exp(x)` on a float is CUDA's).
"""
from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from runner.evaluator.protocol import ALLOWED_ATEN
from runner.evaluator.judge.aten_names import ATEN_NAMES

# -- Python: what a candidate must not reach ------------------------------------------------------
# Top-level modules, by the flag kind reaching them gives. A leading underscore is ignored
# (`_thread`, `_posixsubprocess`, `_io` count as `thread`, `posixsubprocess`, `io`).
FORBIDDEN_MODULES = {
    **dict.fromkeys(("os", "posix", "nt", "posixsubprocess", "sys", "subprocess", "signal", "shutil",
                     "pathlib", "io", "tempfile", "glob", "fileinput", "linecache", "zipfile", "tarfile",
                     "gzip", "bz2", "lzma", "codecs", "pickle", "marshal", "shelve", "dbm", "sqlite3",
                     "socket", "ssl", "select", "selectors", "urllib", "http", "ftplib", "smtplib",
                     "requests", "atexit", "faulthandler", "resource", "pty", "fcntl"), "process_control"),
    **dict.fromkeys(("ctypes", "cffi", "mmap"), "native_access"),
    **dict.fromkeys(("gc", "inspect", "importlib", "imp", "frozen_importlib", "frozen_importlib_external",
                     "builtins", "weakref", "types", "traceback", "runpy", "code", "codeop", "pdb", "bdb",
                     "trace", "tracemalloc", "pkgutil", "zipimport", "site", "copyreg", "dis", "pydoc"),
                    "introspection"),
    **dict.fromkeys(("threading", "thread", "multiprocessing", "concurrent", "asyncio"), "thread_injection"),
    **dict.fromkeys(("time", "timeit", "unittest"), "timer_patching"),
    **dict.fromkeys(("runner", "gauntlet_reference", "reference", "__main__"), "harness_access"),
    **dict.fromkeys(("scipy", "numba", "cupy", "jax", "jaxlib", "tensorflow", "pycuda", "cuda"),
                    "library_fallback"),
}
# Modules other packages re-export as attributes (`torch.os`, `torch.sys`): `torch.os.system` is
# `os.system`. Not the names torch or numpy also use for their own functions or submodules
# (`torch.select`, `torch.signal`, `torch.types`, `torch.trace`, `numpy.trace`).
REEXPORTED_MODULES = {name for name, kind in FORBIDDEN_MODULES.items()
                      if kind not in ("harness_access", "library_fallback")} - {"select", "signal", "types",
                                                                                 "trace", "code"}
# Entry points of otherwise allowed packages (a prefix ends at a dot).
FORBIDDEN_ORIGINS = {
    "torch.library": "dispatch_override",          # re-implements aten ops, the reference's included
    "torch.utils._python_dispatch": "tensor_subclass", "torch.overrides": "tensor_subclass",
    "torch.utils.cpp_extension": "native_access",
    "torch.cuda.cudart": "native_access",           # the CUDA runtime raw: host memory, streams, the profiler
    "torch.load": "process_control", "torch.save": "process_control", "torch.hub": "process_control",
    "torch.serialization": "process_control", "torch.from_file": "process_control",
    "torch.UntypedStorage.from_file": "process_control", "torch.TypedStorage.from_file": "process_control",
    "logging.currentframe": "introspection",
    # PyTorch's profiler drives CUPTI, the device trace's own machinery, in the runner's process: its
    # start registers its own record buffers and its stop switches activity kinds off. No kernel needs it
    **dict.fromkeys(("torch.profiler", "torch.autograd.profiler", "torch.autograd.profiler_legacy",
                     "torch.autograd.profiler_util", "torch.cuda.profiler"), "trace_tampering"),
    **dict.fromkeys(("torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.ExternalStream", "torch.cuda.set_stream",
                     "torch.Stream", "torch.cuda.StreamContext", "torch.cuda.graph", "torch.cuda.CUDAGraph",
                     "torch.cuda.graphs", "torch.cuda.make_graphed_callables", "torch.cuda.set_sync_debug_mode"),
                    "stream_injection"),
}
STREAM_NAMES = {"Stream", "ExternalStream", "set_stream", "CUDAGraph"}   # on any receiver
# Host memory a kernel can address (pinned, registered, managed): the way a result computed on the
# CPU reaches the device with no copy the device trace records (kernels of its own move it), so the
# class is named, whatever reaches it (the runtime itself, torch.cuda.cudart, is native_access). No
# kernel of a GPU task needs it. On any receiver, and
# `pin_memory=` in any call. (Where the device reads plain pageable memory, HMM, no call is needed:
# docs/evaluation.md.)
HOST_MEMORY_NAMES = {"pin_memory", "cudaHostRegister", "cudaHostAlloc", "cudaMallocHost",
                     "cudaHostGetDevicePointer", "cudaMallocManaged", "hipHostRegister", "hipHostMalloc",
                     "hipMallocManaged", "hipHostGetDevicePointer", "HostRegister", "PinnedMemory"}
FORBIDDEN_BUILTINS = {
    "__import__": "introspection", "eval": "introspection", "exec": "introspection",
    "compile": "introspection", "globals": "introspection", "locals": "introspection",
    "vars": "introspection", "setattr": "introspection", "delattr": "introspection",
    "__loader__": "introspection", "__spec__": "introspection", "__doc__": "introspection",
    "open": "process_control", "breakpoint": "process_control", "input": "process_control",
    "exit": "process_control", "quit": "process_control",
}
# getattr is allowed (Triton code uses it) unless its name is not built from literals.
DUNDER_ATTRS = {"__dict__", "__globals__", "__code__", "__builtins__", "__subclasses__", "__bases__",
                "__base__", "__class__", "__mro__", "__closure__", "__defaults__", "__kwdefaults__",
                "__getattribute__", "__setattr__", "__import__", "__loader__", "__spec__", "__self__",
                "__func__", "__traceback__", "__reduce__", "__reduce_ex__", "__wrapped__",
                "__doc__"}    # a docstring read back: the one string the string rule below leaves alone
FRAME_ATTRS = {"f_back", "f_globals", "f_locals", "f_builtins", "f_code", "f_trace", "tb_frame", "tb_next",
               "gi_frame", "cr_frame", "ag_frame"}
TIMING_ATTRS = {"record", "elapsed_time", "synchronize", "perf_counter", "perf_counter_ns", "monotonic",
                "time", "Event", "current_stream", "default_stream", "do_bench", "median", "isclose",
                "allclose", "equal", "run"}
# Writing an attribute of these modules patches what the harness or the reference runs.
PATCHED_ROOTS = {"torch", "time", "triton", "statistics", "math", "builtins", "numpy", "functools", "operator"}
SUBCLASS_ATTRS = {"_make_subclass", "_make_wrapper_subclass", "as_subclass", "__torch_function__",
                  "__torch_dispatch__", "_C"}
SUBCLASS_BASES = {"torch.Tensor", "torch._C.TensorBase", "torch._C._TensorBase"}

# -- Python: computing the result without a kernel ------------------------------------------------
TORCH_COMPUTE = {
    "matmul", "mm", "bmm", "addmm", "addbmm", "baddbmm", "mv", "dot", "einsum", "tensordot", "linear",
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "softmax", "log_softmax",
    "layer_norm", "rms_norm", "group_norm", "batch_norm", "gelu", "silu", "relu", "sigmoid", "tanh",
    "exp", "log", "sum", "mean", "var", "std", "rsqrt", "sqrt", "pow", "cumsum", "cumprod", "max", "min",
    "amax", "amin", "argmax", "argmin", "sort", "topk", "norm", "mul", "add", "sub", "div", "where",
    "scaled_dot_product_attention", "outer", "kron", "chain_matmul", "lerp", "addcmul",
    "addcdiv", "clamp", "abs", "neg", "reciprocal", "square", "erf", "cos", "sin", "logsumexp",
    "transpose_copy", "t_copy", "compile",
}
TENSOR_COMPUTE_METHODS = {
    "matmul", "mm", "bmm", "softmax", "log_softmax", "sum", "mean", "exp", "log", "sigmoid", "tanh",
    "relu", "gelu", "silu", "rsqrt", "sqrt", "pow", "cumsum", "norm", "var", "std", "amax", "amin",
    "max", "min", "mul", "add", "sub", "div", "mul_", "add_", "sub_", "div_", "addmm", "baddbmm",
    "logsumexp", "erf", "clamp", "abs", "neg", "square", "reciprocal", "lerp", "addcmul", "dot", "mv",
    "__matmul__", "__rmatmul__", "__imatmul__",     # `@` spelled as a method
}
# `@` spelled as a function: what `a @ b` and `a @= b` call.
MATMUL_FUNCTIONS = {f"{module}.{name}" for module in ("operator", "_operator")
                    for name in ("matmul", "imatmul", "__matmul__", "__imatmul__")}
# Method names other Python objects have too (set.add, Logger.log, list.sort, Decimal.sqrt, a
# vector class's .mul): PyTorch compute only on a receiver that resolves to torch.
SHARED_METHOD_NAMES = {"add", "sub", "mul", "div", "log", "exp", "sqrt", "max", "min", "abs", "neg", "dot",
                       "sort", "norm"}
TORCH_COMPUTE_NAMESPACES = ("torch.nn.", "torch.special.", "torch.linalg.", "torch.fft.", "torch._C",
                            "torch.ops.", "torch.jit.", "torch._dynamo", "torch._inductor", "torch.func.")
TORCH_NOT_COMPUTE = ("torch.nn.Module",)
# NumPy names that describe data rather than compute on it.
NUMPY_METADATA = {"dtype", "finfo", "iinfo", "ndarray", "result_type", "promote_types", "can_cast", "bool_",
                  "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
                  "uint32", "uint64"}
TRITON_KERNEL_DECORATORS = {"jit", "autotune", "heuristics"}

# -- Python: precision ----------------------------------------------------------------------------
HALF_ORIGINS = {"torch.float16", "torch.half", "torch.bfloat16", "torch.float8_e4m3fn", "torch.float8_e5m2",
                "torch.float8_e4m3fnuz", "torch.float8_e5m2fnuz", "torch.HalfTensor", "torch.BFloat16Tensor",
                "torch.cuda.HalfTensor", "torch.cuda.BFloat16Tensor", "triton.language.float16",
                "triton.language.bfloat16", "triton.language.float8e4nv", "triton.language.float8e5",
                "triton.language.float8e4b15", "triton.language.float8e4b8", "triton.language.float8e5b16",
                "numpy.float16"}
HALF_METHODS = {"half", "bfloat16"}
# Triton's reduced float types however reached (`tl.core.float16`, `triton.language.standard...`) and
# the names `tl.dtype(...)` takes for them
TRITON_HALF_NAME = re.compile(r"float16|bfloat16|fp16|bf16|half|float8\w*|fp8\w*")
TRITON_DOT_PRECISION_ARGS = {3: "input_precision", 4: "allow_tf32"}    # tl.dot(a, b, acc, PRECISION)
REDUCED_PRECISION_ATTRS = {"allow_tf32", "allow_fp16_reduced_precision_reduction",
                           "allow_bf16_reduced_precision_reduction"}
REDUCED_PRECISION_CALLS = {"torch.set_float32_matmul_precision"}

# -- Python: origins ------------------------------------------------------------------------------
UNKNOWN = "?"                    # a parameter, the result of a call the file cannot follow
LOCAL = "<local>"                # what the file defines: "<local>.helper", an instance "<local>.Cls()"
VALUE = "()"                     # in an origin: a value a call returned
TORCH_VALUE = "torch.Tensor()"
NUMPY_VALUE = "numpy.ndarray()"
LITERAL = "="                    # a constant: "='softmax'", "=3" (so names bound to literals fold)
ATTRGETTER, METHODCALLER = "<attrgetter>", "<methodcaller>"
MAX_COMPONENTS = 16              # longer chains (self-referential bindings) stop being followed
MAX_ROUNDS = 12                  # fixpoint rounds over the bindings
MAX_FOLDED = 200                 # longest string a constant fold builds
# Calls that put their arguments into the receiver (`ops.append(torch.softmax)`).
STORING_METHODS = {"append", "add", "insert", "extend", "update", "setdefault", "__setitem__", "appendleft"}
# Calls whose result holds what their first argument holds.
PASS_THROUGH_CALLS = {"functools.partial", "builtins.next", "builtins.iter", "builtins.list", "builtins.tuple",
                      "builtins.set", "builtins.frozenset", "builtins.dict", "builtins.reversed",
                      "builtins.sorted", "builtins.staticmethod", "builtins.classmethod"}
MODULE_LOADERS = {"builtins.__import__", "importlib.import_module", "importlib.__import__",
                  # "pkg.mod.attr" (or "pkg.mod:attr") to the object: an import and attribute lookups
                  "torch._utils._import_dotted_name", "pkgutil.resolve_name"}
# MODULE_LOADERS is no wall: any function that takes a dotted name (pydoc.locate, logging.config's
# _resolve, torch.package's importers, string.Formatter().get_field's field paths) turns a string
# into the runner's modules. So the string itself is read, whoever it is handed to or none: a string
# constant (after the resolver's folding) that is a dotted name of a forbidden module (`runner...`,
# `__main__`, `sys`: FORBIDDEN_MODULES) or that holds a dunder or frame attribute path is
# `introspection`. Exempt: docstrings (which `.__doc__`, `__doc__` and pydoc, all flagged, would read
# back), the "__main__" of `__name__ == "__main__"`, and the device name "cuda" (cuda-python's module
# shares it; its import stays library_fallback). Prose holding a module's name ("reads sys") is no
# name a loader takes and is not flagged.
_STRING_MODULE_PATH = re.compile(r"\s*([A-Za-z_]\w*)(?:\s*[.:]\s*[A-Za-z_]\w*)*\s*")
_STRING_DUNDER_PATH = re.compile(r"\.\s*__\w+__")     # `.__x__` anywhere in the string
_STRING_WORD = re.compile(r"\w+")                          # a word of DUNDER_ATTRS or FRAME_ATTRS
STRING_NOT_A_MODULE = {"cuda"}


def _harness_classes() -> frozenset[str]:
    """The classes the runner's modules define (runner/evaluator/*.py, the code that runs in the
    candidate's process beside it), read from their source: what a patch of the runner writes through."""
    names: set[str] = set()
    for path in Path(__file__).resolve().parent.parent.glob("*.py"):
        try:
            tree = ast.parse(path.read_text())
        except (OSError, SyntaxError, ValueError):
            continue
        names.update(node.name for node in tree.body if isinstance(node, ast.ClassDef))
    return frozenset(names)


HARNESS_CLASSES = _harness_classes()


def _attribute_chain(node: ast.AST | None) -> set[str]:
    """The attribute names an expression is reached through (`f().A.B` -> {A, B}), past calls and items."""
    names = set()
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            names.add(node.attr)
        node = node.func if isinstance(node, ast.Call) else node.value
    return names


def _root(origin: str) -> str:
    return origin.split(".", 1)[0].removesuffix(VALUE)


def _last(origin: str) -> str:
    return origin.rsplit(".", 1)[-1]


def _module_kind(root: str) -> str | None:
    return FORBIDDEN_MODULES.get(root) or FORBIDDEN_MODULES.get(root.lstrip("_") or root)


def _is_namespace(origin: str) -> bool:
    """A module, class or function (not a value, not something the file defines or cannot tell)."""
    return VALUE not in origin and origin != UNKNOWN and not origin.startswith((LOCAL, LITERAL))


def _under(origin: str, prefix: str) -> bool:
    """`origin` is `prefix` or inside it; a prefix ending in a dot means only inside it."""
    if prefix.endswith("."):
        return origin.startswith(prefix)
    return origin == prefix or origin.startswith(prefix + ".")


def _canonical(origin: str) -> str:
    """`torch.os.path` -> `os.path`: a module reached as another module's attribute is that module."""
    parts = origin.split(".")
    if len(parts) > MAX_COMPONENTS:
        return UNKNOWN
    if VALUE in origin or not parts[0].isidentifier():
        return origin
    for i, part in enumerate(parts[1:], 1):
        if part in REEXPORTED_MODULES:
            return ".".join(parts[i:])
    return origin


@dataclass(eq=False)
class _Scope:
    parent: _Scope | None
    class_name: str | None = None    # a class body's scope
    names: dict[str, set[str]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)


@dataclass
class _Source:
    """One place that binds `name` (or an attribute, or a function's return value) to origins."""
    scope: _Scope | None
    name: str
    kind: str                     # assign | store (into an existing container) | attr | return
    compute: Callable[[], set[str]]


class _Resolver:
    """Maps expressions to the dotted origins they may stand for (pass 1 of check_python)."""

    def __init__(self, tree: ast.Module):
        self.module = _Scope(None)
        self.scope_of: dict[int, _Scope] = {}
        self.sources: list[_Source] = []
        self.attrs: dict[str, set[str]] = {}     # attribute name -> what was stored there (self.f = ...)
        self.returns: dict[str, set[str]] = {}   # local function origin -> what it returns
        self.stars: list[str] = []               # modules of `from m import *`
        self.solved = False
        self._cache: dict[int, frozenset[str]] = {}
        self._collect(tree, self.module, None)
        self._solve()

    # -- public ---------------------------------------------------------------------------------
    def origins(self, node: ast.AST) -> frozenset[str]:
        """Every origin `node` may stand for; {UNKNOWN} when the file cannot tell."""
        key = id(node)
        if key not in self._cache:
            self._cache[key] = frozenset(self._origins(node) or {UNKNOWN})
        return self._cache[key]

    def callees(self, call: ast.Call) -> frozenset[str]:
        """What a call calls: the function's origins, `methodcaller(name)(x)` read as `x.name`."""
        out = set()
        for origin in self._base(call.func):
            if origin.startswith(METHODCALLER + ".") and call.args:
                out |= self._attr(self._base(call.args[0]), origin[len(METHODCALLER) + 1:])
            else:
                out.add(origin)
        return frozenset(out)

    def fold(self, node: ast.AST | None):
        """The str or int a constant expression evaluates to (`"soft" + "max"`, a name bound to
        one literal, f-strings, joins, slices, chr), else None."""
        try:
            value = self._fold(node)
        except (ArithmeticError, LookupError, TypeError, ValueError):
            return None  # what the expression would raise: not a constant
        if isinstance(value, str) and len(value) > MAX_FOLDED or isinstance(value, int) and abs(value) > 2**64:
            return None
        return value

    # -- pass 1: bindings -----------------------------------------------------------------------
    def _collect(self, node: ast.AST, scope: _Scope, function: str | None) -> None:
        self.scope_of[id(node)] = scope
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            self._collect_function(node, scope)
            return
        if isinstance(node, ast.ClassDef):
            origin = f"{LOCAL}.{node.name}"
            self._bind_name(scope, node.name, lambda: {origin})
            for part in (*node.decorator_list, *node.bases, *node.keywords):
                self._collect(part, scope, function)
            body = _Scope(scope, class_name=node.name)
            for stmt in node.body:
                self._collect(stmt, body, function)
            return
        self._record(node, scope, function)
        for child in ast.iter_child_nodes(node):
            self._collect(child, scope, function)

    def _collect_function(self, node, scope: _Scope) -> None:
        if isinstance(node, ast.Lambda):
            origin = f"{LOCAL}.<lambda>@{node.lineno}:{node.col_offset}"
        else:
            origin = f"{LOCAL}.{node.name}"
            self._bind_name(scope, node.name, lambda: {origin})
            for part in (*node.decorator_list, *([node.returns] if node.returns else [])):
                self._collect(part, scope, None)
        self.returns.setdefault(origin, set())
        args = node.args
        for default in (*args.defaults, *(d for d in args.kw_defaults if d)):
            self._collect(default, scope, None)
        inner = _Scope(scope)
        self.scope_of[id(args)] = inner
        positional = [*args.posonlyargs, *args.args]
        defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults))
        defaults.update((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d)
        method = scope.class_name and not isinstance(node, ast.Lambda) and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
        for i, arg in enumerate((*positional, *args.kwonlyargs, *([args.vararg] if args.vararg else []),
                                 *([args.kwarg] if args.kwarg else []))):
            self.scope_of[id(arg)] = inner
            if arg.annotation:
                self._collect(arg.annotation, scope, None)
            if method and i == 0 and positional:  # self: an instance of the class
                self._bind_name(inner, arg.arg, lambda instance=f"{LOCAL}.{scope.class_name}{VALUE}": {instance})
            else:
                self._bind_name(inner, arg.arg, self._parameter(arg, defaults.get(arg)))
        if isinstance(node, ast.Lambda):
            self.sources.append(_Source(None, origin, "return", lambda: self._origins(node.body)))
            self._collect(node.body, inner, origin)
        else:
            for stmt in node.body:
                self._collect(stmt, inner, origin)

    def _parameter(self, arg: ast.arg, default: ast.expr | None) -> Callable[[], set[str]]:
        def compute():
            out = {UNKNOWN}
            if arg.annotation and "torch.Tensor" in self._origins(arg.annotation):
                out = {TORCH_VALUE}
            return out | (self._origins(default) if default is not None else set())
        return compute

    def _record(self, node: ast.AST, scope: _Scope, function: str | None) -> None:
        """The bindings one node makes."""
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind(target, node.value, scope)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            self._bind(node.target, node.value, scope)
        elif isinstance(node, ast.NamedExpr):
            self._bind(node.target, node.value, scope)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            self._bind(node.target, node.iter, scope)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            self._bind(node.optional_vars, node.context_expr, scope)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    self._bind_name(scope, a.asname, lambda name=a.name: {_canonical(name)})
                else:
                    root = a.name.split(".")[0]
                    self._bind_name(scope, root, lambda root=root: {root})
        elif isinstance(node, ast.ImportFrom):
            module = "" if node.level else (node.module or "")
            for a in node.names:
                if a.name == "*":
                    self.stars.append(module or UNKNOWN)
                elif module:
                    self._bind_name(scope, a.asname or a.name, lambda o=f"{module}.{a.name}": {_canonical(o)})
                else:
                    self._bind_name(scope, a.asname or a.name, lambda: {UNKNOWN})
        elif isinstance(node, ast.Global):
            scope.globals.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            scope.nonlocals.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self._bind_name(scope, node.name, lambda: {UNKNOWN})
        elif isinstance(node, ast.Return) and node.value is not None and function:
            self.sources.append(_Source(None, function, "return", lambda: self._origins(node.value)))
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in STORING_METHODS and isinstance(func.value, ast.Name):
                stored = [*node.args, *(k.value for k in node.keywords)]
                receiver = func.value

                def compute():  # into a container, not into a module (`torch.add(x, y)`)
                    if all(_is_namespace(o) for o in self._origins(receiver)):
                        return set()
                    return set().union(*(self._origins(a) for a in stored))
                self.sources.append(_Source(scope, receiver.id, "store", compute))
            elif isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) == 3:
                name = self.fold(node.args[1])
                if isinstance(name, str):
                    self.sources.append(_Source(None, name, "attr", lambda: self._origins(node.args[2])))

    def _bind(self, target: ast.AST, value: ast.AST, scope: _Scope) -> None:
        if isinstance(target, ast.Name):
            self._bind_name(scope, target.id, lambda: self._origins(value))
        elif isinstance(target, (ast.Tuple, ast.List)):
            pairwise = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) and \
                not any(isinstance(e, ast.Starred) for e in (*value.elts, *target.elts))
            for i, element in enumerate(target.elts):
                self._bind(element, value.elts[i] if pairwise else value, scope)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, value, scope)
        elif isinstance(target, ast.Attribute):
            self.sources.append(_Source(None, target.attr, "attr", lambda: self._origins(value)))
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            self.sources.append(_Source(scope, target.value.id, "store", lambda: self._origins(value)))

    def _bind_name(self, scope: _Scope, name: str, compute: Callable[[], set[str]]) -> None:
        self.sources.append(_Source(scope, name, "assign", compute))
        if scope.class_name:  # a class attribute, also read as Cls.name or self.name
            self.sources.append(_Source(None, name, "attr", compute))

    def _solve(self) -> None:
        tables = []
        for s in self.sources:  # a name assigned in a scope is local to it (global/nonlocal aside)
            if s.kind == "assign":
                target = self._assignment_scope(s.scope, s.name)
                tables.append((target.names.setdefault(s.name, set()), s.compute))
        for s in self.sources:
            if s.kind == "store":
                target = self._defining_scope(s.scope, s.name) or self.module
                tables.append((target.names.setdefault(s.name, set()), s.compute))
            elif s.kind == "attr":
                tables.append((self.attrs.setdefault(s.name, set()), s.compute))
            elif s.kind == "return":
                tables.append((self.returns.setdefault(s.name, set()), s.compute))
        for _ in range(MAX_ROUNDS):
            changed = False
            for table, compute in tables:
                new = compute() - table
                if new:
                    table |= new
                    changed = True
            if not changed:
                break
        self.solved = True

    def _assignment_scope(self, scope: _Scope, name: str) -> _Scope:
        if name in scope.globals:
            return self.module
        if name in scope.nonlocals:  # the enclosing function's
            enclosing = scope.parent
            while enclosing is not None and enclosing.class_name:
                enclosing = enclosing.parent
            return enclosing or self.module
        return scope

    @staticmethod
    def _defining_scope(scope: _Scope | None, name: str) -> _Scope | None:
        while scope is not None and name not in scope.names:
            scope = scope.parent
        return scope

    # -- expressions ----------------------------------------------------------------------------
    def _lookup(self, scope: _Scope, name: str) -> set[str]:
        found = self._defining_scope(scope, name)
        if found is not None:
            return found.names[name]
        if name == "__builtins__":
            return {"builtins"}
        return {f"builtins.{name}", *(_canonical(f"{m}.{name}") for m in self.stars)}

    def _base(self, node: ast.AST) -> set[str]:
        """Origins to build on: while solving, nothing yet is nothing; once solved it is UNKNOWN."""
        return self._origins(node) or ({UNKNOWN} if self.solved else set())

    def _origins(self, node: ast.AST | None) -> set[str]:
        if node is None:
            return set()
        if isinstance(node, ast.Name):
            return set(self._lookup(self.scope_of.get(id(node), self.module), node.id))
        if isinstance(node, ast.Attribute):
            return self._attr(self._base(node.value), node.attr)
        if isinstance(node, ast.Subscript):
            return self._item(self._base(node.value), self.fold(node.slice))
        if isinstance(node, ast.Call):
            return self._call(node)
        folded = self.fold(node)
        if folded is not None:
            return {LITERAL + repr(folded)}
        if isinstance(node, ast.Constant):
            return {f"builtins.{type(node.value).__name__}{VALUE}"}
        if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp)):
            kind = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set", ast.Dict: "dict", ast.ListComp: "list",
                    ast.SetComp: "set", ast.DictComp: "dict", ast.GeneratorExp: "generator"}[type(node)]
            parts = node.values if isinstance(node, ast.Dict) else \
                node.elts if isinstance(node, (ast.List, ast.Tuple, ast.Set)) else \
                [node.value] if isinstance(node, ast.DictComp) else [node.elt]
            return {f"builtins.{kind}{VALUE}"}.union(*(self._origins(p) for p in parts))
        if isinstance(node, ast.IfExp):
            return self._origins(node.body) | self._origins(node.orelse)
        if isinstance(node, ast.BoolOp):
            return set().union(*(self._origins(v) for v in node.values))
        if isinstance(node, (ast.NamedExpr, ast.Starred, ast.Await)):
            return self._origins(node.value)
        if isinstance(node, ast.Lambda):
            return {f"{LOCAL}.<lambda>@{node.lineno}:{node.col_offset}"}
        if isinstance(node, (ast.BinOp, ast.UnaryOp)):
            operands = [node.left, node.right] if isinstance(node, ast.BinOp) else [node.operand]
            roots = {_root(o) for part in operands for o in self._origins(part)}
            return {v for root, v in (("torch", TORCH_VALUE), ("numpy", NUMPY_VALUE)) if root in roots}
        if isinstance(node, (ast.Compare, ast.JoinedStr)):
            return {f"builtins.{'bool' if isinstance(node, ast.Compare) else 'str'}{VALUE}"}
        return set()

    def _attr(self, base: set[str], name: str) -> set[str]:
        out = set()
        for origin in base:
            if origin.startswith(LITERAL):
                origin = f"builtins.{type(ast.literal_eval(origin[1:])).__name__}{VALUE}"
            if origin == UNKNOWN or origin.startswith(LOCAL):  # self.f = torch.softmax; self.f(x)
                out |= self.attrs.get(name, set())
            out.add(_canonical(f"{origin}.{name}"))
        return out

    def _item(self, base: set[str], key) -> set[str]:
        out = set()
        for origin in base:
            if isinstance(key, str) and origin == "sys.modules":
                out.add(_canonical(key))
            elif isinstance(key, str) and (origin == "builtins" or origin.endswith(".__dict__")):
                out.add(_canonical(f"{origin.removesuffix('.__dict__')}.{key}"))
            elif not origin.startswith(LITERAL):
                out.add(origin)  # an element of a container (or a tensor): what it holds
        return out

    def _call(self, node: ast.Call) -> set[str]:
        args = node.args
        first = self._base(args[0]) if args else set()
        out = set()
        for callee in self.callees(node):
            owner, _, method = callee.rpartition(".")
            if callee in ("builtins.getattr", "builtins.hasattr") and len(args) >= 2:
                name = self.fold(args[1])
                out |= self._attr(first, name) if isinstance(name, str) and callee.endswith("getattr") else {UNKNOWN}
            elif callee == "builtins.vars" and args:
                out |= {f"{o}.__dict__" for o in first}
            elif callee in MODULE_LOADERS and args:
                name = self.fold(args[0])
                out.add(_canonical(name.replace(":", ".")) if isinstance(name, str) else UNKNOWN)
            elif method in ("get", "__getitem__", "pop") and args and \
                    (owner in ("sys.modules", "builtins") or owner.endswith(".__dict__")):
                out |= self._item({owner}, self.fold(args[0]))
            elif callee == "builtins.type" and len(args) == 1:
                out.add("torch.Tensor" if any(_root(o) == "torch" for o in first) else UNKNOWN)
            elif callee in ("operator.attrgetter", "operator.methodcaller") and args:
                name = self.fold(args[0])
                marker = ATTRGETTER if callee.endswith("attrgetter") else METHODCALLER
                out.add(f"{marker}.{name}" if isinstance(name, str) else UNKNOWN)
            elif callee.startswith(ATTRGETTER + "."):
                out |= self._attr(first, callee[len(ATTRGETTER) + 1:])
            elif callee in PASS_THROUGH_CALLS:
                out |= first | ({f"{callee}{VALUE}"} if callee.startswith("builtins.") else set())
            else:
                out |= self._returned(callee)
        return out

    def _returned(self, callee: str) -> set[str]:
        """What calling `callee` gives."""
        if callee in self.returns:
            return self.returns[callee]
        root = _root(callee)
        if callee.startswith(LOCAL + "."):  # a class's instance, or what an instance's method returns
            if VALUE not in callee:
                return {callee + VALUE}
            return self.returns.get(f"{LOCAL}.{_last(callee)}", {UNKNOWN})
        if root == "torch":
            return {NUMPY_VALUE if _last(callee) in TO_NUMPY else TORCH_VALUE}
        if root == "numpy":
            return {NUMPY_VALUE}
        if root == "builtins" and VALUE not in callee:
            return {callee + VALUE}
        return {UNKNOWN}

    def _fold(self, node):
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, (str, int)) else None
        if isinstance(node, ast.Name):
            bound = self._lookup(self.scope_of.get(id(node), self.module), node.id)
            if len(bound) == 1 and next(iter(bound)).startswith(LITERAL):
                return ast.literal_eval(next(iter(bound))[1:])
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = self._fold(node.operand)
            return (-value if isinstance(node.op, ast.USub) else value) if isinstance(value, int) else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult, ast.Mod)):
            left, right = self.fold(node.left), self.fold(node.right)
            if left is None or right is None:
                return None
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Mod):
                return left % right
            text, count = (left, right) if isinstance(left, str) else (right, left)
            return None if isinstance(text, str) and len(text) * count > MAX_FOLDED else left * right
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                part = self._fold(value.value if isinstance(value, ast.FormattedValue) else value)
                if part is None or (isinstance(value, ast.FormattedValue) and (value.format_spec or
                                                                               value.conversion != -1)):
                    return None
                parts.append(str(part))
            return "".join(parts)
        if isinstance(node, ast.Subscript):
            text = self._fold(node.value)
            if not isinstance(text, str):
                return None
            if isinstance(node.slice, ast.Slice):
                parts = (node.slice.lower, node.slice.upper, node.slice.step)
                bounds = [self._fold(b) if b is not None else None for b in parts]
                if any(b is None and p is not None for b, p in zip(bounds, parts)):
                    return None
                return text[slice(*bounds)]
            index = self._fold(node.slice)
            return text[index] if isinstance(index, int) else None
        if isinstance(node, ast.Call) and not node.keywords:
            args = [self._fold(a) for a in node.args]
            if any(a is None for a in args):
                if isinstance(node.func, ast.Attribute) and node.func.attr == "join" and len(node.args) == 1 and \
                        isinstance(node.args[0], (ast.List, ast.Tuple)):
                    sep = self._fold(node.func.value)
                    items = [self._fold(e) for e in node.args[0].elts]
                    if isinstance(sep, str) and all(isinstance(i, str) for i in items):
                        return sep.join(items)
                return None
            if isinstance(node.func, ast.Name) and node.func.id in ("chr", "str") and len(args) == 1:
                return chr(args[0]) if node.func.id == "chr" else str(args[0])
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("lower", "upper", "strip", "replace",
                                                                           "removeprefix", "removesuffix"):
                text = self._fold(node.func.value)
                return getattr(text, node.func.attr)(*args) if isinstance(text, str) else None
        return None


# -- Python: rules --------------------------------------------------------------------------------
def _is_torch_compute(origin: str) -> bool:
    if _root(origin) != "torch":
        return False
    if VALUE in origin:  # a method of a tensor
        return _last(origin) in TORCH_COMPUTE | TENSOR_COMPUTE_METHODS | TENSOR_INPLACE_COMPUTE
    if any(_under(origin, p) for p in TORCH_NOT_COMPUTE):
        return False
    return _last(origin) in TORCH_COMPUTE | TENSOR_COMPUTE_METHODS | TENSOR_INPLACE_COMPUTE or \
        any(_under(origin, p) for p in TORCH_COMPUTE_NAMESPACES)


def _is_unknown_tensor_method(origin: str, call: ast.Call | None = None) -> bool:
    """`x.softmax()`, `x.topk(5)`, `x.exp_()` on a receiver of unknown origin: a name no other Python
    object has; `x.sort(-1)`: list.sort takes no positional argument."""
    if not origin.startswith(UNKNOWN + "."):
        return False
    name = _last(origin)
    return name in UNKNOWN_RECEIVER_COMPUTE or (name in POSITIONAL_ONLY_ON_TENSORS and call is not None and
                                                 bool(call.args))


def _is_half(origin: str) -> bool:
    """A half/bfloat16/fp8 type: PyTorch's and NumPy's by name, Triton's wherever its module puts it."""
    return origin in HALF_ORIGINS or (_under(origin, "triton.language") and VALUE not in origin and
                                      TRITON_HALF_NAME.fullmatch(_last(origin)) is not None)


# A tensor's methods that hand its memory to NumPy: `.numpy()` and the array protocol's `__array__`
# (red team, session 27: `torch.from_numpy(x.__array__() * alpha)` passed on the CPU unflagged)
TO_NUMPY = ("numpy", "__array__")


def _is_numpy_compute(origin: str) -> bool:
    if _root(origin) == "numpy":
        return VALUE in origin or _last(origin) not in NUMPY_METADATA
    return _last(origin) in TO_NUMPY and (origin.startswith(TORCH_VALUE) or origin.startswith(UNKNOWN + "."))


def _access_kind(origin: str) -> str | None:
    """The flag kind of reaching `origin` at all (a module, a builtin, an entry point), else None."""
    if origin == "builtins":
        return "introspection"
    if origin.startswith("builtins."):
        return FORBIDDEN_BUILTINS.get(origin.split(".")[1])
    if _last(origin) in STREAM_NAMES:
        return "stream_injection"
    if _last(origin) in HOST_MEMORY_NAMES:
        return "host_memory"
    kind = _module_kind(_root(origin))
    if kind:
        return kind
    return next((kind for prefix, kind in FORBIDDEN_ORIGINS.items() if _under(origin, prefix)), None)


def _shown(origin: str, spelled: ast.AST) -> str:
    """The origin as a flag shows it, with the spelling when they differ."""
    if VALUE in origin or origin.startswith(UNKNOWN + "."):
        return f".{_last(origin)}()"
    origin = origin.removeprefix("builtins.")
    text = ast.unparse(spelled)
    text = text if len(text) <= 60 else text[:57] + "..."
    return origin if text == origin else f"{origin} via {text}"


class _PythonChecker:
    """Pass 2 of check_python: the rules, over the resolver's origins."""

    def __init__(self, tree: ast.Module, *, custom_kernel: bool, fp32_task: bool, filename: str):
        self.custom_kernel, self.fp32_task, self.filename = custom_kernel, fp32_task, filename
        self.resolver = _Resolver(tree)
        self.found: dict[str, tuple[int, str]] = {}   # "kind: detail" -> (line, flag) of its first line
        self.torch_sites: dict[str, set] = {}          # "torch_fallback: detail" -> its (line, column)s
        self.parent = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        self.kernel_seen = False
        self.in_kernel: set[int] = set()               # @triton.jit bodies: device code, not host PyTorch
        self.prose: set[int] = set()                   # docstrings, `__name__ == "__main__"`: no names
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and self._triton_decorated(node):
                self.kernel_seen = True
                self.in_kernel.update(id(n) for stmt in node.body for n in ast.walk(stmt))
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body \
                    and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
                self.prose.add(id(node.body[0].value))
            if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
                sides = (node.left, node.comparators[0])
                for side, other in (sides, sides[::-1]):
                    if isinstance(other, ast.Name) and other.id == "__name__" and \
                            isinstance(side, ast.Constant) and side.value == "__main__":
                        self.prose.add(id(side))
        self.strings: dict[int, str | None] = {}       # string expressions' folded values
        for node in ast.walk(tree):
            self._check(node)

    def flags(self) -> list[str]:
        out = [flag for _, flag in sorted(self.found.values(), key=lambda item: item[0])]
        if self.custom_kernel and not self.kernel_seen:
            out.append(f"no_custom_kernel: no @triton.jit function in {self.filename}")
        return out

    def flag(self, kind: str, detail: str, node: ast.AST) -> None:
        key = f"{kind}: {detail}"
        line = getattr(node, "lineno", 0)
        if kind == "torch_fallback":    # a call and its callee start at one place: one site
            self.torch_sites.setdefault(key, set()).add((line, getattr(node, "col_offset", 0)))
        if key not in self.found or line < self.found[key][0]:
            self.found[key] = (line, f"{key} ({self.filename}:{line or '?'})")

    def _triton_decorated(self, node) -> bool:
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if any(_root(o) == "triton" and _last(o) in TRITON_KERNEL_DECORATORS
                   for o in self.resolver.origins(target)):
                return True
        return False

    def _check(self, node: ast.AST) -> None:
        r = self.resolver
        if isinstance(node, ast.Import):
            for a in node.names:
                self._check_import(a.name, f"import {a.name}", node)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                self.flag("harness_access", "relative import", node)
            elif not self._check_import(node.module or "", f"from {node.module} import ...", node):
                for a in node.names:
                    if a.name != "*":
                        self._check_import(_canonical(f"{node.module}.{a.name}"),
                                           f"from {node.module} import {a.name}", node)
                    if _root(node.module or "") == "torch" and a.name in SUBCLASS_ATTRS:
                        self.flag("tensor_subclass", f"from {node.module} import {a.name}", node)
        elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.flag("try_fallback", "try/except (a fallback path the checks may not exercise)", node)
        elif isinstance(node, ast.ClassDef):
            for base in node.bases:
                for origin in r.origins(base):
                    if origin in SUBCLASS_BASES or origin.endswith(("TorchDispatchMode", "TorchFunctionMode")):
                        self.flag("tensor_subclass", f"class {node.name}({origin})", node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in SUBCLASS_ATTRS:
            self.flag("tensor_subclass", f"def {node.name}", node)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Attribute) and isinstance(t.ctx, (ast.Store, ast.Del)):
                        self._check_write(r.origins(t.value), t.attr, ast.unparse(t), node, t.value)
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.MatMult) and \
                self.custom_kernel and id(node) not in self.in_kernel:
            self.flag("torch_fallback", "@ operator", node)
        if isinstance(node, ast.Attribute):
            self._check_attribute_name(node.attr, node)
        if isinstance(node, ast.Call):
            self._check_call(node)
        if isinstance(node, (ast.Constant, ast.BinOp, ast.JoinedStr, ast.Call, ast.Subscript)):
            self._check_string(node)
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) and self._outermost(node) and \
                not isinstance(getattr(node, "ctx", ast.Load()), (ast.Store, ast.Del)):
            for origin in r.origins(node):
                self._check_reference(origin, node)
                if origin in ("builtins.getattr", "builtins.hasattr"):    # called elsewhere, on a name never read
                    self.flag("introspection", f"{_last(origin)} as a value", node)

    def _string(self, node: ast.AST) -> str | None:
        """The string a string expression folds to (bytes read as Latin-1), else None."""
        if id(node) not in self.strings:
            if isinstance(node, ast.Constant):
                value = node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
            elif isinstance(node, (ast.BinOp, ast.JoinedStr, ast.Call, ast.Subscript)):
                value = self.resolver.fold(node)
            else:
                value = None
            self.strings[id(node)] = value if isinstance(value, str) else None
        return self.strings[id(node)]

    def _check_string(self, node: ast.AST) -> None:
        """A string that names a forbidden module or holds a dunder or frame attribute path, handed to
        whatever (MODULE_LOADERS is one way of many to use it): where a longer string expression
        holds it, that one is read instead."""
        if id(node) in self.prose:
            return
        text = self._string(node)
        if text is None:
            return
        parent = self.parent.get(id(node))
        if isinstance(parent, ast.FormattedValue):
            parent = self.parent.get(id(parent))
        if parent is not None and self._string(parent) is not None:
            return
        shown = repr(text) if len(text) <= 60 else repr(text[:57]) + "..."
        path = _STRING_MODULE_PATH.fullmatch(text)
        if path and text.strip() not in STRING_NOT_A_MODULE:
            kind = _module_kind(path.group(1))
            if kind:
                self.flag("introspection", f"string {shown} names a module ({kind})", node)
                return
        if _STRING_DUNDER_PATH.search(text) or \
                any(w in DUNDER_ATTRS or w in FRAME_ATTRS for w in _STRING_WORD.findall(text)):
            self.flag("introspection", f"string {shown} holds an attribute path", node)

    def _outermost(self, node: ast.AST) -> bool:
        """Not a part of a longer chain (`torch` in `torch.softmax`, `f` in `f(x)`)."""
        parent = self.parent.get(id(node))
        return not ((isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is node) or
                    (isinstance(parent, ast.Call) and parent.func is node))

    def _check_import(self, module: str, detail: str, node: ast.AST) -> bool:
        kind = _module_kind(module.split(".")[0]) or _access_kind(_canonical(module))
        if kind:
            self.flag(kind, detail, node)
        return bool(kind)

    def _check_reference(self, origin: str, node: ast.AST) -> None:
        """An origin the code reaches, called or not."""
        kind = _access_kind(origin)
        if kind:
            self.flag(kind, _shown(origin, node), node)
        if self.custom_kernel and id(node) not in self.in_kernel and VALUE not in origin and \
                (_is_torch_compute(origin) or origin in MATMUL_FUNCTIONS):
            self.flag("torch_fallback", _shown(origin, node), node)
        if self.fp32_task and _is_half(origin):
            self.flag("precision_downgrade", _shown(origin, node), node)

    def _check_call(self, node: ast.Call) -> None:
        r = self.resolver
        host = id(node) not in self.in_kernel
        for callee in r.callees(node):
            self._check_reference(callee, node.func)
            if _root(callee) == "triton" and _last(callee) == "jit":
                self.kernel_seen = True
            if self.custom_kernel and host and (_is_torch_compute(callee) or _is_unknown_tensor_method(callee, node)):
                self.flag("torch_fallback", _shown(callee, node.func), node)
            if self.custom_kernel and _is_numpy_compute(callee):
                self.flag("numpy_compute", _shown(callee, node.func), node)
            if self.fp32_task and (callee in REDUCED_PRECISION_CALLS or (
                    _last(callee) in HALF_METHODS and (callee.startswith(TORCH_VALUE) or
                                                       callee.startswith(UNKNOWN + ".")))):
                self.flag("precision_downgrade", _shown(callee, node.func), node)
            if callee in ("builtins.getattr", "builtins.hasattr", "builtins.setattr", "builtins.delattr") and \
                    len(node.args) >= 2:
                self._check_named_attribute(callee.removeprefix("builtins."), node)
            if callee in MODULE_LOADERS and node.args and not isinstance(self.resolver.fold(node.args[0]), str):
                self.flag("introspection", f"{_last(callee)} of a computed name", node)
        for kw in node.keywords:
            if kw.arg == "pin_memory" and not (isinstance(kw.value, ast.Constant) and kw.value.value in (False, None)):
                self.flag("host_memory", f"pin_memory={ast.unparse(kw.value)[:40]}", node)
            elif kw.arg is None and isinstance(kw.value, ast.Dict) and any(
                    key is not None and self.resolver.fold(key) == "pin_memory" for key in kw.value.keys):
                self.flag("host_memory", "**{'pin_memory': ...}", node)
        if self.fp32_task:
            self._check_precision(node)

    def _check_precision(self, node: ast.Call) -> None:
        """A float32 task: no TF32 in a dot, however the argument is spelled (a name bound to a
        constant is read through; what the checks cannot read is flagged), no half type."""
        callees = self.resolver.callees(node)
        given = [(kw.arg, kw.value) for kw in node.keywords if kw.arg in ("allow_tf32", "input_precision")]
        dots = [c for c in callees if _under(c, "triton.language") and _last(c) == "dot"]
        if dots:
            given += [(name, node.args[i]) for i, name in TRITON_DOT_PRECISION_ARGS.items() if i < len(node.args)]
        for kw in node.keywords:
            if kw.arg is None and isinstance(kw.value, ast.Dict):       # **{"input_precision": ...}
                given += [(k, v) for k, v in ((self.resolver.fold(k) if k is not None else None, v)
                                              for k, v in zip(kw.value.keys, kw.value.values))
                          if k in ("allow_tf32", "input_precision")]
            elif kw.arg is None and dots:
                self.flag("precision_downgrade", f"**{ast.unparse(kw.value)[:40]} in tl.dot (not readable)", node)
        for name, value in given:
            known, folded = self._constant(value)
            spelled = ast.unparse(value)[:40]
            if not known:
                self.flag("precision_downgrade", f"{name}={spelled} (not a constant the checks can read)", node)
            elif folded in (True, "tf32", "tf32x3"):
                shown = repr(folded) if isinstance(value, ast.Constant) else f"{folded!r} via {spelled}"
                self.flag("precision_downgrade", f"{name}={shown}", node)
        for callee in callees:      # tl.dtype("fp16")
            if _under(callee, "triton.language") and _last(callee) == "dtype" and node.args:
                text = self.resolver.fold(node.args[0])
                if isinstance(text, str) and TRITON_HALF_NAME.fullmatch(text):
                    self.flag("precision_downgrade", f"{_shown(callee, node.func)}({text!r})", node)

    def _constant(self, node: ast.AST) -> tuple[bool, object]:
        """(whether the value is known, the value): a literal, a fold, a name bound to None."""
        if isinstance(node, ast.Constant):
            return True, node.value
        folded = self.resolver.fold(node)
        if folded is not None:
            return True, folded
        return self.resolver.origins(node) == {"builtins.NoneType()"}, None

    def _check_named_attribute(self, function: str, node: ast.Call) -> None:
        """getattr/hasattr/setattr/delattr: the name must be built from literals, and is then checked
        as the attribute it names."""
        name = self.resolver.fold(node.args[1])
        if not isinstance(name, str):
            self.flag("introspection", f"{function} with a computed name", node)
            return
        self._check_attribute_name(name, node)
        if name in TIMING_ATTRS | DUNDER_ATTRS and function in ("getattr", "hasattr"):
            self.flag("introspection", f"{function}(..., {name!r})", node)
        if function in ("setattr", "delattr"):
            self._check_write(self.resolver.origins(node.args[0]), name, f"{ast.unparse(node.args[0])}.{name}", node,
                              node.args[0])

    def _check_attribute_name(self, attr: str, node: ast.AST) -> None:
        if attr in DUNDER_ATTRS or attr in FRAME_ATTRS:
            self.flag("introspection", f".{attr}", node)
        elif attr in SUBCLASS_ATTRS:
            self.flag("tensor_subclass", f".{attr}", node)

    def _check_write(self, receivers: frozenset[str], attr: str, spelled: str, node: ast.AST,
                     receiver: ast.AST | None = None) -> None:
        """An attribute written (or deleted): patching a module the harness or reference uses."""
        for origin in sorted(receivers):
            root = _root(origin)
            if VALUE not in origin and root.isidentifier() and (root in PATCHED_ROOTS or _module_kind(root)):
                self.flag("timer_patching", f"assignment to {origin}.{attr}", node)
        # Through a call's result or an object the file cannot tell (`locate(name).TorchOpWatch.observe`),
        # no origin names the module: a class of the runner's on the path does.
        chain = _attribute_chain(receiver)
        if chain & HARNESS_CLASSES and any(VALUE in o or o.startswith(UNKNOWN) for o in receivers):
            self.flag("harness_access", f"assignment to {spelled} (a class of the runner's)", node)
        if attr in TIMING_ATTRS:
            self.flag("timer_patching", f"assignment to {spelled}", node)
        if attr in REDUCED_PRECISION_ATTRS:
            self.flag("precision_downgrade", f"assignment to {spelled}", node)


def check_python(source: str, *, custom_kernel: bool = True, fp32_task: bool = False,
                 filename: str = "kernel.py") -> list[str]:
    """Flags for one Python candidate file. `custom_kernel`: the category asks for a kernel, so
    PyTorch or NumPy computing the result is a fallback; `fp32_task`: no tensor of the task is
    half/bf16."""
    return python_findings(source, custom_kernel=custom_kernel, fp32_task=fp32_task, filename=filename)[0]


def python_findings(source: str, *, custom_kernel: bool = True, fp32_task: bool = False,
                    filename: str = "kernel.py") -> tuple[list[str], Counter]:
    """check_python's flags, and at how many places of the file each torch_fallback flag's
    `kind: detail` is (what an X->X task's shipped file computes with PyTorch is allowed up to its
    own count: judge/evaluation.py, static_flags)."""
    try:
        tree = ast.parse(source, filename=filename)
    except (SyntaxError, ValueError):
        return [], Counter()  # the import fails and the compile gate reports it
    except (RecursionError, MemoryError):     # the parser's stack: the candidate's doing, never the judge's error
        return [f"obfuscation: expressions nested too deeply to check ({filename})"], Counter()
    try:
        checker = _PythonChecker(tree, custom_kernel=custom_kernel, fp32_task=fp32_task, filename=filename)
    except (RecursionError, MemoryError):
        return [f"obfuscation: expressions nested too deeply to check ({filename})"], Counter()
    return checker.flags(), Counter({key: len(sites) for key, sites in checker.torch_sites.items()})


# -- C / C++ (.cu, .hip) --------------------------------------------------------------------------
_C_LITERALS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|##|#\s*[a-z]+|<\s*[\w./]+\s*>")
NATIVE_FORBIDDEN = {
    # side streams and graphs: work the harness's stream does not order
    "stream_injection": {"getStreamFromPool", "getStreamFromExternal", "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority",
                         "hipStreamCreate", "hipStreamCreateWithFlags", "hipStreamCreateWithPriority",
                         "cudaStreamPerThread", "hipStreamPerThread", "cudaStreamBeginCapture",
                         "hipStreamBeginCapture", "cudaGraphLaunch", "hipGraphLaunch", "cudaLaunchHostFunc",
                         "hipLaunchHostFunc", "cudaStreamAddCallback", "hipStreamAddCallback",
                         # the driver API's spellings of the same (a host callback runs the candidate's code
                         # on a driver thread, a thread no name of this list starts)
                         "cuStreamCreate", "cuStreamCreateWithPriority", "cuStreamBeginCapture",
                         "cuStreamBeginCapture_v2", "cuGraphLaunch", "cuLaunchHostFunc", "cuStreamAddCallback"},
    # the device trace's own machinery reached from the candidate's code: CUPTI's API (an activity kind
    # switched off around a kernel, so that no record of it is made) and the profiler's start and stop
    "trace_tampering": {"cudaProfilerStart", "cudaProfilerStop", "cuProfilerStart", "cuProfilerStop",
                        "hipProfilerStart", "hipProfilerStop", "roctracer_start", "roctracer_stop"},
    "thread_injection": {"pthread_create", "thread", "async", "jthread", "fork", "vfork", "clone",
                         "omp_set_num_threads", "pthread_detach"},
    "timer_patching": {"cudaEventRecord", "hipEventRecord", "cudaEventElapsedTime", "hipEventElapsedTime",
                       "cudaEventCreate", "hipEventCreate", "cudaDeviceSetLimit", "hipDeviceSetLimit",
                       "cudaCtxResetPersistingL2Cache", "cudaStreamSetAttribute", "hipStreamSetAttribute"},
    "process_control": {"system", "popen", "execv", "execve", "execvp", "execl", "execlp", "_exit", "exit",
                        "abort", "quick_exit", "kill", "fopen", "open", "openat", "creat", "unlink", "remove",
                        "rename", "getenv", "setenv", "dlopen", "dlsym", "mprotect", "mmap", "ptrace",
                        "write", "fwrite", "freopen",
                        # the kernel reached directly (any call at all), and what would redirect, close or
                        # filter a descriptor the runner holds (the device trace's pipe) or run code of the
                        # candidate's at times of its choosing (a signal, a timer) without a thread
                        "syscall", "dup", "dup2", "dup3", "close", "pipe", "pipe2", "socketpair", "eventfd",
                        "memfd_create", "ioctl", "fcntl", "prctl", "sigaction", "signal", "setitimer",
                        "timer_create", "alarm", "ualarm", "process_vm_writev", "process_vm_readv",
                        "pkey_mprotect", "environ"},
    # what finds or maps memory and code the runner and the trace library hold: the loaded objects and
    # their addresses, the driver's own entry points (past the names listed here), and the driver's
    # virtual-memory calls (one physical chunk mapped at many addresses: a buffer dense to PyTorch that
    # the L2 holds, bench/judge_gpu.py flush_aliased)
    "native_access": {"dl_iterate_phdr", "dladdr", "dlinfo", "cudaGetDriverEntryPoint",
                      "cudaGetDriverEntryPointByVersion", "cuGetProcAddress", "cuGetProcAddress_v2",
                      "hipGetProcAddress", "cuMemCreate", "cuMemMap", "cuMemAddressReserve", "cuMemSetAccess",
                      "cuMemImportFromShareableHandle", "cuMemRetainAllocationHandle", "cuMemExportToShareableHandle",
                      "hipMemCreate", "hipMemMap", "hipMemAddressReserve", "hipMemSetAccess"},
    # the Python interpreter reached from C++ (a torch extension is loaded into it): anything Python can
    # do, PyTorch's ops included, where no Python check reads it
    "introspection": {"PyImport_ImportModule", "PyImport_Import", "PyImport_AddModule", "PyRun_SimpleString",
                      "PyRun_String", "PyEval_EvalCode", "PyObject_GetAttrString", "PyObject_CallMethod",
                      "PyObject_CallObject", "PyObject_Call", "PyEval_GetBuiltins", "Py_CompileString"},
    "library_fallback": {"cublasSgemm", "cublasGemmEx", "cublasLtMatmul", "cublasCreate", "cudnnCreate",
                         "hipblasCreate", "rocblas_create_handle", "hipblasLtMatmul", "cublasSgemmStridedBatched"},
    # host memory a kernel can address (HOST_MEMORY_NAMES): runtime, driver and HIP spellings, the
    # allocation flags, managed globals, and PyTorch's pinned tensors in an extension's C++
    "host_memory": {"cudaHostAlloc", "cudaMallocHost", "cudaHostRegister", "cudaHostGetDevicePointer",
                    "cudaMallocManaged", "cudaMemAdvise", "cudaMemPrefetchAsync", "cudaHostAllocMapped",
                    "cudaHostRegisterMapped", "cuMemHostAlloc", "cuMemAllocHost", "cuMemAllocHost_v2",
                    "cuMemHostRegister", "cuMemHostRegister_v2", "cuMemHostGetDevicePointer",
                    "cuMemHostGetDevicePointer_v2", "cuMemAllocManaged", "hipHostMalloc", "hipMallocHost",
                    "hipHostAlloc", "hipHostRegister", "hipHostGetDevicePointer", "hipMallocManaged",
                    "hipExtHostAlloc", "hipMemAdvise", "hipMemPrefetchAsync", "hipMemAllocHost",
                    "hipHostMallocMapped", "hipHostRegisterMapped", "__managed__", "pin_memory", "pinned_memory",
                    "getPinnedMemoryAllocator", "getHostAllocator", "getCachingHostAllocator", "HostAlloc"},
}
# x86 instructions that enter the kernel, or raw bytes, inside an asm statement's string (adjacent
# literals joined first: "sys" "call"); PTX has none of them
_HOST_ASM = re.compile(r'\b(?:asm|__asm__|__asm)\b[^;]*?"[^"]*?(\bsyscall\b|\bsysenter\b|\bint\s*\$?0x80\b|'
                       r'\.(?:byte|short|word|long|quad|fill|ascii|asciz|incbin)\b)', re.S)
NATIVE_HALF = {"__half", "half", "half2", "__half2", "__nv_bfloat16", "__nv_bfloat162", "hip_bfloat16",
               "__hip_bfloat16", "__float2half", "__float2half_rn", "__float2bfloat16", "__half2float",
               "__hmul", "__hadd", "__hfma", "wmma", "mma_sync", "__nv_fp8_e4m3", "nv_bfloat16"}
# Flagged names that are also ordinary words a kernel may declare for itself (`int half = n / 2;`,
# `const int thread = threadIdx.x;`, a helper `remove(...)`): where the file declares one (a variable,
# or a function it defines), that name is the file's own, unless written qualified (`std::thread`,
# `::write`). Calling the library function instead needs its header, which is flagged on its own, or
# a prototype of the candidate's own, which does not make the name its own (`_own_word`).
NATIVE_ORDINARY_WORDS = {"half", "thread", "async", "fork", "clone", "system", "exit", "abort", "kill", "open",
                         "creat", "unlink", "remove", "rename", "mmap", "write", "dup", "close", "pipe", "signal",
                         "alarm", "environ"}
# `<type> [*&] name` followed by what can follow a declarator; not `return x`, `case x`, ...
_DECLARATION = r"\b(?!(?:return|case|else|do|goto|sizeof|new|delete|throw|using|operator|co_return|co_yield)\b)" \
               r"[A-Za-z_]\w*[\s*&]+{name}\s*[=;,)\[:({{>]"
# a later declarator of a list: `const int64_t c = row % channels, half = ks / 2;`, `int a, half;`
_LIST_DECLARATOR = r",\s*{name}\s*(?:=(?!=)|[;,\[])"


def _own_word(word: str, code: str) -> bool:
    """Whether the file declares `word` for itself: a variable or parameter of that name, or a
    function it defines (a body follows). A prototype alone (`extern "C" long close(long, ...);`)
    names the library's function, declared without its header, and stays flagged."""
    for match in re.finditer(_DECLARATION.format(name=re.escape(word)), code):
        if not match.group(0).endswith("("):
            return True
        depth, end = 1, match.end()         # `type word(`: a definition when a body follows its parameters
        while end < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[end], 0)
            end += 1
        if re.match(r"\s*(?:const\s*)?(?:noexcept\s*)?\{", code[end:]):
            return True
    return re.search(_LIST_DECLARATOR.format(name=re.escape(word)), code) is not None


NATIVE_INCLUDES = {"thread": "thread_injection", "pthread.h": "thread_injection", "future": "thread_injection",
                   "unistd.h": "process_control", "dlfcn.h": "process_control", "cublas_v2.h": "library_fallback",
                   "cudnn.h": "library_fallback", "hipblas.h": "library_fallback", "hipblas/hipblas.h": "library_fallback",
                   "rocblas.h": "library_fallback", "rocblas/rocblas.h": "library_fallback", "fstream": "process_control",
                   "cstdlib": "process_control", "stdlib.h": "process_control", "sys/mman.h": "process_control",
                   "cuda_fp16.h": "precision", "cuda_bf16.h": "precision", "hip/hip_fp16.h": "precision",
                   "hip/hip_bf16.h": "precision", "mma.h": "precision"}


# -- C++: PyTorch computing inside a torch extension (PyTorch->X tasks) ----------------------------
TORCH_NATIVE_ROOTS = {"at", "torch", "c10"}
# What a launcher reads off a tensor: no kernel runs.
TENSOR_METADATA = {
    "size", "sizes", "stride", "strides", "dim", "ndimension", "numel", "nelement", "data_ptr", "const_data_ptr",
    "mutable_data_ptr", "data", "item", "element_size", "itemsize", "nbytes", "storage_offset", "storage",
    "untyped_storage", "device", "get_device", "dtype", "layout", "scalar_type", "options", "type", "name", "names",
    "shape", "ndim", "T", "H", "mT", "mH", "requires_grad", "requires_grad_", "grad", "output_nr", "retains_grad",
    "dim_order", "defined", "accessor", "packed_accessor32", "packed_accessor64", "generic_packed_accessor",
    "suggest_memory_format", "result_type", "can_cast", "promote_types", "tolist", "numpy", "new", "volatile",
}
# Casts, moves and creation from data: a copy (aten._to_copy, which the op watch allows too).
TENSOR_COPIES = {"to", "type_as", "cpu", "cuda", "float", "double", "half", "bfloat16", "int", "long", "short",
                 "char", "byte", "bool", "cfloat", "cdouble", "chalf", "new_tensor", "new_ones", "tensor",
                 "scalar_tensor", "from_blob", "narrow_copy", "resize_as_"}
# Views under other names: the op watch sees the view each one decomposes into.
VIEW_ALIASES = {"swapaxes", "swapaxes_", "swapdims", "swapdims_", "moveaxis", "ravel", "reshape_as", "expand_as",
                "tensor_split", "hsplit", "vsplit", "dsplit", "unsafe_chunk", "unsafe_split",
                "unsafe_split_with_sizes", "t_", "transpose_", "squeeze_", "unsqueeze_", "detach_", "real",
                "imag", "conj"}
# C++ plumbing a kernel launcher needs: namespaces it is reached through, types, guards, streams,
# device properties, allocation, dispatch-macro helpers, binding and registration.
TORCH_NATIVE_PLUMBING = {
    "cuda", "hip", "philox", "detail", "indexing",
    "Tensor", "TensorBase", "TensorOptions", "TensorList", "ScalarType", "Scalar", "Device", "DeviceType",
    "DeviceIndex", "Layout", "MemoryFormat", "Half", "BFloat16", "Float8_e4m3fn", "Float8_e5m2",
    "Float8_e4m3fnuz", "Float8_e5m2fnuz", "complex", "IntArrayRef", "ArrayRef", "OptionalIntArrayRef",
    "optional", "nullopt", "irange", "TensorAccessor", "PackedTensorAccessor", "PackedTensorAccessor32",
    "PackedTensorAccessor64", "GenericPackedTensorAccessor", "RestrictPtrTraits", "DefaultPtrTraits",
    "acc_type", "opmath_type", "numeric_limits", "PhiloxCudaState", "unpack", "ceil_div", "elementSize",
    "toString", "typeMetaToScalarType", "isFloatingType", "isReducedFloatingType", "TensorArg", "CheckedFrom",
    "checkAllSameGPU", "checkSameType", "checkContiguous", "checkDim", "TensorInfo", "getTensorInfo",
    "canUse32BitIndexMath", "IndexToOffset", "Slice", "None", "Ellipsis", "TensorIndex", "Error", "str",
    "CUDAStream", "getCurrentCUDAStream", "getDefaultCUDAStream", "getStreamFromPool", "getStreamFromExternal",
    "CUDAGuard", "OptionalCUDAGuard", "CUDAStreamGuard", "OptionalCUDAStreamGuard", "getCurrentDeviceProperties",
    "getDeviceProperties", "current_device", "device_count", "warp_size", "CUDACachingAllocator", "raw_alloc",
    "raw_alloc_with_stream", "raw_delete",
    "HIPStream", "getCurrentHIPStream", "getDefaultHIPStream", "HIPGuard", "OptionalHIPGuard", "HIPStreamGuard",
    "getCurrentHIPStreamMasqueradingAsCUDA", "HIPStreamMasqueradingAsCUDA", "HIPGuardMasqueradingAsCUDA",
    "OptionalHIPGuardMasqueradingAsCUDA", "HIPStreamGuardMasqueradingAsCUDA", "HIPCachingAllocator",
    "DeviceGuard", "OptionalDeviceGuard", "device_of", "NoGradGuard", "InferenceMode", "AutoGradMode",
    "Library", "dispatch", "DispatchKey",
}
TORCH_NATIVE_ALLOWED = ALLOWED_ATEN | TENSOR_METADATA | TENSOR_COPIES | VIEW_ALIASES | TORCH_NATIVE_PLUMBING


def _torch_name_allowed(name: str) -> bool:
    """Predicates (`is_contiguous`) and enum constants (`kFloat`, `kCUDA`) are plumbing too."""
    return name in TORCH_NATIVE_ALLOWED or name.startswith("is_") or re.fullmatch(r"k[A-Z]\w*", name) is not None


ATEN_COMPUTE_NAMES = frozenset(name for name in ATEN_NAMES if not _torch_name_allowed(name))
# Python: every in-place ATen op off the allow list (`exp_`, `cumsum_`, `addmm_`, `index_add_`): a
# trailing underscore is PyTorch's own spelling, so a method of that name is a tensor's on any receiver.
TENSOR_INPLACE_COMPUTE = frozenset(name for name in ATEN_COMPUTE_NAMES if name.endswith("_") and
                                   not name.startswith("_"))
# Python: the compute names read on a receiver of unknown origin, the torch compute set's ATen names
# (`topk`, `argmax`, `cumprod`) and the in-place ops, less the names other Python objects have too.
UNKNOWN_RECEIVER_COMPUTE = frozenset(((TORCH_COMPUTE | TENSOR_COMPUTE_METHODS) & ATEN_NAMES |
                                      TENSOR_COMPUTE_METHODS) - SHARED_METHOD_NAMES | TENSOR_INPLACE_COMPUTE)
# Shared names whose Python namesakes take no positional argument (list.sort): with one, a tensor's.
POSITIONAL_ONLY_ON_TENSORS = {"sort"}
# Methods other C++/CUDA objects have too (cooperative groups' tile.any/all, std::vector::resize,
# std::list::sort/unique, std::array::fill): never read as a tensor's.
NATIVE_SHARED_METHOD_NAMES = {"any", "all", "resize", "sort", "unique", "fill"}
# C/CUDA math and std names: unqualified on a float they are not PyTorch's (argument-dependent lookup
# reaching at::exp through them stays to the op watch and the device trace).
C_MATH_AND_STD_NAMES = {
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "cbrt", "pow", "abs", "fabs", "max",
    "min", "fmax", "fmin", "floor", "ceil", "round", "trunc", "rint", "nearbyint", "fmod", "remainder",
    "copysign", "nextafter", "hypot", "atan2", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
    "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv", "erfcinv", "lgamma", "tgamma", "ldexp", "frexp",
    "isnan", "isinf", "isfinite", "signbit", "fma", "sort", "unique", "equal", "clamp", "lerp", "fill", "rand",
    "polar", "swap", "all", "any", "range",
}
_QUALIFIED_NAME = re.compile(r"(?:::\s*)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)+")
_METHOD_CALL = re.compile(r"(?:\.|->)\s*(?:template\s+)?([A-Za-z_]\w*)\s*(?:<[^<>;{}()]*>\s*)?\(")
_FREE_CALL = re.compile(r"(?<![\w.:>$])\b([A-Za-z_]\w*)\s*\(")
_NAMESPACE_ALIAS = re.compile(r"\bnamespace\s+(\w+)\s*=\s*((?:::\s*)?\w+(?:\s*::\s*\w+)*)\s*;")
# `#define NS at`, `#define AT at::`, `#define MM at::matmul`: a name the preprocessor spells for the code
_NAME_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+((?:::|\w|[ \t])+?)[ \t]*$", re.M)


def _expand_name_macros(code: str) -> str:
    """Object-like macros whose body is only names and `::`, substituted where they are used."""
    macros = {name: body for name, body in _NAME_MACRO.findall(code) if name != body.strip()}
    for _ in range(4):          # macros naming macros
        expanded = re.sub(r"\b\w+\b", lambda m: macros.get(m.group(), m.group()), code) if macros else code
        if expanded == code:
            break
        code = expanded
    return code


def _torch_compute_paths(code: str) -> tuple[list[str], bool]:
    """(the at::/torch::/c10:: names off the allow list, as written; whether any such name is used)."""
    aliases = {alias: re.sub(r"\s+", "", target).lstrip(":") for alias, target in _NAMESPACE_ALIAS.findall(code)}
    found, reaches_torch = [], False
    for match in _QUALIFIED_NAME.finditer(code):
        before = code[:match.start()].rstrip()[-2:]
        if before.endswith((">", ".")) or before == "->":
            continue        # `numeric_limits<T>::max`, a member's own qualified name
        spelled = re.sub(r"\s+", "", match.group()).lstrip(":")
        parts = spelled.split("::")
        for _ in range(4):   # aliases of aliases
            if parts[0] not in aliases:
                break
            parts = aliases[parts[0]].split("::") + parts[1:]
        if parts[0] not in TORCH_NATIVE_ROOTS:
            continue
        reaches_torch = True
        if _torch_path_computes(parts[1:]):
            resolved = "::".join(parts)
            found.append(resolved if resolved == spelled else f"{resolved} via {spelled}")
    return found, reaches_torch


def _torch_path_computes(parts: list[str]) -> bool:
    """Each part must be allowed; past a type (`at::ScalarType::Float`, `at::Tensor::mm`) the parts are
    its members, compute when they are ATen names."""
    member = False
    for name in parts:
        if member:
            if name in ATEN_COMPUTE_NAMES:
                return True
        elif not _torch_name_allowed(name):
            return True
        else:
            member = name[:1].isupper() and not re.fullmatch(r"k[A-Z]\w*", name)
    return False


def _declared_names(code: str) -> set[str]:
    """Names the file declares itself: functions, variables, lambdas, parameters, macros."""
    return set(re.findall(_DECLARATION.format(name=r"([A-Za-z_]\w*)"), code)) | \
        set(re.findall(_LIST_DECLARATOR.format(name=r"([A-Za-z_]\w*)"), code)) | \
        set(re.findall(r"#\s*define\s+(\w+)", code))


def _member_names(code: str) -> set[str]:
    """Names declared inside the file's struct/class/union bodies: what `obj.name(...)` may be its own."""
    names: set[str] = set()
    for match in re.finditer(r"\b(?:struct|class|union)\s+\w+[^;{()]*\{", code):
        depth, end = 1, match.end()
        while depth and end < len(code):
            depth += {"{": 1, "}": -1}.get(code[end], 0)
            end += 1
        names |= _declared_names(code[match.end():end])
    return names


def check_torch_native(code: str, uncommented: str, filename: str) -> list[str]:
    """torch_fallback flags for a C++ source of a PyTorch->X task: PyTorch's C++ API computing.
    `code`: the source without comments and literals; `uncommented`: without comments only."""
    code = _expand_name_macros(code)
    paths, reaches_torch = _torch_compute_paths(code)
    flags = [f"torch_fallback: {path} ({filename})" for path in paths]
    # A file can hold Tensors only through PyTorch's headers: its own, or a local header's.
    reaches_torch = reaches_torch or re.search(r'#\s*include\s*(?:"|<\s*(?:torch|ATen|c10)/)', uncommented)
    if reaches_torch:
        members = _member_names(code)
        for name in _METHOD_CALL.findall(code):
            if name in ATEN_COMPUTE_NAMES - NATIVE_SHARED_METHOD_NAMES - members:
                flags.append(f"torch_fallback: .{name}() ({filename})")
        own = _declared_names(code)
        for name in _FREE_CALL.findall(code):
            if name in ATEN_COMPUTE_NAMES - C_MATH_AND_STD_NAMES - own:
                flags.append(f"torch_fallback: {name}() ({filename})")
    return flags


# pybind11's ways into the interpreter (PYBIND11_MODULE and m.def, which an extension needs, are not)
_PYBIND_PYTHON = re.compile(r"\bmodule_?\s*::\s*import\b|\b(?:py|pybind11)\s*::\s*(?:eval|exec|eval_file|globals|"
                            r"module_?\s*::\s*import|import)\b")


def check_native(source: str, *, fp32_task: bool = False, torch_task: bool = False,
                 filename: str = "kernel.cu") -> list[str]:
    """Flags for one CUDA/HIP/C++ source, from its tokens (comments and literals removed).
    `torch_task`: a PyTorch->X task, whose result PyTorch's C++ API must not compute."""
    uncommented = re.sub(r"//[^\n]*|/\*.*?\*/", "", source, flags=re.S)
    includes = re.findall(r'#\s*include\s*[<"]([^>"]+)[>"]', uncommented)
    code = _C_LITERALS.sub(" ", source)
    tokens = _TOKEN.findall(code)
    qualified = set(re.findall(r"::\s*([A-Za-z_]\w*)", code))
    own = {word for word in NATIVE_ORDINARY_WORDS - qualified if _own_word(word, code)}
    names = set(tokens) - own
    flags: list[str] = []
    for kind, bad in NATIVE_FORBIDDEN.items():
        for name in sorted(names & bad):
            flags.append(f"{kind}: {name} ({filename})")
    for name in sorted(n for n in names if n.lower().startswith(("cupti", "roctracer"))):   # every CUPTI name
        flags.append(f"trace_tampering: {name} ({filename})")
    for asm in _HOST_ASM.findall(re.sub(r'"\s*"', "", source)):   # a system call from inline assembly
        flags.append(f"process_control: inline assembly '{' '.join(asm.split())[:40]}' ({filename})")
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
    if "##" in tokens:
        flags.append(f"obfuscation: ## token pasting ({filename})")
    for call in sorted(set(_PYBIND_PYTHON.findall(code))):    # py::module_::import("torch"), py::eval(...)
        flags.append(f"introspection: {''.join(call.split())} ({filename})")
    if torch_task:
        flags += check_torch_native(code, uncommented, filename)
    if "__global__" not in names:
        flags.append(f"no_custom_kernel: no __global__ function in {filename}")
    return list(dict.fromkeys(flags))


@dataclass(frozen=True)
class DeclaredKernels:
    """What a native candidate's sources declare, read by the judge before anything of them runs:
    the names of its `__global__` functions, the namespaces it opens, and its files' names as nvcc
    writes them into an anonymous namespace's mangled name (kernel.cu: `kernel_cu`). The device trace
    reads a kernel in the candidate's call as its own only if it is one of these (devtrace.Foreign)."""
    kernels: frozenset[str]
    namespaces: frozenset[str]
    units: frozenset[str]
    # A macro that declares kernels names them by its arguments: then every identifier of the file
    # is a name it may declare, and with `##` in such a macro any name is (the scope is still read).
    any_name: bool = False


# Attributes written between `__global__` and a kernel's name, with their (nested) arguments
_KERNEL_ATTRIBUTE = re.compile(r"\b(?:__launch_bounds__|__maxnreg__|__cluster_dims__|__attribute__|__declspec|alignas)\s*\(")


def _without_attributes(code: str) -> str:
    out, i = [], 0
    for match in _KERNEL_ATTRIBUTE.finditer(code):
        if match.start() < i:
            continue
        depth, j = 1, match.end()
        while j < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[j], 0)
            j += 1
        out.append(code[i:match.start()] + " ")
        i = j
    return "".join(out) + code[i:]
_KERNEL_NAME = re.compile(r"__global__\b[^;{}()]*?\b([A-Za-z_]\w*)\s*(?:<[^;{}()]*>\s*)?\(")
_NAMESPACE = re.compile(r"\bnamespace\s+([A-Za-z_]\w*)")
_DEFINE = re.compile(r"#\s*define\b(?:[^\n]*\\\n)*[^\n]*")
# `__global__` as the CUDA headers define it, spelled out (clang reads it so too)
_GLOBAL_ATTRIBUTE = re.compile(r"__attribute__\s*\(\(\s*(?:__)?global(?:__)?\s*\)\)")


def declared_kernels(sources: dict[str, str]) -> DeclaredKernels:
    """`sources`: each native file's name and text. A file whose macros declare kernels names them
    by the macros' arguments, which this does not expand: every identifier of that file counts as a
    kernel name (and any name, where such a macro pastes tokens with `##`). The scope rules still hold
    there: a kernel in a namespace the files do not open, or an anonymous namespace of another
    file, is not theirs. (Reading no rule at all for such a file let one unused `#define` turn the
    device trace's rule off.)"""
    kernels, namespaces, units, any_name = set(), set(), set(), False
    for filename, source in sources.items():
        code = _GLOBAL_ATTRIBUTE.sub("__global__", _C_LITERALS.sub(" ", source))
        declaring = [d for d in _DEFINE.findall(code) if "__global__" in d]
        if declaring:
            kernels.update(t for t in _TOKEN.findall(code) if t.isidentifier())
            any_name = any_name or any("##" in d for d in declaring)
        code = _without_attributes(code)
        kernels.update(_KERNEL_NAME.findall(code))
        namespaces.update(_NAMESPACE.findall(code))
        units.add(filename.rsplit("/", 1)[-1].replace(".", "_"))
    return DeclaredKernels(frozenset(kernels), frozenset(namespaces), frozenset(units), any_name)
