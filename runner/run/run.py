"""Run: a set of attempts (one agent x each selected task) in a run dir, resumable. Where things lie
in a run dir, and who may write it: runner/run/layout.py."""
from __future__ import annotations

import datetime as _dt
import errno
import os
import platform
import re
import secrets
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

from runner import __version__
from runner.agents.agent import (AgentSpec, AttemptContext, apply_solution, build_prompt, parse_output,
                                 render_command)
from runner.evaluator import gpulock
from runner.run.gpupool import GpuPool, visible_env
from runner.evaluator.isolation import HIDE_ENV
from runner.agents.gateway import open_gateway
from runner.agents.parsers import cap_log
from runner.results.result import MAX_SPEEDUP, UNRECORDED, AttemptResult, Evaluation, read_json, write_json
from runner.sandbox import Mount, ResourceLimits, SandboxesStopped, SandboxSpec, open_sandbox
from runner.sandbox import stop_all as stop_all_sandboxes, stopping as sandboxes_stopping
from runner.sandbox.docker import IMAGE_PYTHON, JUDGE_DIR
from runner.sandbox.local import phase_temp_dir, remove_run_temp
from runner.tasks import configspace
from runner.candidate import export_candidate
from runner.tasks.task import Config, Task, default_tasks_root
from runner.workspace import PatchError, Workspace, apply_patch, disarm_git, shown
from runner.resources import IMPORT_ROOT
from runner.sandbox.confine import NEVER_LABEL
from runner.run.layout import (RunError, RunLayout, attempt_dir_name, keep_previous, lock_run_dir, locked_run_dir,
                               read_manifest, tree_bytes)
from runner.sandbox.hostfs import MAX_DEPTH, prune_deep, remove_tree

EVAL_TIMEOUT_S = 1800
AGENT_GRACE_S = 10

# Progress within one attempt: called with a phase in words (drawing --unseen configs, agent started,
# agent done, evaluating) so a log has no silent gap of a whole attempt; the CLI shows it.
PhaseCallback = Callable[[str], None]


def no_phase(text: str) -> None:
    pass


class EvaluatorFailed(RuntimeError):
    """The evaluator died or could not start (killed by the OOM killer, an interpreter it cannot
    execute, no verdict written): the harness failed, not the candidate. The attempt is an
    infra_error, which --resume redoes; never the agent's compile failure."""


# OSError numbers that are the host's state (its disk, memory, file table), whatever data was handled
HOST_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS, errno.ENOMEM, errno.EMFILE,
                         errno.ENFILE})


def harness_fault(exc: BaseException) -> bool:
    """Whether an exception raised while reading what the agent left (its output, its workspace) is
    the harness's failure: the host ran out of something (HOST_ERRNOS, MemoryError), a sandbox or the
    judge failed, the sandboxes were stopped. Anything else there (a name or byte the code did not
    expect, an event of an odd shape) is a defect the agent's data found: noted in the result, and the
    attempt goes on to its verdict, so it is neither a free retry (infra_error) nor lost work."""
    from runner.sandbox.confine import BindRefused
    if isinstance(exc, (MemoryError, EvaluatorFailed, BindRefused, SandboxesStopped)):
        return True
    return isinstance(exc, OSError) and exc.errno in HOST_ERRNOS


# Exit codes of a command the sandbox could not start: not found, found but not executable (POSIX shells).
NOT_STARTED_EXIT_CODES = (126, 127)


@dataclass
class RunOptions:
    agent: AgentSpec
    device: str
    backend: str = "local"
    budget_s: float = 1800.0
    eval_timeout_s: float = EVAL_TIMEOUT_S
    tasks_root: Path = field(default_factory=default_tasks_root)
    # GAUNTLET_MODEL / _MAX_TURNS / _EFFORT / _API_RETRIES for the agent's command (cli AGENT_CLI_OPTIONS)
    agent_env: dict[str, str] = field(default_factory=dict)
    # how the evaluator times (runner/evaluator/timing.py): the same for baseline and candidate
    timing_regime: str = "cold"
    graph: bool = False
    max_speedup: float = MAX_SPEEDUP
    # --unseen N --seed S: N configs drawn per task from its [space] (runner/tasks/configspace.py)
    unseen: int = 0
    seed: int = 0
    # `--agent a --agent b`: the agents after the first (one comparable report, per-agent rows)
    more_agents: tuple[AgentSpec, ...] = ()
    # --jobs: how many attempts run at once (sizes each agent's CPU share; not part of the identity)
    jobs: int = 1
    # --agent-gpu: "shared" (agents test round robin on the pool's devices) or "exclusive" (an agent
    # holds its device alone, as an evaluation does); not part of the identity, like jobs
    agent_gpu: str = "shared"

    @property
    def agents(self) -> tuple[AgentSpec, ...]:
        return (self.agent, *self.more_agents)

    def for_agent(self, spec: AgentSpec) -> "RunOptions":
        """The options of one attempt: this agent alone."""
        return replace(self, agent=spec, more_agents=())

    def identity(self) -> dict:
        """What must match for --resume to continue a run rather than start a different one
        (not the number of attempts per task: a resumed run may add repeats)."""
        several = ({"more_agents": [{"agent": a.name, "agent_command": a.command} for a in self.more_agents]}
                   if self.more_agents else {})
        return {"agent": self.agent.name, "agent_command": self.agent.command, **several, "device": self.device,
                "backend": self.backend, "budget_s": self.budget_s, "agent_env": dict(sorted(self.agent_env.items())),
                "timing_regime": self.timing_regime, "graph": self.graph, "max_speedup": self.max_speedup,
                **({"unseen": self.unseen, "seed": self.seed} if self.unseen else {})}

    def evaluator_args(self) -> list[str]:
        return (["--regime", self.timing_regime, "--max-speedup", repr(self.max_speedup)]
                + (["--graph"] if self.graph else []))


