"""Inputs, expected outputs and the comparison: everything the judge computes itself, from its own RNG
and the task's reference, and how it reads what a runner hands back."""
from __future__ import annotations

import math

from runner.evaluator import protocol
from runner.evaluator.judge import policy
from runner.evaluator.judge.runners import RunnerFailed
from runner.evaluator.protocol import Shared
from runner.tasks.task import Config, Task


class TaskBroken(Exception):
    """The task's own reference or make_inputs failed: not the candidate's fault."""


def short_of_device_memory(exc: BaseException) -> bool:
    """Whether a step of the judge's own failed for the device's memory: torch's OutOfMemoryError, or
    an "out of memory" a library it called raised as a plain RuntimeError (cuBLAS's workspace). Never
    the task's failure: beside a live candidate it may be the candidate's doing (evaluation.judge_alone)."""
    import torch
    oom = getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError
    return isinstance(exc, oom) or "out of memory" in str(exc).lower()


class Mismatch(Exception):
    """The candidate's output is not the reference's (one line)."""



# -- values -------------------------------------------------------------------------------------------
def device_kind(device: str) -> str:
    """"cpu" or "gpu": what the judge's per-kind settings are keyed by (CUDA and ROCm alike)."""
    return "cpu" if device == "cpu" else "gpu"


def config_seed(config: Config, seed: int) -> int:
    return (sum(config.name.encode()) * 1_000_003 + seed) % (2**31)


def as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def clone_args(args):
    import torch
    return [a.clone() if isinstance(a, torch.Tensor) else a for a in args]


def add_outliers(args: list, generator) -> list:
    """KernelBench-X's outlier stage: 0.1 % (at least one) of every float input's entries x50."""
    import torch
    for a in args:
        # float8 inputs are left alone: x50 overflows most of their range
        if isinstance(a, torch.Tensor) and a.is_floating_point() and a.element_size() > 1 and a.numel() \
                and a.is_contiguous():
            k = max(1, round(a.numel() * policy.OUTLIER_FRACTION))
            idx = torch.randint(a.numel(), (k,), generator=generator).to(a.device)
            flat = a.view(-1)
            flat[idx] = flat[idx] * policy.OUTLIER_SCALE
    return args


class Frozen:
    """Outputs held by the judge (on its own device, where it compares them), with the layout and
    device the runner reported."""

    def __init__(self, tensors, strides, device):
        self.tensors, self.strides, self.device = tensors, strides, device
        self._magnitudes: dict[int, float] = {}

    def magnitude(self, i: int) -> float:
        """What output i's atol is scaled by: its RMS, clamped to [policy.MAGNITUDE_FLOOR, 1]. A fixed atol
        means nothing for outputs much smaller than 1 (a softmax row of 1/4096 passes atol 1e-4 as a
        uniform row); outputs of size 1 or more keep the task's atol as it is."""
        if i not in self._magnitudes:
            t = self.tensors[i]
            rms = float(t.float().pow(2).mean().sqrt()) if t.is_floating_point() and t.numel() else 1.0
            self._magnitudes[i] = 1.0 if math.isnan(rms) else min(1.0, max(rms, policy.MAGNITUDE_FLOOR))
        return self._magnitudes[i]

    def amax(self) -> float:
        vals = [float(t.float().abs().max()) for t in self.tensors if t.numel() and t.is_floating_point()]
        vals = [v for v in vals if not math.isnan(v)]
        return max(vals) if vals else 0.0


def freeze_reference(out) -> Frozen:
    """A copy of the reference's outputs where they were made (the reference may return views of
    its inputs); compared there, on the GPU when there is one."""
    import torch
    outs = as_tuple(out)
    for i, o in enumerate(outs):
        if not isinstance(o, torch.Tensor):
            raise TaskBroken(f"the reference returned a {type(o).__name__} as output {i}")
    return Frozen([o.detach().clone() for o in outs], [tuple(o.stride()) for o in outs],
                  [o.device.type for o in outs])


def make_inputs(reference, config: Config, generator, torch_device: str) -> list:
    """The task's make_inputs for `config`; anything but a list of tensors and scalars is the task's error."""
    import torch
    try:
        args = list(reference.make_inputs(dict(config.params), generator, torch_device))
    except Exception as exc:
        if short_of_device_memory(exc):
            raise
        raise TaskBroken(f"make_inputs raised {type(exc).__name__}: {str(exc)[:200]} on {config.name}") from None
    for a in args:
        if not isinstance(a, (torch.Tensor, bool, int, float)):
            raise TaskBroken(f"make_inputs returned a {type(a).__name__} on {config.name} "
                             "(only tensors, int, float and bool)")
    return args


