#!/usr/bin/env python3
"""--jobs on the CPU (issue 13): a command agent that sleeps S seconds over T copies of the fixture
task, with --jobs N against --jobs 1. Agent-bound, so the speedup approaches N; the harness overhead
per attempt is (wall - agent time) / attempts.

    python3 bench/scale_cpu.py [--tasks 24] [--sleep 60] [--jobs 8]

Prints one JSON line per run and the ratio; record the numbers in docs/benchmarks.md.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def suite(root: Path, count: int) -> None:
    source = REPO / "tests" / "fixtures" / "tasks" / "triton2triton" / "scale"
    for i in range(count):
        dest = root / "triton2triton" / f"scale_{i:02d}"
        shutil.copytree(source, dest)
        toml = dest / "task.toml"
        toml.write_text(toml.read_text().replace('"triton2triton/scale"', f'"triton2triton/scale_{i:02d}"'))


def one(root: Path, out: Path, jobs: int, sleep: float) -> dict:
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "runner.cli", "run", "--agent", "command", "--command",
                           f"sleep {sleep}", "--tasks", "triton2triton", "--tasks-root", str(root), "--device",
                           "cpu", "--out", str(out), "--jobs", str(jobs), "--budget", str(int(sleep * 4))],
                          cwd=REPO, capture_output=True, text=True)
    wall = time.monotonic() - started
    results = [json.loads(p.read_text()) for p in out.glob("attempts/*/result.json")]
    evals = sum(r.get("eval_seconds") or 0 for r in results)
    agents = sum(r.get("agent_seconds") or 0 for r in results)
    return {"jobs": jobs, "attempts": len(results), "rc": proc.returncode, "wall_s": round(wall, 1),
            "agent_s_total": round(agents, 1), "eval_s_total": round(evals, 1),
            "ok": sum(r["status"] == "ok" for r in results)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=24)
    ap.add_argument("--sleep", type=float, default=60)
    ap.add_argument("--jobs", type=int, default=8)
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="gl-scale-"))
    try:
        suite(scratch / "tasks", args.tasks)
        rows = [one(scratch / "tasks", scratch / f"run-j{n}", n, args.sleep) for n in (args.jobs, 1)]
        for row in rows:
            print(json.dumps(row))
        print(json.dumps({"speedup": round(rows[1]["wall_s"] / rows[0]["wall_s"], 2),
                          "overhead_per_attempt_s_jobs1": round((rows[1]["wall_s"] - args.tasks * args.sleep)
                                                                / args.tasks, 2)}))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