def parse_duration(text: str) -> float:
    """'90' / '90s' / '30m' / '1h30m' -> seconds."""
    match = re.fullmatch(r"\s*(?:(\d+(?:\.\d+)?)h)?\s*(?:(\d+(?:\.\d+)?)m)?\s*(?:(\d+(?:\.\d+)?)s?)?\s*", text)
    if not text.strip() or not match or not any(match.groups()):
        raise ValueError(f"{text!r} is not a duration (examples: 600, 90s, 30m, 1h)")
    h, m, s = (float(g) if g else 0.0 for g in match.groups())
    total = h * 3600 + m * 60 + s
    if total <= 0:
        raise ValueError(f"{text!r} is no time at all (the agent's budget must be more than 0)")
    return total


def detect_device() -> str:
    """cuda if an NVIDIA GPU answers, rocm if an AMD one does, else cpu. Never imports torch."""
    from runner.run.preflight import device_present
    return next(d for d in ("cuda", "rocm", "cpu") if device_present(d))


@dataclass(frozen=True, eq=False)   # hashed by identity: a Task holds dicts
class AttemptKey:
    """One attempt of a run: an agent on a task, the k-th time (k from 0)."""
    task: Task
    agent: AgentSpec
    k: int = 0

    def label(self) -> str:
        return f"{self.task.id}" + (f" k{self.k}" if self.k else "") + f" ({self.agent.name})"


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def suite_commit(repo_root: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(repo_root), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(repo_root), "status", "--porcelain", "--", "tasks", "runner"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "") if out.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def versions(device: str) -> dict:
    """Versions of what shapes the numbers; torch/triton asked of a subprocess (never imported here)."""
    info = {"gauntlet": __version__, "python": platform.python_version(), "platform": platform.platform()}
    probe = ("import json,torch\nv={'torch':torch.__version__}\n"
             "try:\n import triton; v['triton']=triton.__version__\nexcept Exception: pass\n"
             "if torch.cuda.is_available():\n p=torch.cuda.get_device_properties(0); v['gpu']=p.name\n"
             " v['cuda']=torch.version.cuda; v['hip']=getattr(torch.version,'hip',None)\n"
             "print(json.dumps(v))")
    try:
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
        if out.returncode == 0:
            import json
            info.update(json.loads(out.stdout.strip().splitlines()[-1]))
    except (OSError, subprocess.TimeoutExpired, ValueError):
        pass
    from runner.evaluator.build import compiler_versions
    info.update(compiler_versions())
    return info


def replay_patch(spec: AgentSpec, task_id: str) -> str | None:
    """The patch to replay for this task: the file itself, or that task's diff in an earlier run."""
    source = spec.replay_from
    if source.is_file():
        return source.read_bytes().decode("utf-8", "surrogateescape")
    patch = source / "attempts" / attempt_dir_name(task_id) / "diff.patch"
    return patch.read_bytes().decode("utf-8", "surrogateescape") if patch.is_file() else None


