"""DockerSandbox through the seam: the container it makes, exec, budgets, cleanup."""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from runner.sandbox import Mount, SandboxSpec, open_sandbox


@pytest.fixture
def sandbox(engine, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "file.txt").write_text("hello\n")
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "secret.txt").write_text("read-only\n")
    box = open_sandbox("docker", SandboxSpec(role="agent", platform="cpu", workdir=ws,
                                             mounts=(Mount(ro, "/gauntlet/ro", read_only=True),),
                                             env={"FROM_SPEC": "yes"}, labels={"gauntlet.task": "test/x"}))
    yield box
    box.stop()


def run(box, tmp_path, script, **kw):
    out, err = tmp_path / "out.log", tmp_path / "err.log"
    res = box.exec(["/bin/sh", "-c", script], stdout=out, stderr=err, **{"timeout": 30, **kw})
    return res, out.read_text(errors="replace"), err.read_text(errors="replace")


def test_container_is_locked_down(sandbox, engine):
    attrs = engine.containers.get(sandbox.container.id).attrs
    host = attrs["HostConfig"]
    assert host["Privileged"] is False
    assert host["CapDrop"] == ["ALL"] and not host.get("CapAdd")
    assert "no-new-privileges:true" in host["SecurityOpt"]
    assert host["NetworkMode"] == "none"
    assert host["ReadonlyRootfs"] is True
    assert host["Init"] is True
    assert host["Memory"] == 1024 ** 3 and host["MemorySwap"] == 1024 ** 3
    assert host["PidsLimit"] == 256
    assert host["NanoCpus"] == 10 ** 9
    assert {u["Name"] for u in host["Ulimits"]} >= {"fsize"}
    assert attrs["Config"]["User"] == "65534:65534"
    labels = attrs["Config"]["Labels"]
    assert labels["gauntlet.managed"] == "true" and labels["gauntlet.role"] == "agent"
    assert labels["gauntlet.task"] == "test/x"
    mounts = {m["Destination"]: m for m in attrs["Mounts"]}
    assert mounts["/workspace"]["RW"] is True
    assert mounts["/gauntlet/ro"]["RW"] is False
    assert mounts["/opt/gauntlet/runner"]["RW"] is False


def test_exec_output_env_identity_and_paths(sandbox, tmp_path):
    res, out, err = run(sandbox, tmp_path, 'id -u; echo "$FROM_SPEC $EXTRA"; cat file.txt; echo oops >&2; '
                                           'grep CapEff /proc/self/status; exit 3', env={"EXTRA": "x"})
    assert res.returncode == 3 and not res.timed_out
    lines = out.splitlines()
    assert lines[0] == "1000"
    assert lines[1] == "yes x"
    assert lines[2] == "hello"
    assert lines[3].split()[1] == "0000000000000000"      # no capabilities at all
    assert err.strip() == "oops"
    ws = sandbox.spec.workdir
    assert sandbox.path(ws / "a" / "b.py") == "/workspace/a/b.py"
    assert sandbox.path(tmp_path / "ro" / "secret.txt") == "/gauntlet/ro/secret.txt"
    with pytest.raises(ValueError):
        sandbox.path(tmp_path / "elsewhere")


def test_exec_stdin(sandbox, tmp_path):
    out = tmp_path / "o"
    res = sandbox.exec(["cat"], timeout=20, stdout=out, stdin=b"through stdin\n")
    assert res.returncode == 0 and out.read_text() == "through stdin\n"


def test_timeout_term_then_kill_and_no_survivors(sandbox, tmp_path):
    script = ("trap '' TERM; (trap '' TERM; setsid sh -c 'trap \"\" TERM; sleep 1000' &) ; "
              "sleep 1000 & while :; do sleep 1; done")
    started = time.monotonic()
    res, _, _ = run(sandbox, tmp_path, script, timeout=2, grace=1)
    took = time.monotonic() - started
    assert res.timed_out and res.returncode is None
    assert took < 2 + 1 + 4, took
    # nothing of the agent user is left: the next exec sees only itself (and ps)
    res, out, _ = run(sandbox, tmp_path, "ps -eo user:12,pid,args --no-headers")
    mine = [l for l in out.splitlines() if l.split()[0] in ("agent", "1000") and "ps -eo" not in l
            and "/bin/sh -c ps" not in l and "setsid" not in l and "timeout" not in l]
    assert mine == [], out


