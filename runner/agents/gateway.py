"""Gateway: the harness-owned endpoint between an agent and its model API.

An agent definition with a [gateway] table gets one for the length of its attempt; the gateway
yields the environment (base URLs, a per-attempt key), the mounts (its unix socket) and the argv
prefix (the in-sandbox forwarder) the agent's sandbox needs. Agents without one (noop, oracle,
replay, plain command) get nothing: no network, no variables.

What it does, per attempt:
  * listens on a unix socket, bind-mounted into the agent's sandbox at /gauntlet/gateway (a
    container, or bubblewrap on the local backend); `launch.py` (written next to it) forwards
    127.0.0.1:GATEWAY_PORT inside the sandbox's network namespace to it, then runs the agent command;
  * forwards only to the agent's one upstream (its base URL), only on the allowed paths; CONNECT
    (protocol "connect") only to the allowed host:port pairs;
  * authenticates the agent by a per-attempt token (the agent's "API key") and swaps in the real
    key from the host environment: the real key never enters the sandbox (except for "connect",
    where the CLI speaks TLS end to end and must hold its own key);
  * checks the path, the key and the declared size before it reads a body (over MAX_REQUEST_BODY:
    413 unread); parses the body strictly (parse_body: UTF-8, one object, no duplicate keys, no
    NaN) and forwards it re-serialised, never as sent; refuses top-level fields outside the path's
    allow-list (_BODY_FIELDS: no mcp_servers, container, background...) and content the provider
    would fetch itself (URL / file sources); strips every tool the client does not run itself (by
    type); forwards only allow-listed headers and anthropic-beta values (the rest dropped and named in
    the record). Every refusal is a 4xx with a "gauntlet gateway:" message, recorded in gateway.jsonl;
  * streams responses through unbuffered (SSE) while metering tokens from them, independently of
    what the CLI reports, and records a transcript: agent_dir/gateway.jsonl (one line per request)
    and agent_dir/gateway.json (the meter, rewritten after every request);
  * records each request's outcome (OUTCOMES): a stream that ended without its terminal event is
    "cut", one with an event that is not JSON "malformed", and one that sends nothing for
    `idle_timeout_s` (the [gateway] table; default DEFAULT_IDLE_TIMEOUT_S) is stopped by the gateway
    itself and "stalled": the agent gets an error event and a closed connection instead of waiting
    on its CLI's own (often hour-long) idle timeout;
  * timestamps the agent's stdout lines as they arrive (agent_dir/stdout.times: one epoch per line,
    at most STDOUT_TIMES_MAX_LINES), which the parsers use for trajectory timestamps when the stream
    carries none.
  Everything it holds or writes is bounded: bodies in flight (MAX_BODIES_IN_FLIGHT), connections
  (MAX_CONNECTIONS), a non-streamed answer (MAX_RESPONSE_BODY), gateway.jsonl per request and in all.

Overrides (tests, `gauntlet agents check`, private deployments): GAUNTLET_GATEWAY_UPSTREAM replaces
the upstream (`http://127.0.0.1:PORT`, `unix:/path.sock`, or for "connect" a comma list of
host:port). Run options for the agent CLI (--model etc.) reach its environment through
RunOptions.agent_env, not through here.
"""
from __future__ import annotations

import contextlib
import http.client
import json
import os
import secrets
import select
import shutil
import socket
import socketserver
import ssl
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

from runner.resources import IMPORT_ROOT
from runner.sandbox import Mount
from runner.sandbox.confine import cli_folder_refusal
from runner.sandbox.local import gateway_temp_dir
from runner.sandbox.hostfs import remove_tree

GATEWAY_PORT = 47813                   # the in-sandbox loopback port
SOCKET_DIR_IN_SANDBOX = "/gauntlet/gateway"
REPO = IMPORT_ROOT
LOCAL_BIN = REPO / ".agents" / "node_modules" / ".bin"   # scripts/install-agents.sh puts the CLIs here

# Per protocol: the defaults a [gateway] table may override.
PROTOCOLS = {
    "anthropic": {
        "upstream": "https://api.anthropic.com",
        "paths": ["/v1/messages", "/v1/messages/count_tokens", "/v1/models"],
        "key_env": "ANTHROPIC_API_KEY", "key_header": "x-api-key",
        "agent_env": {"ANTHROPIC_BASE_URL": "{url}", "ANTHROPIC_API_KEY": "{token}"},
    },
    "openai-responses": {
        "upstream": "https://api.openai.com/v1",
        "paths": ["/v1/responses", "/v1/models"],
        "key_env": "OPENAI_API_KEY", "key_header": "authorization",
        "agent_env": {"OPENAI_BASE_URL": "{url}/v1", "OPENAI_API_KEY": "{token}"},
    },
    "connect": {
        "upstream": "",
        "allow_hosts": [],
        "key_env": "", "key_header": "",
        "agent_env": {"HTTPS_PROXY": "{url}", "https_proxy": "{url}", "NODE_USE_ENV_PROXY": "1"},
    },
}
_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "host", "content-length", "accept-encoding"}
_AUTH = {"x-api-key", "authorization", "api-key"}
# -- what reaches the upstream (everything else is dropped or refused; see _admit) ----------------
# Request bodies: parsed strictly (UTF-8, one JSON object, no duplicate keys at any depth, no NaN or
# Infinity, nothing after it) and always forwarded re-serialised, never as the agent's bytes. Top-level
# fields per path: what the supported CLIs send (Claude Code 2.1, Codex 0.169: captured through
# `gauntlet agents check`) and the plain sampling controls. Not here on purpose: mcp_servers and
# container (the API provider's servers connect out / run code), betas (a body-side anthropic-beta),
# background / conversation / previous_response_id / prompt (server-side state beyond the attempt).
_BODY_FIELDS = {
    "/v1/messages": frozenset({
        "model", "messages", "system", "max_tokens", "metadata", "stop_sequences", "stream", "temperature",
        "top_p", "top_k", "tools", "tool_choice", "thinking", "context_management", "output_config",
        "output_format", "service_tier"}),
    "/v1/messages/count_tokens": frozenset({
        "model", "messages", "system", "tools", "tool_choice", "thinking", "context_management",
        "output_config", "output_format"}),
    "/v1/responses": frozenset({
        "model", "instructions", "input", "tools", "tool_choice", "parallel_tool_calls", "reasoning", "store",
        "stream", "stream_options", "include", "prompt_cache_key", "text", "client_metadata", "metadata",
        "service_tier", "max_output_tokens", "temperature", "top_p", "truncation"}),
    "/v1/chat/completions": frozenset({
        "model", "messages", "tools", "tool_choice", "parallel_tool_calls", "stream", "stream_options",
        "temperature", "top_p", "max_tokens", "max_completion_tokens", "stop", "reasoning_effort",
        "response_format", "seed", "metadata", "store", "prompt_cache_key", "service_tier", "n"}),
}
# Tools the client itself runs; any other tool type is a server-side tool (web search/fetch, code
# execution, MCP toolsets, file search, image generation, ...) and is stripped, whatever its name.
_CLIENT_TOOL_TYPES = {
    "anthropic": (None, "custom"),                                        # Claude Code: no type at all
    "openai-responses": ("function", "custom", "local_shell", "shell", "apply_patch"),
}
_CLIENT_TOOL_TYPE_PREFIXES = {"anthropic": ("bash_", "text_editor_", "memory_")}   # client-run, versioned
# Request headers forwarded upstream (lower case); any other header the agent sends is dropped.
_FORWARD_HEADERS = frozenset({
    "accept", "content-type", "user-agent",
    # Claude Code
    "anthropic-version", "anthropic-beta", "anthropic-dangerous-direct-browser-access", "x-app",
    "x-claude-code-session-id",
    # Codex
    "openai-beta", "originator", "version", "session-id", "session_id", "thread-id", "conversation_id",
    "x-client-request-id", "x-codex-beta-features", "x-codex-turn-metadata", "x-codex-window-id",
    "x-openai-subagent"})
