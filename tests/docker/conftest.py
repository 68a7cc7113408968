"""Docker backend tests: a real engine, real containers (all with network none).

Every test here carries the `docker` marker. Without a reachable engine they are skipped with the
reason; with one, a missing gauntlet-cpu image is an error (scripts/setup-docker.sh builds it).
Limits are tightened through the environment so the hostile tests finish in seconds.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_TASKS, REPO, gauntlet

SCALE = "triton2triton/scale"

# Small limits: the memory and disk bombs hit them quickly; the evaluation (torch import, the
# triton interpreter) still fits.
LIMITS = {
    "GAUNTLET_DOCKER_MEMORY": "1g",
    "GAUNTLET_DOCKER_PIDS": "256",
    "GAUNTLET_DOCKER_TMPFS": "64m",
    "GAUNTLET_DOCKER_SHM": "64m",
    "GAUNTLET_DOCKER_FILE_MAX": "32m",
    "GAUNTLET_DOCKER_WORKSPACE_MAX": "48m",
    "GAUNTLET_DOCKER_WORKSPACE_FILES": "20000",
    "GAUNTLET_DOCKER_CPUS": "1",
}


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.docker)


@pytest.fixture(scope="session")
def engine():
    try:
        import docker
        client = docker.from_env(timeout=30)
        client.ping()
    except Exception as exc:  # only reason to skip: no engine at all
        pytest.skip(f"no Docker engine reachable ({exc.__class__.__name__}: {exc}); "
                    f"scripts/setup-docker.sh installs and starts one")
    from runner.sandbox.images import image_ref
    ref = image_ref("cpu")
    try:
        client.images.get(ref)
    except Exception:
        pytest.fail(f"image {ref} is missing: run scripts/setup-docker.sh (or gauntlet images build cpu "
                    f"--base gauntlet-base:bookworm --wheelhouse DIR)")
    return client


@pytest.fixture(scope="session", autouse=True)
def docker_limits():
    saved = {k: os.environ.get(k) for k in LIMITS}
    os.environ.update(LIMITS)
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def shared_tasks(tmp_path_factory) -> Path:
    """One copy of the fixture suite shared by every attempt of the session: a hostile attempt that
    changed it would change the others' results (test_zz_after checks it did not)."""
    root = tmp_path_factory.mktemp("suite") / "tasks"
    shutil.copytree(FIXTURE_TASKS, root)
    return root


def tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(Path(root).rglob("*")):
        if "__pycache__" in p.parts:
            continue
        h.update(p.relative_to(root).as_posix().encode())
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


class Attempt:
    def __init__(self, run_dir: Path, proc):
        self.run_dir = run_dir
        self.proc = proc
        self.dir = run_dir / "attempts" / SCALE.replace("/", "__")

    @property
    def result(self) -> dict:
        return json.loads((self.dir / "result.json").read_text())

    @property
    def diff(self) -> str:
        return (self.dir / "diff.patch").read_text()

    def workspace(self, rel: str) -> Path:
        return self.dir / "workspace" / rel

    def log(self, name="stdout.log") -> str:
        path = self.dir / "agent" / name
        return path.read_text(errors="replace") if path.exists() else ""


@pytest.fixture
def run_agent(engine, shared_tasks, tmp_path):
    """`gauntlet run --backend docker --device cpu` of one agent on the fixture task."""
    def run(agent: str, command: str | None = None, budget: str = "60s", extra=()) -> Attempt:
        out = tmp_path / "run"
        args = ["run", "--agent", agent, "--backend", "docker", "--device", "cpu", "--tasks", SCALE,
                "--tasks-root", shared_tasks, "--budget", budget, "--out", out, *extra]
        if command is not None:
            args += ["--command", command]
        proc = gauntlet(*args, timeout=600)
        return Attempt(out, proc)
    return run


HIDDEN_NAMES = ("hidden-prime", "hidden-tiny")
