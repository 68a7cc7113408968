"""python -m runner.evaluator TASK_DIR [--candidate DIR] --device D --out FILE

The judge (judge/) in a process of its own (and, with the docker backend, a container of its
own); it starts a kernel runner per kernel in a sandbox of its own. The host reads only the JSON
written to --out. Also the agent's self-check inside its workspace: with --workspace --split seen it
evaluates the workspace's own editable files on the seen configs.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from runner.results.result import write_json
from runner.tasks.task import TaskError, load_configs, load_task
from runner.evaluator import timing
from runner.results.result import MAX_SPEEDUP
from runner.evaluator.isolation import CPU_THREADS, HIDE_ENV, protect_from_oom
from runner.evaluator.judge.evaluation import evaluate
from runner.evaluator.protocol import stack_dump_on_signal


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m runner.evaluator")
    parser.add_argument("task_dir", type=Path)
    parser.add_argument("--tasks-root", type=Path, default=None)
    parser.add_argument("--candidate", type=Path, default=None,
                        help="folder holding the candidate's editable files (default: the task as shipped)")
    parser.add_argument("--workspace", action="store_true",
                        help="TASK_DIR is an agent workspace: check its own files on the seen configs")
    parser.add_argument("--device", choices=("cuda", "rocm", "cpu"), required=True)
    parser.add_argument("--split", choices=("seen", "unseen", "both", "drawn"), default="both",
                        help="drawn: only the configs of --configs")
    parser.add_argument("--configs", type=Path, default=None,
                        help="a configs.toml of drawn configs (runner/tasks/configspace.py), evaluated as the "
                             "extra split 'drawn'")
    parser.add_argument("--baseline-only", action="store_true",
                        help="check only the baseline on each config (the drawn-config filter)")
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--out", type=Path, default=None, help="write the evaluation JSON here")
    parser.add_argument("--regime", choices=timing.REGIMES, default="cold",
                        help="timing regime for baseline and candidate alike (default: cold L2 per call)")
    parser.add_argument("--graph", action="store_true",
                        help="time CUDA-graph replays of each call (baseline and candidate alike; GPU only)")
    parser.add_argument("--process-offset", action=argparse.BooleanOptionalAction, default=None,
                        help="time the baseline in the candidate's runner process before the candidate is "
                             "loaded, and move every baseline time to that process (default: on a GPU; "
                             "docs/evaluation.md)")
    parser.add_argument("--arena", action=argparse.BooleanOptionalAction, default=None,
                        help="time both kernels on inputs and outputs placed in one judge-owned arena of "
                             "device memory, at one place per round (default: on CUDA where the driver "
                             "allows; docs/evaluation.md)")
    parser.add_argument("--own-blocks", action=argparse.BooleanOptionalAction, default=None,
                        help="cut what each kernel allocates itself from a region of its runner's, at a new "
                             "offset every batch (default: on for CUDA, policy.OWN_BLOCKS; not for graph replays; docs/evaluation.md)")
    parser.add_argument("--max-speedup", type=float, default=MAX_SPEEDUP,
                        help="flag (and score zero) a config faster than this over the baseline (the "
                             "task's [performance] max_speedup when higher)")
    parser.add_argument("--nonce-stdin", action="store_true",
                        help="read a nonce from stdin before any candidate code runs and echo it in the "
                             "JSON: the host accepts only a file carrying it")
    args = parser.parse_args(argv)
    protect_from_oom()      # the judge is never the OOM killer's first choice (isolation.py)
    try:
        task = load_task(args.task_dir, args.tasks_root, workspace_view=args.workspace)
    except TaskError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # Read (and drop from sys.stdin) before the candidate is imported; the candidate cannot read it
    # back from the pipe, and a file it writes itself before exiting lacks it.
    nonce = sys.stdin.readline().strip() if args.nonce_stdin else None
    hide = [p for p in os.environ.get(HIDE_ENV, "").split(os.pathsep) if p]
    splits = ("seen", "unseen") if args.split == "both" else (args.split,)
    drawn = []
    if args.split == "drawn" and args.configs is None:
        parser.error("--split drawn needs --configs FILE")
    if args.configs is not None:
        try:
            drawn = load_configs(args.configs, "drawn")
            known = {c.name for c in (*task.configs("seen"), *task.configs("unseen"))}
            for c in drawn:
                if c.name in known:
                    raise TaskError(args.configs, "config.name", f"{c.name!r} is also a task config name")
        except TaskError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        splits = tuple(s for s in splits if s != "drawn") + ("drawn",)
    if args.device == "cpu":       # before torch is imported (isolation.CPU_THREADS)
        os.environ.setdefault("OMP_NUM_THREADS", CPU_THREADS)
    evaluation = evaluate(task, args.candidate, args.device, splits, measure=not args.no_timing,
                          regime=args.regime, graph=args.graph, max_speedup=args.max_speedup,
                          drawn=drawn, baseline_only=args.baseline_only, hide=hide,
                          out_dir=args.out.resolve().parent if args.out else None, workspace=args.workspace,
                          process_offset=args.process_offset, use_arena=args.arena,
                          own_blocks=args.own_blocks)
    evaluation.nonce = nonce
    if args.out:
        write_json(args.out, evaluation.to_dict())
    else:
        json.dump(evaluation.to_dict(), sys.stdout, indent=2)
        print()
    return 0


if __name__ == "__main__":
    stack_dump_on_signal()       # the process's own stderr (main() also runs inside tests)
    sys.exit(main())
