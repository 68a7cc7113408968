"""Red team, timing and tampering side. Where a class needs a GPU to manifest (stream injection,
cold-L2 flushing) the defence's mechanism is tested on the CPU: the static check, the evaluator's
escaped-work rule with a clock that reports escaped work, the order of operations in one GPU
repetition with recording fakes, and that every repetition is preceded by a flush."""
import pytest

from runner.evaluator import guard, timing
from runner.evaluator.harness import Evaluator
from runner.task import Config

from .conftest import KERNEL, host_kernel

SMALL = Config(name="small", split="seen", params={"n": 1000, "alpha": 2.0})


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
    clock = object.__new__(timing.GpuClock)
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
    clock.tail_ms, clock.tail_limit_ms = tail, tail + timing.ESCAPED_SLACK_MS
    clock.empty_ms = empty
    clock.spin = lambda cycles: log.append(f"spin:{cycles}")
    clock.spin_cycles, clock.cycles_per_ms, clock.host_ms = 0, 1000.0, 0.0
    return clock


def test_one_gpu_repetition_brackets_a_device_wide_synchronize():
    log = []
    clock = _fake_gpu_clock(log)
    clock.once(lambda: log.append("fn"))
    assert log == ["flush", "record:start", "fn", "record:end", "device_synchronize", "record:end2", "wait:end2"]


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


class _EscapingClock:
    """What a GpuClock reports for a candidate that leaves its work on a side stream: a tiny tight
    time and a device-sync gap as long as the work; the baseline's gap is the plain sync tail."""
    meaningful, graph = True, False
    tail_limit_ms = 0.01
    host_ms = 0.0

    def cover_launch(self, host_ms):
        return 0.0

    def __init__(self, candidate_calls, gap_ms=0.5):
        self.candidate_calls, self.gap_ms = candidate_calls, gap_ms

    def once(self, fn):
        before = len(self.candidate_calls)
        out = fn()
        return (0.001, self.gap_ms, out) if len(self.candidate_calls) > before else (0.2, 0.005, out)


def test_escaped_work_in_timed_calls_flags_the_config(scale_task):
    from runner.evaluator.build import Kernel, import_module
    reference = import_module(scale_task.reference, "redteam_scale_reference")
    harness = Evaluator(scale_task, "cpu", reference, language="cuda")
    calls = []
    harness._clock = _EscapingClock(calls)
    baseline = Kernel(name="baseline", python_fn=reference.reference)
    candidate = Kernel(name="candidate", python_fn=lambda x, a: calls.append(1) or x * a)
    row = harness.config_result(baseline, candidate, SMALL, measure=True)
    assert row.correct and any(f.startswith("stream_injection") for f in row.flags), row.flags
    assert row.candidate_ms == pytest.approx(0.001 + 0.495)    # timed as if it had synchronized


class _FakeStreamWatch:
    """Stands in for the profiler's stream record (GPU only): reports the side-stream launches the
    candidate made while the window was open."""

    def __init__(self, side_launches):
        self.side_launches, self.opened_at, self.windows = side_launches, None, 0

    @property
    def watching(self):
        return self.opened_at is not None

    def start(self):
        self.opened_at, self.windows = len(self.side_launches), self.windows + 1

    def stop(self):
        n, self.opened_at = len(self.side_launches) - self.opened_at, None
        return [(1, 7, "marker"), (2, 7, "kernel")] + [(3 + i, 13, "softmax_kernel") for i in range(n)]


