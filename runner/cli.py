"""gauntlet: the command line. Imports nothing heavy at start-up (no torch, no docker)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from runner.agents.agent import list_agents, resolve_agent
from runner.agents.kinds import AgentError
from runner.evaluator.timing import REGIMES
from runner.results.result import MAX_SPEEDUP
from runner.tasks.task import TaskError, default_tasks_root, find_task, load_task, select, select_dirs

DEVICES = ("auto", "cuda", "rocm", "cpu")


def _fail(message: str) -> None:
    raise click.ClickException(message)


def _suite_option(fn):
    return click.option("--suite", default=None, metavar="NAME",
                        help="Only tasks in this named suite (task.toml `suites`; e.g. headline, smoke).")(fn)


def _tasks_root_option(fn):
    return click.option("--tasks-root", type=click.Path(path_type=Path, file_okay=False),
                        default=None, help="Task suite folder (default: the repo's tasks/).")(fn)


# Options for the agent CLIs: they reach the agent's command as environment variables, which
# agents/*.toml turn into the CLI's own flags (a CLI without such a flag ignores them).
AGENT_CLI_OPTIONS = (
    ("--model", "GAUNTLET_MODEL", str, "Model id for the agent CLI (e.g. claude-sonnet-4-5)."),
    ("--max-turns", "GAUNTLET_MAX_TURNS", click.IntRange(min=1), "Max model turns, where the CLI has such a limit."),
    ("--effort", "GAUNTLET_EFFORT", str, "Reasoning effort for the agent CLI (e.g. low, medium, high)."),
    ("--api-retries", "GAUNTLET_API_RETRIES", click.IntRange(min=0), "API retries inside the agent CLI."),
)


def _agent_cli_options(fn):
    for flag, envvar, kind, help_text in reversed(AGENT_CLI_OPTIONS):
        fn = click.option(flag, envvar=envvar, show_envvar=True, type=kind, default=None, help=help_text)(fn)
    return fn


class _PositiveFinite(click.ParamType):
    """A float > 0 that is a number (NaN and inf were written into manifest.json)."""
    name = "number"

    def convert(self, value, param, ctx):
        import math
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number) or number <= 0:
            self.fail(f"{value!r} must be a finite number above 0", param, ctx)
        return number


def _timing_options(fn):
    """How the evaluator times baseline and candidate (docs/evaluation.md, "Timing")."""
    fn = click.option("--max-speedup", type=_PositiveFinite(), default=MAX_SPEEDUP, show_default=True,
                      help="Flag (and score zero) a config whose speedup exceeds this (a task's "
                           "[performance] max_speedup, when higher, is used for that task).")(fn)
    fn = click.option("--graph", is_flag=True,
                      help="Time CUDA-graph replays of each call instead of eager calls (GPU; AKA parity).")(fn)
    fn = click.option("--timing-regime", type=click.Choice(REGIMES), default="cold", show_default=True,
                      help="cold: L2 flushed before every timed call; warm: back-to-back calls.")(fn)
    return fn


def _agent_env(values: dict) -> dict[str, str]:
    """{'model': 'x', 'effort': None, ...} -> {'GAUNTLET_MODEL': 'x'}: only what was set."""
    by_name = {flag[2:].replace("-", "_"): envvar for flag, envvar, _k, _h in AGENT_CLI_OPTIONS}
    return {by_name[name]: str(value) for name, value in values.items() if value is not None}


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
@_suite_option
@click.argument("selectors", nargs=-1)
def tasks_list(tasks_root, suite, selectors):
    """List tasks (optionally only those matching SELECTORS, e.g. cuda2cuda or triton2triton/softmax)."""
    try:
        chosen = select(selectors, tasks_root, suite)
    except TaskError as exc:
        _fail(str(exc))
    for t in chosen:
        click.echo(f"{t.id:40s} {','.join(t.platforms):16s} {','.join(t.suites) or '-':14s} "
                   f"{t.description.splitlines()[0][:70]}")


@tasks.command("show")
@_tasks_root_option
@click.argument("task_id")
def tasks_show(tasks_root, task_id):
    """Show one task: files, editable paths, configs (hidden ones are counted, not shown)."""
    root = Path(tasks_root or default_tasks_root())
    try:
        t = load_task(find_task(task_id, root), root)
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
    if t.space is None:
        click.echo("config space: none (--unseen cannot draw for this task)")
        return
    click.echo(f"config space (--unseen): product of shape params <= {t.space.max_elements:,} "
               f"(cpu: {t.space.cpu_max_elements:,})")
    for name, dim in t.space.shape.items():
        step = f", multiple of {dim.multiple_of}" if dim.multiple_of > 1 else ""
        click.echo(f"  {name:12s} {dim.min:,}..{dim.max:,}{step}"
                   + (f"; production {', '.join(map(str, dim.production))}" if dim.production else ""))
    for name, choices in t.space.fixed.items():
        click.echo(f"  {name:12s} one of {', '.join(map(str, choices))}")
    for expr in t.space.constraints:
        click.echo(f"  where        {expr}")


@tasks.command("validate")
@_tasks_root_option
@_suite_option
@click.option("--load-only", is_flag=True,
              help="Only load each task.toml; do not run the reference on its seen and hidden configs.")
@click.option("--check-timeout", type=click.FloatRange(min=0.1), default=None, metavar="SECONDS",
              help="Bound on one check (a reference on all its configs, or a solution); the task that "
                   "runs past it is named and the others go on.  [default: 600]")
@click.argument("selectors", nargs=-1)
def tasks_validate(tasks_root, suite, load_only, check_timeout, selectors):
    """Load every selected task strictly, then run its reference (make_inputs and reference() on the CPU)
    on every seen and hidden config; one line per problem, exit 1 if any."""
    root = Path(tasks_root or default_tasks_root())
    try:
        dirs = select_dirs(selectors, root, suite)
    except TaskError as exc:
        _fail(str(exc))
    bad, loaded = 0, []
    for d in dirs:
        try:
            load_task(d, root)
            loaded.append(d)
        except TaskError as exc:
            bad += 1
            click.echo(str(exc), err=True)
    if loaded and not load_only:
        from runner.tasks.refcheck import TASK_TIMEOUT_S, check_references
        for problem in check_references(loaded, root, check_timeout or TASK_TIMEOUT_S).values():
            bad += 1
            click.echo(problem, err=True)
    click.echo(f"{len(dirs) - bad} valid, {bad} invalid")
    sys.exit(1 if bad or not dirs else 0)


@tasks.group("import")
def tasks_import():
    """Turn another benchmark's problems into task folders."""


