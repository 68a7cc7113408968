"""Confinement of an agent on the local backend: bubblewrap, as the kernel runners' sandbox is.

Every agent exec runs in mount, pid, network, ipc, uts and user namespaces of its own, as uid 1000
with no capabilities:

  runner is root   [cgroup entry] setpriv --pdeathsig KILL -- bwrap (as root: it can bind any
                   path) ... -- setpriv --reuid 1000 --regid 1000 --clear-groups --no-new-privs
                   (all capabilities gone) -- unshare --user (a user namespace of the agent's own)
                   -- prlimit ... ARGV. The agent is host uid 1000: the workspace is handed to that
                   uid for the exec and back afterwards, as the docker backend does.
  runner not root  [cgroup entry] setpriv --pdeathsig KILL -- bwrap --unshare-user --uid 1000
                   --cap-drop ALL ... -- prlimit ... ARGV: the agent is the runner's uid outside.

What it sees (everything else of the host is absent): the workspace read-write at its own path;
read-only the system folders (/usr, /etc, /opt, /bin, /lib*), /sys, the Python that runs Gauntlet
(its prefix and site-packages, never the checkout: only its runner/ package), the compilers and
CUDA/ROCm homes, the spec's mounts (the attempt's agent folder, the gateway's socket folder, the agent
CLIs under .agents/) and GAUNTLET_AGENT_TOOLCHAIN folders; /dev with the GPU nodes; a fresh /proc of
its pid namespace. What no agent may see (Never, never_for): the tasks root, each task's folders, the
run's output dir and the package's task data (runner/suite, the checkout's tasks/), nothing at or
under them; the checkout, the host user's home and the attempt folder, never whole. A wanted folder
that holds one is split around it; every bind, symlinks resolved, is checked before the agent starts
(check_binds), and a violation is BindRefused: the attempt is an infra_error, never the agent's. Written space: the workspace (RLIMIT_FSIZE per file, a watchdog on the total,
both as on docker) and size-capped tmpfs at TMPDIR (HOME inside it), /tmp and /dev/shm, which count
against the exec's memory cgroup too. The network is its own loopback only: the model gateway comes
in as a unix socket and the launcher (runner/agents/gateway.py) forwards 127.0.0.1:GATEWAY_PORT to it.

Where bwrap or the namespaces cannot be made, `available()` says why in one line and the run layer
refuses agents that run a command (oracle, noop and replay run nothing in a sandbox).
GAUNTLET_AGENT_CONFINEMENT=none pretends so (the refusal's test); =off runs agents unconfined
(development, and the tests of the local backend's unconfined kill fallbacks).
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from runner.sandbox.base import SandboxSpec, parse_size
from runner.sandbox.hostfs import remove_tree
from runner.resources import IMPORT_ROOT

AGENT_UID = 1000
CONFINEMENT_ENV = "GAUNTLET_AGENT_CONFINEMENT"
TOOLCHAIN_ENV = "GAUNTLET_AGENT_TOOLCHAIN"      # more read-only folders an agent needs (os.pathsep list)
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
GPU_NODES = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset",
             "/dev/kfd", "/dev/dri")
TOOL_ENV = ("CUDA_HOME", "CUDA_PATH", "ROCM_PATH", "HIP_PATH")
PACKAGE_ROOT = IMPORT_ROOT    # the checkout that holds runner/


@dataclass(frozen=True)
class DiskLimits:
    """GAUNTLET_AGENT_TMPFS (1g: each of TMPDIR, /tmp, /dev/shm), GAUNTLET_AGENT_FILE_MAX (1g per
    file), GAUNTLET_AGENT_WORKSPACE_MAX (2g in all), GAUNTLET_AGENT_WORKSPACE_FILES (100000)."""
    tmpfs: int
    file_max: int
    workspace_max: int
    workspace_files: int

    @classmethod
    def from_env(cls) -> "DiskLimits":
        env = os.environ.get
        return cls(tmpfs=parse_size(env("GAUNTLET_AGENT_TMPFS", "1g")),
                   file_max=parse_size(env("GAUNTLET_AGENT_FILE_MAX", "1g")),
                   workspace_max=parse_size(env("GAUNTLET_AGENT_WORKSPACE_MAX", "2g")),
                   workspace_files=int(env("GAUNTLET_AGENT_WORKSPACE_FILES", "100000")))


def system_links_sys_and_gpus() -> list[str]:
    """bwrap arguments shared with the kernel runners' sandbox (runner/evaluator/isolation.py): the
    merged-/usr links (/bin -> usr/bin, ...), /sys read-only and the GPU device nodes."""
    args = []
    for link in SYSTEM_DIRS:
        if Path(link).is_symlink():
            args += ["--symlink", os.readlink(link), link]
    if Path("/sys").is_dir():
        args += ["--ro-bind", "/sys", "/sys"]
    for node in [*GPU_NODES, *sorted(str(p) for p in Path("/dev").glob("nvidia[0-9]*"))]:
        if Path(node).exists():
            args += ["--dev-bind", node, node]
    return args


def _within(path: Path, other: Path) -> bool:
    return path == other or path.is_relative_to(other)


NEVER_LABEL = "gauntlet.never"   # a SandboxSpec label: os.pathsep-joined folders no agent may see (run.py)
DESCENT_LIMIT = 512              # binds one wide folder may be split into around a never folder


class BindRefused(RuntimeError):
    """A folder an agent exec would get holds (or lies in) a folder it may never see: the harness's
    failure (an infra_error of one line), never the agent's."""


