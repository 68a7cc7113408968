#!/usr/bin/env python3
"""The noop floor (issue 30, requirement 5) read from the verdicts of noop evaluations.

A noop hands back the baseline's own code, so each per-config speedup should read 1.0: how far it
reads off is the judge's floor on that GPU. Reads every verdict JSON named like `fid-*-noop-*.json`
under the folders given (bench/judge_gpu.py fidelity --agents noop writes them) and prints, for
calls of 5 us or more and for shorter ones (the baseline's time): configs, median and worst
|speedup - 1|, how many beyond 1.5 %, how many 95 % intervals hold 1.0, and their median width;
with --detail, each config beyond 1.5 % and each interval that excludes 1.0 (the JSON has both).

    python3 bench/noop_floor.py results/gpu-2026-11-30-s18/call*/noop [--json out.json] [--detail]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

SMALL_MS = 0.005         # issue 30's line: calls of 5 us or more
LIMIT = 0.015            # its worst task-config figure for those


def configs(folders: list[Path], failed: list[str] | None = None) -> list[dict]:
    """Every timed config of the noop verdicts; `failed` gets each verdict with an error or a config
    not correct (its configs are not read: a broken run is no floor)."""
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("fid-*-noop-*.json")):
            verdict = json.loads(path.read_text())
            if verdict.get("error") or not all(row.get("correct") for row in verdict.get("configs", [])):
                if failed is not None:
                    failed.append(f"{path.name}: {str(verdict.get('error') or 'a config not correct')[:120]}")
                continue
            task = path.name.removeprefix("fid-").rsplit("-noop-", 1)[0].replace("_", "/", 1)
            for row in verdict.get("configs", []):
                if isinstance(row.get("speedup"), (int, float)) and isinstance(row.get("baseline_ms"), (int, float)):
                    found.append({"task": task, "file": str(path), "config": row["config"], "baseline_ms": row["baseline_ms"],
                                  "speedup": row["speedup"], "ci95": row.get("speedup_ci95"),
                                  "flags": verdict.get("flags", [])})
    return found


def _named(r: dict) -> str:
    ci = r["ci95"] if isinstance(r["ci95"], list) and len(r["ci95"]) == 2 else None
    return (f"{r['task']} {r['config']} ({r['baseline_ms'] * 1000:.1f} us, {r['speedup']:.4f}x"
            + (f" [{ci[0]:.4f}, {ci[1]:.4f}])" if ci else ")"))


def summary(rows: list[dict]) -> dict:
    if not rows:
        return {"configs": 0}
    off = sorted(rows, key=lambda r: abs(r["speedup"] - 1.0))
    worst = off[-1]
    intervals = [r["ci95"] for r in rows if isinstance(r["ci95"], list) and len(r["ci95"]) == 2]
    return {"configs": len(rows),
            "median_off": statistics.median(abs(r["speedup"] - 1.0) for r in rows),
            "worst_off": abs(worst["speedup"] - 1.0), "worst": f"{worst['task']} {worst['config']} "
            f"({worst['baseline_ms'] * 1000:.1f} us, {worst['speedup']:.4f}x)",
            "beyond_limit": sum(abs(r["speedup"] - 1.0) > LIMIT for r in rows),
            "intervals": len(intervals), "holding_1": sum(lo <= 1.0 <= hi for lo, hi in intervals),
            "median_width": statistics.median(hi - lo for lo, hi in intervals) if intervals else None,
            "flagged_evaluations": len({r["file"] for r in rows if r["flags"]}),
            "beyond": [_named(r) for r in off if abs(r["speedup"] - 1.0) > LIMIT],
            "excluding_1": [_named(r) for r in rows if isinstance(r["ci95"], list) and len(r["ci95"]) == 2
                            and not r["ci95"][0] <= 1.0 <= r["ci95"][1]]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--detail", action="store_true", help="each config beyond 1.5 %% and each interval excluding 1.0")
    args = ap.parse_args(argv)
    failed: list[str] = []
    rows = configs(args.folders, failed)
    for line in failed:
        print(f"not read, failed: {line}")
    if not rows:
        print("no noop verdicts found", file=sys.stderr)
        return 1
    out = {"5 us or more": summary([r for r in rows if r["baseline_ms"] >= SMALL_MS]),
           "below 5 us": summary([r for r in rows if r["baseline_ms"] < SMALL_MS]),
           "evaluations": len({r["file"] for r in rows}), "failed": failed}
    for name in ("5 us or more", "below 5 us"):
        s = out[name]
        if not s["configs"]:
            print(f"{name:13s} no configs")
            continue
        width = f"{s['median_width'] * 100:.2f} %" if s["median_width"] is not None else "-"
        print(f"{name:13s} {s['configs']:4d} configs: median |x-1| {s['median_off'] * 100:.3f} %, worst "
              f"{s['worst_off'] * 100:.2f} % ({s['worst']}), {s['beyond_limit']} beyond {LIMIT:.1%}; "
              f"intervals holding 1.0: {s['holding_1']} of {s['intervals']}, median width {width}; "
              f"flagged evaluations {s['flagged_evaluations']}")
        if args.detail:
            for label in ("beyond", "excluding_1"):
                for line in s[label]:
                    print(f"    {label:11s} {line}")
    print(f"{out['evaluations']} evaluations read, {len(failed)} failed and not read")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
