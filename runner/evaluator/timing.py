"""Timing: baseline and candidate are timed in alternating rounds on inputs of the same values, each
repetition one call. The regime is the same for both and recorded:

  cold (default)  the L2 is flushed before every call by reading a 256 MB buffer: the time of one
                  call on a cold cache, as KernelBench and Nsight Compute measure. A read, not
                  KernelBench's write: a written buffer leaves the L2 full of dirty lines whose
                  write-back the timed kernel pays for (an H100 run showed memory-bound kernels
                  5-20 % slower than Nsight Compute's flushed `gpu__time_duration` that way);
  warm            no flush: calls back to back with whatever the previous call left in cache.

Graph replay (optional, `graph=True`; AgentKernelArena times CUDA-graph replays): each kernel's call
is captured once into a CUDA graph and every repetition replays it, so Python launch overhead is
not part of either time. If either kernel cannot be captured, both are timed eagerly and the
config says so; the method string names the mode either way.

The baseline's figure (`stats`) is the median over rounds of each round's trimmed mean (10 % off
each end); the candidate's (`paired`) is the baseline's plus the median over rounds of their
difference in a round. The IQR and the coefficient of variation are kept.

Where this runs: the clocks (clock.py) run in the kernel runner (kernel_runner.py), beside the kernel they
time, so a candidate can rewrite them. The judge (judge/rounds.py) therefore believes no sample on its
own: it schedules the repetitions (`rounds_for`, `reps_per_round`, `launch_pad_ms`), times every batch
with its own wall clock and compares the candidate's unexplained time per call with the baseline's
(docs/evaluation.md, "time bound").
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field, replace

# Rounds alternate baseline and candidate to cancel drift (clocks, thermals), each round at a new
# placement of the inputs (judge/rounds.py, the arena). Two processes read the same kernel at one placement
# up to ~0.1 us apart, a different amount at each placement (an H100: calls of 2.5-4 us, up to 4 %
# for one config over 5 rounds), so the number of rounds, not of repetitions, sets how well that
# averages out: a config gets as many rounds of at least ROUND_REPS repetitions as its share of
# repetitions allows, from ROUNDS to MAX_ROUNDS (results/gpu-2026-11-27b.md).
ROUNDS, MAX_ROUNDS, ROUND_REPS = 5, 20, 25
# ... and a config whose round differences spread widely gets more rounds, up to ROUND_EXTENSION
# times as many, until the standard error of their median is within ROUND_SE_TARGET of the
# baseline's figure (an H100: an 8.8 us call whose rounds spread 0.4 us, five times its
# neighbours', read 4.3 % off after 20 rounds: results/gpu-2026-11-27c.md).
ROUND_SE_TARGET, ROUND_EXTENSION = 0.005, 3
TARGET_SECONDS_PER_KERNEL = 0.4
MIN_REPS, MAX_REPS = 50, 500
WARMUP_CALLS = 5
# The CPU: times are recorded but not meaningful (the Triton interpreter, a shared machine), so one
# round of one call each, with no warm-up (the config's correctness calls just ran in both runners):
# the interpreter spends seconds a call, and five rounds were most of a CPU evaluation (issue 31).
CPU_REPS = 1
# ... but a config whose calls are cheap (both at most CPU_CHEAP_MS) gets CPU_MORE_ROUNDS more, five
# as before: a median of five absorbs the calls a loaded machine delayed (the judge's time bound
# reads it; one, and three, read 76 ms off for an honest 60 ms kernel on a 2-core machine at load 25).
CPU_CHEAP_MS, CPU_MORE_ROUNDS = 250.0, 4
EVENT_RESOLUTION_MS = 0.0005          # cudaEventElapsedTime's resolution: the smallest sample reported
# The GPU must still be busy when the timed call's launches reach it, or the start..end span counts
# host-side launch cost (Triton's Python launcher: 30-100 us per call on an H100 host, more than the
# ~85 us flush). A device-side spin after the flush covers LAUNCH_COVER x the slowest host launch seen.
LAUNCH_COVER = 2.0
LAUNCH_COVER_MIN_MS, LAUNCH_COVER_MAX_MS = 0.02, 5.0
REGIMES = ("cold", "warm")
L2_FLUSH_BYTES = 256 * 1024 * 1024   # the cold regime's read: larger than any current L2 (H100: 50 MB, MI300X: 256 MB MALL)
# Each round's figure is its samples' mean less the ROUND_TRIM share at each end (an interrupted call,
# a clock hiccup); a round needs MIN_ROUND_SAMPLES for that (the CPU's rounds hold one each).
ROUND_TRIM, MIN_ROUND_SAMPLES = 0.10, 5

# How a clock keeps the host's launch work out of its samples (the judge writes only these words).
LAUNCH_COVER_KINDS = ("gate", "spin pad")


def method(device: str, regime: str = "cold", graph: bool = False) -> str:
    if device == "cpu":
        return "wall clock (perf_counter), 4 MB flush per call, median; not a meaningful kernel time"
    flush = "cold L2 (256 MB read) per call" if regime == "cold" else "warm L2, back-to-back calls"
    calls = "CUDA-graph replay of each call" if graph else "eager calls"
    return (f"cuda-events less the empty event pair, {calls}, {flush}, device spin covering the host launch, "
            f"device-wide sync bound per call, alternating rounds (random first, one placement each), baseline: median of round trimmed means, candidate: baseline + median of round differences, gc off")


@dataclass
class Timed:
    time_ms: float                    # the kernel's figure: `stats` says which statistic
    samples: int
    iqr_ms: float = 0.0
    cv: float = 0.0
    escaped: int = 0                  # repetitions whose gap exceeds the calibrated tail
    gap_ms: float = 0.0               # median of (start..end2) - (start..end): the sync tail
    all_ms: list = field(default_factory=list, repr=False)
    round_ms: list = field(default_factory=list, repr=False)   # each round's trimmed mean, where rounds count


def trimmed_mean(samples: list[float], trim: float = ROUND_TRIM) -> float:
    s = sorted(samples)
    k = int(len(s) * trim)
    return statistics.fmean(s[k:len(s) - k])


def stats(name_samples: list[float], escaped: int = 0, gaps=(), rounds: list[list[float]] = ()) -> Timed:
    """A kernel's figure from its samples: with `rounds` (each round's samples, every round at its
    own placement) of at least MIN_ROUND_SAMPLES each, the median over rounds of each round's
    trimmed mean; otherwise the median of all samples (the CPU). `paired` then puts the candidate's
    figure beside the baseline's.

    Why not the median of all samples: on an H100 a call of 2.5-4 us lands in one of a few levels
    0.1-0.2 us apart, repetition by repetition, and a placement moves all of them by up to 0.7 us
    (the same for both kernels of a round). A median of such a mixture sits on one level or the
    next as the levels' shares move by chance; a round's mean moves with them smoothly. Replayed on
    H100 samples (146 noop configs, bench/archive/replay_stats.py, results/gpu-2026-11-27b.md): worst
    6.9 % with the median of all samples, 3.2 % this way; calls of 4 us or more 1.1 %. Why a median
    over rounds, not a mean (which read the same): a baseline slowed in a few rounds (GPU work a
    stopped candidate queued before) must not move its figure."""
    s = sorted(name_samples)
    per_round = []
    if rounds and min(len(r) for r in rounds) >= MIN_ROUND_SAMPLES:
        per_round = [trimmed_mean(r) for r in rounds]
        figure = statistics.median(per_round)
    else:
        figure = statistics.median(s)
    if len(s) >= 4:
        q = statistics.quantiles(s, n=4)
        iqr = q[2] - q[0]
    else:
        iqr = s[-1] - s[0]
    mean = statistics.fmean(s)
    cv = statistics.pstdev(s) / mean if mean > 0 and len(s) > 1 else 0.0
    return Timed(figure, len(s), iqr, cv, escaped, statistics.median(gaps) if gaps else 0.0, s, per_round)


def median_standard_error(values: list[float]) -> float:
    """The standard error of the median of `values` (near-normal), from their spread; 0 for fewer than 2."""
    return 1.2533 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0


def more_rounds(base_rounds: list[list[float]], cand_rounds: list[list[float]], planned: int) -> int:
    """Rounds to add once `planned` or more are done: none while the median of the round differences
    is known to ROUND_SE_TARGET of the baseline's figure (its standard error from their spread), or
    once ROUND_EXTENSION x `planned` are done; else up to `planned` more. Either kernel can only
    widen its rounds' spread, which buys it nothing but more of them. The CPU (rounds of one call):
    CPU_MORE_ROUNDS after a first round of at most CPU_CHEAP_MS a call for both kernels."""
    n = len(base_rounds)
    if n == 1 and cand_rounds and max(len(r) for r in (*base_rounds, *cand_rounds)) == 1:
        return CPU_MORE_ROUNDS if max(base_rounds[0] + cand_rounds[0]) <= CPU_CHEAP_MS else 0
    if n < max(2, planned) or n >= planned * ROUND_EXTENSION or len(cand_rounds) != n \
            or min(len(r) for r in (*base_rounds, *cand_rounds)) < MIN_ROUND_SAMPLES:
        return 0
    base = [trimmed_mean(r) for r in base_rounds]
    diffs = [trimmed_mean(c) - b for b, c in zip(base, cand_rounds)]
    if median_standard_error(diffs) <= ROUND_SE_TARGET * statistics.median(base):
        return 0
    return min(planned, planned * ROUND_EXTENSION - n)


def paired(base: Timed, cand: Timed) -> Timed:
    """The candidate's figure as the baseline's plus the median over rounds of the two kernels'
    difference in that round (both at one placement): what a placement adds cancels round by round,
    and as a median, a kernel fast (and wrong) in fewer than
    half the rounds, where no repetition check happened to look, does not move its figure, as with
    a median of all its samples."""
    if not base.round_ms or len(base.round_ms) != len(cand.round_ms):
        return cand
    difference = statistics.median(c - b for b, c in zip(base.round_ms, cand.round_ms))
    return replace(cand, time_ms=max(EVENT_RESOLUTION_MS, base.time_ms + difference))


def speedup_interval(base: Timed, cand: Timed, offset_ms: float = 0.0, *, offset_rounds=(), level: float = 0.95,
                     resamples: int = 2000, seed: int = 0) -> tuple[float, float] | None:
    """A `level` percentile-bootstrap interval for the speedup (baseline + offset) / candidate that
    `paired` implies, resampling rounds as pairs: the rounds are the independent unit (each at its
    own placement, both kernels in it), and the figure is the median of the round differences
    beside the median of the baseline's rounds. Where rounds do not count (the CPU: one repetition
    a round) the samples are paired by index and each side's figure is its median, as `stats`.
    `offset_rounds`, the (baseline, probe) round pairs the offset was measured from (the median of
    their differences): resampled too, so the interval holds the offset's noise as well as the
    config's. None with fewer than 3 pairs. Seeded: the same samples give the same interval."""
    import random
    rounds = bool(base.round_ms) and len(base.round_ms) == len(cand.round_ms)
    pairs = list(zip(base.round_ms, cand.round_ms)) if rounds else list(zip(base.all_ms, cand.all_ms))
    if len(pairs) < 3:
        return None
    offset_pairs = list(offset_rounds) if len(offset_rounds) >= 3 else []
    rng, offset_rng = random.Random(seed), random.Random(seed + 1)    # the config's draws alike with or without
    n, m = len(pairs), len(offset_pairs)
    figures = []
    for _ in range(resamples):
        draw = [pairs[rng.randrange(n)] for _ in range(n)]
        b = statistics.median(p[0] for p in draw)
        c = b + statistics.median(p[1] - p[0] for p in draw) if rounds else statistics.median(p[1] for p in draw)
        c = max(EVENT_RESOLUTION_MS, c)
        offset = statistics.median(q[1] - q[0] for q in (offset_pairs[offset_rng.randrange(m)] for _ in range(m))) \
            if offset_pairs else offset_ms
        figures.append((b + offset) / c)
    figures.sort()
    tail = (1.0 - level) / 2.0
    return figures[int(tail * (resamples - 1))], figures[int((1.0 - tail) * (resamples - 1))]