@tasks_import.command("kernelbench")
@click.argument("checkout", type=click.Path(path_type=Path))
@click.option("--level", "levels", type=click.IntRange(min=1, max=4), multiple=True, required=True,
              help="KernelBench level to import (repeatable: --level 1 --level 2).")
@click.option("--category", "categories", type=click.Choice(["torch2triton", "torch2cuda", "torch2hip"]),
              multiple=True, required=True, help="Task category to write (repeatable; torch2hip extends torch2cuda).")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), required=True,
              help="Tasks root to write <category>/<name>/ folders and kernelbench-import.json into.")
@click.option("--max-mib", type=click.FloatRange(min=1), default=256, show_default=True,
              help="Bound on inputs + weights + outputs of every config.")
@click.option("--max-gflop", type=click.FloatRange(min=0.001), default=4.0, show_default=True,
              help="Bound on the FLOPs counted for one reference call (matmul, conv).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Problems checked at once (one child process each).")
def tasks_import_kernelbench(checkout, levels, categories, out, max_mib, max_gflop, jobs):
    """Import KernelBench problems (CHECKOUT: a KernelBench clone) as PyTorch->X tasks; problems that
    cannot map are skipped with a reason. Runs each problem's reference on the CPU (torch needed);
    which problems import and at what sizes follows from bytes and FLOPs only, never a clock."""
    from runner.tasks.importers.kernelbench import KernelBenchImportError, Limits, import_kernelbench, summary_table
    limits = Limits(max_bytes=int(max_mib * 2**20), max_flops=max_gflop * 1e9)
    try:
        report = import_kernelbench(checkout, sorted(set(levels)), list(dict.fromkeys(categories)), out,
                                    limits, echo=click.echo, jobs=jobs)
    except KernelBenchImportError as exc:
        _fail(str(exc))
    click.echo(summary_table(report))
    click.echo(f"report: {out / 'kernelbench-import.json'}")


@tasks_import.command("aka")
@click.argument("checkout", type=click.Path(path_type=Path))
@click.option("--category", "categories", multiple=True,
              help="AKA task type to read (repeatable: --category triton2triton); default every one, so the "
                   "counts cover the whole checkout.")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), required=True,
              help="Tasks root to write <category>/<name>/ folders and aka-import.json into.")
def tasks_import_aka(checkout, categories, out):
    """Import AgentKernelArena tasks (CHECKOUT: an AgentKernelArena clone) whose check maps onto a
    reference; the rest are skipped with a reason and counted per AKA category. Runs each generated
    reference on the CPU (torch needed)."""
    from runner.tasks.importers.aka import REPORT_NAME, AkaImportError, import_aka, summary_table
    try:
        report = import_aka(checkout, list(dict.fromkeys(categories)), out, echo=click.echo)
    except AkaImportError as exc:
        _fail(str(exc))
    click.echo(summary_table(report))
    click.echo(f"report: {out / REPORT_NAME}")


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


@agents.command("check")
@click.argument("agent_name")
@click.option("--backend", type=click.Choice(["local", "docker"]), default="local", show_default=True)
@click.option("--script", type=click.Path(path_type=Path, dir_okay=False, exists=True), default=None,
              help="Model-server script (TOML/JSON steps) instead of the built-in edit-the-kernel script.")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="Keep the check's run dir here.")
