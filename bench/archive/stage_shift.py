"""What moves the process offset between its probe and the candidate's stage? (issue 10: the stage
shift, the last error of small calls.)

    python3 bench/archive/stage_shift.py [--tasks cuda2cuda/gelu triton2triton/gelu] [--repeats 3]

The judge measures the candidate runner's process offset once, with the baseline loaded there,
before the candidate is loaded (Judge.process_offset); on an H100 the same difference read again at
the candidate's stage had moved by sd 0.07 us over 28 noop evaluations, fixed within each one. Here
one pair of runners is set up as the judge sets them up (the baseline's runner; a candidate's runner
holding the baseline's probe copy), and the offset is measured again after each thing the judge
does between the probe and the stage, one at a time, in this order:

  again      nothing (the measurement's own repeatability)
  idle       5 s of nothing (drift with time)
  calls      correctness calls of both runners on every other config (allocations, other shapes)
  watch      a warm-up batch under the stream watch's profiler session, in both runners
  watch-c    the same, in the candidate's runner alone
  launch-c   the native launch check (a profiler session), in the candidate's runner alone
  freeze     the candidate's runner frozen and thawed three times
  build      the candidate built in its runner (here: the baseline's files again, a noop); with
             --symmetric the baseline's runner also started with a probe copy of its own, and
             builds its real copy here too
  after      nothing
  others     every other config timed (probe-style: no checks) against the same pair
  checked    the offset's config timed as a candidate's stage times it (watch, repetition checks);
             its difference is the offset as the stage would read it

Run once without and once with --symmetric: if `build` moves the offset the same way in every
process, building twice in both runners cancels it.
Each line: the offset (us, candidate's runner less baseline's, the judge's statistic) and its
change from the previous line. A step well above `again`'s says that step moves the offset."""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from runner.candidate import kernel_tree  # noqa: E402
from runner.evaluator import arena, judge as J, timing  # noqa: E402
from runner.evaluator.gpulock import exclusive_device  # noqa: E402
from runner.evaluator.isolation import choose  # noqa: E402
from runner.tasks.task import load_task  # noqa: E402


def difference_us(base, other) -> tuple[float, float]:
    """`other`'s figure less `base`'s (us), and the standard error of that median round difference."""
    diffs = [c - b for b, c in zip(base.round_ms, other.round_ms)]
    return 1000 * (other.time_ms - base.time_ms), 1000 * timing.median_standard_error(diffs)


def one_pair(task, device: str, log, symmetric: bool = False) -> list[dict]:
    language = task.language
    scratch = Path(tempfile.mkdtemp(prefix="stage-shift-"))
    runners = []
    try:
        isolation = choose({task.root, *task.bases, scratch}, device)
        base_tree = kernel_tree(task.files, task.editable, None, scratch / "baseline")
        cand_tree = kernel_tree(task.files, task.editable, None, scratch / "candidate")
        spec = J._runner_spec(task, language, "baseline")
        probe_copy = {"tree": scratch / "baseline", **spec}
        baseline = J.RunnerClient(isolation, base_tree, device=device, role="baseline",
                                  probe=probe_copy if symmetric else None, **spec)
        runners.append(baseline)
        candidate = J.RunnerClient(isolation, cand_tree, device=device, role="candidate",
                                   probe=probe_copy,
                                   **J._runner_spec(task, language, "candidate"))
        runners.append(candidate)
        with exclusive_device(device):
            J.protocol.strict_float32()
            reference = J.import_reference(task.reference)
            fp32 = J._warm_up(reference, task, device)
            judge = J.Judge(task, device, reference, fp32_task=fp32, regime="cold", graph=False,
                            max_speedup=1e9, use_arena=arena.available(device))
            for runner, probe in ((baseline, symmetric), (candidate, True)):
                reply = J._build(runner, probe)
                if not reply.get("compiled"):
                    raise SystemExit(f"{task.id}: {runner.role} did not build: {str(reply.get('log'))[-400:]}")
            every = task.configs("seen") + task.configs("unseen")
            first = judge.quickest(baseline, every)
            rows, last = [], None

            def measure(step: str, seconds: float, checked: bool = False) -> None:
                nonlocal last
                # checked: timed as a candidate's stage times it; else as the offset is (no checks)
                base, other, _ = judge.time(baseline, candidate, first, probe=not checked)
                value, se = difference_us(base, other)
                step_us = None if last is None else value - last
                last = value
                rows.append({"task": task.id, "config": first.name, "step": step, "offset_us": value,
                             "se_us": se, "change_us": step_us, "step_s": round(seconds, 2)})
                log(f"  {step:10s} offset {value:+.4f} us (se {se:.4f})"
                    + ("" if step_us is None else f"  change {step_us:+.4f}") + f"  [{seconds:.1f} s]")

            def warm_batch(runner, watch: bool) -> None:
                judge._batch(runner, timing.WARMUP_CALLS, judge._common(False), keep=False, watch=watch,
                             evidence=False)

            def launch_check() -> None:
                if language in ("cuda", "hip"):
                    args = judge.inputs(first, J.WARMUP_SEED)
                    judge.call(candidate, args, judge.expected(args), launch_check=True, evidence=False)

            def calls() -> None:
                for config in every:
                    if config is not first:
                        args = judge.inputs(config, J.WARMUP_SEED)
                        expected = judge.expected(args)
                        for runner in (baseline, candidate):
                            judge.call(runner, args, expected, patterns=(0, 1), evidence=False)

            def freeze() -> None:
                for _ in range(3):
                    candidate.freeze()
                    time.sleep(0.2)
                    candidate.thaw()

            steps = [("start", lambda: None), ("again", lambda: None), ("idle", lambda: time.sleep(5)),
                     ("calls", calls),
                     ("watch", lambda: [warm_batch(r, True) for r in (baseline, candidate)]),
                     ("watch-c", lambda: warm_batch(candidate, True)),
                     ("launch-c", launch_check), ("freeze", freeze),
                     ("build", lambda: [J._build(r) for r in ((baseline, candidate) if symmetric else (candidate,))]),
                     ("after", lambda: None),
                     ("others", lambda: [judge.time(baseline, candidate, c, probe=True) for c in every if c is not first]),
                     ("checked", lambda: None)]
            for step, action in steps:
                started = time.perf_counter()
                action()
                measure(step, time.perf_counter() - started, checked=step == "checked")
                judge.flags.clear()
            judge.close_arena()
            return rows
    finally:
        J.close_all(runners)
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=["cuda2cuda/gelu", "triton2triton/gelu"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--symmetric", action="store_true",
                        help="the baseline's runner also builds a probe copy first, and its own at `build`")
    parser.add_argument("--out", type=Path, default=None, help="JSON lines of every measurement")
    args = parser.parse_args()
    tasks_root = ROOT / "tasks"
    rows = []
    for name in args.tasks:
        task = load_task(tasks_root / name, tasks_root)
        for repeat in range(args.repeats):
            print(f"{name} pair {repeat}" + (" (symmetric)" if args.symmetric else ""), flush=True)
            rows += one_pair(task, args.device, lambda line: print(line, flush=True), args.symmetric)
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print("\nmean |change| per step over pairs (us):")
    for step in dict.fromkeys(r["step"] for r in rows):
        changes = [abs(r["change_us"]) for r in rows if r["step"] == step and r["change_us"] is not None]
        if changes:
            print(f"  {step:10s} {sum(changes) / len(changes):.4f}  max {max(changes):.4f}  n={len(changes)}")


if __name__ == "__main__":
    main()
