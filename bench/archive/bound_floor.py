"""How tight can the judge's wall-clock bound be? (issue 30, item 3)

    python3 bench/archive/bound_floor.py TRACE_OR_DIR [...]

Replays recorded judge traces (GAUNTLET_JUDGE_TRACE lines with `walls`: per batch the judge's wall
ms, the repetitions, the sum of the runner's samples) of honest evaluations (noops) and prints, per
timed config, the candidate's unexplained per-call wall time less the baseline's (what
judge._bound compares with its limit), that excess against the spread of the batches (z), and the
candidate's time. An honest noop's excess is what any bound must stay above; a bound of 10 % of a
10 us call needs it under 1 us.
"""
from __future__ import annotations

import json
import math
import statistics as st
import sys
import tarfile
from pathlib import Path


def _lines(path: Path):
    if path.is_dir():
        for p in sorted(path.rglob("*.trace.jsonl")):
            yield from ((p.name, line) for line in p.read_text().splitlines())
        for p in sorted(path.rglob("*.tgz")):
            yield from _lines(p)
    elif path.suffix == ".tgz":
        with tarfile.open(path) as tar:
            for m in tar.getmembers():
                if m.name.endswith(".trace.jsonl"):
                    yield from ((m.name, line) for line in tar.extractfile(m).read().decode().splitlines())
    else:
        yield from ((path.name, line) for line in path.read_text().splitlines())


def _se_median(xs: list[float]) -> float:
    med = st.median(xs)
    mad = st.median([abs(x - med) for x in xs]) * 1.4826
    return 1.2533 * mad / math.sqrt(len(xs))


def main(paths: list[str]) -> int:
    rows = []
    for path in paths:
        for name, line in _lines(Path(path)):
            d = json.loads(line)
            walls = d.get("walls")
            if d.get("probe") or not walls or not walls.get("baseline") or not walls.get("candidate"):
                continue
            unexplained = {k: [(w - total) / n for w, n, total in v] for k, v in walls.items()}
            excess = st.median(unexplained["candidate"]) - st.median(unexplained["baseline"])
            noise = math.hypot(_se_median(unexplained["baseline"]), _se_median(unexplained["candidate"]))
            rows.append({"trace": name, "config": d["config"], "cand_us": d["time_ms"]["candidate"] * 1000,
                         "excess_us": excess * 1000, "z": excess / noise if noise else float("inf")})
    rows.sort(key=lambda r: -abs(r["excess_us"]))
    for r in rows[:15]:
        print(f"{r['trace'][:44]:44s} {r['config'][:28]:28s} cand {r['cand_us']:8.1f} us  "
              f"excess {r['excess_us']:8.1f} us  z {r['z']:5.1f}")
    big = [r for r in rows if r["cand_us"] >= 10]
    print(json.dumps({"configs": len(rows), "configs_10us_or_more": len(big),
                      "max_abs_excess_us": round(max(abs(r["excess_us"]) for r in rows), 1),
                      "median_abs_excess_us": round(st.median(abs(r["excess_us"]) for r in rows), 1),
                      "max_z": round(max(r["z"] for r in rows), 2)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