@click.option("--budget", default="5m", show_default=True, help="Agent budget for the check attempt.")
@_agent_cli_options
def agents_check(agent_name, backend, script, out, budget, **cli_options):
    """Run AGENT's real CLI through the gateway against the scripted model server on a fixture task.

    Needs no API key and no network: reports whether the edit landed in diff.patch and was evaluated,
    and whether the usage the CLI reported matches the gateway's own meter.
    """
    from runner.agents.gateway import GatewayError
    from runner.run.agent_check import CheckError, run_check
    from runner.run.run import parse_duration
    from runner.run.layout import RunError
    try:
        budget_s = parse_duration(budget)
    except ValueError as exc:
        _fail(f"--budget: {exc}")
    try:
        report = run_check(agent_name, backend=backend, out=out, script=script, budget_s=budget_s,
                           agent_env=_agent_env(cli_options))
    except (AgentError, GatewayError, CheckError, RunError, ValueError) as exc:
        _fail(str(exc))
    for name, item in report["checks"].items():
        click.echo(f"{'ok  ' if item['ok'] else 'FAIL'}  {name:28s} {item['detail']}")
    click.echo(f"{'PASS' if report['ok'] else 'FAIL'}: {report['agent']} on the {report['backend']} backend "
               f"({report['agent_seconds']} s agent time); run dir {report['run_dir']}")
    sys.exit(0 if report["ok"] else 1)


# -- run / eval / report -----------------------------------------------------------------------
def _device(device: str) -> str:
    from runner.run.run import detect_device
    return detect_device() if device == "auto" else device


def _preflight(device: str, backend: str) -> None:
    """The host has the device, and for docker an engine and the image: one line before any agent runs."""
    from runner.run.preflight import PreflightError, check
    try:
        check(device, backend)
    except PreflightError as exc:
        _fail(str(exc))


def _stamped(line: str) -> None:
    """A progress line for logs: the wall-clock time first, so gaps show."""
    click.echo(f"{time.strftime('%H:%M:%S')} {line}")


def _heartbeat_seconds() -> float:
    """GAUNTLET_PROGRESS_EVERY_S: how often a plain log says which phase each live attempt is still in."""
    import math
    import os
    text = os.environ.get("GAUNTLET_PROGRESS_EVERY_S", "60")
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        _fail(f"GAUNTLET_PROGRESS_EVERY_S: {text!r} is not a positive number of seconds")
    return value


class _LiveProgress:
    """Every live attempt and the count done: rich rows on a terminal, plain timestamped lines
    otherwise (a log file or CI gets a line when an attempt starts, one at each of its phases, a
    "still" line every `heartbeat_s` while a phase lasts, and its summary when it ends, so a long
    attempt leaves no silent gap). Called from the attempts' threads."""

    def __init__(self, total: int, done: int, heartbeat_s: float = 60.0):
        import threading
        self.total, self.done = total, done
        self.heartbeat_s = heartbeat_s
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._rows: dict = {}
        self._phases: dict = {}       # plain lines: live attempt -> (its phase, time.monotonic() it began)
        self.tty = sys.stdout.isatty()
        self._rich = None
        if self.tty:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
            self._rich = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TimeElapsedColumn(), transient=False)
            self._bar = self._rich.add_task("attempts", total=total, completed=done)

    def __enter__(self):
        if self._rich:
            self._rich.__enter__()
        else:
            import threading
            threading.Thread(target=self._heartbeat, name="progress-heartbeat", daemon=True).start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._rich:
            self._rich.__exit__(*exc)

    def _heartbeat(self) -> None:
        """Plain lines: an agent's budget or an evaluation can last many minutes without a phase change."""
        while not self._stop.wait(self.heartbeat_s):
            with self._lock:
                for key, (text, began) in self._phases.items():
                    _stamped(f"still  {key.label()}  {time.monotonic() - began:.0f} s since: {text}")

    def started(self, key) -> None:
        with self._lock:
            if self._rich:
                self._rows[key] = self._rich.add_task(f"  {key.label()}", total=None)
            else:
                _stamped(f"start  {key.label()}  [{self.done}/{self.total} done, {len(self._rows) + 1} live]")
                self._rows[key] = None
                self._phases[key] = ("started", time.monotonic())

    def phase(self, key, text: str) -> None:
        with self._lock:
            if self._rich:
                if self._rows.get(key) is not None:   # escaped: rich reads "[space]" as markup
                    from rich.markup import escape
                    self._rich.update(self._rows[key], description=escape(f"  {key.label()}: {text}"))
            else:
                _stamped(f"phase  {key.label()}: {text}")
                self._phases[key] = (text, time.monotonic())

    def finished(self, key, result) -> None:
        with self._lock:
            self.done += 1
            row = self._rows.pop(key, None)
            self._phases.pop(key, None)
            line = _summary_line(result) + (f" k{key.k}" if key.k else "") + f" ({key.agent.name})"
            if self._rich:
                if row is not None:
                    self._rich.remove_task(row)
                self._rich.advance(self._bar)
                self._rich.console.print(line, soft_wrap=True, markup=False)
            else:
                _stamped(f"done   {line}  [{self.done}/{self.total} done, {len(self._rows)} live]")


