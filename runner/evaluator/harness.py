"""The evaluation of one candidate, read top to bottom (docs/evaluation.md explains every step):

0. before the candidate exists: the task's files are hashed, its configs read, the reference imported
   and run once; the guard captures the identity of everything the harness relies on;
1. static checks  the candidate's sources (AST for Python, tokens for C/C++) -> flags;
2. compile gate   build (or import) the candidate from the pristine task plus its editable files;
                  the guard verifies nothing was patched by the import;
3. correctness    per config: several seeds of fresh inputs, then outlier inputs; per seed
                  candidate -> reference -> candidate (so no reference output exists while the
                  candidate first runs), inputs checked unchanged, outputs checked for type, dtype,
                  shape, strides, aliasing, NaN and values, native outputs poisoned differently on
                  each run, the two candidate runs must agree;
4. performance    baseline vs candidate (timing.py), then the timed call is checked twice: the
                  output of the last timed repetition, and one more repetition through the same
                  code path after the inputs were refreshed in place with new values;
5. flags          dynamic findings (no kernel launched, PyTorch computing for a Triton candidate,
                  excessive speedup, escaped work, patched harness, threads, task files changed).

Imports only torch/triton/numpy and the standard library: it runs inside evaluation containers.
"""
from __future__ import annotations

import io
import math
import os
import random
import shutil
import tempfile
import traceback
from pathlib import Path

from ..configspace import SPLIT as SPLIT_DRAWN
from ..result import MAX_SPEEDUP, ConfigResult, Evaluation
from ..task import Config, Task
from . import static_checks, timing
from .build import (CompileError, Kernel, compile_native, device_arch, import_module, load_native,
                    load_python, poison)
from .gpulock import exclusive_device
from .guard import (LaunchCounter, Sentinel, StreamWatch, Tampered, ThreadWatch, TorchOpWatch, foreign_work, kernels,
                    task_digest)

CORRECTNESS_SEEDS = {"gpu": (0, 1, 2, 3, 4), "cpu": (0, 1)}   # KernelBench uses 5 trials
OUTLIER_SEEDS = {"gpu": (100, 101), "cpu": (100,)}
WARMUP_SEED, BASELINE_SEED, TIMING_SEED, RECHECK_SEED = 900, 1000, 2000, 3000
OUTLIER_FRACTION, OUTLIER_SCALE = 0.001, 50.0                  # KernelBench-X: 0.1 % of entries x50
PERTURBATION = 2.0 ** -9                                        # per-repetition input scaling
ESCAPED_MIN_MS, ESCAPED_REL = 0.02, 0.5                         # gap excess that flags escaped work


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


def static_flags(task: Task, tree: Path, fp32_task: bool) -> list[str]:
    flags = []
    for rel in task.editable:
        path = tree / rel
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        if path.suffix == ".py":
            flags += static_checks.check_python(text, custom_kernel=True, fp32_task=fp32_task, filename=rel)
        elif path.suffix in (".cu", ".hip", ".cuh", ".h", ".hpp", ".cpp", ".cc"):
            found = static_checks.check_native(text, fp32_task=fp32_task, filename=rel)
            if rel != task.entry:  # only the entry must hold the kernel itself
                found = [f for f in found if not f.startswith("no_custom_kernel")]
            flags += found
    return flags


def _seed(config: Config, seed: int) -> int:
    return (sum(config.name.encode()) * 1_000_003 + seed) % (2**31)


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _clone(args):
    import torch
    return [a.clone() if isinstance(a, torch.Tensor) else a for a in args]


def _same_inputs(before, after) -> bool:
    import torch
    if len(before) != len(after):
        return False
    for b, a in zip(before, after):
        if isinstance(b, torch.Tensor):
            if not isinstance(a, torch.Tensor) or a.shape != b.shape or a.dtype != b.dtype:
                return False
            if not torch.equal(b, a) and not (b.is_floating_point() and
                                              torch.equal(b.isnan(), a.isnan()) and
                                              torch.equal(b.nan_to_num(0.0), a.nan_to_num(0.0))):
                return False
        elif b != a:
            return False
    return True


