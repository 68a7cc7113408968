"""Parsers for agent CLI output: stream -> normalized trajectory, usage, cost and failure class.

Registered into PARSERS (by name, as agents/<name>.toml's `parser` says):
  claude-stream-json   Claude Code `-p --output-format stream-json --verbose`
  codex-json           Codex `exec --json`
  cursor-stream-json   Cursor `cursor-agent --print --output-format stream-json`

Usage comes from the CLI's own final event only (Claude's `result`, Codex's last `turn.completed`,
Cursor's `result`): per-message usage repeats the same numbers and must not be summed. It is
normalized to one shape, the same shape the gateway's meter uses, so the two can be compared:

  input_tokens        input that was neither read from nor written to a prompt cache
  cache_read_tokens   input served from the cache
  cache_write_tokens  input written to the cache
  output_tokens       output, reasoning included
  reasoning_tokens    (OpenAI only) the reasoning part of output_tokens
  turns               (when the CLI reports it) model turns

agent_dir/trajectory.jsonl gets one JSON object per step: {"t", "type", ...} with type one of
system, message (role, text), thinking, tool_call (id, name, input), tool_result (id, output,
is_error), error, result, truncated, unreadable (an event the parser could not read: its error and
line). Steps are in stream order; "t" is the arrival time of the
event's line (agent_dir/stdout.times, written by the gateway), else the event's own timestamp, else
the log's last write. Of a stdout.log past PARSE_HEAD + PARSE_TAIL bytes only its two ends are parsed
(a `truncated` step stands for the middle). The file is capped at LOG_LIMIT bytes (strings in a step at STEP_TEXT_LIMIT
characters), as are stdout.log and stderr.log once parsed (cap_log): each cut leaves a marker.

Failure classes (docs/agents.md "Failure classes"): model_api, auth, rate_limit, quota, network
(infra: retryable, the attempt is not the agent's fault); context_overflow, max_turns, cli_crash,
timeout (agent: not retryable). They come from structured signals, strongest first: the gateway's
record of each model request (status code, stream outcome: `gateway_failure`), the CLI's final event
(its error status and type fields; its error message only for a few fixed phrases, never digits),
the exit code. stderr is never read for a class: free text there (timestamps, ids) matched anything.
"""
from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass
class AgentReport:
    """What the parser makes of an agent's output (usage from the CLI's own final event, else the
    gateway's meter: usage_source says which)."""
    usage: dict | None = None
    usage_source: str | None = None  # "cli" | "gateway" | None (no usage known)
    cost_usd: float | None = None
    turns: int | None = None
    failure: str | None = None       # INFRA_FAILURES or AGENT_FAILURES (docs/agents.md)
    retryable: bool = False          # infra classes are, agent classes are not
    parse_error: str | None = None   # the parser failed on this output (agent.parse_output fell back to plain)
    claimed_failure: str | None = None   # an infra class the stream claimed that the gateway did not confirm


def _plain_parser(stdout: Path, agent_dir: Path, timed_out: bool, exit_code: int | None) -> AgentReport:
    if timed_out:
        return AgentReport(failure="timeout")
    return AgentReport(failure=None if exit_code in (0, None) else "cli_crash")


# parser name -> fn(stdout_path, agent_dir, timed_out, exit_code) -> AgentReport; parsers may also
# write agent_dir/trajectory.jsonl.
PARSERS = {"plain": _plain_parser}

INFRA_FAILURES = ("model_api", "auth", "rate_limit", "quota", "network")
AGENT_FAILURES = ("context_overflow", "max_turns", "cli_crash", "timeout")