_FORWARD_HEADER_PREFIXES = ("x-stainless-",)           # the SDKs' own telemetry (os, runtime, retry count)
# anthropic-beta values forwarded (the rest are dropped from the header and recorded): Claude Code's,
# and the plain model-side features. Never: mcp-client-*, code-execution-*, web-fetch-*, files-api-*,
# skills-*, computer-use-* (they make the provider's servers fetch, connect or run code).
ANTHROPIC_BETAS = frozenset({
    "claude-code-20250219", "interleaved-thinking-2025-05-14", "context-management-2025-06-27",
    "per-turn-control-2026-07-01", "mid-conversation-tool-changes-2026-07-01",
    "thinking-token-count-2026-05-13", "advanced-tool-use-2025-11-20", "effort-2025-11-24",
    "thinking-display-updates-2026-08-18", "fine-grained-tool-streaming-2025-05-14",
    "token-efficient-tools-2025-02-19", "prompt-caching-2024-07-31", "context-1m-2025-08-07",
    "structured-outputs-2025-11-13", "tool-examples-2025-10-29", "output-128k-2025-02-19"})
MAX_REQUEST_BODY = 32 << 20          # per request (the Messages API's own limit); larger: 413 unread
MAX_BODIES_IN_FLIGHT = 64 << 20      # all requests' bodies held at once; past it: 503 unread
MAX_RESPONSE_BODY = 64 << 20         # a non-streamed upstream answer
MAX_SSE_EVENT = 16 << 20             # one SSE event the meter waits to complete
TRANSCRIPT_BODY_LIMIT = 1 << 20      # the response kept per request in gateway.jsonl
TRANSCRIPT_REQUEST_LIMIT = 256 << 10  # the request kept per request in gateway.jsonl
TRANSCRIPT_TOTAL_LIMIT = 64 << 20    # gateway.jsonl: past this only the bare record of each request...
TRANSCRIPT_HARD_LIMIT = 72 << 20     # ... and past this nothing (counted in gateway.json)
STDOUT_TIMES_MAX_LINES = 1 << 18     # stdout.times (15 bytes a line); later lines: the log's mtime
STDOUT_READ_CHUNK = 1 << 20
DRAIN_LIMIT = 1 << 20                # a refused request's unread body up to this is read away, not cut off
MAX_CONNECTIONS = 256                # open agent connections at once (each a thread); more: closed at once
DEFAULT_IDLE_TIMEOUT_S = 120.0   # a streamed response silent this long is stalled (agent file: gateway.idle_timeout_s)
# How a request ended, as gateway.jsonl records it (docs/agents.md "Failure classes"):
#   complete     the whole response arrived (a stream: through its terminal event)
#   stalled      a stream sent nothing for idle_timeout_s; the gateway stopped it
#   cut          the upstream closed or broke the stream before its terminal event
#   malformed    the stream carried an event whose data is not JSON
#   unreachable  no response from the upstream at all (connection refused, reset before headers)
#   refused      the gateway's own policy answered (wrong key, path not allowed); never sent upstream
#   aborted      the agent went away or the attempt ended mid-request (the agent's doing, not the API's,
#                unless the upstream had been silent for half the idle timeout by then: `silent_s`)
_OUTCOME_ERRORS = {"cut": "the stream ended before its terminal event",
                   "malformed": "the stream carried an event whose data is not JSON"}
OUTCOMES = ("complete", "stalled", "cut", "malformed", "unreachable", "refused", "aborted")
# terminal stream events per protocol: a stream that ends before one of these was cut
_TERMINAL_EVENTS = {"anthropic": {"message_stop"},
                    "openai-responses": {"response.completed", "response.incomplete", "response.failed"}}


class GatewayError(RuntimeError):
    """A gateway configuration problem, in one line."""


@dataclass(frozen=True)
class GatewayHandle:
    env: dict
    mounts: tuple[Mount, ...] = ()
    network: bool = False
    argv_prefix: tuple[str, ...] = ()  # prepended to the agent's argv (the in-container forwarder)
    gateway: "Gateway | None" = None


def gateway_config(spec) -> dict:
    """The agent's [gateway] table with protocol defaults filled in and the upstream override applied."""
    table = dict(spec.gateway)
    protocol = table.get("protocol")
    if protocol not in PROTOCOLS:
        raise GatewayError(f"{spec.source}: gateway.protocol: {protocol!r} is not one of {', '.join(PROTOCOLS)}")
    config = {**PROTOCOLS[protocol], **table}
    config["agent_env"] = {**PROTOCOLS[protocol]["agent_env"], **table.get("agent_env", {})}
    idle = table.get("idle_timeout_s", DEFAULT_IDLE_TIMEOUT_S)
    if isinstance(idle, bool) or not isinstance(idle, (int, float)) or not 0 < idle < float("inf"):
        raise GatewayError(f"{spec.source}: gateway.idle_timeout_s: {idle!r} is not a number of seconds above 0")
    config["idle_timeout_s"] = float(idle)
    override = os.environ.get("GAUNTLET_GATEWAY_UPSTREAM")
    if override:
        if protocol == "connect":
            config["allow_hosts"] = [h.strip() for h in override.split(",") if h.strip()]
        else:
            config["upstream"] = override
    return config


