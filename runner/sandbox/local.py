"""Local sandbox: processes on this host; an agent's in a bubblewrap sandbox, others in a pid namespace.

An agent exec is confined (runner/sandbox/confine.py: its own namespaces as uid 1000, only its
toolchains and workspace mounted, no network but the gateway, capped disk) and its workspace is put
back as it was at the budget; its environment is an allowlist of the host's (AGENT_HOST_ENV), never
all of it. The judge's execs (role "eval") are not confined: its kernel runners make their own
sandboxes (runner/evaluator/isolation.py). Every exec is contained (`bwrap` for a confined agent):

  pid-namespace   (`containment()` finds it works; the usual case) each exec runs as
                  `setpriv --pdeathsig KILL -- unshare --pid --fork --kill-child --mount-proc ARGV`
                  (plus `--user --map-user/--map-group` when not root). Every descendant, a
                  double-forked `env -i setsid` daemon too, stays in the namespace; when unshare dies
                  the kernel kills the whole namespace, and unshare dies with the runner (pdeathsig),
                  kill -9 of the runner included.
  process-group   no namespace can be made here: each exec gets its own session and group, and every
                  process that carries this exec's marker in its environment is killed with it. A
                  process that clears its environment (`env -i`) and leaves the session escapes this,
                  and nothing kills the tree when the runner is SIGKILLed; `--resume` and `gauntlet gc`
                  then kill what still carries the run's marker (docs/agents.md).

On timeout every process of the exec gets SIGTERM, and SIGKILL after a grace period. An agent's
workspace is copied at its budget first (hostfs.DeadlineFreeze) with nothing of the agent running:
its cgroup frozen where it has one with a freezer (cgroups.ExecGroup.freeze: all at once, a
fork-and-exit chain too), else its pid namespace killed (SIGKILL to the namespace's init: the kernel
kills every process in it, and the copy starts once they are all gone). A SIGSTOP to a snapshot of
the tree is left only to the unconfined process-group fallback (tests and development). While an
agent runs, its workspace's parent folder is 0700, so that no other local user reaches a set-id file
it leaves there; set-id bits are dropped from the workspace afterwards. Each exec's
TMPDIR is the spec's `tmp_dir` (under the run's temp root, `run_temp_root`), so temp folders an agent
or the judge makes (mktemp -d, tempfile) are removed with the run (a confined agent's is a tmpfs
there). An agent's HOME is `home/` in that folder, not the host user's: the host's dotfiles,
credentials and login-shell start-up (a `bash -l` that runs pyenv or conda init, as Codex's shell
tool does) stay out of the attempt.
"""
from __future__ import annotations

import functools
import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import psutil

from runner.sandbox.base import ExecResult, SandboxSpec
from runner.sandbox.cgroups import ExecGroup
from runner.sandbox.confine import Confinement, DiskLimits, available
from runner.sandbox.hostfs import DeadlineFreeze, DiskWatch, copy_path, drop_setid, remove_tree

# What an agent inherits from the host's environment: what a CLI needs to find its tools, locale,
# terminal, GPU and CA bundle, and Gauntlet's own knobs. Never the rest: other vendors' API keys and
# any secret in the runner's environment stay out (a key an agent needs comes through the gateway,
# or from its file's env.required when it has no gateway; runner/run/run.py).
AGENT_HOST_ENV = frozenset((
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR", "COLUMNS",
    "LINES", "NO_COLOR", "VIRTUAL_ENV", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
    "NVIDIA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "ROCM_PATH", "HIP_PATH", "LD_LIBRARY_PATH",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE"))
AGENT_HOST_ENV_PREFIXES = ("LC_", "GAUNTLET_", "TRITON_")


def agent_host_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k in AGENT_HOST_ENV or k.startswith(AGENT_HOST_ENV_PREFIXES)}


CONTAINMENT_ENV = "GAUNTLET_LOCAL_CONTAINMENT"   # tests pin "process-group" to check the fallback
CONTAINMENTS = ("pid-namespace", "process-group")


def _pid_namespace_prefix() -> list[str]:
    user = [] if os.geteuid() == 0 else ["--user", f"--map-user={os.geteuid()}", f"--map-group={os.getegid()}"]
    return ["setpriv", "--pdeathsig", "KILL", "--", "unshare", *user, "--pid", "--fork", "--kill-child",
            "--mount-proc", "--"]


