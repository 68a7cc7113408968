"""The L2 flush's witness (runner/evaluator/judge/dram.py): the rule on what the device's DRAM
counters read, the sampler's lines, and the witness process itself, run here through a stand-in
sampler (tests/fixtures/dram/fake_sampler.py: the same arguments, lines and signals; no GPU here)
and, where CUPTI's headers are, the real sampler built and refused by a host with no driver."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from runner.evaluator import devtrace, isolation
from runner.evaluator.judge import dram, policy
from runner.evaluator.judge.rounds import Rounds

FAKE = Path(__file__).parent / "fixtures" / "dram" / "fake_sampler.py"
MB = 1e6
FLUSH, L2 = 256 << 20, 50 << 20      # the harness's flush; an H100's L2


def batches(per_call_mb, calls=100, coverage=1.0):
    return [dram.Reads(calls, mb * MB * calls, coverage) for mb in per_call_mb]


def test_an_honest_flush_reads_its_buffer_and_raises_nothing():
    found, notes, record = dram.flush_findings(batches([270, 268, 272]), batches([262, 300, 265]), FLUSH, L2)
    assert found == [] and notes == []
    assert record["must_MB"] == pytest.approx(0.5 * (FLUSH - L2) / MB)


def test_a_flush_that_reads_what_the_l2_holds_is_l2_flush():
    # flush_aliased: its reduction reads 4 MB again and again; each call then reads its inputs warm
    found, _, _ = dram.flush_findings(batches([270, 268, 272]), batches([262, 6, 5]), FLUSH, L2)
    assert len(found) == 1 and found[0].startswith("l2_flush: the device's DRAM counters")
    assert "2 of 3 timed batches" in found[0] and "5.0 MB a call" in found[0]


def test_one_short_batch_is_enough():
    found, _, _ = dram.flush_findings(batches([270] * 8), batches([265] * 7 + [90]), FLUSH, L2)
    assert found and "1 of 8" in found[0]


def test_a_witness_that_does_not_see_the_baseline_flush_never_speaks():
    # counters that read nothing (or a fraction) for the baseline too: this host's, not the candidate's
    found, notes, _ = dram.flush_findings(batches([40, 38]), batches([1, 2]), FLUSH, L2)
    assert found == [] and "not applied" in notes[0] and "baseline" in notes[0]


def test_batches_the_samples_do_not_cover_are_not_judged():
    found, notes, _ = dram.flush_findings(batches([270, 270]), batches([265], coverage=1.0)
                                          + batches([3], coverage=0.5), FLUSH, L2)
    assert found == [] and "covered 1 of the candidate's 2" in notes[0]
    found, notes, _ = dram.flush_findings(batches([270], coverage=0.2), batches([3]), FLUSH, L2)
    assert found == [] and "covered none of the baseline's" in notes[0]


def test_a_flush_the_l2_holds_whole_is_no_rule():
    found, notes, _ = dram.flush_findings(batches([5]), batches([5]), 32 << 20, L2)
    assert found == [] and "fit" in notes[0]


def test_window_reads_spreads_each_sample_over_its_span():
    samples = [(0, 100, 1000.0, 10.0), (100, 200, 3000.0, 0.0), (300, 400, 500.0, 0.0)]     # a gap at 200-300
    (r1, w1, c1), (r2, _, c2), (r3, _, c3) = dram.window_reads(samples, [(50, 150), (0, 400), (500, 600)])
    assert (r1, w1, c1) == (pytest.approx(500 + 1500), pytest.approx(5.0), pytest.approx(1.0))
    assert r2 == pytest.approx(4500) and c2 == pytest.approx(0.75)
    assert r3 == 0 and c3 == 0


def test_parse_keeps_samples_clock_pairs_and_the_rest():
    samples, clocks, other = dram.parse(["# chip=GH100 interval_ns=100000", "# clock 5 9 3", "10 20 1e6 2",
                                         "# clock error=launch", "", "# samples=1 empty=0"])
    assert samples == [(10, 20, 1e6, 2.0)] and clocks == [(5, 9, 3)]
    assert other == ["# chip=GH100 interval_ns=100000", "# clock error=launch", "# samples=1 empty=0"]


@pytest.fixture
def fake(monkeypatch, tmp_path):
    monkeypatch.setenv("FAKE_DRAM_OFFSET_NS", str(3_000_000_000))    # the device's clock 3 s ahead
    monkeypatch.setenv("FAKE_DRAM_RATE", str(2e12))                  # 2 TB/s: 2 GB a ms
    monkeypatch.setenv("FAKE_DRAM_QUIET", str(tmp_path / "quiet"))
    return tmp_path


def witness(folder: Path) -> dram.Witness:
    return dram.Witness(FAKE, 0, folder / "dram_samples.txt", FLUSH, L2).ready()


def _batch(seconds: float, calls: int = 100, quiet: Path | None = None) -> tuple[int, int, int]:
    """A batch's span on the host clock; with `quiet`, the stand-in reads no DRAM in it (declared
    before it starts, so the stand-in's own scheduling cannot blur it)."""
    start = time.time_ns() + 20_000_000
    if quiet is not None:
        with open(quiet, "a") as fh:
            fh.write(f"{start} {start + int(seconds * 1e9)}\n")
    time.sleep(max(0.0, (start - time.time_ns()) / 1e9))
    start = max(start, time.time_ns())
    time.sleep(seconds)
    return start, min(time.time_ns(), start + int(seconds * 1e9)), calls


