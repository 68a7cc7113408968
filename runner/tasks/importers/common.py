"""What every `gauntlet tasks import <benchmark>` shares: the checkout's commit, the `[source]` table
that records where a task came from (benchmark, path in its checkout, the benchmark's own category,
commit), and the import report's counts per group and skip reason.

The `[source]` table is what `gauntlet report --table <benchmark>` groups a run by; docs/task-format.md
describes it.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path


def commit_of(checkout: Path) -> str:
    """The checkout's git commit, or "unknown": a plain copy of the files (also one lying inside
    another repository, whose commit says nothing about them)."""
    try:
        proc = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--show-toplevel", "HEAD"],
                              capture_output=True, text=True)
    except OSError:
        return "unknown"
    lines = proc.stdout.split()
    if proc.returncode != 0 or len(lines) != 2 or Path(lines[0]).resolve() != checkout.resolve():
        return "unknown"
    return lines[1]


def source_toml(benchmark: str, path: str, category: str, commit: str) -> str:
    """The task.toml `[source]` table of an imported task."""
    values = {"benchmark": benchmark, "path": path, "category": category, "commit": commit}
    return "\n[source]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in values.items())


def count_rows(rows: list[dict], group, total_key: str = "total") -> dict[str, dict]:
    """{group(row): {total_key, "imported", "skipped": {reason: n}}} over import rows (each with
    `status` "imported" or "skipped", and `reason` when skipped)."""
    counts: dict[str, dict] = {}
    for row in rows:
        entry = counts.setdefault(group(row), {total_key: 0, "imported": 0, "skipped": {}})
        entry[total_key] += 1
        if row["status"] == "imported":
            entry["imported"] += 1
        else:
            entry["skipped"][row["reason"]] = entry["skipped"].get(row["reason"], 0) + 1
    return counts


def counts_table(counts: dict[str, dict], group_title: str, total_key: str = "total") -> str:
    """The printed summary: one line per group, skips as `reason: count`, most frequent first."""
    width = max([len(group_title), *map(len, counts)])
    lines = [f"{group_title:{width}s} {total_key:>8s} {'imported':>8s}  skipped (reason: count)"]
    for group, entry in counts.items():
        skipped = ", ".join(f"{r}: {n}" for r, n in sorted(entry["skipped"].items(), key=lambda kv: (-kv[1], kv[0])))
        lines.append(f"{group:{width}s} {entry[total_key]:8d} {entry['imported']:8d}  {skipped or '-'}")
    return "\n".join(lines)


def probe_in_child(module: str, specs: list[dict], timeout_per_spec_s: float) -> list[dict]:
    """Check specs in one child process, `python -m module SPECS ANSWERS` (torch imported once per
    batch, not per spec): one JSON answer per spec, in order. A spec that takes the child down or past
    its time is a probe-failed skip, and the child is restarted for the rest."""
    from runner.resources import IMPORT_ROOT
    answers: list[dict] = []
    while len(answers) < len(specs):
        pending = specs[len(answers):]
        with tempfile.TemporaryDirectory(prefix="gauntlet-import-probe-") as tmp:
            spec_file, report = Path(tmp) / "specs.json", Path(tmp) / "answers.jsonl"
            spec_file.write_text(json.dumps(pending))
            report.touch()
            try:
                proc = subprocess.run([sys.executable, "-m", module, str(spec_file), str(report)],
                                      capture_output=True, text=True,
                                      timeout=timeout_per_spec_s * len(pending) + 60, cwd=IMPORT_ROOT)
                tail = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1][:200]
            except subprocess.TimeoutExpired:
                tail = "no answer in time"
            answers += [json.loads(ln) for ln in report.read_text().splitlines() if ln.strip()]
        if len(answers) < len(specs):        # the child died on the next one: blame it, go on
            answers.append({"ok": False, "reason": "probe-failed", "detail": tail})
    return answers