@dataclass(frozen=True)
class Never:
    """What no agent exec may see. `secret`: nothing at or under these (the tasks root, each task's
    folders, the run's output dir, the package's bundled task data); `whole`: never bound whole nor
    inside a bound folder, though a folder under them may be (the checkout: its .venv and .agents;
    the host user's home; the attempt folder, whose workspace and agent folder are bound alone).
    `exempt`: the harness's own binds of this attempt (its workspace and agent folder)."""
    secret: tuple[Path, ...]
    whole: tuple[Path, ...]
    exempt: tuple[Path, ...] = ()

    def refusal(self, source) -> str | None:
        """Why `source` (symlinks resolved first) may not be bound, or None."""
        try:
            path = Path(source).resolve()
        except (OSError, RuntimeError) as exc:
            return f"{source}: cannot be resolved ({exc})"
        if path in self.exempt:
            return None
        for folder in self.secret:
            if _within(path, folder):
                return f"{source} lies in {folder}, which no agent may see"
            if _within(folder, path):
                return f"{source} holds {folder}, which no agent may see"
        for folder in self.whole:
            if _within(folder, path):
                return f"{source} holds {folder}, which is never bound whole"
        return None


def package_data() -> list[Path]:
    """The package's task data: runner/suite of an installed package, or the checkout's tasks/
    (and its test fixtures' tasks). Only the package's code is ever bound."""
    from runner.resources import PACKAGE, suite_root
    folders = [PACKAGE / "suite", suite_root() / "tasks", IMPORT_ROOT / "tasks", IMPORT_ROOT / "tests" / "fixtures",
               IMPORT_ROOT / "results"]
    return [f.resolve() for f in folders if f.exists()]


def never_for(spec: SandboxSpec | None = None, workdir: Path | None = None) -> Never:
    """The never set of one agent exec: the spec's NEVER_LABEL folders and its run (gauntlet.run),
    the package's data, the checkout, HOME and the attempt folder. Exported for gateway.cli_folders:
    `never_for().refusal(folder)` says whether a CLI folder may be mounted."""
    labels = dict(spec.labels) if spec is not None else {}
    secret = [*package_data()]
    for text in [*labels.get(NEVER_LABEL, "").split(os.pathsep), labels.get("gauntlet.run", "")]:
        if text:
            try:
                secret.append(Path(text).resolve())
            except (OSError, RuntimeError):
                continue
    whole = [PACKAGE_ROOT.resolve(), Path.home().resolve()]
    exempt = []
    if workdir is not None:
        workdir = Path(workdir).resolve()
        whole.append(workdir.parent)
        exempt = [workdir, workdir.parent / "agent"]
    return Never(secret=tuple(dict.fromkeys(secret)), whole=tuple(dict.fromkeys(whole)), exempt=tuple(exempt))


def cli_folder_refusal(folder, secret=()) -> str | None:
    """For gateway.cli_folders: why an agent CLI's folder may not be mounted (None: it may), by the
    same rule as every bind (never_for), with `secret` added (the run's folder and tasks root). The
    gateway refuses such a CLI at preflight, a clear error before any agent starts; Confinement.argv
    would refuse the mount later as a BindRefused infra_error."""
    never = never_for()
    extra = []
    for text in secret:
        try:
            extra.append(Path(text).resolve())
        except (OSError, RuntimeError):
            continue
    return Never(secret=tuple(dict.fromkeys([*never.secret, *extra])), whole=never.whole).refusal(folder)


