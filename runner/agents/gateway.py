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
  * strips server-side tools (web search/fetch, code execution) from request bodies;
  * streams responses through unbuffered (SSE) while metering tokens from them, independently of
    what the CLI reports, and records a transcript: agent_dir/gateway.jsonl (one line per request)
    and agent_dir/gateway.json (the meter, rewritten after every request);
  * records each request's outcome (OUTCOMES): a stream that ended without its terminal event is
    "cut", one with an event that is not JSON "malformed", and one that sends nothing for
    `idle_timeout_s` (the [gateway] table; default DEFAULT_IDLE_TIMEOUT_S) is stopped by the gateway
    itself and "stalled": the agent gets an error event and a closed connection instead of waiting
    on its CLI's own (often hour-long) idle timeout;
  * timestamps the agent's stdout lines as they arrive (agent_dir/stdout.times: one epoch per line),
    which the parsers use for trajectory timestamps when the stream carries none.

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
from runner.sandbox.local import gateway_temp_dir

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
_SERVER_TOOL_PREFIXES = ("web_search", "web_fetch", "code_execution", "code_interpreter", "file_search",
                         "computer_use_preview", "image_generation", "mcp")
TRANSCRIPT_BODY_LIMIT = 1 << 20
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


def cli_folders(name: str) -> list[Path]:
    """What an agent CLI needs to run on the local backend beyond the system folders, each mounted
    read-only at the path the agent's PATH names: the repo's .agents/ (scripts/install-agents.sh), or
    for a CLI found elsewhere on PATH its folder and its real file's (a symlink's target: a native
    installer's versions folder). Never more: a wider folder could hold task files."""
    found = find_cli(name) if name else None
    if not found:
        return []
    agents = LOCAL_BIN.parent.parent
    real = Path(found).resolve()
    if real.is_relative_to(agents.resolve()):
        return [agents]
    return list(dict.fromkeys([Path(found).parent, real.parent]))


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
            mounts += tuple(Mount(path, str(path)) for path in cli_folders(getattr(spec, "cli", "")))
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
        shutil.rmtree(self.socket_dir, ignore_errors=True)

    # bookkeeping
    def enter(self, delta: int) -> None:
        with self.lock:
            self.active += delta

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
                self.transcript.write(json.dumps(entry, default=str) + "\n")
                self.transcript.flush()
        self.write_summary()

    def summary(self) -> dict:
        with self.lock:
            return {"protocol": self.protocol, "upstream": self.config.get("upstream") or
                    self.config.get("allow_hosts"), "requests": self.requests, "refused": self.refused,
                    "statuses": dict(self.statuses), "outcomes": dict(self.outcomes), "usage": dict(self.totals),
                    "by_model": {k: dict(v) for k, v in self.by_model.items()}}

    def write_summary(self) -> None:
        data = self.summary()
        with self.lock:                      # one writer at a time; nothing after the attempt ended
            if self.transcript.closed and self.closed.is_set() and self._summary_final:
                return
            tmp = self.agent_dir / ".gateway.json.tmp"
            tmp.write_text(json.dumps(data, indent=2) + "\n")
            os.replace(tmp, self.agent_dir / "gateway.json")

    def _tail_stdout(self) -> None:
        """Arrival time of each stdout line (host side; the stream itself stays raw)."""
        path, offset, partial = self.agent_dir / "stdout.log", 0, b""
        with open(self.agent_dir / "stdout.times", "a") as out:
            while True:
                done = self.closed.is_set()
                try:
                    with open(path, "rb") as fh:
                        fh.seek(offset)
                        data = fh.read()
                except FileNotFoundError:
                    data = b""
                if data:
                    offset += len(data)
                    now = time.time()
                    partial += data
                    out.write(f"{now:.3f}\n" * partial.count(b"\n"))
                    partial = partial.rsplit(b"\n", 1)[1] if b"\n" in partial else partial
                    out.flush()
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


