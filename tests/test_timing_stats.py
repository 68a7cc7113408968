"""The judge's per-kernel figures (timing.stats, timing.paired): rounds at shared placements, a
kernel's calls landing in a few levels, a candidate fast in a few rounds only."""
import random
import statistics
from pathlib import Path

import pytest

from runner.evaluator.timing import paired, speedup_interval, stats

TICK_MS = 0.000032           # an H100's event clock: 32 ns


def ticked(durations_ms, rng):
    """Durations as CUDA events read them: start and end rounded to the clock's tick."""
    out = []
    for d in durations_ms:
        start = rng.uniform(0.0, TICK_MS)
        out.append((int((start + d) / TICK_MS) - int(start / TICK_MS)) * TICK_MS)
    return out


def round_samples(kernel_ms, placements, rng, reps=25, levels=(0.0, 0.0001, 0.0002)):
    """Each round's samples: the kernel's time plus the round's placement, each call landing in one
    of a few levels 0.1 us apart with shares that vary from round to round (what an H100 shows for
    calls of 2.5-4 us)."""
    rounds = []
    for placement in placements:
        shares = [rng.random() for _ in levels]
        rounds.append(ticked([kernel_ms + placement + rng.choices(levels, shares)[0] + rng.gauss(0, 0.00001)
                              for _ in range(reps)], rng))
    return rounds


def figures(base_rounds, cand_rounds):
    base = stats([x for r in base_rounds for x in r], rounds=base_rounds)
    return base, paired(base, stats([x for r in cand_rounds for x in r], rounds=cand_rounds))


def test_a_noop_reads_one_where_a_median_of_all_samples_does_not():
    rng = random.Random(3)
    ours, pooled = [], []
    for _ in range(20):
        placements = [rng.uniform(0.0, 0.0007) for _ in range(20)]
        b, c = round_samples(0.0027, placements, rng), round_samples(0.0027, placements, rng)
        base, cand = figures(b, c)
        ours.append(abs(base.time_ms / cand.time_ms - 1))
        pooled.append(abs(statistics.median(x for r in b for x in r) / statistics.median(x for r in c for x in r) - 1))
    assert max(pooled) > 0.015         # the mixture: a median of all samples reads a noop > 1.5 % off
    assert max(ours) < 0.015


def test_a_kernel_fast_in_a_minority_of_rounds_does_not_move_its_figure():
    """A candidate that skips its work in 8 of 20 rounds (where no repetition check looked) moves a
    mean of its rounds by 40 %; its paired figure stays within 2 % of the honest one."""
    rng = random.Random(4)
    placements = [rng.uniform(0.0, 0.0007) for _ in range(20)]
    b, c = round_samples(0.0030, placements, rng), round_samples(0.0030, placements, rng)
    for i in rng.sample(range(20), 8):
        c[i] = [0.0005] * 25
    base, cand = figures(b, c)
    alone = stats([x for r in c for x in r], rounds=c)
    assert statistics.fmean(alone.round_ms) < 0.8 * base.time_ms   # what a mean of its rounds would report
    assert abs(cand.time_ms / base.time_ms - 1) < 0.02


def test_an_interrupted_call_does_not_move_the_baseline():
    rng = random.Random(5)
    placements = [rng.uniform(0.0, 0.0007) for _ in range(20)]
    b = round_samples(0.0030, placements, rng)
    clean = stats([x for r in b for x in r], rounds=b).time_ms
    b[7][3] = 0.2                                      # one call preempted for 200 us
    assert abs(stats([x for r in b for x in r], rounds=b).time_ms / clean - 1) < 0.002


def test_rounds_of_one_sample_fall_back_to_the_median_of_all():
    """The CPU's rounds hold one repetition each: no round figures, no pairing."""
    samples = [5.0, 4.0, 100.0, 4.5, 5.5]
    timed = stats(samples, rounds=[[x] for x in samples])
    assert timed.time_ms == 5.0 and timed.round_ms == []
    assert paired(timed, stats([1.0, 2.0, 3.0, 4.0, 5.0], rounds=[[1.0]] * 5)).time_ms == 3.0


def test_a_baseline_slowed_in_a_minority_of_rounds_moves_less_than_a_mean_would():
    """GPU work a stopped candidate queued before can slow the baseline's batch that follows: in 8 of
    20 rounds by 30 % here. A mean of rounds moves by ~12 %; the median over rounds by about half
    that, with placements spread over a quarter of the call (the clean room's 5 % is the flag)."""
    rng = random.Random(6)
    placements = [rng.uniform(0.0, 0.0007) for _ in range(20)]
    b = round_samples(0.0030, placements, rng)
    clean = stats([x for r in b for x in r], rounds=b)
    for i in rng.sample(range(20), 8):
        b[i] = [x * 1.3 for x in b[i]]
    slowed = stats([x for r in b for x in r], rounds=b)
    assert statistics.fmean(slowed.round_ms) / statistics.fmean(clean.round_ms) - 1 > 0.10
    assert slowed.time_ms / clean.time_ms - 1 < 0.07


