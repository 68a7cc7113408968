"""gauntlet: the command line. Imports nothing heavy at start-up (no torch, no docker)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from .agent import AgentError, list_agents, resolve_agent
from .task import TaskError, default_tasks_root, discover, load_task, select

DEVICES = ("auto", "cuda", "rocm", "cpu")


def _fail(message: str) -> None:
    raise click.ClickException(message)


def _tasks_root_option(fn):
    return click.option("--tasks-root", type=click.Path(path_type=Path, file_okay=False),
                        default=None, help="Task suite folder (default: the repo's tasks/).")(fn)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gauntlet")
def main():
    """Benchmark coding agents on GPU-kernel optimisation.

    Each task gives an agent a git workspace and a time budget; the result is evaluated through
    compile -> correctness -> performance gates on the configs the agent saw and on hidden ones.
    """


# -- tasks -------------------------------------------------------------------------------------
@main.group()
def tasks():
    """List, show and validate tasks."""


@tasks.command("list")
@_tasks_root_option
@click.argument("selectors", nargs=-1)
def tasks_list(tasks_root, selectors):
    """List tasks (optionally only those matching SELECTORS, e.g. cuda2cuda or triton2triton/softmax)."""
    try:
        chosen = select(selectors, tasks_root)
    except TaskError as exc:
        _fail(str(exc))
    for t in chosen:
        click.echo(f"{t.id:40s} {','.join(t.platforms):16s} {t.description.splitlines()[0][:70]}")


@tasks.command("show")
@_tasks_root_option
@click.argument("task_id")
def tasks_show(tasks_root, task_id):
    """Show one task: files, editable paths, configs (hidden ones are counted, not shown)."""
    root = Path(tasks_root or default_tasks_root())
    try:
        t = load_task(root / task_id, root)
    except TaskError as exc:
        _fail(str(exc))
    click.echo(f"{t.id}  [{t.category}]  platforms: {', '.join(t.platforms)}")
    click.echo(t.description)
    click.echo(f"language: {t.language}   baseline: {'PyTorch reference' if t.baseline_is_reference else 'the shipped kernel'}")
    click.echo(f"entry: {t.entry} :: {t.symbol}")
    click.echo("workspace files: " + ", ".join(sorted(t.files)))
    click.echo("editable: " + ", ".join(t.editable))
    click.echo("seen configs:")
    for c in t.configs("seen"):
        click.echo(f"  {c.name:20s} {c.describe()}")
    click.echo(f"hidden configs: {len(t.configs('unseen'))}   solution: {'yes' if t.solution_dir else 'no'}")


@tasks.command("validate")
@_tasks_root_option
@click.argument("selectors", nargs=-1)
def tasks_validate(tasks_root, selectors):
    """Load every selected task strictly; one line per problem, exit 1 if any."""
    root = Path(tasks_root or default_tasks_root())
    dirs = discover(root)
    wanted = [s.strip("/") for s in selectors if s != "all"]
    if wanted:
        dirs = [d for d in dirs if any(f"{d.parent.name}/{d.name}" == s or
                                       f"{d.parent.name}/{d.name}".startswith(s + "/") or d.parent.name == s
                                       for s in wanted)]
    bad = 0
    for d in dirs:
        try:
            load_task(d, root)
        except TaskError as exc:
            bad += 1
            click.echo(str(exc), err=True)
    click.echo(f"{len(dirs) - bad} valid, {bad} invalid")
    sys.exit(1 if bad or not dirs else 0)


# -- agents ------------------------------------------------------------------------------------
@main.group()
def agents():
    """Agent definitions (agents/*.toml)."""


@agents.command("list")
def agents_list():
    """List the agents this checkout defines."""
    try:
        for a in list_agents():
            click.echo(f"{a.name:14s} {a.kind:8s} {a.description}")
    except AgentError as exc:
        _fail(str(exc))


# -- run / eval / report -----------------------------------------------------------------------
def _device(device: str) -> str:
    from .run import detect_device
    return detect_device() if device == "auto" else device


def _progress():
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    transient=False)


def _summary_line(r) -> str:
    def sp(v):
        return f"{v:.2f}x" if v else "-"
    return (f"{r.task:36s} {r.status:14s} compiled={'y' if r.compiled else 'n'} "
            f"seen={'y' if r.correct_seen else 'n'} unseen={'y' if r.correct_unseen else 'n'} "
            f"speedup seen={sp(r.speedup_seen)} unseen={sp(r.speedup_unseen)}"
            + (f" violations={len(r.violations)}" if r.violations else ""))


@main.command()
@click.option("--agent", "agent_name", required=True, help="Agent name (see `gauntlet agents list`) or path to a .toml.")
@click.option("--tasks", "selectors", multiple=True, default=("all",), show_default=True,
              help="Task selectors: a category, a task id, or 'all'. Repeatable.")
@click.option("--backend", type=click.Choice(["local", "docker"]), default="local", show_default=True)
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True)
@click.option("--budget", default="30m", show_default=True, help="Agent wall-clock budget per attempt (600, 90s, 30m, 1h).")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="Run dir (default: runs/<agent>-<timestamp>).")
@click.option("--resume", is_flag=True, help="Continue the run in --out: finished attempts are kept, the rest redone.")
@click.option("--command", "command", default=None, help="Command template for the `command` agent.")
@click.option("--replay-from", type=click.Path(path_type=Path), default=None, help="Patch file or run dir for `replay`.")
@_tasks_root_option
def run(agent_name, selectors, backend, device, budget, out, resume, command, replay_from, tasks_root):
    """Run an agent over tasks and evaluate every attempt."""
    from .report import aggregate, render
    from .run import Run, RunError, RunOptions, now, parse_duration
    try:
        budget_s = parse_duration(budget)
    except ValueError as exc:
        _fail(f"--budget: {exc}")
    try:
        spec = resolve_agent(agent_name, command=command, replay_from=replay_from)
    except AgentError as exc:
        _fail(str(exc))
    if resume and out is None:
        _fail("--resume: needs --out RUN_DIR (the run to continue)")
    root = Path(tasks_root or default_tasks_root())
    try:
        chosen = select(selectors, root)
    except TaskError as exc:
        _fail(str(exc))
    dev = _device(device)
    runnable = [t for t in chosen if dev in t.platforms]
    skipped = [t.id for t in chosen if dev not in t.platforms]
    if skipped:
        click.echo(f"skipping {len(skipped)} task(s) that do not run on {dev}: {', '.join(skipped)}", err=True)
    if not runnable:
        _fail(f"--tasks: no selected task runs on device {dev}")
    out = out or Path("runs") / f"{spec.name}-{now().replace(':', '').replace('+0000', 'Z')}"
    options = RunOptions(agent=spec, device=dev, backend=backend, budget_s=budget_s, tasks_root=root)
    try:
        the_run = Run(out, options, runnable, resume=resume)
    except RunError as exc:
        _fail(str(exc))
    pending = the_run.pending()
    click.echo(f"run dir: {out}  agent: {spec.name}  device: {dev}  backend: {backend}  "
               f"attempts: {len(pending)} to do, {len(runnable) - len(pending)} already finished")
    with _progress() as progress:
        bar = progress.add_task("attempts", total=len(runnable), completed=len(runnable) - len(pending))
        for task in pending:
            progress.update(bar, description=task.id)
            result = the_run.attempt(task)
            progress.console.print(_summary_line(result), soft_wrap=True, markup=False)
            progress.advance(bar)
    the_run.close()
    from .report import load_results
    click.echo(render(aggregate(load_results([out])), "table"))


@main.command("eval")
@click.argument("run_dir", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True)
@click.option("--backend", type=click.Choice(["local", "docker"]), default="local", show_default=True)
@_tasks_root_option
def eval_cmd(run_dir, device, backend, tasks_root):
    """Re-evaluate the saved diffs of RUN_DIR (e.g. on another device); rewrites result.json."""
    from .agent import AgentSpec
    from .run import RunOptions, reevaluate
    root = Path(tasks_root or default_tasks_root())
    try:
        by_id = {t.id: t for t in select([], root)}
    except TaskError as exc:
        _fail(str(exc))
    options = RunOptions(agent=AgentSpec(name="eval", kind="noop"), device=_device(device), backend=backend,
                         tasks_root=root)
    results = reevaluate(run_dir, options, by_id, progress=lambda r: click.echo(_summary_line(r)))
    if not results:
        _fail(f"{run_dir}: no attempts with a known task to re-evaluate")


@main.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "md"]), default="table", show_default=True)
def report(run_dirs, fmt):
    """Per-category aggregates over one or more run dirs."""
    from .report import aggregate, load_results, render
    try:
        results = load_results(run_dirs)
    except FileNotFoundError as exc:
        _fail(str(exc))
    click.echo(render(aggregate(results), fmt))


if __name__ == "__main__":
    main()