# USD per million tokens: (input, cached input read, cache write, output). List prices of the
# providers' public pricing pages as of 2026-11; docs/agents.md shows this table (a test keeps the
# two equal). Used for CLIs that report no cost (Codex). Unknown model -> no cost. Add or override
# models without a code change: GAUNTLET_PRICES=prices.toml with lines "model" = [in, read, write, out].
PRICES_PER_MTOK = {
    "gpt-5": (1.25, 0.125, 0.0, 10.0),
    "gpt-5-codex": (1.25, 0.125, 0.0, 10.0),
    "gpt-5.1": (1.25, 0.125, 0.0, 10.0),
    "gpt-5.1-codex": (1.25, 0.125, 0.0, 10.0),
    "gpt-5.1-codex-max": (1.25, 0.125, 0.0, 10.0),
    "gpt-5-mini": (0.25, 0.025, 0.0, 2.0),
    "gpt-5.1-codex-mini": (0.25, 0.025, 0.0, 2.0),
    "gpt-5-nano": (0.05, 0.005, 0.0, 0.4),
    "gpt-5.2": (1.75, 0.175, 0.0, 14.0),
    "gpt-5.2-codex": (1.75, 0.175, 0.0, 14.0),
    "claude-sonnet-4": (3.0, 0.3, 3.75, 15.0),
    "claude-sonnet-4-5": (3.0, 0.3, 3.75, 15.0),
    "claude-haiku-4-5": (1.0, 0.1, 1.25, 5.0),
    "claude-opus-4-1": (15.0, 1.5, 18.75, 75.0),
    "claude-opus-4-5": (5.0, 0.5, 6.25, 25.0),
}

# Lower-cased phrases of the CLI's final error message -> class, checked in this order (first match
# wins). No digits: a status number in free text also matches timestamps, ids and sizes.
_PATTERNS = (
    ("context_overflow", ("prompt is too long", "context_length_exceeded", "context window", "maximum context length",
                          "input is too long", "too many tokens")),
    ("quota", ("insufficient_quota", "exceeded your current quota", "credit balance is too low", "quota exceeded",
               "usage limit", "billing")),
    ("auth", ("authentication_error", "invalid x-api-key", "invalid api key", "invalid_api_key", "unauthorized",
              "/login", "not logged in", "permission_error", "forbidden")),
    ("rate_limit", ("rate_limit", "rate limit", "too many requests")),
    ("model_api", ("overloaded", "internal server error", "api_error", "server_error", "bad gateway",
                   "service unavailable", "gateway timeout", "stream stalled", "sent nothing for")),
    ("network", ("econnrefused", "connection refused", "connection error", "fetch failed", "error sending request",
                 "stream disconnected", "etimedout", "enotfound", "socket hang up", "econnreset",
                 "connection reset")),
)
# An HTTP status the CLI reports as a field (Claude's api_error_status) -> class.
_STATUS_CLASSES = {401: "auth", 403: "auth", 429: "rate_limit", 413: "context_overflow"}


def _status_class(status: int | None) -> str | None:
    if not isinstance(status, int) or isinstance(status, bool):
        return None
    if status >= 500:
        return "model_api"
    return _STATUS_CLASSES.get(status)


def classify(texts, *, timed_out: bool = False, exit_code: int | None = 0, is_error: bool = False,
             status: int | None = None) -> str | None:
    """One failure class from the CLI's own final event, or None when the run did not fail.
    `texts`: the final event's error messages only (never stderr); `status`: its HTTP status field."""
    if timed_out:
        return "timeout"
    failed = is_error or exit_code not in (0, None)
    if not failed:
        return None
    blob = "\n".join(str(t) for t in texts if t).lower()
    for name, needles in _PATTERNS:
        if any(n in blob for n in needles):
            return name
    return _status_class(status) or "cli_crash"


def _error_code(record: dict) -> str:
    """The error type/code the upstream's JSON body gives (structured: OpenAI `error.code`,
    Anthropic `error.type`), or ""."""
    try:
        body = json.loads(record.get("response") or "")
    except ValueError:
        return ""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return ""
    return str(error.get("code") or error.get("type") or "")


# A request the attempt's end cut off counts as a stall when its upstream had been silent this share
# of the agent's idle timeout (the gateway stops a stream at the whole of it): the budget ran out
# while the model API was not answering, not while the model was working.
STALL_IN_FLIGHT_SHARE = 0.5
# A request that did not ask to stream is silent until its whole answer is ready: its silence is the
# model working, and the attempt ending over it says nothing of the API (red team, session 27: a
# failing agent that left one in flight for half its idle timeout was made an unscored infra_error).
# It is a stall only past the longest a provider lets such a request run (Anthropic's API refuses
# non-streaming requests expected to take longer than ten minutes).
NON_STREAMED_STALL_S = 600.0