def add_outliers(args: list, generator) -> list:
    """KernelBench-X's outlier stage: 0.1 % (at least one) of every float input's entries x50."""
    import torch
    for a in args:
        if isinstance(a, torch.Tensor) and a.is_floating_point() and a.numel() and a.is_contiguous():
            k = max(1, round(a.numel() * OUTLIER_FRACTION))
            # drawn with replacement: a full permutation of 10^7 indices costs a second per stage
            idx = torch.randint(a.numel(), (k,), generator=generator).to(a.device)
            flat = a.view(-1)
            flat[idx] = flat[idx] * OUTLIER_SCALE
    return args


class Frozen:
    """A candidate's or the reference's outputs, copied to host memory, with what was checked."""

    def __init__(self, tensors, strides, device):
        self.tensors, self.strides, self.device = tensors, strides, device

    def amax(self) -> float:
        vals = [float(t.abs().max()) for t in self.tensors if t.numel() and t.is_floating_point()]
        vals = [v for v in vals if not math.isnan(v)]
        return max(vals) if vals else 0.0


def freeze(out, args=(), expect_n: int | None = None) -> Frozen:
    """Type checks first (nothing of a subclass runs), then a host copy."""
    import torch
    outs = _as_tuple(out)
    if expect_n is not None and len(outs) != expect_n:
        raise Mismatch(f"returned {len(outs)} outputs, expected {expect_n}")
    inputs = {a.untyped_storage().data_ptr() for a in args
              if type(a) is torch.Tensor and a.untyped_storage().nbytes()}
    seen = set()
    for i, o in enumerate(outs):
        if type(o) is not torch.Tensor:  # subclasses and lazy objects can defer work past the check
            raise Mismatch(f"output {i} is a {type(o).__name__}, not a torch.Tensor")
        ptr = o.untyped_storage().data_ptr() if o.untyped_storage().nbytes() else None
        if ptr is not None and ptr in inputs:
            raise Mismatch(f"output {i} is (a view of) an input, not a new tensor")
        if ptr is not None and ptr in seen:
            raise Mismatch(f"output {i} shares memory with another output")
        seen.add(ptr)
    return Frozen([o.detach().to("cpu", copy=True) for o in outs], [tuple(o.stride()) for o in outs],
                  [o.device.type for o in outs])


def _relevant_strides(shape, stride):
    return tuple(s for n, s in zip(shape, stride) if n > 1)


def compare(task: Task, got: Frozen, expected: Frozen, atol_scale: float = 1.0, what: str = "") -> float:
    """Max abs error; raises Mismatch when count, dtype, shape, strides, device, NaN or values differ."""
    import torch
    if len(got.tensors) != len(expected.tensors):
        raise Mismatch(f"returned {len(got.tensors)} outputs, expected {len(expected.tensors)}")
    worst = 0.0
    for i, (g, e) in enumerate(zip(got.tensors, expected.tensors)):
        if g.shape != e.shape:
            raise Mismatch(f"output {i} shape {tuple(g.shape)} != {tuple(e.shape)}")
        if g.dtype != e.dtype:
            raise Mismatch(f"output {i} dtype {g.dtype} != {e.dtype}")
        if got.device[i] != expected.device[i]:
            raise Mismatch(f"output {i} on {got.device[i]}, expected {expected.device[i]}")
        if _relevant_strides(g.shape, got.strides[i]) != _relevant_strides(e.shape, expected.strides[i]):
            raise Mismatch(f"output {i} strides {got.strides[i]} != {expected.strides[i]} "
                           "(return the reference's layout)")
        tol = task.tolerance(str(e.dtype).removeprefix("torch."))
        atol = tol.atol * atol_scale
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


