"""One conformance suite for the agent sandboxes of both backends (Inspect AI's sandbox self_check is
the model): a hostile agent, run through the Sandbox seam exactly as the run layer runs an agent
(role "agent", the workspace, the attempt's agent folder mounted read-only), tries each escape the
holdout found on the local backend (issue 31). Every check runs on `local` and on `docker`; docker
is skipped, with the reason, where no engine answers or its gauntlet-cpu image is missing.

The layout is a run's: <tmp>/tasks (the task, with hidden/ and solution/), <tmp>/run/attempts/<a>/
{workspace,agent}. Each check says what it tries; the agent writes what it reached to report.txt in
its workspace, and the host checks the rest (host files, the workspace after the budget).
"""
from __future__ import annotations

import os
import pwd
import re
import shutil
import socket
import subprocess
import threading
import uuid
from pathlib import Path

import pytest

from runner.sandbox import Mount, SandboxSpec, open_sandbox
from runner.sandbox import confine

from .conftest import FIXTURE_TASKS, REPO, SCALE, gauntlet

# Small limits so that the disk bomb meets them in seconds (both backends' names).
LIMITS = {"GAUNTLET_AGENT_TMPFS": "64m", "GAUNTLET_AGENT_FILE_MAX": "32m", "GAUNTLET_AGENT_WORKSPACE_MAX": "48m",
          "GAUNTLET_DOCKER_TMPFS": "64m", "GAUNTLET_DOCKER_SHM": "64m", "GAUNTLET_DOCKER_FILE_MAX": "32m",
          "GAUNTLET_DOCKER_WORKSPACE_MAX": "48m", "GAUNTLET_DOCKER_MEMORY": "1g", "GAUNTLET_DOCKER_PIDS": "256"}


def _docker_missing() -> str | None:
    try:
        import docker
        client = docker.from_env(timeout=20)
        client.ping()
    except Exception as exc:
        return f"no Docker engine reachable ({exc.__class__.__name__}); scripts/setup-docker.sh starts one"
    from runner.sandbox.images import image_ref
    try:
        client.images.get(image_ref("cpu"))
    except Exception:
        return f"image {image_ref('cpu')} missing; scripts/setup-docker.sh builds it"
    return None


@pytest.fixture(params=["local", "docker"])
def backend(request, monkeypatch):
    if request.param == "docker":
        why = _docker_missing()
        if why:
            pytest.skip(why)
    else:
        why = confine.available()
        assert why is None, f"the local backend cannot confine an agent on this host: {why}"
    for key, value in LIMITS.items():
        monkeypatch.setenv(key, value)
    return request.param


class Attempt:
    """A run's layout around one agent exec, and the exec itself."""

    def __init__(self, root: Path, backend: str):
        self.backend = backend
        self.tasks = root / "tasks"
        shutil.copytree(FIXTURE_TASKS, self.tasks)
        self.task = self.tasks / SCALE
        attempt = root / "run" / "attempts" / "scale__1"
        self.workspace, self.agent_dir = attempt / "workspace", attempt / "agent"
        self.workspace.mkdir(parents=True)
        self.agent_dir.mkdir()
        shutil.copy(self.task / "kernel.py", self.workspace / "kernel.py")
        (self.agent_dir / "prompt.md").write_text("optimize kernel.py\n")
        self.tmp = root / "run-tmp" / "agent"

    def run(self, script: str, timeout: float = 60, grace: float = 2, env: dict | None = None):
        sandbox = open_sandbox(self.backend, SandboxSpec(
            role="agent", platform="cpu", workdir=self.workspace,
            mounts=(Mount(self.agent_dir, "/gauntlet/agent", read_only=True),),
            tmp_dir=self.tmp if self.backend == "local" else None, labels={"gauntlet.run": "conformance"}))
        try:
            ws = sandbox.path(self.workspace)
            result = sandbox.exec(["/bin/sh", "-c", script], timeout=timeout, grace=grace, cwd=ws,
                                  env={"WS": ws, **(env or {})}, stdout=self.agent_dir / "stdout.log",
                                  stderr=self.agent_dir / "stderr.log")
        finally:
            sandbox.stop()
        return result

    def report(self) -> str:
        path = self.workspace / "report.txt"
        return path.read_text() if path.exists() else ""


@pytest.fixture
def attempt(tmp_path, backend) -> Attempt:
    return Attempt(tmp_path, backend)


