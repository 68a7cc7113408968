"""Replay the judge's per-kernel statistic on recorded samples: which figure reads a noop (the
baseline against itself) closest to 1.0, on one set of samples (issue 10's fidelity).

    GAUNTLET_JUDGE_TRACE_SAMPLES=1 python3 bench/judge_gpu.py fidelity --agents noop ... --out DIR
    python3 bench/archive/replay_stats.py DIR|TRACE [DIR|TRACE ...]

Every timed config's trace line holds each round's samples of both runners (`round_samples`), the
offset's probe line too. Each statistic gives both kernels' figures from them; the baseline's time
is moved by the offset measured with the same statistic, as the judge does (judge.py)."""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from runner.evaluator import timing  # noqa: E402


def _rounds(per_round):
    """A statistic from a per-round figure: the baseline's mean over rounds; the candidate's the
    baseline's plus the median of the round differences (timing.paired)."""
    def figure(base_rounds, cand_rounds):
        b = [per_round(r) for r in base_rounds]
        c = [per_round(r) for r in cand_rounds]
        base = statistics.fmean(b)
        return base, base + statistics.median(y - x for x, y in zip(b, c))
    return figure


def _pooled(f):
    return lambda b, c: (f([x for r in b for x in r]), f([x for r in c for x in r]))


STATISTICS = {
    "pooled median (before)": _pooled(statistics.median),
    "pooled mean": _pooled(statistics.fmean),
    "rounds: median": _rounds(statistics.median),
    "rounds: mean": _rounds(statistics.fmean),
    "rounds: IQM": _rounds(lambda xs: timing.trimmed_mean(xs, 0.25)),
    "rounds: 10% trimmed mean": _rounds(lambda xs: timing.trimmed_mean(xs, 0.10)),
    "judge (timing.stats + paired)": None,
}


def judge_figure(b, c):
    base = timing.stats([x for r in b for x in r], rounds=b)
    cand = timing.paired(base, timing.stats([x for r in c for x in r], rounds=c))
    return base.time_ms, cand.time_ms


def read(trace: Path) -> tuple[dict | None, dict[str, dict]]:
    """One evaluation's trace: the offset's probe line (None without one) and each timed config's
    line (a config timed again: the second counts)."""
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    timed = [d for d in lines if d.get("round_samples")]
    # GAUNTLET_JUDGE_OFFSET_ALL writes one probe line per config, the applied one last
    probe = next((d for d in reversed(timed) if d["probe"]), None)
    return probe, {d["config"]: d for d in timed if not d["probe"]}


def replay(probe: dict | None, last: dict[str, dict]) -> dict[str, list[tuple[str, float, float]]]:
    """statistic -> [(config, its call in us, |x - 1|)] for one evaluation (`read`'s)."""
    out = {}
    for name, f in STATISTICS.items():
        f = f or judge_figure
        offset = 0.0
        if probe:
            pb, pc = f(probe["round_samples"]["baseline"], probe["round_samples"]["candidate"])
            offset = pc - pb
        rows = []
        for config, d in last.items():
            b, c = f(d["round_samples"]["baseline"], d["round_samples"]["candidate"])
            rows.append((config, b * 1000, abs((b + offset) / c - 1)))
        out[name] = rows
    return out


def offset_parts(probe: dict | None, last: dict[str, dict]) -> tuple[float, list[float]] | None:
    """What the process offset misses in one evaluation (`read`'s), with the judge's statistic (us):
    the *stage shift*, the round-paired difference of the two runners on the offset's config when
    the candidate is timed less the same when the probe was, and each other call under SMALL_US's
    departure from the offset's config in the candidate's stage. None without a probe."""
    if probe is None or probe["config"] not in last:
        return None

    def difference(d):
        b, c = judge_figure(d["round_samples"]["baseline"], d["round_samples"]["candidate"])
        return (c - b) * 1000, b * 1000
    at_probe = difference(probe)[0]
    at_config = difference(last[probe["config"]])[0]
    others = [difference(d) for config, d in last.items() if config != probe["config"]]
    return at_config - at_probe, [d - at_config for d, base in others if base < SMALL_US]


SMALL_US = 5.0


def main(argv: list[str]) -> int:
    results = {name: [] for name in STATISTICS}
    shifts, departures = [], []
    for given in argv:       # folders (every trace under them) or trace files
        given = Path(given)
        for trace in ([given] if given.is_file() else sorted(given.rglob("*.trace.jsonl"))):
            evaluation = read(trace)
            for name, rows in replay(*evaluation).items():
                results[name] += [(trace.stem.split(".")[0], *row) for row in rows]
            parts = offset_parts(*evaluation)
            if parts:
                shifts.append(parts[0])
                departures += parts[1]
    print(f"{'statistic':32s} {'configs':>7s} {'median':>8s} {'p95':>8s} {'worst':>8s} {'worst >= 20 us':>15s}  worst config")
    for name, rows in results.items():
        if not rows:
            continue
        devs = sorted(r[3] for r in rows)
        big = [r[3] for r in rows if r[2] >= 20]
        worst = max(rows, key=lambda r: r[3])
        print(f"{name:32s} {len(devs):7d} {100 * statistics.median(devs):7.2f}% {100 * devs[int(0.95 * (len(devs) - 1))]:7.2f}% "
              f"{100 * devs[-1]:7.2f}% {100 * max(big, default=0):14.2f}%  {worst[0]} {worst[1]} ({worst[2]:.2f} us)")
    # issue 3's measure: each task-config's |x - 1| as the median of its repeats (every evaluation
    # of it in the folders given: fid-TASK-noop-I), then the worst of those
    by_config: dict = {}
    for trace, config, call_us, dev in results["judge (timing.stats + paired)"]:
        task = trace.removeprefix("fid-").rsplit("-noop", 1)[0]
        by_config.setdefault((task, config), []).append((dev, call_us))
    if by_config:
        medians = {k: statistics.median(d for d, _ in v) for k, v in by_config.items()}
        worst = sorted(medians, key=medians.get, reverse=True)[:3]
        print("worst task-configs, median of repeats: " + "; ".join(
            f"{t} {c} ({by_config[(t, c)][0][1]:.2f} us) {100 * medians[(t, c)]:.2f} % over {len(by_config[(t, c)])}"
            for t, c in worst))
        tasks = sorted({t for t, _ in by_config})
        print("per task, median |x - 1|: " + ", ".join(
            f"{t} {100 * statistics.median(d for (tt, _), v in by_config.items() if tt == t for d, _ in v):.2f} %"
            for t in tasks))
    if len(shifts) > 1 and len(departures) > 1:
        print(f"what the offset misses (us): stage shift over {len(shifts)} evaluations mean {statistics.fmean(shifts):+.3f} "
              f"sd {statistics.stdev(shifts):.3f}; calls under {SMALL_US:g} us against the offset's config over "
              f"{len(departures)} configs sd {statistics.stdev(departures):.3f}, max |{max(map(abs, departures)):.3f}|")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
