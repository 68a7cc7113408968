"""Per-exec CPU, memory and pid limits for the local backend, through a cgroup of the exec's own.

So that `--jobs N` agents cannot starve the evaluation beside them (or the host): each agent exec
gets a cgroup with a memory cap (no swap beyond it), a CPU quota and a pid cap, entered by a
one-line shell before the pid namespace is made, so every process the agent starts is in it.

Where cgroups are not writable (no root, no delegation, a read-only /sys/fs/cgroup) nothing is
limited and the result says so (`ExecGroup.enforced` is "none: <why>", recorded per attempt as
`agent_limits`); the docker backend sets the same limits on its containers (runner/sandbox/docker.py).
Both cgroup v2 (unified hierarchy, the usual case today) and v1 (one hierarchy per controller) work.

The group is also the exec's freezer (v2 `cgroup.freeze`; v1 a `freezer` group beside the others,
where that hierarchy is mounted): `freeze()` stops every process in it at once, forks in flight
included, which a signal to a snapshot of the process tree cannot (a fork-and-exit chain is never
in the snapshot). The local backend freezes an agent so while it copies the workspace at the budget.
"""
from __future__ import annotations

import functools
import os
import time
from pathlib import Path

from runner.sandbox.base import ResourceLimits

CGROUP_ROOT = Path("/sys/fs/cgroup")
PARENT = "gauntlet"               # the v2 folder under which each exec's group is made
_PERIOD_US = 100_000
_V1 = ("memory", "pids", "cpu")


