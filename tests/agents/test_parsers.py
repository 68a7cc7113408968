"""Parsers on recorded-shape streams: usage from the final event only (never summed per message),
trajectory steps, failure classes (infra retryable, agent not)."""
import json

import pytest

from runner.agents.parsers import (AGENT_FAILURES, INFRA_FAILURES, classify, normalize_usage, parse_claude, parse_codex,
                            parse_cursor, price)

from .conftest import jsonl


def write(agent_dir, events, stderr="", times=None):
    agent_dir.mkdir(exist_ok=True)
    (agent_dir / "stdout.log").write_text("".join((e if isinstance(e, str) else json.dumps(e)) + "\n" for e in events))
    (agent_dir / "stderr.log").write_text(stderr)
    if times:
        (agent_dir / "stdout.times").write_text("".join(f"{t}\n" for t in times))
    return agent_dir / "stdout.log"


def claude_result(**kw):
    base = {"type": "result", "subtype": "success", "is_error": False, "num_turns": 2, "result": "done",
            "total_cost_usd": 0.25, "usage": {"input_tokens": 200, "cache_creation_input_tokens": 40,
                                              "cache_read_input_tokens": 60, "output_tokens": 14},
            "modelUsage": {"claude-sonnet-4-5": {"costUSD": 0.25, "costBasis": "list"}}}
    base.update(kw)
    return base


CLAUDE_OK = [
    {"type": "system", "subtype": "init", "cwd": "/w", "session_id": "s", "model": "claude-sonnet-4-5", "tools": ["Bash"]},
    {"type": "assistant", "timestamp": "2026-11-22T08:00:00.000Z", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}],
        "usage": {"input_tokens": 100, "cache_creation_input_tokens": 20, "cache_read_input_tokens": 30, "output_tokens": 1}}},
    {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "kernel.py"}]}]}},
    {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "done"}],
                                      "usage": {"input_tokens": 100, "cache_creation_input_tokens": 20,
                                                "cache_read_input_tokens": 30, "output_tokens": 1}}},
    claude_result(),
]


def test_claude_usage_is_the_result_event_not_a_sum(tmp_path):
    out = write(tmp_path / "a", CLAUDE_OK, times=[10.0, 11.0, 12.0, 13.0, 14.0])
    report = parse_claude(out, tmp_path / "a", False, 0)
    assert report.usage == {"input_tokens": 200, "cache_read_tokens": 60, "cache_write_tokens": 40,
                            "output_tokens": 14, "turns": 2}
    assert report.cost_usd == 0.25 and report.turns == 2 and report.failure is None and not report.retryable
    steps = jsonl(tmp_path / "a" / "trajectory.jsonl")
    assert [s["type"] for s in steps] == ["system", "tool_call", "tool_result", "message", "result"]
    assert steps[1]["name"] == "Bash" and steps[1]["input"] == {"command": "ls"}
    assert steps[2]["id"] == "t1" and steps[2]["output"] == "kernel.py"
    # the measured arrival of each line, the event's own (older-clock) timestamp notwithstanding:
    # steps stay in the order and on the clock they arrived
    assert [s["t"] for s in steps] == [10.0, 11.0, 12.0, 13.0, 14.0]


def test_claude_cost_of_an_unpriced_model_is_dropped(tmp_path):
    out = write(tmp_path / "a", [claude_result(modelUsage={"stub-x": {"costUSD": 0.1, "costBasis": "unknown"}})])
    assert parse_claude(out, tmp_path / "a", False, 0).cost_usd is None


