"""The clocks a kernel runner times its repetitions with. They run in the candidate's process, so a
candidate can rewrite them: the judge believes no sample on its own (timing.py: what it makes of
them; judge/rounds.py: its own wall clock over every batch, and the time bound).

One repetition on a GPU (`GpuClock.once`):

  flush; spin; start.record(); fn(); end.record(); torch.cuda.synchronize(); end2.record(); end2.synchronize()

`start..end` is the tight time of the work ordered on the current stream. The sample is that span
less the median span of an empty pair (`start.record(); end.record()` with nothing between,
calibrated at start-up: 1.25 us on an H100), i.e. the time the call adds to the stream. Nsight
Compute's `gpu__time_duration` excludes the event pair's own cost; without the subtraction every
event time read about 1 us above it (+4.5 % on a 21 us kernel); with it, single-kernel calls of
20 us or more agree within -1.7 % to +2.4 % (results/h100-2026-11-23b.md). Baseline and candidate get the same
subtraction. The flush and the spin
(a device-side busy wait of twice the host launch time seen in warm-up, one pad for both kernels)
keep the GPU busy while the CPU launches, so host launch cost is hidden the same way for both.
`start..end2` also spans the device-wide synchronize, so it includes work the candidate left on a
side stream (or that another thread launched) after `end`. Its overhead over `start..end` for an
honest call (the *gap*, the synchronize round trip plus one event launch) is recorded per repetition. The
sample is always from the tight span, so an honest tiny, launch-bound kernel pays nothing extra. The
harness compares the candidate's median gap with the baseline's: work escaping the current stream
widens the candidate's gap by its own duration; then the config is flagged and the candidate's time
becomes its tight time plus the excess gap (as if it had synchronized). A first H100 run showed the
gap of honest kernels varies (sync wake-up latency), so a fixed calibrated threshold is not used as
the flag rule; `escaped` (reps above the empty-call p95) is recorded for information only.
"""
from __future__ import annotations

import statistics
import time

from runner.evaluator.timing import (EVENT_RESOLUTION_MS, L2_FLUSH_BYTES, LAUNCH_COVER_KINDS, LAUNCH_COVER_MAX_MS,
                                     REGIMES)

CPU_FLUSH_BYTES = 4 * 1024 * 1024     # evicts a CPU L2; CPU times are not meaningful anyway
TAIL_CALIBRATION_REPS = 50
ESCAPED_SLACK_MS = 0.005             # above the calibrated tail's p95: noise, not escaped work

_perf_counter = time.perf_counter     # captured before any candidate is imported