def stalled_in_flight(record: dict) -> bool:
    silent, idle = record.get("silent_s"), record.get("idle_timeout_s")
    if record.get("waiting_on") == "agent":          # ended while the agent was not reading its answer
        return False
    if record.get("stream") is False:
        return isinstance(silent, (int, float)) and silent >= NON_STREAMED_STALL_S
    return (isinstance(silent, (int, float)) and isinstance(idle, (int, float)) and idle > 0
            and silent >= STALL_IN_FLIGHT_SHARE * idle)


def record_failure(record: dict) -> str | None:
    """The class one gateway record shows: None for a success or a request that says nothing about the
    model API (the gateway's own refusals, the agent hanging up, other 4xx such as a bad request)."""
    outcome, status = record.get("outcome"), record.get("status")
    if outcome == "aborted" and stalled_in_flight(record):
        return "model_api"
    if record.get("method") == "CONNECT" or outcome in ("refused", "aborted"):
        return None
    if outcome in ("stalled", "cut", "malformed"):
        return "model_api"
    if outcome == "unreachable":
        return "network"
    if status == 429:
        return "quota" if _error_code(record) == "insufficient_quota" else "rate_limit"
    if status in (401, 403):
        return "auth"
    if isinstance(status, int) and status >= 500:
        return "model_api"
    return None


def _is_success(record: dict) -> bool:
    return (record.get("method") != "CONNECT" and isinstance(record.get("status"), int)
            and 200 <= record["status"] < 300 and record.get("outcome", "complete") == "complete")


def gateway_failure(records: list[dict]) -> str | None:
    """The infra class of the model API's failures that no later request succeeded after, or None.
    A failure followed by a success was a blip the CLI rode out (its retries)."""
    failure = None
    for record in records:
        if _is_success(record):
            failure = None
        else:
            failure = record_failure(record) or failure
    return failure


def gateway_records(agent_dir: Path) -> list[dict]:
    """agent_dir/gateway.jsonl, in request order (a torn last line is skipped)."""
    records = []
    try:
        lines = (Path(agent_dir) / "gateway.jsonl").read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def attempt_failure(cli_failure: str | None, gateway_class: str | None, *, timed_out: bool,
                    exit_code: int | None) -> str | None:
    """An attempt's one failure class. Only a failed attempt (killed at the budget, a non-zero exit,
    or a failure in the CLI's final event) has one; then the gateway's evidence about the model API
    comes first (a model outage that burned the budget is model_api, not timeout), then the CLI's."""
    failed = timed_out or exit_code not in (0, None) or cli_failure is not None
    if not failed:
        return None
    if gateway_class:
        if gateway_class == "rate_limit" and cli_failure == "quota":   # a 429 the CLI says is the quota
            return "quota"
        return gateway_class
    return cli_failure or ("timeout" if timed_out else "cli_crash")


def report_for(failure: str | None, usage=None, cost=None, turns=None) -> AgentReport:
    return AgentReport(usage=usage, cost_usd=cost, turns=turns, failure=failure,
                       retryable=failure in INFRA_FAILURES)


def normalize_usage(raw: dict, protocol: str) -> dict:
    """A usage dict as the API or CLI reports it -> the normalized shape (see the module doc)."""
    def n(*keys):
        for key in keys:
            value = raw
            for part in key.split("."):
                value = value.get(part) if isinstance(value, dict) else None
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                return int(value)
        return 0
    if protocol == "anthropic":
        out = {"input_tokens": n("input_tokens"), "cache_read_tokens": n("cache_read_input_tokens"),
               "cache_write_tokens": n("cache_creation_input_tokens"), "output_tokens": n("output_tokens")}
    elif protocol in ("openai", "openai-responses"):   # Responses API usage (input includes cached)
        cached = n("input_tokens_details.cached_tokens")
        out = {"input_tokens": n("input_tokens") - cached, "cache_read_tokens": cached, "cache_write_tokens": 0,
               "output_tokens": n("output_tokens"), "reasoning_tokens": n("output_tokens_details.reasoning_tokens")}
    elif protocol == "codex":                          # codex exec --json turn.completed
        cached = n("cached_input_tokens")
        out = {"input_tokens": n("input_tokens") - cached, "cache_read_tokens": cached,
               "cache_write_tokens": n("cache_write_input_tokens"), "output_tokens": n("output_tokens"),
               "reasoning_tokens": n("reasoning_output_tokens")}
    elif protocol == "cursor":
        out = {"input_tokens": n("inputTokens", "input_tokens"), "cache_read_tokens": n("cacheReadTokens"),
               "cache_write_tokens": n("cacheWriteTokens"), "output_tokens": n("outputTokens", "output_tokens")}
    else:
        raise ValueError(f"unknown usage protocol {protocol!r}")
    return out


