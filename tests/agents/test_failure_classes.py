"""Failure classes from structured signals (docs/agents.md "Failure classes"): the gateway's record of
each model request (status, stream outcome), the CLI's final event, the exit code; never stderr text.

The pure classifier first, then the real Claude Code and Codex CLIs (scripts/install-agents.sh) run by
`gauntlet run` against the scripted model server with faults: a 500, a stalled stream (stopped by the
gateway after the agent file's idle_timeout_s), a cut stream and a malformed one are all `model_api`
infra errors, never `cli_crash` or `agent_timeout`."""
import json
from pathlib import Path

import pytest

from runner.agents.parsers import INFRA_FAILURES, attempt_failure, gateway_failure, parse_claude, record_failure
from runner.results.result import STATUSES  # noqa: F401  (the statuses the attempts below end in)

from .conftest import KEY_ENV, REPO, attempt, gauntlet, jsonl, require_cli, result


def rec(status=200, outcome="complete", **kw):
    return {"method": "POST", "path": "/v1/messages", "status": status, "outcome": outcome, **kw}


@pytest.mark.parametrize("record,expected", [
    (rec(500, "complete"), "model_api"),
    (rec(529, "complete"), "model_api"),
    (rec(200, "stalled"), "model_api"),
    (rec(200, "cut"), "model_api"),
    (rec(200, "malformed"), "model_api"),
    (rec(504, "stalled"), "model_api"),
    (rec(502, "unreachable"), "network"),
    (rec(429), "rate_limit"),
    (rec(429, response=json.dumps({"error": {"code": "insufficient_quota", "message": "x"}})), "quota"),
    (rec(401), "auth"),
    (rec(403), "auth"),
    (rec(401, "refused"), None),               # the gateway's own policy: not the model API
    (rec(502, "aborted"), None),               # the attempt ended mid-request
    (rec(200, "aborted", silent_s=2.0, idle_timeout_s=120.0), None),    # the model was answering
    (rec(200, "aborted", silent_s=61.0, idle_timeout_s=120.0), "model_api"),  # a stall the budget cut short
    (rec(502, "aborted", silent_s=30.0, idle_timeout_s=40.0), "model_api"),   # no headers yet, 30 s in
    # red team, session 27: a request that did not ask to stream is silent until its answer is whole
    (rec(502, "aborted", silent_s=61.0, idle_timeout_s=120.0, stream=False), None),
    (rec(502, "aborted", silent_s=601.0, idle_timeout_s=120.0, stream=False), "model_api"),   # past any provider's
    (rec(200, "aborted", silent_s=61.0, idle_timeout_s=120.0, stream=True), "model_api"),
    # ... and a stream the agent stopped reading: the gateway was blocked writing to it
    (rec(200, "aborted", silent_s=61.0, idle_timeout_s=120.0, stream=True, waiting_on="agent"), None),
    (rec(400), None),                          # a bad request says nothing about the API's health
    (rec(200), None),
])
def test_one_record_class(record, expected):
    assert record_failure(record) == expected


def test_a_later_success_clears_earlier_failures():
    assert gateway_failure([rec(500), rec(200)]) is None                    # a blip the CLI retried past
    assert gateway_failure([rec(200), rec(429), rec(200, "stalled")]) == "model_api"
    assert gateway_failure([rec(200), rec(500), rec(429)]) == "rate_limit"  # the last failure speaks
    assert gateway_failure([rec(500), rec(401, "refused")]) == "model_api"  # refusals neither fail nor clear
    assert gateway_failure([]) is None


def test_attempt_class_from_gateway_cli_event_and_exit():
    # a clean finish has no class whatever the gateway saw on the way
    assert attempt_failure(None, "model_api", timed_out=False, exit_code=0) is None
    # a model outage that burned the budget is the API's failure, not the agent's timeout
    assert attempt_failure("timeout", "model_api", timed_out=True, exit_code=None) == "model_api"
    assert attempt_failure("timeout", None, timed_out=True, exit_code=None) == "timeout"
    assert attempt_failure("cli_crash", "model_api", timed_out=False, exit_code=1) == "model_api"
    assert attempt_failure("quota", "rate_limit", timed_out=False, exit_code=1) == "quota"
    assert attempt_failure("max_turns", None, timed_out=False, exit_code=1) == "max_turns"
    assert attempt_failure(None, None, timed_out=False, exit_code=2) == "cli_crash"
    assert "model_api" in INFRA_FAILURES