def test_side_stream_work_the_gap_cannot_see_is_flagged(scale_task):
    """Side-stream work that finished during the flush and spin leaves the gap unchanged (as seen
    on an H100); the stream watch over one warm-up call still sees where it ran."""
    from runner.evaluator.build import Kernel, import_module
    reference = import_module(scale_task.reference, "redteam_scale_reference")
    for cheat in (True, False):
        harness = Evaluator(scale_task, "cpu", reference, language="cuda")
        calls, side = [], []
        harness._clock = _EscapingClock(calls, gap_ms=0.005)     # the baseline's gap: nothing escapes
        harness.streams = watch = _FakeStreamWatch(side)
        baseline = Kernel(name="baseline", python_fn=reference.reference)
        candidate = Kernel(name="candidate",
                           python_fn=lambda x, a: calls.append(1) or (cheat and side.append(1)) or x * a)
        row = harness.config_result(baseline, candidate, SMALL, measure=True)
        flagged = [f for f in harness.dynamic_flags() if f.startswith("stream_injection")]
        assert watch.windows == 1 and not watch.watching
        assert row.correct and not any(f.startswith("stream_injection") for f in row.flags)
        assert bool(flagged) == cheat, (cheat, flagged)


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
def test_every_timed_repetition_is_preceded_by_a_flush():
    clock = timing.CpuClock("cold")
    calls = []
    flushes_at_call = []
    timing.time_pair({"a": lambda: calls.append(1) or flushes_at_call.append(clock.flushes),
                      "b": lambda: calls.append(2) or flushes_at_call.append(clock.flushes)}, clock)
    assert flushes_at_call == list(range(1, len(calls) + 1))   # one fresh flush before each call
    log = []
    gpu = _fake_gpu_clock(log)
    timing.time_pair({"k": lambda: log.append("fn")}, gpu)
    fn_at = [i for i, e in enumerate(log) if e == "fn"]
    assert len(fn_at) >= timing.MIN_REPS
    # flush, then (once the launch cover is set) a device spin, then the start event, then the call
    assert all(log[i - 1] == "record:start" and "flush" in log[max(0, i - 3):i - 1] for i in fn_at)


def test_timed_calls_start_after_a_device_spin_that_covers_the_host_launch():
    """Without the spin the start event fires on an idle GPU and a slow Python launcher's host time
    is charged to the kernel: every timed (post-warm-up) call must sit behind a spin, and the spin
    is switched off again when timing ends."""
    log = []
    gpu = _fake_gpu_clock(log)
    timing.time_pair({"k": lambda: log.append("fn")}, gpu)
    fn_at = [i for i, e in enumerate(log) if e == "fn"]
    spun = [log[i - 2].startswith("spin:") for i in fn_at]
    warm = timing.WARMUP_CALLS + 3
    assert not any(spun[:warm]) and all(spun[warm:])
    cycles = int(log[fn_at[-1] - 2].split(":")[1])
    assert cycles == int(timing.LAUNCH_COVER_MIN_MS * gpu.cycles_per_ms)   # host time ~0: the minimum pad
    assert gpu.spin_cycles == 0


