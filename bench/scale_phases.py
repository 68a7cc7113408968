#!/usr/bin/env python3
"""Where an attempt's time goes under --jobs (issue 13): runs `gauntlet run` in this process over T
copies of the CPU fixture task with a command agent that sleeps S seconds, with the runner's steps
wrapped in timers (workspace prepare/finalize, gateway, sandbox open/exec/stop per role, candidate
export, evaluation). The runner's own overhead per attempt is the attempt's time less the agent's
and the judge's exec.

    python3 bench/scale_phases.py JOBS [--tasks 8] [--sleep 20]

Prints one JSON line (SUMMARY ...): wall, and per step its count, mean and sum in seconds.
"""
from __future__ import annotations

import argparse
import collections
import functools
import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import runner.run.run as run_module  # noqa: E402
import runner.workspace as workspace_module  # noqa: E402

STEPS: dict[str, list[float]] = collections.defaultdict(list)
_STEPS_LOCK = threading.Lock()


def timed(name: str, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        started = time.monotonic()
        try:
            return fn(*args, **kwargs)
        finally:
            with _STEPS_LOCK:
                STEPS[name].append(time.monotonic() - started)
    return wrapper


def instrument() -> None:
    W, R = workspace_module.Workspace, run_module
    W.prepare = timed("workspace.prepare", W.prepare)
    W.finalize = timed("workspace.finalize", W.finalize)
    R.open_gateway = timed("open_gateway", R.open_gateway)
    R.export_candidate = timed("export_candidate", R.export_candidate)
    R.evaluate_candidate = timed("evaluate_candidate(total)", R.evaluate_candidate)
    R.Attempt.run = timed("attempt(total)", R.Attempt.run)
    R.Attempt._agent_phase = timed("agent_phase(total)", R.Attempt._agent_phase)
    opener = R.open_sandbox

    def open_sandbox(backend, spec):
        sandbox = timed(f"open_sandbox[{spec.role}]", opener)(backend, spec)
        sandbox.exec = timed(f"exec[{spec.role}]", sandbox.exec)
        sandbox.stop = timed(f"stop[{spec.role}]", sandbox.stop)
        return sandbox
    R.open_sandbox = open_sandbox


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("jobs", type=int)
    ap.add_argument("--tasks", type=int, default=8)
    ap.add_argument("--sleep", type=float, default=20)
    args = ap.parse_args()
    instrument()
    scratch = Path(tempfile.mkdtemp(prefix="gl-phases-"))
    fixture = REPO / "tests" / "fixtures" / "tasks"
    shutil.copytree(fixture, scratch / "tasks")
    for i in range(args.tasks - 1):      # the fixture itself is the first
        dest = scratch / "tasks" / "triton2triton" / f"scale_{i:02d}"
        shutil.copytree(fixture / "triton2triton" / "scale", dest)
        toml = dest / "task.toml"
        toml.write_text(toml.read_text().replace('"triton2triton/scale"', f'"triton2triton/scale_{i:02d}"'))
    from runner.cli import main as cli
    started = time.monotonic()
    try:
        cli(["run", "--agent", "command", "--command", f"sleep {args.sleep:g}", "--tasks", "triton2triton",
             "--tasks-root", str(scratch / "tasks"), "--device", "cpu", "--out", str(scratch / "run"),
             "--jobs", str(args.jobs), "--budget", str(int(args.sleep * 4))], standalone_mode=False)
    except SystemExit:
        pass
    wall = time.monotonic() - started
    results = [json.loads(p.read_text()) for p in (scratch / "run").glob("attempts/*/result.json")]
    print("SUMMARY " + json.dumps({
        "jobs": args.jobs, "tasks": args.tasks, "sleep": args.sleep, "wall_s": round(wall, 1),
        "ok": sum(r["status"] == "ok" for r in results),
        "steps": {name: {"n": len(v), "mean_s": round(sum(v) / len(v), 2), "sum_s": round(sum(v), 1)}
                  for name, v in sorted(STEPS.items())}}))
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