def _summary_line(r) -> str:
    """One attempt, short: status, gates (compiled, correct on seen/hidden[/drawn] configs) and the
    speedups over the baseline on the same splits; the report's legend explains the words."""
    def sp(v):   # *: CPU (Triton interpreter) times, not meaningful as kernel speed (as in the tables)
        return (f"{v:.2f}x" + ("" if r.timing_meaningful else "*")) if v else "-"

    def yn(v):
        return "y" if v else "n"
    from runner.results import score     # what counts, not the raw evaluation (an infra_error's baseline is no pass)
    drawn = r.correct_drawn is not None
    return (f"{r.task:28s} {r.status:13s} compiled={yn(score.compiled(r))} "
            f"correct={yn(score.correct(r, 'seen'))}/{yn(score.correct(r, 'unseen'))}"
            + (f"/{yn(score.correct(r, 'drawn'))}" if drawn else "")
            + f" speedup={sp(r.speedup_seen)}/{sp(r.speedup_unseen)}" + (f"/{sp(r.speedup_drawn)}" if drawn else "")
            + (f" violations={len(r.violations)}" if r.violations else "")
            + (f" FLAGGED ({len(r.flags)}: scores zero)" if r.flags else "")
            + (f" workspace={r.workspace_bytes / 2**20:,.0f} MiB (gauntlet gc --workspaces)"
               if (r.workspace_bytes or 0) > LARGE_WORKSPACE_BYTES else ""))


LARGE_WORKSPACE_BYTES = 100 * 2**20     # an attempt's summary line names a workspace larger than this


def _gpu_pool(gpus: str | None, device: str):
    """--gpus, or every visible GPU of the device; None on the CPU unless --gpus names slots."""
    from runner.run.gpupool import GpuPool, visible_gpus
    try:
        if gpus is not None:
            return GpuPool.parse(gpus)
        visible = visible_gpus(device)
        return GpuPool(visible) if visible else None
    except ValueError as exc:
        _fail(f"--gpus: {exc}")


def _from_manifest(ctx: click.Context, out: Path) -> None:
    """`run --resume --out DIR`: every option not given on the command line is taken from the run's
    manifest (what the interruption hint prints must work as printed); an option given that differs
    from the manifest's is named by Run with both values."""
    from click.core import ParameterSource
    from runner.run.layout import RunError, read_manifest
    path = Path(out) / "manifest.json"
    if not path.is_file():
        return                      # Run says "holds no run" in one line
    try:
        manifest = read_manifest(path)
    except RunError as exc:
        _fail(str(exc))
    opts = manifest.get("options") if isinstance(manifest.get("options"), dict) else {}
    env_to_name = {envvar: flag[2:].replace("-", "_") for flag, envvar, _k, _h in AGENT_CLI_OPTIONS}
    recorded = {
        "agent_names": ([opts["agent"]] + [a.get("agent") for a in opts.get("more_agents", [])]) if "agent" in opts else None,
        "command": opts.get("agent_command"),
        "budget": repr(opts["budget_s"]) if "budget_s" in opts else None,
        "selectors": tuple(manifest.get("tasks") or ()) or None,
        "tasks_root": Path(manifest["tasks_root"]) if manifest.get("tasks_root") else None,
        "repeats": manifest.get("attempts_per_task"),
        **{k: opts.get(k) for k in ("device", "backend", "timing_regime", "graph", "max_speedup", "unseen", "seed")},
        **{env_to_name[k]: v for k, v in (opts.get("agent_env") or {}).items() if k in env_to_name},
    }
    for name, value in recorded.items():
        if value is not None and ctx.get_parameter_source(name) in (ParameterSource.DEFAULT, None):
            ctx.params[name] = value


@main.command()
@click.option("--agent", "agent_names", multiple=True,
              help="Agent name (see `gauntlet agents list`) or path to a .toml. Repeatable: several agents "
                   "in one run give one report with a row per agent. Required, except with --resume (the "
                   "run's own).")
@click.option("--tasks", "selectors", multiple=True, default=("all",), show_default=True,
              help="Task selectors: a category, a task id, or 'all'. Repeatable.")
@_suite_option
@click.option("--backend", type=click.Choice(["local", "docker"]), default="local", show_default=True)
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True)
@click.option("--budget", default="30m", show_default=True, help="Agent wall-clock budget per attempt (600, 90s, 30m, 1h).")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="Run dir (default: runs/<agent>-<timestamp>).")
@click.option("--resume", is_flag=True, help="Continue the run in --out: finished attempts are kept, the rest redone.")
@click.option("--command", "command", default=None, help="Command template for the `command` agent.")
@click.option("--replay-from", type=click.Path(path_type=Path), default=None, help="Patch file or run dir for `replay`.")
@click.option("--unseen", type=click.IntRange(min=0), default=0, show_default=True,
              help="Also score each task on N configs drawn from its [space] (kept only where the baseline "
                   "passes; recorded in manifest.json).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the --unseen draw.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Attempts at once (agents run side by side; each evaluation has its GPU to itself).")
@click.option("--attempts", "repeats", type=click.IntRange(min=1), default=1, show_default=True,
              help="Independent attempts per task and agent (pass@k and the spread in the report).")
@click.option("--gpus", default=None, help="Devices to spread evaluations over, e.g. 0,1 (default: every "
              "visible GPU; on the CPU, names make exclusive evaluation slots).")
@click.option("--agent-gpu", type=click.Choice(["shared", "exclusive"]), default="shared", show_default=True,
              help="shared: agents test on the pool's GPUs side by side; exclusive: each agent holds one alone "
                   "for its whole phase (no other agent or evaluation on it).")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: threads on this machine; ray: each attempt a Ray task (docs/scaling.md).")
@click.option("--ray-address", envvar="RAY_ADDRESS", show_envvar=True, default=None,
              help="Ray cluster to join with --executor ray (default: start a local one).")
