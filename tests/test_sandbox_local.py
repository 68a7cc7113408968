"""The local sandbox's budget: real process trees, real signals."""
import os
import sys
import time
import uuid

import psutil
import pytest

from runner.sandbox import SandboxSpec, open_sandbox
from runner.sandbox.local import MARKER, kill_leftovers

# A parent and a child that ignore SIGTERM, plus a double-forked daemon in a new session that
# keeps appending to a file: all three must be dead when exec returns.
STUBBORN = """
trap '' TERM
( trap '' TERM; while true; do sleep 0.1; done ) &
setsid sh -c 'trap "" TERM; while true; do echo tick >> "$1"; sleep 0.1; done' _ "$TICKS" &
echo started > "$READY"
while true; do sleep 0.1; done
"""


def _alive_with_marker(ticks):
    """Sandboxed processes of this test (other runs on the machine may hold sandboxes too)."""
    found = []
    for p in psutil.process_iter():
        try:
            env = p.environ()
            if MARKER in env and env.get("TICKS") == str(ticks) and p.status() != psutil.STATUS_ZOMBIE:
                found.append(p)
        except psutil.Error:
            pass
    return found


def test_budget_kills_whole_tree_that_ignores_sigterm(tmp_path):
    ticks, ready = tmp_path / "ticks", tmp_path / "ready"
    sandbox = open_sandbox("local", SandboxSpec(role="agent", platform="cpu", workdir=tmp_path))
    start = time.monotonic()
    result = sandbox.exec(["/bin/sh", "-c", STUBBORN], timeout=1.5, grace=0.5,
                          env={"TICKS": str(ticks), "READY": str(ready)})
    elapsed = time.monotonic() - start
    assert ready.exists(), "the script never started"
    assert result.timed_out and result.returncode is None
    assert elapsed < 15
    assert _alive_with_marker(ticks) == []
    size = ticks.stat().st_size
    time.sleep(0.5)
    assert ticks.stat().st_size == size, "the daemon survived the budget"


def test_finished_command_leaves_no_background_process(tmp_path):
    ticks = tmp_path / "ticks"
    sandbox = open_sandbox("local", SandboxSpec(role="agent", platform="cpu", workdir=tmp_path))
    result = sandbox.exec(["/bin/sh", "-c", "nohup sh -c 'while true; do echo x >> \"$TICKS\"; sleep 0.1; done' "
                           ">/dev/null 2>&1 & sleep 0.3; exit 3"], timeout=30, env={"TICKS": str(ticks)})
    assert not result.timed_out and result.returncode == 3
    size = ticks.stat().st_size
    time.sleep(0.5)
    assert ticks.stat().st_size == size
    assert _alive_with_marker(ticks) == []


def test_output_goes_to_files_and_env_is_passed(tmp_path):
    sandbox = open_sandbox("local", SandboxSpec(role="agent", platform="cpu", workdir=tmp_path,
                                                env={"FROM_SPEC": "a"}))
    result = sandbox.exec(["/bin/sh", "-c", 'echo "$FROM_SPEC$FROM_CALL"; echo err >&2; pwd'],
                          timeout=30, env={"FROM_CALL": "b"},
                          stdout=tmp_path / "out", stderr=tmp_path / "err")
    assert result.returncode == 0
    assert (tmp_path / "out").read_text().split() == ["ab", str(tmp_path)]
    assert (tmp_path / "err").read_text() == "err\n"


def test_kill_leftovers_finds_processes_of_a_crashed_run(tmp_path):
    run_id = str(tmp_path / "run")
    pid = os.fork()
    if pid == 0:  # child: looks like a sandboxed process the crashed runner left behind
        os.environ["GAUNTLET_SANDBOX_RUN"] = run_id
        os.execvpe("sleep", ["sleep", "60"], os.environ)
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                if psutil.Process(pid).environ().get("GAUNTLET_SANDBOX_RUN") == run_id:
                    break
            except psutil.Error:
                pass
            time.sleep(0.05)
        assert kill_leftovers(run_id) == 1
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    finally:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass


