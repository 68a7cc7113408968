"""Red team, timing and tampering side. The clocks run in the kernel runner, beside the candidate;
the judge believes them only as far as its own wall clock over each batch allows. Where a class
needs a GPU to manifest (stream injection, cold-L2 flushing) the mechanism is tested here with
recording fakes of the clock and the profiler, and the real thing runs on the H100
(bench/judge_gpu.py redteam, results/)."""
import pytest

from runner.evaluator import clock as clocks, guard, timing

from .conftest import C_HONEST, KERNEL, TIMED


# -- stream injection -----------------------------------------------------------------------------
STREAM_CHEAT = KERNEL + '''
_side = None


def forward(x, alpha):
    global _side
    if not torch.cuda.is_available():
        return honest(x, alpha)
    if _side is None:
        _side = torch.cuda.Stream()
    y = torch.empty_like(x)
    with torch.cuda.stream(_side):      # the events on the current stream see almost nothing
        _scale[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), alpha, BLOCK=1024)
    return y
'''


def test_stream_injection_is_flagged_statically(judge):
    v = judge(STREAM_CHEAT)
    assert v.flagged("stream_injection") and v.aka == 0 and v.bounded == 0, v.flags


class _RecordingTorch:
    def __init__(self, log):
        self.log = log


def _fake_gpu_clock(log, tight=0.010, synced=0.020, tail=0.004, empty=0.0):
    """A GpuClock without a GPU: its events, synchronize and flush record what happens, in order."""
    clock = object.__new__(clocks.GpuClock)
    clock.regime, clock.flushes = "cold", 0
    times = {}


    class Ev:
        def __init__(self, name):
            self.name = name

    def record(ev):
        log.append(f"record:{ev.name}")
        times[ev.name] = len(log)

    def elapsed(a, b):
        return tight if b.name == "end" else synced

    clock._read_buffer = lambda: log.append("flush")
    clock.start, clock.end, clock.end2 = Ev("start"), Ev("end"), Ev("end2")
    clock._record, clock._elapsed = record, elapsed
    clock._sync = lambda: log.append("device_synchronize")
    clock._event_sync = lambda ev: log.append(f"wait:{ev.name}")
    clock.tail_ms, clock.tail_limit_ms = tail, tail + clocks.ESCAPED_SLACK_MS
    clock.empty_ms = empty
    clock.spin = lambda cycles: log.append(f"spin:{cycles}")
    clock.spin_cycles, clock.cycles_per_ms, clock.host_ms = 0, 1000.0, 0.0
    clock.gate = None
    clock.marking = False  # no device trace here: the trace's markers are tested in test_devtrace
    return clock


class _FakeGate:
    def __init__(self, log):
        self.log = log

    def close_and_launch(self):
        self.log.append("gate:close")

    def open(self):
        self.log.append("gate:open")


def test_one_gpu_repetition_brackets_a_device_wide_synchronize():
    log = []
    clock = _fake_gpu_clock(log)
    clock.once(lambda: log.append("fn"))
    assert log == ["flush", "record:start", "fn", "record:end", "device_synchronize", "record:end2", "wait:end2"]


def test_the_launch_gate_holds_the_device_until_the_whole_call_is_queued():
    """With the launch gate the device waits, after the flush and before the start event, until the
    host has queued every launch of the call and the end event; it opens even when the call raises
    (a gate left closed would hold the stream until its give-up)."""
    log = []
    clock = _fake_gpu_clock(log)
    clock.gate = _FakeGate(log)
    clock.once(lambda: log.append("fn"))
    assert log == ["flush", "gate:close", "record:start", "fn", "record:end", "gate:open",
                   "device_synchronize", "record:end2", "wait:end2"]
    log.clear()

    def broken():
        raise RuntimeError("kernel failed")
    with pytest.raises(RuntimeError):
        clock.once(broken)
    assert log == ["flush", "gate:close", "record:start", "record:end", "gate:open"]


def test_the_gap_of_each_repetition_is_measured():
    sample, gap, _ = _fake_gpu_clock([], tight=0.001, synced=0.500).once(lambda: None)
    assert sample == pytest.approx(0.001) and gap == pytest.approx(0.499)


def test_the_sample_is_the_tight_span_less_the_empty_event_pair():
    """The event pair's own span (calibrated with nothing between) is not the kernel's time; the
    gap still compares raw spans, and no sample drops below the event resolution."""
    sample, gap, _ = _fake_gpu_clock([], tight=0.0300, synced=0.0400, empty=0.0012).once(lambda: None)
    assert sample == pytest.approx(0.0288) and gap == pytest.approx(0.0100)
    sample, _, _ = _fake_gpu_clock([], tight=0.0010, synced=0.0020, empty=0.0012).once(lambda: None)
    assert sample == timing.EVENT_RESOLUTION_MS


