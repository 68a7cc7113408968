import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURE_TASKS = REPO / "tests" / "fixtures" / "tasks"


@pytest.fixture
def tasks_root(tmp_path) -> Path:
    """A writable copy of the fixture task suite."""
    root = tmp_path / "tasks"
    shutil.copytree(FIXTURE_TASKS, root)
    return root


def gauntlet(*args, check=True, cwd=None, **kwargs) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess, as a user runs it."""
    proc = subprocess.run([sys.executable, "-m", "runner.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd or REPO, env={**os.environ, "COLUMNS": "200"}, **kwargs)
    if check and proc.returncode != 0:
        raise AssertionError(f"gauntlet {' '.join(map(str, args))} failed ({proc.returncode}):\n"
                             f"{proc.stdout}\n{proc.stderr}")
    return proc
