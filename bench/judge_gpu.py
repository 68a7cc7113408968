"""GPU measurements of the judge split (docs/benchmarks.md, results/).

    python3 bench/judge_gpu.py fidelity --out DIR [--repeats N] [--tasks T ...] [--agents noop] [--eval-args=--no-arena]
        every task's solution (oracle) and, for X->X tasks, the task as shipped (noop: baseline
        against itself, two runner processes) through `python -m runner.evaluator`; per config the
        times, the judge's time-bound figures and the flags; noop repeated N times (self-speedup).
    python3 bench/judge_gpu.py fidelity --out DIR --suite headline --ledger results/.../timed.jsonl
    python3 bench/judge_gpu.py fidelity --out DIR --tasks-root .aka/tasks --agents noop --ledger L   # an import, timed
        every task of a named suite timed (oracle; noop on X->X), one line per evaluation appended
        to the ledger, and what the ledger holds skipped: a suite too long for one call is timed
        over several calls and sessions (issue 30's oracle and noop over the suite, trace on).
        --shard K/N: every Nth task from the Kth; on a host of N GPUs one process per GPU
        (CUDA_VISIBLE_DEVICES=K ... --shard K/N &), all appending to one ledger.
    python3 bench/judge_gpu.py overhead --out DIR --old OLD_PYTHONPATH [--same-tasks] [--tasks T ...]
        wall time of one evaluation of each solution with the evaluator of OLD_PYTHONPATH (the
        in-process harness) and with this one; --same-tasks: both on this tree's tasks. --profile PY_SPY:RATE runs each under py-spy and
        writes bench/profile_phases.py's table of where its time went beside it.
    python3 bench/judge_gpu.py redteam --out DIR
        GPU-only cheats through the judge: side streams (getattr, the driver's entry point), a
        forged event timer, a skipped L2 flush, an empty CUDA graph, work left to a thread, GPU
        work a process of the candidate's queues against the baseline (baseline_hog), the host
        loaded while the baseline warms up (host_load: read its x= against honest's); issue 30's
        reaches into the runner's process (findings_cleared, refill_wrapped,
        side_stream_when_unwatched, dispatch_mode_pushed), for the device trace (on by default on
        CUDA; GAUNTLET_DEVICE_TRACE=0 runs them without it: runner/evaluator/devtrace.py).
    python3 bench/judge_gpu.py ncu --out DIR [--tasks T ...]
        Nsight Compute's gpu__time_duration of each single-kernel solution on its largest seen
        config, against the candidate time the judge reported for it.
    python3 bench/judge_gpu.py suite --out DIR [--jobs N] [--tasks T ...] [--hip-on-cuda]
                                     [--tasks-root DIR] [--agents noop] [--suite headline]
        the suite's validation (issue 12): every task's solution (oracle) and the task as shipped
        (noop) through the judge on every seen and hidden config, correctness only (--no-timing),
        N evaluations at once (each with a lock folder of its own: nothing is timed). The oracle
        must be correct everywhere with no flag; noop must fail a PyTorch->X task and pass an X->X
        one, unflagged. --tasks default: every task that runs on CUDA; with --hip-on-cuda the HIP
        tasks too, compiled by nvcc through bench/hip_shim (their logic with 32-wide warps, not an
        AMD run).
        Resumable: DIR/suite.jsonl keeps one line per finished evaluation. --tasks-root: another
        task folder (a KernelBench import, which ships no solution: run it with --agents noop).
    python3 bench/judge_gpu.py torch-ext --out DIR [--jobs N] [--tasks T ...]   (bench/torch_ext_gpu_check.sh)
        the torch-extension candidate kind (AgentKernelArena's HIP format) on the GPU: the fixture
        tasks of tests/fixtures/torch_ext_tasks through the judge (TORCH_EXT_CHECKS): a CUDA .cu
        extension with nvcc, a HIP .hip one and a hip2hip shipped baseline through bench/hip_shim,
        each stub failing, an extension computing with at:: flagged torch_fallback; correctness
        only, and three timed for the device trace's reading of an extension's calls. Exit 1 when
        any check is not as expected.

Each writes DIR/<mode>.json and prints a table. Needs a CUDA GPU and nvcc; ncu for `ncu`.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))        # runner.tasks.task, for the folders the oracle submits
CUDA_TASKS = ("triton2triton/softmax", "triton2triton/matmul", "torch2triton/rmsnorm", "torch2triton/silu_mul",
              "cuda2cuda/softmax", "cuda2cuda/transpose", "torch2cuda/rmsnorm", "torch2cuda/bias_gelu_residual")


def evaluate(task: str, candidate: Path | None, out: Path, pythonpath: str, extra=(), timeout=600,
             tasks_root: Path = ROOT / "tasks", env: dict | None = None, device: str = "cuda",
             prefix=()) -> dict:
    """`prefix`: what runs the evaluator's command (a profiler)."""
    argv = [*prefix, sys.executable, "-m", "runner.evaluator", str(tasks_root / task), "--tasks-root", str(tasks_root),
            "--device", device, "--out", str(out), *extra]
    if candidate is not None:
        argv += ["--candidate", str(candidate)]
    env = {**os.environ, **(env or {}), "PYTHONPATH": pythonpath,
           "GAUNTLET_JUDGE_TRACE": str(out.with_suffix(".trace.jsonl"))}
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, cwd=str(out.parent))
    wall = time.perf_counter() - started
    data = json.loads(out.read_text()) if out.is_file() else {"error": proc.stderr[-2000:]}
    data["wall_s"] = round(wall, 2)
    if proc.returncode != 0:
        data["error"] = (data.get("error") or "") + proc.stderr[-1500:]
    return data


def _last(trace: Path, key: str):
    """`key` of the last evaluation in a judge trace file: phases_s (judge.Phases, seconds per
    phase) or process_offset (judge.Judge.process_offset: the baseline's median in each process)."""
    if not trace.is_file():
        return None
    found = [json.loads(line) for line in trace.read_text().splitlines() if f'"{key}"' in line]
    return found[-1][key] if found else None


def _phases(trace: Path) -> dict | None:
    found = _last(trace, "phases_s")
    return {k: round(v, 2) for k, v in found.items()} if found else None


# Notes that say a part of the judge's own harness failed (the evaluation went on without it): shown
# beside the flags on each evaluation's line and kept in the ledger. Session 16 read flags only, and
# a stand-in that died in every evaluation went unseen for a session (results/gpu-2026-11-30-s17.md).
HARNESS_FAULTS = ("failed", "did not build", "without the arena", "did not start", "broke off")


def harness_faults(notes, harness_error: str | None = None) -> list[str]:
    """The notes that say a part of the harness failed, and the verdict's harness_error (the judge's
    side itself failed: the baseline's runner died; the attempt would be an infra_error)."""
    return ([harness_error[:300]] if harness_error else []) + [
        n[:300] for n in notes or () if any(word in n for word in HARNESS_FAULTS)]


def rows(data: dict) -> list[dict]:
    keep = ("config", "split", "correct", "error", "baseline_ms", "candidate_ms", "speedup", "judge_excess_ms",
            "baseline_clean_ms", "judge_overhead_ms", "baseline_offset_ms", "flags")
    return [{k: c.get(k) for k in keep} for c in data.get("configs", [])]


def solution_of(task: str, tasks_root: Path = ROOT / "tasks") -> Path:
    """The folder the oracle submits: the task's [solution] dir, wherever `extends` found it."""
    from runner.tasks.task import load_task
    found = load_task(tasks_root / task, tasks_root).solution_dir
    if found is None:
        raise SystemExit(f"{task} has no solution")
    return found