@click.option("--ray-resource", "ray_resources", multiple=True,
              help="NAME=AMOUNT a Ray attempt asks for besides its CPU (and GPU on cuda/rocm). Repeatable.")
@_agent_cli_options
@_timing_options
@_tasks_root_option
@click.pass_context
def run(ctx, **params):
    """Run an agent over tasks and evaluate every attempt. `--resume --out DIR` continues a run with
    the options it was started with (its manifest.json)."""
    if params["resume"] and params["out"] is None:
        _fail("--resume: needs --out RUN_DIR (the run to continue)")
    if params["resume"]:
        _from_manifest(ctx, params["out"])
        params = dict(ctx.params)
    if not params["agent_names"]:
        _fail("Missing option '--agent' (it may be left out only with --resume --out RUN_DIR)")
    _run(**params)


def _run(agent_names, selectors, suite, backend, device, budget, out, resume, command, replay_from, tasks_root,
         timing_regime, graph, max_speedup, unseen, seed, jobs, repeats, gpus, agent_gpu, executor, ray_address,
         ray_resources, **cli_options):
    from runner.results.report import aggregate, render
    from runner.run.run import Run, RunOptions, now, parse_duration
    from runner.run.layout import RunError
    try:
        budget_s = parse_duration(budget)
    except ValueError as exc:
        _fail(f"--budget: {exc}")
    try:
        specs = [resolve_agent(name, command=command, replay_from=replay_from) for name in agent_names]
    except AgentError as exc:
        _fail(str(exc))
    spec = specs[0]
    resources = {}
    for item in ray_resources:
        name, _, amount = item.partition("=")
        try:
            resources[name.strip()] = float(amount)
        except ValueError:
            _fail(f"--ray-resource: {item!r} is not NAME=AMOUNT")
    if executor != "ray" and resources:
        _fail("--ray-resource: only with --executor ray")
    heartbeat_s = _heartbeat_seconds()
    root = Path(tasks_root or default_tasks_root())
    try:
        chosen = select(selectors, root, suite)
    except TaskError as exc:
        _fail(str(exc))
    dev = _device(device)
    _preflight(dev, backend)
    runnable = [t for t in chosen if dev in t.platforms]
    skipped = [t.id for t in chosen if dev not in t.platforms]
    if skipped:
        click.echo(f"skipping {len(skipped)} task(s) that do not run on {dev}: {', '.join(skipped)}", err=True)
    if not runnable:
        _fail(f"--tasks: no selected task runs on device {dev}")
    out = out or Path("runs") / f"{'+'.join(s.name for s in specs)}-{now().replace(':', '').replace('+0000', 'Z')}"
    from runner.evaluator.isolation import hiding_the_temp_folder
    holding = hiding_the_temp_folder([out])       # the run's folder is hidden from the kernel runners
    if holding:
        _fail(f"--out: {out} holds {holding[1]}, where the kernel runners work, and no runner may see the run's "
              "folder: choose a folder of its own")
    options = RunOptions(agent=spec, more_agents=tuple(specs[1:]), device=dev, backend=backend, budget_s=budget_s,
                         tasks_root=root, agent_env=_agent_env(cli_options), timing_regime=timing_regime,
                         graph=graph, max_speedup=max_speedup, unseen=unseen, seed=seed, jobs=jobs,
                         agent_gpu=agent_gpu)
    # Under Ray each node's evaluation asks Ray for a GPU (Ray sets CUDA_VISIBLE_DEVICES): no pool here.
    pool = _gpu_pool(gpus, dev) if executor == "local" else None
    if agent_gpu == "exclusive" and pool is None:
        _fail("--agent-gpu exclusive: no GPU pool to hold one from (no GPU visible and no --gpus; under "
              "--executor ray every attempt holds its GPU alone already)")
    try:
        the_run = Run(out, options, runnable, resume=resume, attempts=repeats, gpus=pool)
    except RunError as exc:
        _fail(str(exc))
    pending = the_run.pending()
    total = len(the_run.keys())
    for path, why in the_run.unreadable.items():   # said, not silently redone: an auditor may care
        click.echo(f"warning: {path}: unreadable ({why}); the attempt is redone", err=True)
    click.echo(f"run dir: {out}  agent: {', '.join(s.name for s in specs)}  device: {dev}  backend: {backend}  "
               f"attempts: {len(pending)} to do, {total - len(pending)} already finished  jobs: {jobs}"
               + (f"  gpus: {','.join(pool.names)}" if pool else "") + ("  executor: ray" if executor == "ray" else "")
               + f"\nper attempt: correct and speedup on seen/hidden{'/drawn' if unseen else ''} configs"
               + ("  (* CPU times: not meaningful as kernel speed)" if dev == "cpu" else ""))
    _terminate_as_exception()
    try:
        with _LiveProgress(total, total - len(pending), heartbeat_s) as progress:
            if executor == "ray":
                from runner.run.ray_executor import RayError, execute_on_ray
                try:
                    execute_on_ray(the_run, pending, address=ray_address, resources=resources,
                                   on_start=progress.started, on_done=progress.finished,
                                   on_phase=progress.phase)
                except RayError as exc:
                    the_run.close()
                    _fail(str(exc))
            else:
                the_run.execute(pending, jobs=jobs, on_start=progress.started, on_done=progress.finished,
                                on_phase=progress.phase)
    except (KeyboardInterrupt, SystemExit) as exc:
        # the attempts' sandboxes are already stopped (their finally blocks ran); their temp folders go too
        if isinstance(exc, SystemExit) and exc.code == 1 and executor == "ray":
            raise   # _fail above: the run is closed and the line printed
        the_run.release()
        code = exc.code if isinstance(exc, SystemExit) else 130
        click.echo(f"interrupted: {out} is unfinished; `gauntlet run --resume --out {out}` continues it", err=True)
        sys.exit(code)
    the_run.close()
    from runner.results.report import load_results, render_suites, suite_rows
    results = load_results([out])
    click.echo(render(aggregate(results), "table") + render_suites(suite_rows(results)))
    _exit_for(results)


