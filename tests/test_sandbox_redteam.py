"""The red team's agent-phase holes (session rtB), each with real processes and files:

  H1  the deadline copy raced by a fork-and-exit chain that swaps entries for links: (a) nothing of
      the agent runs while the host copies (cgroup freezer, else the pid namespace killed), (b) the
      copy follows no link, even one swapped in after the folder was listed or the entry lstat'ed
  H2  deleted-but-open files count against the workspace cap
  H7  a non-root runner's watchdog and restore get past a `chmod 000` folder
  set-id  the workspace's parent is 0700 while the agent runs; no set-id bit is left afterwards

The races are forced, never waited for: a hook at the copy (DeadlineFreeze.take) or at the listing /
lstat the copy makes swaps the entries at that very point.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from runner.sandbox import Mount, ResourceLimits, SandboxSpec, open_sandbox
from runner.sandbox import confine, hostfs

from .conftest import REPO

SECRET = b"SECRET-of-the-host\n"
LIMITS = {"GAUNTLET_AGENT_TMPFS": "64m", "GAUNTLET_AGENT_FILE_MAX": "32m", "GAUNTLET_AGENT_WORKSPACE_MAX": "48m",
          "GAUNTLET_DOCKER_TMPFS": "64m", "GAUNTLET_DOCKER_SHM": "64m", "GAUNTLET_DOCKER_FILE_MAX": "32m",
          "GAUNTLET_DOCKER_WORKSPACE_MAX": "48m", "GAUNTLET_DOCKER_MEMORY": "1g", "GAUNTLET_DOCKER_PIDS": "256"}


def _docker_missing() -> str | None:
    try:
        subprocess.run(["docker", "info"], check=True, capture_output=True, timeout=20)
    except Exception as exc:
        return f"`docker info` failed ({exc.__class__.__name__}): no Docker engine"
    from .test_sandbox_conformance import _docker_missing as image_missing
    return image_missing()


@pytest.fixture
def limits(monkeypatch):
    for key, value in LIMITS.items():
        monkeypatch.setenv(key, value)


def _layout(root: Path) -> tuple[Path, Path, Path]:
    """A run's attempt folder (workspace, agent) and a host secret outside it."""
    attempt = root / "run" / "attempts" / "scale__1"
    ws, agent = attempt / "workspace", attempt / "agent"
    ws.mkdir(parents=True)
    agent.mkdir()
    (ws / "kernel.py").write_text("# the agent's kernel\n")
    secret = root / "secret"
    secret.mkdir(mode=0o700)
    (secret / "solution.py").write_bytes(SECRET)
    return ws, agent, secret


def _run(backend: str, ws: Path, agent: Path, script: str, *, timeout: float, grace: float = 1.0,
         limits: ResourceLimits | None = None):
    sandbox = open_sandbox(backend, SandboxSpec(
        role="agent", platform="cpu", workdir=ws, mounts=(Mount(agent, "/gauntlet/agent", read_only=True),),
        tmp_dir=ws.parent.parent.parent / "tmp" if backend == "local" else None, limits=limits,
        labels={"gauntlet.run": "redteam"}))
    try:
        w = sandbox.path(ws)
        return sandbox.exec(["/bin/sh", "-c", script], timeout=timeout, grace=grace, cwd=w, env={"WS": w},
                            stdout=agent / "stdout.log", stderr=agent / "stderr.log")
    finally:
        sandbox.stop()


def _leaks(tree: Path) -> list[str]:
    """Files under tree (links not followed) that hold the secret."""
    found = []
    for dirpath, _dirs, files in os.walk(tree, followlinks=False):
        for name in files:
            p = Path(dirpath) / name
            if not p.is_symlink() and p.is_file() and SECRET in p.read_bytes():
                found.append(str(p))
    return found


# -- H1 (b): the copy follows no link --------------------------------------------------------------
def _swap(ws: Path, secret: Path) -> None:
    """What the baton chain did: entries the copy already classified become links to host files."""
    (ws / "kernel.py").unlink()
    (ws / "kernel.py").symlink_to(secret / "solution.py")
    shutil.rmtree(ws / "sub")
    (ws / "sub").symlink_to(secret)


