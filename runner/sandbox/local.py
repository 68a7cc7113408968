"""Local sandbox: processes on this host, each exec in its own session and process group.

No isolation from the host (use docker for hostile agents), and an agent's environment is an
allowlist of the host's (AGENT_HOST_ENV), never all of it; what it does guarantee is the budget:
on timeout the group gets SIGTERM, then after a grace period every process that carries this
exec's marker in its environment gets SIGKILL, including ones that left the group or the session
(a double-forked daemon keeps the environment it inherited).
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path

import psutil

from . import ExecResult, SandboxSpec

# What an agent inherits from the host's environment: what a CLI needs to find its tools, locale,
# terminal, GPU and CA bundle, and Gauntlet's own knobs. Never the rest: other vendors' API keys and
# any secret in the runner's environment stay out (a key an agent needs comes through the gateway,
# or from its file's env.required when it has no gateway; runner/run.py).
AGENT_HOST_ENV = frozenset((
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR", "COLUMNS",
    "LINES", "NO_COLOR", "VIRTUAL_ENV", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
    "NVIDIA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "ROCM_PATH", "HIP_PATH", "LD_LIBRARY_PATH",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE"))
AGENT_HOST_ENV_PREFIXES = ("LC_", "GAUNTLET_", "TRITON_")


def agent_host_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k in AGENT_HOST_ENV or k.startswith(AGENT_HOST_ENV_PREFIXES)}


MARKER = "GAUNTLET_SANDBOX_EXEC"
RUN_MARKER = "GAUNTLET_SANDBOX_RUN"   # lets a resumed run find processes a SIGKILLed runner left


def _marked_by(key: str, value: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if proc.pid != os.getpid() and proc.environ().get(key) == value:
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def kill_leftovers(run_id: str) -> int:
    """Kill every process a local sandbox of this run started (after a runner crash)."""
    procs = _marked_by(RUN_MARKER, run_id)
    for proc in procs:
        try:
            proc.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(procs, timeout=2)
    return len(procs)


def _marked(token: str) -> list[psutil.Process]:
    return _marked_by(MARKER, token)


def kill_tree(root_pid: int, token: str, grace: float) -> None:
    """SIGTERM the group and every marked process, wait `grace` s, then SIGKILL what is left."""
    def everyone() -> list[psutil.Process]:
        procs = {p.pid: p for p in _marked(token)}
        try:
            root = psutil.Process(root_pid)
            procs[root.pid] = root
            procs.update({c.pid: c for c in root.children(recursive=True)})
        except psutil.NoSuchProcess:
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
    while time.monotonic() < deadline and any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE
                                              for p in everyone()):
        time.sleep(0.05)
    # Kill until nothing marked is left: a process may fork while we kill.
    for _ in range(50):
        left = [p for p in everyone() if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        if not left:
            break
        for proc in left:
            try:
                proc.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(left, timeout=0.2)


class LocalSandbox:
    def __init__(self, spec: SandboxSpec):
        self.spec = spec
        self._tokens: list[str] = []

    def path(self, host_path: Path) -> str:
        return str(Path(host_path).resolve())

    def exec(self, argv, *, timeout, cwd=None, env=None, stdout=None, stderr=None, stdin=None,
             grace=10.0) -> ExecResult:
        token = uuid.uuid4().hex
        self._tokens.append(token)
        host = agent_host_env() if self.spec.role == "agent" else dict(os.environ)
        full_env = {**host, **self.spec.env, **(env or {}), MARKER: token,
                    RUN_MARKER: self.spec.labels.get("gauntlet.run", "")}
        out = open(stdout, "wb") if stdout else subprocess.DEVNULL
        err = open(stderr, "wb") if stderr else subprocess.DEVNULL
        start = time.monotonic()
        timed_out = False
        try:
            proc = subprocess.Popen(argv, cwd=cwd or str(self.spec.workdir), env=full_env,
                                    stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                    stdout=out, stderr=err, start_new_session=True)
            if stdin is not None:
                try:
                    proc.stdin.write(stdin)
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
            # Whether it finished or not, nothing it started may outlive the exec.
            kill_tree(proc.pid, token, grace if timed_out else 0.5)
            proc.wait()
        finally:
            for fh in (out, err):
                if fh is not subprocess.DEVNULL:
                    fh.close()
        return ExecResult(returncode=None if timed_out else proc.returncode, timed_out=timed_out,
                          seconds=time.monotonic() - start,
                          stdout_path=Path(stdout) if stdout else None,
                          stderr_path=Path(stderr) if stderr else None)

    def copy_in(self, source: Path, target: str) -> None:
        _copy(Path(source), Path(target))

    def copy_out(self, source: str, target: Path) -> None:
        _copy(Path(source), Path(target))

    def stop(self) -> None:
        for token in self._tokens:
            for proc in _marked(token):
                try:
                    proc.kill()
                except psutil.Error:
                    pass


def _copy(source: Path, target: Path) -> None:
    if source.resolve() == target.resolve():
        return
    if source.is_dir():
        shutil.copytree(source, target, dirs_exist_ok=True)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
