"""Work a candidate leaves running against the baseline.

The judge stops every process of the candidate's sandbox while the baseline is timed. On a GPU that
does not stop work those processes queued before (another CUDA context of theirs keeps executing,
time-sliced with the baseline's), so after the last config the judge ends the candidate's runner,
waits until every process of its sandbox is gone, and times the baseline again on a few timed
configs: the baseline beside the candidate must not be slower than in that clean room. The attack
itself needs a GPU (bench/judge_gpu.py redteam, `baseline_hog`); a timed assertion on this CPU would
be a flaky test, so these tests hold what does not depend on a clock: the clean room is reached
only once the candidate's processes are gone, it is timed, and the rule that reads it.
"""
import dataclasses
import json
import os

import pytest

from runner.evaluator.judge import config_judge, policy, runners

# Forked at load time: children that would keep running if nothing ended them.
LINGERING = """
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>
__attribute__((constructor)) static void leave_children_behind(void) {
    for (int i = 0; i < 3; i++) {
        if (fork() == 0) {
            signal(SIGTERM, SIG_IGN);
            prctl(PR_SET_NAME, "gauntlet-hog", 0, 0, 0);
            for (;;) pause();
        }
    }
}
"""
HONEST = "for (int64_t i = 0; i < n; i++) y[i] = a * x[i];\nreturn 0;"


def _honest_candidate(tmp_path):
    candidate = tmp_path / "honest"
    candidate.mkdir()
    (candidate / "kernel.c").write_text("#include <stdint.h>\nint launch(const float* x, int64_t n, float a, "
                                        "float* y, void* stream) {\n" + HONEST + "\n}\n")
    return candidate


def _hogs() -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and open(f"/proc/{entry}/comm").read().strip() == "gauntlet-hog":
                state = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    found.append(int(entry))
        except OSError:
            pass
    return found


def test_the_clean_room_is_timed_only_once_every_candidate_process_is_gone(native_task, tmp_path, monkeypatch):
    from runner.evaluator.judge.evaluation import evaluate
    seen_at_clean_room = []
    real = config_judge.Judge.clean_room

    def watched(self, *args, **kwargs):
        seen_at_clean_room.append(_hogs())
        return real(self, *args, **kwargs)
    monkeypatch.setattr(config_judge.Judge, "clean_room", watched)

    candidate = tmp_path / "lingering"
    candidate.mkdir()
    (candidate / "kernel.c").write_text("#include <stdint.h>\n" + LINGERING +
                                        "\nint launch(const float* x, int64_t n, float a, float* y, void* stream) {\n"
                                        + HONEST + "\n}\n")
    seen = native_task.configs("seen")[0]
    drawn = [dataclasses.replace(seen, name=f"drawn-{i}", split="drawn") for i in range(3)]
    # the CPU skips the clean room by default (judge.CLEAN_ROOM: a note at most there); asked for here
    ev = evaluate(native_task, candidate, "cpu", splits=("seen", "drawn"), drawn=drawn, language="c", clean_room=True)
    assert ev.compiled and all(c.correct for c in ev.configs), [(c.config, c.error) for c in ev.configs]
    assert seen_at_clean_room == [[]], f"candidate processes alive when the baseline was re-timed: {seen_at_clean_room}"
    cleaned = [c for c in ev.configs if c.baseline_clean_ms is not None]
    assert len(cleaned) == policy.CLEAN_ROOM_CONFIGS and all(c.baseline_clean_ms > 0 for c in cleaned)
    assert not _hogs()


@pytest.mark.parametrize("trips,flagged", [(1, False), (2, True)])
def test_a_trip_is_confirmed_by_a_second_clean_room(native_task, tmp_path, monkeypatch, trips, flagged):
    """A host-bound baseline's clean rounds can read fast by chance (a noop's read 26 % fast once on
    an H200, results/gpu-2026-11-29f.md): a trip times the clean room again and the rule reads the
    two pooled; only a trip that holds on them is a flag, and the row says it was timed twice."""
    from runner.evaluator.judge import rounds
    from runner.evaluator.judge.evaluation import evaluate
    readings = []

    def rule(beside, clean, kind, clean_rounds=(), beside_round_count=0):
        readings.append(len(clean_rounds))
        return "baseline_interference: scripted" if len(readings) <= trips else None
    monkeypatch.setattr(rounds, "interference", rule)
    monkeypatch.setattr(policy, "CLEAN_ROOM_CONFIGS", 1)
    candidate = _honest_candidate(tmp_path)
    ev = evaluate(native_task, candidate, "cpu", splits=("seen",), language="c", clean_room=True)
    assert ev.compiled and all(c.correct for c in ev.configs), [(c.config, c.error) for c in ev.configs]
    assert len(readings) == 2 and readings[1] == 2 * readings[0], readings     # the second reads both rooms' rounds
    assert any("baseline_interference" in f for f in ev.flags) is flagged, ev.flags
    timed_twice = [f for c in ev.configs for f in c.flags if "timed twice" in f]
    assert len(timed_twice) == 1 and timed_twice[0].startswith("note: "), timed_twice