class Run:
    def __init__(self, run_dir: Path, options: RunOptions, tasks: list[Task], resume: bool = False,
                 attempts: int = 1, gpus: GpuPool | None = None):
        self.dir = Path(run_dir)
        self.options = options
        self.repeats = attempts
        self.gpus = gpus
        # Fail fast (missing API key or agent CLI) before any attempt or sandbox starts.
        from runner.agents.gateway import GatewayError, preflight
        try:
            for spec in options.agents:
                preflight(spec, options.backend)
        except GatewayError as exc:
            raise RunError(str(exc)) from None
        if options.backend == "local":   # an agent that runs a command runs only where it is contained
            from runner.sandbox.confine import refusal
            refused = next((why for why in map(refusal, (a.kind for a in options.agents)) if why), None)
            if refused:
                raise RunError(refused)
        names = [a.name for a in options.agents]
        if len(set(names)) != len(names):
            raise RunError(f"--agent: {', '.join(sorted({n for n in names if names.count(n) > 1}))} named twice")
        if any(spec.kind == "oracle" for spec in options.agents):
            bare = [t.id for t in tasks if not t.solution_files()]
            if bare:
                raise RunError(f"--agent oracle: {', '.join(bare)} ship(s) no solution/ for the oracle to "
                               "apply; choose --tasks that do (`gauntlet tasks show` says)")
        self.layout = RunLayout(self.dir, several_agents=len(options.agents) > 1)
        self.unreadable: dict[Path, str] = {}   # result.json files resume could not read (redone)
        self.tasks = tasks
        if options.unseen:
            bare = [t.id for t in tasks if t.space is None]
            if bare:
                raise RunError(f"--unseen: {', '.join(bare)} declare(s) no [space] to draw configs from "
                               "(docs/task-format.md)")
        self.manifest_path = self.dir / "manifest.json"
        if resume and not self.manifest_path.exists():
            raise RunError(f"--resume: {self.dir} holds no run (no manifest.json); drop --resume to start one")
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunError(f"--out: {self.dir} cannot hold a run ({exc.strerror or exc})") from None
        self.lock = lock_run_dir(self.dir)
        # Attempts run in threads (--jobs): the manifest is written by one at a time, and a task's
        # configs are drawn once however many of its attempts ask at once.
        self._manifest_lock = threading.Lock()
        self._draw_locks: dict[str, threading.Lock] = {t.id: threading.Lock() for t in tasks}
        if self.manifest_path.exists():
            if not resume:
                raise RunError(f"{self.dir}: already holds a run; pass --resume to continue it or choose another --out")
            previous = read_manifest(self.manifest_path)
            if previous.get("options") != options.identity():
                raise RunError(f"{self.manifest_path}: options: --resume needs the options this run was "
                               f"started with; {_options_differ(previous.get('options'), options.identity())}")
            self.manifest = previous
            self._clean_leftovers()
        else:
            self.manifest = {"options": options.identity(), "started": now(), "finished": None,
                             "tasks": [t.id for t in tasks], "tasks_root": str(options.tasks_root.resolve()),
                             "suite_commit": suite_commit(options.tasks_root.parent),
                             "versions": versions(options.device), "runs": []}
        self.manifest["tasks"] = sorted(set(self.manifest.get("tasks", [])) | {t.id for t in tasks})
        self.manifest["attempts_per_task"] = max(attempts, self.manifest.get("attempts_per_task", 1))
        session = {"started": now(), "argv": sys.argv, **({"gpus": gpus.names} if gpus else {})}
        if options.backend == "docker":   # which image, by content id: a rebuilt tag is a different image
            from runner.sandbox.images import image_identity
            try:
                session["image"] = image_identity(options.device)
            except LookupError as exc:
                raise RunError(str(exc)) from None
            self.manifest.setdefault("image", session["image"])
        self.manifest["runs"] = self.manifest.get("runs", []) + [session]
        write_json(self.manifest_path, self.manifest)

    def _clean_leftovers(self) -> None:
        """A runner killed with SIGKILL cannot stop its sandboxes or remove its temp folders; the
        resumed run does."""
        remove_run_temp(self.dir)
        if self.options.backend == "local":
            from runner.sandbox.local import kill_leftovers
            kill_leftovers(self.run_id)
        elif self.options.backend == "docker":  # remove this run's leftover containers
            from runner.sandbox.docker import kill_leftovers as remove_leftover_containers
            remove_leftover_containers(self.run_id)

    @property
    def run_id(self) -> str:
        return str(self.dir.resolve())

    def keys(self) -> list[AttemptKey]:
        """Every attempt of the run: each task, each agent, `attempts` times."""
        return [AttemptKey(t, a, k) for t in self.tasks for a in self.options.agents for k in range(self.repeats)]

    def attempt_dir(self, task: Task, agent: AgentSpec | None = None, k: int = 0) -> Path:
        return self.layout.attempt_dir(task.id, (agent or self.options.agent).name, k)

    def finished(self, key: AttemptKey) -> bool:
        """A result.json that records no infra_error (one that does, or cannot be read, is redone)."""
        path = self.attempt_dir(key.task, key.agent, key.k) / "result.json"
        if not path.is_file():
            return False
        try:
            status = read_json(path).get("status")
        except (OSError, ValueError, AttributeError) as exc:
            self.unreadable[path] = f"{type(exc).__name__}: {exc}"
            return False
        return status != "infra_error"

    def pending(self) -> list[AttemptKey]:
        return [key for key in self.keys() if not self.finished(key)]

    def drawn_configs(self, task: Task, on_phase: PhaseCallback = no_phase) -> list[Config]:
        """--unseen N: the task's drawn configs, from the manifest if this run already drew them
        (a resumed run and `gauntlet eval` reuse exactly those); else drawn now (2N candidates),
        filtered by the baseline in an evaluation sandbox, and recorded in the manifest."""
        if not self.options.unseen:
            return []
        with self._draw_locks.setdefault(task.id, threading.Lock()):
            if task.id not in self.manifest.get("drawn_configs", {}):
                on_phase(f"drawing {2 * self.options.unseen} candidate configs from [space] "
                         f"(seed {self.options.seed}) and checking the baseline on them")
                record = draw_and_filter(task, self.dir / "drawn" / attempt_dir_name(task.id), self.options)
                with self._manifest_lock:
                    self.manifest.setdefault("drawn_configs", {})[task.id] = record
                    write_json(self.manifest_path, self.manifest)
        return recorded_drawn_configs(self.manifest, task.id)

    def close(self) -> None:
        with self._manifest_lock:
            self.manifest["finished"] = now()
            write_json(self.manifest_path, self.manifest)
        self.release()

    def release(self) -> None:
        """Remove the run's temp folders and drop its lock: on a normal end, SIGINT and SIGTERM."""
        remove_run_temp(self.dir)
        self.lock.close()

    def attempt(self, task: Task, agent: AgentSpec | None = None, k: int = 0,
                on_phase: PhaseCallback = no_phase) -> AttemptResult:
        """One attempt from scratch; writes result.json last (a killed attempt is simply redone)."""
        spec = agent or self.options.agent
        adir = self.attempt_dir(task, spec, k)
        try:
            drawn = self.drawn_configs(task, on_phase)  # drawn and filtered before the agent starts, kept in the manifest
        except Exception as exc:  # infrastructure: recorded, and the run goes on
            return Attempt(task, self.options.for_agent(spec), adir, k, self.run_id).failed(exc)
        return Attempt(task, self.options.for_agent(spec), adir, k, self.run_id, drawn, self.gpus,
                       on_phase=on_phase).run()

    def execute(self, keys: list[AttemptKey], jobs: int = 1, on_start=None, on_done=None,
                on_phase=None) -> list[AttemptResult]:
        """Run `keys`, `jobs` at a time. Threads suffice: each attempt's work is in child processes
        (sandboxes, the judge); a thread only waits on them. `on_start(key)` / `on_phase(key, text)` /
        `on_done(key, result)` are called from the attempt's thread."""
        def one(key: AttemptKey) -> AttemptResult:
            if on_start:
                on_start(key)
            result = self.attempt(key.task, key.agent, key.k,
                                  on_phase=(lambda text: on_phase(key, text)) if on_phase else no_phase)
            if on_done:
                on_done(key, result)
            return result
        if jobs <= 1:
            return [one(key) for key in keys]
        with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="attempt") as pool:
            futures = [pool.submit(one, key) for key in keys]
            try:
                return [f.result() for f in as_completed(futures)]
            except BaseException:
                # SIGTERM (SystemExit) or SIGINT lands in this thread; the attempts' threads wait on
                # sandboxes: stop them all, or the pool's exit waits out every agent's budget
                for future in futures:
                    future.cancel()
                stop_all_sandboxes()
                raise