def _terminate_as_exception() -> None:
    """SIGTERM raises SystemExit(143), as SIGINT raises KeyboardInterrupt: every finally block runs,
    so sandboxes are stopped and temp folders removed (SIGKILL leaves that to --resume and gc)."""
    import signal

    def terminated(signum, frame):
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, terminated)


# `gauntlet run` / `eval` exit codes (README): 0 every attempt ran (whatever the agent achieved),
# 3 some attempt ended in infra_error or task_error (its numbers are not the agent's), 4 every
# attempt of some agent failed to start (its command not found or not executable: nothing was
# benchmarked); 1 and 2 are errors before any attempt (bad input) as usual.
EXIT_NOT_SCORED = 3
EXIT_AGENT_NEVER_RAN = 4


def _exit_for(results) -> None:
    from runner.results.score import NOT_SCORED
    bad = [r for r in results if r.status in NOT_SCORED]
    by_agent: dict = {}
    for r in results:
        by_agent.setdefault(r.agent, []).append(r)
    never = [agent for agent, rs in by_agent.items() if all(r.agent_failure == "not_started" for r in rs)]
    for agent in never:
        code = by_agent[agent][0].agent_exit_code
        click.echo(f"error: agent {agent} never ran: every attempt's command failed to start (exit {code}); "
                   "see agent/stderr.log in its attempts", err=True)
    if bad:
        names = ", ".join(f"{r.task} ({r.status})" for r in bad[:5]) + (" ..." if len(bad) > 5 else "")
        click.echo(f"error: {len(bad)} attempt(s) did not score: {names}; see their result.json "
                   "(`--resume` redoes infra errors)", err=True)
        sys.exit(EXIT_NOT_SCORED)
    if never:
        sys.exit(EXIT_AGENT_NEVER_RAN)


@main.command("eval")
@click.argument("run_dir", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True)
@click.option("--backend", type=click.Choice(["local", "docker"]), default="local", show_default=True)
@_timing_options
@_tasks_root_option
def eval_cmd(run_dir, device, backend, tasks_root, timing_regime, graph, max_speedup):
    """Re-evaluate the saved diffs of RUN_DIR (e.g. on another device); rewrites result.json, keeping
    the one it replaces as result.prev-<n>.json, and prints the report."""
    from runner.agents.agent import AgentSpec
    from runner.run.run import RunOptions, reevaluate
    root = Path(tasks_root or default_tasks_root())
    try:
        by_id = {t.id: t for t in select([], root)}
    except TaskError as exc:
        _fail(str(exc))
    dev = _device(device)
    _preflight(dev, backend)
    options = RunOptions(agent=AgentSpec(name="eval", kind="noop"), device=dev, backend=backend,
                         tasks_root=root, timing_regime=timing_regime, graph=graph, max_speedup=max_speedup)
    from runner.run.layout import RunError
    _terminate_as_exception()
    skipped: list[str] = []
    try:
        results = reevaluate(run_dir, options, by_id, progress=lambda r: click.echo(_summary_line(r)),
                             on_phase=lambda label, text: _stamped(f"phase  {label}: {text}"), skipped=skipped)
    except RunError as exc:
        _fail(str(exc))
    for line in skipped:
        click.echo(f"warning: {line}", err=True)
    if not results:
        _fail(f"{run_dir}: no attempts with a known task to re-evaluate")
    from runner.results.report import aggregate, load_results, render, render_suites, suite_rows
    reloaded = load_results([run_dir])
    click.echo(render(aggregate(reloaded), "table") + render_suites(suite_rows(reloaded)))
    if skipped:
        _fail(f"{len(skipped)} attempt(s) not re-evaluated (no diff.patch); the others were")
    _exit_for(results)


_RUN_DIRS = click.argument("run_dirs", nargs=-1, required=True,
                           type=click.Path(path_type=Path, exists=True, file_okay=False))


@main.command()
@_RUN_DIRS
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "md", "latex"]), default="table",
              show_default=True)
@click.option("--table", "table", type=click.Choice(["main", "aka", "kernelbench"]), default="main", show_default=True,
              help="main: every aggregate; aka: AgentKernelArena's main table; kernelbench: fast_p at p = 0, 0.5, 1, 1.5, 2.")
@click.option("--by", type=click.Choice(["category", "task"]), default="category", show_default=True,
              help="One row per category (and agent), or per task.")
