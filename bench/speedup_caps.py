#!/usr/bin/env python3
"""Propose (or write) each task's vetted `[performance] max_speedup` from the GPU checker tables.

Reads every table row of results/h100-*/*.txt and the two *-task-check.md files written by
bench/check_native_tasks.py and bench/check_triton_tasks.py (the solution's speedup over the task's
baseline per config), then the rows of bench/baselines_vs_eager.py's JSON records
(results/gpu-*/baselines*.json, by the date in their header); per task the latest file that times
it wins (the two .md tables first, then the dated folders and their files by name, then the JSON
records). A task whose solution reached more than 5x gets a cap of twice that, rounded up to 20,
30, 50, 100, ...; an existing cap is never lowered (an older measurement, or another GPU, may have
read higher), except by a baselines JSON of a baseline rewritten since the measurement the cap
cites (issue 33 rewrote handicapped ones): then its figure lowers the cap or drops it (at most
5x: the default applies).
docs/task-format.md says what the cap means.

    python3 bench/speedup_caps.py            # print the changes
    python3 bench/speedup_caps.py --write    # and write them into tasks/*/*/task.toml
    python3 bench/speedup_caps.py --write --source gpu-2026-11-28c   # only one record's measurements
    python3 bench/speedup_caps.py --tally    # each task's geomean from the same tables, the share >= 1.0x
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NICE = (20, 30, 50, 100, 200, 300, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)
TASK_ID = re.compile(r"(cuda2cuda|triton2triton|torch2cuda|torch2triton|hip2hip|torch2hip)/")
BLOCK = re.compile(r"\n\[performance\]\n(#.*\n)*max_speedup = (\S+)\n")


def tables() -> dict[str, tuple[list[tuple[float, str]], str]]:
    """task id -> ([(speedup, config), ...], the file): the latest file that times the task."""
    # The two *-task-check.md tables are the first measurements (2026-11-22): every dated folder is later.
    files = [str(ROOT / "results/native-task-check.md"), str(ROOT / "results/triton-task-check.md")]
    files += sorted(glob.glob(str(ROOT / "results/h100-*/*.txt")))
    latest = {}
    for name in files:
        per: dict[str, list] = {}
        for line in Path(name).read_text(errors="replace").splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not line.startswith("| ") or not TASK_ID.match(cells[0]):
                continue
            speed = [c for c in cells if re.match(r"^[0-9.]+x\b", c)]
            if speed:
                config = [c for c in cells[1:3] if c not in ("seen", "hidden")][0]
                per.setdefault(cells[0], []).append((float(re.match(r"^([0-9.]+)x", speed[0]).group(1)), config))
        for task, values in per.items():
            latest[task] = (values, str(Path(name).relative_to(ROOT / "results")))
    records = [(json.loads(Path(f).read_text()), f) for f in glob.glob(str(ROOT / "results/gpu-*/baselines*.json"))]
    for data, name in sorted(records, key=lambda r: r[0]["header"]["date"]):
        per = {}
        for row in data["rows"]:
            if row.get("solution_ms") and row.get("baseline_ms"):
                per.setdefault(row["task"], []).append((row["baseline_ms"] / row["solution_ms"], row["config"]))
        for task, values in per.items():
            latest[task] = (values, str(Path(name).relative_to(ROOT / "results")))
    return latest


def current_record(source: str) -> bool:
    """A bench/baselines_vs_eager.py JSON record (its header names the device), not an H100 table."""
    return source.endswith(".json")


def current(task: str, source: str, block: str) -> bool:
    """Whether `source` may lower or drop the cap `block` states: a baselines_vs_eager record of a
    baseline rewritten after the measurement the cap cites (another GPU, or the same baseline,
    may read lower than the measurement that set it: then the cap stands)."""
    if not current_record(source):
        return False
    cited = re.findall(r"(\d{4}-\d{2}-\d{2})", block) or (["2026-11-22"] if "task-check.md" in block else [])
    changed = subprocess.run(["git", "log", "-1", "--format=%cs", "--", *(str(p) for p in (ROOT / "tasks" / task).glob("kernel.*"))],
                             capture_output=True, text=True, cwd=ROOT).stdout.strip()
    return bool(cited and changed) and changed > cited[0]


def measured() -> dict[str, tuple[float, str, str]]:
    """task id -> (largest speedup, its config, the file), the latest file per task."""
    return {task: (*max(values), source) for task, (values, source) in tables().items()}


def tally() -> int:
    """Per task the geomean of the solution's speedup over its baseline (latest table), and the share
    of timed tasks at 1.0x or more (issue 12's 90 % figure)."""
    rows = []
    for task, (values, source) in sorted(tables().items()):
        if not (ROOT / "tasks" / task / "task.toml").is_file():
            continue
        geo = math.exp(sum(math.log(max(x, 1e-9)) for x, _ in values) / len(values))
        rows.append((task, geo, len(values), source))
        print(f"{task:36s} {geo:7.2f}x over {len(values)} configs  ({source})")
    below = [(t, g) for t, g, _, _ in rows if g < 1.0]
    print(f"{len(rows) - len(below)} of {len(rows)} timed tasks at >= 1.0x ({100 * (len(rows) - len(below)) / len(rows):.1f} %); "
          f"below: {', '.join(f'{t} {g:.2f}' for t, g in below) or 'none'}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--tally", action="store_true", help="print each task's geomean and the share >= 1.0x")
    parser.add_argument("--source", default="", help="only the measurements of files whose path holds this")
    args = parser.parse_args()
    if args.tally:
        return tally()
    for task, (x, config, source) in sorted(measured().items()):
        toml = ROOT / "tasks" / task / "task.toml"
        if not toml.is_file() or args.source not in source:
            continue
        text = toml.read_text()
        found = BLOCK.search(text)
        old = float(found.group(2)) if found else None
        if 2 * x <= 10:
            if found and current(task, source, found.group(0)):
                print(f"{task}: {old} -> default ({x:.3g}x on {config}, {source})")
                if args.write:
                    toml.write_text(text.replace(found.group(0), "\n"))
            continue
        cap = next(n for n in NICE if n >= 2 * x)
        if old is not None and (cap == old or (cap < old and not current(task, source, found.group(0)))):
            continue
        gpu = "an " + (json.loads((ROOT / "results" / source).read_text())["header"]["device"].removeprefix("NVIDIA ")
                       if current_record(source) else "H100")
        block = (f"\n[performance]\n# The solution, measured on {gpu}, reached {x:.3g}x over this baseline on {config} "
                 f"({source}):\n# an honest kernel, so the excessive-speedup flag starts above twice that.\n"
                 f"max_speedup = {cap}\n")
        print(f"{task}: {old} -> {cap} ({x:g}x on {config}, {source})")
        if args.write:
            toml.write_text(text.replace(found.group(0), block) if found else text.rstrip("\n") + "\n" + block)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
