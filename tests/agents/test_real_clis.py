"""The real Claude Code and Codex CLIs (npm, scripts/install-agents.sh), run by `gauntlet run` on the
local backend against the scripted model server, through the gateway.

Each `gauntlet run` runs in a fresh network namespace with only loopback up (when this host allows
`unshare -n`, as root does): the model server is reached through a unix socket, so the run works only
if nothing but loopback and unix sockets is needed. Cursor's CLI cannot be installed here: a fake
`cursor-agent` that plays Cursor's documented stream-json events stands in for it.
"""
import json
import shutil
import os
import socket
import threading
import time
from pathlib import Path

import psutil
import pytest

from runner.agents.model_server import CHECK_SCRIPT, ScriptedModelServer

from .conftest import KEY_ENV, attempt, gauntlet, jsonl, netns_prefix, require_cli, result

pytestmark = pytest.mark.slow
AGENTS = ["claude-code", "codex"]
NEW_LINE = "+    _scale[(triton.cdiv(n, 1024),)](x, y, n, alpha, BLOCK=1024)"
# The scripted server's deterministic usage summed over the check script's four turns.
EXPECTED_USAGE = {
    "claude-code": {"input_tokens": 406, "cache_read_tokens": 126, "cache_write_tokens": 80, "output_tokens": 34},
    "codex": {"input_tokens": 606, "cache_read_tokens": 200, "cache_write_tokens": 0, "output_tokens": 42},
}
TOOLS = {"claude-code": ["Read", "Edit", "Bash"], "codex": ["shell", "shell", "shell"]}


def run_agent(agent, tmp_path, tasks_root, script, budget="180"):
    require_cli(agent)
    out = tmp_path / "run"
    with ScriptedModelServer(script, unix=tmp_path / "model.sock", require_key="sk-real-key") as server:
        proc = gauntlet("run", "--agent", agent, "--tasks", "triton2triton", "--tasks-root", tasks_root,
                        "--device", "cpu", "--budget", budget, "--out", out,
                        env={"GAUNTLET_GATEWAY_UPSTREAM": server.url, KEY_ENV[agent]: "sk-real-key",
                             "GAUNTLET_API_RETRIES": "0"})
        requests = list(server.requests)
    # exit 3 exactly when an attempt did not score (infra_error, task_error: docs/scoring.md)
    unscored = result(out)["status"] in ("infra_error", "task_error")
    assert proc.returncode == (3 if unscored else 0), proc.stdout + proc.stderr
    return out, requests


@pytest.mark.parametrize("agent", AGENTS)
def test_scripted_edit_lands_is_evaluated_and_usage_matches_meter(agent, tmp_path, tasks_root):
    out, requests = run_agent(agent, tmp_path, tasks_root, CHECK_SCRIPT)
    r = result(out)
    assert r["status"] == "ok" and r["agent_failure"] is None and r["agent_exit_code"] == 0
    assert r["changed_files"] == ["kernel.py"] and r["violations"] == []
    assert NEW_LINE in (attempt(out) / "diff.patch").read_text()
    assert r["compiled"] and r["correct_seen"] and r["correct_unseen"]            # evaluated
    usage = {k: r["usage"][k] for k in EXPECTED_USAGE[agent]}
    meter = json.loads((attempt(out) / "agent" / "gateway.json").read_text())
    assert usage == EXPECTED_USAGE[agent] and r["usage_source"] == "gateway"       # the meter first, never the stream's claim
    assert {k: meter["usage"][k] for k in usage} == usage                         # = the gateway's meter
    assert meter["requests"] == len(requests) == 4 and meter["statuses"] == {"200": 4}
    # the upstream saw only the real key; the CLI only ever had the per-attempt one
    for req in requests:
        headers = {k.lower(): v for k, v in req["headers"].items()}
        assert "sk-real-key" in (headers.get("x-api-key", "") + headers.get("authorization", ""))
    steps = jsonl(attempt(out) / "agent" / "trajectory.jsonl")
    assert [s["name"] for s in steps if s["type"] == "tool_call"] == TOOLS[agent]
    assert any("gauntlet-scripted-check-ok" in str(s.get("output")) for s in steps if s["type"] == "tool_result")
    assert all(isinstance(s["t"], float) for s in steps)
    if agent == "claude-code":
        assert r["usage"]["turns"] == 4


@pytest.mark.parametrize("agent", AGENTS)
def test_a_script_that_never_finishes_is_killed_at_the_budget(agent, tmp_path, tasks_root):
    started = time.monotonic()
    out, requests = run_agent(agent, tmp_path, tasks_root, [{"read": "kernel.py"}, {"hang": True}], budget="20")
    r = result(out)
    assert r["status"] == "agent_timeout" and r["agent_failure"] == "timeout"
    assert 20 <= r["agent_seconds"] < 20 + 10 + 5                                # budget + SIGTERM grace
    assert len(requests) == 2 and time.monotonic() - started < 120
    # no final event from the killed CLI: usage is what the gateway metered (the answered first turn)
    meter = json.loads((attempt(out) / "agent" / "gateway.json").read_text())
    assert r["usage_source"] == "gateway" and r["usage"]["output_tokens"] > 0
    assert {k: r["usage"][k] for k in EXPECTED_USAGE[agent]} == {k: meter["usage"][k] for k in EXPECTED_USAGE[agent]}
    workspace = str(attempt(out) / "workspace")
    left = []
    for proc in psutil.process_iter(["cwd"]):
        if (proc.info.get("cwd") or "").startswith(workspace):
            left.append(proc)
    assert left == []                                                             # nothing outlives it


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("error,failure", [(401, "auth"), (429, "rate_limit")])
def test_api_errors_are_classified(agent, error, failure, tmp_path, tasks_root):
    out, requests = run_agent(agent, tmp_path, tasks_root, [{"error": error}], budget="90")
    r = result(out)
    assert r["agent_failure"] == failure
    assert r["status"] == "infra_error"                  # infra classes are retryable: not the agent's fault
    assert requests and all(e["status"] == error for e in jsonl(attempt(out) / "agent" / "gateway.jsonl"))


