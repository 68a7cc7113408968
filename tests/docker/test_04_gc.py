"""A runner killed with SIGKILL mid-attempt leaves containers that `gauntlet gc` removes; --resume
then finishes the run."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from runner.sandbox.docker import managed_containers
from runner.sandbox.images import image_ref
from tests.conftest import REPO, gauntlet

from .conftest import SCALE


def labelled(engine, run_dir):
    return managed_containers(engine, f"gauntlet.run={run_dir.resolve()}")


def start_runner(engine, args, out) -> tuple[subprocess.Popen, list]:
    """Start a runner in its own session; return it and its agent's containers once they exist."""
    proc = subprocess.Popen([sys.executable, "-m", "runner.cli", *args], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while not labelled(engine, out) and time.monotonic() < deadline:
        time.sleep(0.1)
    live = labelled(engine, out)
    if not live:
        os.killpg(proc.pid, signal.SIGKILL)
    assert live, "the agent container never appeared"
    return proc, live


def start_and_kill(engine, args, out):
    """Start a runner, SIGKILL it (and its process group) once its agent container exists."""
    proc, _ = start_runner(engine, args, out)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    left = labelled(engine, out)
    assert left and left[0].labels["gauntlet.managed"] == "true"   # SIGKILL leaves it behind
    return left


def test_sigkilled_runner_then_gc_then_resume(engine, shared_tasks, tmp_path):
    out = tmp_path / "run"
    args = ["run", "--agent", "command", "--command", "sleep 30", "--backend", "docker", "--device", "cpu",
            "--tasks", SCALE, "--tasks-root", str(shared_tasks), "--budget", "6s", "--out", str(out)]
    # 1. killed; `gauntlet gc` removes what it left
    left = start_and_kill(engine, args, out)
    assert left[0].name in gauntlet("gc", "--dry-run").stdout
    gauntlet("gc")
    assert labelled(engine, out) == []
    assert managed_containers(engine) == []
    # 2. the resumed run is killed too; 3. the next --resume removes that run's leftovers and finishes
    start_and_kill(engine, [*args, "--resume"], out)
    gauntlet(*args, "--resume")
    assert labelled(engine, out) == []
    result = (out / "attempts" / SCALE.replace("/", "__") / "result.json")
    assert result.is_file()
    assert '"agent_timeout"' in result.read_text()


def test_doctor_reports_engine_and_image(engine):
    proc = gauntlet("doctor", "--device", "cpu", check=False)
    assert "engine" in proc.stdout and "docker" in proc.stdout
    assert "image gauntlet-cpu" in proc.stdout
    assert "torch 2." in proc.stdout
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_gc_spares_the_containers_of_a_live_run(engine, shared_tasks, tmp_path):
    out = tmp_path / "live"
    args = ["run", "--agent", "command", "--command", "sleep 60", "--backend", "docker", "--device", "cpu",
            "--tasks", SCALE, "--tasks-root", str(shared_tasks), "--budget", "60s", "--out", str(out)]
    proc, live = start_runner(engine, args, out)
    try:
        gauntlet("gc")
        assert [c.name for c in labelled(engine, out)] == [c.name for c in live]   # still there
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    gauntlet("gc")                                    # the run is dead now: its leftovers go
    assert labelled(engine, out) == []


def test_a_container_removed_while_gc_lists_is_skipped_not_an_error(engine, monkeypatch):
    """The engine lists a container, then it is gone before its inspection (a run finishing beside
    the one that lists: CI saw a 404 from exactly this). Listing, gc and a resume's leftover sweep
    skip it; the other containers are still handled."""
    import docker.errors

    from runner.sandbox import docker as sandbox_docker

    ref = image_ref("cpu")
    run_label = "gauntlet.run=/nonexistent/removed-while-listing"
    kept, vanishing = (engine.containers.create(ref, ["true"], network_mode="none",
                                                labels={"gauntlet.managed": "true",
                                                        "gauntlet.run": "/nonexistent/removed-while-listing"})
                       for _ in range(2))
    real_inspect = engine.api.inspect_container

    def inspect(container_id, *a, **k):
        if container_id == vanishing.id:
            raise docker.errors.NotFound(f"No such container: {container_id}")
        return real_inspect(container_id, *a, **k)

    try:
        monkeypatch.setattr(sandbox_docker, "client", lambda: engine)
        monkeypatch.setattr(engine.api, "inspect_container", inspect)
        assert [c.id for c in sandbox_docker.managed_containers(engine, run_label)] == [kept.id]
        assert sandbox_docker.kill_leftovers("/nonexistent/removed-while-listing") == 1
        monkeypatch.setattr(engine.api, "inspect_container", real_inspect)
        assert [c.id for c in sandbox_docker.managed_containers(engine, run_label)] == [vanishing.id]
        monkeypatch.setattr(engine.api, "inspect_container", inspect)
        assert not any(vanishing.name in line for line in sandbox_docker.gc(dry_run=True))   # skipped, no 404
    finally:
        for c in (kept, vanishing):
            try:
                c.remove(force=True)
            except docker.errors.NotFound:
                pass
