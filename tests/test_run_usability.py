"""What a new user hit (issue 31, "Usability"): `run --resume --out DIR` as the interruption hint
prints it, junk an agent leaves, SIGTERM on a --jobs run. Real CLI subprocesses, the real evaluator."""
import json

from .conftest import gauntlet
from .test_run import ATTEMPT, result


def test_resume_with_only_out_takes_every_option_from_the_manifest(tasks_root, tmp_path):
    out = tmp_path / "run"
    command = "echo resumed {task_id}; echo '# edited' >> {workspace}/kernel.py"
    gauntlet("run", "--agent", "command", "--command", command, "--tasks", "triton2triton", "--tasks-root",
             tasks_root, "--device", "cpu", "--budget", "45s", "--timing-regime", "warm", "--out", out)
    (out / "attempts" / ATTEMPT / "result.json").unlink()        # as if the run had been cut short
    again = gauntlet("run", "--resume", "--out", out, cwd=tmp_path)  # another folder: no relative paths to lean on
    assert "1 to do, 0 already finished" in again.stdout, again.stdout
    r = result(out)
    assert r["status"] == "ok" and r["correct_seen"] and r["timing_regime"] == "warm", r
    assert r["changed_files"] == ["kernel.py"]            # the run's own --command ran again
    assert "resumed triton2triton/scale" in (out / "attempts" / ATTEMPT / "agent" / "stdout.log").read_text()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["options"]["budget_s"] == 45.0 and manifest["options"]["timing_regime"] == "warm"

    changed = gauntlet("run", "--resume", "--out", out, "--budget", "60s", check=False, cwd=tmp_path)
    assert changed.returncode == 1
    errors = [line for line in changed.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and "budget_s (--budget) was 45.0, now 60.0" in errors[0], changed.stderr


def test_sigterm_stops_a_jobs_run_and_every_agent(tasks_root, tmp_path):
    """--jobs 2: SIGTERM lands in the main thread while the attempts' threads wait on their agents;
    the agents are stopped and the run ends now, not when their budgets run out."""
    import os
    import shutil
    import signal
    import subprocess
    import sys
    import time
    from .conftest import REPO
    from .test_run import SCALE
    clone = tasks_root / "triton2triton" / "scale_b"
    shutil.copytree(tasks_root / SCALE, clone)
    (clone / "task.toml").write_text((clone / "task.toml").read_text().replace(
        '"triton2triton/scale"', '"triton2triton/scale_b"'))
    out = tmp_path / "run"
    marker = "317.25"       # the agents' sleep, found in the process table by this argument
    proc = subprocess.Popen([sys.executable, "-m", "runner.cli", "run", "--agent", "command", "--command",
                             f"echo started; sleep {marker}", "--jobs", "2", "--budget", "10m", "--tasks",
                             "triton2triton", "--tasks-root", str(tasks_root), "--device", "cpu", "--out", str(out)],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)

    def sleepers():
        found = subprocess.run(["pgrep", "-f", f"^sleep {marker}$"], capture_output=True, text=True).stdout.split()
        return [int(p) for p in found]
    try:
        deadline = time.monotonic() + 180
        while len(sleepers()) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(sleepers()) == 2, "both agents never started"
        os.kill(proc.pid, signal.SIGTERM)
        stopped_at = time.monotonic()
        _, stderr = proc.communicate(timeout=60)
        took = time.monotonic() - stopped_at
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 143 and "--resume" in stderr, stderr
    assert took < 45 and sleepers() == [], (took, sleepers())
    assert not list(out.glob("attempts/*/result.json"))      # unfinished, not failed: --resume redoes them


def test_junk_an_agent_leaves_is_reported_and_gc_prunes_finished_workspaces(tasks_root, tmp_path):
    out = tmp_path / "run"
    proc = gauntlet("run", "--agent", "command", "--command",
                    "head -c 120000000 /dev/zero > {workspace}/junk.bin", "--tasks", "triton2triton",
                    "--tasks-root", tasks_root, "--device", "cpu", "--out", out)
    r = result(out)
    assert r["workspace_bytes"] >= 120_000_000, r["workspace_bytes"]
    assert "workspace=" in proc.stdout and "gauntlet gc --workspaces" in proc.stdout, proc.stdout
    workspace = out / "attempts" / ATTEMPT / "workspace"
    assert (workspace / "junk.bin").exists()
    dry = gauntlet("gc", "--backend", "local", "--dry-run", "--workspaces", out)
    assert f"would remove workspace {workspace}" in dry.stdout and workspace.exists()
    gauntlet("gc", "--backend", "local", "--workspaces", out)
    assert not workspace.exists()
    assert (out / "attempts" / ATTEMPT / "diff.patch").is_file() and result(out) == r
    assert "triton2triton" in gauntlet("report", out).stdout


def test_gc_keeps_the_workspaces_of_an_unfinished_run(tasks_root, tmp_path):
    out = tmp_path / "run"
    gauntlet("run", "--agent", "noop", "--tasks", "triton2triton", "--tasks-root", tasks_root, "--device", "cpu",
             "--out", out)
    manifest = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps({**manifest, "finished": None}))
    proc = gauntlet("gc", "--backend", "local", "--workspaces", out, check=False)
    assert proc.returncode == 1 and "unfinished" in proc.stderr
    assert (out / "attempts" / ATTEMPT / "workspace").is_dir()