def _cover(path: Path, never: Never, out: list[tuple[str, Path]]) -> bool:
    """Append to `out` what of `path` may be bound: the folder whole when it holds nothing of `never`,
    else each child that may (recursively; a symlink child as a symlink). False past DESCENT_LIMIT."""
    if any(_within(path, s) for s in never.secret) or path in never.whole:
        return True
    if not any(_within(n, path) for n in (*never.secret, *never.whole)):
        out.append(("bind", path))
        return len(out) <= DESCENT_LIMIT
    try:
        children = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError:
        return True
    for entry in children:
        child = Path(entry.path)
        if entry.is_symlink():
            out.append(("symlink", child))
        elif entry.is_dir(follow_symlinks=False):
            if not _cover(child, never, out):
                return False
        elif not any(_within(child, s) for s in never.secret):
            out.append(("bind", child))
        if len(out) > DESCENT_LIMIT:
            return False
    return True


def toolchain(never) -> list[Path]:
    """The read-only folders an agent gets, fewest and widest first: none that holds a `never` path
    (a Never, or a tuple of folders never bound whole). A wanted folder that holds a never folder is
    split by toolchain_binds; this list leaves it out."""
    never = never if isinstance(never, Never) else Never(secret=(), whole=tuple(Path(n) for n in never))
    return [p for kind, p in toolchain_binds(never) if kind == "bind" and not any(
        _within(n, p) for n in (*never.secret, *never.whole))]


def toolchain_binds(never: Never) -> list[tuple[str, Path]]:
    """("bind", folder or file) and ("symlink", path) entries: the toolchain, a folder that holds a
    never folder split around it (/opt holding the tasks root: /opt's other children; runner/ of an
    installed package: its code, never runner/suite)."""
    wanted = [Path(p) for p in SYSTEM_DIRS if not Path(p).is_symlink()]
    wanted += [Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)]
    wanted += [Path(p) for p in sysconfig.get_paths().values()]
    wanted += [Path(p) for p in sys.path if p and Path(p).is_dir()]
    wanted += [PACKAGE_ROOT / "runner"]
    for tool in ("nvcc", "hipcc", "cc", "gcc", "node"):
        found = shutil.which(tool)
        if found:
            wanted.append(Path(found).resolve().parent.parent)
    wanted += [Path(os.environ[v]) for v in TOOL_ENV if os.environ.get(v)]
    wanted += [Path(p) for p in os.environ.get(TOOLCHAIN_ENV, "").split(os.pathsep) if p]
    resolved: list[Path] = []
    for path in wanted:
        try:
            path = path.resolve()
        except OSError:
            continue
        if path.is_dir() and path != Path("/"):
            resolved.append(path)
    out: list[tuple[str, Path]] = []
    # widest first; a wanted folder in one already bound is not bound again, one in a never folder
    # (the checkout's .venv) or in a folder too wide to split is split or bound on its own
    for path in sorted(dict.fromkeys(resolved), key=lambda p: len(p.parts)):
        if any(kind == "bind" and _within(path, p) for kind, p in out):
            continue
        part: list[tuple[str, Path]] = []
        if _cover(path, never, part):
            out += part
    return out


def check_binds(never: Never, sources) -> None:
    """The host-side proof, before the agent starts, that nothing of `never` (the task's hidden
    configs and solution among it) is reachable: every bind's source, symlinks resolved, is checked
    again; one that holds or lies in a never folder raises BindRefused (an infra_error)."""
    refused = [why for why in map(never.refusal, sources) if why]
    if refused:
        raise BindRefused("the agent's sandbox would expose what no agent may see: " + "; ".join(refused[:3])
                          + " (the run is refused, not the agent: see runner/sandbox/confine.py)")