def test_the_clean_room_alternates_the_baseline_with_a_stopped_stand_in(native_task, tmp_path, monkeypatch):
    """The clean room changes one thing from the timing beside the candidate: who alternates with
    the baseline. A host-bound baseline reads slower when its batches alternate with another
    process's, whatever that process is (an AKA noop's baseline read 0.19-0.25 ms a call beside its
    own code and 0.158 ms alone on an H200, a false flag), so a third runner of the baseline's own
    code, built with the others and stopped until the candidate is gone, takes the candidate's place:
    a batch of the same size each round, stopped while the baseline's runs."""
    from runner.evaluator.judge.evaluation import evaluate
    made, batches, rooms = [], [], []
    real_init, real_batch, real_room = runners.RunnerClient.__init__, config_judge.Judge._batch, config_judge.Judge.clean_room

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        made.append(self)

    def stopped(runner) -> bool:
        states = [runners._proc_state(f"/proc/{pid}/stat") for pid in runner.members()]
        return bool(states) and all(s in ("T", "t") for s in states)

    def batch(self, runner, *args, **kwargs):
        stand_in = next(r for r in made if r.stand_in)
        batches.append((bool(rooms), runner is stand_in, runner.role, stopped(stand_in)))
        return real_batch(self, runner, *args, **kwargs)

    def room(self, baseline, rows, configs, stand_in=None):
        rooms.append(stand_in)
        return real_room(self, baseline, rows, configs, stand_in)
    monkeypatch.setattr(runners.RunnerClient, "__init__", init)
    monkeypatch.setattr(config_judge.Judge, "_batch", batch)
    monkeypatch.setattr(config_judge.Judge, "clean_room", room)
    monkeypatch.setattr(policy, "CLEAN_ROOM_CONFIGS", 1)
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("GAUNTLET_JUDGE_TRACE", str(trace))
    candidate = _honest_candidate(tmp_path)
    ev = evaluate(native_task, candidate, "cpu", splits=("seen",), language="c", clean_room=True)
    assert ev.compiled and all(c.correct for c in ev.configs), [(c.config, c.error) for c in ev.configs]
    # the record keeps the pair round by round (which of the two read slower, and whether it drifts)
    pairs = [json.loads(line)["clean_room"] for line in trace.read_text().splitlines() if '"clean_room"' in line]
    assert len(pairs) == 1 and pairs[0]["baseline_round_ms"]
    assert len(pairs[0]["baseline_round_ms"]) == len(pairs[0]["stand_in_round_ms"])
    stand_ins = [r for r in made if r.stand_in]
    assert len(stand_ins) == 1 and rooms == stand_ins and stand_ins[0].role == "baseline"
    beside = [b for b in batches if not b[0]]
    clean = [b for b in batches if b[0]]
    assert beside and all(b[3] for b in beside), "the stand-in ran while the candidate was timed"
    assert not any(b[1] for b in beside)
    base = [b for b in clean if not b[1]]
    other = [b for b in clean if b[1]]
    assert base and len(base) == len(other), clean
    assert all(b[3] for b in base), "the stand-in ran beside the baseline's clean-room batches"
    assert not any(b[3] for b in other)
    assert all(r.proc.poll() is not None for r in made)
    assert "stand-in of its own code" in ev.timing_method


