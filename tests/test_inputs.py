"""Bad inputs get one clear line (exit != 0, no traceback) before any agent runs: real CLI
subprocesses, real engines and files (issue 11)."""
import json
import shutil
from pathlib import Path

import pytest

from .conftest import gauntlet

SCALE = "triton2triton/scale"


def one_line_error(proc, *words):
    """The CLI refused: exit != 0, no traceback, and the last stderr line names every word."""
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    for word in words:
        assert word in line, line
    return line


def no_attempt_started(out: Path):
    assert not (out / "attempts").exists(), list(out.rglob("*"))


# -- 1. preflight -------------------------------------------------------------------------------
@pytest.mark.parametrize("device", ["cuda", "rocm"])
def test_a_device_this_host_lacks_is_one_line_before_any_agent(tasks_root, tmp_path, device):
    from runner.run.preflight import device_present
    if device_present(device):
        pytest.skip(f"this host has a {device} device")
    out = tmp_path / "run"
    proc = gauntlet("run", "--agent", "oracle", "--tasks", SCALE, "--tasks-root", tasks_root,
                    "--device", device, "--out", out, check=False)
    one_line_error(proc, f"--device {device}", "no {device} device".format(device=device))
    no_attempt_started(out)


def test_eval_checks_the_device_too(tasks_root, tmp_path):
    from runner.run.preflight import device_present
    if device_present("cuda"):
        pytest.skip("this host has a cuda device")
    out = tmp_path / "run"
    gauntlet("run", "--agent", "noop", "--tasks", SCALE, "--tasks-root", tasks_root, "--device", "cpu",
             "--out", out, "--budget", "60")
    proc = gauntlet("eval", out, "--tasks-root", tasks_root, "--device", "cuda", check=False)
    one_line_error(proc, "--device cuda")


def test_docker_without_an_engine_is_one_line(tasks_root, tmp_path):
    out = tmp_path / "run"
    proc = gauntlet("run", "--agent", "oracle", "--tasks", SCALE, "--tasks-root", tasks_root, "--device", "cpu",
                    "--backend", "docker", "--out", out, check=False,
                    env={"DOCKER_HOST": f"unix://{tmp_path}/no-engine.sock"})
    one_line_error(proc, "--backend docker", "no docker engine", "no-engine.sock")
    no_attempt_started(out)


def test_docker_without_the_image_is_one_line(tasks_root, tmp_path):
    import docker
    try:
        docker.from_env(timeout=10).ping()
    except Exception:
        pytest.skip("no docker engine on this host")
    out = tmp_path / "run"
    proc = gauntlet("run", "--agent", "oracle", "--tasks", SCALE, "--tasks-root", tasks_root, "--device", "cpu",
                    "--backend", "docker", "--out", out, check=False,
                    env={"GAUNTLET_IMAGE_CPU": "gauntlet-no-such-image:0"})
    one_line_error(proc, "--backend docker", "gauntlet-no-such-image:0", "missing", "images build cpu")
    no_attempt_started(out)


# -- 2. a broken task is the task's error: validate runs its reference ---------------------------
BROKEN_REFERENCES = {
    "raises-at-import": ("raise ImportError('no such module: helpers')\n", "ImportError"),
    "syntax-error": ("def make_inputs(config, generator, device)\n    return []\n", "SyntaxError"),
    "no-make-inputs": ("def reference(x, alpha):\n    return x * alpha\n", "no callable make_inputs"),
    "make-inputs-wrong-type": ("def make_inputs(config, generator, device):\n    return ['x']\n"
                               "def reference(x):\n    return x\n", "returned a str"),
    "make-inputs-not-a-list": ("def make_inputs(config, generator, device):\n    return None\n"
                               "def reference(x):\n    return x\n", "make_inputs raised TypeError"),
    "exits-the-process": ("import os\ndef make_inputs(config, generator, device):\n    os._exit(7)\n"
                          "def reference(x):\n    return x\n", "ended the process"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_REFERENCES))