def test_background_process_does_not_outlive_exec(sandbox, tmp_path):
    res, _, _ = run(sandbox, tmp_path, "setsid sh -c 'sleep 2; echo late >> /workspace/file.txt' >/dev/null 2>&1 & "
                                       "exit 0")
    assert res.returncode == 0
    time.sleep(3)
    assert (sandbox.spec.workdir / "file.txt").read_text() == "hello\n"


def test_workspace_owner_is_restored_and_stop_removes(sandbox, engine, tmp_path):
    ws = sandbox.spec.workdir
    if os.geteuid() == 0:
        assert ws.stat().st_uid == 1000            # writable for the agent during the phase
    run(sandbox, tmp_path, "echo new > /workspace/made.txt")
    cid = sandbox.container.id
    sandbox.stop()
    sandbox.stop()                                  # idempotent
    assert ws.stat().st_uid == os.geteuid()
    assert (ws / "made.txt").stat().st_uid == os.geteuid()
    import docker
    with pytest.raises(docker.errors.NotFound):
        engine.containers.get(cid)


def test_eval_role_mounts(engine, tmp_path):
    eval_dir, tasks, cand = tmp_path / "eval", tmp_path / "tasks", tmp_path / "cand"
    for d in (eval_dir, tasks, cand):
        d.mkdir()
    (tasks / "t.txt").write_text("task\n")
    box = open_sandbox("docker", SandboxSpec(role="eval", platform="cpu", workdir=eval_dir, workdir_target="/eval",
                                             mounts=(Mount(tasks, "/gauntlet/tasks"), Mount(cand, "/gauntlet/candidate"))))
    try:
        res, out, _ = run(box, tmp_path, "for d in /eval /gauntlet/tasks /gauntlet/candidate /opt/gauntlet/runner /; do "
                                         "if touch $d/.w 2>/dev/null; then echo $d rw; else echo $d ro; fi; done; "
                                         "python3 -c 'import runner.evaluator, torch; print(torch.__version__)'")
        assert out.splitlines()[:5] == ["/eval rw", "/gauntlet/tasks ro", "/gauntlet/candidate ro",
                                        "/opt/gauntlet/runner ro", "/ ro"], out
        assert out.splitlines()[5].startswith("2.")
    finally:
        box.stop()


def test_an_installed_packages_suite_is_emptied_in_the_container(engine, tmp_path, monkeypatch):
    """A non-editable install carries every task's hidden configs and solution under runner/suite/;
    the package is mounted into every container (agents' and the judge's), so the suite is masked
    there by an empty read-only tmpfs. The package here: a copy of runner/ with a suite added."""
    from runner.sandbox import docker as docker_backend
    package = tmp_path / "site" / "runner"
    shutil.copytree(docker_backend.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    secret = package / "suite" / "tasks" / "t" / "hidden" / "configs.toml"
    secret.parent.mkdir(parents=True)
    secret.write_text("[[config]]\nname = 'hidden-prime'\n")
    monkeypatch.setattr(docker_backend, "PACKAGE", package)
    ws = tmp_path / "ws"
    ws.mkdir()
    box = open_sandbox("docker", SandboxSpec(role="agent", platform="cpu", workdir=ws))
    try:
        res, out, err = run(box, tmp_path, "ls -A /opt/gauntlet/runner/suite; cat /opt/gauntlet/runner/suite/tasks/t/"
                                           "hidden/configs.toml; touch /opt/gauntlet/runner/suite/x; "
                                           "ls /opt/gauntlet/runner/evaluator/__init__.py")
    finally:
        box.stop()
    assert "hidden-prime" not in out and "No such file" in err and "x" not in out.split("\n")[0], (out, err)
    assert "/opt/gauntlet/runner/evaluator/__init__.py" in out       # the code is there
    assert "Read-only file system" in err or "Permission denied" in err, err