def find_cli(name: str) -> str | None:
    """The agent CLI on PATH or in the repo-local install folder (.agents/node_modules/.bin)."""
    return shutil.which(name) or shutil.which(name, path=str(LOCAL_BIN))


def cli_folders(name: str, never: tuple = ()) -> list[Path]:
    """What an agent CLI needs to run on the local backend beyond the system folders, each mounted
    read-only at the path the agent's PATH names: the repo's .agents/ (scripts/install-agents.sh), or
    for a CLI found elsewhere on PATH its folder and its real file's (a symlink's target: a native
    installer's versions folder). Never more: a wider folder could hold task files. A folder no bind
    may have (confine.never_for: one that holds or lies in the task data or the run's folder and tasks
    root, `never`; one that holds the checkout or HOME whole; symlinks resolved) is refused at
    preflight (GatewayError)."""
    found = find_cli(name) if name else None
    if not found:
        return []
    agents = LOCAL_BIN.parent.parent
    real = Path(found).resolve()
    if real.is_relative_to(agents.resolve()):
        _check_never_bind(agents, never)
        return [agents]
    folders = list(dict.fromkeys([Path(found).parent, real.parent]))
    for folder in folders:
        _check_never_bind(folder, never)
    return folders


def _check_never_bind(folder: Path, never=()) -> None:
    why = cli_folder_refusal(folder, secret=never)
    if why:
        raise GatewayError(f"agent CLI folder {folder} would mount what no agent may see ({why}); install "
                           "the CLI elsewhere (scripts/install-agents.sh)")


def _run_roots(agent_dir: Path, run_dir: Path | None) -> tuple:
    """The run's own never-bind folders: its folder and the tasks root its manifest names."""
    attempt = Path(agent_dir).resolve().parent
    run = Path(run_dir) if run_dir else attempt.parent.parent if attempt.parent.name == "attempts" else None
    if run is None:
        return ()
    roots = [run]
    with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
        roots.append(Path(json.loads((run / "manifest.json").read_text())["tasks_root"]))
    return tuple(roots)


def preflight(spec, backend: str) -> None:
    """Fail fast, before any sandbox starts: a bad gateway table first (the file and the field), then
    every missing prerequisite at once: each required key, and the CLI itself on the local backend."""
    if spec.gateway:
        gateway_config(spec)
    source = spec.source.name if spec.source else spec.name
    missing = [f"environment variable {k} is not set (needed by {source})"
               for k in spec.env_required if not os.environ.get(k)]
    cli = getattr(spec, "cli", "")
    if cli and backend == "local" and not find_cli(cli):
        missing.append(f"CLI {cli!r} not found on PATH or in {LOCAL_BIN} "
                       f"(install it: {spec.install or 'see docs/agents.md'})")
    elif cli and backend == "local" and spec.gateway:
        try:
            cli_folders(cli)
        except GatewayError as exc:
            missing.append(str(exc))
    if missing:
        raise GatewayError(f"agent {spec.name}: " + "; ".join(missing))


@contextlib.contextmanager
def open_gateway(spec, agent_dir: Path, backend: str, run_dir: Path | None = None):
    """The gateway of one agent's run: `run_dir` (None outside a run) owns its socket's temp folder."""
    if not spec.gateway:
        yield GatewayHandle(env={})
        return
    config = gateway_config(spec)
    gw = Gateway(config, Path(agent_dir), run_dir)
    gw.start()
    try:
        # Both backends alike: the agent's network namespace has only its loopback, where the
        # launcher forwards GATEWAY_PORT to the socket mounted in (runner/sandbox/confine.py, docker.py)
        url = f"http://127.0.0.1:{GATEWAY_PORT}"
        mounts = (Mount(gw.socket_dir, SOCKET_DIR_IN_SANDBOX, read_only=True),)
        python = sys.executable if backend == "local" else "python3"   # an image's python3 is on its PATH
        prefix = (python, f"{SOCKET_DIR_IN_SANDBOX}/launch.py", "--port", str(GATEWAY_PORT),
                  "--socket", f"{SOCKET_DIR_IN_SANDBOX}/gw.sock", "--")
        if backend == "local":   # the agent CLI's install, read-only where it lies (the CLIs of .agents/)
            never = _run_roots(agent_dir, run_dir)
            mounts += tuple(Mount(path, str(path)) for path in cli_folders(getattr(spec, "cli", ""), never))
        env = {k: v.format(url=url, token=gw.token) for k, v in config["agent_env"].items()}
        env["GAUNTLET_GATEWAY_URL"] = url
        env["GAUNTLET_GATEWAY_KEY"] = gw.token
        env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost,::1"
        if config.get("key_env") and config["key_env"] not in env:
            env[config["key_env"]] = gw.token            # the real key never reaches the agent
        for name in config.get("pass_env", []):          # keys the CLI must hold itself (connect)
            if os.environ.get(name):
                env[name] = os.environ[name]
        if backend == "local" and LOCAL_BIN.is_dir():     # after the user's PATH: theirs wins
            env["PATH"] = f"{os.environ.get('PATH', '')}{os.pathsep}{LOCAL_BIN}"
        yield GatewayHandle(env=env, mounts=mounts, network=False, argv_prefix=prefix, gateway=gw)
    finally:
        gw.close()


