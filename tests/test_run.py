"""`gauntlet run/eval/report` end to end: real CLI subprocesses, real git, the real evaluator running
Triton kernels in the interpreter on the CPU."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import REPO, gauntlet

SCALE = "triton2triton/scale"
ATTEMPT = "triton2triton__scale"

# Correct on the seen sizes (1000, 4099) only: a shape-hardcoding "fast path".
HARDCODED = '''
import torch
def forward(x, alpha):
    if x.numel() in (1000, 4099):
        return x * alpha
    return torch.zeros_like(x)
'''


def result(run_dir: Path, attempt: str = ATTEMPT) -> dict:
    return json.loads((run_dir / "attempts" / attempt / "result.json").read_text())


def writes(name: str, text: str) -> str:
    """A shell command that writes `text` to `name` in the agent's workspace. The text travels in
    the command: a confined agent sees its workspace and toolchains, never the test's tmp_path."""
    import base64
    return f"echo {base64.b64encode(text.encode()).decode()} | base64 -d > {name}"


def run(tasks_root, out, *args, check=True):
    return gauntlet("run", "--tasks", "triton2triton", "--tasks-root", tasks_root, "--device", "cpu",
                    "--out", out, *args, check=check)


@pytest.mark.quick
def test_oracle_passes_every_gate(tasks_root, tmp_path):
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", "oracle")
    r = result(out)
    assert r["status"] == "ok" and r["compiled"] and r["correct_seen"] and r["correct_unseen"]
    assert r["changed_files"] == ["kernel.py"] and r["violations"] == []
    assert r["speedup_seen"] > 0 and r["speedup_unseen"] > 0 and r["timing_meaningful"] is False
    splits = sorted((c["config"], c["split"]) for c in r["configs"])
    assert splits == [("hidden-prime", "unseen"), ("hidden-tiny", "unseen"), ("odd", "seen"), ("small", "seen")]
    for c in r["configs"]:
        assert c["correct"] and c["baseline_ms"] > 0 and c["candidate_ms"] > 0 and c["max_abs_err"] == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["options"]["agent"] == "oracle" and manifest["finished"]
    assert manifest["versions"]["torch"] and manifest["tasks"] == [SCALE]
    assert "+    _scale[(triton.cdiv(n, 1024),)]" in (out / "attempts" / ATTEMPT / "diff.patch").read_text()
    # the self-check command in the prompt names this interpreter (a venv's), not the first python3 on PATH
    prompt = (out / "attempts" / ATTEMPT / "agent" / "prompt.md").read_text()
    assert f"{sys.executable} -m runner.evaluator" in prompt
    ev = json.loads((out / "attempts" / ATTEMPT / "evaluation.json").read_text())
    assert ev["environment"]["runner_isolation"] in ("bwrap", "unshare", "setpriv"), ev["environment"]
    # result.json says what the numbers were measured on: the judge's own torch/triton, what torch
    # was built for (no CUDA or ROCm here), the CPU and OS
    env = r["environment"]
    assert env["torch"] == manifest["versions"]["torch"] and env["triton"] and env["device"] == "cpu"
    assert env["cuda"] is None and env["hip"] is None and env["cpu"] and "Linux" in env["os"], env
    from runner.evaluator.build import compiler_versions
    assert {k: env[k] for k in compiler_versions()} == compiler_versions()


def test_hardcoded_seen_shapes_fail_correct_unseen(tasks_root, tmp_path):
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", "command", "--command", writes("kernel.py", HARDCODED))
    r = result(out)
    assert r["compiled"] and r["correct_seen"] and not r["correct_unseen"]
    assert r["speedup_seen"] is not None and r["speedup_unseen"] is None
    unseen = [c for c in r["configs"] if c["split"] == "unseen"]
    assert unseen and not any(c["correct"] for c in unseen)
    assert all(c["baseline_correct"] for c in unseen)


