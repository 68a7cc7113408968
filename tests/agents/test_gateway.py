"""The model gateway on its own (no agent CLI): allowlist, per-attempt key swapped for the real one,
SSE streamed through unbuffered, tokens metered from the upstream's events, transcript, server-side
tools stripped, CONNECT only to allowed hosts, and the in-container launcher (docker backend path)
reaching the gateway through its unix socket."""
import dataclasses
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from runner.agents.agent import resolve_agent
from runner.agents.gateway import open_gateway
from runner.agents.model_server import ScriptedModelServer

from .conftest import jsonl, tasks_root  # noqa: F401  (fixture)

TOOL = {"name": "Bash", "description": "run", "input_schema": {"type": "object"}}


class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self):
        self.sock = gateway_socket_at(self.unix_path, self.timeout)


def gateway_socket_at(path: str, timeout: float) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(path)
    return sock


def gateway_connection(handle, timeout=30) -> http.client.HTTPConnection:
    """HTTP to the gateway through its unix socket, as the in-sandbox launcher reaches it."""
    return _UnixHTTPConnection(str(handle.gateway.socket_path), timeout)


def gateway_socket(handle, timeout=10) -> socket.socket:
    return gateway_socket_at(str(handle.gateway.socket_path), timeout)


def post(handle, path, body, headers, timeout=30):
    conn = gateway_connection(handle, timeout)
    conn.request("POST", path, body=json.dumps(body), headers={"content-type": "application/json", **headers})
    resp = conn.getresponse()
    return resp, resp.read()


@pytest.fixture
def anthropic_gateway(tmp_path, monkeypatch):
    server = ScriptedModelServer([{"read": "kernel.py"}, {"text": "done"}], unix=tmp_path / "up.sock",
                                 require_key="sk-real").start()
    monkeypatch.setenv("GAUNTLET_GATEWAY_UPSTREAM", server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-real")
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    with open_gateway(resolve_agent("claude-code"), agent_dir, "local") as handle:
        yield handle, server, agent_dir
    server.close()


def test_anthropic_stream_metered_key_swapped_server_tools_stripped(anthropic_gateway):
    handle, server, agent_dir = anthropic_gateway
    env = handle.env
    assert env["ANTHROPIC_API_KEY"].startswith("gauntlet-") and env["ANTHROPIC_API_KEY"] != "sk-real"
    body = {"model": "m", "max_tokens": 100, "stream": True, "messages": [{"role": "user", "content": "hi"}],
            "tools": [TOOL, {"type": "web_search_20250305", "name": "web_search"}]}
    resp, data = post(handle, "/v1/messages?beta=true", body,
                      {"x-api-key": env["ANTHROPIC_API_KEY"], "accept-encoding": "gzip"})
    assert resp.status == 200 and "event-stream" in resp.getheader("content-type")
    assert b"event: message_stop" in data and b'"name": "Read"' in data
    up = server.requests[-1]
    assert up["headers"].get("x-api-key") == "sk-real" and env["ANTHROPIC_API_KEY"] not in json.dumps(up)
    assert [t.get("name") for t in up["body"]["tools"]] == ["Bash"]           # web_search withheld
    meter = json.loads((agent_dir / "gateway.json").read_text())
    assert meter["usage"] == {"input_tokens": 100, "cache_read_tokens": 30, "cache_write_tokens": 20,
                              "output_tokens": 7}
    entry = jsonl(agent_dir / "gateway.jsonl")[-1]
    assert entry["status"] == 200 and entry["stripped_tools"] == ["web_search"] and entry["model"] == "m"
    assert "message_delta" in entry["response"]


def test_refusals_never_reach_upstream(anthropic_gateway):
    handle, server, agent_dir = anthropic_gateway
    body = {"model": "m", "max_tokens": 10, "messages": [], "tools": [TOOL]}
    resp, data = post(handle, "/v1/messages", body, {"x-api-key": "sk-real"})    # the real key is not the agent's
    assert resp.status == 401 and b"authentication_error" in data
    resp, _ = post(handle, "/v1/complete", body, {"x-api-key": handle.env["ANTHROPIC_API_KEY"]})
    assert resp.status == 403
    conn = gateway_connection(handle, timeout=10)
    conn.request("CONNECT", "example.com:443")
    assert conn.getresponse().status == 403
    assert server.requests == []
    assert [e["status"] for e in jsonl(agent_dir / "gateway.jsonl")] == [401, 403, 403]


def test_sse_is_streamed_through_unbuffered(tmp_path, monkeypatch):
    """The first event reaches the agent while the upstream is still holding the rest back."""
    release = threading.Event()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def upstream():
        conn, _ = listener.accept()
        buf = b""
        while b"\r\n\r\n" not in buf or not buf.endswith(b"{}"):    # the whole request (else: RST on close)
            buf += conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
                     b'event: message_start\ndata: {"type":"message_start","message":{"model":"m","usage":'
                     b'{"input_tokens":5,"output_tokens":1}}}\n\n')
        release.wait(20)
        conn.sendall(b'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":9}}\n\n'
                     b'event: message_stop\ndata: {"type":"message_stop"}\n\n')
        conn.close()
    threading.Thread(target=upstream, daemon=True).start()
    monkeypatch.setenv("GAUNTLET_GATEWAY_UPSTREAM", f"http://127.0.0.1:{listener.getsockname()[1]}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-real")
    (tmp_path / "agent").mkdir()
    with open_gateway(resolve_agent("claude-code"), tmp_path / "agent", "local") as handle:
        conn = gateway_connection(handle, timeout=20)
        conn.request("POST", "/v1/messages", body=b"{}", headers={"x-api-key": handle.env["ANTHROPIC_API_KEY"]})
        resp = conn.getresponse()
        first = resp.read1(65536)
        assert b"message_start" in first and not release.is_set()
        release.set()
        rest = resp.read()
        assert b"message_stop" in rest
        time.sleep(0.2)
    meter = json.loads((tmp_path / "agent" / "gateway.json").read_text())
    assert meter["usage"]["input_tokens"] == 5 and meter["usage"]["output_tokens"] == 9