def test_the_witness_reads_each_batch_on_the_host_clock(fake):
    w = witness(fake)
    try:
        honest = [_batch(0.15), _batch(0.15)]
        warm = [_batch(0.15, quiet=fake / "quiet")]       # the flush reads nothing from DRAM there
        reads = w.reads(honest + warm)
        assert len(w.clocks) >= 2          # a fresh pair asked for, and given
    finally:
        ended = w.stop()
    assert ended["rc"] == 0 and ended["clock_pairs"] >= 2
    for r, (a, b, n) in zip(reads[:2], honest):
        assert r.coverage > 0.9
        assert r.read_bytes == pytest.approx(2e12 * (b - a) / 1e9, rel=0.15)    # the 3 s offset undone
    assert reads[2].read_bytes < 0.15 * reads[0].read_bytes
    found, _, _ = dram.flush_findings(reads[:1], reads[1:], FLUSH, L2)
    assert found and "1 of 2" in found[0]


def test_a_sampler_that_ends_is_no_witness_from_then(fake, monkeypatch):
    monkeypatch.setenv("FAKE_DRAM_DIE_AFTER_S", "0.05")
    w = witness(fake)
    time.sleep(0.3)
    assert w.reads([_batch(0.01)]) is None
    assert w.stop()["rc"] == 1


def test_a_sampler_that_is_refused_is_unavailable(fake, monkeypatch):
    monkeypatch.setenv("FAKE_DRAM_FAIL", "1")
    with pytest.raises(dram.Unavailable, match="INSUFFICIENT_PRIVILEGES"):
        witness(fake)


class _Judge(Rounds):
    def __init__(self, witness):
        from collections import defaultdict
        from contextlib import contextmanager

        @contextmanager
        def phases(_name):
            yield
        self.phases, self.dram, self.regime = phases, witness, "cold"
        self.flags, self.row_notes, self.dram_lost = [], [], None
        self.phases.seconds = defaultdict(float)


class _Config:
    name = "b4_s512"


def test_the_judge_names_the_config_and_drops_an_ended_witness(fake, monkeypatch):
    w = witness(fake)
    judge = _Judge(w)
    try:
        base = [_batch(0.1)]            # the rounds interleave the two runners' batches
        cand = [_batch(0.1, quiet=fake / "quiet")]
        base.append(_batch(0.1))
        judge._read_dram(_Config, {"baseline": base, "candidate": cand})
    finally:
        w.stop()
    assert len(judge.flags) == 1 and judge.flags[0].startswith("l2_flush:") and judge.flags[0].endswith("(b4_s512)")
    judge._read_dram(_Config, {"baseline": [_batch(0.01)], "candidate": [_batch(0.01)]})
    assert judge.dram is None and "no DRAM witness on b4_s512 and after" in judge.row_notes[-1]
    assert judge.dram_lost.startswith("the judge's DRAM witness ended while the candidate's code was loaded")


def test_the_witness_is_for_cold_cuda_timing_and_can_be_turned_off(monkeypatch):
    assert dram.wanted("cuda", "cold") and not dram.wanted("cuda", "warm") and not dram.wanted("cpu", "cold")
    monkeypatch.setenv(dram.SWITCH, "0")
    assert not dram.wanted("cuda", "cold")