def fidelity(args) -> dict:
    results = []
    ledger = Path(args.ledger) if args.ledger else None
    done = ({(r["task"], r["agent"]) for r in map(json.loads, ledger.read_text().splitlines())}
            if ledger and ledger.is_file() else set())
    root = (args.tasks_root or ROOT / "tasks").resolve()     # each evaluation runs from its output folder
    if args.suite:
        tasks = _suite_tasks([], False, root, args.suite)
    elif args.tasks:
        tasks = args.tasks
    elif args.tasks_root:       # every task of another root (an import)
        tasks = _suite_tasks([], False, root)
    else:
        tasks = list(CUDA_TASKS)
    shard, shards = map(int, args.shard.split("/"))
    for task in tasks[shard::shards]:
        runs = [("oracle", solution_of(task, root))] if "oracle" in args.agents else []
        if task.split("/")[0] in ("cuda2cuda", "triton2triton") and "noop" in args.agents:
            runs += [("noop", None)] * args.repeats
        for i, (agent, cand) in enumerate(runs):
            if (task, agent) in done:
                continue
            # A task listed twice (`--tasks T T`) is evaluated twice: each keeps its own files (the
            # second once overwrote the first's verdict and appended to its trace, 2026-11-30).
            name = f"fid-{task.replace('/', '_')}-{agent}"
            while (args.out / f"{name}-{i}.json").exists():
                i += 1
            verdict = args.out / f"{name}-{i}.json"
            data = evaluate(task, cand, verdict, args.code or str(ROOT), extra=args.eval_args, tasks_root=root)
            results.append({"task": task, "agent": agent, "wall_s": data["wall_s"], "flags": data.get("flags"),
                            "notes": data.get("notes"), "error": data.get("error"), "rows": rows(data),
                            "environment": data.get("environment"), "timing_method": data.get("timing_method")})
            r = results[-1]
            trace = verdict.with_suffix(".trace.jsonl")       # as evaluate() names it
            r["phases_s"] = _phases(trace)
            r["offset"] = _last(trace, "process_offset")
            _other_speedups(r, trace)
            (args.out / "fidelity.partial.json").write_text(json.dumps(results, indent=1))
            # One line per judged evaluation, across calls and sessions: the next run skips it. An
            # evaluation that left no verdict (the harness failed: a task root that did not resolve,
            # a crash, a timeout), or whose verdict says the judge's own side failed (harness_error:
            # the baseline's runner died), is not judged and stays out, so the next run tries it again.
            if ledger and "compiled" in data and not data.get("harness_error"):
                line = json.dumps({"task": task, "agent": agent, "date": time.strftime("%Y-%m-%d"),
                                   "flags": r["flags"], "harness_faults": harness_faults(r["notes"], data.get("harness_error")),
                                   "error": r["error"], "timing_method": r["timing_method"],
                                   "speedups": {c["config"]: c["speedup"] for c in r["rows"]},
                                   "correct": sum(1 for c in r["rows"] if c["correct"]),
                                   "configs": len(r["rows"])}) + "\n"
                fd = os.open(ledger, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:     # one write of an appending descriptor: shards writing at once never interleave a line
                    os.write(fd, line.encode())
                finally:
                    os.close(fd)
            print(f"{task:32s} {agent:6s} {r['wall_s']:7.1f}s flags={r['flags']} err={(r['error'] or '')[:200]} "
                  f"harness_faults={harness_faults(r['notes'], data.get('harness_error'))}")
            print(f"    phases {r['phases_s']}")
            print(f"    timing {r['timing_method']}; isolation {(r['environment'] or {}).get('runner_isolation')}")
            if r["offset"]:
                print(f"    process offset {json.dumps(r['offset'])}")
            for c in r["rows"]:
                print(f"    {c['split']:6s} {c['config']:20s} ok={c['correct']} base={c['baseline_ms']} cand={c['candidate_ms']} "
                      f"x={c['speedup'] and round(c['speedup'], 4)} excess={c['judge_excess_ms']} over={c['judge_overhead_ms']} "
                      f"plain_x={c.get('plain_speedup') and round(c['plain_speedup'], 4)} err={c['error']} flags={c['flags']}")
    noop = [abs(c["speedup"] - 1) for r in results if r["agent"] == "noop" for c in r["rows"] if c["speedup"]]
    # the same noops without the offset: each baseline time from its own process
    own = [abs((c["baseline_ms"] - (c["baseline_offset_ms"] or 0.0)) / c["candidate_ms"] - 1)
           for r in results if r["agent"] == "noop" for c in r["rows"] if c["speedup"]]
    other = {name: [abs(c[f"{name}_speedup"] - 1) for r in results if r["agent"] == "noop" for c in r["rows"]
                    if c.get(f"{name}_speedup")] for name in STATISTICS}
    # issue 3's measure: each task-config's |s - 1| as the median of its repeats, then the worst of those
    by_config = {}
    for r in results:
        for c in r["rows"]:
            if r["agent"] == "noop" and c["speedup"]:
                by_config.setdefault((r["task"], c["config"]), []).append(abs(c["speedup"] - 1))
    per_config = {k: statistics.median(v) for k, v in by_config.items()}
    worst_config = max(per_config, key=per_config.get) if per_config else None
    excess = [abs(c["judge_excess_ms"]) for r in results for c in r["rows"] if c["judge_excess_ms"] is not None]
    summary = {"noop_abs_dev_median": statistics.median(noop) if noop else None,
               "noop_abs_dev_max": max(noop) if noop else None, "noop_configs": len(noop),
               **{f"noop_{name}_abs_dev_{what}": (f(v) if v else None) for name, v in other.items()
                  for what, f in (("median", statistics.median), ("max", max))},
               "noop_task_config_median_of_repeats_max": per_config[worst_config] if worst_config else None,
               "noop_task_config_worst": list(worst_config) if worst_config else None,
               "noop_repeats_per_config": max((len(v) for v in by_config.values()), default=0),
               "noop_own_process_abs_dev_median": statistics.median(own) if own else None,
               "noop_own_process_abs_dev_max": max(own) if own else None,
               "judge_excess_abs_ms_median": statistics.median(excess) if excess else None,
               "judge_excess_abs_ms_max": max(excess) if excess else None,
               "flagged_honest": [(r["task"], r["agent"], r["flags"]) for r in results if r["flags"]]}
    print(json.dumps(summary, indent=1))
    return {"results": results, "summary": summary}


STATISTICS = {"plain": ("plain_median_ms", "plain_ms")}      # the median of all samples (before issue 10's eleventh session)


def _other_speedups(result: dict, trace: Path) -> None:
    """Each row's speedup again from other statistics of the same samples, which the judge's trace
    keeps (STATISTICS): the A/B of timing.stats/paired on one set of samples."""
    if not trace.is_file():
        return
    lines = [json.loads(line) for line in trace.read_text().splitlines() if '"plain_median_ms"' in line]
    offset = result.get("offset") or {}
    for name, (key, offset_key) in STATISTICS.items():
        timed = {d["config"]: d[key] for d in lines if not d.get("probe") and key in d}
        pair = offset.get(offset_key)
        for c in result["rows"]:
            figure = timed.get(c["config"])
            if not figure or not c["speedup"] or c["judge_excess_ms"] is None:
                continue
            shift = (pair[1] - pair[0]) if (pair and c["baseline_offset_ms"] is not None) else 0.0
            c[f"{name}_speedup"] = (figure["baseline"] + shift) / figure["candidate"]


def _tasks_for_old(dest: Path, old: str, same: bool = False) -> Path:
    """tasks/ as the old evaluator's loader reads it: the old commit's own tasks/ where OLD carries
    one (`git archive COMMIT runner tasks`: task.toml keys added since fail its schema), else this
    tree's without the [performance] tables it predates. With `same` (overhead --same-tasks): this
    tree's tasks, kernels and configs as they are now, less the task.toml keys e9f494d's schema
    does not know (`suites`, `[work]`, `[performance]`; all 253 tasks then load with its loader):
    both evaluators judge the same baselines, so the ratio is the judge's own cost. Without it the
    old evaluator judges the old tasks, and a task whose baseline issue 33 made faster needs more
    rounds now (timing.more_rounds: a target relative to the baseline's time), which is no cost of
    the judge's (cuda2cuda/softmax, session 16)."""
    import re
    import shutil
    own = Path(old) / "tasks"
    if same:
        import tomli_w
        import tomllib
        shutil.copytree(ROOT / "tasks", dest)
        for toml in dest.glob("*/*/task.toml"):
            data = tomllib.loads(toml.read_text())
            for key in ("suites", "work", "performance"):
                data.pop(key, None)
            toml.write_text(tomli_w.dumps(data))
        return dest
    shutil.copytree(own if own.is_dir() else ROOT / "tasks", dest)
    for toml in dest.glob("*/*/task.toml"):
        toml.write_text(re.sub(r"\n\[performance\]\n(#.*\n)*max_speedup = .*\n", "\n", toml.read_text()))
    return dest


def _profiled(name: str, args) -> tuple:
    """py-spy's command prefix for one evaluation (overhead --profile PY_SPY:RATE), or ()."""
    if not args.profile:
        return ()
    spy, rate = args.profile.rsplit(":", 1)
    return (spy, "record", "--subprocesses", "--idle", "--threads", "--format", "raw", "-r", rate,
            "-o", str(args.out / f"{name}.pyspy.txt"), "--")


def _profile_table(name: str, args) -> None:
    """bench/profile_phases.py's table of one profiled evaluation, written beside it."""
    prof = args.out / f"{name}.pyspy.txt"
    if args.profile and prof.is_file():
        table = subprocess.run([sys.executable, str(ROOT / "bench" / "profile_phases.py"), str(prof),
                                "--rate", args.profile.rsplit(":", 1)[1]], capture_output=True, text=True)
        (args.out / f"{name}.phases.txt").write_text(table.stdout + table.stderr)


def overhead(args) -> dict:
    results = []
    old_tasks = _tasks_for_old(Path(tempfile.mkdtemp()) / "tasks", args.old, args.same_tasks)
    for task in args.tasks:
        cand = solution_of(task)
        slug = task.replace("/", "_")
        old = evaluate(task, old_tasks / cand.relative_to(ROOT / "tasks"), args.out / f"old-{slug}.json", args.old,
                       tasks_root=old_tasks, prefix=_profiled(f"old-{slug}", args), device=args.device)
        new = evaluate(task, cand, args.out / f"new-{slug}.json", str(ROOT), prefix=_profiled(f"new-{slug}", args),
                       device=args.device, extra=args.eval_args)      # this tree's options (the old one predates them)
        for name in (f"old-{slug}", f"new-{slug}"):
            _profile_table(name, args)
        results.append({"task": task, "old_s": old["wall_s"], "new_s": new["wall_s"],
                        "ratio": round(new["wall_s"] / old["wall_s"], 3),
                        "old_correct": all(c["correct"] for c in old.get("configs", [])) and bool(old.get("configs")),
                        "new_correct": all(c["correct"] for c in new.get("configs", [])) and bool(new.get("configs")),
                        "old_error": (old.get("error") or "")[:300], "new_error": (new.get("error") or "")[:300],
                        "new_harness_faults": harness_faults(new.get("notes"), new.get("harness_error")),
                        "new_phases_s": _phases(args.out / f"new-{slug}.trace.jsonl")})
        print(results[-1])
        (args.out / "overhead.partial.json").write_text(json.dumps(results, indent=1))
    total_old = sum(r["old_s"] for r in results)
    total_new = sum(r["new_s"] for r in results)
    summary = {"old_total_s": round(total_old, 1), "new_total_s": round(total_new, 1),
               "ratio": round(total_new / total_old, 3) if total_old else None}
    print(summary)
    return {"results": results, "summary": summary}


# -- the suite's validation ---------------------------------------------------------------------------
HIPCC_SHIM = Path(__file__).resolve().parent / "hip_shim" / "hipcc"


def _suite_tasks(selected: list[str], hip: bool, tasks_root: Path, named: str = "") -> list[str]:
    from runner.tasks.task import load_task
    found = []
    for toml in sorted(tasks_root.glob("*/*/task.toml")):
        task = load_task(toml.parent, tasks_root)
        if named and named not in task.suites:
            continue
        if "cuda" in task.platforms or (hip and task.category.endswith("hip")):
            found.append(task.id)
    if selected:
        found = [t for t in found if any(t == s or t.startswith(s.rstrip("/") + "/") for s in selected)]
    return found


def _suite_one(task: str, agent: str, out: Path, slot: int, device: str, tasks_root: Path) -> dict:
    cand = solution_of(task, tasks_root) if agent == "oracle" else None
    env = {"GAUNTLET_LOCK_DIR": f"/tmp/gauntlet-locks-suite-{slot}"}   # correctness only: nothing timed
    if task.split("/")[0].endswith("hip"):
        env["GAUNTLET_HIPCC"] = str(HIPCC_SHIM)
    try:
        data = evaluate(task, cand, out / f"{agent}-{task.replace('/', '_')}.json", str(ROOT), extra=["--no-timing"],
                        env=env, device=device, tasks_root=tasks_root)
    except subprocess.TimeoutExpired as exc:
        data = {"wall_s": exc.timeout, "error": f"the evaluation outran {exc.timeout} s"}
    configs = data.get("configs") or []
    row = {"task": task, "agent": agent, "wall_s": data["wall_s"], "compiled": data.get("compiled"),
           "configs": len(configs), "correct": sum(1 for c in configs if c.get("correct")),
           "flags": data.get("flags") or [], "config_flags": sorted({f.split(":")[0] for c in configs
                                                                      for f in c.get("flags") or []}),
           "error": (data.get("error") or "")[:300] or None, "task_error": data.get("task_error"),
           "first_failure": next(((c["config"], (c.get("error") or "")[:160]) for c in configs if not c.get("correct")),
                                 None)}
    x2x = task.split("/")[0] in ("cuda2cuda", "triton2triton", "hip2hip")
    all_correct = bool(configs) and row["correct"] == len(configs) and not row["error"]
    clean = all_correct and not row["flags"] and not row["config_flags"]   # what a run scores as a pass
    if agent == "oracle" or x2x:     # the solution, or an X->X task's shipped baseline: a pass, unflagged
        row["ok"] = clean
    else:        # noop on PyTorch->X: the stub (built, run) fails
        row["ok"] = (bool(configs) and row["compiled"] is True and not all_correct
                     and not row["error"] and not row["task_error"])
    return row


def suite(args) -> dict:
    import concurrent.futures as cf
    tasks_root = (args.tasks_root or ROOT / "tasks").resolve()
    tasks = _suite_tasks(args.tasks, args.hip_on_cuda, tasks_root, args.suite)
    log = args.out / "suite.jsonl"
    done = {(r["task"], r["agent"]) for r in map(json.loads, log.read_text().splitlines())} if log.is_file() else set()
    todo = [(t, a) for t in tasks for a in args.agents if (t, a) not in done]
    print(f"{len(tasks)} tasks, {len(todo)} evaluations to run ({len(done)} already in {log.name})", flush=True)
    slots = list(range(args.jobs))
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        def run(item):
            slot = slots.pop()
            try:
                return _suite_one(*item, args.out, slot, args.device, tasks_root)
            finally:
                slots.append(slot)
        for future in cf.as_completed([pool.submit(run, item) for item in todo]):   # a kill loses only those in flight
            row = future.result()
            with log.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(f"{'ok ' if row['ok'] else 'BAD'} {row['agent']:6s} {row['task']:36s} {row['correct']}/{row['configs']} "
                  f"{row['wall_s']:6.1f}s {row['flags'] or ''} {row['config_flags'] or ''} "
                  f"{row['first_failure'] or ''} {row['error'] or ''}", flush=True)
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    by_task = {}
    for r in rows:
        by_task.setdefault(r["task"], {})[r["agent"]] = r
    valid = sorted(t for t, v in by_task.items() if all(v.get(a, {}).get("ok") for a in args.agents))
    summary = {"tasks": len(by_task), "validated": len(valid),
               "not_validated": sorted(set(by_task) - set(valid)),
               "by_category": {cat: sum(1 for t in valid if t.startswith(cat + "/"))
                               for cat in sorted({t.split("/")[0] for t in by_task})}}
    print(json.dumps(summary, indent=1))
    return {"rows": rows, "summary": summary}


# -- torch-extension candidates on the GPU -----------------------------------------------------------
TORCH_EXT_ROOT = ROOT / "tests" / "fixtures" / "torch_ext_tasks"
TORCH_EXT_CHEATS = ROOT / "tests" / "fixtures" / "torch_ext_candidates"
TORCH_EXT_TIMEOUT_S = 230        # per evaluation: the whole check runs in bench/torch_ext_gpu_check.sh's 5 min
# (task, submission, timed, expected). Submission: "oracle" (the task's solution), "noop" (the task as
# shipped) or a cheat's folder under TORCH_EXT_CHEATS. Expected: "pass" (compiled, every seen and
# hidden config correct, no flag), "fail" (compiled, run, wrong somewhere: a stub), or a flag the
# evaluation must carry. Timed ones run with the device trace (on by default on CUDA), which reads
# the extension's kernels in every call; untimed ones get the native launch check instead.
TORCH_EXT_CHECKS = (
    ("torch2cuda/extscale", "oracle", False, "pass"),
    ("torch2cuda/extscale", "noop", False, "fail"),
    ("torch2cuda/extscale", "fallback_cu", False, "torch_fallback"),
    ("torch2hip/extscale_gpu", "oracle", False, "pass"),
    ("torch2hip/extscale_gpu", "noop", False, "fail"),
    ("torch2hip/extscale_gpu", "fallback_hip", False, "torch_fallback"),
    ("hip2hip/extscale_gpu", "noop", False, "pass"),
    ("hip2hip/extscale_gpu", "oracle", False, "pass"),
    ("torch2cuda/extscale", "oracle", True, "pass"),
    ("torch2cuda/extscale", "fallback_cu", True, "torch_fallback"),
    ("hip2hip/extscale_gpu", "noop", True, "pass"),
)


def _torch_ext_one(index: int, task: str, submission: str, timed: bool, expected: str, out: Path,
                   device: str) -> dict:
    root = TORCH_EXT_ROOT
    cand = (solution_of(task, root) if submission == "oracle" else None if submission == "noop"
            else TORCH_EXT_CHEATS / submission)
    # A lock folder per evaluation, as `suite` gives each: the timed ones are read for the device
    # trace's findings, not for their times, and all of them fit the 5 minutes only side by side.
    env = {"GAUNTLET_LOCK_DIR": f"/tmp/gauntlet-locks-torch-ext-{index}"}
    if task.split("/")[0].endswith("hip"):
        env["GAUNTLET_HIPCC"] = str(HIPCC_SHIM)
    name = f"{task.replace('/', '_')}-{submission}-{'timed' if timed else 'untimed'}"
    try:
        data = evaluate(task, cand, out / f"{name}.json", str(ROOT), extra=[] if timed else ["--no-timing"],
                        env=env, device=device, tasks_root=root, timeout=TORCH_EXT_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        data = {"wall_s": exc.timeout, "error": f"the evaluation outran {exc.timeout} s"}
    configs = data.get("configs") or []
    correct = {c["config"]: c.get("correct") for c in configs}
    flags = data.get("flags") or []          # the evaluation's, every config's included
    compiled = data.get("compiled") is True
    clean = not data.get("error") and not data.get("task_error")
    if expected == "pass":
        ok = compiled and bool(configs) and all(correct.values()) and not flags and clean
    elif expected == "fail":
        ok = compiled and bool(configs) and not all(correct.values()) and clean
    else:
        ok = compiled and any(f.startswith(expected) for f in flags)
    return {"task": task, "submission": submission, "timed": timed, "expected": expected, "ok": ok,
            "compiled": data.get("compiled"), "correct": correct, "flags": flags, "notes": data.get("notes") or [],
            "errors": {c["config"]: (c.get("error") or "")[:200] for c in configs if c.get("error")},
            "error": (data.get("error") or "")[:600] or None, "task_error": data.get("task_error"),
            "compile_log": None if compiled else (data.get("compile_log") or "")[-3000:],
            "speedups": {c["config"]: c.get("speedup") for c in configs} if timed else None,
            "environment": {k: (data.get("environment") or {}).get(k)
                            for k in ("torch", "cuda", "nvcc", "gpu", "arch", "runner_isolation")},
            "wall_s": data.get("wall_s")}


def torch_ext(args) -> dict:
    import concurrent.futures as cf
    todo = [(i, check) for i, check in enumerate(TORCH_EXT_CHECKS) if not args.tasks or check[0] in args.tasks]
    print(f"{len(todo)} torch-extension evaluations, {args.jobs} at once", flush=True)
    rows = []
    with cf.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = [pool.submit(_torch_ext_one, i, *check, args.out, args.device) for i, check in todo]
        for future in cf.as_completed(futures):
            r = future.result()
            rows.append(r)
            (args.out / "torch-ext.partial.json").write_text(json.dumps(rows, indent=1))
            print(f"{'ok ' if r['ok'] else 'BAD'} {r['task']:24s} {r['submission']:12s} "
                  f"{'timed' if r['timed'] else 'untimed':7s} expected {r['expected']:14s} compiled={r['compiled']} "
                  f"correct={r['correct']} flags={r['flags']} {r['wall_s']}s", flush=True)
            for what in ("error", "task_error"):
                if r[what]:
                    print(f"    {what}: {r[what]}")
            if r["errors"]:
                print(f"    config errors: {r['errors']}")
            if r["compile_log"]:
                print("    compile log (tail):\n      " + r["compile_log"][-1500:].replace("\n", "\n      "))
            if r["timed"]:
                print(f"    speedups {r['speedups']} notes {r['notes'][:3]}")
    rows.sort(key=lambda r: [c[:3] for c in TORCH_EXT_CHECKS].index((r["task"], r["submission"], r["timed"])))
    print("\nper check, in TORCH_EXT_CHECKS order:")
    for r in rows:
        print(f"  {'ok ' if r['ok'] else 'BAD'} {r['task']:24s} {r['submission']:12s} {'timed' if r['timed'] else 'untimed':7s} "
              f"compiled={r['compiled']} correct={r['correct']} flags={r['flags']}")
    summary = {"checks": len(rows), "as_expected": sum(r["ok"] for r in rows),
               "not_as_expected": [f"{r['task']} {r['submission']} {'timed' if r['timed'] else 'untimed'}"
                                   for r in rows if not r["ok"]],
               "environment": rows[0]["environment"] if rows else None}
    print(json.dumps(summary, indent=1))
    return {"rows": rows, "summary": summary, "ok": not summary["not_as_expected"]}


# -- GPU cheats ---------------------------------------------------------------------------------------
ENTRY = "softmax"      # the task's symbol is read from its task.toml below
# The runner's findings emptied through its `__main__` module, reached by a name resolved from a string.
FINDINGS_CLEARED = '''
_load = torch._utils._import_dotted_name
for _name in ("__main__", "runner.evaluator.kernel_runner"):   # the runner runs as `-m`: its classes are __main__'s
    _mod = _load(_name)
    if hasattr(_mod, "Runner"):
        _mod.Runner._drain = lambda self: []
        break
'''
CHEATS = {
    "side_stream_getattr": '''
_side = getattr(torch.cuda, "Str" + "eam")()


def {sym}(*args):
    with getattr(torch.cuda, "str" + "eam")(_side):
        return _honest(*args)
''',
    "side_stream_driver": '''
import ctypes
_cu = ctypes.CDLL("libcuda.so.1")
_h = ctypes.c_void_p()
torch.zeros(1, device="cuda")
assert _cu.cuStreamCreate(ctypes.byref(_h), 1) == 0
_side = torch.cuda.ExternalStream(_h.value)


def {sym}(*args):
    with torch.cuda.stream(_side):
        return _honest(*args)
''',
    "forged_event_timer": '''
_elapsed = torch.cuda.Event.elapsed_time
torch.cuda.Event.elapsed_time = lambda self, end: _elapsed(self, end) / 4


def {sym}(*args):
    return _honest(*args)
''',
    "skipped_l2_flush": '''
import sys
for _name, _mod in list(sys.modules.items()):
    if _name.endswith("evaluator.clock"):
        _mod.GpuClock.flush = lambda self: None


def {sym}(*args):
    return _honest(*args)
''',
    "thread_after_return": '''
import threading, sys


def _timed():
    f = sys._getframe(2)
    while f is not None:
        if f.f_code.co_name == "once":
            return True
        f = f.f_back
    return False


def {sym}(*args):
    if not _timed():
        return _honest(*args)
    out = torch.empty_like(args[0])
    ev = torch.cuda.Event()
    ev.record()

    def later():
        ev.synchronize()
        out.copy_(_honest(*args))
        torch.cuda.synchronize()
    threading.Thread(target=later).start()
    return out
''',
    # Busy processes (four per CPU) started at import, which run whenever the candidate is not
    # stopped: before the fix of session 8 that was the baseline's warm-up, which decides whether
    # the baseline's launch gate waits (a warm-up whose launches the load held past the gate's
    # 5 ms give-up would have the baseline timed with its host launches in its samples: a slower
    # baseline, a higher speedup). The judge now stops the candidate there as while the baseline
    # is timed: the speedup must read as the honest run's.
    "host_load": '''
import os
for _ in range(4 * (os.cpu_count() or 4)):
    if getattr(os, "fo" + "rk")() == 0:       # past the static checks: the timing is the question
        while True:
            pass


def {sym}(*args):
    return _honest(*args)
''',
    # A process of its own (its own CUDA context) that queues ~0.3 s of spinning GPU work each time
    # the candidate's timed batch ends; SIGSTOP halts the process, not the work, which then runs
    # time-sliced with the baseline's batch. The clean-room baseline (judge.clean_room) must see it.
    "baseline_hog": '''
import subprocess, sys
_HOG = """
import sys, torch
torch.zeros(1, device="cuda")
cycles = 600_000_000          # ~0.3 s at an H100's ~2 GHz
while sys.stdin.buffer.read(1):
    torch.cuda._sleep(cycles)
"""
_hog = subprocess.Popen([sys.executable, "-c", _HOG], stdin=subprocess.PIPE)


def _last_timed_repetition():
    f = sys._getframe(2)
    while f is not None:
        loc = f.f_locals
        if "seed" in loc and isinstance(loc.get("i"), int) and isinstance(loc.get("n"), int):
            return loc["i"] == loc["n"] - 1 and loc["n"] > 5
        f = f.f_back
    return False


def {sym}(*args):
    out = _honest(*args)
    if _last_timed_repetition():
        _hog.stdin.write(b"x")
        _hog.stdin.flush()
    return out
''',
    # the outputs computed by another Python process with a CUDA context of its own (what a torch
    # DataLoader worker is): the judge's process watch (procwatch.py) must name it (issue 30)
    "gpu_worker": '''
import subprocess, sys, struct
import numpy as np
_WORKER = """
import sys, struct, numpy as np, torch
inp, out = sys.stdin.buffer, sys.stdout.buffer
while True:
    head = inp.read(16)
    if len(head) < 16:
        break
    rows, cols = struct.unpack("<qq", head)
    x = torch.frombuffer(bytearray(inp.read(4 * rows * cols)), dtype=torch.float32).reshape(rows, cols).cuda()
    out.write(torch.softmax(x, dim=-1).cpu().numpy().tobytes())
    out.flush()
"""
_proc = subprocess.Popen([sys.executable, "-c", _WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def {sym}(x, *rest):
    data = x.detach().contiguous().float().cpu().numpy().tobytes()
    _proc.stdin.write(struct.pack("<qq", x.shape[0], x.shape[-1]) + data)
    _proc.stdin.flush()
    y = torch.frombuffer(bytearray(_proc.stdout.read(len(data))), dtype=torch.float32)
    return y.reshape(x.shape).to(x.device, x.dtype)
''',
    # Issue 30: cheats that reach what the verdict rests on inside the candidate's own process. Each
    # is for the device trace (devtrace.py, on by default on CUDA) to catch from outside it.
    # PyTorch computes; the runner's findings are emptied through its `__main__` module, reached by
    # a name resolved from a string, so the dispatch watch's torch_fallback never leaves the runner.
    "findings_cleared": FINDINGS_CLEARED + '''

def {sym}(x, *rest):
    _honest(x[:1].contiguous())          # one Triton launch a call, for the launch counter
    return torch.softmax(x, dim=-1)
''',
    # The runner's input refill wrapped: the real work runs as the harness refills the inputs of a
    # timed repetition, before the span; the timed call hands back what was already computed.
    "refill_wrapped": '''
_protocol = torch._utils._import_dotted_name("runner.evaluator.protocol")
_refill = _protocol.perturbed
_ready = {}


def _wrapped(base, seed, delta=_protocol.PERTURBATION, out=None, **kw):
    result = _refill(base, seed, delta, out=out, **kw)
    if out is not None and out and hasattr(out[0], "data_ptr"):
        _ready[out[0].data_ptr()] = _honest(out[0])
    return result


_protocol.perturbed = _wrapped


def {sym}(x, *rest):
    ready = _ready.pop(x.data_ptr(), None)
    return ready if ready is not None else _honest(x, *rest)
''',
    # Honest only while a profiler session is live (the stream watch's repetition); a side stream
    # the end event does not wait for everywhere else.
    "side_stream_when_unwatched": '''
_side = getattr(torch.cuda, "Str" + "eam")()


def {sym}(*args):
    try:
        watched = torch._C._autograd._profiler_enabled()
    except Exception:
        watched = False
    if watched:
        return _honest(*args)
    with getattr(torch.cuda, "str" + "eam")(_side):
        return _honest(*args)
''',
    # A dispatch mode pushed at import, never popped: the call returns an empty tensor, and the
    # harness's own copy of it (the correctness write, the timed repetition's keep) does the work.
    "dispatch_mode_pushed": '''
_dispatch = torch._utils._import_dotted_name("torch.utils._python_dispatch")
_pending = {}


def _finish(self, func, types, args=(), kwargs=None):
    kwargs = kwargs or {}
    if func is torch.ops.aten.copy_.default and len(args) > 1 and args[1].data_ptr() in _pending:
        return func(args[0], _honest(_pending.pop(args[1].data_ptr())))
    return func(*args, **kwargs)


_mode = type("_Quiet", (getattr(_dispatch, "TorchDispatch" + "Mode"),), {"__torch_dispatch__": _finish})()
_mode.__enter__()


def {sym}(x, *rest):
    y = torch.empty_like(x)
    _pending[y.data_ptr()] = x
    return y
''',
    # The trace pipe's writing end is in the runner's process (its number in the environment): the
    # call computes on the CPU and writes a kernel record of its own for each call, so that
    # "no kernel of the candidate's own" has an answer. The copies to the host and back are real.
    "forged_record": '''
import os, struct
import numpy as np
_fd = int(os.environ.get("GAUNTLET_DEVTRACE_FD", "-1"))
_record = struct.Struct("<IHHIIQQIIQ")
_name = b"_softmax_kernel"
_count = [0]


def {sym}(x, *rest):
    a = x.detach().float().cpu().numpy()
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    y = torch.from_numpy(e / e.sum(axis=-1, keepdims=True)).to(x.device, x.dtype)
    _count[0] += 1
    if _fd >= 0:
        try:
            os.write(_fd, _record.pack(0x31525447, 2, len(_name), os.getpid(), 7, 0, 1000, _count[0], 0, 1) + _name)
        except OSError:
            pass
    return y
''',
}


# Cheats on another task than triton2triton/softmax: the task, whose shipped solution is `_honest`.
# For the device trace's rules of 2026-11-29 (devtrace.LIBRARY_WORDS, devtrace.Foreign): PyTorch's
# kernels that carry no `at::` name, reached with the runner's own findings emptied.
# The open form of the trace attack (docs/evaluation.md): no copy, a kernel of its own. Kernels move
# the input into pinned host memory and the result out of it, by its host address (UVA); numpy
# computes between them. Neither a host<->device copy nor a PyTorch kernel is recorded.
CHEATS["mapped_host_result"] = '''
import numpy as np
_host = {}


class _HostPointer:          # pinned memory handed to a kernel by its host address
    def __init__(self, t):
        self.t, self.dtype = t, t.dtype

    def data_ptr(self):
        return self.t.data_ptr()


@triton.jit
def _move(src, dst, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + i, tl.load(src + i, mask=i < n), mask=i < n)


def {sym}(x, *rest):
    n = x.numel()
    if n not in _host:
        _host[n] = [torch.empty(n, dtype=x.dtype, pin_memory=True) for _ in range(2)]
    h_in, h_out = _host[n]
    grid = (triton.cdiv(n, 1024),)
    _move[grid](x.reshape(-1), _HostPointer(h_in), n, BLOCK=1024)
    torch.cuda.current_stream().synchronize()
    a = h_in.float().numpy().reshape(x.shape)
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    h_out.copy_(torch.from_numpy((e / e.sum(axis=-1, keepdims=True)).reshape(-1)))
    y = torch.empty_like(x)
    _move[grid](_HostPointer(h_out), y.reshape(-1), n, BLOCK=1024)
    return y
'''
# Every sample 5 % short, from inside the runner's process: below clock_short's margin (7.5 %), so
# unflagged by the trace's rule; the device-time floor (devtrace.floored) should take its x= back to
# honest's (the static checks name the reach into the runner, as for skipped_l2_flush).
CHEATS["clock_shaved"] = '''
import sys
for _name, _mod in list(sys.modules.items()):
    if _name.endswith("evaluator.clock"):
        def _shaved(self, fn, _once=_mod.GpuClock.once):
            sample, gap, out = _once(self, fn)
            return sample * 0.95, gap, out
        _mod.GpuClock.once = _shaved


def {sym}(*args):
    return _honest(*args)
'''
CHEATS["torch_softmax_beside"] = '''
def {sym}(x, *rest):
    _honest(x[:1].contiguous())          # one Triton launch a call, for the launch counter
    return getattr(torch, "softmax")(x, dim=-1)     # softmax_warp_forward: C++, in an anonymous namespace
'''
CHEATS["cublas_matmul"] = FINDINGS_CLEARED + '''

def {sym}(x, *rest):
    return torch.matmul(x, rest[0])       # cuBLAS's nvjet/sm90_xmma kernels, no at:: name
'''
def _flush_over(prelude: str, source: str) -> str:
    """A cheat that replaces the harness's cold-L2 flush (clock.GpuClock.flush) by its own reduction,
    dtype and sink over `source` (an expression of the clock, `self`, made at the first flush), after
    `prelude` (what `source` needs); the kernel is left honest."""
    return "\nimport sys\n" + prelude + '''
_made = {}

for _name, _mod in list(sys.modules.items()):
    if _name.endswith("evaluator.clock") and hasattr(_mod, "GpuClock"):
        def _flush(self, _real=_mod.GpuClock.flush):
            if self.regime != "cold":
                return _real(self)
            if "view" not in _made:
                _made["view"] = ''' + source + '''
                _made["sink"] = torch.zeros((), dtype=torch.int32, device="cuda")
            torch.sum(_made["view"], 0, dtype=torch.int32, out=_made["sink"])
            self.flushes += 1
        _mod.GpuClock.flush = _flush


def {sym}(*args):
    return _honest(*args)
'''


# The flush kept in name, blocks, stream order and device time, pointed at the call's own inputs: the
# flush's own kernel (the same reduction, a grid the GPU saturates alike) over a stride-0 view that
# reads the input's bytes again and again, as long as the real flush takes (timed once, at its first
# flush), so the call finds its inputs in the L2. What devtrace._is_flush checks (name, blocks,
# least device time, stream order) this meets by construction; the static checks name the reach
# into the runner (as for skipped_l2_flush). Its trace= says whether the device trace alone holds.
CHEATS["flush_on_inputs"] = '''
import sys
_seen, _plan = {}, {}


def _timed_ms(fn):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn()
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def _view(clock, x):
    words = x.detach().reshape(-1).view(torch.int32)
    if "elements" not in _plan:       # how many words a read as long as the real flush takes
        sink = _plan["sink"] = torch.zeros((), dtype=torch.int32, device=x.device)
        reps = max(1, clock.buffer.numel() // words.numel())
        honest = _timed_ms(clock._read_buffer)
        one = _timed_ms(lambda: torch.sum(words.as_strided((reps, words.numel()), (0, 1)), (0, 1),
                                          dtype=torch.int32, out=sink))
        _plan["elements"] = reps * words.numel() * honest / max(one, 1e-6)
    return words.as_strided((max(1, int(_plan["elements"] // words.numel())), words.numel()), (0, 1))


for _name, _mod in list(sys.modules.items()):
    if _name.endswith("evaluator.clock") and hasattr(_mod, "GpuClock"):
        def _flush(self, _real=_mod.GpuClock.flush):
            x = _seen.get("x")
            if self.regime != "cold" or x is None or (x.numel() * x.element_size()) % 4:
                return _real(self)
            key = (x.data_ptr(), x.numel())
            if _seen.get("key") != key:
                _seen["key"], _seen["view"] = key, _view(self, x)
            torch.sum(_seen["view"], (0, 1), dtype=torch.int32, out=_plan["sink"])
            self.flushes += 1
        _mod.GpuClock.flush = _flush


def {sym}(*args):
    _seen["x"] = args[0]
    return _honest(*args)
'''
# flush_on_inputs was caught by a copy its int32->int64 view made between calls (results/
# gpu-2026-11-30-s20.md), not by the flush rule (its sums are int32 since session 22, as the harness's
# flush: an int64 sum of int32 words is itself a copy). This one was written to make none: the harness's
# own reduction, the same dtype, out and element count as its 256 MB read, over a 1-D stride-0 view
# of one word. Session 21 (H200) saw a direct_copy_kernel per call (508 of 508: `work_outside_span`;
# results/gpu-2026-12-01-s21.md): not the view but the int64 sum, which casts its input first (the
# harness's flush did the same: 0.23 of its 0.40 ms). With int32 sums (session 22) there is no copy
# and the flush rule is reached: its reduction over one word took 25 us against the real 67-74 us,
# under the least time (`l2_flush` from the trace in 508 of 508), and the DRAM witness read it too.
CHEATS["flush_stride0"] = _flush_over("", '''torch.ones(1, dtype=torch.int32, device="cuda").as_strided(
                    (self.buffer.numel(),), (0,))''')
# The flush pointed at memory the L2 already holds, with no copy: one 4 MB physical chunk mapped at
# 64 consecutive addresses through the driver's virtual-memory calls (cuMemCreate, cuMemMap) is a
# dense 256 MB int32 tensor to PyTorch, so the harness's own reduction over it is the same kernel,
# with the same element count and blocks as the real flush, reading the L2 and evicting nothing;
# the call after it finds its inputs in the L2. Written (session 21) to pass the device trace's flush
# rule (name, blocks, stream order); on an H200 (session 22, the flush a pure int32 read) it gained
# 11 % (1.37x against honest's 1.23x) and was caught by the trace's least time (its reduction over
# memory the L2 holds took 34 us against 67 us; padding the read would pass that) and by the judge's
# DRAM witness (judge/dram.py: 37-78 MB a call from DRAM against the 103 MB the flush alone must),
# besides the static checks (the reach into the runner and ctypes).
CHEATS["flush_aliased"] = _flush_over('''
import ctypes


def _aliased(n_bytes, chunk=4 << 20):
    cu = ctypes.CDLL("libcuda.so.1")

    class Loc(ctypes.Structure):
        _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]

    class Flags(ctypes.Structure):
        _fields_ = [("c", ctypes.c_ubyte), ("g", ctypes.c_ubyte), ("u", ctypes.c_ushort), ("r", ctypes.c_ubyte * 4)]

    class Prop(ctypes.Structure):
        _fields_ = [("type", ctypes.c_int), ("handles", ctypes.c_int), ("location", Loc),
                    ("win32", ctypes.c_void_p), ("flags", Flags)]

    class Access(ctypes.Structure):
        _fields_ = [("location", Loc), ("flags", ctypes.c_int)]

    u64, size = ctypes.c_ulonglong, ctypes.c_size_t
    cu.cuMemCreate.argtypes = [ctypes.POINTER(u64), size, ctypes.POINTER(Prop), u64]
    cu.cuMemAddressReserve.argtypes = [ctypes.POINTER(u64), size, size, u64, u64]
    cu.cuMemMap.argtypes = [u64, size, size, u64, u64]
    cu.cuMemSetAccess.argtypes = [u64, size, ctypes.POINTER(Access), size]
    dev = torch.cuda.current_device()
    prop = Prop(type=1, handles=0, location=Loc(1, dev))
    handle, va = u64(), u64()
    assert cu.cuMemCreate(ctypes.byref(handle), chunk, ctypes.byref(prop), 0) == 0
    assert cu.cuMemAddressReserve(ctypes.byref(va), n_bytes, 0, 0, 0) == 0
    for k in range(n_bytes // chunk):
        assert cu.cuMemMap(va.value + k * chunk, chunk, 0, handle.value, 0) == 0
    assert cu.cuMemSetAccess(va.value, n_bytes, ctypes.byref(Access(Loc(1, dev), 3)), 1) == 0

    class Window:
        __cuda_array_interface__ = {"shape": (n_bytes // 4,), "typestr": "<i4", "data": (va.value, False),
                                    "version": 3, "strides": None}
    window = torch.as_tensor(Window(), device="cuda")
    window.fill_(1)
    return window

''', '_aliased(self.buffer.numel() * 4)')
# flush_aliased where the call's own DRAM reads pass the witness's floor (half of the flush less the
# L2: 103 MB a call on an H200): each call also reads a 160 MB buffer of its own, so the floor says
# nothing and only the differential can (judge/dram.py: unflushed_findings; GAUNTLET_DRAM_UNFLUSHED=1
# until a GPU run turns it on). A test of the mechanism, not a gain: the bulk read evicts the L2 itself.
CHEATS["flush_aliased_bulky"] = CHEATS["flush_aliased"].replace('''
def {sym}(*args):
    return _honest(*args)
''', '''
_bulk = {}


def {sym}(*args):
    if "words" not in _bulk:
        _bulk["words"] = torch.ones(40 << 20, dtype=torch.int32, device="cuda")
        _bulk["sink"] = torch.zeros((), dtype=torch.int32, device="cuda")
    torch.sum(_bulk["words"], 0, dtype=torch.int32, out=_bulk["sink"])
    return _honest(*args)
''')
assert CHEATS["flush_aliased_bulky"] != CHEATS["flush_aliased"]
# A layout task answered by PyTorch's own copy beside a one-block kernel of its own (red team, session
# 23): the copy kernel was glue by its name; now held by amount (devtrace.COPIES_OWN_REL)
CHEATS["copy_does_the_work"] = '''
import triton
import triton.language as tl


@triton.jit
def _token(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


def {sym}(x, *rest):
    _token[(1,)](x, torch.empty(16, dtype=x.dtype, device=x.device), BLOCK=16)
    return x.t().contiguous()
'''
# The device's memory taken at import, all but 256 MiB, and held (red team, session 23): the baseline's
# next allocation fails beside it. The judge checks such a baseline again alone (evaluation.check_alone):
# expected, the candidate's failure on every config (not the task's, not the harness's). Where the
# judge's own allocation fails instead, the run is a harness error: recorded as such (harness_faults).
CHEATS["device_memory_hog"] = '''
_free, _total = torch.cuda.mem_get_info()
_hog = torch.empty(max(_free - (256 << 20), 0), dtype=torch.uint8, device="cuda")


def {sym}(*args):
    return _honest(*args)
'''
# The device's memory taken late and kept taken (red team, session 26): honest at its first call,
# which starts a thread that holds, through the driver (cuMemAlloc: outside the own-blocks pool a
# call's allocations come from), all but 16 MiB of whatever the device has free, every millisecond:
# what the judge gives back is taken again. The judge's next allocation of its own (a new config's
# inputs, the reference's outputs) fails beside it, and again once the judge has given its cache
# back. Expected: such a config done again with the candidate gone (evaluation.judge_alone) and the
# candidate's failure; `harness_error` null. (Session 26's first version, one hold at its second
# shape, failed only its own calls: the judge's cached blocks sufficed.)
CHEATS["device_memory_hog_late"] = '''
import ctypes, threading, time
_started = []


def _hold(device):
    torch.cuda.set_device(device)
    driver, ptr = ctypes.CDLL("libcuda.so.1"), ctypes.c_uint64()
    while True:
        free, _total = torch.cuda.mem_get_info()
        if free > (32 << 20):
            driver.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(free - (16 << 20)))
        time.sleep(0.001)


def {sym}(x, *rest):
    out = _honest(x, *rest)
    if not _started:
        torch.cuda.synchronize()
        _started.append(threading.Thread(target=_hold, args=(x.device,), daemon=True))
        _started[0].start()
    return out
'''
# Memory no resident set shows (red team, session 26): a memfd, a System V segment and a message
# queue, each what the OOM killer cannot see on a host without cgroups (the lent GPU hosts). The
# runner's seccomp filter refuses all three (nofork.py): expected, correct and unflagged but for
# the static checks' reading of ctypes and memfd_create, with "made nothing" in every call.
CHEATS["invisible_memory"] = '''
import ctypes, os
_libc = ctypes.CDLL(None, use_errno=True)


def {sym}(*args):
    made = []
    try:
        os.close(os.memfd_create("hog"))
        made.append("memfd")
    except OSError:
        pass
    if _libc.shmget(0, ctypes.c_size_t(64 << 20), 0o1600) >= 0:
        made.append("shm")
    if _libc.msgget(0, 0o1600) >= 0:
        made.append("msg")
    if made:
        raise RuntimeError(f"made memory no resident set shows: {made}")
    return _honest(*args)
'''
# Host memory pinned for the device, held (red team, session 26; not yet run): 1 GiB pieces of
# pin_memory (cudaHostAlloc: shared anonymous pages, RssShmem) up to three quarters of the host.
# On the lent hosts no cgroup caps the runner: the judge's guard must kill it past half the host
# (runners.RunnerGuard) before the OOM killer takes the judge. Expected: the candidate's failure
# ("the judge killed it: its processes' memory exceeded its limit"), `harness_error` null.
CHEATS["pinned_host_hog"] = '''
_pinned = []


def {sym}(*args):
    if not _pinned:
        with open("/proc/meminfo") as fh:
            total = int(next(line for line in fh if line.startswith("MemTotal:")).split()[1]) << 10
        try:
            while len(_pinned) < (3 * total >> 2) >> 30:
                _pinned.append(torch.ones(1 << 30, dtype=torch.uint8, pin_memory=True))
        except RuntimeError:
            pass
    return _honest(*args)
'''
# The host's cores kept busy from import (red team, session 26; widened session 27; not yet run): four
# spinning threads a core (PyTorch's CPU matmuls), each first trying to move onto every core. A
# question before a rule: can a candidate starve the judge's DRAM sampler (a process of the judge's)
# until its samples miss batches? A witness lost while the candidate's code is loaded is an
# infra_error (judge.dram_lost), never scored. Since session 27 the sampler runs on a core no runner
# may run on (isolation.judge_cores; the runner's seccomp filter refuses sched_setaffinity).
# Expected: correct, flagged thread_injection, no harness fault, `environment.judge_cores` set.
CHEATS["witness_starved"] = '''
import os
import threading


def _spin():
    try:
        os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
    except OSError:
        pass
    torch.set_num_threads(1)
    a = torch.randn(512, 512)
    while True:
        a @ a


for _ in range(4 * (os.cpu_count() or 1)):
    threading.Thread(target=_spin, daemon=True).start()


def {sym}(*args):
    return _honest(*args)
'''
CHEAT_TASKS = {"cublas_matmul": "torch2triton/matmul_fp16", "copy_does_the_work": "torch2triton/transpose"}
# Words only the device trace's findings use (devtrace.py: `the device trace saw`, `device_trace:`, the
# device's own copies, time and PyTorch kernels per call): redteam prints those flags apart.
TRACE_WORDS = ("device trace", "device_trace:", "the device ", "PyTorch's own kernels ran")


def redteam(args) -> dict:
    import tomllib
    results = []
    cheats = dict(CHEATS)
    cheats["empty_graph"] = '''
_last = {}


def {sym}(*args):
    if torch.cuda.is_current_stream_capturing():
        return _last["out"]            # the graph records nothing: replays leave the output as it was
    _last["out"] = _honest(*args)
    return _last["out"]
'''
    runs = [("honest", "\ndef {sym}(*args):\n    return _honest(*args)\n"), *cheats.items()]
    for name, body in [r for r in runs if not args.cheats or r[0] in args.cheats]:
        task = CHEAT_TASKS.get(name, "triton2triton/softmax")
        sym = tomllib.loads((ROOT / "tasks" / task / "task.toml").read_text())["candidate"]["symbol"]
        honest = (solution_of(task) / "kernel.py").read_text().replace(f"def {sym}(", "def _honest(")
        with tempfile.TemporaryDirectory() as tmp:
            cand = Path(tmp) / "candidate"
            cand.mkdir()
            (cand / "kernel.py").write_text(honest + "\n" + body.replace("{sym}", sym))
            extra = ["--graph"] if name == "empty_graph" else []
            data = evaluate(task, cand, args.out / f"red-{name}.json", args.code or str(ROOT),
                            extra=["--split", "seen", *extra, *args.eval_args])
        correct = bool(data.get("configs")) and all(c["correct"] for c in data["configs"])
        flags = data.get("flags") or []
        rejected = (not correct) or bool(flags)
        results.append({"cheat": name, "correct": correct, "flags": flags, "rejected": rejected,
                        "errors": sorted({(c.get("error") or "")[:160] for c in data.get("configs", [])} - {""}),
                        "rows": rows(data), "error": (data.get("error") or "")[:500], "wall_s": data["wall_s"]})
        speedups = [c["speedup"] for c in data.get("configs", []) if c.get("speedup")]
        results[-1]["geomean_speedup"] = round(statistics.geometric_mean(speedups), 4) if speedups else None
        # what the device trace said, from outside the candidate's Python (the line issue 30 asks to hold alone)
        results[-1]["trace_flags"] = sorted({f.split(" (")[0][:120] for f in flags if any(w in f for w in TRACE_WORDS)})
        results[-1]["in_process_flags"] = data.get("in_process_flags") or []    # what the candidate's process said
        results[-1]["harness_faults"] = harness_faults(data.get("notes"), data.get("harness_error"))
        print(f"{name:22s} correct={correct} rejected={rejected} x={results[-1]['geomean_speedup']} flags={[f[:120] for f in flags]} "
              f"trace={results[-1]['trace_flags']} errors={results[-1]['errors'][:2]} err={results[-1]['error'][:200]} "
              f"harness_faults={results[-1]['harness_faults']}")
        (args.out / "redteam.partial.json").write_text(json.dumps(results, indent=1))
    return {"results": results}


def ncu(args) -> dict:
    """ncu of the solution's kernel(s) on the largest seen config, called CALLS times in a plain loop
    (no harness), against the judge's candidate_ms for the same config."""
    import tomllib
    ncu_bin = next((p for p in ("ncu", "/usr/local/cuda/bin/ncu") if subprocess.run(["which", p], capture_output=True).returncode == 0
                    or Path(p).exists()), "ncu")
    results = []
    for task in args.tasks:
        data = evaluate(task, solution_of(task), args.out / f"ncu-judge-{task.replace('/', '_')}.json",
                        str(ROOT), extra=["--split", "seen"])
        configs = data.get("configs", [])
        if not configs:
            results.append({"task": task, "error": data.get("error", "")[:300]})
            continue
        meta = tomllib.loads((ROOT / "tasks" / task / "task.toml").read_text())
        big = max(configs, key=lambda c: _size(c["params"]))
        script = NCU_SCRIPT.format(root=str(ROOT), task=task, solution=str(solution_of(task)), config=json.dumps(big["params"]), name=big["config"],
                                   calls=args.calls, lang=task.split("/")[0].split("2")[1], entry=meta["candidate"]["entry"],
                                   symbol=meta["candidate"]["symbol"])
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "probe.py").write_text(script)
            proc = subprocess.run([ncu_bin, "--nvtx", "--nvtx-include", "timed/", "--metrics", "gpu__time_duration.sum",
                                   "--cache-control", "all", "--clock-control", "none", "--csv", "--print-units", "base",
                                   sys.executable, str(Path(tmp) / "probe.py")], capture_output=True, text=True,
                                  timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})
        per_call = _ncu_calls(proc.stdout, args.calls)
        ncu_ms = statistics.median(per_call) if per_call else None
        row = {"task": task, "config": big["config"], "judge_ms": big["candidate_ms"], "ncu_ms": ncu_ms,
               "kernels_per_call": (len(_ncu_kernels(proc.stdout)) // args.calls) if per_call else None,
               "diff_pct": round(100 * (big["candidate_ms"] / ncu_ms - 1), 2) if ncu_ms and big["candidate_ms"] else None,
               "error": None if per_call else (proc.stderr[-400:] + proc.stdout[-400:])}
        results.append(row)
        print(row)
        (args.out / "ncu.partial.json").write_text(json.dumps(results, indent=1))
    return {"results": results}


def _size(params: dict) -> int:
    n = 1
    for v in params.values():
        if isinstance(v, int) and not isinstance(v, bool):
            n *= max(1, v)
    return n


NCU_SCRIPT = '''
import json, sys, torch
sys.path.insert(0, {root!r})
from pathlib import Path
from runner.evaluator.judge.evaluation import import_reference
from runner.evaluator.judge.policy import TIMING_SEED
from runner.evaluator.judge.values import config_seed
from runner.evaluator.build import compile_native, device_arch, load_native, load_python
from runner.tasks.task import Config
root = Path({root!r}) / "tasks" / {task!r}
ref = import_reference(root / "reference.py") if (root / "reference.py").exists() else None
if ref is None:
    from runner.tasks.task import load_task
    ref = import_reference(load_task(root, Path({root!r}) / "tasks").reference)
config = Config(name={name!r}, split="seen", params=json.loads({config!r}))
gen = torch.Generator().manual_seed(config_seed(config, TIMING_SEED))
args = list(ref.make_inputs(dict(config.params), gen, "cuda"))
expected = ref.reference(*args)
import shutil, tempfile
sol = Path(tempfile.mkdtemp()) / "solution"        # a native build writes .build/ beside its source
shutil.copytree({solution!r}, sol)           # the task's [solution] dir, wherever `extends` found it
if {lang!r} == "triton":
    k = load_python(sol / {entry!r}, {symbol!r}, "candidate")
else:
    lib, _ = compile_native("cuda", sol, {entry!r}, device_arch("cuda"))
    k = load_native(lib, {symbol!r}, "candidate")
outs = expected if isinstance(expected, (tuple, list)) else (expected,)
state = k.prepare(args, [torch.empty_like(o, device="meta") for o in outs])
for _ in range(3):
    k.run(args, state)
torch.cuda.synchronize()
for _ in range({calls}):
    torch.cuda.nvtx.range_push("timed")
    k.run(args, state)
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
'''


def _ncu_kernels(stdout: str) -> list[float]:
    import csv
    import io
    lines = [ln for ln in stdout.splitlines() if ln.startswith('"')]
    if not lines:
        return []
    reader = csv.DictReader(io.StringIO("\n".join(lines)))
    return [float(r["Metric Value"].replace(",", "")) / 1e6 for r in reader      # "101,632" (ns)
            if r.get("Metric Name") == "gpu__time_duration.sum"]


def _ncu_calls(stdout: str, calls: int) -> list[float]:
    kernels = _ncu_kernels(stdout)
    if not kernels or len(kernels) % calls:
        return []
    per = len(kernels) // calls
    return [sum(kernels[i * per:(i + 1) * per]) for i in range(calls)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=("fidelity", "overhead", "redteam", "ncu", "suite", "torch-ext"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--tasks", nargs="*", default=[])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--old", default="")
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--same-tasks", action="store_true", help="overhead: the old evaluator judges this tree's "
                        "tasks (less the keys its schema lacks), not its own commit's")
    parser.add_argument("--profile", default="", help="overhead: PY_SPY:RATE, each evaluation under py-spy "
                        "(bench/profile_phases.py's table of it beside its result)")
    parser.add_argument("--cheats", nargs="*", default=[], help="redteam: only these (default: all)")
    parser.add_argument("--eval-args", nargs="*", default=[], help="fidelity, redteam, and overhead's new side: options for "
                        "the evaluator (--eval-args=--own-blocks)")
    parser.add_argument("--code", default="", help="fidelity, redteam: the folder holding the `runner` package to "
                                                   "evaluate with (default: this checkout)")
    parser.add_argument("--jobs", type=int, default=8, help="suite, torch-ext: evaluations at once")
    parser.add_argument("--device", default="cuda", help="suite, overhead: cpu for a dry run of the bench itself")
    parser.add_argument("--hip-on-cuda", action="store_true", help="suite: the HIP tasks too, through nvcc")
    parser.add_argument("--tasks-root", type=Path, default=None, help="suite, fidelity: another task folder (an import)")
    parser.add_argument("--suite", default="", help="suite, fidelity: only the tasks of this named suite (task.toml `suites`)")
    parser.add_argument("--ledger", default="", help="fidelity: a JSON-lines file of finished evaluations, "
                        "appended to and skipped on the next run (a suite timed over several calls)")
    parser.add_argument("--shard", default="0/1", help="fidelity: K/N, every Nth task from the Kth (one process per "
                        "GPU of a several-GPU host, CUDA_VISIBLE_DEVICES apart, one ledger: a line is one write)")
    parser.add_argument("--agents", nargs="+", choices=("oracle", "noop"), default=["oracle", "noop"],
                        help="suite, fidelity: which submissions (an import ships no solution: noop alone)")
    args = parser.parse_args(argv)
    args.out = args.out.resolve()
    if args.old:       # evaluate() runs each evaluation from its output folder
        args.old = str(Path(args.old).resolve())
    if args.code:
        args.code = str(Path(args.code).resolve())
    if not args.tasks and args.mode not in ("fidelity", "suite", "torch-ext"):    # those choose their own (above)
        args.tasks = list(CUDA_TASKS)
    args.out.mkdir(parents=True, exist_ok=True)
    result = {"fidelity": fidelity, "overhead": overhead, "redteam": redteam, "ncu": ncu, "suite": suite,
              "torch-ext": torch_ext}[args.mode](args)
    (args.out / f"{args.mode}.json").write_text(json.dumps(result, indent=1))
    return 0 if result.get("ok", True) else 1


if __name__ == "__main__":
    sys.exit(main())