def _fast_close(g, e, rtol: float, atol: float) -> float | None:
    """The max abs error when every element satisfies |g - e| <= atol + rtol * |e| and nothing is
    NaN; None otherwise (the exact float64 path then finds and words the failure). Five passes in
    the outputs' own float precision instead of twenty in float64: outputs of tens of millions of
    elements are compared on the host dozens of times per config."""
    import torch
    if not (g.is_floating_point() and e.is_floating_point()) or g.dtype == torch.float64 or not g.numel():
        return None
    # fp16/bf16 in float32; float32 stays (the difference of two close float32 values is exact)
    g32, e32 = g.float(), e.float()
    diff = torch.sub(g32, e32).abs_()
    bound = e32.abs().mul_(rtol).add_(atol)
    if not bool(diff.le(bound).all()):     # NaN in either side compares False: slow path
        return None
    return float(diff.max())


def _dump(frozen: Frozen) -> bytes:
    """Reference outputs kept as bytes while the candidate runs: no tensor object to find."""
    import torch
    buf = io.BytesIO()
    torch.save((frozen.tensors, frozen.strides, frozen.device), buf)
    return buf.getvalue()


def _load(blob: bytes) -> Frozen:
    import torch
    tensors, strides, device = torch.load(io.BytesIO(blob), weights_only=True)
    return Frozen(tensors, strides, device)