@pytest.mark.skipif(not devtrace._cupti_dirs(), reason="no CUPTI headers here (a CUDA toolkit): the C++ is "
                    "built on the GPU hosts (results/gpu-2026-12-01-s22.md)")
def test_the_real_sampler_builds_and_a_host_with_no_driver_refuses_it(tmp_path):
    exe = dram.build(tmp_path / "cache")
    assert os.access(exe, os.X_OK) and dram.build(tmp_path / "cache") == exe      # cached
    if Path("/dev/nvidiactl").exists():
        pytest.skip("a driver is here: the refusal is a driverless host's")
    with pytest.raises(dram.Unavailable, match="did not start .rc=2: error: "):
        dram.Witness(exe, 0, tmp_path / "dram_samples.txt", FLUSH, L2).ready()



@pytest.mark.skipif(not devtrace._cupti_dirs(), reason="no CUPTI headers here (a CUDA toolkit)")
def test_the_real_sampler_ends_when_its_judge_is_gone(tmp_path):
    """A judge killed mid-evaluation (a bench's timeout kills its process group; the sampler has a
    session of its own) once left its sampler holding the device's PM sampling: every later judge on
    that H200 got CUPTI_ERROR_HARDWARE_BUSY. The sampler asks for SIGKILL at its parent's death
    (PR_SET_PDEATHSIG: proven on a GPU host, bench/sampler_orphan.py); one whose parent is already
    gone ends before it touches the driver (here: a parent pid that is not its parent)."""
    import subprocess
    exe = dram.build(tmp_path / "cache")
    gone = subprocess.run([str(exe), "0", "1000", str(tmp_path / "s.txt")], capture_output=True, timeout=30,
                          env={**os.environ, "GAUNTLET_SAMPLER_PARENT": "1"})
    assert gone.returncode == 3 and not (tmp_path / "s.txt").exists(), gone.stderr


def test_a_refused_sampler_is_a_note_in_the_verdict_not_an_error(fake, monkeypatch):
    from runner.evaluator.judge import evaluation
    monkeypatch.setenv("FAKE_DRAM_FAIL", "1")
    note = evaluation._witness_ready(dram.Witness(FAKE, 0, fake / "dram_samples.txt", FLUSH, L2))
    assert note.startswith("note: no DRAM witness (the DRAM sampler did not start (rc=2: error: ")
    assert evaluation._witness_ready("note: x") == "note: x"


def test_a_clock_pair_refused_later_keeps_the_last_one_and_does_not_wait(fake, monkeypatch):
    monkeypatch.setenv("FAKE_DRAM_CLOCK_FAILS", "1")
    w = witness(fake)
    try:
        batch = _batch(0.1)
        asked = time.monotonic()
        (read,) = w.reads([batch])
        waited = time.monotonic() - asked
    finally:
        w.stop()
    assert "# clock error=launch" in w.other and len(w.clocks) == 1
    assert waited < dram.WAIT_S / 2 and read.coverage > 0.9       # the start's pair still places the batch


def test_a_batch_asks_its_own_regime_of_the_runners_clock():
    """The unflushed batch (Rounds._unflushed) is the warm regime for that batch alone."""
    from runner.evaluator.kernel_runner import Runner
    runner = object.__new__(Runner)
    runner.clock, runner.device = None, "cpu"
    clock = runner._clock({"regime": "cold"})
    clock.once(lambda: 1)
    assert clock.flushes == 1
    assert runner._clock({"regime": "warm"}) is clock
    clock.once(lambda: 1)
    assert clock.flushes == 1
    runner._clock({"regime": "cold"}).once(lambda: 1)
    assert clock.flushes == 2


def test_the_differential_holds_a_flush_pointed_elsewhere_past_the_floor():
    # a call whose own reads pass the floor (180 MB): the floor says nothing, the differential does
    base, base_unflushed = batches([330, 331, 329]), dram.Reads(100, 70 * MB * 100, 1.0)
    bulky = batches([181, 180, 182])
    assert dram.flush_findings(base, bulky, FLUSH, L2)[0] == []
    found, _, record = dram.unflushed_findings(base, bulky, base_unflushed, dram.Reads(100, 176 * MB * 100, 1.0),
                                               FLUSH, L2)
    assert len(found) == 1 and "3 of 3 timed batches" in found[0] and "more than its calls with no flush" in found[0]
    assert record["baseline_gain_MB"] == pytest.approx(260, abs=1)
    # honest: the flush adds its buffer whatever the call reads
    found, notes, _ = dram.unflushed_findings(base, batches([450, 452]), base_unflushed,
                                              dram.Reads(100, 190 * MB * 100, 1.0), FLUSH, L2)
    assert found == [] and notes == []