def test_validate_runs_the_reference_and_names_the_broken_one(tasks_root, case):
    source, words = BROKEN_REFERENCES[case]
    (tasks_root / SCALE / "reference.py").write_text(source)
    proc = gauntlet("tasks", "validate", "--tasks-root", tasks_root, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "reference.py: reference:" in lines[0] and words in lines[0], lines
    assert "0 valid, 1 invalid" in proc.stdout


def test_validate_catches_a_reference_that_fails_only_on_a_hidden_config(tasks_root):
    reference = tasks_root / SCALE / "reference.py"
    reference.write_text(reference.read_text() + "\n_orig = reference\n"
                         "def reference(x, alpha):\n    assert x.numel() != 7, 'prime size'\n"
                         "    return _orig(x, alpha)\n")
    hidden = (tasks_root / SCALE / "hidden" / "configs.toml").read_text()
    assert "n = 7\n" in hidden, hidden
    proc = gauntlet("tasks", "validate", "--tasks-root", tasks_root, check=False)
    assert proc.returncode == 1 and "AssertionError: prime size" in proc.stderr and "unseen config" in proc.stderr
    assert gauntlet("tasks", "validate", "--load-only", "--tasks-root", tasks_root).returncode == 0


# -- 3. agent files: a schema, one line per problem, before any agent runs ---------------------
BAD_AGENT_FILES = {
    "gateway-not-a-table": ('gateway = "yes"\n', "gateway: must be a table, not 'yes'"),
    "env-set-integer": ('[env]\nset = { RETRIES = 3 }\n', "env.set.RETRIES: must be a string, not 3"),
    "env-required-string": ('[env]\nrequired = "MY_KEY"\n', "env.required: must be a list of strings"),
    "unknown-gateway-key": ('[gateway]\nprotocol = "anthropic"\nupstreem = "https://x"\n',
                            "gateway.upstreem: unknown key"),
    "unknown-gateway-protocol": ('[gateway]\nprotocol = "grpc"\n', "gateway.protocol: 'grpc' is not one of"),
    "unknown-parser": ('parser = "yaml-stream"\n', "parser: unknown parser 'yaml-stream'"),
    "unknown-top-key": ('timeout = 5\n', "timeout: unknown key"),
    "kind-unknown": ('', "kind: 'robot' is not one of", "robot"),
    "description-not-string": ('description = 3\n', "description: must be a string"),
    "not-utf8": (b"description = \"\xff\xfe\"\n", "file: not UTF-8 text"),
}


@pytest.mark.parametrize("case", sorted(BAD_AGENT_FILES))
def test_a_bad_agent_file_is_one_line_before_any_agent_runs(tasks_root, tmp_path, case):
    extra, words, *kind = BAD_AGENT_FILES[case]
    head = f'name = "mine"\nkind = "{kind[0] if kind else "command"}"\ncommand = "true"\n'
    agent = tmp_path / "mine.toml"
    if isinstance(extra, bytes):
        agent.write_bytes(head.encode() + extra)
    else:
        # TOML tables come after the top-level keys
        agent.write_text(head + extra)
    out = tmp_path / "run"
    proc = gauntlet("run", "--agent", agent, "--tasks", SCALE, "--tasks-root", tasks_root, "--device", "cpu",
                    "--out", out, check=False)
    line = one_line_error(proc, f"{agent}: {words}")
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not out.exists(), line


def test_the_shipped_agent_files_pass_the_schema():
    proc = gauntlet("agents", "list")
    assert {line.split()[0] for line in proc.stdout.splitlines()} >= {"claude-code", "codex", "cursor", "noop"}


# -- 5. messages that say what is wrong -----------------------------------------------------------
@pytest.mark.parametrize("command", [["run", "--agent", "noop", "--device", "cpu"], ["tasks", "list"],
                                     ["tasks", "validate"], ["tasks", "show", SCALE]])
@pytest.mark.parametrize("root_kind", ["missing", "empty"])
def test_a_missing_or_empty_tasks_root_says_so(tmp_path, command, root_kind):
    root = tmp_path / "suite"
    if root_kind == "empty":
        root.mkdir()
    proc = gauntlet(*command, "--tasks-root", root, check=False)
    line = one_line_error(proc, str(root), "--tasks-root",
                          "no such folder" if root_kind == "missing" else "holds no task")
    assert "device" not in line


def test_eval_with_an_empty_tasks_root_says_so(tasks_root, tmp_path):
    out = tmp_path / "run"
    gauntlet("run", "--agent", "noop", "--tasks", SCALE, "--tasks-root", tasks_root, "--device", "cpu",
             "--out", out, "--budget", "60")
    (tmp_path / "empty").mkdir()
    proc = gauntlet("eval", out, "--tasks-root", tmp_path / "empty", "--device", "cpu", check=False)
    one_line_error(proc, "--tasks-root", "holds no task")


@pytest.mark.parametrize("command,asked,meant", [
    (["tasks", "show"], "softmax", "cuda2cuda/softmax, hip2hip/softmax, torch2cuda/softmax, torch2hip/softmax, "
                                   "torch2triton/softmax, triton2triton/softmax"),
    (["tasks", "show"], "cuda2cuda/sofmax", "cuda2cuda/softmax"),
    (["tasks", "list"], "softmx", "cuda2cuda/softmax"),
])
def test_a_task_id_that_is_not_there_suggests_the_ones_meant(command, asked, meant):
    proc = gauntlet(*command, asked, check=False)
    one_line_error(proc, f"no task {asked!r}" if command[1] == "show" else f"{asked!r} matches no task",
                   f"did you mean {meant}")


# -- 4. the loader and the candidate export --------------------------------------------------------
@pytest.mark.parametrize("command", [["tasks", "validate", "--load-only"], ["tasks", "show", SCALE],
                                     ["run", "--agent", "noop", "--device", "cpu", "--tasks", SCALE]])
@pytest.mark.parametrize("file", ["task.toml", "configs.toml", "hidden/configs.toml"])
def test_a_task_file_that_is_not_utf8_is_one_line(tasks_root, tmp_path, command, file):
    path = tasks_root / SCALE / file
    path.write_bytes(path.read_bytes().replace(b'"', b'"\xff', 1))
    proc = gauntlet(*command, "--tasks-root", tasks_root, check=False)
    one_line_error(proc, f"{path}: ", "not UTF-8 text")


def test_an_editable_file_that_links_out_of_the_task_folder_is_refused(tasks_root, tmp_path):
    secret = tmp_path / "host-secret.py"
    secret.write_text("TOKEN = 'not for agents'\n")
    kernel = tasks_root / SCALE / "kernel.py"
    kernel.unlink()
    kernel.symlink_to(secret)
    out = tmp_path / "run"
    for command in (["tasks", "validate", "--load-only"],
                    ["run", "--agent", "noop", "--device", "cpu", "--tasks", SCALE, "--out", out]):
        proc = gauntlet(*command, "--tasks-root", tasks_root, check=False)
        one_line_error(proc, "task.toml: workspace.files", "'kernel.py' is a symlink out of the task folder")
    assert not out.exists()


def test_eval_never_writes_through_a_candidate_folder_that_is_a_symlink(tasks_root, tmp_path):
    out = tmp_path / "run"
    gauntlet("run", "--agent", "oracle", "--tasks", SCALE, "--tasks-root", tasks_root, "--device", "cpu",
             "--out", out, "--budget", "60")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("mine")
    candidate = out / "attempts" / "triton2triton__scale" / "candidate"
    shutil.rmtree(candidate)
    candidate.symlink_to(elsewhere, target_is_directory=True)
    gauntlet("eval", out, "--tasks-root", tasks_root, "--device", "cpu")
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.txt"]          # nothing written there
    assert not candidate.is_symlink() and (candidate / "kernel.py").is_file()
    import json
    assert json.loads((candidate.parent / "result.json").read_text())["correct_unseen"] is True


# -- 6. found by scripts/probe_inputs.py (docs/reliability.md) -------------------------------------
@pytest.mark.parametrize("breakage,field,words", [
    ("folder", "task.toml", "is a folder, not a file"),
    ('platforms = ["cuda", "rocm", "cpu"]|platforms = []', "platforms", "must name at least one"),
    ("\n[tolerance.float32]\natol = -1\nrtol = 0.1\n", "tolerance.float32.atol", "finite number >= 0, not -1"),
    ('\n[tolerance.float32]\natol = 0.1\nrtol = "tight"\n', "tolerance.float32.rtol", "not 'tight'"),
])
def test_a_task_toml_the_loader_used_to_accept_or_crash_on_is_one_line(tasks_root, breakage, field, words):
    path = tasks_root / SCALE / "task.toml"
    if breakage == "folder":
        path.unlink()
        path.mkdir()
    elif "|" in breakage:
        old, new = breakage.split("|")
        assert old in path.read_text()
        path.write_text(path.read_text().replace(old, new))
    else:
        path.write_text(path.read_text() + breakage)
    proc = gauntlet("tasks", "validate", "--load-only", "--tasks-root", tasks_root, check=False)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1 and "0 valid, 1 invalid" in proc.stdout, proc.stdout + proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith(f"{path}: {field}: ") and words in line, line


def test_tasks_validate_names_a_selector_that_matches_nothing(tasks_root):
    proc = gauntlet("tasks", "validate", "--load-only", "--tasks-root", tasks_root, "triton2triton/scal",
                    check=False)
    one_line_error(proc, "selector", "'triton2triton/scal' matches no task", f"did you mean {SCALE}")


def test_eval_of_a_diff_patch_that_does_not_apply_is_one_line(tasks_root, tmp_path):
    out = tmp_path / "run"
    gauntlet("run", "--agent", "noop", "--tasks", SCALE, "--tasks-root", tasks_root, "--device", "cpu",
             "--out", out, "--budget", "60")
    patch = next(out.glob("attempts/*/diff.patch"))
    patch.write_text("diff --git a/kernel.py b/kernel.py\n@@ not a hunk\n")
    proc = gauntlet("eval", out, "--tasks-root", tasks_root, "--device", "cpu", check=False)
    one_line_error(proc, f"{patch}: does not apply", "No valid patches")
    assert not (patch.parent / "reeval-workspace").exists()


def test_agents_check_names_the_budget_option():
    proc = gauntlet("agents", "check", "noop", "--budget", "abc", check=False)
    one_line_error(proc, "--budget: 'abc' is not a duration")


def test_the_probe_script_runs_bad_inputs_through_the_real_cli(tmp_path):
    import subprocess
    import sys
    from .conftest import REPO
    out = tmp_path / "reliability.md"
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "probe_inputs.py"), "--out", out,
                           "--only", "agent: env", "--jobs", "1"], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [line for line in out.read_text().splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(rows) >= 3 and all(line.endswith("| ok |") for line in rows), rows
    assert any("env.set.RETRIES: must be a string, not 3" in line for line in rows), rows


def test_the_probe_script_has_at_least_100_distinct_probes():
    import sys
    from .conftest import REPO
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import probe_inputs
    finally:
        sys.path.remove(str(REPO / "scripts"))
    names = [p.name for p in probe_inputs.probes()]
    assert len(names) >= 100 and len(set(names)) == len(names)


def test_resume_with_other_options_names_only_the_ones_that_differ(tasks_root, tmp_path):
    out = tmp_path / "run"
    gauntlet("run", "--agent", "noop", "--tasks", SCALE, "--tasks-root", tasks_root, "--device", "cpu",
             "--out", out, "--budget", "60")
    proc = gauntlet("run", "--agent", "noop", "--tasks", SCALE, "--tasks-root", tasks_root, "--device", "cpu",
                    "--out", out, "--budget", "90", "--resume", check=False)
    line = one_line_error(proc, f"{out / 'manifest.json'}: options:", "budget_s (--budget) was 60.0, now 90.0")
    assert "timing_regime" not in line and "agent_command" not in line, line


@pytest.mark.parametrize("source,words", [("folder", "holds no run's diffs"), ("not-a-diff", "is not a diff")])
def test_a_replay_source_that_holds_no_diff_is_refused_before_any_attempt(tasks_root, tmp_path, source, words):
    path = tmp_path / source
    if source == "folder":
        path.mkdir()
    else:
        path.write_text("name = 'an agent file, not a patch'\n")
    out = tmp_path / "run"
    proc = gauntlet("run", "--agent", "replay", "--replay-from", path, "--tasks", SCALE, "--tasks-root", tasks_root,
                    "--device", "cpu", "--out", out, check=False)
    one_line_error(proc, "--replay-from", str(path), words)
    no_attempt_started(out)


@pytest.mark.parametrize("source,words", [
    ("raise RuntimeError('broken at import')\n", "importing it failed: RuntimeError: broken at import"),
    ("def other(x, a):\n    return x\n", "defines no callable forward"),
])
def test_tasks_validate_checks_the_shipped_solution(tasks_root, source, words):
    path = tasks_root / "triton2triton" / "scale" / "solution" / "kernel.py"
    path.write_text(source)
    proc = gauntlet("tasks", "validate", "--tasks-root", tasks_root, check=False)
    assert proc.returncode == 1 and f"{path}: solution: {words}" in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_tasks_validate_runs_the_references_canonical(tasks_root):
    """canonical() runs in the judge on every comparison; a task whose canonical() cannot take the
    reference's own outputs is the task's error, named before any agent runs."""
    path = tasks_root / "triton2triton" / "scale" / "reference.py"
    path.write_text(path.read_text() + "\n\ndef canonical(outputs, *args):\n    raise ValueError('no such column')\n")
    proc = gauntlet("tasks", "validate", "--tasks-root", tasks_root, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "canonical() of the reference's outputs" in out and "no such column" in out, out


def test_resume_names_an_unreadable_result_it_redoes(tasks_root, tmp_path):
    out = tmp_path / "run"
    argv = ["run", "--agent", "noop", "--tasks", "triton2triton/scale", "--tasks-root", tasks_root,
            "--device", "cpu", "--out", out]
    gauntlet(*argv)
    result = out / "attempts" / "triton2triton__scale" / "result.json"
    result.write_text("[1")
    proc = gauntlet(*argv, "--resume")
    assert f"warning: {result}: unreadable (JSONDecodeError" in proc.stderr, proc.stderr
    assert json.loads(result.read_text())["status"] == "ok"      # redone