@pytest.mark.parametrize("when", ["after-listing", "after-lstat"])
def test_the_deadline_copy_follows_no_link_swapped_in_while_it_runs(tmp_path, monkeypatch, when):
    ws, _agent, secret = _layout(tmp_path)
    (ws / "sub").mkdir()
    (ws / "sub" / "a.txt").write_text("mine\n")
    swapped = []
    real_listdir, real_scandir, real_stat = os.listdir, os.scandir, os.stat

    def once():
        if not swapped:
            swapped.append(True)
            _swap(ws, secret)

    def is_ws(path) -> bool:
        target = os.readlink(f"/proc/self/fd/{path}") if isinstance(path, int) else os.fspath(path)
        return Path(target) == ws

    def listdir(path="."):
        out = real_listdir(path)
        if when == "after-listing" and is_ws(path):
            once()
        return out

    def scandir(path="."):
        out = list(real_scandir(path))
        if when == "after-listing" and is_ws(path):
            once()
        return _Entries(out)

    def stat_(path, *args, **kwargs):
        out = real_stat(path, *args, **kwargs)
        if when == "after-lstat" and not isinstance(path, int) and os.fspath(path) == "kernel.py":
            once()
        return out

    monkeypatch.setattr(os, "listdir", listdir)
    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "stat", stat_)
    freeze = hostfs.DeadlineFreeze(ws)
    freeze.take()
    monkeypatch.undo()
    assert swapped, "the hook never ran"
    assert _leaks(freeze.copy) == []
    freeze_problems = list(freeze.problems)
    freeze.restore()
    assert _leaks(ws) == []
    # as they were when copied: links; or (swapped between lstat and open) not copied, and said so
    assert (ws / "sub").is_symlink() or (ws / "sub" / "a.txt").read_text() == "mine\n"
    assert (ws / "kernel.py").is_symlink() or (when == "after-lstat" and not os.path.lexists(ws / "kernel.py")
                                               and any("kernel.py" in p for p in freeze_problems))


class _Entries(list):
    """os.scandir's iterator as a context manager, over a listing already made."""

    def __enter__(self):
        return iter(self)

    def __exit__(self, *exc):
        return False

    def close(self):
        pass


def test_copies_keep_links_as_links_and_drop_set_id_bits(tmp_path):
    ws, _agent, secret = _layout(tmp_path)
    (ws / "link").symlink_to(secret / "solution.py")
    (ws / "dirlink").symlink_to(secret)
    suid = ws / "suid"
    shutil.copy("/bin/true", suid)
    os.chmod(suid, 0o6755)
    os.mkfifo(ws / "fifo")
    out = tmp_path / "out"
    problems = hostfs.copy_tree(ws, out)
    assert (out / "link").is_symlink() and os.readlink(out / "link") == str(secret / "solution.py")
    assert (out / "dirlink").is_symlink()
    assert stat.S_IMODE((out / "suid").stat().st_mode) == 0o755
    assert not (out / "fifo").exists() and any("fifo" in p for p in problems)
    assert _leaks(out) == []
    # the local backend's copy_out of a sandbox path that is a link: copied as the link
    sandbox = open_sandbox("local", SandboxSpec(role="eval", platform="cpu", workdir=ws))
    sandbox.copy_out(str(ws / "link"), tmp_path / "single")
    assert (tmp_path / "single").is_symlink()
    sandbox.copy_out(str(ws), tmp_path / "whole")
    assert _leaks(tmp_path / "whole") == []


# -- H1 (a): nothing of the agent runs while the host copies --------------------------------------
CHAIN = r"""
python3 - <<'EOF'
import os, time
# four fork-and-exit chains: every link appends to counter, forks, and exits at once
for _ in range(4):
    if os.fork() == 0:
        while True:
            if os.fork():
                os._exit(0)
            with open("counter", "a") as f:
                f.write("x")
            time.sleep(0.001)
open("started", "w").close()
time.sleep(3600)
EOF
"""


@pytest.mark.parametrize("how", ["cgroup-freezer", "namespace-kill"])
def test_no_process_of_the_agent_runs_while_the_deadline_copy_is_taken(tmp_path, monkeypatch, limits, how):
    if confine.available() is not None:
        pytest.skip(f"no confinement here: {confine.available()}")
    from runner.sandbox import cgroups
    if how == "cgroup-freezer" and cgroups.hierarchy()[0] == "none":
        pytest.skip(f"no cgroups here: {cgroups.hierarchy()[1]}")
    ws, agent, _secret = _layout(tmp_path)
    seen = {}
    real_take = hostfs.DeadlineFreeze.take

    def take(self):
        # the copy's moment: the chains had run (counter grows) and must not run now
        before = (ws / "counter").stat().st_size
        time.sleep(0.5)
        seen["grew"] = (ws / "counter").stat().st_size - before
        seen["before"] = before
        seen["alive"] = len(_agent_processes(ws))
        real_take(self)

    monkeypatch.setattr(hostfs.DeadlineFreeze, "take", take)
    limits_ = ResourceLimits(memory=1 << 30, cpus=1.0, pids=256) if how == "cgroup-freezer" else None
    result = _run("local", ws, agent, CHAIN, timeout=3, limits=limits_)
    assert result.timed_out
    assert seen["before"] > 0, "the chains never ran"
    assert seen["grew"] == 0, f"an agent process wrote {seen['grew']} bytes while the copy was taken"
    # frozen: still there (thawed after the copy, for its grace); no freezer: the namespace was killed first
    assert (seen["alive"] > 0) if how == "cgroup-freezer" else (seen["alive"] == 0), seen