def test_edits_to_protected_files_are_ignored_by_the_evaluator(tasks_root, tmp_path):
    """Rewriting the reference to agree with a wrong kernel changes nothing: the evaluator uses the
    pristine reference, and the edit is reported as a violation."""
    out = tmp_path / "run"
    script = ("printf 'import torch\\ndef forward(x, a):\\n    return torch.zeros_like(x)\\n' > kernel.py; "
              "printf 'import torch\\ndef make_inputs(c, g, d):\\n    return [torch.zeros(3), 1.0]\\n"
              "def reference(x, a):\\n    return torch.zeros_like(x)\\n' > reference.py; "
              "echo '[[config]]' > configs.toml; echo PASS; echo '{\"correct_seen\": true}' > result.json")
    run(tasks_root, out, "--agent", "command", "--command", script)
    r = result(out)
    assert r["compiled"] and not r["correct_seen"] and not r["correct_unseen"]
    assert r["violations"] == ["configs.toml", "reference.py", "result.json"]
    assert sorted(p.name for p in (out / "attempts" / ATTEMPT / "candidate").iterdir()) == ["kernel.py"]


def test_agent_timeout_is_recorded_and_still_evaluated(tasks_root, tmp_path):
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", "command", "--budget", "1s",
        "--command", "trap '' TERM; sleep 30")
    r = result(out)
    assert r["status"] == "agent_timeout" and r["agent_seconds"] < 25
    assert r["compiled"] and r["correct_seen"]  # the untouched baseline is evaluated as it stands


def test_failing_agent_is_agent_error(tasks_root, tmp_path):
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", "command", "--command", "exit 7")
    r = result(out)
    assert r["status"] == "agent_error" and r["agent_exit_code"] == 7


def test_replay_and_eval_reproduce_a_run(tasks_root, tmp_path):
    first = tmp_path / "first"
    run(tasks_root, first, "--agent", "oracle")
    second = tmp_path / "second"
    run(tasks_root, second, "--agent", "replay", "--replay-from", first)
    assert (second / "attempts" / ATTEMPT / "diff.patch").read_text() == \
        (first / "attempts" / ATTEMPT / "diff.patch").read_text()
    assert result(second)["correct_unseen"]
    # eval rebuilds the candidate from diff.patch alone
    shutil.rmtree(first / "attempts" / ATTEMPT / "workspace")
    (first / "attempts" / ATTEMPT / "result.json").write_text(
        json.dumps({**result(first), "correct_unseen": False, "speedup_seen": None}))
    tampered = (first / "attempts" / ATTEMPT / "result.json").read_text()
    evaluated = gauntlet("eval", first, "--device", "cpu", "--tasks-root", tasks_root).stdout
    assert result(first)["correct_unseen"] and result(first)["speedup_seen"] > 0
    # the result it replaced is kept, numbered; a progress line says so, and the report follows
    kept = first / "attempts" / ATTEMPT
    assert (kept / "result.prev-1.json").read_text() == tampered
    assert (kept / "evaluation.prev-1.json").is_file()
    assert f"phase  {SCALE} (oracle): evaluating (the previous result kept as result.prev-1.json)" in evaluated
    assert "seen ok %" in evaluated, evaluated
    gauntlet("eval", first, "--device", "cpu", "--tasks-root", tasks_root)
    assert json.loads((kept / "result.prev-2.json").read_text())["correct_unseen"]
    assert gauntlet("report", first, "--format", "json").stdout.count('"attempts": 1') == 1


def test_report_formats(tasks_root, tmp_path):
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", "oracle")
    table = gauntlet("report", out).stdout
    assert "triton2triton" in table and "100.0" in table
    # the default report fits a 100-column terminal with the longest shipped agent name, an infra
    # error's warning included, and says what its scores mean
    path = out / "attempts" / ATTEMPT / "result.json"
    path.write_text(json.dumps({**result(out), "agent": "claude-code"}))
    (out / "attempts" / "triton2triton__other").mkdir()
    (out / "attempts" / "triton2triton__other" / "result.json").write_text(
        json.dumps({**result(out), "task": "triton2triton/other", "status": "infra_error"}))
    table = gauntlet("report", out, env={"COLUMNS": "100"}).stdout
    assert "claude-code" in table and "ended in infra_error" in table
    assert max(map(len, table.splitlines())) <= 100, table
    assert "bounded: max(0, 1 - 1.05 / speedup)" in table and "fast_p:" in table and "docs/scoring.md" in table
    (out / "attempts" / "triton2triton__other" / "result.json").unlink()
    rows = json.loads(gauntlet("report", out, "--format", "json").stdout)
    assert rows[0]["attempts"] == 1 and rows[0]["correct_unseen_pct"] == 100.0
    assert rows[0]["geomean_speedup_seen"] > 0
    csv_text = gauntlet("report", out, "--format", "csv").stdout
    assert csv_text.splitlines()[0].startswith("category,agent,device,attempts,compiled_pct")
    assert gauntlet("report", out, "--format", "md").stdout.startswith("| category |")