def test_openai_responses_bearer_swapped_and_metered(tmp_path, monkeypatch):
    with ScriptedModelServer([{"shell": "ls"}], require_key="sk-openai") as server:
        monkeypatch.setenv("GAUNTLET_GATEWAY_UPSTREAM", server.url + "/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
        (tmp_path / "agent").mkdir()
        with open_gateway(resolve_agent("codex"), tmp_path / "agent", "local") as handle:
            env = handle.env
            assert env["OPENAI_BASE_URL"].endswith("/v1") and env["OPENAI_API_KEY"].startswith("gauntlet-")
            body = {"model": "gpt-5.5", "stream": True, "input": [],
                    "tools": [{"type": "function", "name": "exec_command"}, {"type": "web_search"}]}
            resp, data = post(handle, "/v1/responses", body,
                              {"authorization": f"Bearer {env['OPENAI_API_KEY']}"})
            assert resp.status == 200 and b"response.completed" in data and b"exec_command" in data
            resp, _ = post(handle, "/v1/responses", {**body, "stream": False},
                           {"authorization": f"Bearer {env['OPENAI_API_KEY']}"})
            assert resp.status == 200
        headers = {k.lower(): v for k, v in server.requests[0]["headers"].items()}
        assert headers["authorization"] == "Bearer sk-openai"
        assert [t.get("name") for t in server.requests[0]["body"]["tools"]] == ["exec_command"]
    meter = json.loads((tmp_path / "agent" / "gateway.json").read_text())
    assert meter["requests"] == 2 and meter["by_model"].keys() == {"gpt-5.5"}
    assert meter["usage"] == {"input_tokens": 300, "cache_read_tokens": 100, "cache_write_tokens": 0,
                              "output_tokens": 18, "reasoning_tokens": 6}


def test_connect_tunnels_only_to_allowed_hosts(tmp_path, monkeypatch):
    echo = socket.socket()
    echo.bind(("127.0.0.1", 0))
    echo.listen(1)

    def serve():
        conn, _ = echo.accept()
        conn.sendall(conn.recv(64).replace(b"ping", b"pong"))
        conn.close()
    threading.Thread(target=serve, daemon=True).start()
    allowed = f"127.0.0.1:{echo.getsockname()[1]}"
    monkeypatch.setenv("GAUNTLET_GATEWAY_UPSTREAM", allowed)
    monkeypatch.setenv("CURSOR_API_KEY", "cur-key")
    (tmp_path / "agent").mkdir()
    with open_gateway(resolve_agent("cursor"), tmp_path / "agent", "local") as handle:
        assert handle.env["HTTPS_PROXY"] == "http://127.0.0.1:47813"        # the in-sandbox launcher's port
        assert handle.env["CURSOR_API_KEY"] == "cur-key"                     # Cursor must hold its own key
        with gateway_socket(handle) as s:
            s.sendall(f"CONNECT {allowed} HTTP/1.1\r\nHost: {allowed}\r\n\r\n".encode())
            assert s.recv(4096).startswith(b"HTTP/1.1 200")
            s.sendall(b"ping\n")
            assert s.recv(64) == b"pong\n"
        with gateway_socket(handle) as s:
            s.sendall(b"CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n")
            assert s.recv(4096).startswith(b"HTTP/1.1 403")
    statuses = [(e["method"], e["status"]) for e in jsonl(tmp_path / "agent" / "gateway.jsonl")]
    assert sorted(statuses) == [("CONNECT", 200), ("CONNECT", 403)]


def test_container_launcher_reaches_gateway_through_the_socket(tmp_path, monkeypatch):
    """The docker backend's path, run on this host: launch.py listens on a loopback port, forwards to
    the gateway's unix socket, runs the agent command and exits with its status."""
    with ScriptedModelServer([{"text": "hi"}], require_key="sk-real") as server:
        monkeypatch.setenv("GAUNTLET_GATEWAY_UPSTREAM", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-real")
        (tmp_path / "agent").mkdir()
        with open_gateway(resolve_agent("claude-code"), tmp_path / "agent", "docker") as handle:
            (mount,) = handle.mounts
            assert mount.target == "/gauntlet/gateway" and handle.network is False
            assert handle.argv_prefix[:2] == ("python3", "/gauntlet/gateway/launch.py")
            assert handle.env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:47813"
            free = socket.socket()
            free.bind(("127.0.0.1", 0))
            port = free.getsockname()[1]
            free.close()
            client = ("import http.client,json,os,sys,time\n"
                      "for _ in range(50):\n"
                      "  try:\n"
                      f"    c=http.client.HTTPConnection('127.0.0.1',{port},timeout=10); c.connect(); break\n"
                      "  except OSError: time.sleep(0.1)\n"
                      "c.request('POST','/v1/messages',body=json.dumps({'model':'m','max_tokens':5,'tools':[{'name':'x'}],"
                      "'messages':[]}),headers={'x-api-key':os.environ['KEY']})\n"
                      "r=c.getresponse(); print(r.status, r.read().decode()); sys.exit(3)\n")
            proc = subprocess.run([sys.executable, str(mount.source / "launch.py"), "--port", str(port),
                                   "--socket", str(mount.source / "gw.sock"), "--", sys.executable, "-c", client],
                                  env={**os.environ, "KEY": handle.env["ANTHROPIC_API_KEY"]},
                                  capture_output=True, text=True, timeout=60)
            assert proc.returncode == 3, proc.stderr
            assert proc.stdout.startswith("200 ") and '"hi"' in proc.stdout
        assert server.requests[0]["headers"]["x-api-key"] == "sk-real"
        assert not mount.source.exists()                                     # socket dir removed at close


def test_close_does_not_wait_for_a_hung_upstream(tmp_path, monkeypatch):
    with ScriptedModelServer([{"hang": True}]) as server:
        monkeypatch.setenv("GAUNTLET_GATEWAY_UPSTREAM", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
        (tmp_path / "agent").mkdir()
        with open_gateway(resolve_agent("claude-code"), tmp_path / "agent", "local") as handle:
            def hang():
                try:
                    post(handle, "/v1/messages",
                         {"model": "m", "max_tokens": 9, "tools": [TOOL], "messages": []},
                         {"x-api-key": handle.env["ANTHROPIC_API_KEY"]}, timeout=60)
                except (OSError, http.client.HTTPException):
                    pass
            threading.Thread(target=hang, daemon=True).start()
            time.sleep(0.5)
            started = time.monotonic()
        assert time.monotonic() - started < 5


@pytest.mark.parametrize("protocol,agent,path", [("anthropic", "claude-code", "/v1/messages"),
                                                 ("openai-responses", "codex", "/v1/responses")])
@pytest.mark.parametrize("fault,outcome", [("stall", "stalled"), ("cut", "cut"), ("malformed", "malformed"),
                                           (None, "complete")])
def test_stream_outcomes_are_recorded_and_a_stall_is_stopped(tmp_path, monkeypatch, protocol, agent, path,
                                                             fault, outcome):
    """Each request's outcome, bytes and tokens land in gateway.jsonl; a stalled stream is ended by the
    gateway after the agent file's idle_timeout_s (here 1 s), with an error event the CLI can read."""
    steps = [{fault: True}] if fault else [{"text": "done"}]
    server = ScriptedModelServer(steps, unix=tmp_path / "up.sock").start()
    monkeypatch.setenv("GAUNTLET_GATEWAY_UPSTREAM", server.url)
    monkeypatch.setenv({"claude-code": "ANTHROPIC_API_KEY", "codex": "OPENAI_API_KEY"}[agent], "sk-real")
    spec = resolve_agent(agent)
    spec = dataclasses.replace(spec, gateway={**spec.gateway, "idle_timeout_s": 1})
    (tmp_path / "agent").mkdir()
    body = ({"model": "m", "max_tokens": 100, "stream": True, "messages": [{"role": "user", "content": "hi"}],
             "tools": [TOOL]} if protocol == "anthropic" else
            {"model": "m", "stream": True, "input": [{"role": "user", "content": "hi"}],
             "tools": [{"type": "function", "name": "shell", "parameters": {}}]})
    try:
        with open_gateway(spec, tmp_path / "agent", "local") as handle:
            try:
                resp, data = post(handle, path, body, {"x-api-key": handle.env["GAUNTLET_GATEWAY_KEY"],
                                                     "authorization": f"Bearer {handle.env['GAUNTLET_GATEWAY_KEY']}"})
            except http.client.IncompleteRead as exc:    # the gateway ended a stalled stream mid-chunk
                data = exc.partial
    finally:
        server.close()
    entry = jsonl(tmp_path / "agent" / "gateway.jsonl")[-1]
    assert entry["status"] == 200 and entry["outcome"] == outcome
    assert ("error" in entry) == (fault is not None)                 # faults are recorded as errors
    assert entry["response_bytes"] > 0
    if protocol == "anthropic" or fault is None:      # message_start carries usage; response.created none
        assert entry["usage"]["input_tokens"] > 0
    meter = json.loads((tmp_path / "agent" / "gateway.json").read_text())
    assert meter["outcomes"] == {outcome: 1}
    if fault == "stall":
        assert b"gauntlet gateway: the upstream stream sent nothing for 1 s" in data


def test_idle_timeout_must_be_positive_seconds(tmp_path):
    from runner.agents.gateway import GatewayError, gateway_config
    spec = resolve_agent("claude-code")
    for bad in (0, -1, "2m", True):
        with pytest.raises(GatewayError, match=r"claude-code.toml: gateway.idle_timeout_s: "):
            gateway_config(dataclasses.replace(spec, gateway={**spec.gateway, "idle_timeout_s": bad}))
    assert gateway_config(spec)["idle_timeout_s"] == 120.0


def test_a_bad_idle_timeout_is_one_line_from_the_cli(tmp_path, tasks_root):
    from .conftest import REPO, gauntlet
    agent = tmp_path / "claude-code.toml"
    agent.write_text((REPO / "agents" / "claude-code.toml").read_text() + "\nidle_timeout_s = -5\n")
    proc = gauntlet("run", "--agent", agent, "--tasks", "triton2triton", "--tasks-root", tasks_root, "--device", "cpu",
                    "--budget", "10", "--out", tmp_path / "run", env={"ANTHROPIC_API_KEY": "sk-x"}, isolate=False)
    assert proc.returncode not in (0, 3) and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == f"Error: {agent}: gateway.idle_timeout_s: -5 is not a number of seconds above 0"