def run_reference(reference, args, as_baseline: bool = False) -> Frozen:
    """The reference's outputs on (copies of) `args`; a raise or a non-tensor output is the task's error.
    `as_baseline`: the reference is also the task's baseline, run in a kernel runner, so its outputs
    must meet every kernel's contract (protocol.output_problem) or the baseline fails that config."""
    copies = clone_args(args)
    try:
        out = reference.reference(*copies)
    except Exception as exc:
        if short_of_device_memory(exc):
            raise
        raise TaskBroken(f"the reference raised {type(exc).__name__}: {str(exc)[:200]}") from None
    frozen = freeze_reference(out)
    problem = protocol.output_problem(as_tuple(out), copies) if as_baseline else None
    if problem:
        raise TaskBroken(f"the reference is the baseline and breaks the outputs' contract: {problem} (return a "
                         "new tensor: a kernel's outputs never alias its inputs)")
    return frozen


def _relevant_strides(shape, stride):
    return tuple(s for n, s in zip(shape, stride) if n > 1)


def compare(task: Task, got: Frozen, expected: Frozen, atol_scale: float = 1.0, what: str = "",
            canon=None) -> float:
    """Max abs error; raises Mismatch when count, dtype, shape, strides, device, NaN or values differ.
    `canon` (the task's `canonical` bound to the call's inputs, or None) maps both sides' outputs to
    the form whose values are compared, where more than one answer is correct (top-k under ties)."""
    import torch
    if len(got.tensors) != len(expected.tensors):
        raise Mismatch(f"returned {len(got.tensors)} outputs, expected {len(expected.tensors)}")
    for i, (g, e) in enumerate(zip(got.tensors, expected.tensors)):
        if g.shape != e.shape:
            raise Mismatch(f"output {i} shape {tuple(g.shape)} != {tuple(e.shape)}")
        if g.dtype != e.dtype:
            raise Mismatch(f"output {i} dtype {g.dtype} != {e.dtype}")
        if got.device[i] != expected.device[i]:
            raise Mismatch(f"output {i} on {got.device[i]}, expected {expected.device[i]}")
        if _relevant_strides(g.shape, got.strides[i]) != _relevant_strides(e.shape, expected.strides[i]):
            raise Mismatch(f"output {i} strides {tuple(got.strides[i])} != {tuple(expected.strides[i])} "
                           "(return the reference's layout)")
    if canon is not None:
        got, expected = _canonical(canon, got, expected)
    worst = 0.0
    for i, (g, e) in enumerate(zip(got.tensors, expected.tensors)):
        tol = task.tolerance(str(e.dtype).removeprefix("torch."))
        atol = tol.atol * atol_scale * expected.magnitude(i)
        fast = _fast_close(g, e, tol.rtol, atol)
        if fast is not None:       # every element close, no NaN anywhere: the common case
            worst = max(worst, fast)
            continue
        g64, e64 = g.double(), e.double()
        if bool(torch.isnan(g64).any()):
            raise Mismatch(f"output {i} has NaN{what}")  # NaN never passes
        if bool(torch.isnan(e64).any()):
            raise Mismatch(f"output {i}: the reference itself has NaN{what} (task bug)")
        diff = (g64 - e64).abs().nan_to_num(nan=0.0, posinf=math.inf)
        err = float(diff.max()) if diff.numel() else 0.0
        worst = max(worst, err)
        if not bool(torch.isclose(g64, e64, rtol=tol.rtol, atol=atol).all()):
            raise Mismatch(f"output {i} max abs error {err:.3g} exceeds atol={atol:.3g} rtol={tol.rtol}{what}")
    return worst


def canonical_for(reference, args):
    """The task's `canonical(outputs, *inputs)` bound to one call's inputs (the judge's copies), or
    None when reference.py defines none."""
    fn = getattr(reference, "canonical", None)
    if not callable(fn):
        return None
    return lambda outs: fn(tuple(outs), *args)