def _rounds_with_spread(n, spread_ms, rng, base_ms=0.0088, reps=25):
    """n rounds of both kernels at one shared level per round (`spread_ms` apart between rounds,
    the same for both), each kernel's own round mean moved by `spread_ms` of noise of its own."""
    base, cand = [], []
    for _ in range(n):
        level = base_ms + rng.gauss(0.0, spread_ms)
        base.append([level + rng.gauss(0.0, spread_ms) + rng.gauss(0.0, 1e-5) for _ in range(reps)])
        shift = rng.gauss(0.0, spread_ms)
        cand.append([level + shift + rng.gauss(0.0, 1e-5) for _ in range(reps)])
    return base, cand


def test_rounds_that_spread_widely_get_more_of_them_up_to_the_cap():
    """timing.more_rounds: quiet rounds get none; rounds whose differences spread (an 8.8 us call
    0.4 us apart between rounds) get as many again, until ROUND_EXTENSION x the planned ones."""
    from runner.evaluator.timing import ROUND_EXTENSION, more_rounds
    rng = random.Random(3)
    quiet = _rounds_with_spread(20, 0.000005, rng)
    assert more_rounds(*quiet, planned=20) == 0
    noisy = _rounds_with_spread(20, 0.0004, rng)
    assert more_rounds(*noisy, planned=20) == 20
    longer = _rounds_with_spread(20 * ROUND_EXTENSION - 10, 0.0004, rng)
    assert more_rounds(*longer, planned=20) == 10
    capped = _rounds_with_spread(20 * ROUND_EXTENSION, 0.0004, rng)
    assert more_rounds(*capped, planned=20) == 0
    early = _rounds_with_spread(12, 0.0004, rng)
    assert more_rounds(*early, planned=20) == 0                      # only once the planned ones are done
    one_each = ([[x[0]] for x in noisy[0]], [[x[0]] for x in noisy[1]])
    assert more_rounds(*one_each, planned=20) == 0                   # the CPU's rounds: one sample each


def test_the_speedup_interval_holds_the_figure_and_narrows_with_steadier_rounds():
    rng = random.Random(5)
    widths = []
    for noise in (0.0005, 0.00005):
        base_rounds = [[0.010 + rng.gauss(0, noise) for _ in range(25)] for _ in range(12)]
        cand_rounds = [[0.008 + rng.gauss(0, noise) for _ in range(25)] for _ in range(12)]
        base, cand = figures(base_rounds, cand_rounds)
        lo, hi = speedup_interval(base, cand)
        point = base.time_ms / cand.time_ms
        assert lo <= point <= hi and lo < 1.25 < hi
        assert speedup_interval(base, cand) == (lo, hi)      # seeded: the same samples, the same interval
        widths.append(hi - lo)
    assert widths[1] < widths[0] / 3


def test_a_noops_interval_holds_one_and_a_real_gap_excludes_it():
    rng = random.Random(8)
    base_rounds = round_samples(0.004, [rng.uniform(0, 0.0007) for _ in range(16)], rng)
    noop_rounds = [[x + rng.gauss(0, 0.00002) for x in r] for r in base_rounds]
    lo, hi = speedup_interval(*figures(base_rounds, noop_rounds))
    assert lo < 1.0 < hi
    slower = [[x * 1.2 for x in r] for r in base_rounds]
    lo, hi = speedup_interval(*figures(base_rounds, slower))
    assert hi < 1.0


def test_an_applied_offset_brings_its_own_noise_into_the_interval():
    """The process offset is a measurement (the median of its rounds' differences): resampled with
    the config's rounds, a noisy offset widens the interval around the same point, and a steady
    one leaves it as a fixed offset does."""
    rng = random.Random(11)
    base_rounds = [[0.050 + rng.gauss(0, 0.0002) for _ in range(25)] for _ in range(16)]
    cand_rounds = [[x + rng.gauss(0, 0.0002) for x in r] for r in base_rounds]
    base, cand = figures(base_rounds, cand_rounds)
    flipping = [(0.050, 0.050 + d) for d in (-0.012,) * 4 + (0.0,) * 4 + (0.012,) * 4]   # levels between rounds
    offset = statistics.median(p[1] - p[0] for p in flipping)
    fixed = speedup_interval(base, cand, offset)
    noisy = speedup_interval(base, cand, offset, offset_rounds=flipping)
    assert noisy[0] < fixed[0] and noisy[1] > fixed[1] and (noisy[1] - noisy[0]) > 5 * (fixed[1] - fixed[0])
    point = (base.time_ms + offset) / cand.time_ms
    assert noisy[0] <= point <= noisy[1]
    steady = [(0.050, 0.050 + offset)] * 12
    assert speedup_interval(base, cand, offset, offset_rounds=steady) == fixed