def test_an_agent_gets_a_home_of_its_own_and_no_login_shell_start_up_of_the_host(tmp_path, monkeypatch):
    """HOME is `home/` in the exec's temp folder: a `bash -l` reads no profile of the host user's
    (one that runs pyenv/conda init can stall every shell tool call of an agent)."""
    host_home = tmp_path / "host-home"
    host_home.mkdir()
    (host_home / ".profile").write_text('echo "host profile ran" >&2\n')
    monkeypatch.setenv("HOME", str(host_home))
    out = tmp_path / "out"
    spec = SandboxSpec(role="agent", platform="cpu", workdir=tmp_path, tmp_dir=tmp_path / "tmp")
    result = open_sandbox("local", spec).exec(["/bin/bash", "-lc", 'echo "$HOME"'], timeout=30,
                                              stdout=out, stderr=tmp_path / "err")
    assert result.returncode == 0
    assert out.read_text().strip() == str(tmp_path / "tmp" / "home")
    assert "host profile ran" not in (tmp_path / "err").read_text()
    judge = open_sandbox("local", SandboxSpec(role="eval", platform="cpu", workdir=tmp_path, tmp_dir=tmp_path / "t2"))
    assert judge.exec(["/bin/sh", "-c", 'test "$HOME" = "$1"', "_", str(host_home)], timeout=30).returncode == 0


def test_an_agent_exec_is_held_to_its_pid_and_memory_limits(tmp_path):
    """A fork bomb stops at the pid cap and a memory hog is killed at the memory cap; the result
    says which limits held (or, where cgroups are not writable here, says that none did)."""
    from runner.sandbox import ResourceLimits
    from runner.sandbox.cgroups import ExecGroup, hierarchy
    kind, why = hierarchy()
    limits = ResourceLimits(memory=256 * 2**20, cpus=1.0, pids=32)
    sandbox = open_sandbox("local", SandboxSpec(role="agent", platform="cpu", workdir=tmp_path, limits=limits))
    forks = sandbox.exec(["/bin/sh", "-c", 'n=0; while [ $n -lt 100 ]; do sleep 5 & n=$((n+1)); done; echo "$n"'],
                         timeout=60, stdout=tmp_path / "forks", stderr=tmp_path / "forks.err")
    hog = sandbox.exec([sys.executable, "-c", "x = bytearray(1024 * 2**20); print(len(x))"], timeout=60,
                       stdout=tmp_path / "hog", stderr=tmp_path / "hog.err")
    if kind == "none":
        assert forks.limits == hog.limits == f"none: {why}"
        pytest.skip(f"limits not enforceable on this host: {why}")
    assert forks.limits == f"cgroup {kind}: memory 256 MiB, cpus 1, pids 32"
    assert "fork" in (tmp_path / "forks.err").read_text().lower()   # "Cannot fork" past the cap
    assert hog.returncode != 0 and (tmp_path / "hog").read_text() == ""
    group = ExecGroup(uuid.uuid4().hex, limits)   # and each exec's groups are gone after it
    dirs = list(group.dirs)
    assert dirs and all(d.is_dir() for d in dirs)
    group.close()
    assert not any(d.exists() for d in dirs)


def test_an_agent_exec_is_held_to_its_cpu_share(tmp_path):
    """A busy loop of 5 s wall time under a share of 0.02 CPU gets about 0.1 s of CPU (cpu.max or
    cfs_quota); unlimited it gets what the host gives (0.55 s of 3 s on a 2-core host at load 17).
    The loop's own CPU time is what is measured: the interpreter's start, counted too, once read
    0.33 s in all on a CI machine running the suite."""
    from runner.sandbox import ResourceLimits
    from runner.sandbox.cgroups import hierarchy
    kind, why = hierarchy()
    if kind == "none":
        pytest.skip(f"limits not enforceable on this host: {why}")
    limits = ResourceLimits(memory=512 * 2**20, cpus=0.02, pids=64)
    sandbox = open_sandbox("local", SandboxSpec(role="agent", platform="cpu", workdir=tmp_path, limits=limits))
    spin = ("import time\nstart = time.process_time()\nend = time.monotonic() + 5\n"
            "while time.monotonic() < end:\n    pass\nprint(time.process_time() - start)")
    outcome = sandbox.exec([sys.executable, "-c", spin], timeout=60, stdout=tmp_path / "cpu",
                           stderr=tmp_path / "cpu.err")
    assert outcome.returncode == 0, (tmp_path / "cpu.err").read_text()
    assert outcome.limits == f"cgroup {kind}: memory 512 MiB, cpus 0.02, pids 64"
    assert float((tmp_path / "cpu").read_text()) < 0.3      # 5 s x 0.02, with room