@dataclass
class Attempt:
    """One attempt's work, given everything it needs: runs in the runner's thread or, under
    `--executor ray`, in a Ray worker on another machine (so it holds no lock and writes no manifest)."""
    task: Task
    options: RunOptions            # for_agent(): this attempt's agent only
    dir: Path
    k: int
    run_id: str
    drawn: list[Config] = field(default_factory=list)
    gpus: GpuPool | None = None
    # the runner's thread only: a Ray worker reports no phases (the driver shows start and done)
    on_phase: PhaseCallback = no_phase
    # steps over the agent's data that failed and were passed over (Attempt._kept)
    notes: list[str] = field(default_factory=list)
    # folders nested past hostfs.MAX_DEPTH in the agent's workspace, removed (Attempt._prune_deep)
    pruned: list[str] = field(default_factory=list)

    def failed(self, exc: Exception) -> AttemptResult:
        result = self._new_result()
        result.status, result.error = "infra_error", f"{type(exc).__name__}: {exc}"
        return self._finish(result)

    def _new_result(self) -> AttemptResult:
        if self.dir.exists():
            remove_tree(self.dir)  # an unfinished attempt from a killed run
        self.dir.mkdir(parents=True)
        origin = self.task.origin
        return AttemptResult(task=self.task.id, category=self.task.category, agent=self.options.agent.name,
                             device=self.options.device, status="ok", attempt=self.k, started=now(),
                             suites=list(self.task.suites), origin=asdict(origin) if origin else None)

    def _finish(self, result: AttemptResult) -> AttemptResult:
        if sandboxes_stopping():    # its agent or judge was stopped mid-way: no result, --resume redoes it
            raise SandboxesStopped(f"{self.task.id}: interrupted")
        if self.notes:
            result.error = "; ".join([*([result.error] if result.error else []), *self.notes])
        result.finished = now()
        write_json(self.dir / "result.json", result.to_dict())
        return result

    def run(self) -> AttemptResult:
        result = self._new_result()
        try:
            self.on_phase(f"agent {self.options.agent.name} started (budget {self.options.budget_s:.0f} s)")
            self._agent_phase(result)
            self.on_phase(f"agent done: {result.status} in {result.agent_seconds or 0:.0f} s, "
                          f"{len(result.changed_files)} file(s) changed")
            recorded = (self.dir / "diff.patch").is_file()   # else what changed is unknown: evaluated
            if result.status == "agent_error" and not result.changed_files and recorded:
                # What an evaluation would judge is the task as shipped, which an X->X task's
                # baseline passes: no work of the agent's, so nothing to evaluate (score.produced).
                if result.agent_exit_code in NOT_STARTED_EXIT_CODES:
                    result.agent_failure = "not_started"
                result.error = (f"the agent failed (exit {result.agent_exit_code}"
                                + (": its command could not start" if result.agent_failure == "not_started" else "")
                                + ") and changed nothing: not evaluated")
                return self._finish(result)
            self.on_phase("evaluating (compile, correctness, timing)")
            self._evaluate(result)
        except Exception as exc:  # infrastructure: recorded, and the run goes on
            if sandboxes_stopping():   # SIGTERM/SIGINT stopped its sandboxes: unfinished, redone by --resume
                raise
            result.status = "infra_error"
            result.error = f"{type(exc).__name__}: {exc}"
        return self._finish(result)

    # -- agent phase -----------------------------------------------------------------------------
    def _agent_phase(self, result: AttemptResult) -> None:
        task, adir = self.task, self.dir
        workspace = Workspace(adir / "workspace", task)
        workspace.prepare()
        agent_dir = adir / "agent"
        agent_dir.mkdir()
        spec, budget = self.options.agent, self.options.budget_s
        deadline = time.time() + budget
        # shared unless asked: agents time nothing that is scored
        holding = self.gpus.agent(self.options.agent_gpu == "exclusive") if self.gpus else nullcontext(None)
        with holding as gpu, open_gateway(spec, agent_dir, self.options.backend, locked_run_dir(self.dir)) as gateway:
            sandbox = open_sandbox(self.options.backend, SandboxSpec(
                role="agent", platform=self.options.device, workdir=workspace.path,
                mounts=(Mount(agent_dir, "/gauntlet/agent", read_only=True), *gateway.mounts),
                env={"GAUNTLET_DEADLINE_EPOCH": str(int(deadline)), "GAUNTLET_BUDGET_S": str(int(budget)),
                     **self.options.agent_env, **self._required_env(spec), **gateway.env,
                     **(visible_env(self.options.device, gpu) if self.options.backend == "local" else {})},
                gpu_ids=(gpu,) if gpu and self.options.device != "cpu" else (),
                network=gateway.network, limits=ResourceLimits.for_agents(self.options.jobs),
                tmp_dir=phase_temp_dir(adir.parent.parent, adir.name, "agent") if self.options.backend == "local" else None,
                labels={"gauntlet.task": task.id, "gauntlet.run": self.run_id,
                        NEVER_LABEL: self._never_folders()}))
            outcome = self._run_agent(spec, sandbox, workspace, agent_dir, budget, deadline, result,
                                      wrap=gateway.argv_prefix)  # the in-sandbox gateway forwarder, if any
        # What follows reads what the agent left. A step that fails on it is noted and the others
        # still run (harness_fault: the host's own failures alone stop the attempt as infra_error).
        if outcome is not None:
            # read once the gateway has closed: a request the budget cut off has recorded itself by now
            self._kept("reading the agent's output", result, self._classify, spec, agent_dir, outcome, result)
        self._kept("pruning the workspace's deepest folders", result, self._prune_deep, workspace)
        recorded = self._kept("recording the agent's changes", result, self._record_changes, workspace, result)
        if not recorded:     # no diff, no record: nothing an auditor or `gauntlet eval` could read back
            result.flags.append(f"{UNRECORDED}: the agent's changes could not be recorded (harness-notes.txt): "
                                "an attempt with no record of its diff does not pass")
        self._kept("disarming the workspace's git", result, disarm_git, workspace.path)
        result.violations = sorted({*result.violations, *self.pruned})

    def _never_folders(self) -> str:
        """What the agent's sandbox must never bind (runner/sandbox/confine.py): the tasks root, each
        folder of this task, the run's output dir."""
        folders = [self.options.tasks_root, self.task.root, *self.task.bases, Path(self.run_id)]
        return os.pathsep.join(dict.fromkeys(str(Path(f).resolve()) for f in folders))

    def _prune_deep(self, workspace: Workspace) -> None:
        """Folders nested past hostfs.MAX_DEPTH are removed before anything walks the workspace (a
        tree 1,500 deep hid an agent's diff from its record and the audit: red team, session 27);
        each is a violation the audit quotes."""
        self.pruned = [f"{shown(rel)} (folders nested past {MAX_DEPTH} levels: removed before the workspace "
                       "was recorded)" for rel in prune_deep(workspace.path)]

    def _record_changes(self, workspace: Workspace, result: AttemptResult) -> None:
        adir = self.dir
        changes = workspace.finalize(adir / "record.git")
        result.changed_files, result.violations = changes.changed_files, changes.violations
        (adir / "diff.patch").write_bytes(changes.patch_bytes())     # git's bytes: any name, any encoding
        result.workspace_bytes = tree_bytes(workspace.path)

    def _kept(self, what: str, result: AttemptResult, step, *args) -> bool:
        """Run one step over the agent's data; an exception that is not the harness's (harness_fault)
        is written to harness-notes.txt and the result's error, and the attempt goes on. True when
        the step succeeded."""
        try:
            step(*args)
            return True
        except Exception as exc:
            if harness_fault(exc) or sandboxes_stopping():
                raise
            line = f"{what} failed ({type(exc).__name__}: {str(exc)[:300]}); the workspace and logs are kept"
            with open(self.dir / "harness-notes.txt", "a", encoding="utf-8", errors="backslashreplace") as fh:
                fh.write(line + "\n")
            self.notes.append(line)
            return False

    @staticmethod
    def _required_env(spec: AgentSpec) -> dict[str, str]:
        """An agent without a gateway gets the host variables its file names in env.required, and
        no other (the sandbox passes an allowlist); with a gateway the real key stays on the host."""
        if spec.gateway:
            return {}
        return {k: os.environ[k] for k in spec.env_required if k in os.environ}

    def _run_agent(self, spec, sandbox, workspace, agent_dir, budget, deadline, result, wrap=()):
        """The agent's phase in its sandbox; a command agent's ExecResult (None for the built-ins)."""
        task = self.task
        outcome = None
        try:
            prompt_path = agent_dir / "prompt.md"
            # an absolute interpreter: login shells (`bash -lc`, Codex) reset PATH. Locally this one
            # (the venv's); in an image the one scripts/images/install-python.sh puts there
            python = sys.executable if self.options.backend == "local" else IMAGE_PYTHON
            check = (f"{python} -m runner.evaluator {sandbox.path(workspace.path)} --workspace "
                     f"--device {self.options.device} --split seen")
            prompt_path.write_text(build_prompt(task, budget, deadline, check, self.options.device, python,
                                                task.speedup_limit(self.options.max_speedup)))
            ctx = AttemptContext(task_id=task.id, workspace=workspace.path,
                                 workspace_in_sandbox=sandbox.path(workspace.path), prompt_file=prompt_path,
                                 prompt_in_sandbox=sandbox.path(prompt_path), budget_s=budget,
                                 deadline_epoch=deadline, solution=task.solution_files())
            started = time.monotonic()
            if spec.kind == "oracle":
                if not ctx.solution:
                    raise RuntimeError(f"{task.id} has no solution for the oracle")
                apply_solution(ctx)
            elif spec.kind == "replay":
                patch = replay_patch(spec, task.id)
                if patch is None:
                    raise RuntimeError(f"{spec.replay_from} holds no diff for {task.id}")
                apply_patch(workspace.path, patch)
            elif spec.kind == "command":
                outcome = sandbox.exec([*wrap, *render_command(spec, ctx)], timeout=budget, grace=AGENT_GRACE_S,
                                       env=spec.env_set, stdout=agent_dir / "stdout.log",
                                       stderr=agent_dir / "stderr.log")
                result.agent_exit_code = outcome.returncode
                result.agent_containment, result.agent_limits = outcome.containment, outcome.limits
            result.agent_seconds = round(time.monotonic() - started, 3)
        finally:
            sandbox.stop()  # every process of the agent is dead before anything is read
        return outcome

    def _classify(self, spec, agent_dir: Path, outcome, result: AttemptResult) -> None:
        """Status and failure class from the exit, the CLI's output and the gateway's records."""
        if outcome.timed_out:
            result.status = "agent_timeout"
        elif outcome.returncode != 0:
            result.status = "agent_error"
        report = parse_output(spec, agent_dir, outcome.timed_out, outcome.returncode)
        for log in ("stdout.log", "stderr.log"):    # parsed in full above; kept bounded on disk
            cap_log(agent_dir / log)
        result.agent_failure, result.usage, result.cost_usd = report.failure, report.usage, report.cost_usd
        result.usage_source = report.usage_source
        if report.parse_error:
            self.notes.append(f"the agent's output was read as plain text ({report.parse_error})")
        if report.claimed_failure:
            self.notes.append(f"the agent's output claimed {report.claimed_failure}; the model gateway "
                              "recorded no such failure: not an infra_error")
        if report.retryable:     # the model API failed (or refused), not the agent: even at the budget
            result.status = "infra_error"

    # -- evaluation phase ------------------------------------------------------------------------
    def _evaluate(self, result: AttemptResult) -> None:
        candidate = self.dir / "candidate"
        export_candidate(self.dir / "workspace", self.task.editable, candidate)   # deny by default
        if self.gpus is None:
            evaluation = self._timed_evaluation(candidate, None, result)
        else:
            with self.gpus.evaluation() as gpu:     # this GPU is the evaluation's alone until it ends
                evaluation = self._timed_evaluation(candidate, gpu, result)
        result.apply(evaluation)
        result.eval_seconds = evaluation_seconds(self.dir)

    def _timed_evaluation(self, candidate: Path, gpu: str | None, result: AttemptResult) -> Evaluation:
        """The evaluation, with its wall-clock window and device in the result (epoch seconds: two
        attempts' windows on one GPU never overlap, which tests and users can check)."""
        result.gpu = gpu
        result.eval_started = time.time()
        try:
            return evaluate_candidate(self.task, candidate, self.dir, self.options, drawn=self.drawn, gpu=gpu)
        finally:
            result.eval_finished = time.time()