def test_the_differential_speaks_only_where_the_baseline_shows_the_flush():
    base = batches([330, 331])
    found, notes, _ = dram.unflushed_findings(base, batches([181]), dram.Reads(100, 300 * MB * 100, 1.0),
                                              dram.Reads(100, 176 * MB * 100, 1.0), FLUSH, L2)
    assert found == [] and "not applied" in notes[0] and "baseline" in notes[0]
    found, notes, _ = dram.unflushed_findings(base, batches([181]), dram.Reads(100, 70 * MB * 100, 1.0),
                                              dram.Reads(100, 176 * MB * 100, 0.3), FLUSH, L2)
    assert found == [] and "did not cover" in notes[0]


def test_the_judge_reads_the_unflushed_batches_with_the_timed_ones(fake):
    w = witness(fake)
    judge = _Judge(w)
    try:
        spans = {"baseline": [_batch(0.1)], "candidate": [_batch(0.1)]}     # every call past the floor
        unflushed = {"baseline": _batch(0.1, quiet=fake / "quiet"),          # the baseline's flush adds all
                     "candidate": _batch(0.1)}                               # the candidate's adds nothing
        judge._read_dram(_Config, spans, unflushed)
    finally:
        w.stop()
    assert len(judge.flags) == 1 and "more than its calls with no flush at all" in judge.flags[0], judge.flags


class _Runner:
    def __init__(self, role):
        self.role, self.sent = role, []

    def request(self, message):
        self.sent.append(message)
        return {"ok": True}


def test_the_unflushed_batch_is_warm_checked_and_the_candidate_stopped_for_the_baselines(monkeypatch):
    runners = {"baseline": _Runner("baseline"), "candidate": _Runner("candidate")}
    judge, seen = _Judge(None), []
    judge.rng = __import__("random").Random(1)

    from contextlib import contextmanager

    @contextmanager
    def stopped(runner):
        seen.append(("stopped", runner.role if runner else None))
        yield

    def batch(runner, n, common, *, keep, seed=None, evidence=True, watch=False):
        seen.append(("batch", runner.role, n, common["regime"], common["unflushed"], keep, evidence))
        return {"digests": [0] * n}

    judge._stopped, judge._batch = stopped, batch
    judge._check_repetition = lambda runner, *a: seen.append(("checked", runner.role))
    got = judge._unflushed(runners, None, None, {"regime": "cold", "pad_ms": 0.1}, {}, 7)
    assert seen == [("stopped", "candidate"), ("batch", "baseline", 7, "warm", True, True, False),
                    ("stopped", None), ("batch", "candidate", 7, "warm", True, True, True),
                    *[("checked", "candidate")] * policy.UNFLUSHED_CHECKS]
    assert set(got) == {"baseline", "candidate"} and all(n == 7 and a <= b for a, b, n in got.values())
    assert all(r.sent == [{"op": "release"}] for r in runners.values())


def test_an_unflushed_batch_is_read_from_the_trace_but_is_no_timed_batch():
    """Its records are taken (the next batch's are its own), and left out of the timed calls' rules:
    it has no flush to find (RunnerClient.request)."""
    import collections
    import socket
    import threading

    from runner.evaluator import protocol
    from runner.evaluator.judge.runners import RunnerClient

    class Alive:
        returncode = None

        def poll(self):
            return None

    class Trace:
        dead, taken = False, 0

        def take_batch(self):
            Trace.taken += 1
            return [f"records {Trace.taken}"]

    ours, theirs = socket.socketpair()
    client = RunnerClient.__new__(RunnerClient)
    client.proc, client.sock, client.role, client.trace, client.empty_ms = Alive(), ours, "candidate", Trace(), 0.0
    client.op_seconds, client.trace_batches, client.calls_made = collections.defaultdict(float), [], 0

    def serve():
        for _ in range(3):
            protocol.receive(theirs)
            protocol.send(theirs, {"ok": True, "samples": [0.01]})
    worker = threading.Thread(target=serve)
    worker.start()
    try:
        client.request({"op": "time", "n": 1})
        client.request({"op": "time", "n": 1, "unflushed": True, "regime": "warm"})
        client.request({"op": "time", "n": 1})
    finally:
        worker.join(5)
        ours.close()
        theirs.close()
    assert Trace.taken == 3
    assert client.trace_batches == [(["records 1"], 1, [0.01]), (["records 3"], 1, [0.01])]


