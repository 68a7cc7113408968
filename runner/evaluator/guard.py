"""Dynamic defences that run around every candidate call (see docs/evaluation.md):

- Sentinel      the identity (and, for Python functions, the code object) of everything the
                harness relies on -- timers, synchronize, events, comparison functions, builtins,
                the evaluator's own modules -- captured before the candidate is imported and
                verified after the import and after every candidate call;
- ThreadWatch   Python threads and OS threads (/proc/self/task) alive before and after a call;
- LaunchCounter Triton kernel launches (JITFunction.run / InterpretedFunction.run wrapped);
- StreamWatch   device work one candidate call put on streams other than the harness's (profiler);
- TorchOpWatch  the aten ops a Triton candidate runs itself (a TorchDispatchMode): compute ops
                are a PyTorch fallback, half/bf16 results in a float32 task a precision downgrade;
- task_digest   hashes of every protected task file, compared before and after the evaluation.

Imports only torch/triton and the standard library.
"""
from __future__ import annotations

import builtins
import hashlib
import math
import os
import statistics
import sys
import threading
import time
import types
from pathlib import Path


class Tampered(Exception):
    """The candidate changed something the harness relies on; the attempt fails and is flagged."""

    def __init__(self, flag: str, detail: str):
        self.flag, self.detail = flag, detail
        super().__init__(f"{flag}: {detail}")


# -- identity sentinel ----------------------------------------------------------------------------
_TORCH_NAMES = ("isclose", "allclose", "equal", "isnan", "isinf", "isfinite", "empty", "empty_like",
                "empty_strided", "zeros_like", "full_like", "Generator", "manual_seed", "randn", "rand",
                "randint", "save", "load", "cat", "where", "abs", "Tensor", "tensor", "device", "dtype")
_TENSOR_NAMES = ("clone", "copy_", "fill_", "zero_", "double", "float", "to", "cpu", "abs", "max", "all",
                 "any", "isnan", "equal", "numel", "data_ptr", "stride", "size", "dim", "is_floating_point",
                 "untyped_storage", "nan_to_num", "detach", "contiguous", "item", "view", "reshape",
                 "flatten", "masked_fill_", "__sub__", "__eq__", "__ne__", "__bool__", "__float__",
                 "__len__", "__getitem__", "__setitem__", "__mul__", "__add__", "shape", "dtype",
                 "device", "is_cuda", "__class__", "__torch_function__", "__torch_dispatch__")
_CUDA_NAMES = ("synchronize", "current_stream", "default_stream", "Event", "Stream", "graph", "CUDAGraph",
               "empty_cache", "is_available", "set_stream", "stream", "_sleep")
_EVENT_NAMES = ("record", "elapsed_time", "synchronize", "query", "wait", "__init__", "__new__")
_TIME_NAMES = ("perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "time", "time_ns",
               "process_time", "sleep")