# -- metering ------------------------------------------------------------------------------------
class SSEMeter:
    """Reads an SSE (or JSON) response as it streams by; keeps the model and the usage it reports."""

    def __init__(self, protocol: str, streaming: bool):
        self.protocol, self.streaming = protocol, streaming
        self.buf = b""
        self.raw = bytearray()
        self.model: str | None = None
        self.usage: dict = {}
        self.error: str | None = None
        self.bytes = 0                   # all of the body, not only what the transcript keeps
        self.terminal = False            # the stream's terminal event arrived
        self.malformed = False           # an event's data was not JSON

    def feed(self, data: bytes) -> None:
        self.bytes += len(data)
        if len(self.raw) < TRANSCRIPT_BODY_LIMIT:
            self.raw += data[:TRANSCRIPT_BODY_LIMIT - len(self.raw)]
        if not self.streaming:
            self.buf += data
            return
        self.buf += data.replace(b"\r\n", b"\n")
        if len(self.buf) > MAX_SSE_EVENT and b"\n\n" not in self.buf:   # one endless event: not metered
            self.buf, self.malformed = b"", True
        while b"\n\n" in self.buf:
            block, self.buf = self.buf.split(b"\n\n", 1)
            payload = b"\n".join(line[5:].lstrip() for line in block.split(b"\n") if line.startswith(b"data:"))
            if payload and payload != b"[DONE]":
                try:
                    event = json.loads(payload)
                except ValueError:
                    self.malformed = True
                    continue
                if isinstance(event, dict):
                    self.event(event)
                else:
                    self.malformed = True

    def finish(self) -> None:
        if not self.streaming and self.buf:
            try:
                body = json.loads(self.buf)
            except ValueError:
                return
            if isinstance(body, dict):
                if "error" in body:
                    self.error = json.dumps(body["error"])[:500]
                if self.protocol == "anthropic":
                    self.model = body.get("model")
                    self.usage = dict(body.get("usage") or {})
                else:
                    self.model = body.get("model")
                    self.usage = dict(body.get("usage") or {})

    def event(self, ev: dict) -> None:
        kind = ev.get("type", "")
        if kind in _TERMINAL_EVENTS.get(self.protocol, ()):
            self.terminal = True
        if self.protocol == "anthropic":
            if kind == "message_start":
                msg = ev.get("message") or {}
                self.model = msg.get("model")
                self.usage = dict(msg.get("usage") or {})
            elif kind == "message_delta":
                self.usage.update({k: v for k, v in (ev.get("usage") or {}).items() if v is not None})
            elif kind == "error":
                self.error = json.dumps(ev.get("error"))[:500]
        else:
            if kind in ("response.completed", "response.incomplete", "response.failed", "response.created"):
                resp = ev.get("response") or {}
                self.model = resp.get("model") or self.model
                if resp.get("usage"):
                    self.usage = dict(resp["usage"])
                if resp.get("error"):
                    self.error = json.dumps(resp["error"])[:500]
            elif kind == "error":
                self.error = json.dumps(ev)[:500]

    def normalized(self) -> dict:
        from runner.agents.parsers import normalize_usage
        return normalize_usage(self.usage, self.protocol) if self.usage else {}


# -- the server ----------------------------------------------------------------------------------
class _UnixServer(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True

    def get_request(self):
        conn, _ = self.socket.accept()
        return conn, ("unix", 0)


class Gateway:
    def __init__(self, config: dict, agent_dir: Path, run_dir: Path | None = None):
        self.config = config
        self.protocol = config["protocol"]
        self.agent_dir = agent_dir
        self.token = "gauntlet-" + secrets.token_hex(16)
        self.real_key = os.environ.get(config.get("key_env") or "", "")
        self.socket_dir = gateway_temp_dir(run_dir)   # short: unix paths max 107 bytes
        self.socket_path = self.socket_dir / "gw.sock"
        self.lock = threading.Lock()
        self.closed = threading.Event()
        self.totals: dict = {}
        self.by_model: dict = {}
        self.requests = 0
        self.statuses: dict = {}
        self.outcomes: dict = {}
        self.refused = 0
        self.in_flight = 0                  # request body bytes reserved (MAX_BODIES_IN_FLIGHT)
        self.transcript_bytes = 0
        self.transcript_dropped = 0         # records past TRANSCRIPT_HARD_LIMIT, counted only
        self.stdout_lines_untimed = 0       # stdout lines past STDOUT_TIMES_MAX_LINES
        self._open: set = set()             # sockets to close on shutdown (hung upstreams)
        self._summary_final = False
        self.active = 0                     # requests being handled
        handler = _make_handler(self)
        self.servers = [_UnixServer(str(self.socket_path), handler)]
        os.chmod(self.socket_dir, 0o755)
        os.chmod(self.socket_path, 0o666)    # the container's user may not be ours
        (self.socket_dir / "launch.py").write_text(LAUNCHER)
        self.transcript = open(agent_dir / "gateway.jsonl", "a")
        self._threads = [threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
                         for s in self.servers]
        self._threads.append(threading.Thread(target=self._tail_stdout, daemon=True))

    def start(self) -> None:
        self.write_summary()
        for t in self._threads:
            t.start()

    def close(self) -> None:
        self.closed.set()
        for s in self.servers:
            s.shutdown()
            s.server_close()
        with self.lock:
            for sock in list(self._open):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                    sock.close()
        deadline = time.monotonic() + 3                  # let cut-off requests record themselves
        while self.active and time.monotonic() < deadline:
            time.sleep(0.02)
        self._threads[-1].join(timeout=2)
        self.write_summary()
        with self.lock:
            self.transcript.close()
            self._summary_final = True
        remove_tree(self.socket_dir, ignore_errors=True)

    # bookkeeping
    def enter(self, delta: int) -> None:
        with self.lock:
            self.active += delta

    def reserve(self, nbytes: int) -> bool:
        """Reserve (or, negative, release) request-body bytes; False when that would pass the cap."""
        with self.lock:
            if nbytes > 0 and self.in_flight + nbytes > MAX_BODIES_IN_FLIGHT:
                return False
            self.in_flight += nbytes
            return True

    def track(self, sock) -> None:
        with self.lock:
            self._open.add(sock)

    def untrack(self, sock) -> None:
        with self.lock:
            self._open.discard(sock)

    def log(self, entry: dict) -> None:
        with self.lock:
            self.requests += 1
            key = str(entry.get("status"))
            self.statuses[key] = self.statuses.get(key, 0) + 1
            outcome = entry.get("outcome") or "unknown"
            self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1
            usage = entry.get("usage") or {}
            if entry.get("refused"):
                self.refused += 1
            if usage:
                _add(self.totals, usage)
                _add(self.by_model.setdefault(entry.get("model") or "unknown", {}), usage)
            if not self.transcript.closed:
                line = _transcript_line(entry, self.transcript_bytes)
                if line is None:
                    self.transcript_dropped += 1
                else:
                    self.transcript.write(line)
                    self.transcript.flush()
                    self.transcript_bytes += len(line.encode())
        self.write_summary()

    def summary(self) -> dict:
        with self.lock:
            return {"protocol": self.protocol, "upstream": self.config.get("upstream") or
                    self.config.get("allow_hosts"), "requests": self.requests, "refused": self.refused,
                    "statuses": dict(self.statuses), "outcomes": dict(self.outcomes), "usage": dict(self.totals),
                    "by_model": {k: dict(v) for k, v in self.by_model.items()},
                    **({"transcript_dropped": self.transcript_dropped} if self.transcript_dropped else {}),
                    **({"stdout_lines_untimed": self.stdout_lines_untimed} if self.stdout_lines_untimed else {})}

    def write_summary(self) -> None:
        data = self.summary()
        with self.lock:                      # one writer at a time; nothing after the attempt ended
            if self.transcript.closed and self.closed.is_set() and self._summary_final:
                return
            tmp = self.agent_dir / ".gateway.json.tmp"
            tmp.write_text(json.dumps(data, indent=2) + "\n")
            os.replace(tmp, self.agent_dir / "gateway.json")

    def _tail_stdout(self) -> None:
        """Arrival time of each stdout line (host side; the stream itself stays raw): one line per
        newline, read a bounded chunk at a time, at most STDOUT_TIMES_MAX_LINES lines in all (the
        parsers time later lines by the log's last write)."""
        path, offset, written = self.agent_dir / "stdout.log", 0, 0
        with open(self.agent_dir / "stdout.times", "a") as out:
            while True:
                done = self.closed.is_set()
                while True:
                    try:
                        with open(path, "rb") as fh:
                            fh.seek(offset)
                            data = fh.read(STDOUT_READ_CHUNK)
                    except FileNotFoundError:
                        data = b""
                    if not data:
                        break
                    offset += len(data)
                    lines = data.count(b"\n")
                    keep = min(lines, STDOUT_TIMES_MAX_LINES - written)
                    if keep:
                        out.write(f"{time.time():.3f}\n" * keep)
                        out.flush()
                        written += keep
                    if lines > keep:
                        with self.lock:
                            self.stdout_lines_untimed += lines - keep
                if done:
                    return
                self.closed.wait(0.2)

    # upstream
    def upstream_connection(self):
        url = self.config["upstream"]
        if url.startswith("unix:"):
            return _UnixHTTPConnection(url[5:]), ""
        parts = urlsplit(url)
        if parts.scheme == "https":
            conn = http.client.HTTPSConnection(parts.hostname, parts.port or 443, timeout=None,
                                               context=ssl.create_default_context())
        elif parts.scheme == "http":
            conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=None)
        else:
            raise GatewayError(f"gateway upstream {url!r}: want http(s)://host[:port][/prefix] or unix:/path")
        return conn, parts.path.rstrip("/")

    def upstream_host(self) -> str:
        url = self.config["upstream"]
        return "localhost" if url.startswith("unix:") else urlsplit(url).netloc