def test_a_stand_in_that_does_not_build_leaves_the_baseline_alone_with_a_note(native_task, tmp_path, monkeypatch):
    from runner.evaluator.judge import evaluation as evaluation_module
    from runner.evaluator.judge.evaluation import evaluate
    rooms = []
    real_build, real_room = evaluation_module._build, config_judge.Judge.clean_room

    def build(runner, probe=False):
        return {"ok": False, "compiled": False, "log": "scripted"} if runner.stand_in else real_build(runner, probe)

    def room(self, baseline, rows, configs, stand_in=None):
        rooms.append(stand_in)
        return real_room(self, baseline, rows, configs, stand_in)
    monkeypatch.setattr(evaluation_module, "_build", build)
    monkeypatch.setattr(config_judge.Judge, "clean_room", room)
    candidate = _honest_candidate(tmp_path)
    ev = evaluate(native_task, candidate, "cpu", splits=("seen",), language="c", clean_room=True)
    assert ev.compiled and all(c.correct for c in ev.configs)
    assert rooms == [None]
    assert "stand-in" not in ev.timing_method
    assert any("stand-in" in n and "did not build" in n for n in ev.notes), ev.notes
    assert any(c.baseline_clean_ms for c in ev.configs)


def test_the_stand_in_makes_its_clock_at_its_build_before_it_is_stopped(native_task, tmp_path, monkeypatch):
    """The stand-in's clock is made beside the other runners' builds, not at its first clean-room
    batch, where it sat on the evaluation's path (1.0-1.5 s of warm-up on an H200)."""
    from runner.evaluator.judge.evaluation import evaluate
    sent = []
    real_request, real_freeze = runners.RunnerClient.request, runners.RunnerClient.freeze

    def request(self, message, *args, **kwargs):
        if self.stand_in:
            sent.append(message["op"])
        return real_request(self, message, *args, **kwargs)

    def freeze(self):
        if self.stand_in:
            sent.append("(stopped)")
        return real_freeze(self)
    monkeypatch.setattr(runners.RunnerClient, "request", request)
    monkeypatch.setattr(runners.RunnerClient, "freeze", freeze)
    monkeypatch.setattr(policy, "CLEAN_ROOM_CONFIGS", 1)
    ev = evaluate(native_task, _honest_candidate(tmp_path), "cpu", splits=("seen",), language="c", clean_room=True)
    assert ev.compiled and "stand-in of its own code" in ev.timing_method
    assert sent[:3] == ["build", "clock", "(stopped)"], sent
    assert "time" in sent and sent.index("time") > 2


def test_the_cpu_skips_the_clean_room_unless_asked(native_task, tmp_path, monkeypatch):
    """On the CPU the clean room could only add a note, for two more baseline calls (judge.CLEAN_ROOM)."""
    from runner.evaluator.judge.evaluation import evaluate
    calls = []
    real = config_judge.Judge.clean_room
    monkeypatch.setattr(config_judge.Judge, "clean_room", lambda self, *a, **k: calls.append(1) or real(self, *a, **k))
    candidate = _honest_candidate(tmp_path)
    ev = evaluate(native_task, candidate, "cpu", splits=("seen",), language="c")
    assert ev.compiled and all(c.correct and c.speedup for c in ev.configs), [(c.config, c.error) for c in ev.configs]
    assert calls == [] and all(c.baseline_clean_ms is None for c in ev.configs)


@pytest.mark.parametrize("beside,clean,kind,expected", [
    (1.0, 1.0, "gpu", None),
    (1.04, 1.0, "gpu", None),                      # within 5 % + 2 us: drift, not interference
    (1.10, 1.0, "gpu", "baseline_interference"),   # 10 % slower beside the candidate: a flag
    (0.5, 1.0, "gpu", None),                       # faster beside it: nothing the candidate gains
    (0.0040, 0.0030, "gpu", None),                 # 1 us on a 3 us kernel: event resolution
    (4.0, 1.0, "cpu", "note: baseline_interference"),   # the CPU: a note only, past 50 % + 1 ms
    (1.3, 1.0, "cpu", None),
])
def test_the_interference_rule(beside, clean, kind, expected):
    finding = runners.interference(beside, clean, kind)
    assert (finding.split(":")[0] if finding else None) == (expected.split(":")[0] if expected else None)
    if expected:
        assert finding.startswith(expected)


def _rounds(figure: float, spread: float, n: int = 20) -> list[float]:
    """n round figures about `figure`, spread evenly by +-spread (a share of it)."""
    return [figure * (1 + spread * (2 * i / (n - 1) - 1)) for i in range(n)]


