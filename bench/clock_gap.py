"""How far honest calls' samples sit below their device time, beyond the baseline's own gap: the
margin `clock_short` can use (runner/evaluator/devtrace.py, SHORT_ABS_MS and SHORT_REL).

    python3 bench/clock_gap.py TRACE.jsonl ... [--margin ABS_US REL ...]

Reads the judge's per-config trace records (GAUNTLET_JUDGE_TRACE, as bench/judge_gpu.py writes
them: each batch's first calls' device time and sample). The baseline's gap is the record's
`offset_ms` where the judge wrote it; in older records it is estimated as the median of the
baseline's device times less its timed figure. Per margin: how many configs have more than a
fifth of their calls past it (the rule flags most), and the worst fraction. Per slack of the
device-time floor (devtrace.floored: each sample at least its device time less the baseline's gap
and the slack): how far it moves a config's median call, in the median config and at most. Pass
honest evaluations only (oracles, noops, the red team's honest control).
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path


def configs(paths: list[Path]) -> list[tuple[str, str, float, list[float], list[float]]]:
    """(file, config, baseline gap ms, the candidate's gaps ms, their device times ms) per config."""
    out = []
    for path in paths:
        times = {}
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if "time_ms" in record and not record.get("probe"):
                times[record["config"]] = record["time_ms"]
            trace = record.get("devtrace")
            if not trace:
                continue
            config = record["config"]
            if "offset_ms" in trace:
                offset = trace["offset_ms"]
            else:
                device = [d for b in trace["baseline"] for d in b["device_ms"]]
                if not device or config not in times:
                    continue
                offset = max(0.0, statistics.median(device) - times[config]["baseline"])
            gaps = [d - s for b in trace["candidate"] for d, s in zip(b["device_ms"], b["samples_ms"])]
            device = [d for b in trace["candidate"] for d in b["device_ms"]]
            if gaps:
                out.append((str(path), config, offset, gaps, device))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("traces", nargs="+", type=Path)
    parser.add_argument("--margin", nargs=2, type=float, action="append", metavar=("ABS_US", "REL"),
                        help="a margin to read (default: 0.5 0.05, 0.75 0.075, 0.9 0.075, 1 0.1, 3 0.1)")
    parser.add_argument("--slack", nargs="+", type=float, default=[0.0, 0.3, 0.5], metavar="US",
                        help="the device-time floor's slacks to read (default: 0 0.3 0.5)")
    args = parser.parse_args()
    rows = configs(args.traces)
    print(f"{len(rows)} configs from {len({r[0] for r in rows})} evaluations")
    excess = sorted((statistics.median(g) - off) * 1000 for _, _, off, g, _ in rows)
    print(f"median call past the baseline's gap: {excess[0]:.2f} to {excess[-1]:.2f} us")
    for abs_us, rel in args.margin or [(0.5, 0.05), (0.75, 0.075), (0.9, 0.075), (1.0, 0.1), (3.0, 0.1)]:
        fractions = [sum(1 for g, d in zip(gaps, device) if g > off + max(abs_us / 1000, rel * d)) / len(gaps)
                     for _, _, off, gaps, device in rows]
        print(f"margin max({abs_us} us, {rel:.1%}): {sum(f > 0.2 for f in fractions)} configs with more than a "
              f"fifth of calls past it; worst {max(fractions):.1%} (the rule needs more than half)")
    for slack_us in args.slack:
        shifts = []
        for _, config, off, gaps, device in rows:
            samples = [d - g for g, d in zip(gaps, device)]
            floored = [max(s, d - off - slack_us / 1000) for s, d in zip(samples, device)]
            shifts.append((statistics.median(floored) / statistics.median(samples) - 1, config))
        shifts.sort()
        print(f"floor, slack {slack_us} us: a config's median call moved {statistics.median(s for s, _ in shifts):.2%} "
              f"in the median config, {shifts[-1][0]:.2%} at most ({shifts[-1][1]})")


if __name__ == "__main__":
    main()
