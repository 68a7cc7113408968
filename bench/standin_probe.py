"""Why the clean room's stand-in died on GPUs (results/gpu-2026-11-30-s17.md).

    python3 bench/standin_probe.py --out DIR [--tasks T ...] [--variants shipped clock-at-first-batch no-cache-copy] [--device cpu]

From session 16 on, every GPU evaluation that ran the clean room noted "the clean room's stand-in
failed (the baseline runner broke off (the other side closed the connection))" and timed the
baseline alone; session 15's records, before the stand-in made its clock at its build, show it
working. The runner left no traceback. Each variant judges each task's solution once, the judge
process patched here (never the runners), and prints the stand-in's note (now with the runner's
exit status and, from a crash, its Python stack: faulthandler) and the clean room's phases:
  shipped               this tree as it is;
  clock-at-first-batch  the stand-in built without making its clock (it makes it at its first
                        batch, in the clean room, as in session 15);
  no-cache-copy         the baseline's Triton cache not copied into the stand-in's.
"""
from __future__ import annotations

import argparse
import json
import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

VARIANTS = ("shipped", "clock-at-first-batch", "no-cache-copy")


def judge(variant: str, argv: list[str]) -> None:
    """Run `python -m runner.evaluator ARGS` in this process, patched for `variant`."""
    from runner.evaluator.judge import evaluation, policy, runners
    policy.CLEAN_ROOM["cpu"] = True          # a CPU dry run (--device cpu) runs the clean room too
    if variant == "clock-at-first-batch":
        evaluation._build_stand_in = lambda runner, common: evaluation._build(runner)
    elif variant == "no-cache-copy":
        runners.RunnerClient.take_compiled = lambda self, other: None
    sys.argv = ["runner.evaluator", *argv]
    runpy.run_module("runner.evaluator", run_name="__main__", alter_sys=True)


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--judge":
        variant, rest = sys.argv[2], sys.argv[3:]
        judge(variant, rest[rest.index("runner.evaluator") + 1:])
        return 0
    from judge_gpu import _phases, evaluate, solution_of
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--tasks", nargs="+", default=["cuda2cuda/softmax", "triton2triton/softmax"])
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument("--device", default="cuda", help="cpu: a dry run of this script")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    found = []
    for variant in args.variants:
        for task in args.tasks:
            out = args.out / f"{variant}-{task.replace('/', '_')}.json"
            data = evaluate(task, solution_of(task), out, str(ROOT), device=args.device,
                            prefix=(sys.executable, str(Path(__file__).resolve()), "--judge", variant))
            notes = [n for n in data.get("notes", []) + data.get("flags", []) if "stand-in" in n or "clean room" in n]
            phases = {k: v for k, v in (_phases(out.with_suffix(".trace.jsonl")) or {}).items()
                      if "clean room" in k or "stand-in" in k or k == "total"}
            row = {"variant": variant, "task": task, "wall_s": data.get("wall_s"), "error": data.get("error"),
                   "stand_in_notes": notes, "phases": phases,
                   "speedups": [c.get("speedup") for c in data.get("configs", [])]}
            print(json.dumps(row), flush=True)
            found.append(row)
    (args.out / "standin_probe.json").write_text(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