@pytest.mark.parametrize("result_kw,exit_code,expected", [
    ({"is_error": True, "result": "API Error: 401 {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\"}}",
      "api_error_status": 401}, 1, "auth"),
    ({"is_error": True, "result": "API Error: Request rejected (429) · Rate limit", "api_error_status": 429}, 1,
     "rate_limit"),
    ({"is_error": True, "result": "API Error: 429 · credit balance is too low", "api_error_status": 429}, 1, "quota"),
    ({"is_error": True, "result": "Prompt is too long", "terminal_reason": "prompt_too_long"}, 1, "context_overflow"),
    ({"is_error": True, "result": "API Error: Connection error.", "api_error_status": None}, 1, "network"),
    ({"subtype": "error_max_turns", "is_error": True, "result": None}, 1, "max_turns"),
    ({"is_error": True, "result": "something odd"}, 1, "cli_crash"),
])
def test_claude_failure_classes(tmp_path, result_kw, exit_code, expected):
    out = write(tmp_path / "a", [claude_result(**result_kw)])
    report = parse_claude(out, tmp_path / "a", False, exit_code)
    assert report.failure == expected
    assert report.retryable == (expected in INFRA_FAILURES)


def test_claude_crash_and_timeout(tmp_path):
    out = write(tmp_path / "a", ["Error: cannot be used with root/sudo privileges"], stderr="")
    assert parse_claude(out, tmp_path / "a", False, 1).failure == "cli_crash"
    out = write(tmp_path / "b", CLAUDE_OK[:2])
    report = parse_claude(out, tmp_path / "b", True, None)
    assert report.failure == "timeout" and not report.retryable and report.usage is None


CODEX_OK = [
    {"type": "thread.started", "thread_id": "th"},
    {"type": "turn.started"},
    {"type": "item.started", "item": {"id": "i1", "type": "command_execution", "command": "bash -lc ls",
                                      "aggregated_output": "", "exit_code": None, "status": "in_progress"}},
    {"type": "item.completed", "item": {"id": "i1", "type": "command_execution", "command": "bash -lc ls",
                                        "aggregated_output": "kernel.py\n", "exit_code": 0, "status": "completed"}},
    {"type": "item.completed", "item": {"id": "i2", "type": "agent_message", "text": "done"}},
    {"type": "turn.completed", "usage": {"input_tokens": 400, "cached_input_tokens": 100,
                                         "cache_write_input_tokens": 0, "output_tokens": 18,
                                         "reasoning_output_tokens": 6}},
]


def test_codex_usage_trajectory_and_price(tmp_path):
    adir = tmp_path / "a"
    out = write(adir, CODEX_OK)
    (adir / "gateway.json").write_text(json.dumps({"by_model": {"gpt-5.1-codex": {}}}))
    report = parse_codex(out, adir, False, 0)
    assert report.usage == {"input_tokens": 300, "cache_read_tokens": 100, "cache_write_tokens": 0,
                            "output_tokens": 18, "reasoning_tokens": 6}
    assert report.cost_usd == pytest.approx((300 * 1.25 + 100 * 0.125 + 18 * 10.0) / 1e6)
    assert report.failure is None
    steps = jsonl(adir / "trajectory.jsonl")
    assert [s["type"] for s in steps] == ["system", "tool_call", "tool_result", "message", "result"]
    assert steps[1]["input"] == {"command": "bash -lc ls"} and steps[2]["output"] == "kernel.py\n"


@pytest.mark.parametrize("message,expected", [
    ("unexpected status 401 Unauthorized: invalid_api_key", "auth"),
    ("exceeded retry limit, last status: 429 Too Many Requests", "rate_limit"),
    ("Quota exceeded. Check your plan and billing details. insufficient_quota", "quota"),
    ("stream disconnected before completion: error sending request", "network"),
    ("context_length_exceeded: Your input exceeds the context window", "context_overflow"),
])
def test_codex_failure_classes(tmp_path, message, expected):
    out = write(tmp_path / "a", CODEX_OK[:2] + [{"type": "turn.failed", "error": {"message": message}}])
    report = parse_codex(out, tmp_path / "a", False, 1)
    assert report.failure == expected and report.retryable == (expected in INFRA_FAILURES)


def test_codex_reconnect_noise_is_not_a_failure(tmp_path):
    out = write(tmp_path / "a", CODEX_OK[:1] + [{"type": "error", "message": "Reconnecting... 1/5"}] + CODEX_OK[1:])
    assert parse_codex(out, tmp_path / "a", False, 0).failure is None


