#!/usr/bin/env python3
"""--jobs on one GPU (issue 13), local backend, real tasks:

  oracle  the oracle over TASKS with --jobs 1, then --jobs 4. Evaluation-bound on one GPU: the pool
          serialises evaluations, so no gain is expected and none may be lost. Checks that the
          evaluation windows never overlap and that the per-config speedups agree between the runs.
  loaded  noop over TASKS with --jobs 1 (quiet), then the same noop attempts beside CPU-burning
          command agents (--agent noop --agent command, --jobs 4). Reports the noop self-speedup
          |s-1| per config, quiet against loaded, counting only noop evaluations whose window
          overlapped a burner's span.

    python3 bench/scale_gpu.py oracle --out DIR --tasks triton2triton/softmax cuda2cuda/softmax
    python3 bench/scale_gpu.py loaded --out DIR --tasks ... [--burn 150] [--burners 4]

Writes DIR/<mode>.json (one record per run, as each run ends) and prints it.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GPU = ["0"]        # the one slot evaluations share ("cpu" on a CPU)
DEVICE = ["cuda"]   # [device, extra run options]: --device cpu --tasks-root R smoke-tests this on a CPU


def run(out: Path, agents: list[str], tasks: list[str], jobs: int, extra: list[str] = ()) -> dict:
    argv = [sys.executable, "-m", "runner.cli", "run", "--device", DEVICE[0], "--out", str(out), "--jobs", str(jobs),
            "--budget", "600s", *extra, *DEVICE[1:]]
    for a in agents:
        argv += ["--agent", a]
    for t in tasks:
        argv += ["--tasks", t]
    started = time.monotonic()
    proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    wall = time.monotonic() - started
    attempts = []
    for p in sorted(out.glob("attempts/*/result.json")):
        r = json.loads(p.read_text())
        attempts.append({
            "attempt": p.parent.name, "agent": r["agent"], "task": r["task"], "status": r["status"],
            "gpu": r.get("gpu"), "eval_started": r.get("eval_started"), "eval_finished": r.get("eval_finished"),
            "eval_s": r.get("eval_seconds"), "agent_limits": r.get("agent_limits"),
            "correct_seen": r.get("correct_seen"), "correct_unseen": r.get("correct_unseen"),
            "speedups": {f"{c['split']}/{c['config']}": c.get("speedup") for c in r.get("configs", [])}})
    return {"jobs": jobs, "agents": agents, "rc": proc.returncode, "wall_s": round(wall, 1),
            "eval_s_total": round(sum(a["eval_s"] or 0 for a in attempts), 1),
            "stderr_tail": proc.stderr[-1500:], "attempts": attempts}


def overlaps(spans: list[tuple[float, float]]) -> int:
    spans = sorted(spans)
    return sum(1 for (a0, a1), (b0, b1) in zip(spans, spans[1:]) if b0 < a1)


def oracle(args) -> list[dict]:
    rows = []
    for jobs in (1, 4):
        row = run(args.out / f"oracle-j{jobs}", ["oracle"], args.tasks, jobs, ["--gpus", GPU[0]])
        windows = [(a["eval_started"], a["eval_finished"]) for a in row["attempts"] if a["eval_started"]]
        row["eval_window_overlaps"] = overlaps(windows)
        rows.append(row)
        save(args, "oracle", rows)
    one = {a["task"]: a["speedups"] for a in rows[0]["attempts"]}
    four = {a["task"]: a["speedups"] for a in rows[1]["attempts"]}
    ratios = [four[t][c] / one[t][c] for t in one if t in four for c in one[t]
              if one[t].get(c) and four[t].get(c)]
    rows.append({"wall_ratio_j4_over_j1": round(rows[1]["wall_s"] / rows[0]["wall_s"], 3),
                 "speedup_ratio_j4_over_j1": {"n": len(ratios),
                                              "median": round(statistics.median(ratios), 4) if ratios else None,
                                              "min": round(min(ratios), 4) if ratios else None,
                                              "max": round(max(ratios), 4) if ratios else None}})
    return rows


def loaded(args) -> list[dict]:
    spans = args.out / "burner-spans.txt"
    burn = (f"s=$(date +%s.%N); i=0; while [ $i -lt {args.burners} ]; do "
            f"timeout {args.burn} sh -c 'while :; do :; done' & i=$((i+1)); done; wait; "
            f"echo $s $(date +%s.%N) >> {spans}")
    rows = [run(args.out / "noop-quiet", ["noop"], args.tasks, 1)]
    save(args, "loaded", rows)
    rows.append(run(args.out / "noop-loaded", ["noop", "command"], args.tasks, 4,
                    ["--command", burn, "--gpus", GPU[0]]))
    burners = [tuple(map(float, line.split())) for line in spans.read_text().splitlines()] if spans.exists() else []
    rows[1]["burner_spans"] = burners

    def devs(row, only_overlapping: bool) -> list[float]:
        out = []
        for a in row["attempts"]:
            if a["agent"] != "noop" or not a["eval_started"]:
                continue
            if only_overlapping and not any(b0 < a["eval_finished"] and a["eval_started"] < b1 for b0, b1 in burners):
                continue
            out += [abs(s - 1) for s in a["speedups"].values() if s]
        return out
    quiet, busy = devs(rows[0], False), devs(rows[1], True)
    summary = {}
    for name, d in (("quiet", quiet), ("loaded", busy)):
        summary[name] = {"configs": len(d), "median_abs_dev_pct": round(100 * statistics.median(d), 3) if d else None,
                         "worst_pct": round(100 * max(d), 3) if d else None}
    rows.append({"noop_self_speedup": summary})
    return rows


def save(args, mode: str, rows: list[dict]) -> None:
    (args.out / f"{mode}.json").write_text(json.dumps(rows, indent=1))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("oracle", "loaded"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--tasks", nargs="+", required=True)
    ap.add_argument("--burn", type=int, default=150, help="seconds each burner agent spins")
    ap.add_argument("--burners", type=int, default=4, help="busy loops per burner agent")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--tasks-root", default=None)
    args = ap.parse_args()
    GPU[0] = "cpu" if args.device == "cpu" else "0"
    DEVICE[:] = [args.device, *(["--tasks-root", args.tasks_root] if args.tasks_root else [])]
    args.out.mkdir(parents=True, exist_ok=True)
    rows = oracle(args) if args.mode == "oracle" else loaded(args)
    save(args, args.mode, rows)
    for row in rows:
        print(json.dumps({k: v for k, v in row.items() if k != "attempts"}))


if __name__ == "__main__":
    main()