def test_no_interval_from_fewer_than_three_pairs():
    base, cand = figures([[0.01] * 25, [0.01] * 25], [[0.02] * 25, [0.02] * 25])
    assert speedup_interval(base, cand) is None


def test_the_cpu_times_one_round_and_five_only_for_cheap_calls():
    """The CPU's times are not meaningful: one call per kernel, unless both calls were cheap, where a
    median of five (as before) absorbs the calls a loaded machine delayed; the Triton interpreter's
    calls of seconds keep their one round (the README's main job in minutes, not tens of them)."""
    from runner.evaluator import timing
    assert timing.CPU_REPS == 1
    assert timing.more_rounds([[60.0]], [[58.0]], timing.CPU_REPS) == timing.CPU_MORE_ROUNDS == 4
    assert timing.more_rounds([[2400.0]], [[1100.0]], timing.CPU_REPS) == 0
    assert timing.more_rounds([[60.0]] * 5, [[58.0]] * 5, timing.CPU_REPS) == 0


def test_a_runner_whose_warm_up_ran_the_launch_gate_out_is_told_not_to_wait():
    """A call that blocks the host inside (.tolist()) waits GIVE_UP_MS on a gate only it can open,
    every call: outside its samples, read by the clock bound as harness steps (an H200 flagged an
    honest kernel "steps skipped" on every config beside such a PyTorch baseline). A runner whose
    warm-up calls mostly ran out is told not to wait; a first call that compiled (one give-up), a
    count beyond the batch (a forged reply) or no count at all leave the gate waiting."""
    from runner.evaluator.timing import gate_wait
    assert gate_wait(5, 5) == {"gate_wait": False}
    assert gate_wait(3, 5) == {"gate_wait": False}
    assert gate_wait(2, 5) == {} and gate_wait(1, 5) == {} and gate_wait(0, 5) == {}
    assert gate_wait(6, 5) == {} and gate_wait(10 ** 400, 5) == {} and gate_wait(None, 5) == {}
    assert gate_wait(True, 5) == {} and gate_wait(5.0, 5) == {}


def test_steps_skipped_is_read_against_the_harness_floor_not_a_many_launch_baseline():
    """The clock bound's low side ("steps skipped"): per call, the candidate's unexplained wall time
    against the least of the baseline's batches and the harness floor (a call that launches nothing
    in the baseline's runner). An H200 read 3.8 ms a call beside a PyTorch loop over 40 experts and
    1.7 ms beside its one-kernel oracle: flagged without the floor, not with it; a runner that
    really skips a millisecond of the harness's steps is still short of the floor."""
    from types import SimpleNamespace

    from runner.evaluator.judge.rounds import Rounds

    judge = SimpleNamespace(kind="gpu")
    base = SimpleNamespace(time_ms=2.31)
    n = 100

    def batches(unexplained_ms, sample_ms):
        return [(n * (unexplained_ms + sample_ms), n, n * sample_ms) for _ in range(5)]

    walls = {"baseline": batches(3.85, 2.31), "candidate": batches(1.72, 0.167)}
    without = Rounds._bound(judge, walls, base)
    assert without["short_ms"] < -without["low_limit_ms"]          # what the H200 flagged
    honest = Rounds._bound(judge, walls, base, floor=1.55)
    assert not honest["short_ms"] < -honest["low_limit_ms"]
    skipping = Rounds._bound(judge, {**walls, "candidate": batches(0.4, 0.167)}, base, floor=1.55)
    assert skipping["short_ms"] < -skipping["low_limit_ms"]
    # the floor only lowers the bar: a baseline whose own batches read below it still sets it
    low = Rounds._bound(judge, {**walls, "baseline": batches(1.0, 2.31)}, base, floor=1.55)
    assert abs(low["short_ms"] - (1.72 - 1.0)) < 1e-9


class _Event:
    """A CUDA event stand-in: query() answers from a script (True: the stream ran past it)."""
    def __init__(self, answers):
        self.answers = list(answers)

    def record(self):
        pass

    def query(self):
        return self.answers.pop(0)

    def synchronize(self):
        pass