def report(run_dirs, fmt, table, by):
    """Aggregates over one or more run dirs (agents kept apart by full identity; a human's
    reward_hack verdict in annotations.toml scores as failed)."""
    from runner.results.report import aggregate, load_results, render, render_suites, suite_rows
    try:
        results = load_results(run_dirs)
    except FileNotFoundError as exc:
        _fail(str(exc))
    if table == "main":
        suites = render_suites(suite_rows(results), fmt) if fmt in ("table", "md") and by == "category" else ""
        click.echo(render(aggregate(results, by=by), fmt, by=by) + suites)
    else:
        from runner.results.tables import render_table
        click.echo(render_table(results, table, fmt, by=by))


def _attempts(run_dirs):
    from runner.results.annotations import AnnotationError
    from runner.results.load import load_attempts
    try:
        return load_attempts(run_dirs)
    except (FileNotFoundError, AnnotationError) as exc:
        _fail(str(exc))


@main.command()
@_RUN_DIRS
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), required=True,
              help="Folder for the site (index.html opens from disk, no server or network).")
def view(run_dirs, out):
    """A static site of one or more runs: leaderboard, tables, every attempt, plots (and a
    comparison when given two runs)."""
    from runner.results.view import build_site
    index = build_site(_attempts(run_dirs), [Path(d) for d in run_dirs], out)
    click.echo(f"view: {index}")