def _reads(paths) -> str:
    """Shell: for each path, REACHED <path> in the report if it can be listed or read."""
    return "; ".join(f"(ls {p} >/dev/null 2>&1 || cat {p} >/dev/null 2>&1) && echo 'REACHED {p}' >> \"$WS/report.txt\""
                     for p in paths) + "; echo done >> \"$WS/report.txt\""


def test_the_tasks_hidden_configs_and_solution_are_out_of_reach(attempt):
    other = attempt.workspace.parent.parent / "scale__2" / "workspace"    # another attempt of the run
    other.mkdir(parents=True)
    (other / "kernel.py").write_text("# another attempt's work\n")
    hidden = [attempt.task / "hidden" / "configs.toml", attempt.task / "hidden", attempt.task / "solution",
              attempt.task / "solution" / "kernel.py", attempt.tasks, other / "kernel.py",
              attempt.workspace.parent / "record.git"]
    attempt.run(_reads(hidden))
    assert attempt.report().strip().splitlines() == ["done"], attempt.report()


def test_other_checkouts_are_out_of_reach(attempt):
    # this checkout (its tasks' hidden/ and solution/), and the main one where there is one
    checkouts = [REPO / "tasks", REPO / "tests" / "fixtures", REPO / ".git", Path("/work/main/tasks")]
    attempt.run(_reads([p for p in checkouts if p.exists()]))
    assert attempt.report().strip().splitlines() == ["done"], attempt.report()


def test_the_host_users_home_is_out_of_reach(attempt):
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    sentinel = home / f".gauntlet-conformance-{uuid.uuid4().hex[:8]}"
    sentinel.write_text("secret\n")
    try:
        attempt.run(_reads([sentinel, home / ".ssh", home / ".bash_history", home / ".config"]))
    finally:
        sentinel.unlink()
    assert attempt.report().strip().splitlines() == ["done"], attempt.report()


def test_it_runs_unprivileged_and_cannot_write_outside_its_workspace(attempt):
    tag = uuid.uuid4().hex[:8]
    targets = [f"/escape-{tag}", f"/tmp/escape-{tag}", f"/etc/escape-{tag}", f"/usr/escape-{tag}",
               "/gauntlet/agent/new.txt", "/gauntlet/agent/prompt.md", str(attempt.workspace.parent / f"escape-{tag}")]
    writes = "; ".join(f"(echo x >> {t}) 2>/dev/null && echo 'WROTE {t}' >> \"$WS/report.txt\"" for t in targets)
    try:
        attempt.run(f"{writes}; id -u >> \"$WS/report.txt\"; grep CapEff /proc/self/status >> \"$WS/report.txt\"")
        report = attempt.report()
        wrote = [t for t in targets if Path(t).exists() and Path(t).read_text().endswith("x\n")]
    finally:   # what a broken sandbox let it write on the host goes again
        for target in targets[:4]:
            Path(target).unlink(missing_ok=True)
    assert "0000000000000000" in report and "\n0\n" not in f"\n{report}", report   # no capability, not root
    assert wrote == [], f"wrote on the host: {wrote}"      # a write to its own /tmp is fine, not to the host's
    assert (attempt.agent_dir / "prompt.md").read_text() == "optimize kernel.py\n"


def _listener(host: str) -> tuple[socket.socket, threading.Event, int]:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((host, 0))
    server.listen(8)
    server.settimeout(0.2)
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                server.accept()[0].close()
            except OSError:
                pass
    threading.Thread(target=accept, daemon=True).start()
    return server, stop, server.getsockname()[1]


def _host_address() -> str:
    """This host's first non-loopback IPv4 address (a connection to it stays on this host)."""
    out = subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout.split()
    addresses = [a for a in out if "." in a and not a.startswith("127.")]
    if not addresses:
        pytest.skip("this host has no non-loopback IPv4 address to try")
    return addresses[0]


CONNECT = ("import socket, sys\n"
           "for target in sys.argv[1:]:\n"
           "    host, port = target.rsplit(':', 1)\n"
           "    fam = socket.AF_UNIX if host == 'unix' else socket.AF_INET\n"
           "    s = socket.socket(fam, socket.SOCK_STREAM); s.settimeout(3)\n"
           "    try:\n"
           "        s.connect(port if fam == socket.AF_UNIX else (host, int(port)))\n"
           "        print('CONNECTED', target)\n"
           "    except OSError as exc:\n"
           "        print('refused', target, exc)\n")