@pytest.mark.parametrize("spread,slowed,expected", [
    (0.01, 1.10, True),     # one-kernel baselines (rounds within 1 %): 10 % slower is a flag
    (0.01, 1.04, False),    # ... 4 % is within the slack
    (0.60, 1.23, False),    # a host-bound baseline whose rounds spread +-60 %: 23 % is its noise
    (0.60, 3.00, True),     # ... three times slower is not
])
def test_the_interference_rule_reads_the_figures_uncertainty(spread, slowed, expected):
    """The two figures are medians of round figures: their difference is read against its own
    standard error (policy.CLEAN_ROOM_Z of them), so a baseline whose calls spread widely on their
    own (a PyTorch loop that syncs with the host) is not flagged for its noise, and a tight one is
    flagged as before."""
    clean = _rounds(1.0, spread, policy.CLEAN_ROOM_ROUNDS)
    finding = runners.interference(slowed, 1.0, "gpu", clean, 20)
    assert bool(finding) is expected, finding
    # without rounds (one clean batch, the CPU's rounds of one call): the slack alone
    assert runners.interference(slowed, 1.0, "gpu", clean[:1], 20) == runners.interference(slowed, 1.0, "gpu")


def test_the_allowance_is_read_from_the_clean_room_alone():
    """A candidate that slows most of the baseline's rounds beside it, each by a different amount,
    moves their median and widens their spread; the spread it made buys it no room, since the
    allowance comes from the clean room's rounds, timed once its processes are gone."""
    import random
    import statistics
    rng = random.Random(7)
    clean = _rounds(1.0, 0.01, policy.CLEAN_ROOM_ROUNDS)
    beside = [1.0 + rng.uniform(0.0, 0.3) for _ in range(20)]
    assert statistics.median(beside) > 1.1
    assert runners.interference(statistics.median(beside), 1.0, "gpu", clean, len(beside))


@pytest.mark.parametrize("base_ms,cand_over_ms,skipped", [
    (19.0, 0.15, False),    # honest beside a 19 ms naive baseline: -0.85 ms is within 10 % of it
    (1.0, 0.15, True),      # the same shortfall beside a 1 ms baseline: steps were skipped
    (1.0, 0.7, False),      # within the 0.5 ms floor
])
def test_the_time_bounds_negative_side_grows_with_the_baseline(base_ms, cand_over_ms, skipped):
    """The bound's figure subtracts the baseline's unexplained time per call, as noisy as the
    baseline's calls are long: below zero the limit is max(the positive side's, 10 % of the
    baseline's median); above zero it stays the candidate's own (0.5 ms floor here)."""
    from types import SimpleNamespace
    from runner.evaluator.timing import Timed
    base = Timed(time_ms=base_ms, samples=100)
    n = 100
    walls = {"baseline": [((base_ms + 1.0) * n, n, base_ms * n)] * 3,           # 1 ms a call unexplained
             "candidate": [((0.03 + cand_over_ms) * n, n, 0.03 * n)] * 3}
    bound = config_judge.Judge._bound(SimpleNamespace(kind="gpu"), walls, base)
    assert bound["excess_ms"] == pytest.approx(cand_over_ms - 1.0)
    assert bound["limit_ms"] == pytest.approx(0.5)
    assert (bound["short_ms"] < -bound["low_limit_ms"]) is skipped


@pytest.mark.parametrize("cand_over_ms,skipped", [
    (1.0, False),       # honest: the harness's steps as in the baseline's fastest batch
    (0.15, True),       # steps skipped: below every batch of the baseline
])
def test_steps_skipped_is_said_only_below_every_baseline_batch(cand_over_ms, skipped):
    """A baseline slowed in 3 of its 5 batches (+0.8 ms a call, as an H100 read once on an 8 us
    kernel) moves the median it is compared with; an honest candidate must not read as one that
    skipped the harness's steps, and one that did still must."""
    from types import SimpleNamespace
    from runner.evaluator.timing import Timed
    base = Timed(time_ms=0.008, samples=500)
    n = 100
    walls = {"baseline": [((0.008 + 1.0) * n, n, 0.008 * n)] * 2 + [((0.008 + 1.8) * n, n, 0.008 * n)] * 3,
             "candidate": [((0.007 + cand_over_ms) * n, n, 0.007 * n)] * 5}
    bound = config_judge.Judge._bound(SimpleNamespace(kind="gpu"), walls, base)
    assert bound["excess_ms"] == pytest.approx(cand_over_ms - 1.8)     # the median's figure, as before
    assert (bound["short_ms"] < -bound["low_limit_ms"]) is skipped