def _targets(owners: dict | None = None) -> dict[str, object]:
    """{dotted name: object}; `owners`, when given, receives {dotted name: (owner, attribute)}."""
    import torch
    found: dict[str, object] = {}

    def add(prefix, owner, names=None):
        for name in names if names is not None else list(vars(owner)):
            try:
                found[f"{prefix}.{name}"] = (inspect_static(owner, name))
                if owners is not None:
                    holder = owner
                    if isinstance(owner, type):
                        holder = next((k for k in owner.__mro__ if name in vars(k)), owner)
                    owners[f"{prefix}.{name}"] = (holder, name)
            except AttributeError:
                pass

    add("torch", torch, _TORCH_NAMES)
    add("torch.Tensor", torch.Tensor, _TENSOR_NAMES)
    add("torch.cuda", torch.cuda, _CUDA_NAMES)
    add("torch.cuda.Event", torch.cuda.Event, _EVENT_NAMES)
    add("time", time, _TIME_NAMES)
    add("threading", threading, ("active_count", "enumerate", "Thread"))
    add("statistics", statistics, ("median", "mean", "pstdev", "quantiles"))
    add("math", math, ("isfinite", "isnan", "exp", "log", "sqrt", "inf"))
    add("os", os, ("listdir", "_exit", "getpid"))
    add("builtins", builtins)
    from . import build, harness, static_checks, timing
    from .. import result, task
    for module in (build, harness, static_checks, timing, sys.modules[__name__], result, task):
        add(module.__name__, module)
        for name, value in list(vars(module).items()):  # and the methods of its own classes
            if isinstance(value, type) and value.__module__ == module.__name__:
                add(f"{module.__name__}.{name}", value,
                    [k for k, v in vars(value).items() if k != "__dict__" and
                     (callable(v) or isinstance(v, (staticmethod, classmethod, property)))])
    try:
        from triton.runtime import interpreter, jit
        add("triton.JITFunction", jit.JITFunction, ("run", "__getitem__"))
        add("triton.KernelInterface", jit.KernelInterface, ("__getitem__",))
        add("triton.InterpretedFunction", interpreter.InterpretedFunction, ("run", "__getitem__"))
    except Exception:
        pass
    return found


def inspect_static(owner, name):
    """The attribute as stored (no descriptor binding), so the same object is seen every time."""
    for klass in (owner.__mro__ if isinstance(owner, type) else ()):
        if name in vars(klass):
            return vars(klass)[name]
    if isinstance(owner, types.ModuleType) or not isinstance(owner, type):
        return vars(owner)[name] if name in vars(owner) else getattr(owner, name)
    raise AttributeError(name)


def _code(obj):
    fn = getattr(obj, "__func__", obj)
    return getattr(fn, "__code__", None) if isinstance(fn, types.FunctionType) else None


class Sentinel:
    """Everything the harness trusts, by identity; `verify` raises Tampered naming what changed."""

    def __init__(self, extra: dict | None = None):
        self.extra = dict(extra or {})
        self.owners: dict = {}
        self.objects = self._all(self.owners)
        self.codes = {k: _code(v) for k, v in self.objects.items()}
        self.defaults = {k: getattr(getattr(v, "__func__", v), "__defaults__", None)
                         for k, v in self.objects.items() if isinstance(getattr(v, "__func__", v), types.FunctionType)}

    def _all(self, owners=None) -> dict:
        found = _targets(owners)
        for label, module in self.extra.items():
            for name, value in vars(module).items():
                found[f"{label}.{name}"] = value
                if owners is not None:
                    owners[f"{label}.{name}"] = (module, name)
        return found

    def restore(self) -> None:
        """Put every original back (the evaluation of an in-process caller goes on unharmed; the
        attempt stays failed and flagged)."""
        for name in self.changed():
            base = name.removesuffix(".__code__").removesuffix(".__defaults__")
            original = self.objects.get(base)
            fn = getattr(original, "__func__", original)
            if name.endswith(".__code__"):
                fn.__code__ = self.codes[base]
            elif name.endswith(".__defaults__"):
                fn.__defaults__ = self.defaults[base]
            elif base in self.owners:
                owner, attr = self.owners[base]
                try:
                    if isinstance(owner, type):
                        type.__setattr__(owner, attr, original)
                    else:
                        setattr(owner, attr, original)
                except (TypeError, AttributeError):
                    pass

    def changed(self) -> list[str]:
        now = self._all()
        bad = []
        for name, obj in self.objects.items():
            current = now.get(name, _MISSING)
            if current is not obj:
                bad.append(name)
            elif self.codes[name] is not None and _code(current) is not self.codes[name]:
                bad.append(name + ".__code__")
            elif name in self.defaults and getattr(getattr(current, "__func__", current), "__defaults__", None) \
                    is not self.defaults[name]:
                bad.append(name + ".__defaults__")
        return bad

    def verify(self, when: str) -> None:
        bad = self.changed()
        if bad:
            raise Tampered("patched_harness", f"{', '.join(bad[:5])} changed {when}")


_MISSING = object()


