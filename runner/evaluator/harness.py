"""The evaluation of one candidate, read top to bottom:

1. compile gate   build (or import) the candidate from the pristine task plus its editable files;
2. correctness    on every seen and hidden config, several seeds, against the PyTorch reference,
                  comparing tensors (never anything the candidate prints);
3. performance    baseline vs candidate on the same inputs (see timing.py), only where correct.

Imports only torch/triton/numpy and the standard library: it runs inside evaluation containers.
"""
from __future__ import annotations

import math
import shutil
import tempfile
import traceback
from pathlib import Path

from ..result import ConfigResult, Evaluation
from ..task import Config, Task
from . import timing
from .build import (CompileError, Kernel, compile_native, device_arch, import_module, load_native,
                    load_python, poison)

CORRECTNESS_SEEDS = {"gpu": (0, 1, 2), "cpu": (0, 1)}


class Mismatch(Exception):
    """The candidate's output is not the reference's."""


def candidate_tree(task: Task, candidate_dir: Path | None, dest: Path) -> Path:
    """Pristine visible task files, with only the editable paths taken from `candidate_dir`."""
    for rel, src in task.files.items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)
    if candidate_dir is not None:
        for rel in task.editable:
            target = dest / rel
            source = Path(candidate_dir) / rel
            if source.is_file() and not source.is_symlink():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
            elif target.exists():
                target.unlink()  # the agent deleted it: evaluate that
    return dest


def build_kernel(task: Task, tree: Path, device: str, name: str, arch: str | None) -> tuple[Kernel, str]:
    if task.language == "triton":
        return load_python(tree / task.entry, task.symbol, name), ""
    library, log = compile_native(task.language, tree, task.entry, arch, task.compile_flags)
    return load_native(library, task.symbol, name), log


def _seed(config: Config, seed: int) -> int:
    return (sum(config.name.encode()) * 1_000_003 + seed) % (2**31)


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def compare(task: Task, got, expected) -> float:
    """Max abs error; raises Mismatch when type, shape, dtype, NaNs or values disagree."""
    import torch
    got, expected = _as_tuple(got), _as_tuple(expected)
    if len(got) != len(expected):
        raise Mismatch(f"returned {len(got)} outputs, expected {len(expected)}")
    worst = 0.0
    for i, (g, e) in enumerate(zip(got, expected)):
        if type(g) is not torch.Tensor:  # subclasses can defer work past the check
            raise Mismatch(f"output {i} is a {type(g).__name__}, not a torch.Tensor")
        if g.shape != e.shape:
            raise Mismatch(f"output {i} shape {tuple(g.shape)} != {tuple(e.shape)}")
        if g.dtype != e.dtype:
            raise Mismatch(f"output {i} dtype {g.dtype} != {e.dtype}")
        if g.device != e.device:
            raise Mismatch(f"output {i} on {g.device}, expected {e.device}")
        tol = task.tolerance(str(e.dtype).removeprefix("torch."))
        g64, e64 = g.detach().double(), e.detach().double()
        if bool((torch.isnan(g64) & ~torch.isnan(e64)).any()):
            raise Mismatch(f"output {i} has NaN where the reference has none")
        diff = (g64 - e64).abs().nan_to_num(nan=0.0)
        err = float(diff.max()) if diff.numel() else 0.0
        worst = max(worst, err)
        if not bool(torch.isclose(g64, e64, rtol=tol.rtol, atol=tol.atol, equal_nan=True).all()):
            raise Mismatch(f"output {i} max abs error {err:.3g} exceeds atol={tol.atol} rtol={tol.rtol}")
    return worst


def _clone(args):
    import torch
    return [a.clone() if isinstance(a, torch.Tensor) else a for a in args]


def _same_inputs(before, after) -> bool:
    import torch
    return all(torch.equal(b, a) if isinstance(b, torch.Tensor) else b == a for b, a in zip(before, after))