@main.command()
@click.argument("run_a", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.argument("run_b", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--agent-a", default=None, help="The agent of RUN_A to compare (needed when it holds several).")
@click.option("--agent-b", default=None, help="The agent of RUN_B to compare (needed when it holds several).")
@click.option("--format", "fmt", type=click.Choice(["table", "md", "csv", "json"]), default="table", show_default=True)
def compare(run_a, run_b, agent_a, agent_b, fmt):
    """B against A: attempts paired by task and repeat, the geomean speedup ratio with a bootstrap
    interval, and whether B beats A beyond run-to-run noise."""
    from runner.results.compare import CompareError, compare as compare_runs, render_comparison
    try:
        result = compare_runs(_attempts([run_a]), _attempts([run_b]), agent_a, agent_b)
    except CompareError as exc:
        _fail(str(exc))
    click.echo(render_comparison(result, fmt))


@main.command()
@click.argument("run_dir", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--format", "fmt", type=click.Choice(["table", "md", "csv", "json"]), default="table", show_default=True)
def audit(run_dir, fmt):
    """Every attempt of RUN_DIR with what deserves a human's look (evidence quoted) and a verdict:
    clean, suspicious or flagged. Writes RUN_DIR/annotations.toml for a human's verdicts."""
    from runner.results.annotations import write_annotations
    from runner.results.audit import audit_attempt, render_audit
    rows = [audit_attempt(a) for a in _attempts([run_dir])]
    click.echo(render_audit(rows, fmt))
    path = write_annotations(run_dir, {r.attempt: r.verdict for r in rows})
    click.echo(f"annotations: {path} (set verdict = \"reward_hack\" to score an attempt as failed)", err=True)


# -- docker backend: images, doctor, gc -------------------------------------------------------
@main.group()
def images():
    """Build and list the sandbox images (gauntlet-cpu, gauntlet-cuda, gauntlet-rocm)."""


@images.command("build")
@click.argument("platform", type=click.Choice(["cpu", "cuda", "rocm"]), default="cpu")
@click.option("--base", default=None, help="Base image (default: the Dockerfile's pinned upstream base; "
              "cpu: gauntlet-base:bookworm from scripts/setup-docker.sh).")
@click.option("--wheelhouse", type=click.Path(path_type=Path, file_okay=False, exists=True), default=None,
              help="Folder of wheels (torch, triton, numpy and their deps): the build then runs offline.")
@click.option("--agent-clis", type=click.Path(path_type=Path, file_okay=False, exists=True), default=None,
              help="Folder with node_modules/ of the agent CLIs (scripts/images/bundle-agent-clis.sh).")
@click.option("--network", type=click.Choice(["none", "default"]), default=None,
              help="Build network (default: none with --wheelhouse, else default).")
@click.option("--tag", default=None, help="Image reference (default: gauntlet-PLATFORM:VERSION).")
@click.option("--build-arg", "build_args", multiple=True, help="KEY=VALUE, passed to the Dockerfile. Repeatable.")
@click.option("--no-cache", is_flag=True, help="Rebuild every layer.")
@click.option("--quiet", is_flag=True, help="Print only the build's step lines and the result.")
def images_build(platform, base, wheelhouse, agent_clis, network, tag, build_args, no_cache, quiet):
    """Build the PLATFORM image (offline when --wheelhouse is given)."""
    from runner.sandbox.images import BuildOptions, build
    extra = {}
    for item in build_args:
        if "=" not in item:
            _fail(f"--build-arg: {item!r} is not KEY=VALUE")
        key, value = item.split("=", 1)
        extra[key] = value

    def log(line):
        if not quiet or not line.startswith("  ") or line.lstrip().startswith(
                ("Step ", "install-", "ensure-", "create-user", "Successfully")):
            click.echo(line)
    try:
        ref = build(BuildOptions(platform=platform, base=base, wheelhouse=wheelhouse, agent_clis=agent_clis,
                                 network=network, tag=tag, build_args=extra, no_cache=no_cache), log=log)
    except Exception as exc:  # the engine's own message, one block
        _fail(str(exc))
    click.echo(ref)


@images.command("list")
def images_list():
    """The gauntlet images this engine holds, with what each contains."""
    import docker
    client = docker.from_env()
    for image in client.images.list(filters={"label": "gauntlet.image"}):
        click.echo(f"{', '.join(image.tags) or image.short_id:32s} {image.labels.get('gauntlet.image'):5s} "
                   f"base={image.labels.get('gauntlet.base')}")


@main.command()
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True,
              help="The device whose image must be present for a clean bill of health.")
def doctor(device):
    """Check the docker backend: engine, GPU runtime, images and their versions, agent CLIs."""
    import os
    problems = []

    def line(ok, what, detail=""):
        click.echo(f"{'ok ' if ok is True else ('-- ' if ok is None else 'BAD')} {what:28s} {detail}")
        if ok is False:
            problems.append(what)
    try:
        import docker
        client = docker.from_env(timeout=20)
        version = client.version()
        info = client.info()
        line(True, "engine", f"docker {version.get('Version')} (API {version.get('ApiVersion')}), "
             f"{info.get('Driver')}, cgroup v{info.get('CgroupVersion', '?')}")
    except Exception as exc:
        line(False, "engine", f"unreachable: {exc} (scripts/setup-docker.sh starts one)")
        sys.exit(1)
    dev = _device(device)
    runtimes = sorted((info.get("Runtimes") or {}).keys())
    import shutil
    nvidia = "nvidia" in runtimes or bool(shutil.which("nvidia-container-runtime-hook")) \
        or bool(shutil.which("nvidia-ctk"))
    line(nvidia if dev == "cuda" else (True if nvidia else None), "NVIDIA container runtime",
         "present" if nvidia else "absent (nvidia-container-toolkit)")
    from runner.sandbox.docker import amd_render_nodes, managed_containers
    kfd = os.path.exists("/dev/kfd")
    nodes = amd_render_nodes() if kfd else []
    line((kfd and bool(nodes)) if dev == "rocm" else (True if kfd else None), "AMD /dev/kfd + render nodes",
         f"{'/dev/kfd' if kfd else 'no /dev/kfd'}; {', '.join(nodes) or 'no AMD render node'}")
    from runner.sandbox.images import PLATFORMS, image_ref, manifest
    for platform in PLATFORMS:
        ref = image_ref(platform)
        try:
            client.images.get(ref)
        except Exception:
            line(False if platform == dev else None, f"image {ref}",
                 f"missing (gauntlet images build {platform})")
            continue
        m = manifest(client, ref) or {}
        clis = m.get("agent_clis") or {}
        line(True, f"image {ref}", f"python {m.get('python')} torch {m.get('torch')} triton {m.get('triton')} "
             f"node {m.get('node')}" + (f" nvcc {m['nvcc']}" if m.get("nvcc") else "")
             + (f" hipcc {m['hipcc']}" if m.get("hipcc") else ""))
        line(True if all(clis.values()) and clis else None, f"  agent CLIs in {platform}",
             ", ".join(f"{k} {v or 'absent'}" for k, v in clis.items()) or "none recorded")
    left = managed_containers(client)
    line(True if not left else None, "leftover containers", f"{len(left)}" + (" (gauntlet gc)" if left else ""))
    sys.exit(1 if problems else 0)


@main.command()
@click.option("--backend", type=click.Choice(["local", "docker", "all"]), default="all", show_default=True,
              help="local: processes and temp folders; docker: containers and networks.")
@click.option("--dry-run", is_flag=True, help="List what would be removed.")
@click.option("--workspaces", "run_dirs", multiple=True, type=click.Path(path_type=Path, file_okay=False, exists=True),
              help="Also remove the agents' workspaces (junk included) of this finished run dir; its "
                   "results, diffs and record.git stay. Repeatable.")
def gc(backend, dry_run, run_dirs):
    """Remove what runs that are no longer going left behind (a run whose run dir's lock a live
    process holds is spared): with docker, every container and network the runner created (label
    gauntlet.managed=true); locally, the processes that carry a run's marker and the run's temp
    folders ($TMPDIR/gauntlet-run-*). With --workspaces, the workspaces of finished runs."""
    from runner.run.layout import RunError, prune_workspaces, run_is_live
    removed = []
    for run_dir in run_dirs:
        try:
            removed += prune_workspaces(run_dir, dry_run=dry_run)
        except RunError as exc:
            _fail(str(exc))
    if backend in ("local", "all"):
        from runner.sandbox.local import gc as collect_local
        removed += collect_local(dry_run=dry_run, live=run_is_live)
    if backend in ("docker", "all"):
        from runner.sandbox.docker import gc as collect
        try:
            removed += collect(dry_run=dry_run, live=run_is_live)
        except Exception as exc:
            if backend == "docker":
                _fail(f"gc: {exc}")
            click.echo(f"gc: docker skipped ({str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__})",
                       err=True)
    for item in removed:
        click.echo(("would remove " if dry_run else "removed ") + item)
    click.echo(f"{len(removed)} {'to remove' if dry_run else 'removed'}")


if __name__ == "__main__":
    main()