def _agent_processes(ws: Path) -> list[int]:
    import psutil
    found = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if proc.cwd() == str(ws) and proc.pid != os.getpid() and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc.pid)
        except (psutil.Error, OSError):
            continue
    return found


# -- H2: deleted files held open count against the cap --------------------------------------------
UNLINKED = r"""
python3 - <<'EOF'
import os, time
fds = []
for i in range(3):      # 3 x 30 MiB against a 48 MiB cap, each under the 32 MiB file limit
    fd = os.open(f".hidden{i}", os.O_CREAT | os.O_RDWR, 0o600)
    os.unlink(f".hidden{i}")
    for _ in range(30):
        os.write(fd, b"\xa5" * (1 << 20))
    fds.append(fd)
open("filled", "w").close()
time.sleep(3600)
EOF
"""


@pytest.mark.parametrize("backend", ["local", "docker"])
def test_deleted_files_held_open_count_against_the_workspace_cap(tmp_path, limits, backend):
    if backend == "docker" and _docker_missing():
        pytest.skip(_docker_missing())
    ws, agent, _secret = _layout(tmp_path)
    result = _run(backend, ws, agent, UNLINKED, timeout=15)
    log = (agent / "stderr.log").read_text()
    assert not result.timed_out, log
    assert "deleted files still open" in log and "agent killed" in log, log


# -- H7: a non-root runner's watchdog and restore get past `chmod 000` -------------------------------
NONROOT = r"""
import os, sys
from pathlib import Path
from runner.sandbox import hostfs
ws = Path(sys.argv[1])
os.mkdir(ws / "hide")
with open(ws / "hide" / "blob", "wb") as f:
    f.write(b"\0" * (3 << 20))
os.chmod(ws / "hide", 0)
used, count = hostfs.tree_usage(ws, 1000)
print("used", used, flush=True)
os.mkdir(ws / "half")                 # listed but not searchable: its entries cannot be stat'ed
open(ws / "half" / "f", "w").close()
os.chmod(ws / "half", 0o400)
print("half", hostfs.tree_usage(ws, 1000)[0] == hostfs.UNREADABLE, flush=True)    # over any limit, no error
os.chmod(ws / "half", 0o700)
freeze = hostfs.DeadlineFreeze(ws)
os.chmod(ws / "hide", 0)
freeze.take()
os.chmod(ws / "hide", 0)
print(freeze.restore())
os.chmod(ws / "hide", 0o700)    # restored as it was (mode 000): the owner can give itself access
print("blob", (ws / "hide" / "blob").stat().st_size)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to start a process as another uid")
def test_a_non_root_runner_sees_and_restores_a_folder_made_mode_000():
    root = Path(tempfile.mkdtemp(prefix="gauntlet-nonroot-"))     # /tmp: uid 1000 can walk to it
    try:
        _non_root(root)
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", str(root)], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def _non_root(root: Path) -> None:
    ws = root / "workspace"
    ws.mkdir()
    os.chmod(root, 0o755)
    os.chown(root, 1000, 1000)
    os.chown(ws, 1000, 1000)
    proc = subprocess.run(["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups", sys.executable, "-c", NONROOT,
                           str(ws)], capture_output=True, text=True, timeout=60, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stderr
    used = int(proc.stdout.split("used ")[1].split()[0])
    assert used >= 3 << 20
    assert "half True" in proc.stdout      # red team, session 27: a PermissionError out of tree_usage before
    assert "blob 3145728" in proc.stdout


# -- set-id leftovers -------------------------------------------------------------------------------
SETID = r"""
cp /bin/true suid && chmod 6755 suid && mkdir sgid && chmod 2777 sgid && touch ready
while [ ! -e go ]; do sleep 0.05; done
"""


def test_the_workspace_parent_is_private_while_the_agent_runs_and_no_set_id_bit_stays(tmp_path, limits):
    if confine.available() is not None:
        pytest.skip(f"no confinement here: {confine.available()}")
    ws, agent, _secret = _layout(tmp_path)
    os.chmod(ws.parent, 0o755)
    seen = {}

    def watch():
        end = time.monotonic() + 30
        while not (ws / "ready").exists() and time.monotonic() < end:
            time.sleep(0.05)
        seen["parent"] = stat.S_IMODE(ws.parent.stat().st_mode)
        seen["suid"] = (ws / "suid").stat().st_mode
        (ws / "go").touch()

    t = threading.Thread(target=watch)
    t.start()
    result = _run("local", ws, agent, SETID, timeout=30)
    t.join()
    assert result.returncode == 0
    assert seen["suid"] & stat.S_ISUID, "the agent could not make a set-uid file: the test proves nothing"
    assert seen["parent"] == 0o700
    assert stat.S_IMODE(ws.parent.stat().st_mode) == 0o755
    assert not (ws / "suid").stat().st_mode & (stat.S_ISUID | stat.S_ISGID)
    assert not (ws / "sgid").stat().st_mode & (stat.S_ISUID | stat.S_ISGID)