@pytest.mark.parametrize("agent", AGENTS)
def test_agents_check_passes(agent, tmp_path):
    require_cli(agent)
    proc = gauntlet("agents", "check", agent, "--out", tmp_path / "check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"PASS: {agent} on the local backend" in proc.stdout
    assert "ok    usage matches gateway meter" in proc.stdout and "FAIL" not in proc.stdout


def test_runs_are_loopback_only_here():
    """Guard for the guard: on this machine the runs above really ran without a network."""
    if os.geteuid() != 0:
        pytest.skip("no network namespace for a non-root user here")
    assert netns_prefix(), "unshare -n is unavailable: the real-CLI runs were not network-isolated"


def test_cursor_through_a_fake_cli(tmp_path, tasks_root):
    """cursor.toml end to end with a fake cursor-agent (Cursor's CLI cannot be installed here): its
    command line and key are checked by the fake, its stream parsed, its edit evaluated, and its one
    CONNECT tunnel goes through the gateway to the allowlisted (here: loopback echo) host."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shutil.copy(Path(__file__).resolve().parent / "fake_cursor_agent.py", bindir / "cursor-agent")
    echo = socket.socket()
    echo.bind(("127.0.0.1", 0))
    echo.listen(1)

    def serve():
        conn, _ = echo.accept()
        conn.sendall(conn.recv(64).replace(b"ping", b"pong"))
        conn.close()
    threading.Thread(target=serve, daemon=True).start()
    allowed = f"127.0.0.1:{echo.getsockname()[1]}"
    (bindir / "fake-env.json").write_text(json.dumps({"FAKE_CURSOR_UPSTREAM": allowed}))   # beside the fake
    out = tmp_path / "run"
    proc = gauntlet("run", "--agent", "cursor", "--tasks", "triton2triton", "--tasks-root", tasks_root,
                    "--device", "cpu", "--budget", "60", "--out", out, "--model", "sonnet-4.5", isolate=False,
                    env={"PATH": f"{bindir}:{os.environ['PATH']}", "CURSOR_API_KEY": "cur-test",
                         "GAUNTLET_GATEWAY_UPSTREAM": allowed})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    r = result(out)
    assert r["status"] == "ok" and r["agent_failure"] is None, (attempt(out) / "agent" / "stderr.log").read_text()
    assert NEW_LINE in (attempt(out) / "diff.patch").read_text() and r["correct_unseen"]
    assert r["usage"] == {"input_tokens": 1200, "cache_read_tokens": 300, "cache_write_tokens": 0,
                          "output_tokens": 80}
    steps = jsonl(attempt(out) / "agent" / "trajectory.jsonl")
    assert [s["name"] for s in steps if s["type"] == "tool_call"] == ["read", "edit", "shell"]
    tunnel = jsonl(attempt(out) / "agent" / "gateway.jsonl")
    assert [(e["method"], e["path"], e["status"]) for e in tunnel] == [("CONNECT", allowed, 200)]


@pytest.mark.parametrize("agent", AGENTS)
def test_agents_check_with_a_script_whose_edit_repeats_old_lines(agent, tmp_path):
    """A new text that keeps lines of the old one: those lines stay unchanged context in the diff,
    and the edit still landed."""
    require_cli(agent)
    script = tmp_path / "script.json"
    script.write_text(json.dumps([
        {"read": "kernel.py"},
        {"edit": "kernel.py", "old": "    y = torch.empty_like(x)\n",
         "new": "    y = torch.empty_like(x)\n    # the output, written by the kernel below\n"},
        {"text": "Added a comment."}]))
    proc = gauntlet("agents", "check", agent, "--script", script, "--out", tmp_path / "check")
    assert "ok    edit landed in diff.patch" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize("agent", AGENTS)
def test_the_prompts_check_command_runs_through_the_real_cli(agent, tmp_path, tasks_root):
    """The scripted model runs the correctness command the prompt gives (`{check}`), verbatim, through
    the CLI's own shell tool: it must find the interpreter with torch and pass on the untouched kernel.
    Codex runs it in a login shell (`bash -lc`, which resets PATH: issue 11), answers after at most
    30 s with the command still running, and the scripted model polls the session until it exits."""
    script = [{"shell": "{check} && echo gauntlet-prompt-check-ok", "timeout_s": 280}, {"text": "Checked."}]
    out, _ = run_agent(agent, tmp_path, tasks_root, script, budget="300")
    steps = jsonl(attempt(out) / "agent" / "trajectory.jsonl")
    calls = [s for s in steps if s["type"] == "tool_call"]
    assert calls and "-m runner.evaluator" in json.dumps(calls[0]["input"]), calls
    if agent == "codex":
        assert calls[0]["input"]["command"].startswith("/bin/bash -lc "), calls      # the PATH-resetting shell
    outputs = [str(s.get("output")) for s in steps if s["type"] == "tool_result"]
    assert any("gauntlet-prompt-check-ok" in o for o in outputs), outputs
    assert result(out)["status"] == "ok", result(out)