def evaluate_candidate(task: Task, candidate: Path | None, adir: Path, options: RunOptions,
                       drawn: list[Config] = (), baseline_only: bool = False, gpu: str | None = None) -> Evaluation:
    """Run the judge (runner/evaluator) in a fresh sandbox of its own; read back only its JSON. `drawn`
    configs are evaluated as the extra split "drawn"; `candidate` None with `baseline_only`: the
    baseline filter of drawn configs. The judge starts the kernel runners itself, each in a sandbox of
    its own (runner/evaluator/isolation.py); with the local backend it is told to hide the run dir
    from them too. `gpu`: the pool's device for this evaluation alone (GpuPool), else every visible one."""
    eval_dir = adir / "eval"
    if eval_dir.exists():
        remove_tree(eval_dir)
    eval_dir.mkdir()
    local = options.backend == "local"
    judge_dir = "/gauntlet" if local else JUDGE_DIR     # under a 0700 tmpfs in a container
    extra_mounts, extra_args = [], []
    repo = IMPORT_ROOT
    env = ({"PYTHONPATH": str(repo), HIDE_ENV: str(adir.parent.parent.resolve()), **visible_env(options.device, gpu)}
           if local else {})
    if options.device != "cpu" and not local:
        # one GPU lock folder for every evaluation container and local process (gpulock.py)
        host_locks = gpulock.lock_dir()
        host_locks.mkdir(parents=True, exist_ok=True)
        extra_mounts.append(Mount(host_locks, "/gauntlet/locks", read_only=False))
        env[gpulock.LOCK_DIR_ENV] = "/gauntlet/locks"
    if candidate is not None:
        extra_mounts.append(Mount(candidate, f"{judge_dir}/candidate"))
    if drawn:
        drawn_file = adir / "drawn-configs.toml"
        drawn_file.write_text(configspace.to_toml(list(drawn)))
        extra_mounts.append(Mount(drawn_file, f"{judge_dir}/drawn-configs.toml"))
    if baseline_only:
        extra_args = ["--baseline-only", "--no-timing", "--split", "drawn"]
    root = options.tasks_root.resolve()
    run_dir = adir.parent.parent
    sandbox = open_sandbox(options.backend, SandboxSpec(
        role="eval", platform=options.device, workdir=eval_dir, workdir_target=f"{judge_dir}/eval",
        mounts=(Mount(root, f"{judge_dir}/tasks"), *extra_mounts),
        env=env, gpu_ids=(gpu,) if gpu and options.device != "cpu" and not local else (),
        tmp_dir=phase_temp_dir(run_dir, adir.name, "eval") if local else None,
        labels={"gauntlet.task": task.id, "gauntlet.run": str(run_dir.resolve())}))
    out = eval_dir / "evaluation.json"
    task_in = sandbox.path(task.root)
    argv = [sys.executable if local else "python3", "-m", "runner.evaluator", task_in,
            "--tasks-root", sandbox.path(root),
            *(["--candidate", sandbox.path(candidate)] if candidate is not None else []),
            *(["--configs", sandbox.path(drawn_file)] if drawn else []), *extra_args,
            "--device", options.device, "--out", sandbox.path(out), *options.evaluator_args(),
            "--nonce-stdin"]
    # The judge reads this nonce from stdin before any kernel runner exists and echoes it in its
    # JSON; no runner can read the judge's stdin or write its folder, and a file without the nonce
    # is not the judge's.
    nonce = secrets.token_hex(16)
    started = time.monotonic()
    try:
        outcome = sandbox.exec(argv, timeout=options.eval_timeout_s, grace=5, stdin=(nonce + "\n").encode(),
                               stdout=eval_dir / "stdout.log", stderr=eval_dir / "stderr.log")
    finally:
        sandbox.stop()      # every process of the evaluation is dead before its verdict is read
    (eval_dir / "seconds").write_text(f"{time.monotonic() - started:.3f}\n")
    if outcome.timed_out:
        return Evaluation(device=options.device, compiled=False,
                          error=f"evaluation exceeded {options.eval_timeout_s:.0f} s and was killed")
    if outcome.returncode != 0 or not out.is_file():
        # The judge exits 0 whatever the candidate did (its kernels run in runner processes of their
        # own): a non-zero exit, a signal or no verdict is the harness's failure.
        tail = (eval_dir / "stderr.log").read_text(errors="replace")[-2000:].strip()
        how = (f"was killed by signal {-outcome.returncode}" if outcome.returncode < 0
               else f"exited with {outcome.returncode}" + ("" if outcome.returncode else " and wrote no verdict"))
        raise EvaluatorFailed(f"the evaluator {how}" + (f": {tail}" if tail else ""))
    return read_verdict(out, nonce, options.device, adir / "evaluation.json")


