"""The real Claude Code and Codex inside the agent container (docker backend, network none): their
only way out is the gateway's bind-mounted unix socket, via the in-container launcher.

Skipped without a Docker engine; with one, a missing gauntlet-cpu image (or one without the CLIs)
is a failure: scripts/setup-docker.sh builds it.
"""
import json
import time

import pytest

from runner.agents.model_server import ScriptedModelServer

from .conftest import KEY_ENV, attempt, gauntlet, jsonl, result

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module")
def image():
    try:
        import docker
        client = docker.from_env(timeout=30)
        client.ping()
    except Exception as exc:
        pytest.skip(f"no Docker engine reachable ({exc.__class__.__name__})")
    from runner.sandbox.images import image_ref
    ref = image_ref("cpu")
    try:
        client.images.get(ref)
    except Exception:
        pytest.fail(f"image {ref} is missing: run scripts/setup-docker.sh")
    out = client.containers.run(ref, ["sh", "-c", "for c in claude codex python3; do command -v $c; done"], network_mode="none",
                                remove=True)
    assert len(out.decode().split()) == 3, f"{ref} lacks the agent CLIs: rebuild it with --agent-clis"
    return ref


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_agents_check_in_a_container(agent, image, tmp_path):
    proc = gauntlet("agents", "check", agent, "--backend", "docker", "--out", tmp_path / "check", isolate=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"PASS: {agent} on the docker backend" in proc.stdout
    steps = jsonl(attempt(tmp_path / "check") / "agent" / "trajectory.jsonl")
    if agent == "claude-code":
        assert steps[0]["cwd"] == "/workspace"                       # it ran in the container


def test_hanging_model_is_killed_at_the_budget_in_a_container(image, tmp_path, tasks_root):
    out = tmp_path / "run"
    with ScriptedModelServer([{"read": "kernel.py"}, {"hang": True}], unix=tmp_path / "m.sock",
                             require_key="sk-real") as server:
        started = time.monotonic()
        proc = gauntlet("run", "--agent", "claude-code", "--backend", "docker", "--tasks", "triton2triton",
                        "--tasks-root", tasks_root, "--device", "cpu", "--budget", "20", "--out", out,
                        isolate=False, env={"GAUNTLET_GATEWAY_UPSTREAM": server.url, KEY_ENV["claude-code"]: "sk-real",
                                            "GAUNTLET_API_RETRIES": "0"})
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert len(server.requests) == 2 and time.monotonic() - started < 150
    r = result(out)
    assert r["status"] == "agent_timeout" and r["agent_failure"] == "timeout"
    assert 20 <= r["agent_seconds"] < 20 + 10 + 10
    assert json.loads((attempt(out) / "agent" / "gateway.json").read_text())["requests"] == 2


# Run twice: verbatim, as the CLI's shell gives it (Codex: a login shell, which reads the image's
# /etc/profile.d/gauntlet.sh), then with only the system's PATH. The profile puts the image's venv
# first on PATH and so would hide a bare `python3` in the prompt; the prompt's absolute interpreter
# must not need it (a CLI may start its shell with any PATH).
PROMPT_CHECK_SCRIPT = [{"shell": "{check} && env PATH=/usr/bin:/bin {check} && echo gauntlet-prompt-check-ok",
                        "timeout_s": 280}, {"text": "Checked."}]


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_the_prompts_check_command_runs_through_the_real_cli_in_a_container(agent, image, tmp_path, tasks_root):
    """Issue 11 in a container: the correctness command the prompt gives (`{check}`), run by the
    scripted model through the CLI's own shell tool, finds the interpreter with torch and passes on
    the untouched kernel."""
    out = tmp_path / "run"
    with ScriptedModelServer(PROMPT_CHECK_SCRIPT, unix=tmp_path / "m.sock", require_key="sk-real") as server:
        proc = gauntlet("run", "--agent", agent, "--backend", "docker", "--tasks", "triton2triton",
                        "--tasks-root", tasks_root, "--device", "cpu", "--budget", "300", "--out", out,
                        isolate=False, env={"GAUNTLET_GATEWAY_UPSTREAM": server.url, KEY_ENV[agent]: "sk-real",
                                            "GAUNTLET_API_RETRIES": "0"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    steps = jsonl(attempt(out) / "agent" / "trajectory.jsonl")
    calls = [s for s in steps if s["type"] == "tool_call"]
    assert calls and "-m runner.evaluator /workspace " in json.dumps(calls[0]["input"]), calls   # in the container
    if agent == "codex":
        assert calls[0]["input"]["command"].startswith("/bin/bash -lc "), calls
    outputs = [str(s.get("output")) for s in steps if s["type"] == "tool_result"]
    assert any("gauntlet-prompt-check-ok" in o for o in outputs), outputs
    assert result(out)["status"] == "ok", result(out)
