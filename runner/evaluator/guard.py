"""Watches the kernel runner keeps around candidate calls (see docs/evaluation.md). They run in the
runner's process, beside the candidate, which can switch them off: a finding is evidence against the
candidate, its absence proves nothing. The judge's own defences do not depend on them.

- ThreadWatch   Python threads and OS threads (/proc/self/task) alive before and after a call;
- LaunchCounter Triton kernel launches (JITFunction.run / InterpretedFunction.run wrapped);
- StreamWatch   device work one candidate call put on streams other than the harness's (profiler);
- TorchOpWatch  the aten ops a Triton candidate runs itself (a TorchDispatchMode): compute ops
                are a PyTorch fallback, half/bf16 results in a float32 task a precision downgrade.

Imports only torch/triton and the standard library.
"""
from __future__ import annotations

import os
import threading
from collections import Counter

from runner.evaluator.protocol import ALLOWED_ATEN


class Tampered(Exception):
    """The candidate changed something the harness relies on; the attempt fails and is flagged."""

    def __init__(self, flag: str, detail: str):
        self.flag, self.detail = flag, detail
        super().__init__(f"{flag}: {detail}")


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


# -- aten ops a Triton candidate runs: protocol.ALLOWED_ATEN (the judge's static checks read it too) --
HALF_DTYPES = ("float16", "bfloat16")


def _torch_dispatch_mode():
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves

    class Watch(TorchDispatchMode):
        def __init__(self, fp32_task: bool):
            super().__init__()
            self.fp32_task = fp32_task
            self.compute: Counter = Counter()      # "aten.name" -> runs in this call
            self.elements: Counter = Counter()     # "aten.name" -> elements those runs read and wrote
            self.downgrade: set[str] = set()

        def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            name = func.overloadpacket.__name__
            outs = out if isinstance(out, (tuple, list)) else (out,)
            if name not in ALLOWED_ATEN:
                self.compute[f"aten.{name}"] += 1
                self.elements[f"aten.{name}"] += sum(t.numel() for t in tree_leaves((args, kwargs, outs))
                                                     if isinstance(t, torch.Tensor))
            if self.fp32_task:
                for o in outs:
                    if isinstance(o, torch.Tensor) and str(o.dtype).removeprefix("torch.") in HALF_DTYPES:
                        self.downgrade.add(f"aten.{name}->{str(o.dtype).removeprefix('torch.')}")
            return out

    return Watch


class TorchOpWatch:
    """Used as `with watch.observe(): candidate(...)`, once per call; findings accumulate over calls.
    `compute`: per compute op, the most times one call ran it and the most elements one call's runs
    of it read and wrote (the judge reads these against an X->X task's shipped code: judge/correctness.py)."""

    def __init__(self, fp32_task: bool):
        self.mode_cls = _torch_dispatch_mode()
        self.fp32_task = fp32_task
        self.compute: dict[str, list[int]] = {}        # "aten.name" -> [runs, elements], each the most in one call
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
                for name, runs in mode.compute.items():
                    most = watch.compute.setdefault(name, [0, 0])
                    most[:] = max(most[0], runs), max(most[1], mode.elements[name])
                watch.downgrade |= mode.downgrade
                return False

        return _Ctx()