TOKEN_KEYS = ("input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens")


def price(model: str | None, usage: dict) -> float | None:
    """USD for normalized usage on `model`, from PRICES_PER_MTOK; None for an unknown model."""
    if not model:
        return None
    table = dict(PRICES_PER_MTOK)
    extra = os.environ.get("GAUNTLET_PRICES")       # a TOML file: "model" = [input, cache_read, cache_write, output]
    if extra:
        import tomllib
        table.update({k: tuple(v) for k, v in tomllib.loads(Path(extra).read_text()).items()})
    name = model.split("/")[-1]
    rates = table.get(model) or table.get(name) or table.get(re.sub(r"-\d{8}$", "", name))   # a dated id
    if rates is None:
        return None
    p_in, p_read, p_write, p_out = rates
    return round((usage.get("input_tokens", 0) * p_in + usage.get("cache_read_tokens", 0) * p_read
                  + usage.get("cache_write_tokens", 0) * (p_write or p_in)
                  + usage.get("output_tokens", 0) * p_out) / 1e6, 10)


# -- shared plumbing -----------------------------------------------------------------------------
# stdout.log is the agent's to write (up to its file-size limit, a gigabyte): the parser reads at most
# PARSE_HEAD bytes from its start and PARSE_TAIL from its end (whole lines), which hold more than the
# capped log and trajectory keep, and only counts the lines between, so the host's memory and time stay
# bounded whatever the agent prints. The CLI's final event (its usage and failure) is in the tail.
PARSE_HEAD = PARSE_TAIL = 16 << 20
_COUNT_CHUNK = 8 << 20
UNREAD = object()        # _lines' event for the middle it skipped (its line says how many bytes)


def _split(data: bytes) -> list[bytes]:
    """Lines as the gateway counts them for stdout.times: one per newline, a last one unterminated."""
    lines = data.split(b"\n")
    return lines[:-1] if lines and not lines[-1] else lines


def _raw_lines(path: Path):
    """(index of the line in the file, its bytes) for the lines _lines parses; between the head and the
    tail of a long file, one (index, None, bytes skipped) marker."""
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        return
    with fh:
        size = os.fstat(fh.fileno()).st_size
        if size <= PARSE_HEAD + PARSE_TAIL:
            for i, line in enumerate(_split(fh.read(PARSE_HEAD + PARSE_TAIL))):
                yield i, line, 0
            return
        head = fh.read(PARSE_HEAD)
        end = head.rfind(b"\n") + 1          # whole lines only (0: the head is part of one long line)
        lines = _split(head[:end])
        for i, line in enumerate(lines):
            yield i, line, 0
        tail_at = size - PARSE_TAIL
        fh.seek(tail_at)
        tail = fh.read(PARSE_TAIL)
        first = tail.find(b"\n") + 1        # the tail from a line's start (0: no whole line in it)
        skipped, count, at = 0, len(lines), end
        fh.seek(end)
        while at < tail_at + first:         # count the lines in between, never holding them
            chunk = fh.read(min(_COUNT_CHUNK, tail_at + first - at))
            if not chunk:
                break
            count, at, skipped = count + chunk.count(b"\n"), at + len(chunk), skipped + len(chunk)
        yield count, None, skipped
        if first:
            for i, line in enumerate(_split(tail[first:])):
                yield count + i, line, 0