def _strip_server_tools(body: dict) -> list[str]:
    tools = body.get("tools")
    if not isinstance(tools, list):
        return []
    kept, dropped = [], []
    for tool in tools:
        kind = str(tool.get("type", "")) if isinstance(tool, dict) else ""
        if kind.startswith(_SERVER_TOOL_PREFIXES):
            dropped.append(tool.get("name") or kind)
        else:
            kept.append(tool)
    if dropped:
        body["tools"] = kept
    return dropped


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

        def finish(self):
            with contextlib.suppress(OSError):
                super().finish()
            gw.untrack(self.connection)
            gw.enter(-1)

        def _read_body(self) -> bytes:
            if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
                out = b""
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        return out
                    out += self.rfile.read(size)
                    self.rfile.readline()
            length = int(self.headers.get("content-length") or 0)
            return self.rfile.read(length) if length else b""

        def _refuse(self, status: int, message: str, entry: dict, outcome: str = "refused") -> None:
            kind = {401: "authentication_error", 403: "permission_error", 404: "not_found_error"}.get(
                status, "api_error")
            body = (json.dumps({"type": "error", "error": {"type": kind, "message": f"gauntlet gateway: {message}"}})
                    if protocol == "anthropic" else
                    json.dumps({"error": {"type": kind, "code": kind, "message": f"gauntlet gateway: {message}"}}))
            data = body.encode()
            gw.log({**entry, "status": status, "outcome": outcome, "t1": time.time(),
                    **({"refused": message} if outcome == "refused" else {"error": message})})
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
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
            path_only = self.path.split("?", 1)[0]
            entry = {"t0": time.time(), "method": self.command, "path": self.path}
            body = self._read_body()
            if protocol == "connect":
                return self._refuse(403, "this agent's gateway only carries CONNECT", entry)
            if path_only not in gw.config.get("paths", []):
                return self._refuse(403, f"{self.command} {path_only} is not an allowed path", entry)
            if not self._authorized():
                return self._refuse(401, "unknown API key (use the key the harness gave you)", entry)
            request_json = None
            if body:
                try:
                    request_json = json.loads(body)
                except ValueError:
                    request_json = None
            if isinstance(request_json, dict):
                stripped = _strip_server_tools(request_json)
                if stripped:
                    entry["stripped_tools"] = stripped
                    body = json.dumps(request_json).encode()
                entry["model"] = request_json.get("model")
                entry["stream"] = bool(request_json.get("stream"))
                entry["request"] = _transcript_request(request_json)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP | _AUTH}
            if gw.real_key:
                if gw.config.get("key_header") == "authorization":
                    headers["authorization"] = f"Bearer {gw.real_key}"
                else:
                    headers[gw.config.get("key_header") or "x-api-key"] = gw.real_key
            headers["host"] = gw.upstream_host()
            headers["accept-encoding"] = "identity"       # the meter reads the stream
            headers["content-length"] = str(len(body))
            streaming_request = bool(isinstance(request_json, dict) and request_json.get("stream"))
            idle = gw.config.get("idle_timeout_s", DEFAULT_IDLE_TIMEOUT_S)
            heard = [time.time()]      # when the upstream last sent anything (a request cut by the budget: stall_s)
            try:
                conn, prefix = gw.upstream_connection()
                conn.request(self.command, _strip_path_prefix(self.path, prefix), body=body, headers=headers)
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
                    entry.update(_silence(heard[0], idle))
                gw.log(entry)
            try:
                if not meter.streaming:                      # JSON and errors: small, read whole
                    try:
                        data = resp.read()
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
                        try:
                            if chunked:
                                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                            else:
                                self.wfile.write(data)
                            self.wfile.flush()
                        except OSError as exc:       # the agent hung up (or was killed)
                            error, outcome = f"agent side: {type(exc).__name__}: {exc}", "aborted"
                            raise
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


def _silence(heard: float, idle_timeout_s: float) -> dict:
    """An aborted request's record of how long the upstream had been silent when it ended, beside the
    idle timeout in force: a stall the budget cut short is the model API's failure (parsers.record_failure)."""
    return {"silent_s": round(time.time() - heard, 3), "idle_timeout_s": idle_timeout_s}


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