def spin_rate(torch, probe_cycles: int = 2_000_000, tries: int = 3) -> float:
    """SM clock cycles per ms of `torch.cuda._sleep`, measured on a busy (boosted) GPU: the fastest
    of a few probes after a warm-up spin."""
    spin = getattr(torch.cuda, "_sleep", None)
    if spin is None:
        return 0.0
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    spin(probe_cycles)
    best = 0.0
    for _ in range(tries):
        start.record()
        spin(probe_cycles)
        end.record()
        end.synchronize()
        best = max(best, probe_cycles / max(start.elapsed_time(end), 1e-3))
    return best


def total_reps(estimate_ms: float) -> int:
    """Repetitions of one kernel over all rounds: about TARGET_SECONDS_PER_KERNEL, within MIN_REPS and MAX_REPS."""
    return max(MIN_REPS, min(MAX_REPS, int(TARGET_SECONDS_PER_KERNEL * 1000 / max(estimate_ms, 1e-3))))


def rounds_for(estimate_ms: float) -> int:
    """Rounds for a config whose quicker kernel takes `estimate_ms` a call (one figure for both)."""
    return max(ROUNDS, min(MAX_ROUNDS, total_reps(estimate_ms) // ROUND_REPS))


def reps_per_round(estimate_ms: float, rounds: int = ROUNDS) -> int:
    """Repetitions of one kernel in each of `rounds` rounds."""
    return max(-(-MIN_REPS // rounds), total_reps(estimate_ms) // rounds)


def launch_pad_ms(host_ms: list[float]) -> float:
    """One spin pad for both kernels (same conditions): LAUNCH_COVER x the slower host launches
    seen in warm-up (the median of the upper half), within the pad's bounds."""
    if not host_ms:
        return LAUNCH_COVER_MIN_MS
    upper = sorted(host_ms)[len(host_ms) // 2:]
    return min(LAUNCH_COVER_MAX_MS, max(LAUNCH_COVER_MIN_MS, LAUNCH_COVER * statistics.median(upper)))


def gate_wait(gave_up, calls: int) -> dict:
    """What a runner's timed batches are told of the launch gate, from its warm-up: a runner whose
    calls mostly ran the gate out blocks the host before its launches are queued (a .tolist(), an
    .item()), so a waiting gate only runs out, GIVE_UP_MS a call outside the samples that the clock
    bound (ConfigJudge._bound) would read as the harness's own steps: it is told not to wait.
    Believing a candidate's runner here costs only the candidate: its host launches then count in
    its samples."""
    if type(gave_up) is int and calls // 2 < gave_up <= calls:
        return {"gate_wait": False}
    return {}


def finite(x) -> bool:
    return x is not None and math.isfinite(x)