class Evaluator:
    def __init__(self, task: Task, device: str, reference_module, *, language: str | None = None,
                 fp32_task: bool = False, regime: str = "cold", graph: bool = False,
                 max_speedup: float = MAX_SPEEDUP,
                 sentinel: Sentinel | None = None):
        self.task, self.device = task, device
        self.torch_device = "cpu" if device == "cpu" else "cuda"
        self.ref = reference_module
        kind = "cpu" if device == "cpu" else "gpu"
        self.seeds, self.outlier_seeds = CORRECTNESS_SEEDS[kind], OUTLIER_SEEDS[kind]
        self.language = language or task.language
        self.regime, self.graph, self.max_speedup = regime, graph, max_speedup
        self.sentinel = sentinel
        # OS threads are watched for native kernels only: Python threads are seen directly, and
        # Triton/PyTorch may start runtime threads lazily at any call (see ThreadWatch).
        self.threads = ThreadWatch(os_threads=self.language != "triton")
        self.ops = TorchOpWatch(fp32_task) if self.language == "triton" else None
        self.calls = self.no_launch_calls = 0
        self.replaying = False          # timed calls are CUDA-graph replays (no Triton launcher runs)
        self.flags: list[str] = []
        self.row_notes: list[str] = []  # notes about the config being timed, moved into its row
        self._clock = None
        self.streams: StreamWatch | None = None     # GPU only, made with the clock
        self._watch_pick = random.SystemRandom()    # which call is watched: nothing the candidate can seed

    # -- inputs and reference ------------------------------------------------------------------
    def inputs(self, config: Config, seed: int, outliers: bool = False) -> list:
        import torch
        gen = torch.Generator().manual_seed(_seed(config, seed))
        args = list(self.ref.make_inputs(dict(config.params), gen, self.torch_device))
        return add_outliers(args, gen) if outliers else args

    def output_spec(self, args):
        """Shapes and dtypes of the reference's outputs without computing them: the reference on
        the meta device; if it cannot run there, on a copy whose outputs are poisoned at once."""
        import torch
        try:
            meta = [a.to("meta") if isinstance(a, torch.Tensor) else a for a in args]
            spec = _as_tuple(self.ref.reference(*meta))
            if all(isinstance(t, torch.Tensor) for t in spec):
                return spec
        except Exception:
            pass
        real = _as_tuple(self.ref.reference(*_clone(args)))
        spec = tuple(torch.empty_like(t, device="meta") for t in real)
        for t in real:
            poison(t)
        del real
        return spec

    def expected(self, pristine) -> Frozen:
        out = self.ref.reference(*_clone(pristine))
        frozen = freeze(out)
        del out
        return frozen

    def sync(self) -> None:
        if self.device != "cpu":
            import torch
            torch.cuda.synchronize()

    # -- one guarded candidate call --------------------------------------------------------------
    def _before(self, name="candidate"):
        if name != "candidate":
            return None
        return self.threads.before(), LaunchCounter.count

    def _after(self, name, token, out=None):
        if name != "candidate":
            return
        thread_token, launches = token
        self.threads.after(thread_token)
        if self.sentinel is not None:
            self.sentinel.verify("during a candidate call")
        self.calls += 1
        if self.language == "triton" and LaunchCounter.count == launches and not self.replaying:
            self.no_launch_calls += 1

    def call(self, kernel: Kernel, args, state):
        token = self._before()
        try:
            if self.ops is not None:
                with self.ops.observe():
                    out = kernel.run(args, state)
            else:
                out = kernel.run(args, state)
            self.sync()
        except (Tampered, Mismatch):
            raise
        except Exception as exc:
            raise Mismatch(f"raised {type(exc).__name__}: {str(exc)[:300]}") from None
        self._after("candidate", token, out)
        return out

    # -- correctness -----------------------------------------------------------------------------
    def check_baseline(self, baseline: Kernel, config: Config) -> float:
        args = self.inputs(config, BASELINE_SEED)
        pristine = _clone(args)
        state = baseline.prepare(args, self.output_spec(args))
        try:
            out = baseline.run(args, state)
            self.sync()
        except Exception as exc:
            raise Mismatch(f"raised {type(exc).__name__}: {str(exc)[:300]}") from None
        got = freeze(out, args)
        if not _same_inputs(pristine, args):
            raise Mismatch("modified its inputs")
        return compare(self.task, got, self.expected(pristine))

    def check(self, kernel: Kernel, config: Config) -> float:
        """Candidate -> reference -> candidate on fresh inputs per seed, then on outlier inputs."""
        worst, scale_ref = 0.0, 0.0
        stages = [(s, False) for s in self.seeds] + [(s, True) for s in self.outlier_seeds]
        for seed, outliers in stages:
            what = f" (outlier inputs, seed {seed})" if outliers else f" (seed {seed})"
            args = self.inputs(config, seed, outliers)
            pristine = _clone(args)
            spec = self.output_spec(args)
            # 1. the candidate first: no reference output for these inputs exists anywhere yet
            out = self.call(kernel, args, kernel.prepare(args, spec, pattern=0))
            first = freeze(out, args, expect_n=len(spec))
            del out
            if not _same_inputs(pristine, args):
                raise Mismatch("modified its inputs")
            # 2. the reference, on a clone of the untouched inputs
            expected = self.expected(pristine)
            amax = expected.amax()
            if not outliers:
                scale_ref = max(scale_ref, amax)
            # An outlier's x50 propagates into outputs (and into the rounding error of sums over
            # it): absolute tolerance scales with the output's magnitude relative to the standard
            # stage, never below the task's own.
            atol_scale = max(1.0, amax / scale_ref) if outliers and scale_ref > 0 else 1.0
            worst = max(worst, compare(self.task, first, expected, atol_scale, what))
            # 3. the candidate again: fresh copies, outputs poisoned with another pattern
            args2 = _clone(pristine)
            out = self.call(kernel, args2, kernel.prepare(args2, spec, pattern=1))
            second = freeze(out, args2, expect_n=len(spec))
            del out
            if not _same_inputs(pristine, args2):
                raise Mismatch("modified its inputs")
            compare(self.task, second, expected, atol_scale, f" on the second run{what}")
            try:
                compare(self.task, second, first, atol_scale)
            except Mismatch as exc:
                raise Mismatch(f"two runs on the same inputs disagree{what}: {exc}") from None
        return worst

    # -- performance -----------------------------------------------------------------------------
    def clock(self):
        if self._clock is None:
            self._clock = timing.make_clock(self.device, self.regime, self.graph)
            if self.device == "cuda":
                self.streams = StreamWatch()
            elif self.device != "cpu":   # no AMD GPU has shown what roctracer reports as a stream
                self.flags.append("note: stream watch off on ROCm (its profiler's stream ids are unverified)")
        return self._clock

    def _watch_unavailable(self, exc: Exception) -> None:
        """The profiler failed: recorded as a note, nothing flagged, no further watching."""
        self.flags.append(f"note: stream watch unavailable ({type(exc).__name__}: {str(exc)[:100]})")
        self.streams = None

    def start_watch(self) -> None:
        try:
            self.streams.start()
        except Exception as exc:
            self._watch_unavailable(exc)

    def stop_watch(self, config: Config) -> None:
        try:
            foreign = foreign_work(self.streams.stop())
        except Exception as exc:
            self._watch_unavailable(exc)
            return
        if foreign:
            names = ", ".join(sorted({name[:40] for name, _ in foreign})[:3])
            self.flags.append(f"stream_injection: {len(foreign)} device operation(s) of a candidate call on "
                              f"{config.name} ran on a stream other than the harness's ({names})")

    def time(self, baseline: Kernel, candidate: Kernel, config: Config):
        import torch
        clock = self.clock()
        args_t = self.inputs(config, TIMING_SEED)
        spec = self.output_spec(args_t)
        base_args, cand_args, shadow = args_t, _clone(args_t), _clone(args_t)
        base_state = baseline.prepare(base_args, spec)
        cand_state = candidate.prepare(cand_args, spec)
        last = {}
        rng = random.Random(_seed(config, TIMING_SEED))

        def refresh(name):
            # Every repetition sees new input values: each float input is scaled in place by a
            # random factor within 2^-9 of 1 (outside the timed span, baseline and candidate alike),
            # so a result memoised on any function of the inputs -- pointer, shape, a sample of
            # the values -- never hits. Integer inputs are left alone (indices, sizes).
            factor = 1.0 + PERTURBATION * (2.0 * rng.random() - 1.0)
            targets = base_args if name == "baseline" else (*cand_args, *shadow)
            for a in targets:
                if isinstance(a, torch.Tensor) and a.is_floating_point():
                    a.mul_(factor)

        # One of the candidate's warm-up calls (they go through the same flush, spin and events as
        # the timed repetitions) runs under the stream watch.
        watch_at = self._watch_pick.randrange(timing.WARMUP_CALLS) if self.streams else -1
        candidate_calls = 0

        def before(name):
            nonlocal candidate_calls
            if name == "candidate":
                if candidate_calls == watch_at:
                    self.start_watch()    # before the thread snapshot: the profiler's threads are not the candidate's
                candidate_calls += 1
            return self._before(name)

        def after(name, token, out):
            try:
                self._after(name, token, out)
            finally:
                if self.streams is not None and self.streams.watching:
                    self.stop_watch(config)
            # Both outputs are held until the next call of their kernel, so both allocate from
            # the caching allocator alike (same reuse pattern, same address churn).
            last[name] = out

        calls = {"baseline": lambda: baseline.run(base_args, base_state),
                 "candidate": lambda: candidate.run(cand_args, cand_state)}
        if clock.graph:
            calls, note = self.captured(calls)
            if note:
                self.row_notes.append(note)
        try:
            timed = timing.time_pair(calls, clock, before=before, after=after, refresh=refresh)
        finally:
            self.replaying = False
            if self.streams is not None and self.streams.watching:   # the watched call raised
                self.stop_watch(config)
        # (a) the output of the last timed repetition itself, against the reference computed now
        got = freeze(last.pop("candidate"), cand_args, expect_n=len(spec))
        last.clear()
        if not _same_inputs(shadow, cand_args):
            raise Mismatch("modified its inputs during timing")
        compare(self.task, got, self.expected(shadow), what=" (last timed call)")
        del got
        # (b) one more repetition through the same code path, on the same buffers refreshed in
        # place with new values, outputs poisoned: a result cached by pointer, id or shape, or
        # memory recycled from the baseline's last call, is stale now; the reference for these
        # values is computed only after the call.
        fresh = self.inputs(config, RECHECK_SEED)
        for i, (a, f) in enumerate(zip(cand_args, fresh)):
            if isinstance(a, torch.Tensor):
                a.copy_(f)
            else:
                cand_args[i] = f
        pristine2 = _clone(fresh)
        del fresh
        replay = getattr(calls["candidate"], "output", None) is not None
        for out in (_as_tuple(calls["candidate"].output) if replay else cand_state or ()):
            poison(out, 1)       # a graph's output buffers are rewritten by every replay
        token = self._before()
        self.replaying = replay
        try:
            _, _, out = clock.once(calls["candidate"])
            self._after("candidate", token, out)
        finally:
            self.replaying = False
        got = freeze(out, cand_args, expect_n=len(spec))
        del out
        compare(self.task, got, self.expected(pristine2), what=" (timed call, refreshed inputs)")
        return timed["baseline"], timed["candidate"]

    def captured(self, calls: dict) -> tuple[dict, str | None]:
        """Both calls as CUDA-graph replays, or both eager (with a note saying why) when either
        cannot be captured: baseline and candidate are always timed the same way."""
        replays = {}
        for name, fn in calls.items():
            token = self._before(name)
            try:
                replays[name] = self.clock().capture(fn)
            except Exception as exc:
                return calls, (f"note: CUDA-graph capture of the {name} failed ({type(exc).__name__}: "
                               f"{str(exc)[:120]}); both timed with eager calls")
            finally:
                self._after(name, token)   # the capture ran candidate code: same guards as a call
        self.replaying = True
        return replays, None

    def native_launch_check(self, candidate: Kernel, config: Config) -> None:
        """GPU only: the profiler must see at least one device kernel during a native call."""
        if self.device == "cpu" or self.language == "triton":
            return
        args = self.inputs(config, WARMUP_SEED)
        state = candidate.prepare(args, self.output_spec(args))
        try:
            watch = StreamWatch()
            watch.start()
            candidate.run(args, state)
            launched = kernels(watch.stop())
        except Exception as exc:  # the profiler is unavailable: record, do not flag
            self.flags.append(f"note: kernel-launch profiler unavailable ({type(exc).__name__})")
            return
        if not launched:
            self.flags.append("no_kernel_launch: the profiler saw no device kernel during a candidate call")

    def config_result(self, baseline: Kernel, candidate: Kernel | None, config: Config,
                      measure: bool) -> ConfigResult:
        row = ConfigResult(config=config.name, split=config.split, params=dict(config.params),
                           correct=False)
        try:
            self.check_baseline(baseline, config)
            row.baseline_correct = True
        except Mismatch as exc:
            row.baseline_correct = False
            row.error = f"baseline: {exc}"
        if candidate is None:
            row.error = row.error or "not compiled"
            return row
        try:
            row.max_abs_err = self.check(candidate, config)
            row.correct = True
        except Mismatch as exc:
            row.error = str(exc)
            return row
        if measure and row.baseline_correct:
            try:
                base, cand = self.time(baseline, candidate, config)
            except Mismatch as exc:
                row.correct, row.error = False, f"timed call: {exc}"
                return row
            row.flags += self.row_notes
            self.row_notes.clear()
            row.baseline_ms, row.candidate_ms = base.median_ms, cand.median_ms
            row.baseline_iqr_ms, row.candidate_iqr_ms = base.iqr_ms, cand.iqr_ms
            row.baseline_cv, row.candidate_cv = round(base.cv, 4), round(cand.cv, 4)
            row.timing_samples = cand.samples
            row.escaped_reps = cand.escaped
            excess = cand.gap_ms - base.gap_ms
            if excess > max(ESCAPED_MIN_MS, ESCAPED_REL * cand.median_ms):
                row.flags.append(f"stream_injection: the candidate's device-sync gap exceeds the baseline's by "
                                 f"{excess * 1000:.0f} us (work outside the current stream)")
                row.candidate_ms = cand.median_ms + excess   # timed as if it had synchronized
            if row.candidate_ms > 0 and math.isfinite(row.candidate_ms):
                row.speedup = row.baseline_ms / row.candidate_ms
                if row.speedup > self.max_speedup and config.split == SPLIT_DRAWN:
                    # The task author vetted the seen and hidden configs, not a drawn shape, where the
                    # baseline itself can be pathological (an H100 run: a one-row-per-program softmax
                    # on 3.8M rows x 3 columns, 216x behind the shipped solution).
                    row.flags.append(f"note: {row.speedup:.1f}x > {self.max_speedup:g}x on drawn config "
                                     f"{config.name} (not flagged on drawn configs; capped in aggregates)")
                elif row.speedup > self.max_speedup:
                    row.flags.append(f"excessive_speedup: {row.speedup:.1f}x > {self.max_speedup:g}x "
                                     f"on {config.name}")
        return row

    def dynamic_flags(self) -> list[str]:
        flags = list(self.flags)
        if self.language == "triton" and self.no_launch_calls:
            flags.append(f"no_kernel_launch: {self.no_launch_calls} of {self.calls} candidate calls "
                         "launched no Triton kernel")
        if self.ops is not None:
            if self.ops.compute:
                flags.append("torch_fallback: PyTorch computed " + ", ".join(sorted(self.ops.compute)[:6]))
            if self.ops.downgrade:
                flags.append("precision_downgrade: " + ", ".join(sorted(self.ops.downgrade)[:4]))
        return flags