def test_warm_regime_is_recorded_and_applies_to_both(judge):
    v = judge(KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n", measure=True, regime="warm")
    assert v.evaluation.timing_regime == "warm" and v.result.timing_regime == "warm"


# -- thread injection -------------------------------------------------------------------------------
def test_python_thread_injection(judge):
    """Defence: Python threads alive after a candidate call that were not alive before it
    (plus the static flag on `threading`). The worker computes correctly; only the thread is wrong."""
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
    assert not v.correct and v.flagged("thread_injection") and v.aka == 0, (v.errors, v.flags)
    assert any("Python thread" in f for f in v.flags)


def test_native_thread_injection(native_evaluator, tmp_path):
    """Defence: OS threads (/proc/self/task) for native kernels: a detached pthread outliving the call."""
    from runner.evaluator.guard import Tampered
    kernel = host_kernel(tmp_path, "pthread_t t; pthread_create(&t, 0, later, 0); pthread_detach(t);\n"
                                   "for (int64_t i = 0; i < n; i++) y[i] = a * x[i]; return 0;",
                         extra="#include <pthread.h>\n#include <unistd.h>\n"
                               "static void* later(void* p) { sleep(30); return p; }", libs=("-lpthread",))
    with pytest.raises(Tampered, match="OS thread"):
        native_evaluator.check(kernel, SMALL)


# -- timer / synchronize / harness monkey-patching --------------------------------------------------
def test_patching_the_timer_at_import(judge):
    """Defence: identity of the timers verified after the import; static flag on the assignment."""
    v = judge(KERNEL + '''
import time
time.perf_counter = lambda: 0.0
torch.cuda.synchronize = lambda *a, **k: None


def forward(x, alpha):
    return honest(x, alpha)
''', measure=True)
    assert not v.correct and v.flagged("patched_harness") and v.aka == 0, (v.errors, v.flags)
    assert all("tampered" in e for e in v.errors.values())


def test_patching_the_comparison_during_a_call(judge):
    """The candidate returns garbage and replaces the harness's compare with one that always agrees:
    the identity check right after the call catches it before any comparison is made."""
    v = judge(KERNEL + '''
import runner.evaluator.harness as h


def forward(x, alpha):
    honest(x, alpha)
    h.compare = lambda *args, **kwargs: 0.0
    return torch.zeros_like(x)
''')
    assert not v.correct and v.flagged("patched_harness"), (v.errors, v.flags)


def test_patching_an_event_method_via_its_code_object(judge):
    """Swapping __code__ keeps the function object's identity; the sentinel compares code too."""
    v = judge(KERNEL + '''
from runner.evaluator import guard, timing


def _fast(self, fn):
    return 0.0001, False, fn()


def forward(x, alpha):
    timing.CpuClock.once.__code__ = _fast.__code__
    return honest(x, alpha)
''', measure=True)
    assert not v.correct and v.flagged("patched_harness"), (v.errors, v.flags)


# -- doing less work when timed ---------------------------------------------------------------------
def test_less_work_when_called_from_the_timer(judge):
    """The candidate inspects its caller and skips the work when the timer calls it. Defence: the
    timed call is re-checked through the very same timer code path (plus the static flag)."""
    v = judge(KERNEL + '''
import sys


def _timed():
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "once":
            return True
        frame = frame.f_back
    return False


def forward(x, alpha):
    if _timed():
        return torch.empty_like(x)
    return honest(x, alpha)
''', measure=True)
    assert not v.correct and all("timed call" in e for e in v.errors.values()), v.errors


def test_excessive_speedup_is_flagged_and_scores_zero(judge):
    """Defence: speedup over the baseline above the threshold (KernelBench's 10x) is flagged. Here
    the threshold is lowered so an honest faster kernel crosses it on the CPU."""
    v = judge(KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n", measure=True, max_speedup=0.01)
    assert v.correct and v.flagged("excessive_speedup") and v.aka == 0 and v.bounded == 0, v.flags


def test_excessive_speedup_on_a_drawn_config_is_a_note(scale_task):
    """A drawn shape was never vetted against the baseline (which can be pathological there): the
    excess is recorded as a note, while the same speedup on a seen config is flagged."""
    import dataclasses
    from runner.evaluator.build import Kernel, import_module
    reference = import_module(scale_task.reference, "redteam_scale_reference")
    for split in ("seen", "drawn"):
        harness = Evaluator(scale_task, "cpu", reference, language="cuda")
        calls = []
        harness._clock = _EscapingClock(calls, gap_ms=0.005)           # 0.2 ms against 0.001 ms
        baseline = Kernel(name="baseline", python_fn=reference.reference)
        candidate = Kernel(name="candidate", python_fn=lambda x, a: calls.append(1) or x * a)
        row = harness.config_result(baseline, candidate, dataclasses.replace(SMALL, split=split), measure=True)
        flagged = any(f.startswith("excessive_speedup") for f in row.flags)
        noted = any(f.startswith("note:") and "drawn" in f for f in row.flags)
        assert row.speedup > 100 and (flagged, noted) == (split == "seen", split == "drawn"), row.flags


# -- graph replay: the timed replay itself is validated, and both kernels are timed the same way ---
class _GraphClock:
    """A clock in graph mode without a GPU: `capture` returns what `replay_of` makes of a call."""
    meaningful, graph = True, True
    tail_limit_ms, host_ms = 0.01, 0.0

    def __init__(self, replay_of):
        self.replay_of = replay_of
        self.captures = []

    def cover_launch(self, host_ms):
        return 0.0

    def once(self, fn):
        return 0.1, 0.0, fn()

    def capture(self, fn):
        self.captures.append(fn)
        return self.replay_of(fn)


def _graph_harness(scale_task, replay_of, candidate_fn):
    from runner.evaluator.build import Kernel, import_module
    reference = import_module(scale_task.reference, "redteam_graph_reference")
    harness = Evaluator(scale_task, "cpu", reference, language="cuda")
    harness._clock = _GraphClock(replay_of)
    baseline = Kernel(name="baseline", python_fn=reference.reference)
    return harness, baseline, Kernel(name="candidate", python_fn=candidate_fn)


def _honest_replay(fn):
    """What a real capture gives: a replay recomputes from the current input buffers into the same
    output buffer every time."""
    out = fn()

    def replay():
        out.copy_(fn())
        return out
    replay.output = out
    return replay


def test_graph_mode_times_replays_and_checks_the_replayed_output(scale_task):
    harness, baseline, candidate = _graph_harness(scale_task, _honest_replay, lambda x, a: x * a)
    row = harness.config_result(baseline, candidate, SMALL, measure=True)
    assert row.correct and row.speedup is not None, row.error
    assert len(harness.clock().captures) == 2 and not harness.replaying


def test_a_graph_that_replays_nothing_fails_the_timed_check(scale_task, monkeypatch):
    """An empty graph (the capture computed once; replays do no work) leaves the output of the
    capture in place: the replay on fresh inputs with poisoned outputs must fail. The per-call
    input perturbation is switched off, as when it is below a task's tolerance (fp16): then only
    the validation replay, which must be the graph and not an eager call, can catch it."""
    import runner.evaluator.harness as harness_module
    monkeypatch.setattr(harness_module, "PERTURBATION", 0.0)
    def empty_replay(fn):
        out = fn()

        def replay():
            return out
        replay.output = out
        return replay
    harness, baseline, candidate = _graph_harness(scale_task, empty_replay, lambda x, a: x * a)
    row = harness.config_result(baseline, candidate, SMALL, measure=True)
    assert not row.correct and row.error.startswith("timed call"), row.error


def test_a_candidate_that_cannot_be_captured_is_timed_eagerly_with_the_baseline(scale_task):
    def replay_of(fn):
        if getattr(fn, "__name__", "") == "<lambda>" and harness.clock().captures.__len__() == 2:
            raise RuntimeError("operation not permitted when stream is capturing")
        return _honest_replay(fn)
    harness, baseline, candidate = _graph_harness(scale_task, replay_of, lambda x, a: x * a)
    row = harness.config_result(baseline, candidate, SMALL, measure=True)
    assert row.correct and row.speedup is not None, row.error
    assert any(f.startswith("note: CUDA-graph capture of the candidate failed") for f in row.flags), row.flags


def test_graph_replays_do_not_count_as_calls_without_a_triton_launch(scale_task):
    """A replay goes through no Triton launcher; only the capture does. No replay, the validation
    replay after timing included, may be counted as a call that launched nothing."""
    from runner.evaluator.build import Kernel, import_module
    from runner.evaluator.guard import LaunchCounter

    def launching(x, a):
        LaunchCounter.count += 1            # what the real launcher wrapper does per kernel launch
        return x * a

    def replay_of(fn):
        out = fn()

        def replay():
            before = LaunchCounter.count
            out.copy_(fn())
            LaunchCounter.count = before    # a replay launches through the driver, not Triton
            return out
        replay.output = out
        return replay
    reference = import_module(scale_task.reference, "redteam_graph_launch_reference")
    harness = Evaluator(scale_task, "cpu", reference, language="triton")
    harness._clock = _GraphClock(replay_of)
    baseline = Kernel(name="baseline", python_fn=reference.reference)
    row = harness.config_result(baseline, Kernel(name="candidate", python_fn=launching), SMALL, measure=True)
    assert row.correct, row.error
    assert harness.calls > 10 and harness.no_launch_calls == 0