class Confinement:
    """The bwrap command line of one agent exec, and the host-side setup it needs."""

    def __init__(self, spec: SandboxSpec, disk: DiskLimits):
        self.spec, self.disk = spec, disk
        self.root = os.geteuid() == 0
        self.workdir = Path(spec.workdir).resolve()
        self.tmp = str(Path(spec.tmp_dir).resolve()) if spec.tmp_dir is not None else "/tmp"
        self.home = f"{self.tmp}/home"

    def env(self) -> dict[str, str]:
        return {"TMPDIR": self.tmp, "HOME": self.home, "USER": "agent", "LOGNAME": "agent"}

    def argv(self, argv: list[str]) -> list[str]:
        never = never_for(self.spec, self.workdir)
        args = ["setpriv", "--pdeathsig", "KILL", "--", "bwrap", "--die-with-parent", "--new-session",
                "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        if not self.root:
            args += ["--unshare-user", "--uid", str(AGENT_UID), "--gid", str(AGENT_UID), "--cap-drop", "ALL"]
        args += ["--dev", "/dev", "--proc", "/proc"]
        entries = toolchain_binds(never)
        binds: list[tuple[str, str, str]] = [("--ro-bind", str(p), str(p)) for kind, p in entries if kind == "bind"]
        links = [("--symlink", os.readlink(p), str(p)) for kind, p in entries if kind == "symlink"]
        binds += [("--ro-bind" if m.read_only else "--bind", str(Path(m.source).resolve()), m.target)
                  for m in self.spec.mounts]
        binds.append(("--bind", str(self.workdir), str(self.workdir)))
        check_binds(never, [source for _, source, _ in binds])
        tmpfs = ["/tmp", "/dev/shm", *([self.tmp] if self.tmp != "/tmp" else [])]
        made: set[str] = {"/", *tmpfs, *(t for _, _, t in binds)}

        def parents(target: str) -> list[str]:
            # bwrap makes a mount point's missing parents with the host folders' modes (/root: 0700);
            # the agent must be able to walk to what it is given
            out = []
            for parent in map(str, reversed(Path(target).parents)):
                if parent not in made and not any(_within(Path(parent), Path(t)) for _, _, t in binds):
                    out += ["--perms", "0755", "--dir", parent]
                    made.add(parent)
            return out

        for path in tmpfs:
            args += [*parents(path), "--perms", "1777", "--size", str(self.disk.tmpfs), "--tmpfs", path]
        for kind, source, target in binds:
            args += [*parents(target), kind, source, target]
        for kind, source, target in links:
            if target not in made:
                args += [*parents(target), kind, source, target]
        args += [*system_links_sys_and_gpus(), "--chdir", str(self.workdir), "--"]
        if self.root:   # bwrap made the mounts as root; the agent is host uid 1000, in a user namespace of its own
            args += ["setpriv", f"--reuid={AGENT_UID}", f"--regid={AGENT_UID}", "--clear-groups",
                     "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
                     "unshare", "--user", f"--map-user={AGENT_UID}", f"--map-group={AGENT_UID}", "--"]
        args += ["prlimit", f"--fsize={self.disk.file_max}:{self.disk.file_max}", "--core=0:0", "--",
                 "/bin/sh", "-c", 'mkdir -p "$HOME" && exec "$@"', "sh", *argv]
        return args

    def hand_over(self) -> tuple[int, int] | None:
        """As root, the workspace belongs to the agent's uid for the exec; returns the owner to restore."""
        if not self.root:
            return None
        st = self.workdir.stat()
        from runner.sandbox.hostfs import _lchown_tree
        _lchown_tree(self.workdir, AGENT_UID, AGENT_UID)
        return st.st_uid, st.st_gid

    def hand_back(self, owner: tuple[int, int] | None) -> None:
        if owner is not None:
            from runner.sandbox.hostfs import _lchown_tree
            _lchown_tree(self.workdir, *owner)


@functools.lru_cache(maxsize=None)
def available() -> str | None:
    """None when an agent can be confined here (a probe runs the whole command line), else why not."""
    if os.environ.get(CONFINEMENT_ENV) in ("none", "off"):
        return f"{CONFINEMENT_ENV}={os.environ[CONFINEMENT_ENV]}"
    missing = [tool for tool in ("bwrap", "setpriv", "unshare", "prlimit") if not shutil.which(tool)]
    if missing:
        return f"{', '.join(missing)} not installed (Debian/Ubuntu: apt-get install bubblewrap util-linux)"
    probe = Path(tempfile.mkdtemp(prefix="gauntlet-confine-probe-"))
    try:
        (probe / "ws").mkdir()
        conf = Confinement(SandboxSpec(role="agent", platform="cpu", workdir=probe / "ws"), DiskLimits.from_env())
        owner = conf.hand_over()
        try:
            proc = subprocess.run(conf.argv(["/bin/sh", "-c", 'test "$(id -u)" = 1000 && touch ok && echo $$']),
                                  capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                                  env={**os.environ, **conf.env()})
        finally:
            conf.hand_back(owner)
        if proc.returncode == 0 and (probe / "ws" / "ok").exists():
            return None
        return f"bubblewrap could not make the namespaces here: {(proc.stderr or proc.stdout).strip()[-200:]}"
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap probe failed: {exc}"
    finally:
        remove_tree(probe, ignore_errors=True)


def refusal(kind: str) -> str | None:
    """Why an agent of this kind may not run on the local backend here, or None.
    GAUNTLET_AGENT_CONFINEMENT=off (development and the tests of the unconfined fallbacks only) lets
    it run unconfined: its result then records agent_containment pid-namespace or process-group."""
    if kind != "command" or os.environ.get(CONFINEMENT_ENV) == "off":
        return None
    why = available()
    if why is None:
        return None
    return (f"--backend local: an agent that runs a command needs bubblewrap to be contained and it does "
            f"not work here ({why}); install bubblewrap, or use --backend docker (oracle, noop and replay "
            "still run)")