def _add(into: dict, usage: dict) -> None:
    for k, v in usage.items():
        if isinstance(v, (int, float)):
            into[k] = into.get(k, 0) + v


class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: str):
        super().__init__("localhost", timeout=None)
        self.unix_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.unix_path)


def _strip_path_prefix(path: str, prefix: str) -> str:
    """Agent path -> upstream path: '/v1/responses' with upstream '.../v1' -> prefix + '/responses'."""
    if prefix.endswith("/v1") and path.startswith("/v1/"):
        return prefix + path[3:]
    return prefix + path


class _Refusal(Exception):
    """A request the gateway answers itself: (HTTP status, message)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def _no_duplicates(pairs: list) -> dict:
    out = {}
    for key, value in pairs:
        if key in out:
            raise _Refusal(400, f"request body: duplicate key {key[:100]!r}")
        out[key] = value
    return out


def _no_constant(name: str):
    raise _Refusal(400, f"request body: {name} is not JSON")


def parse_body(body: bytes) -> dict:
    """The request body as the one JSON object it must be, parsed strictly: UTF-8, no duplicate keys
    at any depth (the upstream's parser may keep the other one), no NaN/Infinity, nothing after it."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Refusal(400, f"request body: not UTF-8 (byte {exc.start})") from None
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except RecursionError:
        raise _Refusal(400, "request body: nested too deep") from None
    except ValueError as exc:          # JSONDecodeError (trailing bytes included), int too long
        raise _Refusal(400, f"request body: not one JSON value: {exc}") from None
    if not isinstance(value, dict):
        raise _Refusal(400, f"request body: a JSON {type(value).__name__}, not an object")
    return value


def _remote_references(value, where: str = "") -> str | None:
    """Where the body asks the provider to fetch something itself (a URL or a stored file as a content
    source), or None. Inline (base64 / data:) content is fine."""
    stack = [(value, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, dict):
            source = item.get("source")
            if isinstance(source, dict) and source.get("type") not in (None, "base64", "text", "content"):
                return f"{at}.source.type={source.get('type')!r}"
            for key in ("image_url", "file_url", "file_id"):
                ref = item.get(key)
                if isinstance(ref, dict):
                    ref = ref.get("url")
                if isinstance(ref, str) and not ref.startswith("data:"):
                    return f"{at}.{key}"
            stack.extend((v, f"{at}.{k}") for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(item))
    return None


def _admit(path: str, body: dict, protocol: str) -> list[str]:
    """Check a parsed request body against the path's allow-list (raises _Refusal) and strip its
    server-side tools; returns what was stripped."""
    allowed = _BODY_FIELDS.get(path)
    if allowed is None:
        raise _Refusal(400, f"{path} takes no request body here")
    extra = sorted(set(body) - allowed)
    if extra:
        raise _Refusal(400, f"request field{'s' if len(extra) > 1 else ''} not allowed through the gateway: "
                            + ", ".join(repr(k[:60]) for k in extra[:10]))
    for key in ("messages", "input", "system", "instructions"):
        found = _remote_references(body.get(key), key) if key in body else None
        if found:
            raise _Refusal(400, f"request content the provider would fetch itself is not allowed: {found[:200]}")
    return _strip_server_tools(body, protocol)


def _client_tool(tool, protocol: str) -> bool:
    if not isinstance(tool, dict):
        return False
    kind = tool.get("type")
    if protocol == "openai-responses" and kind == "tool_search":     # Codex: searched by the CLI itself
        return tool.get("execution") == "client"
    if kind in _CLIENT_TOOL_TYPES.get(protocol, ()):
        return True
    return isinstance(kind, str) and kind.startswith(_CLIENT_TOOL_TYPE_PREFIXES.get(protocol, ()) or ("\0",))


def _strip_server_tools(body: dict, protocol: str = "anthropic") -> list[str]:
    """Drop every tool the client does not run itself (by type, whatever its name)."""
    tools = body.get("tools")
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise _Refusal(400, "request field 'tools' is not a list")
    kept, dropped = [], []
    for tool in tools:
        if _client_tool(tool, protocol):
            kept.append(tool)
        else:
            kind = tool.get("type") if isinstance(tool, dict) else type(tool).__name__
            name = tool.get("name") if isinstance(tool, dict) else None
            dropped.append(str(name or kind)[:100])
    if dropped:
        body["tools"] = kept
    return dropped


def _forward_headers(headers, protocol: str) -> tuple[dict, list[str], list[str]]:
    """The agent's headers that may go upstream; (kept, names dropped, anthropic-beta values dropped)."""
    kept, dropped, betas_dropped = {}, [], []
    for name, value in headers.items():
        low = name.lower()
        if low in _HOP | _AUTH:
            continue
        if low not in _FORWARD_HEADERS and not low.startswith(_FORWARD_HEADER_PREFIXES):
            dropped.append(low[:60])
            continue
        if low == "anthropic-beta":
            values = [v.strip() for v in value.split(",") if v.strip()]
            betas_dropped += [v[:80] for v in values if v not in ANTHROPIC_BETAS]
            value = ",".join(v for v in values if v in ANTHROPIC_BETAS)
            if "anthropic-beta" in kept:
                value = ",".join(filter(None, (kept["anthropic-beta"], value)))
            if not value:
                continue
        elif low == "openai-beta" and not value.strip().startswith("responses="):
            dropped.append(low)
            continue
        elif low in kept:              # one value per header: a repeated one is the agent's doing
            dropped.append(low)
            continue
        kept[low] = value
    return kept, sorted(set(dropped))[:50], betas_dropped[:50]


def _make_handler(gw: Gateway):
    protocol = gw.protocol

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def setup(self):
            super().setup()
            gw.enter(1)
            gw.track(self.connection)

        def handle(self):
            if gw.active > MAX_CONNECTIONS:
                return                           # closed unanswered: the agent opened too many at once
            super().handle()

        def handle_expect_100(self):
            self._expect_100 = True              # "100 Continue" only once path, key and size are checked
            return True

        def finish(self):
            with contextlib.suppress(OSError):
                super().finish()
            gw.untrack(self.connection)
            gw.enter(-1)

        def _body_length(self) -> int | None:
            """The declared body length (None: chunked); raises _Refusal for a bad or oversized one."""
            lengths = self.headers.get_all("content-length") or []
            chunked = "chunked" in (self.headers.get("transfer-encoding") or "").lower()
            if chunked and lengths or len(lengths) > 1:
                raise _Refusal(400, "ambiguous body length (content-length with chunked, or twice)")
            if chunked:
                return None
            text = (lengths[0] if lengths else "0").strip()
            if not text.isdigit() or len(text) > 15:
                raise _Refusal(400, f"bad content-length {text[:40]!r}")
            if int(text) > MAX_REQUEST_BODY:
                raise _Refusal(413, f"request body of {int(text)} bytes is over the gateway's "
                                    f"{MAX_REQUEST_BODY} byte limit")
            return int(text)

        def _read_body(self, length: int | None) -> bytes:
            """The body, never more than MAX_REQUEST_BODY bytes of it (a chunked one past that: 413)."""
            self._body_pending = True
            if getattr(self, "_expect_100", False):
                self._expect_100 = False
                self.send_response_only(100)
                self.end_headers()
            if length is not None:
                data = self.rfile.read(length) if length else b""
                if len(data) < length:
                    raise _Refusal(400, "the request body ended early")
                self._body_pending = False
                return data
            out = bytearray()
            while True:
                line = self.rfile.readline(1024)
                try:
                    size = int(line.split(b";")[0].strip(), 16)
                except ValueError:
                    raise _Refusal(400, "bad chunk size in a chunked body") from None
                if size < 0 or len(out) + size > MAX_REQUEST_BODY:
                    raise _Refusal(413, f"chunked request body past the gateway's {MAX_REQUEST_BODY} byte limit")
                if size == 0:
                    for _ in range(100):      # trailers, bounded
                        if self.rfile.readline(8192) in (b"\r\n", b"\n", b""):
                            break
                    self._body_pending = False
                    return bytes(out)
                chunk = self.rfile.read(size)
                if len(chunk) < size:
                    raise _Refusal(400, "the request body ended early")
                out += chunk
                self.rfile.readline(1024)

        def _drain(self) -> None:
            """Before refusing a request whose body is still unread: read a small declared one away (a
            plain client is still sending it; the connection stays usable), else close the connection."""
            self.close_connection = True
            lengths = self.headers.get_all("content-length") or ["0"]
            if (getattr(self, "_expect_100", False) or "transfer-encoding" in self.headers or len(lengths) != 1
                    or not lengths[0].strip().isdigit() or int(lengths[0]) > DRAIN_LIMIT):
                return
            left = int(lengths[0])
            try:
                while left:
                    got = self.rfile.read(min(left, 65536))
                    if not got:
                        return
                    left -= len(got)
            except OSError:
                return
            self._body_pending, self.close_connection = False, False

        def _refuse(self, status: int, message: str, entry: dict, outcome: str = "refused") -> None:
            kind = {401: "authentication_error", 403: "permission_error", 404: "not_found_error"}.get(
                status, "api_error")
            body = (json.dumps({"type": "error", "error": {"type": kind, "message": f"gauntlet gateway: {message}"}})
                    if protocol == "anthropic" else
                    json.dumps({"error": {"type": kind, "code": kind, "message": f"gauntlet gateway: {message}"}}))
            data = body.encode()
            gw.log({**entry, "status": status, "outcome": outcome, "t1": time.time(),
                    **({"refused": message} if outcome == "refused" else {"error": message})})
            if getattr(self, "_body_pending", True):   # unread (or half-read) body: never parse it as a request
                self._drain()
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                if self.close_connection:
                    self.send_header("connection", "close")
                self.end_headers()
                self.wfile.write(data)
            except OSError:                      # the agent hung up (or was killed) first
                self.close_connection = True

        def _authorized(self) -> bool:
            got = self.headers.get("x-api-key") or ""
            auth = self.headers.get("authorization") or ""
            if auth.lower().startswith("bearer "):
                got = got or auth[7:].strip()
            return secrets.compare_digest(got.encode(), gw.token.encode())

        def do_CONNECT(self):
            entry = {"t0": time.time(), "method": "CONNECT", "path": self.path}
            allowed = [h.lower() for h in gw.config.get("allow_hosts", [])]
            if protocol != "connect" or self.path.lower() not in allowed:
                return self._refuse(403, f"CONNECT {self.path} is not allowed", entry)
            host, _, port = self.path.rpartition(":")
            try:
                upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=30)
            except (OSError, ValueError) as exc:
                return self._refuse(502, f"cannot reach {self.path}: {exc}", entry, outcome="unreachable")
            upstream.settimeout(None)
            gw.track(upstream)
            self.send_response(200, "Connection established")
            self.end_headers()
            self.wfile.flush()
            sent, received = _splice(self.connection, upstream, gw.closed)
            gw.untrack(upstream)
            self.close_connection = True
            gw.log({**entry, "status": 200, "outcome": "complete", "t1": time.time(), "request_bytes": sent,
                    "response_bytes": received})

        def _forward(self):
            self._reserved = 0
            try:
                self._forward_request()
            finally:
                gw.reserve(-self._reserved)

        def _forward_request(self):
            path_only = self.path.split("?", 1)[0]
            entry = {"t0": time.time(), "method": self.command, "path": self.path[:1000]}
            self._body_pending = True
            # path and key first, then the body's size: nothing is read for a request refused anyway
            if protocol == "connect":
                return self._refuse(403, "this agent's gateway only carries CONNECT", entry)
            if path_only not in gw.config.get("paths", []):
                return self._refuse(403, f"{self.command} {path_only[:200]} is not an allowed path", entry)
            if not self._authorized():
                return self._refuse(401, "unknown API key (use the key the harness gave you)", entry)
            try:
                length = self._body_length()
                want = MAX_REQUEST_BODY if length is None else length
                if not gw.reserve(want):         # held until the request ends (_forward)
                    raise _Refusal(503, "too many large requests in flight at once; retry")
                self._reserved = want
                body = self._read_body(length)
                request_json = None
                if body:                         # parsed strictly, checked, and sent re-serialised
                    request_json = parse_body(body)
                    stripped = _admit(path_only, request_json, protocol)
                    if stripped:
                        entry["stripped_tools"] = stripped
                    body = json.dumps(request_json, separators=(",", ":")).encode()
                elif self.command in ("POST", "PUT", "PATCH") and path_only in _BODY_FIELDS:
                    raise _Refusal(400, f"{self.command} {path_only} without a body")
            except _Refusal as refusal:
                return self._refuse(refusal.status, refusal.message, entry)
            except OSError as exc:                # the agent hung up mid-body
                return self._refuse(400, f"reading the request body: {type(exc).__name__}", entry,
                                    outcome="aborted")
            if isinstance(request_json, dict):
                entry["model"] = str(request_json.get("model"))[:200] if "model" in request_json else None
                entry["stream"] = bool(request_json.get("stream"))
                entry["request"] = _transcript_request(request_json)
            headers, dropped, betas_dropped = _forward_headers(self.headers, protocol)
            if dropped:
                entry["dropped_headers"] = dropped
            if betas_dropped:
                entry["dropped_betas"] = betas_dropped
            if gw.real_key:
                if gw.config.get("key_header") == "authorization":
                    headers["authorization"] = f"Bearer {gw.real_key}"
                else:
                    headers[gw.config.get("key_header") or "x-api-key"] = gw.real_key
            headers["host"] = gw.upstream_host()
            headers["accept-encoding"] = "identity"       # the meter reads the stream
            headers["content-length"] = str(len(body))
            if body:
                headers["content-type"] = "application/json"
            query = self.path.partition("?")[2]        # only Claude Code's own marker goes on
            upstream_path = path_only + ("?beta=true" if query == "beta=true" else "")
            if query and query != "beta=true":
                entry["dropped_query"] = query[:200]
            streaming_request = bool(isinstance(request_json, dict) and request_json.get("stream"))
            idle = gw.config.get("idle_timeout_s", DEFAULT_IDLE_TIMEOUT_S)
            heard = [time.time()]      # when the upstream last sent anything (a request cut by the budget: stall_s)
            # while a chunk is being written to the agent the wait is the agent's: an agent that stops
            # reading a stream must not make it look silent (red team, session 27)
            on_agent = [False]
            try:
                conn, prefix = gw.upstream_connection()
                conn.request(self.command, _strip_path_prefix(upstream_path, prefix), body=body, headers=headers)
                upstream_sock = conn.sock   # conn.sock goes None when the response says "close"
                gw.track(upstream_sock)
                if streaming_request:       # a streamed answer starts at once; silence is a stall
                    upstream_sock.settimeout(idle)
                resp = conn.getresponse()
            except TimeoutError:
                return self._refuse(504, f"upstream sent nothing for {idle:g} s", entry, outcome="stalled")
            except (OSError, http.client.HTTPException) as exc:
                if gw.closed.is_set():
                    return self._refuse(502, "the attempt ended while waiting for the upstream",
                                        {**entry, **_silence(heard[0], idle)}, outcome="aborted")
                return self._refuse(502, f"upstream unreachable: {exc}", entry, outcome="unreachable")
            ctype = resp.getheader("content-type") or ""
            meter = SSEMeter(protocol, streaming="event-stream" in ctype)
            if meter.streaming:
                upstream_sock.settimeout(idle)
            length = resp.getheader("content-length")
            chunked = length is None
            error, outcome, logged = None, None, False

            def record():
                # Metered and logged before the agent sees the end of the response, so whoever
                # reads gateway.json after the agent's last request finds that request counted.
                nonlocal logged
                if logged:
                    return
                logged = True
                meter.finish()
                entry.update({"status": resp.status, "t1": time.time(), "model": meter.model or entry.get("model"),
                              "outcome": outcome or _stream_outcome(meter, gw.closed.is_set()),
                              "usage": meter.normalized(), "usage_raw": meter.usage,
                              "response_bytes": meter.bytes, "response": meter.raw.decode("utf-8", "replace")})
                error_text = error or meter.error or _OUTCOME_ERRORS.get(entry["outcome"])
                if error_text:
                    entry["error"] = error_text
                if entry["outcome"] == "aborted":
                    entry.update(_silence(heard[0], idle, on_agent[0]))
                gw.log(entry)
            try:
                if not meter.streaming:                      # JSON and errors: small, read whole
                    try:
                        data = resp.read(MAX_RESPONSE_BODY + 1)
                        if len(data) > MAX_RESPONSE_BODY:
                            raise http.client.HTTPException(f"upstream answer over {MAX_RESPONSE_BODY} bytes")
                    except (OSError, http.client.HTTPException) as exc:
                        error, outcome = f"{type(exc).__name__}: {exc}", "aborted" if gw.closed.is_set() else "cut"
                        raise
                    meter.feed(data)
                    chunked, length = False, str(len(data))
                    outcome = "complete"
                    record()
                self.send_response(resp.status, resp.reason)
                for k, v in resp.getheaders():
                    if k.lower() not in _HOP | {"server", "date"}:
                        self.send_header(k, v)
                if chunked:
                    self.send_header("transfer-encoding", "chunked")
                else:
                    self.send_header("content-length", length)
                self.end_headers()
                if not meter.streaming:
                    self.wfile.write(data)
                else:
                    self.wfile.flush()
                    while True:
                        try:
                            data = resp.read1(65536)
                        except TimeoutError:
                            error, outcome = f"the upstream stream sent nothing for {idle:g} s", "stalled"
                            break
                        except (OSError, http.client.HTTPException) as exc:
                            error = f"{type(exc).__name__}: {exc}"
                            break                    # cut (or aborted): _stream_outcome decides
                        if not data:
                            break
                        heard[0] = time.time()
                        meter.feed(data)
                        on_agent[0] = True
                        try:
                            if chunked:
                                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                            else:
                                self.wfile.write(data)
                            self.wfile.flush()
                        except OSError as exc:       # the agent hung up (or was killed)
                            error, outcome = f"agent side: {type(exc).__name__}: {exc}", "aborted"
                            raise
                        on_agent[0] = False
                        heard[0] = time.time()       # the upstream's silence starts once we read again
                    record()
                    if entry["outcome"] == "stalled":
                        # tell the CLI why, then end the connection without a terminal event: it
                        # retries or fails now instead of waiting on its own idle timeout
                        data = _stall_event(protocol, error)
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)
                        self.wfile.flush()
                        self.close_connection = True
                    elif chunked:
                        self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except (OSError, http.client.HTTPException, ValueError) as exc:
                error = error or f"{type(exc).__name__}: {exc}"
                outcome = outcome or "aborted"
                self.close_connection = True
            finally:
                gw.untrack(upstream_sock)
                conn.close()
                record()

        do_POST = do_GET = do_PUT = do_DELETE = do_PATCH = _forward

    return Handler