def _warm_up(reference, task: Task, device: str) -> bool:
    """Run the reference once before any candidate code exists (lazy runtime threads and pools
    start now, not during a candidate call); returns whether the task is float32-only."""
    import torch
    torch_device = "cpu" if device == "cpu" else "cuda"
    configs = task.configs("seen")
    gen = torch.Generator().manual_seed(_seed(configs[0], WARMUP_SEED))
    args = list(reference.make_inputs(dict(configs[0].params), gen, torch_device))
    outs = _as_tuple(reference.reference(*_clone(args)))
    torch.ones(1 << 20).add_(1).sum()  # the intra-op thread pool
    try:  # modules that patch torch when first imported (torch._dynamo wraps torch.manual_seed)
        import torch._dynamo  # noqa: F401
        import torch.profiler  # noqa: F401
        reference.reference(*[a.to("meta") if isinstance(a, torch.Tensor) else a for a in args])
    except Exception:
        pass
    if device != "cpu":
        torch.cuda.synchronize()
        try:  # the profiler's first start (CUPTI, its threads) happens now, not in a candidate call
            watch = StreamWatch()
            watch.start()
            watch.stop()
        except Exception:
            pass
    floats = {str(t.dtype).removeprefix("torch.") for t in (*args, *outs)
              if isinstance(t, torch.Tensor) and t.is_floating_point()}
    return bool(floats) and floats <= {"float32", "float64"}


