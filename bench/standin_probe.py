"""Why the clean room's stand-in died on GPUs (results/gpu-2026-11-30-s17.md).

    python3 bench/standin_probe.py --out DIR [--tasks T ...] [--variants V ...] [--noops T ...] [--noop-variants V ...] [--device cpu]

From session 16 on, every GPU evaluation that ran the clean room noted "the clean room's stand-in
failed (the baseline runner broke off (the other side closed the connection))" and timed the
baseline alone; session 15's records, before the stand-in made its clock at its build, show it
working. The runner left no traceback. Each variant judges each task's solution once (default
triton2triton/softmax), and the noop of cuda2cuda/gelu (its 2.4 us calls read 1.05x in session 17)
as shipped, with the clock at the first batch and with the trace off. The judge process is patched here
(never the runners); each evaluation prints the stand-in's note (now with the runner's
exit status and, from a crash, its Python stack: faulthandler) and the clean room's phases:
  shipped               this tree as it is;
  clock-at-first-batch  the stand-in built without making its clock (it makes it at its first
                        batch, in the clean room, as in session 15);
  no-cache-copy         the baseline's Triton cache not copied into the stand-in's;
  not-frozen            the stand-in left running (idle, waiting on its socket) from its build to
                        the clean room instead of stopped;
  thaw-by-scan          the thaw before 1b5e445 (SIGCONT to every process of the sandbox found by a
                        scan of /proc, not by the walk of the stopped tree);
  trace-off             shipped with GAUNTLET_DEVICE_TRACE=0 (no device trace, so no device-time
                        floor): for the noop, whether the floor moves small calls.
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

VARIANTS = ("shipped", "clock-at-first-batch", "no-cache-copy", "not-frozen", "thaw-by-scan", "trace-off")


def judge(variant: str, argv: list[str]) -> None:
    """Run `python -m runner.evaluator ARGS` in this process, patched for `variant`."""
    from runner.evaluator.judge import evaluation, policy, runners
    policy.CLEAN_ROOM["cpu"] = True          # a CPU dry run (--device cpu) runs the clean room too
    if variant == "clock-at-first-batch":
        evaluation._build_stand_in = lambda runner, common: evaluation._build(runner)
    elif variant == "no-cache-copy":
        runners.RunnerClient.take_compiled = lambda self, other: None
    elif variant == "not-frozen":
        freeze = runners.RunnerClient.freeze

        def freeze_but_the_first(self):          # the stand-in's first freeze is the one after its build
            if self.stand_in and not getattr(self, "probe_passed_first", False):
                self.probe_passed_first = True
                return
            freeze(self)
        runners.RunnerClient.freeze = freeze_but_the_first
    elif variant == "trace-off":
        import os
        os.environ["GAUNTLET_DEVICE_TRACE"] = "0"
    elif variant == "thaw-by-scan":
        import signal
        runners.RunnerClient.thaw = lambda self: self.signal_all(signal.SIGCONT)
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
    parser.add_argument("--tasks", nargs="+", default=["triton2triton/softmax"])
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS[:5]))
    parser.add_argument("--device", default="cuda", help="cpu: a dry run of this script")
    parser.add_argument("--noops", nargs="*", default=["cuda2cuda/gelu"],
                        help="X->X tasks judged as shipped (noop) in --noop-variants: session 17's small calls "
                             "read 1.02-1.06x in noops since the stand-in's clock moved to its build")
    parser.add_argument("--noop-variants", nargs="*", choices=VARIANTS, default=["shipped", "clock-at-first-batch", "trace-off"])
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    jobs = [(variant, task, "oracle") for variant in args.variants for task in args.tasks]
    jobs += [(variant, task, "noop") for variant in args.noop_variants for task in args.noops]
    found = []
    for variant, task, agent in jobs:
        out = args.out / f"{variant}-{task.replace('/', '_')}-{agent}.json"
        data = evaluate(task, solution_of(task) if agent == "oracle" else None, out, str(ROOT), device=args.device,
                        prefix=(sys.executable, str(Path(__file__).resolve()), "--judge", variant))
        notes = [n for n in data.get("notes", []) + data.get("flags", []) if "stand-in" in n or "clean room" in n]
        phases = {k: v for k, v in (_phases(out.with_suffix(".trace.jsonl")) or {}).items()
                  if "clean room" in k or "stand-in" in k or k == "total"}
        row = {"variant": variant, "task": task, "agent": agent, "wall_s": data.get("wall_s"), "error": data.get("error"),
               "stand_in_notes": notes, "phases": phases,
               "speedups": [c.get("speedup") for c in data.get("configs", [])]}
        print(json.dumps(row), flush=True)
        found.append(row)
    (args.out / "standin_probe.json").write_text(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