def test_device_work_reads_kineto_events_old_and_new():
    """The profiler events of this torch (with `activity_type`) and of torch 2.11 (without it: there
    the device type decides)."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    cuda = torch.autograd.DeviceType.CUDA
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        torch.ones(8).add_(1)
    events = prof.profiler.kineto_results.events()
    assert events and guard.device_work(events, cuda) == []       # real events, none of them device work

    class Old:                     # torch 2.11's event: no activity_type
        def __init__(self, corr, stream, name, device):
            self.corr, self.stream, self._name, self.device = corr, stream, name, device

        def correlation_id(self):
            return self.corr

        def device_resource_id(self):
            return self.stream

        def name(self):
            return self._name

        def device_type(self):
            return self.device

    class New(Old):
        def __init__(self, *args, kind):
            super().__init__(*args)
            self.kind = kind

        def activity_type(self):
            return self.kind

    cpu = torch.autograd.DeviceType.CPU
    old = [Old(5, 13, "side", cuda), Old(2, 7, "marker", cuda), Old(3, 99, "aten::add_", cpu)]
    assert guard.device_work(old, cuda) == [(2, 7, "marker"), (5, 13, "side")]
    new = [New(2, 7, "marker", cuda, kind="kernel"), New(4, 7, "Memset", cuda, kind="gpu_memset"),
           New(6, 0, "Context Sync", cuda, kind="cuda_sync")]
    assert guard.device_work(new, cuda) == [(2, 7, "marker"), (4, 7, "Memset")]


def test_foreign_work_is_work_off_the_markers_stream():
    activity = [(3, 7, "marker"), (5, 7, "flush"), (8, 7, "candidate_kernel"), (9, 13, "side_kernel"),
                (10, 13, "Memcpy DtoD")]
    assert guard.foreign_work(activity) == [("side_kernel", 13), ("Memcpy DtoD", 13)]
    assert guard.foreign_work([(3, 7, "marker"), (4, 7, "k")]) == []
    assert guard.kernels(activity) == ["flush", "candidate_kernel", "side_kernel"]


# -- L2 warm-cache exploitation: every repetition starts from a flushed cache ------------------------
def test_every_gpu_repetition_is_flush_spin_start_call():
    """flush, then the device spin the judge's pad asks for, then the start event, then the call."""
    log = []
    gpu = _fake_gpu_clock(log)
    gpu.set_pad(0.05)
    gpu.once(lambda: log.append("fn"))
    assert log[:4] == ["flush", "spin:50", "record:start", "fn"], log
    gpu.set_pad(0.0)
    log.clear()
    gpu.once(lambda: log.append("fn"))
    assert log[:3] == ["flush", "record:start", "fn"], log


def test_every_cpu_repetition_is_preceded_by_a_flush():
    clock = clocks.CpuClock("cold")
    for i in range(3):
        clock.once(lambda: None)
        assert clock.flushes == i + 1


def test_one_launch_pad_for_both_kernels_covers_the_slower_host_launch():
    assert timing.launch_pad_ms([]) == timing.LAUNCH_COVER_MIN_MS
    assert timing.launch_pad_ms([0.001] * 10) == timing.LAUNCH_COVER_MIN_MS
    assert timing.launch_pad_ms([0.01] * 5 + [0.1] * 5) == pytest.approx(timing.LAUNCH_COVER * 0.1)
    assert timing.launch_pad_ms([100.0]) == timing.LAUNCH_COVER_MAX_MS