def read_verdict(path: Path, nonce: str, device: str, keep: Path) -> Evaluation:
    """The judge's JSON, re-verified: it carries the nonce, parses into the record, and its derived
    numbers agree with its own rows (a speedup is baseline_ms / candidate_ms of a correct row)."""
    def rejected(why: str) -> Evaluation:
        return Evaluation(device=device, compiled=False, flags=[f"fake_results: {why}"], error=why)
    try:
        data = read_json(path)
        evaluation = Evaluation.from_dict(data)
    except (OSError, ValueError, TypeError) as exc:   # no runner can write it: the judge's own failure
        raise EvaluatorFailed(f"unreadable evaluation.json: {exc}") from None
    if evaluation.nonce != nonce:
        return rejected("evaluation.json was not written by the evaluator (nonce missing or wrong)")
    for row in evaluation.configs:
        if row.speedup is not None and not (row.correct and row.baseline_ms and row.candidate_ms and
                                            abs(row.speedup - row.baseline_ms / row.candidate_ms) <= 1e-6 * row.speedup):
            return rejected(f"config {row.config}: speedup {row.speedup} disagrees with its own times")
    evaluation.nonce = None
    shutil.copyfile(path, keep)
    return evaluation


def draw_and_filter(task: Task, work_dir: Path, options: RunOptions) -> dict:
    """Draw 2N candidate configs, check the baseline on each (evaluator, --baseline-only), keep N
    that it passes (round-robin over the tags). The manifest record of one task."""
    n = options.unseen
    candidates = configspace.draw(task, 2 * n, options.seed, options.device)
    if work_dir.exists():
        remove_tree(work_dir)
    work_dir.mkdir(parents=True)
    evaluation = evaluate_candidate(task, None, work_dir, options, drawn=candidates, baseline_only=True)
    rows = {r.config: r for r in evaluation.split("drawn")}
    if evaluation.error or len(rows) != len(candidates):
        raise RuntimeError(f"baseline check of the drawn configs failed: {evaluation.error or 'configs missing'}")
    passed = {name: bool(row.baseline_correct) for name, row in rows.items()}
    kept = configspace.select(candidates, passed, n)
    kept_names = {c.name for c in kept}
    rejected = [{**configspace.to_record(c), "reason": rows[c.name].error or "baseline failed"}
                for c in candidates if not passed[c.name]]
    return {"n": n, "seed": options.seed, "device": options.device, "candidates": len(candidates),
            "configs": [configspace.to_record(c) for c in kept],
            "rejected": rejected,
            "unused": [c.name for c in candidates if passed[c.name] and c.name not in kept_names]}


