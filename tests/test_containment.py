"""Containment of the local backend and its temp folders: real processes, real signals, the real CLI.

Every agent here starts processes that try to outlive it: one with a cleared environment in a new
session (`env -i setsid`, which no environment marker can find) and a double-forked one. Each is a
`sleep` with an argument unique to the test, so the test finds its own and no one else's.
"""
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from runner.sandbox import SandboxSpec, open_sandbox
from runner.sandbox import confine, local

from .conftest import REPO, gauntlet

ATTEMPT = "triton2triton__scale"


def _tag() -> str:
    return f"300.{random.randrange(10**8):08d}"


def _escaping(tag: str, ready: Path, made: Path | None = None) -> str:
    """Shell: start the escapees, note a mktemp -d folder in `made`, say `ready`, then sleep on."""
    mk = f'd=$(mktemp -d) && echo "$d" > {made} && ' if made else ""
    return (f"env -i setsid sh -c 'sleep {tag}' & "
            f"( sh -c 'sleep {tag}' & ) & "
            f"{mk}echo started > {ready}; sleep 300")


def _alive(tag: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if proc.info["cmdline"] == ["sleep", tag] and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            pass
    return found


def _alive_after(tag: str, deadline_s: float = 60) -> list[psutil.Process]:
    """What is still alive once nothing more dies (polled up to a generous deadline; never timed)."""
    deadline = time.monotonic() + deadline_s
    while _alive(tag) and time.monotonic() < deadline:
        time.sleep(0.2)
    return _alive(tag)


def _started(tag: str, count: int, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while len(_alive(tag)) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    return len(_alive(tag)) == count


def _wait_for(path: Path, proc: subprocess.Popen | None = None, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline and (proc is None or proc.poll() is None):
        time.sleep(0.1)
    assert path.exists(), f"{path.name} never appeared"


def _kill(tag: str) -> None:
    for proc in _alive(tag):
        try:
            proc.kill()
        except psutil.Error:
            pass


@pytest.fixture
def host_tmp(tmp_path) -> Path:
    """The runner's TMPDIR: every temp folder of the run must be gone from it afterwards."""
    path = tmp_path / "hosttmp"
    path.mkdir()
    return path


def _in_workspace(out: Path, *names: str) -> list[Path]:
    """Where a confined agent can leave files for the test: its workspace."""
    return [out / "attempts" / ATTEMPT / "workspace" / name for name in names]


def _argv(tasks_root, out, command, budget="10m", agent: Path | None = None) -> list[str]:
    """`gauntlet run` of `command`: as the command agent, or as the agent file `agent` (which holds it)."""
    chosen = ["--agent", str(agent)] if agent else ["--agent", "command", "--command", command]
    return [sys.executable, "-m", "runner.cli", "run", *chosen,
            "--tasks", "triton2triton/scale", "--tasks-root", str(tasks_root), "--device", "cpu",
            "--budget", budget, "--out", str(out)]


def _gateway_agent(folder: Path, command: str) -> Path:
    """An agent file that runs `command` behind a model gateway (whose socket folder is a temp folder
    of the run too); no CLI and no model are needed for that."""
    path = folder / "gated.toml"
    path.write_text(f"name = \"gated\"\nkind = \"command\"\ncommand = '''{command}'''\n"
                    "[gateway]\nprotocol = \"anthropic\"\n")
    return path


def _start(argv, env) -> subprocess.Popen:
    # SIGINT back to its default in the child: a test run started in the background (`cmd &` in a
    # script, as CI may) inherits SIGINT ignored, and Python then never raises KeyboardInterrupt.
    return subprocess.Popen(argv, cwd=REPO, env={**os.environ, **env}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_this_host_contains_by_pid_namespace():
    # the tests below rely on it; a host where it fails must say so, not pass on the fallback
    assert local.containment() == "pid-namespace"


def test_escapees_die_with_the_budget(tmp_path):
    tag, ready = _tag(), tmp_path / "ready"
    sandbox = open_sandbox("local", SandboxSpec(role="agent", platform="cpu", workdir=tmp_path))
    try:
        result = sandbox.exec(["/bin/sh", "-c", _escaping(tag, ready)], timeout=3, grace=0.5)
        assert ready.exists(), "the script never started"
        assert result.timed_out and result.containment == "bwrap"
        assert _alive_after(tag) == []
    finally:
        _kill(tag)


def test_process_group_fallback_still_kills_marked_daemons(tmp_path, monkeypatch):
    monkeypatch.setenv(local.CONTAINMENT_ENV, "process-group")
    monkeypatch.setenv(confine.CONFINEMENT_ENV, "off")      # the fallback of an unconfined exec
    local.containment.cache_clear()
    confine.available.cache_clear()
    tag, ready = _tag(), tmp_path / "ready"
    try:
        sandbox = open_sandbox("local", SandboxSpec(role="agent", platform="cpu", workdir=tmp_path))
        # only the double fork: a process that clears its environment escapes this mode (docs/agents.md)
        result = sandbox.exec(["/bin/sh", "-c", f"( setsid sh -c 'sleep {tag}' & ) & echo started > {ready}; "
                               "sleep 300"], timeout=3, grace=0.5)
        assert ready.exists() and result.timed_out and result.containment == "process-group"
        assert _alive_after(tag) == []
    finally:
        local.containment.cache_clear()
        confine.available.cache_clear()
        _kill(tag)


def test_run_timeout_leaves_no_process_and_no_temp_folder(tasks_root, tmp_path, host_tmp):
    tag, out = _tag(), tmp_path / "run"
    ready, made = _in_workspace(out, "ready", "made")
    try:
        gauntlet(*_argv(tasks_root, out, _escaping(tag, ready, made), budget="3s")[3:],
                 env={"TMPDIR": str(host_tmp)})
        r = json.loads((out / "attempts" / ATTEMPT / "result.json").read_text())
        assert r["status"] == "agent_timeout" and r["agent_containment"] == "bwrap"
        assert r["compiled"], r["error"]         # the evaluation ran, its temp folders in the run's root too
        assert _alive_after(tag) == []
        agent_tmp = Path(made.read_text().strip())
        assert agent_tmp.is_relative_to(host_tmp) and agent_tmp.name != "tmp"
        assert not agent_tmp.exists()
        assert list(host_tmp.iterdir()) == []
    finally:
        _kill(tag)


@pytest.mark.parametrize("signum,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupted_run_stops_its_agent_and_removes_its_temp_folders(tasks_root, tmp_path, host_tmp, signum, code):
    tag, out = _tag(), tmp_path / "run"
    ready, made = _in_workspace(out, "ready", "made")
    proc = _start(_argv(tasks_root, out, _escaping(tag, ready, made)), {"TMPDIR": str(host_tmp)})
    try:
        _wait_for(ready, proc)
        assert Path(made.read_text().strip()).parent.is_dir()   # the attempt's temp folder (a tmpfs in the sandbox)
        proc.send_signal(signum)
        _stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == code, stderr
        assert "--resume" in stderr and "Traceback" not in stderr
        assert _alive_after(tag) == []
        assert list(host_tmp.iterdir()) == []
        assert not (out / "attempts" / ATTEMPT / "result.json").exists()   # unfinished: --resume redoes it
    finally:
        proc.kill()
        _kill(tag)


def test_sigkill_of_the_runner_kills_its_agent_and_gc_removes_the_temp_folders(tasks_root, tmp_path, host_tmp):
    tag, out = _tag(), tmp_path / "run"
    ready, made = _in_workspace(out, "ready", "made")
    command = _escaping(tag, ready, made)
    proc = _start(_argv(tasks_root, out, command, agent=_gateway_agent(tmp_path, command)), {"TMPDIR": str(host_tmp)})
    try:
        _wait_for(ready, proc)
        assert _started(tag, 2)
        assert list(host_tmp.glob("gl-gw-*")), "the agent's gateway made no socket folder: this test checks less"
        proc.kill()
        proc.wait()
        assert _alive_after(tag) == [], "the agent outlived a SIGKILLed runner"
        agent_tmp = Path(made.read_text().strip()).parent    # the attempt's temp folder on the host
        assert agent_tmp.is_dir()                 # nobody was left to remove it ...
        env = {"TMPDIR": str(host_tmp)}
        listed = gauntlet("gc", "--backend", "local", "--dry-run", env=env).stdout
        assert f"of run {out.resolve()}" in listed and agent_tmp.is_dir()
        gauntlet("gc", "--backend", "local", env=env)  # ... but gc does
        assert not agent_tmp.exists() and list(host_tmp.iterdir()) == []
    finally:
        proc.kill()
        _kill(tag)


def test_gc_kills_what_the_process_group_fallback_left_and_spares_live_runs(tasks_root, tmp_path, host_tmp):
    # without a pid namespace nothing kills the agent when the runner is SIGKILLed: gc must
    tag, out = _tag(), tmp_path / "run"
    [ready] = _in_workspace(out, "ready")
    env = {"TMPDIR": str(host_tmp), local.CONTAINMENT_ENV: "process-group", confine.CONFINEMENT_ENV: "off"}
    command = f"( setsid sh -c 'sleep {tag}' & ) & echo started > {ready}; sleep 300"
    proc = _start(_argv(tasks_root, out, command), env)
    try:
        _wait_for(ready, proc)
        assert _started(tag, 1)
        assert gauntlet("gc", "--backend", "local", env=env).stdout.strip().endswith("0 removed")  # live: spared
        assert _alive(tag)
        proc.kill()
        proc.wait()
        assert _alive(tag), "the fallback left nothing behind: this test checks nothing"
        removed = gauntlet("gc", "--backend", "local", env=env).stdout
        assert f"of run {out.resolve()}" in removed
        assert _alive_after(tag) == []
        assert list(host_tmp.iterdir()) == []
    finally:
        proc.kill()
        _kill(tag)


def test_resume_after_sigkill_removes_the_dead_runs_temp_folders(tasks_root, tmp_path, host_tmp):
    tag, out = _tag(), tmp_path / "run"
    ready, made = _in_workspace(out, "ready", "made")
    command = _escaping(tag, ready, made)
    argv = _argv(tasks_root, out, command, budget="3s")
    env = {"TMPDIR": str(host_tmp)}
    proc = _start(argv, env)
    try:
        _wait_for(ready, proc)
        first = Path(made.read_text().strip()).parent     # the killed attempt's temp folder on the host
        proc.kill()
        proc.wait()
        assert first.is_dir()
        (first / "stale").write_text("left by the killed attempt\n")
        ready.unlink()
        gauntlet(*argv[3:], "--resume", env=env)
        assert ready.exists(), "the resumed agent never ran"
        assert list(host_tmp.iterdir()) == [], "--resume left the killed attempt's temp folder"
        assert _alive_after(tag) == []
    finally:
        proc.kill()
        _kill(tag)


def _processes_naming(text: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if any(text in part for part in proc.info["cmdline"] or []) and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            pass
    return found


def test_sigkill_of_the_runner_during_the_evaluation_kills_the_judge(tasks_root, tmp_path, host_tmp):
    """The judge and its kernel runners run in the evaluation's pid namespace: they die with a
    SIGKILLed runner at once, as its agent does (they used to finish, or hang on, unwatched)."""
    out = tmp_path / "run"
    proc = _start(_argv(tasks_root, out, "true"), {"TMPDIR": str(host_tmp)})
    judge_marker = str(out / "attempts" / ATTEMPT / "eval")    # in the judge's --out argument
    try:
        deadline = time.monotonic() + 300
        while not _processes_naming(judge_marker) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _processes_naming(judge_marker), "the evaluation never started"
        proc.kill()
        proc.wait()
        # the namespace dies with the runner: seconds, where the judge itself takes far longer
        deadline = time.monotonic() + 10
        while _processes_naming(judge_marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _processes_naming(judge_marker) == [], "the judge outlived a SIGKILLed runner"
        assert not (out / "attempts" / ATTEMPT / "result.json").exists()
    finally:
        proc.kill()
        for left in _processes_naming(judge_marker):
            left.kill()