def _silence(heard: float, idle_timeout_s: float, on_agent: bool = False) -> dict:
    """An aborted request's record of how long the upstream had been silent when it ended, beside the
    idle timeout in force: a stall the budget cut short is the model API's failure (parsers.record_failure).
    `on_agent`: it ended while the gateway was writing to the agent (the wait was the agent's)."""
    return {"silent_s": round(time.time() - heard, 3), "idle_timeout_s": idle_timeout_s,
            **({"waiting_on": "agent"} if on_agent else {})}


def _stream_outcome(meter: SSEMeter, attempt_over: bool) -> str:
    """How a streamed response ended, judged from what the meter saw (see OUTCOMES)."""
    if meter.malformed:
        return "malformed"
    if meter.terminal or not meter.streaming:
        return "complete"
    return "aborted" if attempt_over else "cut"


def _stall_event(protocol: str, message: str | None) -> bytes:
    """The SSE error event the gateway sends an agent whose stream it stopped."""
    text = f"gauntlet gateway: {message or 'the upstream stream stalled'}"
    if protocol == "anthropic":
        event = {"type": "error", "error": {"type": "api_error", "message": text}}
    else:
        event = {"type": "error", "code": "server_error", "message": text}
    return f"event: error\ndata: {json.dumps(event)}\n\n".encode()