@pytest.mark.parametrize("answers,looked_ms,outcome", [
    ([False], [0.3], None),                          # held: the gate works
    ([True], [0.3], "did not hold"),                 # ran past it though the host looked in time
    ([True, False], [4.0, 0.3], None),               # the host stalled through the first try: tried again
    ([True] * 5, [4.0] * 5, "could not be seen"),    # stalled through every try: no gate, said why
])
def test_the_launch_gates_self_test_tells_a_stalled_host_from_a_gate_that_does_not_hold(monkeypatch, answers, looked_ms, outcome):
    """The self-test looks 1 ms after closing the gate; a host stalled past the gate's give-up
    before it looked (the other runner building beside it) sees the gate run out, and one try
    called the gate broken then (a suspected cause, not a recorded one, of a baseline's runner that
    lost its gate and its device trace on an H200)."""
    from types import SimpleNamespace
    from runner.evaluator import launch_gate
    clock = []
    for ms in looked_ms:
        clock += [0.0, ms / 1000.0]
    monkeypatch.setattr(launch_gate, "time", SimpleNamespace(perf_counter=lambda: clock.pop(0), sleep=lambda s: None))
    launches = []
    monkeypatch.setattr(launch_gate, "gauntlet_launch_gate", {(1,): lambda *a: launches.append(a)})
    gate = object.__new__(launch_gate.LaunchGate)
    gate.host, gate.flag, gate.limit, gate.waits, gate.gave_up = [0], None, 1000, True, None
    if outcome is None:
        gate._check_hold(_Event(answers))
    else:
        with pytest.raises(RuntimeError, match=outcome):
            gate._check_hold(_Event(answers))
    assert len(launches) == len(answers) and gate.host == [1]      # every try opened the gate again


@pytest.mark.parametrize("excess_ms,flagged", [
    ((0.54, 0.05), False),      # the H200's honest oracle (rmsnorm_backward one-token): once, not again
    ((0.54, 0.60), True),       # work kept outside the span reads over the limit every time
    ((0.05,), False),           # nothing to time again
])
def test_a_timing_finding_is_timed_again_and_the_second_timing_counts(excess_ms, flagged):
    """A config whose first timing reads over the clock bound is timed again; the flag, and the
    figures that stand, are the second timing's (config_judge.Judge._timing_suspect)."""
    from runner.evaluator.judge.config_judge import Judge
    from runner.evaluator.judge.evaluation import import_reference
    from runner.evaluator.timing import Timed
    from runner.tasks.task import load_task

    root = Path(__file__).resolve().parents[1] / "tasks"
    task = load_task(root / "torch2cuda" / "rmsnorm_backward", root)
    timings = [(Timed(0.0437, 500), Timed(0.0099 + 0.001 * i, 500),
                {"excess_ms": e, "limit_ms": 0.5, "short_ms": e, "low_limit_ms": 0.5, "over_clock": 0,
                 "baseline_overhead_ms": 1.6}) for i, e in enumerate(excess_ms)]

    class Scripted(Judge):
        """The real decision, over scripted runs: correct, then each timing from the list."""
        def correctness(self, *args, **kwargs):
            return None, 0.0, None

        def time(self, *args, **kwargs):
            return timings.pop(0)

    judge = Scripted(task, "cuda", import_reference(task.reference), fp32_task=False, regime="cold",
                     graph=False, max_speedup=1000.0)
    row = judge.config_result(None, object(), task.configs("unseen")[0], measure=True)
    assert timings == []                                   # timed exactly as often as the case needs
    assert any(f.startswith("timing_mismatch") for f in row.flags) is flagged, row.flags
    last = 0.0099 + 0.001 * (len(excess_ms) - 1)
    assert row.candidate_ms == pytest.approx(last + (excess_ms[-1] if flagged else 0.0))
    assert any("first timing" in f for f in row.flags) is (len(excess_ms) == 2 and not flagged), row.flags


def test_the_bound_grows_with_the_judges_clock_not_with_the_candidates_samples():
    """A runner that shaves its own samples raised its own allowance while the bound was a multiple
    of its median sample (a 45 % shave passed on the CPU: red team, session 23). The bound is now a
    share of the candidate's wall time a call on the judge's clock: a 10 ms call reported as 5.5 ms
    is over it; the same call reported whole, with the honest noise of a long call, is not."""
    from types import SimpleNamespace

    from runner.evaluator.judge.rounds import Rounds
    judge, base, n = SimpleNamespace(kind="gpu"), SimpleNamespace(time_ms=12.0), 50

    def batches(unexplained_ms, sample_ms):
        return [(n * (unexplained_ms + sample_ms), n, n * sample_ms) for _ in range(5)]
    walls = {"baseline": batches(0.3, 12.0)}
    shaved = Rounds._bound(judge, {**walls, "candidate": batches(0.3 + 4.5, 5.5)}, base)
    assert shaved["excess_ms"] > shaved["limit_ms"] == pytest.approx(0.2 * 10.3)
    honest = Rounds._bound(judge, {**walls, "candidate": batches(0.3 + 0.47, 10.0)}, base)   # 4.7 % of the call
    assert honest["excess_ms"] < honest["limit_ms"]