def _lines(stdout: Path, agent_dir: Path):
    """(arrival time or None, whether it was measured, parsed event or None, raw line) per stdout line
    read (_raw_lines); for the middle of a long log not read, one (time, False, UNREAD, marker)."""
    try:
        times = [float(x) for x in (agent_dir / "stdout.times").read_text().split()]
    except (FileNotFoundError, ValueError):
        times = []
    try:      # lines written after the gateway's last look: the file's last write bounds them
        last_write = Path(stdout).stat().st_mtime
    except FileNotFoundError:
        last_write = None
    for i, raw, skipped in _raw_lines(Path(stdout)):
        measured = i < len(times)
        t = times[i] if measured else last_write
        if raw is None:
            yield t, measured, UNREAD, f"[gauntlet: {skipped} bytes in the middle of stdout.log not parsed]"
            continue
        line = raw.decode("utf-8", errors="replace")
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):     # nested past the parser's depth: not readable either
            event = None
        yield t, measured, (event if isinstance(event, dict) else None), line


def _number(value) -> float | None:
    """A finite JSON number (a CLI's cost), else None: a string, null or object there is no number."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _int(value) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _events(stdout: Path, agent_dir: Path, steps: list):
    """(t, measured, event) for each JSON object line; any other line becomes an `error` step. The
    caller's handling of one event runs inside `with _unreadable(steps, ...)`: an event it cannot read
    is recorded as such and the stream goes on (the parsers never raise on a JSON value)."""
    for arrival, measured, ev, line in _lines(stdout, agent_dir):
        if ev is UNREAD:
            steps.append({"t": arrival, "type": "truncated", "text": line})
            continue
        if ev is None:
            if line.strip():
                steps.append({"t": arrival, "type": "error", "text": line[:2000]})
            continue
        yield arrival, measured, ev, line


class _unreadable:
    """Context manager: an exception while reading one event becomes an `unreadable` step."""

    def __init__(self, steps: list, arrival, line: str):
        self.steps, self.arrival, self.line = steps, arrival, line

    def __enter__(self):
        self.mark = len(self.steps)
        return self

    def __exit__(self, kind, exc, tb):
        if kind is None or not issubclass(kind, Exception):
            return False
        del self.steps[self.mark:]     # half an event's steps: dropped, the event recorded whole instead
        self.steps.append({"t": self.arrival, "type": "unreadable",
                           "error": f"{kind.__name__}: {str(exc)[:200]}", "text": self.line[:2000]})
        return True


def _stamp(value, arrival, measured: bool):
    """A step's time: its line's measured arrival (one clock, in stream order: an event's own
    timestamp can be older than lines before it, e.g. Claude's assistant messages stamped when they
    began), else the event's own timestamp (ISO or epoch seconds), else the log's last write."""
    if measured:
        return arrival
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            t = float(value) / (1000.0 if value > 1e11 else 1.0)
            return t if math.isfinite(t) else arrival
        if isinstance(value, str):
            return _dt.datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError, OSError):
        pass
    return arrival


LOG_LIMIT = 4 << 20          # bytes kept of stdout.log, stderr.log and trajectory.jsonl each
STEP_TEXT_LIMIT = 64 << 10   # characters kept of one string in a trajectory step


def _clip(value):
    """A step's strings clipped to STEP_TEXT_LIMIT (a 6 MiB answer is one string), with a marker."""
    if isinstance(value, str) and len(value) > STEP_TEXT_LIMIT:
        return value[:STEP_TEXT_LIMIT] + f"...[gauntlet: {len(value) - STEP_TEXT_LIMIT} characters cut]"
    if isinstance(value, dict):
        return {k: _clip(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clip(v) for v in value]
    return value


def _write_trajectory(agent_dir: Path, steps: list[dict], limit: int = LOG_LIMIT) -> None:
    """At most `limit` bytes: all steps when they fit; else the first steps that fit, one `truncated`
    step, and the last step (the result) when it is not itself huge."""
    lines = [_step_line(step) for step in steps]
    with open(agent_dir / "trajectory.jsonl", "wb") as fh:
        if sum(map(len, lines)) <= limit:
            fh.writelines(lines)
            return
        last = lines[-1] if len(lines[-1]) <= limit // 4 else b""
        budget, kept = limit - len(last) - 256, 0            # 256: room for the marker step
        while kept < len(lines) - 1 and len(lines[kept]) <= budget:
            budget -= len(lines[kept])
            kept += 1
        fh.writelines(lines[:kept])
        fh.write((json.dumps({"t": steps[kept].get("t"), "type": "truncated",
                              "steps_dropped": len(lines) - kept - (1 if last else 0),
                              "limit_bytes": limit}) + "\n").encode())
        fh.write(last)


def _step_line(step: dict) -> bytes:
    try:
        return (json.dumps(_clip(step), default=str) + "\n").encode("utf-8", "backslashreplace")
    except (ValueError, TypeError, RecursionError) as exc:    # nested past json's depth
        return (json.dumps({"t": step.get("t") if isinstance(step.get("t"), (int, float)) else None,
                            "type": "unreadable", "error": f"{type(exc).__name__}: step not writable"}) + "\n").encode()


def cap_log(path: Path, limit: int = LOG_LIMIT) -> bool:
    """Cut the middle out of a log longer than `limit` bytes (whole lines; the head and the tail are
    what one reads), leaving a marker line; only the head and the tail are read."""
    path = Path(path)
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        return False
    with fh:
        size = os.fstat(fh.fileno()).st_size
        if size <= limit:
            return False
        head = fh.read(limit // 2)
        fh.seek(size - limit // 2)
        tail = fh.read(limit // 2)
    head = head[:head.rfind(b"\n") + 1] or head
    cut = tail.find(b"\n", 0, len(tail) - 1)     # from a line start, unless the last line is the whole tail
    tail = tail[cut + 1:] if cut >= 0 else tail
    marker = f"[gauntlet: {size - len(head) - len(tail)} bytes cut from the middle of this log]\n".encode()
    path.write_bytes(head + marker + tail)
    return True


def _text_of(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text_of(c.get("text", c.get("content", ""))) if isinstance(c, dict) else str(c)
                         for c in content)
    try:
        return "" if content is None else json.dumps(content)
    except (ValueError, RecursionError):
        return str(type(content).__name__)


def gateway_usage(agent_dir: Path) -> tuple[dict, str | None]:
    """The gateway meter's total usage (agent_dir/gateway.json; {} when it metered no tokens) and
    its one model (None when it saw none or several: then no price)."""
    try:
        meter = json.loads((Path(agent_dir) / "gateway.json").read_text())
    except (FileNotFoundError, ValueError):
        return {}, None
    usage = {k: v for k, v in (meter.get("usage") or {}).items() if isinstance(v, (int, float))}
    if not any(usage.get(k) for k in TOKEN_KEYS):
        return {}, None
    models = sorted(meter.get("by_model") or {})
    return usage, (models[0] if len(models) == 1 else None)


def _gateway_models(agent_dir: Path) -> list[str]:
    try:
        return sorted(json.loads((agent_dir / "gateway.json").read_text()).get("by_model", {}))
    except (FileNotFoundError, ValueError):
        return []


# -- Claude Code ---------------------------------------------------------------------------------
def parse_claude(stdout: Path, agent_dir: Path, timed_out: bool, exit_code: int | None) -> AgentReport:
    steps, result = [], None
    for arrival, measured, ev, line in _events(stdout, agent_dir, steps):
        with _unreadable(steps, arrival, line):
            t = _stamp(ev.get("timestamp"), arrival, measured)
            kind = ev.get("type")
            if kind == "system" and ev.get("subtype") == "init":
                steps.append({"t": t, "type": "system", "subtype": "init", "model": ev.get("model"),
                              "cwd": ev.get("cwd"), "session_id": ev.get("session_id"), "tools": ev.get("tools")})
            elif kind == "system":    # api_retry (attempt, max_retries, retry_delay_ms, error_status, error), ...
                steps.append({"t": t, "type": "system", **{k: v for k, v in ev.items() if k not in ("type", "uuid")}})
            elif kind in ("assistant", "user"):
                message = ev.get("message") or {}
                content = message.get("content")
                if isinstance(content, str):
                    content = [{"type": "text", "text": content}]
                for block in content or []:
                    btype = block.get("type")
                    if btype == "text":
                        steps.append({"t": t, "type": "message", "role": message.get("role", kind),
                                      "text": block.get("text", "")})
                    elif btype in ("thinking", "redacted_thinking"):
                        steps.append({"t": t, "type": "thinking", "text": block.get("thinking", "")})
                    elif btype == "tool_use":
                        steps.append({"t": t, "type": "tool_call", "id": block.get("id"), "name": block.get("name"),
                                      "input": block.get("input")})
                    elif btype == "tool_result":
                        steps.append({"t": t, "type": "tool_result", "id": block.get("tool_use_id"),
                                      "output": _text_of(block.get("content")), "is_error": bool(block.get("is_error"))})
            elif kind == "result":
                result = ev
                steps.append({"t": t, "type": "result", "subtype": ev.get("subtype"), "is_error": ev.get("is_error"),
                              "text": ev.get("result"), "num_turns": ev.get("num_turns"),
                              "terminal_reason": ev.get("terminal_reason")})
    _write_trajectory(agent_dir, steps)

    usage = cost = turns = None
    if result is not None:
        if isinstance(result.get("usage"), dict):
            usage = normalize_usage(result["usage"], "anthropic")
            turns = _int(result.get("num_turns"))
            if turns is not None:
                usage["turns"] = turns
        models = result.get("modelUsage") or {}
        models = models if isinstance(models, dict) else {}
        known = [m for m in models.values() if isinstance(m, dict) and m.get("costBasis") != "unknown"]
        if known or not models:
            cost = _number(result.get("total_cost_usd"))   # unknown model ids get a made-up price: dropped
    errors = []
    is_error = False
    if result is not None:
        is_error = result.get("is_error") is True
        if is_error:
            errors += [str(result.get("result") or ""), str(result.get("api_error_type") or "")]
            listed = result.get("errors")
            errors += [str(e) for e in (listed if isinstance(listed, list) else [listed] if listed else [])]
        if result.get("subtype") == "error_max_turns" and not timed_out:
            return report_for("max_turns", usage, cost, turns)
        if result.get("terminal_reason") == "prompt_too_long" and not timed_out:
            return report_for("context_overflow", usage, cost, turns)
    status = result.get("api_error_status") if result else None
    failure = classify(errors, timed_out=timed_out, exit_code=exit_code,
                       is_error=is_error or (result is None and not timed_out),
                       status=status if isinstance(status, int) else None)
    return report_for(failure, usage, cost, turns)


# -- Codex ---------------------------------------------------------------------------------------
def parse_codex(stdout: Path, agent_dir: Path, timed_out: bool, exit_code: int | None) -> AgentReport:
    steps, last_usage, failed, errors, turns = [], None, False, [], 0
    started: set = set()
    for arrival, measured, ev, line in _events(stdout, agent_dir, steps):
        with _unreadable(steps, arrival, line):
            t = _stamp(ev.get("timestamp"), arrival, measured)
            kind = ev.get("type")
            if kind == "thread.started":
                steps.append({"t": t, "type": "system", "subtype": "thread.started", "session_id": ev.get("thread_id")})
            elif kind == "turn.completed":
                turns += 1
                last_usage = ev.get("usage") if isinstance(ev.get("usage"), dict) else last_usage
            elif kind == "turn.failed":
                failed = True
                message = (ev.get("error") or {}).get("message", "")
                errors.append(message)
                steps.append({"t": t, "type": "error", "text": message})
            elif kind == "error":
                errors.append(str(ev.get("message", "")))
                steps.append({"t": t, "type": "error", "text": ev.get("message")})
            elif kind in ("item.started", "item.updated", "item.completed"):
                item = ev.get("item") or {}
                itype, iid = item.get("type"), item.get("id")
                if itype == "command_execution":
                    if iid not in started:
                        started.add(iid)
                        steps.append({"t": t, "type": "tool_call", "id": iid, "name": "shell",
                                      "input": {"command": item.get("command")}})
                    if kind == "item.completed":
                        steps.append({"t": t, "type": "tool_result", "id": iid, "output": item.get("aggregated_output", ""),
                                      "exit_code": item.get("exit_code"),
                                      "is_error": item.get("status") == "failed" or item.get("exit_code") not in (0, None)})
                elif itype in ("file_change", "mcp_tool_call", "web_search") and kind == "item.completed":
                    steps.append({"t": t, "type": "tool_call", "id": iid, "name": itype,
                                  "input": {k: v for k, v in item.items() if k not in ("id", "type")}})
                    steps.append({"t": t, "type": "tool_result", "id": iid, "output": item.get("status", ""),
                                  "is_error": item.get("status") == "failed"})
                elif itype == "agent_message" and kind == "item.completed":
                    steps.append({"t": t, "type": "message", "role": "assistant", "text": item.get("text", "")})
                elif itype == "reasoning" and kind == "item.completed":
                    steps.append({"t": t, "type": "thinking", "text": item.get("text", "")})
                elif itype == "error" and kind == "item.completed":
                    steps.append({"t": t, "type": "error", "text": item.get("message")})
    usage = cost = None
    if last_usage is not None:
        usage = normalize_usage(last_usage, "codex")   # one exec = one turn: the last turn.completed
        models = _gateway_models(agent_dir)
        cost = price(models[0], usage) if len(models) == 1 else None
    steps.append({"t": steps[-1]["t"] if steps else None, "type": "result", "is_error": failed,
                  "usage": usage, "cost_usd": cost})
    _write_trajectory(agent_dir, steps)
    if not failed:
        errors = []           # "Reconnecting..." noise of a run that went on to finish
    failure = classify(errors, timed_out=timed_out, exit_code=exit_code, is_error=failed)
    return report_for(failure, usage, cost, turns or None)


# -- Cursor --------------------------------------------------------------------------------------
def _cursor_tool(tool_call: dict) -> tuple[str, dict, dict | None]:
    """{"readToolCall": {"args": .., "result": ..}} or {"function": {"name", "arguments"}}."""
    for key, body in (tool_call or {}).items():
        if key == "function" and isinstance(body, dict):
            args = body.get("arguments")
            try:
                args = json.loads(args) if isinstance(args, str) else args
            except ValueError:
                pass
            return body.get("name", "function"), {"arguments": args}, body.get("result")
        if isinstance(body, dict):
            name = key[:-len("ToolCall")] if key.endswith("ToolCall") else key
            return name, body.get("args") or {}, body.get("result")
    return "unknown", {}, None


def parse_cursor(stdout: Path, agent_dir: Path, timed_out: bool, exit_code: int | None) -> AgentReport:
    steps, result = [], None
    for arrival, measured, ev, line in _events(stdout, agent_dir, steps):
        with _unreadable(steps, arrival, line):
            t = _stamp(ev.get("timestamp_ms") or ev.get("timestamp"), arrival, measured)
            kind = ev.get("type")
            if kind == "system":
                steps.append({"t": t, "type": "system", "subtype": ev.get("subtype"), "model": ev.get("model"),
                              "cwd": ev.get("cwd"), "session_id": ev.get("session_id")})
            elif kind in ("user", "assistant"):
                message = ev.get("message") or {}
                text = _text_of(message.get("content"))
                if text:
                    steps.append({"t": t, "type": "message", "role": message.get("role", kind), "text": text})
            elif kind == "thinking":
                if ev.get("text"):
                    steps.append({"t": t, "type": "thinking", "text": ev.get("text")})
            elif kind == "tool_call":
                name, args, res = _cursor_tool(ev.get("tool_call") or {})
                if ev.get("subtype") == "started":
                    steps.append({"t": t, "type": "tool_call", "id": ev.get("call_id"), "name": name, "input": args})
                elif ev.get("subtype") == "completed":
                    res = res or {}
                    is_error = "error" in res or "failure" in res or "rejected" in res
                    steps.append({"t": t, "type": "tool_result", "id": ev.get("call_id"), "name": name,
                                  "output": res, "is_error": is_error})
            elif kind == "result":
                result = ev
                steps.append({"t": t, "type": "result", "subtype": ev.get("subtype"), "is_error": ev.get("is_error"),
                              "text": ev.get("result"), "duration_ms": ev.get("duration_ms")})
    _write_trajectory(agent_dir, steps)
    usage = cost = None
    if result is not None and isinstance(result.get("usage"), dict):
        usage = normalize_usage(result["usage"], "cursor")
    if result is not None:
        cost = _number(result.get("total_cost_usd"))
    is_error = result.get("is_error") is True if result else False
    errors = [str(result.get("result") or "")] if is_error else []
    failure = classify(errors, timed_out=timed_out, exit_code=exit_code,
                       is_error=is_error or (result is None and not timed_out))
    return report_for(failure, usage, cost)


PARSERS.update({"claude-stream-json": parse_claude, "codex-json": parse_codex, "cursor-stream-json": parse_cursor})