class CpuClock:
    meaningful = False
    graph = False                     # no CUDA graphs on the CPU: calls are always eager

    def __init__(self, regime: str = "cold"):
        import torch
        self.regime = regime
        self.buffer = torch.empty(CPU_FLUSH_BYTES // 4, dtype=torch.int32)
        self.flushes = 0

    def flush(self) -> None:
        if self.regime == "cold":
            self.buffer.fill_(self.flushes)
            self.flushes += 1

    def once(self, fn):
        """One repetition: returns (sample_ms, escaped, output)."""
        self.flush()
        t0 = _perf_counter()
        out = fn()
        return (_perf_counter() - t0) * 1000.0, 0.0, out


class GpuClock:
    meaningful = True

    def __init__(self, regime: str = "cold", graph: bool = False, flush_bytes: int = L2_FLUSH_BYTES):
        import torch
        self.torch = torch
        self.regime, self.graph = regime, graph
        self._sync = torch.cuda.synchronize
        self._graph_cls, self._graph_ctx = torch.cuda.CUDAGraph, torch.cuda.graph
        self._stream_cls, self._stream_ctx = torch.cuda.Stream, torch.cuda.stream
        self._current_stream = torch.cuda.current_stream
        self._event = torch.cuda.Event
        self._record = torch.cuda.Event.record
        self._elapsed = torch.cuda.Event.elapsed_time
        self._event_sync = torch.cuda.Event.synchronize
        self.buffer = torch.ones(flush_bytes // 4, dtype=torch.int32, device="cuda")
        # Reads 256 MB and writes 4 B: int32 words summed as int32 (an int64 sum of them has PyTorch
        # cast the whole buffer first, a 512 MB copy: 0.23 of the flush's 0.40 ms on an H200)
        sink, reduce, int32 = torch.zeros((), dtype=torch.int32, device="cuda"), torch.sum, torch.int32
        self._read_buffer = lambda: reduce(self.buffer, 0, dtype=int32, out=sink)
        self.start, self.end, self.end2 = (self._event(enable_timing=True) for _ in range(3))
        self.flushes = 0
        self.tail_ms, self.tail_limit_ms = 0.0, ESCAPED_SLACK_MS
        self.spin = getattr(torch.cuda, "_sleep", None)   # busy-waits N device clock cycles
        self.spin_cycles = 0
        self.host_ms = 0.0                                  # host time of the last call's launch
        self.gate_error: str | None = None
        self.gate = self._launch_gate()
        # The device trace's brackets (devtrace.py), where the judge asked for a trace: an end
        # marker after each call's end event (compiled now, so that no call waits on it) and a
        # batch marker at each batch's edges (never launched outside a batch: the judge pairs them).
        from runner.evaluator.devtrace import active_in_runner
        self.marking = self.gate is not None and active_in_runner()
        if self.marking:
            self.gate.mark_end()
            self._sync()
        self.calibrate()

    def flush(self) -> None:
        if self.regime == "cold":
            self._read_buffer()
            self.flushes += 1

    def _launch_gate(self):
        """The launch gate (launch_gate.py), or None where it cannot work here (the spin pad then
        covers launches). GAUNTLET_LAUNCH_GATE=0 turns it off (a diagnosis aid)."""
        import os
        if os.environ.get("GAUNTLET_LAUNCH_GATE", "1") == "0":
            return None
        try:
            from runner.evaluator.launch_gate import LaunchGate
            return LaunchGate(self.torch)
        except Exception as exc:      # no Triton, or a gate that does not hold: keep the pad
            self.gate_error = f"{type(exc).__name__}: {str(exc)[:200]}"
            return None

    def _raw(self, fn):
        self.flush()
        gate = self.gate
        if gate is not None:
            gate.close_and_launch()
        elif self.spin_cycles:
            self.spin(self.spin_cycles)
        self._record(self.start)
        t0 = _perf_counter()
        try:
            out = fn()
        finally:
            self.host_ms = (_perf_counter() - t0) * 1000.0
            self._record(self.end)
            if self.marking:
                gate.mark_end()
            if gate is not None:
                gate.open()        # every launch of the call is queued: the device may run them now
        self._sync()               # device-wide: every stream, every launch made so far
        self._record(self.end2)
        self._event_sync(self.end2)
        return self._elapsed(self.start, self.end), self._elapsed(self.start, self.end2), out

    def calibrate(self) -> None:
        tails, empties = [], []
        for _ in range(TAIL_CALIBRATION_REPS):
            tight, synced, _ = self._raw(lambda: None)
            tails.append(max(0.0, synced - tight))
            empties.append(tight)
        tails.sort()
        self.empty_ms = statistics.median(empties)       # start..end with nothing between
        self.tail_ms = statistics.median(tails)
        self.tail_limit_ms = tails[int(0.95 * (len(tails) - 1))] + ESCAPED_SLACK_MS
        self.cycles_per_ms = 0.0
        if self.spin is not None:
            probe = 1_000_000
            self._sync()
            self._record(self.start)
            self.spin(probe)
            self._record(self.end)
            self._event_sync(self.end)
            self.cycles_per_ms = probe / max(self._elapsed(self.start, self.end), 1e-3)

    def mark_batch(self) -> None:
        if self.marking:
            self.gate.mark_batch()

    @property
    def launch_cover(self) -> str:
        return LAUNCH_COVER_KINDS[0] if self.gate is not None else LAUNCH_COVER_KINDS[1]

    def gate_gave_up(self) -> int:
        """Gated calls since the last ask whose gate ran out before the host opened it."""
        return self.gate.take_gave_up() if self.gate is not None else 0

    def set_gate_wait(self, wait: bool) -> None:
        """The judge's word, per batch: whether the launch gate waits (launch_gate.LaunchGate.hold)."""
        if self.gate is not None:
            self.gate.hold(wait)

    def set_pad(self, pad_ms: float, cycles_per_ms: float | None = None) -> None:
        """The spin before every timed call, in ms. The judge picks one pad for both kernels and one
        cycles-per-ms figure (SM clock cycles: the same GPU for both), so both spin the same cycles;
        each runner calibrating its own would give each its own calibration error (seen on an H100:
        a spin too short in one process let its launcher's host time into its samples)."""
        rate = cycles_per_ms or self.cycles_per_ms
        if self.spin is not None and rate:
            self.spin_cycles = int(min(LAUNCH_COVER_MAX_MS, max(0.0, pad_ms)) * rate)

    def once(self, fn):
        """(sample, gap, output): the sample is the tight time less the empty pair's span; `gap` =
        start..end2 - start..end, compared by the harness with the baseline's gap (escaped work
        widens it)."""
        tight, synced, out = self._raw(fn)
        return max(EVENT_RESOLUTION_MS, tight - self.empty_ms), max(0.0, synced - tight), out

    def capture(self, fn):
        """A replay callable for one call of `fn` captured into a CUDA graph. The replay returns the
        captured output, which every replay rewrites; raises whatever capture raises (a call that
        synchronizes, copies to the host or allocates pinned memory cannot be captured)."""
        side = self._stream_cls()
        side.wait_stream(self._current_stream())
        with self._stream_ctx(side):      # the caching allocator and lazy init settle off-graph
            for _ in range(2):
                fn()
        self._current_stream().wait_stream(side)
        self._sync()
        graph = self._graph_cls()
        try:
            with self._graph_ctx(graph):
                out = fn()
        finally:
            self._sync()              # a failed capture must not leave work in flight

        def replay():
            graph.replay()
            return out
        replay.output = out
        replay.graph = graph
        return replay


def make_clock(device: str, regime: str = "cold", graph: bool = False):
    if regime not in REGIMES:
        raise ValueError(f"timing regime {regime!r} is not one of {REGIMES}")
    return CpuClock(regime) if device == "cpu" else GpuClock(regime, graph)