def test_a_clock_pair_delayed_by_queued_work_is_not_taken(fake, monkeypatch):
    """Work left queued on the device delays the sampler's clock kernel; a pair off by half its span
    would move every window into its neighbour's flushes: the last good pair stands."""
    monkeypatch.setenv("FAKE_DRAM_CLOCK_DELAYED", "1")
    w = witness(fake)
    try:
        before = w._offset()
        (read,) = w.reads([_batch(0.1)])
    finally:
        w.stop()
    assert w._offset() == before and len(w.clocks) == 1
    assert any("not taken" in line for line in w.other) and read.coverage > 0.9


def test_a_differential_under_the_l2_is_said():
    """Reads added to the flushed calls alone cost more DRAM time than a warm L2 saves only while the
    differential exceeds the L2: a GPU where it does not (an L2 of 126 MB) is told so."""
    base, base_unflushed = batches([330]), dram.Reads(100, 70 * MB * 100, 1.0)
    honest = dram.Reads(100, 60 * MB * 100, 1.0)
    found, notes, _ = dram.unflushed_findings(base, batches([320]), base_unflushed, honest, FLUSH, 126 << 20)
    assert found == [] and "does not exceed this GPU's L2" in notes[0]
    assert dram.unflushed_findings(base, batches([320]), base_unflushed, honest, FLUSH, L2)[1] == []


def test_a_witness_lost_once_the_candidate_is_loaded_makes_the_evaluation_infra_error(tasks_root, tmp_path,
                                                                                      monkeypatch):
    """No pass rests on a flush that was not witnessed, and no failure is the candidate's: the
    evaluation is a harness error (Result: infra_error, redone by --resume). The witness runs on CUDA
    only; here the judge's read of it is replaced by one that finds it ended."""
    from runner.evaluator.judge.evaluation import evaluate
    from runner.tasks.task import load_task
    os.environ.setdefault("TRITON_INTERPRET", "1")

    def ended(self, config, spans, unflushed=None):
        self.dram_lost = f"the judge's DRAM witness ended (on {config.name})"
    monkeypatch.setattr(Rounds, "_read_dram", ended)
    task = load_task(tasks_root / "triton2triton/scale", tasks_root)
    ev = evaluate(task, None, "cpu", splits=("seen",))
    assert ev.harness_error and ev.harness_error.startswith("the judge's DRAM witness ended (on ")


def test_a_config_whose_batches_the_samples_missed_is_unseen():
    """Under MIN_SEEN of either runner's batches covered: the flush was not witnessed there."""
    seen, missed = batches([270]), batches([3], coverage=0.2)
    assert dram.unseen(seen * 4, seen * 2 + missed, FLUSH, L2) is None                 # 2 of 3 judged
    why = dram.unseen(seen * 4, seen + missed * 2, FLUSH, L2)
    assert why.startswith("the DRAM witness's samples covered 1 of the candidate's 3 timed batches")
    assert "baseline's" in dram.unseen(missed * 3 + seen, seen * 4, FLUSH, L2)
    assert dram.unseen(missed, missed, 32 << 20, L2) is None       # no rule asks where the flush fits the L2


def test_a_candidate_whose_batches_the_samples_miss_is_no_pass(fake, monkeypatch):
    """Samples that miss the candidate's batches (a gap the candidate might cause: a host it keeps
    busy, the device's own) leave its flushes unwitnessed: a note would let such a candidate through,
    so the evaluation is a harness error (infra_error: redone, never a pass, never a failure)."""
    monkeypatch.setenv("FAKE_DRAM_GAP", str(fake / "gap"))
    w = witness(fake)
    judge = _Judge(w)
    try:
        base = [_batch(0.1), _batch(0.1)]
        cand = [_batch(0.1, quiet=fake / "gap"), _batch(0.1, quiet=fake / "gap")]   # no sample in them
        judge._read_dram(_Config, {"baseline": base, "candidate": cand})
    finally:
        w.stop()
    assert judge.flags == [] and judge.dram is None
    assert judge.dram_lost.startswith("the DRAM witness's samples covered 0 of the candidate's 2 timed batches")
    assert judge.dram_lost.endswith("on b4_s512: the L2 flush was not witnessed")