def _transcript_request(body: dict) -> dict:
    """The request as recorded: everything but the bulky constant parts, and only the newest turn
    (each request re-sends the whole history, so the transcript keeps what is new)."""
    out = {}
    for key, value in body.items():
        if key in ("system", "tools", "instructions"):
            out[key] = f"<{len(json.dumps(value))} bytes>"
        elif key in ("messages", "input") and isinstance(value, list):
            out[f"{key}_count"] = len(value)
            out[key] = value[-2:]
        else:
            out[key] = value
    return out


def _transcript_line(entry: dict, written: int) -> str | None:
    """One gateway.jsonl line within the caps: the request kept to TRANSCRIPT_REQUEST_LIMIT bytes;
    past TRANSCRIPT_TOTAL_LIMIT in all only the bare record (no request, no response); past
    TRANSCRIPT_HARD_LIMIT nothing (None)."""
    if written >= TRANSCRIPT_HARD_LIMIT:
        return None
    entry = dict(entry)
    if written >= TRANSCRIPT_TOTAL_LIMIT:
        for key in ("request", "response"):
            if key in entry:
                entry[key] = "<dropped: gateway.jsonl is over its size limit>"
    elif "request" in entry:
        text = json.dumps(entry["request"], default=str)
        if len(text) > TRANSCRIPT_REQUEST_LIMIT:
            entry["request"] = {"truncated": True, "bytes": len(text), "head": text[:TRANSCRIPT_REQUEST_LIMIT]}
    line = json.dumps(entry, default=str) + "\n"
    if len(line) > TRANSCRIPT_REQUEST_LIMIT + 2 * TRANSCRIPT_BODY_LIMIT:    # any other field gone wild
        line = json.dumps({k: entry[k] for k in ("t0", "t1", "method", "status", "outcome", "model", "usage")
                           if k in entry} | {"truncated": True}, default=str) + "\n"
    return line


