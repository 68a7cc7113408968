#!/usr/bin/env python3
"""Check built-in tasks on a machine without a GPU (what can be checked before the H100 pass).

For each selected task (selectors as in `gauntlet tasks validate`, e.g. `torch2triton/gelu` or a
category):
  * Triton tasks: `gauntlet run --agent oracle --device cpu` under TRITON_INTERPRET=1 must be
    correct on the seen and the hidden configs; for torch2triton, `--agent noop` (the shipped
    stub) must not be;
  * CUDA / HIP tasks: the shipped editable kernel and the solution must compile with the
    harness's own command (runner/evaluator/build.py), for sm_90 and gfx90a respectively.
Running them on a GPU is bench/check_native_tasks.py's and bench/check_triton_tasks.py's job.

Usage: python scripts/check_suite_cpu.py SELECTOR... [--out DIR] [--compile-only]
Exit status 1 if any check failed.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runner.evaluator.build import compile_command  # noqa: E402
from runner.tasks.task import select  # noqa: E402

ARCH = {"cuda": "sm_90", "hip": "gfx90a"}


def compile_ok(language: str, source: Path, flags: tuple[str, ...]) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = compile_command(language, source, Path(tmp) / "k.so", ARCH[language], flags)
        env = {**os.environ, "HIP_PLATFORM": "amd"} if language == "hip" else None
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return proc.returncode == 0, (proc.stdout + proc.stderr).strip()


def run_agent(task_id: str, agent: str, out: Path) -> dict:
    """One `gauntlet run` on the CPU; returns the attempt's result.json."""
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    cmd = [sys.executable, "-m", "runner.cli", "run", "--agent", agent, "--tasks", task_id,
           "--device", "cpu", "--out", str(out)]
    subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    results = list(out.glob("attempts/*/result.json"))
    return json.loads(results[0].read_text()) if results else {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("selectors", nargs="+")
    parser.add_argument("--out", type=Path, default=None, help="folder for the run dirs (default: a temp dir)")
    parser.add_argument("--compile-only", action="store_true", help="skip the Triton runs")
    args = parser.parse_args()
    out_root = args.out or Path(tempfile.mkdtemp(prefix="check-suite-"))
    failed = 0
    for task in select(args.selectors):
        if task.language in ("cuda", "hip"):
            sources = {"shipped": task.resolve(task.entry)}
            sources.update({f"solution/{rel}": path for rel, path in task.solution_files().items()})
            for label, source in sources.items():
                ok, log = compile_ok(task.language, source, task.compile_flags)
                failed += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {task.id}: {label} compiles" + ("" if ok else f"\n{log}"))
        elif task.language == "triton" and not args.compile_only:
            checks = [("oracle", True)] + ([("noop", False)] if task.baseline_is_reference else [])
            for agent, want_correct in checks:
                result = run_agent(task.id, agent, out_root / f"{task.id.replace('/', '__')}-{agent}")
                seen, unseen = result.get("correct_seen"), result.get("correct_unseen")
                ok = (seen is True and unseen is True) if want_correct else not (seen or unseen)
                failed += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {task.id}: {agent} correct_seen={seen} correct_unseen={unseen}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
