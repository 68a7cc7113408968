"""Replay the judge's per-kernel statistic on recorded samples: which figure reads a noop (the
baseline against itself) closest to 1.0, on one set of samples (issue 10's fidelity).

    GAUNTLET_JUDGE_TRACE_SAMPLES=1 python3 bench/judge_gpu.py fidelity --agents noop ... --out DIR
    python3 bench/replay_stats.py DIR [DIR ...]

Every timed config's trace line holds each round's samples of both runners (`round_samples`), the
offset's probe line too. Each statistic gives both kernels' figures from them; the baseline's time
is moved by the offset measured with the same statistic, as the judge does (judge.py)."""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from runner.evaluator import timing  # noqa: E402


def _trimmed(xs, cut):
    s = sorted(xs)
    k = int(len(s) * cut)
    return statistics.fmean(s[k:len(s) - k] or s)


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
    "rounds: IQM": _rounds(lambda xs: _trimmed(xs, 0.25)),
    "rounds: 10% trimmed mean": _rounds(lambda xs: _trimmed(xs, 0.10)),
    "judge (timing.stats + paired)": None,
}


def judge_figure(b, c):
    base = timing.stats([x for r in b for x in r], rounds=b)
    cand = timing.paired(base, timing.stats([x for r in c for x in r], rounds=c))
    return base.time_ms, cand.time_ms


def replay(trace: Path) -> dict[str, list[tuple[str, float, float]]]:
    """statistic -> [(config, its call in us, |x - 1|)] for one evaluation."""
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    timed = [d for d in lines if d.get("round_samples")]
    probe = next((d for d in timed if d["probe"]), None)
    last = {d["config"]: d for d in timed if not d["probe"]}     # a config timed again: the second counts
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


def main(argv: list[str]) -> int:
    results = {name: [] for name in STATISTICS}
    for folder in argv:
        for trace in sorted(Path(folder).rglob("*.trace.jsonl")):
            for name, rows in replay(trace).items():
                results[name] += [(trace.stem.split(".")[0], *row) for row in rows]
    print(f"{'statistic':32s} {'configs':>7s} {'median':>8s} {'p95':>8s} {'worst':>8s} {'worst >= 20 us':>15s}  worst config")
    for name, rows in results.items():
        if not rows:
            continue
        devs = sorted(r[3] for r in rows)
        big = [r[3] for r in rows if r[2] >= 20]
        worst = max(rows, key=lambda r: r[3])
        print(f"{name:32s} {len(devs):7d} {100 * statistics.median(devs):7.2f}% {100 * devs[int(0.95 * (len(devs) - 1))]:7.2f}% "
              f"{100 * devs[-1]:7.2f}% {100 * max(big, default=0):14.2f}%  {worst[0]} {worst[1]} ({worst[2]:.2f} us)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