class Evaluator:
    def __init__(self, task: Task, device: str, reference_module):
        self.task, self.device = task, device
        self.torch_device = "cpu" if device == "cpu" else "cuda"
        self.ref = reference_module
        self.seeds = CORRECTNESS_SEEDS["cpu" if device == "cpu" else "gpu"]

    def inputs(self, config: Config, seed: int) -> list:
        import torch
        gen = torch.Generator().manual_seed(_seed(config, seed))
        return list(self.ref.make_inputs(dict(config.params), gen, self.torch_device))

    def check(self, kernel: Kernel, config: Config, seeds) -> float:
        """Run `kernel` on fresh inputs per seed; returns the max abs error or raises Mismatch."""
        import torch
        worst = 0.0
        for seed in seeds:
            args = self.inputs(config, seed)
            expected = self.ref.reference(*_clone(args))
            pristine = _clone(args)
            state = kernel.prepare(args, expected)
            try:
                got = kernel.run(args, state)
            except Exception as exc:
                raise Mismatch(f"raised {type(exc).__name__}: {str(exc)[:300]}") from None
            if self.device != "cpu":
                torch.cuda.synchronize()
            if not _same_inputs(pristine, args):
                raise Mismatch("modified its inputs")
            worst = max(worst, compare(self.task, got, expected))
        return worst

    def time(self, baseline: Kernel, candidate: Kernel, config: Config) -> tuple[float, float]:
        args = self.inputs(config, 0)
        expected = self.ref.reference(*_clone(args))
        base_state = baseline.prepare(args, expected)
        cand_state = candidate.prepare(args, expected)
        timed = timing.time_pair({
            "baseline": lambda: baseline.run(args, base_state),
            "candidate": lambda: candidate.run(args, cand_state),
        }, self.device)
        # Re-check the timed invocation itself (same inputs, same output buffers, poisoned again):
        # a kernel that does less work on repeated calls fails here.
        for out in cand_state or ():
            poison(out)
        compare(self.task, candidate.run(args, cand_state), expected)
        return timed["baseline"].median_ms, timed["candidate"].median_ms

    def config_result(self, baseline: Kernel, candidate: Kernel | None, config: Config,
                      measure: bool) -> ConfigResult:
        row = ConfigResult(config=config.name, split=config.split, params=dict(config.params),
                           correct=False)
        try:
            self.check(baseline, config, self.seeds[:1])
            row.baseline_correct = True
        except Mismatch as exc:
            row.baseline_correct = False
            row.error = f"baseline: {exc}"
        if candidate is None:
            row.error = row.error or "not compiled"
            return row
        try:
            row.max_abs_err = self.check(candidate, config, self.seeds)
            row.correct = True
        except Mismatch as exc:
            row.error = str(exc)
            return row
        if measure and row.baseline_correct:
            try:
                row.baseline_ms, row.candidate_ms = self.time(baseline, candidate, config)
            except Mismatch as exc:
                row.correct, row.error = False, f"timed call: {exc}"
                return row
            if row.candidate_ms > 0 and math.isfinite(row.candidate_ms):
                row.speedup = row.baseline_ms / row.candidate_ms
        return row


def evaluate(task: Task, candidate_dir: Path | None, device: str, splits=("seen", "unseen"),
             measure: bool = True) -> Evaluation:
    """Evaluate the candidate whose editable files are in `candidate_dir` (None: the task as shipped)."""
    if device == "cpu":
        import os
        os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is first imported
    evaluation = Evaluation(device=device, compiled=False,
                            timing_meaningful=device != "cpu",
                            timing_method=timing.CPU_METHOD if device == "cpu" else timing.GPU_METHOD)
    with tempfile.TemporaryDirectory(prefix="gauntlet-eval-") as tmp:
        tmp = Path(tmp)
        reference = import_module(task.reference, "gauntlet_reference")
        arch = None if task.language == "triton" else device_arch(device)
        harness = Evaluator(task, device, reference)
        if task.baseline_is_reference:
            baseline = Kernel(name="baseline", python_fn=reference.reference)
        else:
            baseline, _ = build_kernel(task, candidate_tree(task, None, tmp / "baseline"),
                                       device, "baseline", arch)
        candidate = None
        try:
            candidate, evaluation.compile_log = build_kernel(
                task, candidate_tree(task, candidate_dir, tmp / "candidate"), device, "candidate", arch)
            evaluation.compiled = True
        except CompileError as exc:
            evaluation.compile_log = str(exc)[-8000:]
        for split in splits:
            for config in task.configs(split):
                try:
                    row = harness.config_result(baseline, candidate, config, measure)
                except Exception as exc:  # the harness itself must not lose the other configs
                    row = ConfigResult(config=config.name, split=split, params=dict(config.params),
                                       correct=False, error=f"evaluator: {type(exc).__name__}: {exc}")
                    traceback.print_exc()
                evaluation.configs.append(row)
    return evaluation