# -- threads --------------------------------------------------------------------------------------
def _os_threads() -> set[str]:
    try:
        return set(os.listdir("/proc/self/task"))
    except OSError:
        return set()


class ThreadWatch:
    """A thread that outlives the call that started it can do the work after the timer stops.

    Python threads are checked on every call. OS threads (a native kernel's std::thread/pthread, or
    a Python thread) from the candidate's second call on: the first call of a process may start
    runtime threads lazily (CUDA driver, Triton, OpenMP pools)."""

    def __init__(self, os_threads: bool = True):
        self.calls = 0
        self.os_threads = os_threads

    def before(self):
        return set(threading.enumerate()), _os_threads()

    def after(self, token) -> None:
        py_before, os_before = token
        self.calls += 1
        new_py = [t for t in threading.enumerate() if t not in py_before and t.is_alive()]
        if new_py:
            raise Tampered("thread_injection", f"the candidate left {len(new_py)} Python thread(s) running "
                           f"({', '.join(t.name for t in new_py[:3])})")
        new_os = _os_threads() - os_before if self.os_threads else set()
        if new_os and self.calls > 1:
            raise Tampered("thread_injection", f"the candidate left {len(new_os)} OS thread(s) running")


# -- Triton launches ------------------------------------------------------------------------------
class LaunchCounter:
    """Counts Triton kernel launches: every `kernel[grid](...)` (also through autotuners and
    heuristics) ends in JITFunction.run, or InterpretedFunction.run under TRITON_INTERPRET=1."""

    count = 0
    installed = False

    @classmethod
    def install(cls) -> None:
        if cls.installed:
            return
        try:
            from triton.runtime import interpreter, jit
        except Exception:
            return
        for klass in (jit.JITFunction, interpreter.InterpretedFunction):
            original = vars(klass).get("run")
            if original is None or getattr(original, "_gauntlet_counted", False):
                continue

            def run(self, *args, __original=original, **kwargs):
                if not kwargs.get("warmup", False):
                    LaunchCounter.count += 1
                return __original(self, *args, **kwargs)

            run._gauntlet_counted = True
            klass.run = run
        cls.installed = True


# -- device streams -------------------------------------------------------------------------------
DEVICE_WORK = ("kernel", "gpu_memcpy", "gpu_memset")   # Kineto's activity types; not syncs or annotations


class StreamWatch:
    """GPU only. Work a candidate puts on another stream may run while the flush and the launch
    spin still hold the harness's stream, before the timed span starts: neither the tight span nor
    the device-sync gap sees it (on an H100 a side-stream softmax read 26-45x faster than its
    baseline with an unchanged gap). The profiler (CUPTI) records the stream of every kernel, copy
    and memset wherever it ran; one candidate call per timed config is watched, chosen at random
    among calls the candidate cannot tell apart from timed ones."""

    def __init__(self):
        import torch
        self.torch = torch
        self.marker = torch.zeros(1, device="cuda")
        self.prof = None

    @property
    def watching(self) -> bool:
        return self.prof is not None

    def start(self) -> None:
        from torch.profiler import ProfilerActivity, profile
        self.prof = profile(activities=[ProfilerActivity.CUDA])
        self.prof.__enter__()
        self.marker.add_(1)        # the window's first device work: it names the harness's stream

    def stop(self) -> list[tuple[int, int, str]]:
        """(correlation id, stream, name) of the window's device work in launch order, the harness's
        marker first."""
        prof, self.prof = self.prof, None
        self.torch.cuda.synchronize()
        prof.__exit__(None, None, None)
        activity = device_work(prof.profiler.kineto_results.events(), self.torch.autograd.DeviceType.CUDA)
        if not activity:
            raise RuntimeError("the profiler recorded no device work, not even the harness's marker")
        return activity