def test_digits_in_free_text_decide_nothing(tmp_path):
    """The issue's case: a 500 whose messages carry timestamps with "429"/"401" in them was classed
    rate_limit once and auth once. stderr is not read; digits in the final message match nothing."""
    adir = tmp_path / "a"
    adir.mkdir()
    (adir / "stdout.log").write_text(json.dumps({
        "type": "result", "subtype": "success", "is_error": True, "num_turns": 1,
        "result": "API Error at 2026-11-24T10:14:29.401Z (request req_429401)", "api_error_status": 500}) + "\n")
    (adir / "stderr.log").write_text("2026-11-24T10:14:29.401Z 429 401 rate limit unauthorized\n")
    assert parse_claude(adir / "stdout.log", adir, False, 1).failure == "model_api"
    (adir / "stdout.log").write_text("not json\n")
    assert parse_claude(adir / "stdout.log", adir, False, 1).failure == "cli_crash"


# -- the real CLIs against a faulty model ---------------------------------------------------------
AGENTS = ["claude-code", "codex"]


def agent_file(tmp_path: Path, agent: str, idle_s: float) -> Path:
    """agents/<agent>.toml with a short gateway idle timeout (its [gateway] table is the file's last)."""
    folder = tmp_path / "agents"
    folder.mkdir(exist_ok=True)
    path = folder / f"{agent}.toml"
    text = "".join(line for line in (REPO / "agents" / f"{agent}.toml").read_text().splitlines(keepends=True)
                   if not line.startswith("idle_timeout_s"))
    path.write_text(text + f"\nidle_timeout_s = {idle_s}\n")
    return path


def run_faulty(agent, tmp_path, tasks_root, script, budget="120", idle_s=3):
    from runner.agents.model_server import ScriptedModelServer
    require_cli(agent)
    out = tmp_path / "run"
    with ScriptedModelServer(script, unix=tmp_path / "model.sock", require_key="sk-real-key") as server:
        proc = gauntlet("run", "--agent", agent_file(tmp_path, agent, idle_s), "--tasks", "triton2triton",
                        "--tasks-root", tasks_root, "--device", "cpu", "--budget", budget, "--out", out,
                        env={"GAUNTLET_GATEWAY_UPSTREAM": server.url, KEY_ENV[agent]: "sk-real-key",
                             "GAUNTLET_API_RETRIES": "0"})
    r = result(out)
    assert proc.returncode == (3 if r["status"] in ("infra_error", "task_error") else 0), proc.stdout + proc.stderr
    return out, r


@pytest.mark.slow
@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("fault,outcome", [({"error": 500}, "complete"), ({"stall": True}, "stalled"),
                                           ({"cut": True}, "cut"), ({"malformed": True}, "malformed")])
def test_a_model_outage_is_a_model_api_infra_error(agent, fault, outcome, tmp_path, tasks_root):
    out, r = run_faulty(agent, tmp_path, tasks_root, [{"read": "kernel.py"}, fault])
    records = jsonl(attempt(out) / "agent" / "gateway.jsonl")
    faulty = [e for e in records if e.get("outcome") == outcome and e["status"] == fault.get("error", 200)]
    assert faulty, records                                                  # the gateway saw the fault
    assert r["agent_failure"] == "model_api" and r["status"] == "infra_error", r
    assert r["agent_seconds"] < 100                                        # not the budget: it ended on the fault


@pytest.mark.slow
def test_a_stall_still_in_flight_when_the_budget_ends_is_model_api(tmp_path, tasks_root):
    """The model stalls on the first request; the budget (40 s) ends before the gateway's idle timeout
    (50 s) would stop the stream: the request is cut off mid-stall, and that is the API's failure
    (docs/agents.md), not the agent's timeout."""
    out, r = run_faulty("claude-code", tmp_path, tasks_root, [{"stall": True}], budget="40", idle_s=50)
    records = jsonl(attempt(out) / "agent" / "gateway.jsonl")
    cut = [e for e in records if e.get("outcome") == "aborted"]
    assert cut and cut[-1]["silent_s"] >= 25 and cut[-1]["idle_timeout_s"] == 50, records
    assert r["agent_failure"] == "model_api" and r["status"] == "infra_error", r