def test_a_decode_slowed_past_the_wait_is_waited_for_while_it_progresses(fake, monkeypatch):
    """A sampler whose samples come late (its decode slowed by a busy host) is waited for while they
    keep coming: the batch is read whole, not as one the samples missed."""
    monkeypatch.setenv("FAKE_DRAM_LAG_S", "1.0")
    monkeypatch.setattr(dram, "WAIT_S", 0.4)
    w = witness(fake)
    try:
        (read,) = w.reads([_batch(0.1)])
    finally:
        w.stop()
    assert read.coverage > 0.9


def test_a_sampler_that_gives_no_sample_is_unavailable_before_the_candidate(fake, monkeypatch):
    monkeypatch.setenv("FAKE_DRAM_NO_SAMPLES", "1")
    # READY_S bounds the fake's start too: at 0.5 s a loaded CI-sized machine (the full tier's two
    # workers and the docker engine's process) did not see it start in time ("did not start", rc -9)
    monkeypatch.setattr(dram, "READY_S", 5.0)
    with pytest.raises(dram.Unavailable, match="gave no sample"):
        witness(fake)


def test_an_unflushed_batch_the_samples_missed_is_unseen():
    """The differential rests on one unflushed batch a runner: missed, it is no witness (never a note
    a candidate could buy by a gap there)."""
    seen = batches([270])
    assert dram.unseen(seen, seen, FLUSH, L2, seen + seen) is None
    why = dram.unseen(seen, seen, FLUSH, L2, seen + batches([60], coverage=0.5))
    assert why.startswith("the DRAM witness's samples covered 50% of the candidate's unflushed batch")


@pytest.mark.parametrize("setting,device,gpus,kept", [
    ("auto", "cuda", 1, "last 1"), ("auto", "cuda", 8, "last 2"), ("auto", "cpu", 1, None), ("off", "cuda", 1, None),
    ("0", "cpu", 1, "first 1"), ("99999", "cuda", 1, None), ("x", "cuda", 1, None)])
def test_the_judges_cores_are_the_last_on_a_gpu_and_none_on_the_cpu(monkeypatch, setting, device, gpus, kept):
    """One core kept for every four GPUs of the host (each evaluation side by side runs a sampler)."""
    own = sorted(os.sched_getaffinity(0))
    needed = 1 + (int(kept.split()[1]) if kept else 1)
    if len(own) < needed:
        pytest.skip(f"fewer than {needed} cores here")
    monkeypatch.setenv(isolation.JUDGE_CORES_ENV, setting)
    monkeypatch.setattr(isolation, "_gpus_on_host", lambda: gpus)
    cores = isolation.judge_cores(device)
    which, n = kept.split() if kept else ("", "0")
    expected = tuple(own[-int(n):] if which == "last" else own[:int(n)]) if kept else ()
    assert cores == expected
    if cores:      # the runners on every other core; the judge's own processes on these alone
        others = [c for c in own if c not in cores]
        assert isolation.off_cores(cores) == ["taskset", "--cpu-list", ",".join(map(str, others))]
        assert isolation.on_cores(cores) == ["taskset", "--cpu-list", ",".join(map(str, cores))]
    else:
        assert isolation.off_cores(cores) == isolation.on_cores(cores) == []


def test_the_sampler_runs_on_the_judges_cores_alone(fake):
    own = sorted(os.sched_getaffinity(0))
    if len(own) < 2:
        pytest.skip("one core here: none can be kept")
    w = dram.Witness(FAKE, 0, fake / "dram_samples.txt", FLUSH, L2, prefix=tuple(isolation.on_cores((own[-1],)))).ready()
    try:
        assert os.sched_getaffinity(w.proc.pid) == {own[-1]}      # taskset exec'd the sampler itself
        assert w.reads([_batch(0.05)])[0].coverage > 0.9
    finally:
        assert w.stop()["rc"] == 0
