"""The prompt every agent gets: entry function and contract, device, rules that zero a candidate,
compile / correctness / timing commands, budget and hidden configs; its commands really run."""
import re
import shlex
import subprocess
import sys

from runner.agents.agent import build_prompt
from .conftest import REPO
from runner.tasks.task import default_tasks_root, load_task
from runner.workspace import Workspace

SCALE = "triton2triton/scale"


def prompt_for(task, device="cpu", check="CHECK"):
    return build_prompt(task, 600, 1_900_000_000, check, device, "/opt/venv/bin/python", 10.0)


def test_triton_prompt_names_contract_device_rules_and_commands(tasks_root):
    task = load_task(tasks_root / SCALE, tasks_root)
    prompt = prompt_for(task)
    assert f"`{task.entry}` is imported" in prompt and f"`{task.symbol}(*inputs)`" in prompt
    assert "Triton interpreter" in prompt and "not meaningful" in prompt
    assert "scores the attempt zero" in prompt and "`subprocess`" in prompt and "above 10x" in prompt
    assert "PyTorch or NumPy compute the result" in prompt
    assert "Compile: `/opt/venv/bin/python -m py_compile kernel.py`" in prompt
    assert "`CHECK --no-timing`" in prompt and "timing against the baseline: `CHECK`" in prompt
    assert "hidden configurations" in prompt and "600 seconds" in prompt


def test_cuda_prompt_gives_the_launch_contract_and_the_compile_flags():
    root = default_tasks_root()
    task = next(load_task(d.parent, root) for d in sorted(root.glob("cuda2cuda/*/task.toml")))
    prompt = prompt_for(task, device="cuda")
    assert f'extern "C" int {task.symbol}(...)' in prompt and "void* stream" in prompt
    assert "an NVIDIA GPU (CUDA)" in prompt
    compile_line = next(line for line in prompt.splitlines() if line.startswith("- Compile:"))
    assert "nvcc -O3" in compile_line and task.entry in compile_line
    assert all(flag in compile_line for flag in task.compile_flags)


def test_the_prompt_commands_run_in_the_workspace(tasks_root, tmp_path):
    """The compile and correctness commands, as written, succeed on the untouched workspace."""
    task = load_task(tasks_root / SCALE, tasks_root)
    ws = Workspace(tmp_path / "ws", task)
    ws.prepare()
    check = f"{sys.executable} -m runner.evaluator {ws.path} --workspace --device cpu --split seen"
    prompt = build_prompt(task, 600, 1_900_000_000, check, "cpu", sys.executable, 10.0)
    commands = dict(re.findall(r"^- (Compile|Correctness)[^`]*`([^`]+)`", prompt, re.M))
    for name in ("Compile", "Correctness"):
        proc = subprocess.run(shlex.split(commands[name]), cwd=ws.path, capture_output=True, text=True,
                              env={"PYTHONPATH": str(REPO)})
        assert proc.returncode == 0, (name, proc.stderr[-2000:])


def test_image_profile_gives_login_shells_the_image_path(tmp_path):
    """scripts/images/write-profile.sh: after /etc/profile resets PATH, the written profile puts the
    image's PATH (the venv first) back, as `bash -lc` sources it."""
    import os
    subprocess.run(["sh", REPO / "scripts/images/write-profile.sh"], check=True,
                   env={"PATH": f"/opt/venv/bin:{os.environ['PATH']}", "PYTHONPATH": "/opt/gauntlet",
                        "PROFILE_D": str(tmp_path)})
    out = subprocess.run(["env", "-i", "bash", "-c", f". /etc/profile; . {tmp_path}/gauntlet.sh; "
                          'echo "$PATH|$PYTHONPATH"'], capture_output=True, text=True, check=True).stdout
    assert out.startswith("/opt/venv/bin:") and out.strip().endswith("|/opt/gauntlet")


def test_the_prompt_check_command_works_through_a_login_shell(tasks_root, tmp_path):
    """An agent that runs the prompt's correctness command with `bash -lc` (as Codex does; a login
    shell resets PATH) still gets the interpreter with torch: the prompt names it absolutely."""
    from .conftest import gauntlet
    out = tmp_path / "run"
    grab = "sed -n 's/^- Correctness[^`]*`\\(.*\\)`$/\\1/p' {prompt_file}"
    command = f'bash -lc "$({grab})" > check.log 2>&1; echo $? > rc.txt'
    gauntlet("run", "--tasks", "triton2triton", "--tasks-root", tasks_root, "--device", "cpu", "--out", out,
             "--agent", "command", "--command", command)
    workspace = out / "attempts" / "triton2triton__scale" / "workspace"
    log = (workspace / "check.log").read_text()
    assert (workspace / "rc.txt").read_text().strip() == "0", log[-2000:]