def recorded_drawn_configs(manifest: dict, task_id: str) -> list[Config]:
    """The drawn configs a run recorded for a task (none if it drew none)."""
    recorded = (manifest.get("drawn_configs") or {}).get(task_id)
    return [configspace.from_record(r) for r in recorded["configs"]] if recorded else []


def evaluation_seconds(adir: Path) -> float | None:
    try:
        return float((adir / "eval" / "seconds").read_text())
    except (OSError, ValueError):
        return None


# identity() keys -> the `gauntlet run` option that sets them (the message names what to change)
IDENTITY_FLAGS = {"agent": "--agent", "agent_command": "--command", "more_agents": "--agent", "device": "--device",
                  "backend": "--backend", "budget_s": "--budget", "agent_env": "--model/--max-turns/--effort/--api-retries",
                  "timing_regime": "--timing-regime", "graph": "--graph", "max_speedup": "--max-speedup",
                  "unseen": "--unseen", "seed": "--seed"}


def _options_differ(started, now_given: dict) -> str:
    """Which options differ, one clause each with both values (agent_env by names only: its values may
    be secrets)."""
    if not isinstance(started, dict):
        return "its manifest records none"
    clauses = []
    for key in sorted(set(started) | set(now_given)):
        was, now_value = started.get(key), now_given.get(key)
        if was == now_value:
            continue
        if key == "agent_env":
            was, now_value = sorted(was or {}), sorted(now_value or {})
        flag = IDENTITY_FLAGS.get(key)
        clauses.append(f"{key}{f' ({flag})' if flag else ''} was {was!r}, now {now_value!r}")
    return "; ".join(clauses) + " (leave an option out to keep the run's own)"