@functools.lru_cache(maxsize=None)
def containment() -> str:
    """The best containment this host allows, found once per process: a pid namespace when a probe in
    one sees itself as pid 1, else process groups and environment markers."""
    forced = os.environ.get(CONTAINMENT_ENV)
    if forced in CONTAINMENTS:
        return forced
    if shutil.which("setpriv") and shutil.which("unshare"):
        try:
            probe = subprocess.run([*_pid_namespace_prefix(), "sh", "-c", "echo $$"], capture_output=True,
                                   text=True, timeout=30, stdin=subprocess.DEVNULL)
            if probe.returncode == 0 and probe.stdout.strip() == "1":
                return "pid-namespace"
        except (OSError, subprocess.TimeoutExpired):
            pass
    return "process-group"


MARKER = "GAUNTLET_SANDBOX_EXEC"
RUN_MARKER = "GAUNTLET_SANDBOX_RUN"   # lets a resumed run find processes a SIGKILLed runner left


def _marked_by(key: str, value: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if proc.pid != os.getpid() and proc.environ().get(key) == value:
                found.append(proc)
        except (psutil.Error, OSError):   # gone, a zombie, or not ours to read
            continue
    return found


def _alive(proc: psutil.Process) -> bool:
    """Running and not a zombie. A process that exits while we look is not alive: psutil may then
    raise NoSuchProcess, or let the OSError of its vanished /proc/<pid>/stat through."""
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except (psutil.Error, OSError):
        return False


def _kill_all(procs: list[psutil.Process], wait: float) -> None:
    """SIGKILL each (one already gone is fine), then wait up to `wait` s for them to be reaped."""
    for proc in procs:
        try:
            proc.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(procs, timeout=wait)


def kill_leftovers(run_id: str) -> int:
    """Kill every process a local sandbox of this run started (after a runner crash)."""
    procs = _marked_by(RUN_MARKER, run_id)
    _kill_all(procs, wait=2)
    return len(procs)


def _marked(token: str) -> list[psutil.Process]:
    return _marked_by(MARKER, token)


def kill_tree(root_pid: int, token: str, grace: float, by_marker: bool = True) -> None:
    """SIGTERM the group, every descendant and (`by_marker`, the process-group fallback) every
    marked process, wait `grace` s, then SIGKILL what is left. In a pid namespace every process is
    a descendant of the root (orphans go to the namespace's init), and SIGKILL of the root
    (unshare) kills the namespace."""
    def everyone() -> list[psutil.Process]:
        procs = {p.pid: p for p in _marked(token)} if by_marker else {}
        try:
            root = psutil.Process(root_pid)
            procs[root.pid] = root
            procs.update({c.pid: c for c in root.children(recursive=True)})
        except (psutil.Error, OSError):   # gone while we looked
            pass
        return list(procs.values())

    try:
        os.killpg(root_pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass
    for proc in everyone():
        try:
            proc.send_signal(signal.SIGTERM)
        except psutil.Error:
            pass
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(_alive(p) for p in everyone()):
        time.sleep(0.05)
    # Kill until nothing marked is left: a process may fork while we kill.
    for _ in range(50):
        left = [p for p in everyone() if _alive(p)]
        if not left:
            break
        _kill_all(left, wait=0.2)


TEMP_PREFIX = "gauntlet-run-"
TEMP_OWNER_FILE = "run-dir"


def run_temp_root(run_dir: Path) -> Path:
    """The one temp folder of a run on this host (the same for its --resume and its `eval`)."""
    run_id = str(Path(run_dir).resolve())
    return Path(tempfile.gettempdir()) / f"{TEMP_PREFIX}{hashlib.sha256(run_id.encode()).hexdigest()[:16]}"


def phase_temp_dir(run_dir: Path, name: str, phase: str) -> Path:
    """A fresh, empty temp folder for one phase ("agent" or "eval") of attempt `name`."""
    root = run_temp_root(run_dir)
    root.mkdir(mode=0o700, exist_ok=True)
    (root / TEMP_OWNER_FILE).write_text(str(Path(run_dir).resolve()))
    path = root / name / phase
    if path.exists():
        remove_tree(path)
    path.mkdir(parents=True)
    return path


# The model gateway's socket folder: directly under $TMPDIR with a short name (a unix socket path
# holds at most 107 bytes), so not under run_temp_root; it names its run in TEMP_OWNER_FILE so that
# remove_run_temp and gc find it after a SIGKILLed runner as they find the run's temp root.
GATEWAY_TEMP_PREFIX = "gl-gw-"


def gateway_temp_dir(run_dir: Path | None) -> Path:
    """A fresh folder for one gateway's socket; `run_dir` None (a gateway outside a run) names no run,
    and gc leaves such a folder alone."""
    path = Path(tempfile.mkdtemp(prefix=GATEWAY_TEMP_PREFIX))
    if run_dir is not None:
        (path / TEMP_OWNER_FILE).write_text(str(Path(run_dir).resolve()))
    return path


def _owner(folder: Path) -> str:
    try:
        return (folder / TEMP_OWNER_FILE).read_text().strip()
    except OSError:
        return ""


def _temp_folders() -> list[tuple[Path, str]]:
    """Every temp folder of a run on this host, with the run dir it names ("" when none)."""
    tmp = Path(tempfile.gettempdir())
    return [(folder, _owner(folder)) for prefix in (TEMP_PREFIX, GATEWAY_TEMP_PREFIX)
            for folder in sorted(tmp.glob(f"{prefix}*")) if folder.is_dir()]


def remove_run_temp(run_dir: Path) -> None:
    """The run's temp root and its gateways' socket folders (call it only when none is in use)."""
    remove_tree(run_temp_root(run_dir), ignore_errors=True)
    run_id = str(Path(run_dir).resolve())
    for folder, owner in _temp_folders():
        if owner == run_id and folder.name.startswith(GATEWAY_TEMP_PREFIX):
            remove_tree(folder, ignore_errors=True)


def gc(dry_run: bool = False, live=lambda run_dir: False) -> list[str]:
    """What a SIGKILLed runner left with the local backend: kill the processes that carry the marker
    of a run no live process holds (`live(run_dir)`), and remove the temp roots of such runs.
    Returns what it removed (or would)."""
    def spared(run_dir: str) -> bool:
        # no run named (a sandbox opened outside a run): not ours to judge
        return not run_dir or (Path(run_dir).is_dir() and live(Path(run_dir)))

    removed = []
    by_run: dict[str, list[psutil.Process]] = {}
    for proc in psutil.process_iter(["pid", "name"]):
        try:
            run_dir = proc.environ().get(RUN_MARKER) if proc.pid != os.getpid() else None
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
        if run_dir is not None:
            by_run.setdefault(run_dir, []).append(proc)
    for run_dir, procs in sorted(by_run.items()):
        if spared(run_dir):
            continue
        removed += [f"process {p.pid} ({p.info['name']}) of run {run_dir}" for p in procs]
        if not dry_run:
            _kill_all(procs, wait=2)
    for root, owner in _temp_folders():
        if spared(owner):
            continue
        removed.append(f"temp folder {root} of run {owner}")
        if not dry_run:
            remove_tree(root, ignore_errors=True)
    return removed


class LocalSandbox:
    def __init__(self, spec: SandboxSpec):
        self.spec = spec
        # an agent is confined by bubblewrap where it works here (runner/sandbox/confine.py); the run
        # layer refuses a command agent where it does not, so the unconfined path is left to tests
        confined = spec.role == "agent" and available() is None
        self.confinement = Confinement(spec, DiskLimits.from_env()) if confined else None
        self.containment = "bwrap" if self.confinement else containment()
        self._tokens: list[str] = []
        self._live: dict[int, subprocess.Popen] = {}

    def path(self, host_path: Path) -> str:
        """Host paths, but a mount's (confined: where it is mounted, as on docker)."""
        p = Path(host_path).resolve()
        if self.confinement:
            for m in sorted(self.spec.mounts, key=lambda m: len(Path(m.source).resolve().parts), reverse=True):
                src = Path(m.source).resolve()
                if p.is_relative_to(src):
                    rel = p.relative_to(src).as_posix()
                    return m.target if rel == "." else f"{m.target.rstrip('/')}/{rel}"
        return str(p)

    def exec(self, argv, *, timeout, cwd=None, env=None, stdout=None, stderr=None, stdin=None,
             grace=10.0) -> ExecResult:
        token = uuid.uuid4().hex
        self._tokens.append(token)
        host = agent_host_env() if self.spec.role == "agent" else dict(os.environ)
        full_env = {**host, **self.spec.env, **(env or {}), MARKER: token,
                    RUN_MARKER: self.spec.labels.get("gauntlet.run", "")}
        if self.spec.tmp_dir is not None:
            Path(self.spec.tmp_dir).mkdir(parents=True, exist_ok=True)
            full_env["TMPDIR"] = str(self.spec.tmp_dir)
            if self.spec.role == "agent":
                home = Path(self.spec.tmp_dir) / "home"
                home.mkdir(exist_ok=True)
                full_env["HOME"] = str(home)
        conf = self.confinement
        if conf:
            full_env.update(conf.env())
            argv = conf.argv(argv)
        namespaced = self.containment in ("pid-namespace", "bwrap")
        group = ExecGroup(token, self.spec.limits) if self.spec.limits is not None else None
        prefix = [*(group.prefix() if group else []),
                  *(_pid_namespace_prefix() if self.containment == "pid-namespace" else [])]
        out = open(stdout, "wb") if stdout else subprocess.DEVNULL
        err = open(stderr, "wb") if stderr else subprocess.DEVNULL
        start = time.monotonic()
        timed_out, killed_reason = False, None
        proc = None
        owner = conf.hand_over() if conf else None
        freeze = DeadlineFreeze(Path(self.spec.workdir)) if self.spec.role == "agent" else None
        parent_mode = _close_parent(Path(self.spec.workdir)) if self.spec.role == "agent" else None
        try:
            proc = subprocess.Popen([*prefix, *argv], cwd=cwd or str(self.spec.workdir), env=full_env,
                                    stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                    stdout=out, stderr=err, start_new_session=True)
            self._live[proc.pid] = proc
            if stdin is not None:
                try:
                    proc.stdin.write(stdin)
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
            timed_out, killed_reason = self._wait(proc, timeout, group)
            if timed_out and freeze is not None:
                # the workspace as it is at the budget, taken with nothing of the agent running: what
                # it edits in the grace below is undone (docs/agents.md)
                _still_while(proc.pid, group, namespaced, freeze.take)
            # Whether it finished or not, nothing it started may outlive the exec.
            kill_tree(proc.pid, token, grace if timed_out else (0 if killed_reason else 0.5),
                      by_marker=not namespaced)
            proc.wait()
        except BaseException:
            # SIGINT/SIGTERM of the runner (raised here as an exception): the tree dies now, no grace
            if proc is not None:
                kill_tree(proc.pid, token, 0, by_marker=not namespaced)
                proc.wait()
            raise
        finally:
            if proc is not None:
                self._live.pop(proc.pid, None)
            if group is not None:
                group.close()
            notes = [f"gauntlet: agent killed: {killed_reason}"] if killed_reason else []
            if freeze is not None:
                notes.append(freeze.restore())
            if conf:
                conf.hand_back(owner)
            if self.spec.role == "agent":
                drop_setid(Path(self.spec.workdir))
                if parent_mode is not None:
                    os.chmod(Path(self.spec.workdir).parent, parent_mode)
            for fh in (out, err):
                if fh is not subprocess.DEVNULL:
                    fh.close()
            notes = [n for n in notes if n]
            if notes and stderr:
                with open(stderr, "a") as fh:
                    fh.write("".join(f"\n{n}\n" for n in notes))
        code = proc.returncode
        if killed_reason and code in (None, 0):
            code = 137
        return ExecResult(returncode=None if timed_out else code, timed_out=timed_out,
                          seconds=time.monotonic() - start,
                          stdout_path=Path(stdout) if stdout else None,
                          stderr_path=Path(stderr) if stderr else None, containment=self.containment,
                          limits=group.enforced if group else None)

    def _wait(self, proc: subprocess.Popen, timeout: float, group: ExecGroup | None = None) -> tuple[bool, str | None]:
        """(timed out, why it was killed early): a confined agent's workspace is held to its size and
        entry count by a watchdog each second, as on docker; deleted files its processes hold open on
        the workspace's filesystem count too, and it is stopped before that filesystem fills
        (hostfs.DiskWatch)."""
        if not self.confinement:
            try:
                proc.wait(timeout=timeout)
                return False, None
            except subprocess.TimeoutExpired:
                return True, None
        disk = self.confinement.disk
        watch = DiskWatch(Path(self.spec.workdir), disk.workspace_max, disk.workspace_files)
        deadline = time.monotonic() + timeout
        while True:
            try:
                proc.wait(timeout=max(0.0, min(1.0, deadline - time.monotonic())))
                return False, None
            except subprocess.TimeoutExpired:
                if time.monotonic() >= deadline:
                    return True, None
            why = watch.check(_exec_pids(proc.pid, group))
            if why:
                return False, why

    def copy_in(self, source: Path, target: str) -> None:
        _copy(Path(source), Path(target))

    def copy_out(self, source: str, target: Path) -> None:
        _copy(Path(source), Path(target))

    def stop(self) -> None:
        for proc in list(self._live.values()):   # in a pid namespace: kills the namespace
            try:
                proc.kill()
            except OSError:
                pass
        for token in self._tokens:
            _kill_all(_marked(token), wait=0)


def _close_parent(workdir: Path) -> int | None:
    """Make the workspace's parent 0700 for the phase (when it is ours); its mode before, or None."""
    try:
        st = workdir.parent.stat()
        if st.st_uid != os.geteuid() or (st.st_mode & 0o077) == 0:
            return None
        os.chmod(workdir.parent, 0o700)
        return st.st_mode & 0o7777
    except OSError:
        return None


def _exec_pids(root_pid: int, group: ExecGroup | None) -> set[int]:
    """The exec's processes: its cgroup's (every one, however it forked) and its tree's."""
    pids = {root_pid}
    for d in (group.dirs if group else []):
        try:
            pids.update(int(p) for p in (d / "cgroup.procs").read_text().split())
        except (OSError, ValueError):
            pass
    try:
        pids.update(c.pid for c in psutil.Process(root_pid).children(recursive=True))
    except (psutil.Error, OSError):
        pass
    return pids


def _namespace_init(root_pid: int) -> int | None:
    """The pid (host view) of the init of the outermost pid namespace below root_pid (unshare's or
    bwrap's child): of the descendants whose innermost NSpid is 1, the one nested least (a namespace
    the agent made inside is not it)."""
    try:
        kids = psutil.Process(root_pid).children(recursive=True)
    except (psutil.Error, OSError):
        return None
    inits = []
    for child in kids:
        try:
            for line in Path(f"/proc/{child.pid}/status").read_text().splitlines():
                fields = line.split()
                if fields[:1] == ["NSpid:"] and fields[-1] == "1" and len(fields) > 2:
                    inits.append((len(fields), child.pid))
        except OSError:
            continue
    return min(inits)[1] if inits else None


def _kill_namespace(root_pid: int, wait: float = 10.0) -> bool:
    """SIGKILL the pid namespace's init and wait until it is dead: the kernel kills every process of
    the namespace first and lets no new one start, so once it is a zombie (or gone) none is left.
    False when no namespace init was found."""
    init = _namespace_init(root_pid)
    if init is None:
        return False
    try:
        init_proc = psutil.Process(init)
        init_proc.kill()
    except (psutil.Error, OSError):
        return True          # gone already: so is its namespace
    end = time.monotonic() + wait
    while time.monotonic() < end and _alive(init_proc):
        time.sleep(0.01)
    return not _alive(init_proc)


def _still_while(root_pid: int, group: ExecGroup | None, namespaced: bool, action) -> None:
    """`action` with nothing of the exec running: its cgroup frozen (thawed after), else its pid
    namespace killed, else (the unconfined process-group fallback) its tree SIGSTOPped."""
    if group is not None and group.freeze():
        try:
            action()
        finally:
            group.thaw()
        return
    if group is not None:
        group.thaw()         # a freeze that did not finish: undo it, and kill instead
    if namespaced:
        if not _kill_namespace(root_pid):
            kill_tree(root_pid, "", 0, by_marker=False)
        action()
        return
    _stopped_while(root_pid, action)


def _stopped_while(root_pid: int, action) -> None:
    """`action` with the exec's whole tree stopped (SIGSTOP), then SIGCONT."""
    try:
        root = psutil.Process(root_pid)
        procs = [root, *root.children(recursive=True)]
    except (psutil.Error, OSError):
        procs = []
    for p in procs:
        try:
            p.suspend()
        except (psutil.Error, OSError):
            pass
    try:
        action()
    finally:
        for p in procs:
            try:
                p.resume()
            except (psutil.Error, OSError):
                pass


def _copy(source: Path, target: Path) -> None:
    """A copy that never follows a link the sandbox made (hostfs.copy_path)."""
    if source.resolve() == target.resolve():
        return
    copy_path(source, target)