def device_work(events, cuda) -> list[tuple[int, int, str]]:
    """(correlation id, stream, name) of the kernels, copies and memsets among Kineto events, in
    launch order. Older torch (2.11) has no `activity_type` on its events: there every event on the
    CUDA device counts (sync events are not recorded unless asked for)."""
    def is_work(e):
        kind = getattr(e, "activity_type", None)
        return kind() in DEVICE_WORK if kind is not None else e.device_type() == cuda
    return sorted((e.correlation_id(), e.device_resource_id(), e.name()) for e in events if is_work(e))


def foreign_work(activity) -> list[tuple[str, int]]:
    """(name, stream) of the work in `activity` (as StreamWatch.stop returns it) that ran on a
    stream other than the marker's."""
    home = activity[0][1]
    return [(name, stream) for _, stream, name in activity[1:] if stream != home]


def kernels(activity) -> list[str]:
    """Names of the kernels in `activity` after the marker (copies and memsets are not kernels)."""
    return [name for _, _, name in activity[1:] if not any(w in name.lower() for w in ("memset", "memcpy"))]


# -- aten ops a Triton candidate runs -------------------------------------------------------------
# Allocation, views, copies and dtype-preserving glue; everything else is computation PyTorch does
# for the candidate (a fallback) when the category asks for a custom kernel.
ALLOWED_ATEN = {
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "new_zeros", "new_full",
    "zeros", "zeros_like", "ones", "ones_like", "full", "full_like", "fill_", "zero_", "set_", "copy_",
    "_to_copy", "clone", "view", "_unsafe_view", "reshape", "as_strided", "t", "transpose", "permute",
    "expand", "contiguous", "detach", "alias", "lift_fresh", "slice", "select", "unsqueeze", "squeeze",
    "split", "split_with_sizes", "chunk", "unbind", "narrow", "view_as", "resize_", "_reshape_alias",
    "_local_scalar_dense", "arange", "is_same_size", "sym_size", "sym_stride", "sym_numel",
    "sym_storage_offset", "record_stream", "_has_compatible_shallow_copy_type", "lift", "flatten",
    "unflatten", "movedim", "numpy_T", "is_pinned", "_pin_memory",
}
HALF_DTYPES = ("float16", "bfloat16")


def _torch_dispatch_mode():
    from torch.utils._python_dispatch import TorchDispatchMode

    class Watch(TorchDispatchMode):
        def __init__(self, fp32_task: bool):
            super().__init__()
            self.fp32_task = fp32_task
            self.compute: set[str] = set()
            self.downgrade: set[str] = set()

        def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            name = func.overloadpacket.__name__
            if name not in ALLOWED_ATEN:
                self.compute.add(f"aten.{name}")
            if self.fp32_task:
                import torch
                outs = out if isinstance(out, (tuple, list)) else (out,)
                for o in outs:
                    if isinstance(o, torch.Tensor) and str(o.dtype).removeprefix("torch.") in HALF_DTYPES:
                        self.downgrade.add(f"aten.{name}->{str(o.dtype).removeprefix('torch.')}")
            return out

    return Watch


class TorchOpWatch:
    """Used as `with watch.observe(): candidate(...)`; findings accumulate over calls."""

    def __init__(self, fp32_task: bool):
        self.mode_cls = _torch_dispatch_mode()
        self.fp32_task = fp32_task
        self.compute: set[str] = set()
        self.downgrade: set[str] = set()

    def observe(self):
        watch = self
        mode = self.mode_cls(self.fp32_task)

        class _Ctx:
            def __enter__(self):
                mode.__enter__()
                return mode

            def __exit__(self, *exc):
                mode.__exit__(*exc)
                watch.compute |= mode.compute
                watch.downgrade |= mode.downgrade
                return False

        return _Ctx()


# -- protected task files -------------------------------------------------------------------------
def task_digest(folders) -> dict[str, str]:
    """sha256 of every file under the task's folders (its own and the ones it extends)."""
    digest = {}
    for folder in folders:
        folder = Path(folder)
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                try:
                    digest[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
                except OSError:
                    digest[str(path)] = "unreadable"
    return digest