def test_no_network_but_its_own_loopback(attempt):
    # a service on the host's loopback, the host's own public address, and the docker socket
    loop, loop_stop, loop_port = _listener("127.0.0.1")
    public, public_stop, public_port = _listener("0.0.0.0")
    try:
        targets = [f"127.0.0.1:{loop_port}", f"{_host_address()}:{public_port}", "unix:/var/run/docker.sock",
                   "unix:/run/docker.sock"]
        attempt.run(f"python3 -c \"$PROBE\" {' '.join(targets)} >> \"$WS/report.txt\" 2>&1",
                    env={"PROBE": CONNECT})
    finally:
        for server, stop in ((loop, loop_stop), (public, public_stop)):
            stop.set()
            server.close()
    report = attempt.report()
    assert len(re.findall(r"^refused ", report, re.M)) == 4 and "CONNECTED" not in report, report


def test_disk_is_capped_everywhere_it_can_write(attempt):
    # 300 MiB into each temp folder in 30 MiB files (their tmpfs hold 64 MiB each), then 4 GiB into
    # the workspace in files just under the 32 MiB per-file cap (the watchdog stops it at 48 MiB),
    # at most 10 files a second: the watchdog looks once a second, and unthrottled writes into the page
    # cache passed 1 GiB within one look on a fast machine (1.35 GB, session 21), so the bound below
    # measured the machine's disk, not the watchdog
    fill = ('mkdir -p "$1" && n=0; while [ $n -lt 10 ]; do head -c 31457280 /dev/zero > "$1/fill$n" 2>/dev/null '
            '|| break; n=$((n+1)); done; echo "temp $(du -sk "$1" | cut -f1) $1" >> "$WS/report.txt"')
    bomb = (f'fill() {{ {fill}; }}; fill "${{TMPDIR:-/tmp}}/t"; fill /tmp/t2; fill /dev/shm/t3; '
            'i=0; while [ $i -lt 128 ]; do head -c 33554431 /dev/zero > "$WS/bomb$i" 2>/dev/null || break; '
            'i=$((i+1)); sleep 0.1; done; echo "workspace files $i" >> "$WS/report.txt"')
    attempt.run(bomb, timeout=120)
    used = sum(p.stat().st_size for p in attempt.workspace.rglob("*") if p.is_file())
    # unlimited it holds 4 GiB (in about 13 s); the watchdog looks each second, so a second's writing
    # (at most about 320 MiB) may pass 48 MiB
    assert used < 2**30, f"{used} bytes in the workspace (limit 48 MiB)"
    temps = [line.split() for line in attempt.report().splitlines() if line.startswith("temp ")]
    assert len(temps) == 3, attempt.report()
    assert all(int(kib) <= 64 * 1024 for _, kib, _ in temps), attempt.report()   # each stopped at its tmpfs


def test_edits_after_the_budget_are_not_kept(attempt):
    # ignores SIGTERM (its handler edits kernel.py instead) through the grace that follows the budget
    script = ("trap 'echo \"# edited after the budget\" >> kernel.py' TERM; "
              "echo '# at the deadline' >> kernel.py; while true; do sleep 0.05; done")
    before = (attempt.workspace / "kernel.py").read_text()
    result = attempt.run(script, timeout=3, grace=3)
    assert result.timed_out
    after = (attempt.workspace / "kernel.py").read_text()
    assert after == before + "# at the deadline\n", after[len(before):]
    assert "workspace is kept as it was when the budget ended" in (attempt.agent_dir / "stderr.log").read_text()


def test_local_refuses_a_command_agent_where_it_cannot_be_confined(tasks_root, tmp_path):
    """Without bubblewrap (pretended: GAUNTLET_AGENT_CONFINEMENT=none) a command agent is refused in
    one line before any attempt starts; agents that run nothing in a sandbox are not."""
    out = tmp_path / "out"
    proc = gauntlet("run", "--agent", "command", "--command", "true", "--tasks", SCALE, "--tasks-root", tasks_root,
                    "--device", "cpu", "--backend", "local", "--budget", "60", "--out", out, check=False,
                    env={confine.CONFINEMENT_ENV: "none"})
    assert proc.returncode != 0
    error = proc.stderr.strip()
    assert len(error.splitlines()) == 1 and "bubblewrap" in error and "--backend docker" in error, error
    assert not (out / "attempts").exists()
    assert [confine.refusal(kind) for kind in ("noop", "oracle", "replay")] == [None, None, None]
