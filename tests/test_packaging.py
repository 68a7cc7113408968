"""A non-editable install works outside the checkout: the wheel carries tasks/, agents/, the
Dockerfiles and scripts/images/ as package data (runner/resources.py finds them). Builds the real
wheel (pip wheel --no-deps --no-build-isolation) and installs it into a fresh venv that borrows this
venv's dependencies (torch, click, ...) through a .pth path, so nothing is downloaded."""
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from .conftest import REPO


def sh(*argv, **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, f"{argv}: {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.mark.slow
def test_wheel_installed_outside_the_repo_finds_tasks_agents_and_dockerfiles(tmp_path):
    # build from a copy of the tracked and unignored files (a build in place leaves build/ behind)
    src = tmp_path / "src"
    src.mkdir()
    files = sh("git", "-C", REPO, "ls-files", "-co", "--exclude-standard", "-z").stdout.split("\0")
    sh("tar", "-C", REPO, "-cf", tmp_path / "src.tar", *[f for f in files if f and (REPO / f).is_file()])
    sh("tar", "-C", src, "-xf", tmp_path / "src.tar")
    sh(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", tmp_path / "wheel", src)
    wheel = next((tmp_path / "wheel").glob("gauntlet-*.whl"))

    venv = tmp_path / "venv"
    sh(getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--system-site-packages", "--without-pip", venv)
    python = venv / "bin" / "python"
    site = Path(sh(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    # this venv's packages, after the new venv's own (a path line: its editable finder is not run)
    (site / "zz_host_packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    sh(python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel)

    away = tmp_path / "elsewhere"      # no tasks/ or agents/ anywhere near
    away.mkdir()
    where = sh(python, "-c", "import runner, runner.sandbox.images as i, runner.resources as r; "
               "print(runner.__file__); print(r.suite_root()); print(i.dockerfile('cuda').is_file())", cwd=away)
    package, root, dockerfile = where.stdout.split()
    assert Path(package).is_relative_to(site) and Path(root) == site / "runner" / "suite", where.stdout
    assert dockerfile == "True"
    # the judge's native sources, built where it runs: the device trace's library, the DRAM witness's sampler
    sources = sh(python, "-c", "import runner.evaluator.devtrace as t, runner.evaluator.judge.dram as w; "
                 "print(t.SOURCE.is_file(), w.SOURCE.is_file(), w.SOURCE.is_relative_to(r'" + str(site) + "'))",
                 cwd=away).stdout.split()
    assert sources == ["True", "True", "True"], sources
    tasks = sh(venv / "bin" / "gauntlet", "tasks", "list", cwd=away).stdout
    shipped = sorted(f"{p.parent.parent.name}/{p.parent.name}" for p in (REPO / "tasks").glob("*/*/task.toml"))
    assert sorted(line.split()[0] for line in tasks.splitlines()) == shipped, tasks
    agents = sh(venv / "bin" / "gauntlet", "agents", "list", cwd=away).stdout
    assert {line.split()[0] for line in agents.splitlines()} == {p.stem for p in (REPO / "agents").glob("*.toml")}