def _canonical(canon, got: Frozen, expected: Frozen) -> tuple[Frozen, Frozen]:
    def apply(frozen: Frozen, whose: str) -> Frozen:
        try:
            outs = tuple(canon(frozen.tensors))
        except Exception as exc:
            raise Mismatch(f"{whose} outputs: the task's canonical() raised {type(exc).__name__}: "
                           f"{str(exc)[:160]}") from None
        if len(outs) != len(expected.tensors):
            raise Mismatch(f"the task's canonical() returned {len(outs)} outputs (task bug)")
        return Frozen(list(outs), [tuple(o.stride()) for o in outs], [o.device.type for o in outs])
    want = apply(expected, "the reference's")
    have = apply(got, "the candidate's")
    for i, (g, e) in enumerate(zip(have.tensors, want.tensors)):
        if g.shape != e.shape or g.dtype != e.dtype:
            raise Mismatch(f"output {i}: the task's canonical() made {tuple(g.shape)} {g.dtype} of the "
                           f"candidate's, {tuple(e.shape)} {e.dtype} of the reference's")
    return have, want


def _fast_close(g, e, rtol: float, atol: float) -> float | None:
    """The max abs error when every element satisfies |g - e| <= atol + rtol * |e| and nothing is
    NaN; None otherwise (the exact float64 path then finds and words the failure)."""
    import torch
    if not (g.is_floating_point() and e.is_floating_point()) or g.dtype == torch.float64 or not g.numel():
        return None
    g32, e32 = g.float(), e.float()
    diff = torch.sub(g32, e32).abs_()
    bound = e32.abs().mul_(rtol).add_(atol)
    if not bool(diff.le(bound).all()):
        return None
    return float(diff.max())


class SentInputs:
    """One set of inputs in memfds sealed against writes (protocol.describe_args): made once, sent
    to each runner that loads them; closed by whoever made them."""

    def __init__(self, args):
        self.described, self.shared = protocol.describe_args(args)
        self.fds = [s.fd for s in self.shared]

    def close(self) -> None:
        for s in self.shared:
            s.close()


def out_buffers(expected: Frozen, pattern: int) -> list[Shared]:
    """Judge-owned buffers for one call's outputs, poisoned: what the runner does not write fails."""
    buffers = []
    for t in expected.tensors:
        shared = Shared(protocol.dtype_name(t), tuple(t.shape), name="output")
        if shared.nbytes:
            view = shared.tensor()
            if view.is_floating_point():
                view.fill_(float("nan") if pattern % 2 == 0 else -1.2345e30 if view.dtype.itemsize > 2
                           else -1234.5 if view.dtype.itemsize == 2 else -224.0)     # finite in every float8
            elif view.dtype != __import__("torch").bool:
                view.fill_(-0x5A if pattern % 2 == 0 else 0x3C)
            del view
        buffers.append(shared)
    return buffers


def received(buffers: list[Shared], meta, device: str = "cpu") -> Frozen:
    """What the runner wrote, copied out of the judge's buffers at once onto the judge's `device`
    (where the expected outputs are); layout and device as reported."""
    if not isinstance(meta, list) or len(meta) > protocol.MAX_FDS or not all(isinstance(m, dict) for m in meta):
        for b in buffers:
            b.close()
        raise RunnerFailed("malformed output description")
    tensors, strides, devices = [], [], []
    for i, m in enumerate(meta):
        dtype, shape = str(m.get("dtype"))[:40], m.get("shape")
        if not isinstance(shape, list) or len(shape) > policy.MAX_DIMS or \
                not all(type(s) is int and 0 <= s < policy.MAX_EXTENT for s in shape) or \
                math.prod(shape) >= policy.MAX_EXTENT:     # each extent in range, their product too (torch's int64)
            for b in buffers:
                b.close()
            raise RunnerFailed("malformed output shape")
        if i >= len(buffers) or dtype != buffers[i].dtype or tuple(shape) != buffers[i].shape:
            import torch
            if dtype not in protocol.DTYPES:
                raise Mismatch(f"output {i} has dtype {dtype}")
            # no memory: compare fails it on count, shape or dtype before any value is read
            tensors.append(torch.empty(shape, dtype=getattr(torch, dtype), device="meta"))
        else:
            view = buffers[i].tensor()
            tensors.append(view.to(device, copy=True))
            del view
        raw = m.get("strides")
        strides.append(tuple(raw[:policy.MAX_DIMS]) if isinstance(raw, list) else ())
        devices.append(str(m.get("device"))[:40])
    for b in buffers:
        b.close()
    return Frozen(tensors, strides, devices)