def _splice(a: socket.socket, b: socket.socket, stop: threading.Event) -> tuple[int, int]:
    """Copy bytes both ways until either side closes; returns (a->b bytes, b->a bytes)."""
    counts = {a: 0, b: 0}
    peer = {a: b, b: a}
    try:
        while not stop.is_set():
            ready, _, _ = select.select([a, b], [], [], 0.5)
            for s in ready:
                data = s.recv(65536)
                if not data:
                    return counts[a], counts[b]
                peer[s].sendall(data)
                counts[s] += len(data)
    except OSError:
        pass
    finally:
        for s in (a, b):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            b.close()
    return counts[a], counts[b]


# The in-sandbox side (either backend): forward 127.0.0.1:PORT to the mounted unix socket, run the
# agent command, exit with its status. Standard library only; written next to the socket.
LAUNCHER = r'''"""gauntlet gateway launcher: 127.0.0.1:PORT -> unix socket, then run the agent command."""
import os, select, signal, socket, subprocess, sys, threading

def pipe(a, b):
    try:
        while True:
            r, _, _ = select.select([a, b], [], [])
            for s in r:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    except OSError:
        pass
    finally:
        for s in (a, b):
            try:
                s.close()
            except OSError:
                pass

def serve(listener, path):
    while True:
        conn, _ = listener.accept()
        up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            up.connect(path)
        except OSError:
            conn.close()
            continue
        threading.Thread(target=pipe, args=(conn, up), daemon=True).start()

def main():
    args = sys.argv[1:]
    split = args.index("--")
    opts, argv = dict(zip(args[:split:2], args[1:split:2])), args[split + 1:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(opts["--port"])))
    listener.listen(64)
    threading.Thread(target=serve, args=(listener, opts["--socket"]), daemon=True).start()
    child = subprocess.Popen(argv)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, f: child.send_signal(s))
    sys.exit(child.wait() if child.wait() >= 0 else 128 - child.returncode)

main()
'''
