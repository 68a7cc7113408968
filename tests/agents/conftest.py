"""Shared helpers for the agent-adapter tests.

The real-CLI tests need `scripts/install-agents.sh` (npm: @anthropic-ai/claude-code, @openai/codex
into .agents/node_modules). A missing CLI fails those tests, with the install line: set
GAUNTLET_SKIP_REAL_AGENTS=1 to skip them instead on a machine without npm.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from runner.agents.gateway import find_cli

REPO = Path(__file__).resolve().parents[2]
FIXTURE_TASKS = REPO / "tests" / "fixtures" / "tasks"
ATTEMPT = "triton2triton__scale"
KEY_ENV = {"claude-code": "ANTHROPIC_API_KEY", "codex": "OPENAI_API_KEY"}
CLI = {"claude-code": "claude", "codex": "codex"}


def require_cli(agent: str) -> None:
    if find_cli(CLI[agent]):
        return
    message = f"{CLI[agent]} is not installed: run scripts/install-agents.sh"
    if os.environ.get("GAUNTLET_SKIP_REAL_AGENTS") == "1":
        pytest.skip(message)
    pytest.fail(message + " (or set GAUNTLET_SKIP_REAL_AGENTS=1 to skip the real-CLI tests)")


def netns_prefix() -> list[str]:
    """Run a command in a fresh network namespace with only loopback up: nothing but loopback and
    unix sockets can be reached. Empty when this host cannot (not root and no user namespaces)."""
    if not shutil.which("unshare") or not shutil.which("ip"):
        return []
    for flags in (["-n"], ["-rn"]):
        probe = subprocess.run(["unshare", *flags, "sh", "-c", "ip link set lo up"], capture_output=True)
        if probe.returncode == 0:
            return ["unshare", *flags, "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]
    return []


def gauntlet(*args, env=None, isolate=True, timeout=600) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess (in a loopback-only network namespace where possible)."""
    prefix = netns_prefix() if isolate else []
    return subprocess.run([*prefix, sys.executable, "-m", "runner.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=REPO, env={**os.environ, "COLUMNS": "200", **(env or {})}, timeout=timeout)


@pytest.fixture
def tasks_root(tmp_path) -> Path:
    root = tmp_path / "tasks"
    shutil.copytree(FIXTURE_TASKS, root)
    return root


def attempt(run_dir: Path) -> Path:
    return Path(run_dir) / "attempts" / ATTEMPT


def result(run_dir: Path) -> dict:
    return json.loads((attempt(run_dir) / "result.json").read_text())


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