def reevaluate(run_dir: Path, options: RunOptions, tasks: dict[str, Task], progress=None,
               on_phase=None, skipped: list | None = None) -> list[AttemptResult]:
    """`gauntlet eval`: rebuild each attempt's candidate from its saved diff.patch and evaluate again,
    keeping the result it replaces (keep_previous). `on_phase(label, text)` before each evaluation,
    `progress(result)` after it. An attempt without a diff.patch (an infra error before its agent
    ran) keeps its result as it is and is named in `skipped`; the others are still re-evaluated."""
    manifest_path = Path(run_dir) / "manifest.json"
    if not manifest_path.is_file():
        raise RunError(f"{run_dir}: holds no run (no manifest.json)")
    manifest = read_manifest(manifest_path)
    lock = lock_run_dir(Path(run_dir))
    try:
        return _reevaluate_all(run_dir, options, tasks, manifest, progress, on_phase,
                               skipped if skipped is not None else [])
    finally:
        remove_run_temp(run_dir)
        lock.close()


def _reevaluate_all(run_dir: Path, options: RunOptions, tasks: dict[str, Task], manifest: dict,
                    progress, on_phase, skipped: list) -> list[AttemptResult]:
    results = []
    for result_path in RunLayout(Path(run_dir)).result_paths():
        adir = result_path.parent
        try:
            old = AttemptResult.from_dict(read_json(result_path))
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            raise RunError(f"{result_path}: not a readable result ({type(exc).__name__}: {str(exc)[:120]})") from None
        task = tasks.get(old.task)
        if task is None:
            continue
        if not (adir / "diff.patch").is_file():
            skipped.append(f"{adir / 'diff.patch'}: missing; this attempt cannot be re-evaluated "
                           "(its result.json stays as it was)")
            continue
        scratch = adir / "reeval-workspace"
        ws = Workspace(scratch, task)
        ws.prepare()
        try:
            apply_patch(scratch, (adir / "diff.patch").read_bytes())
        except PatchError as exc:
            remove_tree(scratch, ignore_errors=True)
            raise RunError(f"{adir / 'diff.patch'}: does not apply to {task.id}'s files ({exc}); "
                           "this attempt cannot be re-evaluated") from None
        candidate = adir / "candidate"
        export_candidate(scratch, task.editable, candidate)
        remove_tree(scratch)
        kept = keep_previous(adir)
        if on_phase:
            on_phase(f"{old.task}" + (f" k{old.attempt}" if old.attempt else "") + f" ({old.agent})",
                     f"evaluating (the previous result kept as result.prev-{kept}.json)")
        old.device = options.device
        try:
            evaluation = evaluate_candidate(task, candidate, adir, options, drawn=recorded_drawn_configs(manifest, task.id))
        except EvaluatorFailed as exc:
            old.status, old.error = "infra_error", str(exc)
            evaluation = Evaluation(device=options.device, compiled=False)
        else:
            old.error = None if old.status != "infra_error" else old.error
        old.apply(evaluation)
        old.eval_seconds = evaluation_seconds(adir)
        write_json(result_path, old.to_dict())
        results.append(old)
        if progress:
            progress(old)
    return results