CURSOR = [
    {"type": "system", "subtype": "init", "apiKeySource": "env", "cwd": "/w", "session_id": "s", "model": "auto"},
    {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "# Task"}]}},
    {"type": "tool_call", "subtype": "started", "call_id": "c1", "tool_call": {"readToolCall": {"args": {"path": "k.py"}}}},
    {"type": "tool_call", "subtype": "completed", "call_id": "c1", "tool_call": {"readToolCall": {
        "args": {"path": "k.py"}, "result": {"success": {"content": "x", "totalLines": 1}}}}},
    {"type": "tool_call", "subtype": "started", "call_id": "c2", "tool_call": {"function": {
        "name": "grep", "arguments": "{\"pattern\": \"BLOCK\"}"}}},
    {"type": "tool_call", "subtype": "completed", "call_id": "c2", "tool_call": {"shellToolCall": {
        "args": {"command": "false"}, "result": {"failure": {"exitCode": 1}}}}},
    {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}},
    {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 5, "result": "ok",
     "usage": {"inputTokens": 10, "outputTokens": 2, "cacheReadTokens": 3, "cacheWriteTokens": 1}},
]


def test_cursor_parser(tmp_path):
    out = write(tmp_path / "a", CURSOR)
    report = parse_cursor(out, tmp_path / "a", False, 0)
    assert report.usage == {"input_tokens": 10, "cache_read_tokens": 3, "cache_write_tokens": 1, "output_tokens": 2}
    assert report.failure is None and report.cost_usd is None
    steps = jsonl(tmp_path / "a" / "trajectory.jsonl")
    assert [s["type"] for s in steps] == ["system", "message", "tool_call", "tool_result", "tool_call",
                                          "tool_result", "message", "result"]
    assert steps[2]["name"] == "read" and steps[2]["input"] == {"path": "k.py"}
    assert steps[4]["name"] == "grep" and steps[4]["input"] == {"arguments": {"pattern": "BLOCK"}}
    assert steps[5]["is_error"] is True and steps[3]["is_error"] is False


def test_cursor_auth_failure(tmp_path):
    out = write(tmp_path / "a", [{"type": "result", "subtype": "error", "is_error": True,
                                  "result": "Authentication failed: invalid API key"}])
    report = parse_cursor(out, tmp_path / "a", False, 1)
    assert report.failure == "auth" and report.retryable


def test_classes_and_helpers():
    assert set(INFRA_FAILURES) == {"model_api", "auth", "rate_limit", "quota", "network"}
    assert {"context_overflow", "cli_crash", "timeout"} <= set(AGENT_FAILURES)
    assert classify(["401"], exit_code=0) is None                     # a clean exit is no failure
    assert classify([], exit_code=3) == "cli_crash" and classify([], timed_out=True) == "timeout"
    assert normalize_usage({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 4}, "output_tokens": 2,
                            "output_tokens_details": {"reasoning_tokens": 1}}, "openai") == {
        "input_tokens": 6, "cache_read_tokens": 4, "cache_write_tokens": 0, "output_tokens": 2, "reasoning_tokens": 1}
    assert price("no-such-model", {"input_tokens": 5}) is None


