"""Reference check for `gauntlet tasks validate`: import each task's reference and run make_inputs
and reference() on every seen and hidden config on the CPU, so a broken task is caught here rather
than scored as `task_error` in a run. Every hidden config's inputs must differ from every seen
config's in a shape or an integer size, or a candidate hard-coded to the seen shapes would pass it.
A task's `[work]` (runner/tasks/work.py) is checked on every config against what the reference moves and
computes (`_work_problem`). The shipped solution is checked for its entry symbol too: a Python one
is imported (it must define the callable), a native one must name the symbol (compiling it is the
oracle's job, `scripts/check_suite_cpu.py`).

Twins that share a reference through `extends` (the same reference file, configs, tolerances and
work) have it checked once: the check's verdict is theirs too. Only the solution check is per task.

The host side (`check_references`) never imports torch: the references run in a child process
(`python -m runner.tasks.refcheck`), which uses the judge's own helpers, so validate and the judge agree on
what a broken task is. The child says when it starts each check and when it ends it; a check that
kills the child, or runs past `timeout_s` of its own, fails only that task (by name), and a fresh
child goes on with the rest.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from runner.resources import IMPORT_ROOT

TASK_TIMEOUT_S = 600     # one check (a reference on all its configs, or a solution); the largest takes seconds
STARTUP_TIMEOUT_S = 900  # the child's imports (torch, the judge) before its first check: no task's time
POLL_S = 0.1
# [work] against the reference (docs/task-format.md): bytes may not exceed what the inputs and outputs
# hold, nor fall below the outputs. FLOPs: at least half what torch's FlopCounterMode counts (matmul,
# conv, attention; half admits a causal mask the reference computes in full), at most 1.25x it plus
# ELEMENTWISE_FLOPS per element of the call's tensors (epilogues and elementwise math it never counts,
# and a matmul it does not see: an einsum over a length-1 axis becomes a multiply).
BYTES_TOLERANCE = 0.01
FLOPS_RANGE = (0.5, 1.25)
ELEMENTWISE_FLOPS = 16


@dataclass
class _Job:
    """One check the child runs: a reference (for every task that shares it) or a solution."""
    kind: str                       # "reference" | "solution"
    task: Path                      # the task whose view is checked
    file: Path                      # what a failure names: the reference module, or the solution folder
    shared_by: list[Path] = field(default_factory=list)   # reference: the other tasks it speaks for

    def to_json(self) -> dict:
        return {"kind": self.kind, "task": str(self.task)}


def _jobs(task_dirs: list[Path], tasks_root: Path) -> list[_Job]:
    """A reference job per distinct (reference, configs, tolerances, work), a solution job per task."""
    from runner.tasks.task import TaskError, load_task
    jobs: list[_Job] = []
    by_key: dict[tuple, _Job] = {}
    for d in task_dirs:
        try:
            task = load_task(d, tasks_root)
        except TaskError:
            continue                 # the loader's own line is printed by validate
        key = (task.reference.resolve(), task.seen_file.resolve(),
               task.hidden_file.resolve() if task.hidden_file else None,
               tuple(sorted(task.tolerances.items())), task.work)
        if key in by_key:
            by_key[key].shared_by.append(d)
        else:
            by_key[key] = _Job("reference", d, task.reference)
            jobs.append(by_key[key])
        if task.solution_dir is not None:
            jobs.append(_Job("solution", d, task.solution_dir))
    return jobs


def check_references(task_dirs: list[Path], tasks_root: Path, timeout_s: float = TASK_TIMEOUT_S) -> dict[Path, str]:
    """{task dir, as the caller named it: one-line problem} for every task whose reference (or
    solution) fails its check."""
    problems: dict[Path, str] = {}
    # absolute: the child runs in the repo (to import runner), not in the caller's folder
    tasks_root = Path(tasks_root).resolve()
    given = {Path(d).resolve(): Path(d) for d in task_dirs}
    pending = _jobs(list(given), tasks_root)
    while pending:
        outcome, rest = _run_child(pending, tasks_root, timeout_s)
        for job, problem in outcome:
            if problem is None:
                continue
            problems.setdefault(job.task, problem)
            for twin in job.shared_by:   # they share the reference: its fault is theirs too, said once
                problems.setdefault(twin, f"{twin / 'task.toml'}: reference: shares the one that failed for "
                                          f"{job.task.parent.name}/{job.task.name} (above)")
        pending = rest
    # keyed as the caller's paths: a relative --out once matched none, and every failing reference imported
    return {given.get(task, task): problem for task, problem in problems.items()}


def _run_child(jobs: list[_Job], tasks_root: Path, timeout_s: float) -> tuple[list[tuple[_Job, str | None]], list[_Job]]:
    """Run jobs in one child until it finishes, dies or a check overruns: (outcomes, jobs left)."""
    outcome: list[tuple[_Job, str | None]] = []
    with tempfile.TemporaryDirectory(prefix="gauntlet-refcheck-") as tmp:
        plan, report = Path(tmp) / "jobs.json", Path(tmp) / "report.jsonl"
        plan.write_text(json.dumps([j.to_json() for j in jobs]))
        report.touch()
        proc = subprocess.Popen([sys.executable, "-m", "runner.tasks.refcheck", str(report), str(tasks_root), str(plan)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                cwd=IMPORT_ROOT, start_new_session=True)
        started_at, current, read = time.monotonic(), None, 0
        overran = ready = False
        try:
            while True:
                ended = proc.poll() is not None
                lines = report.read_text().splitlines()
                for line in lines[read:]:
                    if not line.endswith("}"):
                        break            # half a line: read it whole next time
                    item = json.loads(line)
                    read += 1
                    if "ready" in item:
                        ready, started_at = True, time.monotonic()
                    elif "start" in item:
                        current, started_at = item["start"], time.monotonic()
                    else:
                        outcome.append((jobs[item["done"]], item["problem"]))
                        current = None
                if ended:
                    break
                if time.monotonic() - started_at > (timeout_s if ready else max(timeout_s, STARTUP_TIMEOUT_S)):
                    overran = True
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    break
                time.sleep(POLL_S)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            stderr = proc.stderr.read() if proc.stderr else ""
    done = len(outcome)
    if not ready:     # the child never came up: no task is to blame, and none was checked
        tail = (stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1][:200]
        return [(job, f"{job.file}: {job.kind}: not checked: the checking process did not start ({tail})")
                for job in jobs], []
    if overran or proc.returncode != 0:
        # the check that was running (or, before any started, the first) is the one that failed
        culprit = current if current is not None else done
        if culprit >= len(jobs):
            return outcome, []
        job = jobs[culprit]
        what = "its reference" if job.kind == "reference" else "its solution"
        if overran:
            why = f"checking {what} took more than {timeout_s:g} s (this task's check alone; the others go on)"
        else:
            tail = (stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1][:200]
            why = f"checking {what} ended the process ({tail})"
        outcome.append((job, f"{job.file}: {job.kind}: {why}"))
        return outcome, jobs[culprit + 1:]     # the child ran them in order: those before are done
    return outcome, []


# -- the child -----------------------------------------------------------------------------------

def _check_reference(task_dir: Path, tasks_root: Path) -> str | None:
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    from runner.evaluator.judge.evaluation import import_reference
    from runner.evaluator.judge.policy import WARMUP_SEED
    from runner.evaluator.judge.values import (Mismatch, TaskBroken, canonical_for, compare, config_seed, make_inputs,
                                               run_reference)
    from runner.tasks.task import TaskError, load_task
    try:
        task = load_task(task_dir, tasks_root)
    except TaskError as exc:  # the host loaded it (validate prints its loader's lines): never swallowed
        return str(exc)
    try:
        reference = import_reference(task.reference)
        shapes = []
        for config in (*task.configs("seen"), *task.configs("unseen")):
            generator = torch.Generator().manual_seed(config_seed(config, WARMUP_SEED))
            args = make_inputs(reference, config, generator, "cpu")
            shapes.append((config, _shapes(args)))
            try:
                with FlopCounterMode(display=False) as counter:
                    expected = run_reference(reference, args, as_baseline=task.baseline_is_reference)
                canon = canonical_for(reference, args)
                if canon is not None:      # the reference must pass through its own canonical()
                    compare(task, expected, expected, canon=canon)
            except Mismatch as exc:
                raise TaskBroken(f"canonical() of the reference's outputs: {exc} on {config.split} config "
                                 f"{config.name}") from None
            except TaskBroken as exc:
                raise TaskBroken(f"{exc} on {config.split} config {config.name}") from None
            if task.work is not None:
                # What must be written is what the judge compares: canonical()'s outputs where the
                # task has one (a scatter into a KV cache writes only its slots of the cache).
                written = tuple(canon(expected.tensors)) if canon is not None else expected.tensors
                problem = _work_problem(task, config, args, expected.tensors, counter.get_total_flops(), written)
                if problem:
                    return f"{task.root / 'task.toml'}: {problem}"
    except TaskBroken as exc:
        return f"{task.reference}: reference: {exc}"
    seen = {shape: config.name for config, shape in shapes if config.split == "seen"}
    for config, shape in shapes:
        if config.split != "seen" and shape in seen:
            return (f"{task.hidden_file}: config {config.name}: its inputs have the shapes and sizes of seen config "
                    f"{seen[shape]}, so a candidate hard-coded to the seen shapes passes it")
    return None


def _dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _work_problem(task, config, args, outputs, counted_flops: int, written=None) -> str | None:
    """Why the task's [work] disagrees with the reference on this config, or None. Bytes: between
    the bytes of what the judge compares (`written`: canonical()'s outputs, else the outputs) and the
    inputs' plus outputs' (a kernel must write what is compared and cannot need to move more than
    every tensor once). FLOPs: at least FLOPS_RANGE[0] x what torch's
    FlopCounterMode counts (matmul, conv, attention), at most FLOPS_RANGE[1] x it plus ELEMENTWISE_FLOPS
    per element of the call's tensors. dtype: one a tensor of the call has."""
    import torch
    inputs = {a.data_ptr(): a for a in args if isinstance(a, torch.Tensor)}.values()
    in_bytes = sum(a.numel() * a.element_size() for a in inputs)
    out_bytes = sum(t.numel() * t.element_size() for t in outputs)
    written_bytes = sum(t.numel() * t.element_size() for t in (outputs if written is None else written))
    nbytes, flops = task.work.of(config.params)
    elements = sum(t.numel() for t in (*inputs, *outputs))
    where = f"on {config.split} config {config.name}"
    if nbytes > (in_bytes + out_bytes) * (1 + BYTES_TOLERANCE):
        return (f"work.bytes: {task.work.bytes!r} = {nbytes:.0f} {where}, more than the reference's inputs and "
                f"outputs hold ({in_bytes + out_bytes} bytes)")
    if nbytes < written_bytes * (1 - BYTES_TOLERANCE):
        return (f"work.bytes: {task.work.bytes!r} = {nbytes:.0f} {where}, less than its outputs "
                f"({written_bytes} bytes{'' if written is None else ', as canonical() compares them'})")
    low, high = FLOPS_RANGE[0] * counted_flops, FLOPS_RANGE[1] * counted_flops + ELEMENTWISE_FLOPS * elements
    if not low <= flops <= high:
        return (f"work.flops: {task.work.flops!r} = {flops:.0f} {where}, outside [{low:.0f}, {high:.0f}] (torch "
                f"counts {counted_flops} matmul-like FLOPs; the call's tensors hold {elements} elements)")
    dtypes = {_dtype_name(t.dtype) for t in (*inputs, *outputs)}
    wanted = {"tfloat32": "float32", "int8": "int8"}.get(task.work.dtype, task.work.dtype)
    if wanted not in dtypes and not (wanted == "int8" and "uint8" in dtypes):
        return f"work.dtype: {task.work.dtype!r}, but no tensor of the call {where} has it ({', '.join(sorted(dtypes))})"
    return None


def _shapes(args) -> tuple:
    """What a shape-hard-coded candidate can key on: every tensor's shape and dtype and every integer
    argument (native kernels take their sizes so). Float scalars are data, not shape."""
    import torch
    return tuple((tuple(a.shape), str(a.dtype)) if isinstance(a, torch.Tensor)
                 else a if isinstance(a, int) and not isinstance(a, bool) else None for a in args)


def _check_solution(task_dir: Path, tasks_root: Path) -> str | None:
    import importlib.util
    import re

    from runner.tasks.task import load_task
    task = load_task(task_dir, tasks_root)
    source = task.solution_files().get(task.entry)
    if source is None:
        return None              # a task without a solution: the loader decides whether that is allowed
    where = f"{source}: solution"
    if not source.name.endswith(".py"):
        text = source.read_text(errors="replace")
        return None if re.search(rf"\b{task.symbol}\s*\(", text) else f"{where}: defines no {task.symbol}()"
    try:
        spec = importlib.util.spec_from_file_location(f"gauntlet_solution_{abs(hash(source))}", source)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except BaseException as exc:   # SystemExit included: the solution is the task author's code
        return f"{where}: importing it failed: {type(exc).__name__}: {exc}"
    if not callable(getattr(module, task.symbol, None)):
        return f"{where}: defines no callable {task.symbol}"
    return None


def _warm_up() -> None:
    """What every reference check uses first (torch's lazy imports: seconds on a loaded host), done
    before the child says it is ready, so no task's check pays for it."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode
    with FlopCounterMode(display=False):
        a = torch.randn((8, 8), generator=torch.Generator().manual_seed(0))
        torch.softmax(a @ a, dim=-1).sum().item()


def main(argv: list[str]) -> int:
    report, tasks_root, plan = argv
    import torch  # noqa: F401  (before the first start line: the import is no task's time)

    from runner.evaluator import judge  # noqa: F401
    _warm_up()
    check = {"reference": _check_reference, "solution": _check_solution}
    with open(report, "a") as out:
        out.write(json.dumps({"ready": True}) + "\n")     # each check's own clock starts at its start line
        out.flush()
        for i, job in enumerate(json.loads(Path(plan).read_text())):
            out.write(json.dumps({"start": i}) + "\n")
            out.flush()
            problem = check[job["kind"]](Path(job["task"]), Path(tasks_root))
            out.write(json.dumps({"done": i, "problem": problem}) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
