"""Reference check for `gauntlet tasks validate`: import each task's reference and run make_inputs
and reference() on every seen and hidden config on the CPU, so a broken task is caught here rather
than scored as `task_error` in a run. Every hidden config's inputs must differ from every seen
config's in a shape or an integer size, or a candidate hard-coded to the seen shapes would pass it.
The shipped solution is checked for its entry symbol too: a Python one is imported (it must define
the callable), a native one must name the symbol (compiling it is the oracle's job,
`scripts/check_suite_cpu.py`).

The host side (`check_references`) never imports torch: the references run in one child process
(`python -m runner.refcheck`), which uses the judge's own helpers, so validate and the judge agree on
what a broken task is. A reference that kills its process fails only the task it was checking.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

TIMEOUT_S = 900          # the whole suite on the CPU (the largest hidden configs take seconds each)


def check_references(task_dirs: list[Path], tasks_root: Path) -> dict[Path, str]:
    """{task dir: one-line problem} for every task whose reference fails on a seen or hidden config."""
    problems: dict[Path, str] = {}
    # absolute: the child runs in the repo (to import runner), not in the caller's folder
    pending = [Path(d).resolve() for d in task_dirs]
    tasks_root = Path(tasks_root).resolve()
    while pending:
        with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as report:
            try:
                proc = subprocess.run([sys.executable, "-m", "runner.refcheck", report.name, str(tasks_root),
                                       *map(str, pending)], capture_output=True, text=True, timeout=TIMEOUT_S,
                                      cwd=Path(__file__).resolve().parent.parent)
                died = proc.returncode != 0
                tail = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1][:200]
            except subprocess.TimeoutExpired:
                died, tail = True, f"no answer in {TIMEOUT_S} s"
            done = [json.loads(line) for line in report.read().splitlines() if line.strip()]
        for item in done:
            if item["problem"]:
                problems[Path(item["task"])] = item["problem"]
        checked = {Path(item["task"]) for item in done}
        rest = [d for d in pending if d not in checked]
        if died and rest:      # the task being checked took the process down: blame it, go on
            problems[rest[0]] = f"{rest[0] / 'reference.py'}: reference: checking it ended the process ({tail})"
            rest = rest[1:]
        pending = rest if died else []
    return problems


def _check_one(task_dir: Path, tasks_root: Path) -> str | None:
    import torch
    from .evaluator.judge import (WARMUP_SEED, Mismatch, TaskBroken, _seed, canonical_for, compare, import_reference,
                                  make_inputs, run_reference)
    from .task import TaskError, load_task
    try:
        task = load_task(task_dir, tasks_root)
    except TaskError as exc:  # the host loaded it (validate prints its loader's lines): never swallowed
        return str(exc)
    try:
        reference = import_reference(task.reference)
        shapes = []
        for config in (*task.configs("seen"), *task.configs("unseen")):
            generator = torch.Generator().manual_seed(_seed(config, WARMUP_SEED))
            args = make_inputs(reference, config, generator, "cpu")
            shapes.append((config, _shapes(args)))
            try:
                expected = run_reference(reference, args)
                canon = canonical_for(reference, args)
                if canon is not None:      # the reference must pass through its own canonical()
                    compare(task, expected, expected, canon=canon)
            except Mismatch as exc:
                raise TaskBroken(f"canonical() of the reference's outputs: {exc} on {config.split} config "
                                 f"{config.name}") from None
            except TaskBroken as exc:
                raise TaskBroken(f"{exc} on {config.split} config {config.name}") from None
    except TaskBroken as exc:
        return f"{task.reference}: reference: {exc}"
    seen = {shape: config.name for config, shape in shapes if config.split == "seen"}
    for config, shape in shapes:
        if config.split != "seen" and shape in seen:
            return (f"{task.hidden_file}: config {config.name}: its inputs have the shapes and sizes of seen config "
                    f"{seen[shape]}, so a candidate hard-coded to the seen shapes passes it")
    return _check_solution(task)


def _shapes(args) -> tuple:
    """What a shape-hard-coded candidate can key on: every tensor's shape and dtype and every integer
    argument (native kernels take their sizes so). Float scalars are data, not shape."""
    import torch
    return tuple((tuple(a.shape), str(a.dtype)) if isinstance(a, torch.Tensor)
                 else a if isinstance(a, int) and not isinstance(a, bool) else None for a in args)


def _check_solution(task) -> str | None:
    import importlib.util
    import re
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


def main(argv: list[str]) -> int:
    report, tasks_root, *dirs = argv
    with open(report, "a") as out:
        for d in dirs:
            problem = _check_one(Path(d), Path(tasks_root))
            out.write(json.dumps({"task": d, "problem": problem}) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