def test_the_harness_floor_is_measured_only_where_steps_skipped_would_be_said(native_task, tmp_path, monkeypatch):
    """The floor (calls that launch nothing, in the baseline's runner) can only lower the figure a
    candidate's unexplained time is compared with, so it is measured only on a config where the
    baseline's own batches would say "steps skipped"; there the real runners' empty batch gives a
    figure, and the verdict reads the bound made with it."""
    from runner.evaluator.judge.evaluation import evaluate
    floors, bounds = [], []
    real_floor, real_bound = config_judge.Judge._harness_floor, config_judge.Judge._bound

    def floor(self, *args, **kwargs):
        floors.append(real_floor(self, *args, **kwargs))
        return floors[-1]

    def bound(self, walls, base, floor=None):
        found = real_bound(self, walls, base, floor)
        if floor is None and len(bounds) == 0:      # the first config reads as if steps were skipped
            found = {**found, "short_ms": -1e6}
        bounds.append((floor, found["short_ms"]))
        return found
    monkeypatch.setattr(config_judge.Judge, "_harness_floor", floor)
    monkeypatch.setattr(config_judge.Judge, "_bound", bound)
    candidate = _honest_candidate(tmp_path)
    seen = native_task.configs("seen")[0]
    drawn = [dataclasses.replace(seen, name="drawn-0", split="drawn")]
    ev = evaluate(native_task, candidate, "cpu", splits=("seen", "drawn"), drawn=drawn, language="c")
    assert ev.compiled and all(c.correct for c in ev.configs), [(c.config, c.error) for c in ev.configs]
    assert len(bounds) == 3 and len(floors) == 1 and floors[0] >= 0.0, floors           # measured once: the one config that asked
    assert bounds[1][0] == floors[0] and bounds[1][1] > -1e6        # ... and its bound was made again with it
    assert bounds[2][0] is None                                     # the other config: no floor
    assert not any("steps skipped" in f for c in ev.configs for f in c.flags)


def test_the_stand_in_takes_the_baselines_compiled_kernels(tmp_path):
    """The stand-in compiles nothing in the clean room: the baseline's Triton cache (kernels and the
    launcher stub) is copied into its own before its warm-up; a link in the baseline's cache is
    copied as a link, never followed; a file the stand-in has already is left as it is."""
    from types import SimpleNamespace
    base, stand = tmp_path / "baseline", tmp_path / "stand-in"
    (base / ".triton" / "ab12").mkdir(parents=True)
    (base / ".triton" / "ab12" / "kernel.cubin").write_bytes(b"\x7fELF")
    (tmp_path / "secret").write_text("not the cache's")
    (base / ".triton" / "ab12" / "link").symlink_to(tmp_path / "secret")
    (stand / ".triton" / "cd34").mkdir(parents=True)
    (stand / ".triton" / "cd34" / "own.json").write_text("{}")
    # a file both have: the stand-in's own may be loaded in it (its clock's launcher stubs, made at
    # its build), and a copy over it would rewrite a mapped shared object in place
    (base / ".triton" / "ef56").mkdir(parents=True)
    (base / ".triton" / "ef56" / "launcher.so").write_bytes(b"the baseline's build")
    (stand / ".triton" / "ef56").mkdir(parents=True)
    (stand / ".triton" / "ef56" / "launcher.so").write_bytes(b"the stand-in's own")
    inode = (stand / ".triton" / "ef56" / "launcher.so").stat().st_ino
    runners.RunnerClient.take_compiled(SimpleNamespace(workdir=stand), SimpleNamespace(workdir=base))
    assert (stand / ".triton" / "ab12" / "kernel.cubin").read_bytes() == b"\x7fELF"
    assert (stand / ".triton" / "ab12" / "link").is_symlink()
    assert (stand / ".triton" / "cd34" / "own.json").exists()
    held = stand / ".triton" / "ef56" / "launcher.so"
    assert held.read_bytes() == b"the stand-in's own" and held.stat().st_ino == inode
    runners.RunnerClient.take_compiled(SimpleNamespace(workdir=stand), SimpleNamespace(workdir=tmp_path / "none"))