def test_usage_falls_back_to_the_gateway_meter_when_the_cli_had_no_final_event(tmp_path):
    """Killed at the budget, Claude Code prints no `result`: usage and cost come from the gateway meter."""
    from runner.agents.agent import parse_output, resolve_agent
    adir = tmp_path / "a"
    write(adir, CLAUDE_OK[:2])                                            # no result line
    metered = {"input_tokens": 17000, "cache_read_tokens": 300, "cache_write_tokens": 20, "output_tokens": 900}
    (adir / "gateway.json").write_text(json.dumps({"usage": metered, "by_model": {"gpt-5.1-codex": metered}}))
    report = parse_output(resolve_agent("claude-code"), adir, True, None)
    assert report.failure == "timeout" and report.usage == metered and report.usage_source == "gateway"
    assert report.cost_usd == pytest.approx(price("gpt-5.1-codex", metered))
    write(adir, CLAUDE_OK)                 # with the final event: still the gateway's tokens (the stream is the agent's),
    report = parse_output(resolve_agent("claude-code"), adir, False, 0)      # and the CLI's own turn count beside them
    assert report.usage_source == "gateway" and {k: report.usage[k] for k in metered} == metered
    assert set(report.usage) - set(metered) == {"turns"}
    assert report.cost_usd == pytest.approx(price("gpt-5.1-codex", metered))
    (adir / "gateway.json").unlink()       # no gateway ran: the CLI's own numbers
    report = parse_output(resolve_agent("claude-code"), adir, False, 0)
    assert report.usage_source == "cli" and report.usage["input_tokens"] == 200 and report.cost_usd == 0.25
    (adir / "gateway.json").write_text(json.dumps({"usage": {}, "by_model": {}}))
    write(adir, CLAUDE_OK[:2])
    report = parse_output(resolve_agent("claude-code"), adir, True, None)
    assert report.usage is None and report.usage_source is None


def test_claude_api_retry_details_are_kept_and_steps_follow_arrival(tmp_path):
    retry = {"type": "system", "subtype": "api_retry", "attempt": 2, "max_retries": 10, "retry_delay_ms": 1200,
             "error_status": 529, "error": "overloaded_error", "uuid": "u1", "session_id": "s"}
    # the assistant line carries its own (older) timestamp: stamped when the message began, it would
    # sort before the retry that arrived ahead of it
    events = [CLAUDE_OK[0], retry, CLAUDE_OK[1], CLAUDE_OK[2], claude_result()]
    out = write(tmp_path / "a", events, times=[1795000000.0, 1795000001.0, 1795000002.0, 1795000003.0,
                                               1795000004.0])
    parse_claude(out, tmp_path / "a", False, 0)
    steps = jsonl(tmp_path / "a" / "trajectory.jsonl")
    assert [s["type"] for s in steps] == ["system", "system", "tool_call", "tool_result", "result"]
    assert {k: steps[1][k] for k in ("subtype", "attempt", "max_retries", "retry_delay_ms", "error_status",
                                     "error")} == {k: retry[k] for k in retry if k not in ("type", "uuid",
                                                                                            "session_id")}
    assert [s["t"] for s in steps] == [1795000000.0, 1795000001.0, 1795000002.0, 1795000003.0, 1795000004.0]
    # no measured arrival (no gateway): the event's own timestamp is the best there is
    out = write(tmp_path / "b", events)
    parse_claude(out, tmp_path / "b", False, 0)
    assert jsonl(tmp_path / "b" / "trajectory.jsonl")[2]["t"] == 1795334400.0     # 2026-11-22T08:00:00Z