@pytest.mark.parametrize("args,message", [
    (["--agent", "nobody"], "--agent: name: no agent 'nobody'"),
    (["--agent", "oracle", "--budget", "soon"], "--budget: 'soon' is not a duration"),
    (["--agent", "command"], "a command agent needs a command"),
    (["--agent", "replay"], "--replay-from"),
    (["--agent", "command", "--command", "x {nope}"], "bad placeholder"),
])
def test_bad_run_input_is_one_clear_line(tasks_root, tmp_path, args, message):
    proc = run(tasks_root, tmp_path / "run", *args, check=False)
    assert proc.returncode != 0
    errors = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and message in errors[0], proc.stderr


def test_a_run_folder_holding_the_temporary_folder_is_one_clear_line(tasks_root, tmp_path):
    """`--out /tmp`: the run's folder is hidden from the kernel runners, whose folders are made in
    the temporary folder; said before any agent runs, not as every attempt's evaluation error."""
    out = tmp_path / "run"
    (out / "tmp").mkdir(parents=True)
    proc = gauntlet("run", "--tasks", "triton2triton", "--tasks-root", tasks_root, "--device", "cpu",
                    "--out", out, "--agent", "oracle", check=False, env={"TMPDIR": str(out / "tmp")})
    errors = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode != 0 and len(errors) == 1, proc.stderr
    assert f"--out: {out} holds {out / 'tmp'}, where the kernel runners work" in errors[0], errors
    assert not (out / "attempts").exists()


def test_existing_run_dir_needs_resume_with_same_options(tasks_root, tmp_path):
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", "noop")
    again = run(tasks_root, out, "--agent", "noop", check=False)
    assert again.returncode != 0 and "--resume" in again.stderr
    other = run(tasks_root, out, "--agent", "oracle", "--resume", check=False)
    assert other.returncode != 0 and "manifest.json: options:" in other.stderr


def _clone_task(tasks_root: Path, name: str) -> None:
    dest = tasks_root / "triton2triton" / name
    shutil.copytree(tasks_root / SCALE, dest)
    toml = dest / "task.toml"
    toml.write_text(toml.read_text().replace('"triton2triton/scale"', f'"triton2triton/{name}"'))


def test_resume_after_sigkill_loses_and_redoes_nothing(tasks_root, tmp_path, monkeypatch):
    # The agents log their starts to a host file, which a confined agent cannot reach: this test is
    # of the run layer's resume, so its agents run unconfined (confinement: test_sandbox_conformance).
    from runner.sandbox.confine import CONFINEMENT_ENV
    monkeypatch.setenv(CONFINEMENT_ENV, "off")
    for name in ("scale_b", "scale_c"):
        _clone_task(tasks_root, name)
    out = tmp_path / "run"
    log = tmp_path / "agent-starts"
    command = f"echo {{task_id}} >> {log}; sleep 2"
    argv = [sys.executable, "-m", "runner.cli", "run", "--agent", "command", "--command", command,
            "--tasks", "triton2triton", "--tasks-root", str(tasks_root), "--device", "cpu", "--out", str(out)]
    proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    first = out / "attempts" / ATTEMPT / "result.json"
    deadline = time.monotonic() + 120
    while not first.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert first.exists(), "the first attempt never finished"
    while log.read_text().count("\n") < 2 and time.monotonic() < deadline:
        time.sleep(0.05)  # the second attempt's agent is running now
    os.kill(proc.pid, signal.SIGKILL)  # the runner only: its agent is orphaned, as after a crash
    proc.wait()
    finished_before = {p.parent.name: p.read_bytes() for p in out.glob("attempts/*/result.json")}
    assert ATTEMPT in finished_before and len(finished_before) < 3

    gauntlet(*argv[3:-2], "--out", out, "--resume")
    finished_after = {p.parent.name: p.read_bytes() for p in out.glob("attempts/*/result.json")}
    assert sorted(finished_after) == ["triton2triton__scale", "triton2triton__scale_b", "triton2triton__scale_c"]
    for name, data in finished_before.items():
        assert finished_after[name] == data, f"{name} was redone"
    starts = log.read_text().split()
    for name in finished_before:
        assert starts.count(name.replace("__", "/")) == 1
    assert all(json.loads(d)["correct_seen"] for d in finished_after.values())