def test_a_stand_in_that_dies_leaves_the_baseline_alone_with_a_note(native_task, tmp_path, monkeypatch):
    """The stand-in is the judge's own code: if it dies, the clean room times the baseline alone and
    says so, and that no interval carries the pair's widening; the evaluation is not failed for it (a
    harness fault is never the candidate's)."""
    import os
    import signal
    from runner.evaluator.judge.evaluation import evaluate
    real = runners.RunnerClient.take_compiled

    def die_first(self, other):
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        return real(self, other)
    monkeypatch.setattr(runners.RunnerClient, "take_compiled", die_first)
    candidate = _honest_candidate(tmp_path)
    ev = evaluate(native_task, candidate, "cpu", splits=("seen",), language="c", clean_room=True)
    assert ev.error is None and ev.compiled and all(c.correct for c in ev.configs), (ev.error, ev.configs)
    assert any("stand-in failed" in n and "no interval is widened" in n for n in ev.notes), ev.notes
    assert any(c.baseline_clean_ms for c in ev.configs)


@pytest.mark.parametrize("shift,noise,expected", [
    (0.0, 0.01, 0.0),       # the same code, the same level: nothing to widen
    (0.30, 0.01, 0.30),     # a level 30 % apart in every round: the intervals grow by it
    (0.02, 0.20, 0.0),      # 2 % apart inside rounds spread +-20 %: the intervals already hold it
])
def test_the_stand_in_measures_how_far_two_processes_read_apart(shift, noise, expected):
    """At the end of the evaluation the baseline and its stand-in run the same code in two
    processes; their paired difference, when it exceeds its rounds' noise, is how far two runner
    processes read apart for a whole evaluation (an AKA noop read 0.92-1.51x with 8 of 9 intervals
    excluding 1.0 on an H200): no round resamples that."""
    from runner.evaluator.judge import rounds
    n = policy.CLEAN_ROOM_ROUNDS
    base = [[1.0 * (1 + noise * (2 * i / (n - 1) - 1))] * 8 for i in range(n)]
    other = [[x * (1 + shift) for x in r] for r in base[::-1]]
    assert rounds.pair_spread(base, other) == pytest.approx(expected, abs=0.002)


def test_every_interval_is_widened_by_the_pairs_spread_on_a_gpu_only():
    from types import SimpleNamespace
    from runner.evaluator.judge import rounds
    def row(interval, offset=None, baseline_ms=1.0):
        return SimpleNamespace(speedup_ci95=interval, baseline_offset_ms=offset, baseline_ms=baseline_ms)
    # rows[2] and rows[3]: an applied offset's share already widened them (row_interval): 0.3 of the
    # call beyond the pair's 0.25 (no more), 0.04 below it (only up to 0.25)
    rows = [row([0.99, 1.01]), row(None), row([0.99, 1.01], 0.3, 1.3), row([0.99, 1.01], 0.1, 2.6)]
    judge = SimpleNamespace(kind="gpu", pair_spreads=[("a", 0.0), ("b", 0.25)], process_spread=0.0, flags=[])
    rounds.Rounds.widen_for_pairs(judge, rows)
    assert rows[0].speedup_ci95 == [round(0.99 / 1.25, 4), round(1.01 * 1.25, 4)] and rows[1].speedup_ci95 is None
    assert rows[2].speedup_ci95 == [0.99, 1.01]
    assert rows[3].speedup_ci95 == [round(0.99 / (1.25 / 1.04), 4), round(1.01 * (1.25 / 1.04), 4)]
    assert judge.process_spread == 0.25 and any("25.0% apart" in f and "stand-in, b)" in f for f in judge.flags)
    # an offset's spread already applied is not applied twice: only the excess widens further
    again = SimpleNamespace(kind="gpu", pair_spreads=[("b", 0.25)], process_spread=0.10, flags=[])
    one = row([1.0, 1.0])
    rounds.Rounds.widen_for_pairs(again, [one])
    assert one.speedup_ci95 == [round(1.1 / 1.25, 4), round(1.25 / 1.1, 4)]
    cpu = SimpleNamespace(kind="cpu", pair_spreads=[("b", 0.5)], process_spread=0.0, flags=[])
    one = row([0.9, 1.1])
    rounds.Rounds.widen_for_pairs(cpu, [one])
    assert one.speedup_ci95 == [0.9, 1.1] and not cpu.flags