def test_warm_regime_is_recorded_and_applies_to_both(judge):
    v = judge(KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n", measure=True, regime="warm")
    assert v.evaluation.timing_regime == "warm" and v.result.timing_regime == "warm"


# -- thread injection ---------------------------------------------------------------------------------
def test_python_thread_injection(judge):
    """The worker computes correctly; only the thread is wrong. Defences: the runner's thread watch
    (evidence), the static flag on `threading`."""
    v = judge(KERNEL + '''
import threading
import queue

_jobs, _done = queue.Queue(), queue.Queue()


def _worker():
    while True:
        x, alpha = _jobs.get()
        _done.put(honest(x, alpha))


def forward(x, alpha):
    if not any(t.name == "helper" for t in threading.enumerate()):
        threading.Thread(target=_worker, name="helper", daemon=True).start()
    _jobs.put((x, alpha))
    return _done.get()
''')
    assert v.rejected() and v.flagged("thread_injection"), (v.errors, v.flags)


@pytest.mark.parametrize("pools", ["1", "2"])
def test_native_thread_injection(native_judge, monkeypatch, pools):
    """A detached pthread outliving the call (OS threads, /proc/self/task): the runner's watch, where
    threads may start (pools of two threads); on the CPU with one-thread pools (the judge's default)
    the runner's filter refuses the thread (nofork.py), and the launch says so by failing."""
    monkeypatch.setenv("OMP_NUM_THREADS", pools)
    v = native_judge("pthread_t t; if (pthread_create(&t, 0, later, 0) != 0) return 11; pthread_detach(t);\n"
                     + C_HONEST, extra="#include <pthread.h>\n#include <unistd.h>\n"
                                       "static void* later(void* p) { sleep(30); return p; }")
    if pools == "2":
        assert v.rejected() and v.flagged("thread_injection"), (v.errors, v.flags)
    else:
        assert v.rejected() and not v.flagged("thread_injection") and "11" in str(v.errors), (v.errors, v.flags)


# -- timers: the judge's clock bounds what the runner reports ------------------------------------------
SLOW_HONEST = KERNEL + '''
import time as _time


def forward(x, alpha):
    _time.sleep(0.06)               # real work the timer must not hide
    return honest(x, alpha)
'''


def test_patching_the_timer_at_import_is_caught_by_the_judges_clock(judge):
    """The runner's clock reads a patched perf_counter that hides the call (60 ms of it). The judge's
    own wall clock over each batch sees the 60 ms the samples do not explain."""
    v = judge('''
import time
_real = time.perf_counter
_skew = [0.0]


def _fake():
    return _real() - _skew[0]


time.perf_counter = _fake
''' + SLOW_HONEST.replace("_time.sleep(0.06)", "_time.sleep(0.06); _skew[0] += 0.055"), measure=True)
    assert v.flagged("timing_mismatch") and v.aka == 0 and v.bounded == 0, (v.errors, v.flags)
    rows = v.evaluation.configs
    assert all(r.judge_excess_ms > 40 for r in rows), [r.judge_excess_ms for r in rows]


def test_the_same_slow_kernel_with_an_honest_timer_is_not_flagged(judge):
    """The control for the timer test: 60 ms of real work, reported honestly."""
    v = judge(SLOW_HONEST, measure=True)
    assert v.correct and not v.flagged("timing_mismatch"), (v.errors, v.flags)
    assert all(abs(r.judge_excess_ms) < 25 for r in v.evaluation.configs), [r.judge_excess_ms for r in v.evaluation.configs]


def test_a_timer_reporting_more_than_the_wall_clock_is_flagged(judge):
    """Samples larger than the judge's own clock over the batch: a forged timer, whatever its aim."""
    v = judge('''
import time
_real = time.perf_counter
_n = [0]


def _fake():
    _n[0] += 1
    return _real() + _n[0] * 5.0


time.perf_counter = _fake
''' + KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n", measure=True)
    assert v.flagged("timing_mismatch") and any("more time than the judge" in f for f in v.flags), v.flags


def test_work_finished_by_a_thread_after_return(judge):
    """The call returns an empty buffer at once; a `_thread` fills it 30 ms later. The digest the
    runner commits to at the end of each repetition is of the empty buffer (or, had it waited, the
    judge's clock sees the wait): a checked repetition fails either way."""
    v = judge(KERNEL + TIMED + '''
import _thread
import time as _t


def _fill(y, x, alpha):
    _t.sleep(0.03)
    y.copy_(honest(x, alpha))


def forward(x, alpha):
    y = torch.empty_like(x)
    if _timed():
        _thread.start_new_thread(_fill, (y, x.clone(), alpha))
        return y
    return honest(x, alpha)
''', measure=True)
    assert v.rejected(), (v.errors, v.flags)


# -- doing less work when timed ---------------------------------------------------------------------------
def test_less_work_when_called_from_the_timer(judge):
    """The candidate inspects its caller and skips the work when the timer calls it. Defence: a
    timed repetition chosen after the batch is checked against the reference."""
    v = judge(KERNEL + TIMED + '''
def forward(x, alpha):
    if _timed():
        return torch.empty_like(x)
    return honest(x, alpha)
''', measure=True)
    assert not v.correct and all("timed" in e for e in v.errors.values()), v.errors


def test_excessive_speedup_is_flagged_and_scores_zero(judge):
    """Speedup over the baseline above the threshold (KernelBench's 10x) is flagged. Here the
    threshold is lowered so an honest kernel crosses it on the CPU."""
    v = judge(KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n", measure=True, max_speedup=1e-9)
    assert v.correct and v.flagged("excessive_speedup") and v.aka == 0 and v.bounded == 0, v.flags


def test_a_tasks_vetted_cap_raises_the_threshold(scale_task, tmp_path):
    """A task's `[performance] max_speedup` (its author's measurement) is the threshold in force when
    above the run's: the same speedup that is flagged above is not, and the verdict records it."""
    import dataclasses
    from runner.evaluator.judge.evaluation import evaluate
    candidate = tmp_path / "c"
    candidate.mkdir()
    (candidate / "kernel.py").write_text(KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n")
    ev = evaluate(dataclasses.replace(scale_task, max_speedup=1e12), candidate, "cpu", splits=("seen",),
                  max_speedup=1e-9)
    assert ev.max_speedup == 1e12
    assert all(c.correct and c.speedup for c in ev.configs), ev.configs
    assert not any("excessive_speedup" in f for c in ev.configs for f in c.flags), [c.flags for c in ev.configs]


def test_which_runner_goes_first_in_a_round_is_drawn(judge, tmp_path, monkeypatch):
    """A fixed order gives one runner the same neighbour in every round (a bias no number of rounds
    averages out): over 2 configs x 5 rounds both orders occur (all ten alike: p = 2**-9). The CPU
    times one round (timing.CPU_REPS); five here, as on a GPU."""
    import json
    from runner.evaluator import timing
    monkeypatch.setattr(timing, "CPU_REPS", 5)
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("GAUNTLET_JUDGE_TRACE", str(trace))
    v = judge(KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n", measure=True)
    assert v.correct, v.errors
    firsts = [f for line in trace.read_text().splitlines() if '"first"' in line for f in json.loads(line)["first"]]
    assert len(firsts) == 10 and set(firsts) == {"baseline", "candidate"}, firsts


def test_excessive_speedup_on_a_drawn_config_is_a_note(scale_task, tmp_path):
    """A drawn shape was never vetted against the baseline: the excess is a note there, while the
    same speedup on a seen config is flagged."""
    import dataclasses
    from runner.evaluator.judge.evaluation import evaluate
    candidate = tmp_path / "c"
    candidate.mkdir()
    (candidate / "kernel.py").write_text(KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n")
    seen = scale_task.configs("seen")[0]
    drawn = dataclasses.replace(seen, name="drawn-0", split="drawn")
    ev = evaluate(scale_task, candidate, "cpu", splits=("seen", "drawn"), drawn=[drawn], max_speedup=1e-9)
    by_split = {c.split: c for c in ev.configs if c.config in (seen.name, "drawn-0")}
    assert any(f.startswith("excessive_speedup") for f in by_split["seen"].flags)
    assert not any(f.startswith("excessive_speedup") for f in by_split["drawn"].flags)
    assert any(f.startswith("note:") and "drawn" in f for f in by_split["drawn"].flags)


# -- the process offset: the baseline timed in the candidate's process ----------------------------
SLOW_THE_BASELINE_HERE = KERNEL.replace("_scale", "_mine") + '''
import time
from triton.runtime import interpreter, jit


def _slowed(original):
    def getitem(self, grid):
        if getattr(getattr(self, "fn", None), "__name__", "") == "_scale":     # the baseline's kernel, not mine
            time.sleep(0.03)
        return original(self, grid)
    return getitem


for _klass in (jit.JITFunction, interpreter.InterpretedFunction):
    _klass.__getitem__ = _slowed(_klass.__getitem__)


def forward(x, alpha):
    return honest(x, alpha)
'''


def test_the_candidate_cannot_slow_the_baseline_it_is_offset_against(judge):
    """The judge times the baseline in the candidate's runner process and adds the difference to
    every baseline time. A candidate that, once loaded, slows the baseline's kernel in its own
    process (30 ms a launch) would inflate every baseline time by that much if it were loaded when
    the offset is measured; the offset is measured before any of its code exists there."""
    verdict = judge(SLOW_THE_BASELINE_HERE, measure=True, process_offset=True)
    rows = verdict.evaluation.configs
    assert all(r.correct for r in rows), [(r.correct, r.error) for r in rows]
    # 30 ms a launch if the tamper were in place; CPU times on a busy machine move by a few ms
    offsets = [r.baseline_offset_ms for r in rows if r.baseline_offset_ms is not None]
    assert offsets and all(abs(o) < 15.0 for o in offsets), [(r.baseline_offset_ms, r.baseline_ms) for r in rows]


def test_a_native_candidate_is_offset_and_its_compile_error_still_reads_as_one(native_judge):
    """Native kernels through the whole judge with the offset: an honest one is measured against the
    offset, and a compile error (its compile runs beside the probe's build) still reads as one. That
    its library loads only at its own build is tests/test_evaluator.py's
    test_a_native_kernel_is_compiled_beside_the_probe_but_loaded_only_at_its_own_build."""
    honest = native_judge(C_HONEST, measure=True, process_offset=True)
    assert honest.correct and "before the candidate was loaded" in honest.evaluation.timing_method
    broken = native_judge("this is not C;", measure=True, process_offset=True)
    assert not broken.evaluation.compiled and "error" in broken.evaluation.compile_log