def evaluate(task: Task, candidate_dir: Path | None, device: str, splits=("seen", "unseen"),
             measure: bool = True, regime: str = "cold", graph: bool = False,
             max_speedup: float = MAX_SPEEDUP, drawn: list[Config] = (),
             baseline_only: bool = False) -> Evaluation:
    """Evaluate the candidate whose editable files are in `candidate_dir` (None: the task as shipped).
    The split "drawn" holds the `drawn` configs (runner/configspace.py); `baseline_only` checks only
    the baseline (per-config `baseline_correct`): the filter that drawn configs go through."""
    if device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is first imported
    evaluation = Evaluation(device=device, compiled=False, timing_meaningful=device != "cpu",
                            timing_method=timing.method(device, regime, graph), timing_regime=regime,
                            max_speedup=max_speedup)
    digest_before = task_digest((task.root, *task.bases))
    configs = {split: list(drawn) if split == "drawn" else task.configs(split)
               for split in splits}   # read before any candidate code runs
    with tempfile.TemporaryDirectory(prefix="gauntlet-eval-") as tmp, exclusive_device(device) as held:
        tmp = Path(tmp)
        reference = import_module(task.reference, "gauntlet_reference")
        fp32_task = _warm_up(reference, task, device)
        if task.language == "triton":
            import triton  # noqa: F401  (before the sentinel: its classes are part of what is trusted)
            LaunchCounter.install()
        arch = None if task.language == "triton" else device_arch(device)
        if task.baseline_is_reference:
            baseline = Kernel(name="baseline", python_fn=reference.reference)
        else:
            baseline, _ = build_kernel(task, candidate_tree(task, None, tmp / "baseline"),
                                       device, "baseline", arch)
        harness = Evaluator(task, device, reference, fp32_task=fp32_task, regime=regime, graph=graph,
                            max_speedup=max_speedup)
        if harness.ops is not None:  # the first dispatch mode imports (and patches) lazily: do it now
            import torch
            with harness.ops.observe():
                torch.zeros(1).add_(1)
            harness.ops.compute.clear()
        if measure:
            harness.clock()          # the timer's buffers and captured functions, before the candidate
        sentinel = harness.sentinel = Sentinel(extra={"gauntlet_reference": reference})
        tree = candidate_tree(task, candidate_dir, tmp / "candidate")
        flags = static_flags(task, tree, fp32_task)
        candidate = None
        tampered = None
        if baseline_only:
            evaluation.compile_log = "baseline only: no candidate was evaluated"
        else:
            try:
                candidate, evaluation.compile_log = build_kernel(task, tree, device, "candidate", arch)
                evaluation.compiled = True
                sentinel.verify("by importing the candidate")
            except CompileError as exc:
                evaluation.compile_log = str(exc)[-8000:]
            except Tampered as exc:
                tampered = exc
        for split in splits:
            for config in configs[split]:
                if tampered is not None:
                    evaluation.configs.append(ConfigResult(
                        config=config.name, split=split, params=dict(config.params), correct=False,
                        error=f"tampered: {tampered}"))
                    continue
                try:
                    row = harness.config_result(baseline, candidate, config, measure)
                except Tampered as exc:
                    tampered = exc
                    row = ConfigResult(config=config.name, split=split, params=dict(config.params),
                                       correct=False, error=f"tampered: {exc}")
                except Exception as exc:  # the harness itself must not lose the other configs
                    row = ConfigResult(config=config.name, split=split, params=dict(config.params),
                                       correct=False, error=f"evaluator: {type(exc).__name__}: {exc}")
                    traceback.print_exc()
                evaluation.configs.append(row)
        if candidate is not None and tampered is None and evaluation.configs:
            try:
                harness.native_launch_check(candidate, configs[splits[0]][0])
            except Tampered as exc:
                tampered = exc
            except Exception:
                traceback.print_exc()
        flags += harness.dynamic_flags()
        if held:
            flags.append(held)
        if tampered is not None:
            flags.append(str(tampered))
        sentinel.restore()
    changed = [p for p, h in task_digest((task.root, *task.bases)).items() if digest_before.get(p) != h]
    changed += [p for p in digest_before if not Path(p).exists()]
    if changed:
        flags.append("tampered_task_files: " + ", ".join(sorted({Path(p).name for p in changed})[:5]))
    for row in evaluation.configs:
        flags += row.flags
    evaluation.flags = list(dict.fromkeys(f for f in flags if not f.startswith("note:")))
    evaluation.notes = [f for f in flags if f.startswith("note:")]
    return evaluation