@pytest.mark.parametrize("args,message", [
    (["--budget", "0"], "--budget: '0' is no time at all"),
    (["--budget", "0m0s"], "is no time at all"),
    (["--max-speedup", "nan"], "'nan' must be a finite number above 0"),
    (["--max-speedup", "inf"], "'inf' must be a finite number above 0"),
    (["--max-speedup", "0"], "'0' must be a finite number above 0"),
    (["--max-speedup", "-2"], "'-2' must be a finite number above 0"),
])
def test_nonsense_run_options_are_refused_before_any_attempt(tasks_root, tmp_path, args, message):
    out = tmp_path / "run"
    proc = run(tasks_root, out, "--agent", "noop", *args, check=False)
    assert proc.returncode != 0 and not out.exists()
    errors = [line for line in proc.stderr.splitlines() if line.startswith(("error:", "Error:"))]
    assert len(errors) == 1 and message in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_run_dirs_that_are_not_runs_or_are_in_use_get_one_line(tasks_root, tmp_path):
    """--resume on a folder that holds no run, --out under a file, a corrupt manifest or result, an
    attempt without its diff, and a run dir held by a live process: one line each, nothing run."""
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run(tasks_root, empty, "--agent", "noop", "--resume", check=False)
    assert proc.returncode == 1 and "holds no run (no manifest.json)" in proc.stderr and not any(empty.iterdir())
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for under_or_is_a_file in (a_file / "run", a_file):
        proc = run(tasks_root, under_or_is_a_file, "--agent", "noop", check=False)
        assert proc.returncode == 1 and "cannot hold a run" in proc.stderr and "Traceback" not in proc.stderr

    out = tmp_path / "run"
    run(tasks_root, out, "--agent", "noop")
    held = subprocess.Popen([sys.executable, "-c", "import sys, time; sys.path.insert(0, sys.argv[1]); "
                             "from runner.run.layout import lock_run_dir; from pathlib import Path; "
                             "h = lock_run_dir(Path(sys.argv[2])); print('held', flush=True); time.sleep(60)",
                             str(REPO), str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert held.stdout.readline().strip() == "held"
        before = result(out)
        proc = run(tasks_root, out, "--agent", "noop", "--resume", check=False)
        assert proc.returncode == 1 and "in use by a live gauntlet process (pid" in proc.stderr, proc.stderr
        proc = gauntlet("eval", out, "--tasks-root", tasks_root, "--device", "cpu", check=False)
        assert proc.returncode == 1 and "in use by a live gauntlet process" in proc.stderr
        assert result(out) == before
    finally:
        held.kill()
        held.wait()
    from runner.run.layout import run_is_live
    assert not run_is_live(out)                        # the kernel dropped the dead holder's lock

    diff = out / "attempts" / ATTEMPT / "diff.patch"
    kept = diff.read_bytes()
    diff.unlink()
    proc = gauntlet("eval", out, "--tasks-root", tasks_root, "--device", "cpu", check=False)
    assert proc.returncode == 1 and f"{diff}: missing" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    # Beside an attempt that has its diff (a copy of this one, as a repeat would be), the one without
    # is named and keeps its result, and the other is still re-evaluated.
    other = out / "attempts" / (ATTEMPT + "__k1")
    shutil.copytree(out / "attempts" / ATTEMPT, other)
    (other / "diff.patch").write_bytes(kept)
    untouched = result(out)
    proc = gauntlet("eval", out, "--tasks-root", tasks_root, "--device", "cpu", check=False)
    assert proc.returncode == 1 and f"{diff}: missing" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert (other / "result.prev-1.json").is_file() and not (diff.parent / "result.prev-1.json").exists()
    assert result(out) == untouched
    shutil.rmtree(other)
    diff.write_bytes(kept)
    manifest = out / "manifest.json"
    kept = manifest.read_text()
    manifest.write_text("{not json")
    for args in (("eval", out, "--tasks-root", tasks_root, "--device", "cpu"),
                 ("run", "--tasks", "triton2triton", "--tasks-root", tasks_root, "--device", "cpu", "--out", out,
                  "--agent", "noop", "--resume")):
        proc = gauntlet(*args, check=False)
        assert proc.returncode == 1 and f"{manifest}: not a readable manifest" in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr
    manifest.write_text(kept)

    result_path = out / "attempts" / ATTEMPT / "result.json"
    result_path.write_text("{not json")
    for args in (("report", out), ("eval", out, "--tasks-root", tasks_root, "--device", "cpu")):
        proc = gauntlet(*args, check=False)
        assert proc.returncode == 1 and f"{result_path}: not a readable result" in proc.stderr, proc.stderr
    (out / "manifest.json").write_text("[1, 2]")
    proc = run(tasks_root, out, "--agent", "noop", "--resume", check=False)
    assert proc.returncode == 1 and "not a manifest (a JSON list" in proc.stderr


def test_junk_beside_a_real_edit_is_a_violation_and_the_edit_is_evaluated(tasks_root, tmp_path):
    """A 900 MB file (sparse: cheap; under a confined agent's 1 GB cap per file) next to a kernel
    edit: the attempt is ok, the edit is evaluated, the junk is a violation with its size and stays
    out of diff.patch."""
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", "command", "--command", "truncate -s 900M junk.bin && " + writes("kernel.py", HARDCODED))
    r = result(out)
    assert r["status"] == "ok" and r["compiled"] and r["correct_seen"] and not r["correct_unseen"]
    assert r["changed_files"] == ["junk.bin", "kernel.py"]
    assert r["violations"] == ["junk.bin (943718400 bytes; not recorded)"]
    assert (out / "attempts" / ATTEMPT / "diff.patch").stat().st_size < 10_000


def test_chmod_000_on_the_kernel_and_the_workspace_loses_no_edit(tasks_root, tmp_path):
    """A runner that cannot read past file modes (any non-root user): the agent's `chmod 000` on
    kernel.py, a folder and the workspace itself is undone by the runner before the record and the
    export, and the edit is evaluated. As root the CLI runs without CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH, so that mode 000 binds it as it binds a non-root owner. The agent runs
    unconfined: confinement hands the workspace to uid 1000 for the phase, which a root without
    those capabilities (no real user's setup) cannot take back; a non-root user's bwrap maps the
    agent to that user, who owns the files, as here."""
    from runner.sandbox.confine import CONFINEMENT_ENV
    prefix: list[str] = []
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.fail("running as root needs setpriv to drop the capabilities that ignore file modes")
        dac = "-dac_override,-dac_read_search"
        prefix = ["setpriv", f"--inh-caps={dac}", f"--bounding-set={dac}"]
    out = tmp_path / "run"
    command = (writes("kernel.py", "import torch\ndef forward(x, alpha):\n    return x * alpha\n")
               + " && chmod 000 kernel.py && mkdir sub && echo x > sub/f && chmod 000 sub .")
    proc = subprocess.run([*prefix, sys.executable, "-m", "runner.cli", "run", "--tasks", "triton2triton",
                           "--tasks-root", tasks_root, "--device", "cpu", "--out", out,
                           "--agent", "command", "--command", command], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, CONFINEMENT_ENV: "off"})
    r = result(out)
    assert r["status"] == "ok", (r.get("error"), proc.stderr[-2000:])
    assert r["compiled"] and r["correct_seen"] and r["correct_unseen"]
    assert r["changed_files"] == ["kernel.py", "sub/f"] and r["violations"] == ["sub/f"]


def test_progress_lines_when_stdout_is_not_a_terminal(tasks_root, tmp_path):
    """CI and log files (a pipe here) get a timestamped line at each phase of an attempt, the --unseen
    draw included, in order, between the attempt's start and done lines."""
    stdout = gauntlet("run", "--tasks", "triton2triton", "--tasks-root", tasks_root, "--device", "cpu",
                      "--out", tmp_path / "run", "--agent", "oracle", "--unseen", "1",
                      env={"GAUNTLET_PROGRESS_EVERY_S": "0.2"}).stdout
    # and a "still" line while a phase lasts (an evaluation starts a python that imports torch and
    # runs the interpreter: seconds, far over 0.2 s)
    assert f"still  {SCALE} (oracle)" in stdout and "s since: evaluating (compile" in stdout, stdout
    phases = [f"start  {SCALE} (oracle)", f"phase  {SCALE} (oracle): drawing 2 candidate configs",
              "agent oracle started", "agent done: ok", f"{SCALE} (oracle): evaluating", f"done   {SCALE}"]
    positions = [stdout.find(p) for p in phases]
    assert -1 not in positions and positions == sorted(positions), stdout
    import re
    assert re.search(rf"^\d\d:\d\d:\d\d phase  {SCALE} \(oracle\): agent done", stdout, re.M), stdout


@pytest.mark.parametrize("every", ["0", "-5", "soon", "nan"])
def test_bad_progress_interval_is_one_line(tasks_root, tmp_path, every):
    proc = gauntlet("run", "--tasks", SCALE, "--tasks-root", tasks_root, "--device", "cpu", "--out", tmp_path / "run",
                    "--agent", "oracle", env={"GAUNTLET_PROGRESS_EVERY_S": every}, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"GAUNTLET_PROGRESS_EVERY_S: '{every}' is not a positive number of seconds" in proc.stderr
    assert not (tmp_path / "run").exists()


def test_progress_on_a_terminal_shows_each_phase_in_the_attempts_row(tasks_root, tmp_path):
    """A real pseudo-terminal: the live row of the attempt names its phase, text as written (rich
    markup would eat the "[space]" of the draw)."""
    import pty
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "runner.cli", "run", "--tasks", "triton2triton", "--tasks-root",
                             str(tasks_root), "--device", "cpu", "--out", str(tmp_path / "run"), "--agent", "oracle",
                             "--unseen", "1"], cwd=REPO, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                            env={**os.environ, "COLUMNS": "200", "TERM": "xterm"})
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:          # EIO: the CLI exited and closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait() == 0
    screen = b"".join(chunks).decode(errors="replace")
    assert f"{SCALE} (oracle): drawing 2 candidate configs from [space] (seed 0)" in screen, screen
    assert f"{SCALE} (oracle): evaluating (compile, correctness, timing)" in screen, screen


def test_an_unwritable_out_is_one_line(tasks_root, tmp_path):
    """--out inside a folder the runner may not write: one line, no traceback. As root the CLI runs
    without CAP_DAC_OVERRIDE, so that the folder's mode binds it as it binds any other user."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.fail("running as root needs setpriv to drop the capability that ignores file modes")
        prefix = ["setpriv", "--inh-caps=-dac_override", "--bounding-set=-dac_override"]
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        proc = subprocess.run([*prefix, sys.executable, "-m", "runner.cli", "run", "--tasks", "triton2triton",
                               "--tasks-root", tasks_root, "--device", "cpu", "--out", locked / "run",
                               "--agent", "noop"], capture_output=True, text=True, cwd=REPO)
    finally:
        locked.chmod(0o755)
    errors = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 1 and len(errors) == 1, proc.stderr
    assert f"--out: {locked / 'run'} cannot hold a run (Permission denied)" in errors[0]
