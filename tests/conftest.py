import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURE_TASKS = REPO / "tests" / "fixtures" / "tasks"
SCALE = "triton2triton/scale"


def _seccomp_mode() -> str:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("Seccomp:"):
            return line.split()[1]
    return "0"


@pytest.fixture(autouse=True)
def no_fork_filter_in_the_test_process(monkeypatch, request):
    """A kernel runner built in the pytest process (Runner(...).build) would put the fork filter
    (runner/evaluator/nofork.py) on pytest itself, and on everything it starts after: every later
    shell pipeline and bwrap then fails (CI 2026-11-28: 51 failures after test_evaluator.py). Here
    the filter is refused in-process; the runner programs the tests start still install their own.
    A test that leaves the process filtered anyway ends the session, naming itself."""
    from runner.evaluator import nofork
    monkeypatch.setattr(nofork, "install", lambda threads=True: "no fork filter: the pytest process (tests/conftest.py)")
    yield
    if _seccomp_mode() != "0":
        pytest.exit(f"{request.node.nodeid} left a seccomp filter on the pytest process: every later "
                    "test that forks would fail", returncode=3)


@pytest.fixture
def tasks_root(tmp_path) -> Path:
    """A writable copy of the fixture task suite."""
    root = tmp_path / "tasks"
    shutil.copytree(FIXTURE_TASKS, root)
    return root


def edit(root: Path, task: str, old: str, new: str) -> Path:
    """Replace `old` (which must be there) once in the task's task.toml; returns its path."""
    path = root / task / "task.toml"
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))
    return path


def load_error(root: Path, task: str = SCALE):
    """The TaskError that loading the task raises; its message is one line."""
    from runner.tasks.task import TaskError, load_task
    with pytest.raises(TaskError) as info:
        load_task(root / task, root)
    message = str(info.value)
    assert "\n" not in message
    return info.value


def gauntlet(*args, check=True, cwd=None, env=None, **kwargs) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess, as a user runs it (`env`: more variables for it)."""
    proc = subprocess.run([sys.executable, "-m", "runner.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd or REPO, env={**os.environ, "COLUMNS": "200", **(env or {})}, **kwargs)
    if check and proc.returncode != 0:
        raise AssertionError(f"gauntlet {' '.join(map(str, args))} failed ({proc.returncode}):\n"
                             f"{proc.stdout}\n{proc.stderr}")
    return proc


# The quick tier (`scripts/test.sh --quick`, pytest -m quick): the modules below, whose tests need
# no docker engine and no agent CLI and each take seconds, plus single tests marked `quick` (one
# end-to-end run of the fixture task, the scoring paths). Opt-in, so a new slow module cannot push
# the tier past its 10 minutes; the full tier (what CI runs) is every test.
QUICK_MODULES = {
    "test_configspace.py", "test_static_checks.py", "test_inputs.py", "test_timing_stats.py",
    "test_workspace.py", "test_prompt.py", "test_taskkit.py", "test_agent_env.py", "test_gpulock.py",
    "test_setup_docker_lock.py", "test_cpu_evaluation_cost.py", "test_image_inputs_hash.py", "test_agent_cli_pins.py",
    "agents/test_parsers.py", "agents/test_definitions.py", "agents/test_gateway.py",
    "test_doc_links.py", "test_own_blocks.py", "test_dram_witness.py",
}


def pytest_collection_modifyitems(config, items):
    tests = Path(__file__).parent
    for item in items:
        path = Path(str(item.fspath))
        if (path.is_relative_to(tests) and path.relative_to(tests).as_posix() in QUICK_MODULES
                and not item.get_closest_marker("slow") and not item.get_closest_marker("docker")):
            item.add_marker(pytest.mark.quick)