def _own_path(controller: str | None) -> str:
    """This process's cgroup path in the v2 hierarchy (controller None) or a v1 one."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if (controller is None and names == "") or (controller and controller in names.split(",")):
            return path
    raise OSError(f"no {controller or 'unified'} cgroup in /proc/self/cgroup")


def _write(path: Path, value: str) -> None:
    path.write_text(value)


def own_memory_limit() -> int | None:
    """The memory limit of the cgroup this process is in (a container's `--memory`), or None where
    there is none or none can be read. Its own group's file, and the mount's root (a v1 container
    sees its own group as the root while /proc/self/cgroup names the host's path). Read, never
    written: any host, either hierarchy."""
    v2 = (CGROUP_ROOT / "cgroup.controllers").exists()
    base, name = (CGROUP_ROOT, "memory.max") if v2 else (CGROUP_ROOT / "memory", "memory.limit_in_bytes")
    paths = [base / name]
    try:
        paths.insert(0, base / _own_path(None if v2 else "memory").lstrip("/") / name)
    except (OSError, ValueError):
        pass
    limits = []
    for path in paths:
        try:
            text = path.read_text().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < (1 << 60):      # v1 says "none" with a huge number
            limits.append(int(text))
    return min(limits) if limits else None


@functools.lru_cache(maxsize=None)
def hierarchy() -> tuple[str, str]:
    """("v2", "") or ("v1", "") when this host lets Gauntlet make limited groups, else ("none", why)."""
    try:
        if (CGROUP_ROOT / "cgroup.controllers").exists():
            parent = _v2_parent()
            probe = parent / f"probe-{os.getpid()}"
            probe.mkdir()
            probe.rmdir()
            return "v2", ""
        for c in _V1:
            base = CGROUP_ROOT / c / _own_path(c).lstrip("/")
            probe = base / f"gauntlet-probe-{os.getpid()}"
            probe.mkdir()
            probe.rmdir()
        return "v1", ""
    except (OSError, ValueError) as exc:
        return "none", f"cgroups not writable here ({exc.__class__.__name__}: {exc})"


def _v2_parent() -> Path:
    """A folder with memory, pids and cpu enabled for its children. Under the root group (a host
    or a VM as root) that is /sys/fs/cgroup/gauntlet; elsewhere our own group cannot hold children
    with controllers while it holds processes, so only a root-level placement is attempted."""
    own = _own_path(None)
    if own not in ("/", ""):
        raise OSError(f"this process is in cgroup {own}, not the root; no delegated subtree to use")
    want = {"memory", "pids", "cpu"}
    have = set((CGROUP_ROOT / "cgroup.controllers").read_text().split())
    if not want <= have:
        raise OSError(f"controllers {sorted(want - have)} are not available")
    enabled = set((CGROUP_ROOT / "cgroup.subtree_control").read_text().split())
    if not want <= enabled:
        _write(CGROUP_ROOT / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(want - enabled)))
    parent = CGROUP_ROOT / PARENT
    parent.mkdir(exist_ok=True)
    if not want <= set((parent / "cgroup.subtree_control").read_text().split()):
        _write(parent / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(want)))
    return parent


class ExecGroup:
    """The cgroup(s) of one exec: made before it starts, emptied and removed after it ends."""

    def __init__(self, token: str, limits: ResourceLimits):
        self.limits = limits
        self.dirs: list[Path] = []
        kind, why = hierarchy()
        if kind == "none":
            self.enforced = f"none: {why}"
            return
        try:
            if kind == "v2":
                d = _v2_parent() / token
                d.mkdir()
                self.dirs = [d]
                _write(d / "memory.max", str(limits.memory))
                if (d / "memory.swap.max").exists():
                    _write(d / "memory.swap.max", "0")
                _write(d / "pids.max", str(limits.pids))
                _write(d / "cpu.max", f"{int(limits.cpus * _PERIOD_US)} {_PERIOD_US}")
            else:
                for c in _V1:
                    d = CGROUP_ROOT / c / _own_path(c).lstrip("/") / f"gauntlet-{token}"
                    d.mkdir()
                    self.dirs.append(d)
                mem, pids, cpu = self.dirs
                try:   # optional: without it the exec is killed, not frozen, at the budget
                    d = CGROUP_ROOT / "freezer" / _own_path("freezer").lstrip("/") / f"gauntlet-{token}"
                    d.mkdir()
                    self.dirs.append(d)
                except OSError:
                    pass
                _write(mem / "memory.limit_in_bytes", str(limits.memory))
                if (mem / "memory.memsw.limit_in_bytes").exists():
                    _write(mem / "memory.memsw.limit_in_bytes", str(limits.memory))
                _write(pids / "pids.max", str(limits.pids))
                _write(cpu / "cpu.cfs_period_us", str(_PERIOD_US))
                _write(cpu / "cpu.cfs_quota_us", str(int(limits.cpus * _PERIOD_US)))
            self.enforced = f"cgroup {kind}: {limits.describe()}"
        except OSError as exc:
            self.close()
            self.enforced = f"none: could not make the exec's cgroup ({exc})"

    def prefix(self) -> list[str]:
        """argv that enters the group(s) and then execs the rest: `sh -c ... f1 f2 -- ARGV`."""
        if not self.dirs:
            return []
        script = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
        return ["/bin/sh", "-c", script, "sh", *(str(d / "cgroup.procs") for d in self.dirs), "--"]

    def _freezer(self) -> tuple[Path, str, str, str] | None:
        """(file, freeze value, thaw value, the file and text that say frozen), or None."""
        for d in self.dirs:
            if (d / "cgroup.freeze").exists():
                return d / "cgroup.freeze", "1", "0", "frozen 1"
            if (d / "freezer.state").exists():
                return d / "freezer.state", "FROZEN", "THAWED", "FROZEN"
        return None

    def freeze(self, wait: float = 5.0) -> bool:
        """Stop every process of the group at once; True once the kernel says all are frozen (False:
        no freezer, or it did not finish within `wait` s; the caller must then not count on it)."""
        found = self._freezer()
        if found is None:
            return False
        path, on, _off, frozen = found
        events = path.parent / ("cgroup.events" if path.name == "cgroup.freeze" else "freezer.state")
        try:
            _write(path, on)
            end = time.monotonic() + wait
            while time.monotonic() < end:
                if frozen in events.read_text().splitlines():
                    return True
                time.sleep(0.005)
        except OSError:
            pass
        return False

    def thaw(self) -> None:
        found = self._freezer()
        if found is not None:
            try:
                _write(found[0], found[2])
            except OSError:
                pass

    def close(self) -> None:
        """Remove the groups; a process still in one (it should not be: the exec killed its tree)
        is killed first (thawed first: a frozen v1 task does not die of SIGKILL)."""
        self.thaw()
        for d in self.dirs:
            for _ in range(50):
                try:
                    pids = [int(p) for p in (d / "cgroup.procs").read_text().split()]
                except OSError:
                    break
                if not pids:
                    break
                for pid in pids:
                    try:
                        os.kill(pid, 9)
                    except OSError:
                        pass
                time.sleep(0.05)
            try:
                d.rmdir()
            except OSError:
                pass
        self.dirs = []