def test_a_stream_past_the_parse_window_is_read_at_its_two_ends_only(tmp_path, monkeypatch):
    """stdout.log is the agent's (up to a gigabyte): only PARSE_HEAD bytes from its start and PARSE_TAIL
    from its end are parsed, the lines between counted, never held. The final result event (usage, class)
    is still read, a `truncated` step stands for the middle, and tail lines keep their own arrival times."""
    from runner.agents import parsers
    monkeypatch.setattr(parsers, "PARSE_HEAD", 4096)
    monkeypatch.setattr(parsers, "PARSE_TAIL", 4096)
    monkeypatch.setattr(parsers, "_COUNT_CHUNK", 1000)        # the count crosses chunk edges
    filler = [{"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "text", "text": f"line {i}"}]}} for i in range(5000)]
    events = [CLAUDE_OK[0], *filler, claude_result(usage={"input_tokens": 7, "output_tokens": 3})]
    adir = tmp_path / "a"
    out = write(adir, events, times=[1000.0 + i for i in range(len(events))])
    assert out.stat().st_size > 50 * 8192
    seen = []
    real = parsers.json.loads
    monkeypatch.setattr(parsers.json, "loads", lambda text, *a, **k: seen.append(text) or real(text, *a, **k))
    report = parse_claude(out, adir, False, 0)
    monkeypatch.setattr(parsers.json, "loads", real)
    assert report.failure is None and report.usage["input_tokens"] == 7 and report.usage["output_tokens"] == 3
    assert sum(map(len, seen)) <= 8192 and len(seen) < 200              # the ends only
    steps = jsonl(adir / "trajectory.jsonl")
    marks = [s for s in steps if s["type"] == "truncated"]
    assert len(marks) == 1 and "bytes in the middle of stdout.log not parsed" in marks[0]["text"]
    assert steps[0]["subtype"] == "init" and steps[0]["t"] == 1000.0
    assert steps[-1]["type"] == "result" and steps[-1]["t"] == 1000.0 + len(events) - 1   # its own line's time
    assert steps[-2]["text"] == "line 4999" and steps[-2]["t"] == 1000.0 + len(events) - 2
    # one line longer than the whole window: no event from it, and the parse neither fails nor holds it
    (adir / "stdout.log").write_bytes(b'{"type": "assistant", "x": "' + b"y" * 20000 + b'"}\n')
    report = parse_claude(out, adir, False, 0)
    assert report.failure == "cli_crash" and report.usage is None       # no result event: a crash, as before


def test_one_huge_answer_leaves_capped_logs(tmp_path):
    """The issue's case: one 6 MiB answer made a 12.6 MB stdout.log and trajectory. Both end up at most
    LOG_LIMIT (plus a marker line), the trajectory keeping its result step."""
    from runner.agents.parsers import LOG_LIMIT, cap_log
    answer = "x" * (6 << 20)
    events = [CLAUDE_OK[0]] + [{"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "text", "text": f"line {i}"}]}} for i in range(60000)] + [
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": answer}]}},
        claude_result(result=answer)]
    adir = tmp_path / "a"
    out = write(adir, events)
    report = parse_claude(out, adir, False, 0)
    assert report.usage["input_tokens"] == 200                        # parsed in full before any cap
    traj = adir / "trajectory.jsonl"
    assert traj.stat().st_size <= LOG_LIMIT
    steps = jsonl(traj)
    assert steps[-1]["type"] == "result" and steps[-2]["type"] == "truncated" and steps[-2]["steps_dropped"] > 0
    assert "characters cut]" in steps[-1]["text"]
    assert out.stat().st_size > 12 << 20 and cap_log(out)
    text = out.read_text()
    assert len(text.encode()) <= LOG_LIMIT + 100 and "bytes cut from the middle of this log]" in text
    lines = text.splitlines()
    assert json.loads(lines[0])["subtype"] == "init"                  # the head: whole lines
    assert text.endswith(json.dumps(events[-1])[-1000:] + "\n")        # the tail: the stream's end
    assert not cap_log(out)                                            # already within the limit


def test_the_cost_is_the_tables_price_of_the_meter_never_the_clis_own_figure(tmp_path):
    """Red team, session 27: an agent read the meter (gateway.json, in its read-only folder), printed
    a final event with the same tokens and `total_cost_usd: 0.0001`, and that figure was the cost."""
    from runner.agents.agent import parse_output, resolve_agent
    adir = tmp_path / "a"
    metered = {"input_tokens": 200, "cache_read_tokens": 60, "cache_write_tokens": 40, "output_tokens": 14}
    forged = claude_result(total_cost_usd=0.0001)
    write(adir, [*CLAUDE_OK[:2], forged])
    for model, expected in (("claude-sonnet-4-5-20250929", price("claude-sonnet-4-5", metered)), ("no-such-model", None)):
        (adir / "gateway.json").write_text(json.dumps({"usage": metered, "by_model": {model: metered}}))
        report = parse_output(resolve_agent("claude-code"), adir, False, 0)
        assert report.usage_source == "gateway" and report.cost_usd == expected
    assert price("claude-sonnet-4-5", metered) == pytest.approx((200 * 3.0 + 60 * 0.3 + 40 * 3.75 + 14 * 15.0) / 1e6)
