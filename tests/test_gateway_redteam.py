"""The model gateway against a hostile agent (red team H5/H6): what may reach the upstream with the
real key (strict bodies, re-serialised; allow-listed fields, headers, beta values and tool types), what
the gateway reads and keeps (sizes checked before any body is read; gateway.jsonl and stdout.times
bounded), and which folders an agent CLI may have mounted. Real HTTP over the gateway's unix socket,
against a raw upstream that records the exact bytes it gets."""
import json
import os
import re
import socket
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from runner.agents import gateway as gw_mod
from runner.agents.agent import resolve_agent
from runner.agents.gateway import GatewayError, cli_folders, open_gateway

MSG = {"model": "m", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
TOOL = {"name": "Bash", "description": "run", "input_schema": {"type": "object"}}


class RawUpstream:
    """A stand-in upstream on a unix socket: records each request's headers and exact body bytes and
    answers one small Anthropic (or OpenAI) JSON message."""

    def __init__(self, path: Path):
        self.requests: list[dict] = []
        up = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                up.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                    "raw": raw})
                out = json.dumps({"id": "m", "type": "message", "role": "assistant", "model": "x",
                                  "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                                  "usage": {"input_tokens": 1, "output_tokens": 1}}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args):
                pass

            def address_string(self):
                return "unix"

        class S(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
            daemon_threads = True

        self.server = S(str(path), H)
        self.url = f"unix:{path}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def _answer_head(sock) -> bytes:
    """What the socket sends up to the end of the answer's headers (or until it closes)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def _gateway(tmp_path, monkeypatch, agent="claude-code", key_env="ANTHROPIC_API_KEY"):
    upstream = RawUpstream(tmp_path / "up.sock")
    monkeypatch.setenv("GAUNTLET_GATEWAY_UPSTREAM", upstream.url)
    monkeypatch.setenv(key_env, "sk-real")
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    return upstream, agent_dir, open_gateway(resolve_agent(agent), agent_dir, "docker")


@pytest.fixture
def anthropic(tmp_path, monkeypatch):
    upstream, agent_dir, ctx = _gateway(tmp_path, monkeypatch)
    with ctx as handle:
        yield handle, upstream, agent_dir
    upstream.close()


@pytest.fixture
def openai(tmp_path, monkeypatch):
    upstream, agent_dir, ctx = _gateway(tmp_path, monkeypatch, "codex", "OPENAI_API_KEY")
    with ctx as handle:
        yield handle, upstream, agent_dir
    upstream.close()


def raw_request(handle, head: str, body: bytes = b"", timeout=15) -> tuple[int, bytes]:
    """One request as raw bytes through the gateway socket; (status, response body). The connection
    is closed after the answer."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(str(handle.gateway.socket_path))
    sock.sendall(head.encode() + body)
    data = _answer_head(sock)
    headers, _, rest = data.partition(b"\r\n\r\n")
    length = int(next((line.split(b":", 1)[1] for line in headers.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), b"0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    sock.close()
    return int(headers.split(b" ", 2)[1]), rest


def post(handle, body: bytes, path="/v1/messages", headers: dict | None = None, key=None):
    key = handle.env.get("ANTHROPIC_API_KEY") or handle.env["OPENAI_API_KEY"] if key is None else key
    auth = f"x-api-key: {key}" if "ANTHROPIC_API_KEY" in handle.env else f"authorization: Bearer {key}"
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    head = (f"POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n{auth}\r\n{extra}"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n")
    return raw_request(handle, head, body)


def log(agent_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (agent_dir / "gateway.jsonl").read_text().splitlines() if line]


# -- H5: what is forwarded ----------------------------------------------------------------------------
def test_mcp_connector_is_refused_and_its_beta_never_forwarded(anthropic):
    handle, upstream, agent_dir = anthropic
    body = json.dumps({**MSG, "mcp_servers": [{"type": "url", "url": "https://attacker.example/sse", "name": "x"}]})
    status, data = post(handle, body.encode(), headers={"anthropic-beta": "mcp-client-2025-04-04"})
    assert status == 400 and b"mcp_servers" in data
    assert upstream.requests == []
    entry = log(agent_dir)[-1]
    assert entry["outcome"] == "refused" and "mcp_servers" in entry["refused"]
    # a clean body: unknown betas and headers the agent adds are dropped, the known ones kept
    status, _ = post(handle, json.dumps(MSG).encode(), headers={
        "anthropic-beta": "mcp-client-2025-04-04, claude-code-20250219,files-api-2025-04-14",
        "x-evil": "1", "openai-organization": "org-x", "anthropic-version": "2023-06-01", "x-stainless-os": "Linux"})
    assert status == 200
    sent = upstream.requests[-1]["headers"]
    assert sent["anthropic-beta"] == "claude-code-20250219" and sent["x-api-key"] == "sk-real"
    assert "x-evil" not in sent and "openai-organization" not in sent
    assert sent["anthropic-version"] == "2023-06-01" and sent["x-stainless-os"] == "Linux"
    entry = log(agent_dir)[-1]
    assert entry["dropped_betas"] == ["mcp-client-2025-04-04", "files-api-2025-04-14"]
    assert set(entry["dropped_headers"]) == {"x-evil", "openai-organization"}


TOOLS = '[{"type":"web_fetch_20250910","name":"web_fetch"}]'
BAD_BODIES = {
    "duplicate tools": ('{"model":"m","max_tokens":16,"messages":[],"tools":' + TOOLS + ',"tools":[]}').encode(),
    "nested duplicate": b'{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"a","content":"b"}]}',
    "trailing bytes": ('{"model":"m","max_tokens":16,"messages":[],"tools":' + TOOLS + '} x').encode(),
    "second object": b'{"model":"m","max_tokens":16,"messages":[]}{"tools":[]}',
    "invalid utf-8": b'{"model":"m\xff","max_tokens":16,"messages":[]}',
    "utf-16": '{"model":"m","max_tokens":16,"messages":[]}'.encode("utf-16"),
    "NaN": b'{"model":"m","max_tokens":16,"temperature":NaN,"messages":[]}',
    "Infinity": b'{"model":"m","max_tokens":16,"top_p":-Infinity,"messages":[]}',
    "top-level list": b'[{"model":"m","max_tokens":16,"messages":[]}]',
    "not json": b'model=m',
    "url image": json.dumps({**MSG, "messages": [{"role": "user", "content": [
        {"type": "image", "source": {"type": "url", "url": "https://attacker.example/x.png"}}]}]}).encode(),
    "container": json.dumps({**MSG, "container": "c-1"}).encode(),
}


@pytest.mark.parametrize("name", sorted(BAD_BODIES))
def test_bodies_that_do_not_parse_strictly_are_refused(anthropic, name):
    handle, upstream, agent_dir = anthropic
    status, data = post(handle, BAD_BODIES[name])
    assert status == 400 and b"gauntlet gateway" in data, (status, data)
    assert upstream.requests == []
    entry = log(agent_dir)[-1]
    assert entry["outcome"] == "refused" and entry["status"] == 400


def test_the_body_is_always_forwarded_re_serialised(anthropic):
    handle, upstream, _ = anthropic
    body = b'{ "model" : "m",\n "max_tokens": 16, "messages": [{"role": "user", "content": "h\\u00e9"}] }  \n'
    status, _ = post(handle, body)
    assert status == 200
    assert upstream.requests[-1]["raw"] == json.dumps(json.loads(body), separators=(",", ":")).encode()


def test_every_server_side_tool_type_is_stripped(anthropic):
    handle, upstream, agent_dir = anthropic
    tools = [TOOL, {"type": "web_fetch_20250910", "name": "Read"}, {"type": "mcp_toolset", "mcp_server_name": "x"},
             {"type": "tool_search_tool_regex_20251119", "name": "ts"}, {"type": "code_execution_20250825", "name": "c"},
             {"type": "custom", "name": "Edit", "input_schema": {"type": "object"}}, "web_search"]
    status, _ = post(handle, json.dumps({**MSG, "tools": tools}).encode())
    assert status == 200
    sent = json.loads(upstream.requests[-1]["raw"])
    assert [t["name"] for t in sent["tools"]] == ["Bash", "Edit"]
    assert len(log(agent_dir)[-1]["stripped_tools"]) == 5


def test_openai_fields_and_tools(openai):
    handle, upstream, agent_dir = openai
    base = {"model": "g", "input": [{"role": "user", "content": "hi"}], "stream": False}
    status, data = post(handle, json.dumps({**base, "background": True}).encode(), path="/v1/responses")
    assert status == 400 and b"background" in data and upstream.requests == []
    tools = [{"type": "function", "name": "exec_command", "parameters": {}},
             {"type": "tool_search", "execution": "client", "description": "d", "parameters": {}},
             {"type": "tool_search", "execution": "server"}, {"type": "web_search_preview"},
             {"type": "image_generation"}]
    status, _ = post(handle, json.dumps({**base, "tools": tools}).encode(), path="/v1/responses",
                     headers={"openai-project": "p", "openai-organization": "o", "originator": "codex_exec"})
    assert status == 200
    up = upstream.requests[-1]
    assert [(t["type"], t.get("execution")) for t in json.loads(up["raw"])["tools"]] == \
        [("function", None), ("tool_search", "client")]
    assert up["headers"]["authorization"] == "Bearer sk-real" and up["headers"]["originator"] == "codex_exec"
    assert "openai-project" not in up["headers"] and "openai-organization" not in up["headers"]


# -- H6: what is read and kept --------------------------------------------------------------------------
def _head(path: str, key: str, extra: str) -> str:
    return f"POST {path} HTTP/1.1\r\nhost: x\r\nx-api-key: {key}\r\ncontent-type: application/json\r\n{extra}\r\n"


def test_a_refused_or_oversized_request_is_answered_before_its_body(anthropic):
    handle, upstream, agent_dir = anthropic
    key = handle.env["ANTHROPIC_API_KEY"]
    big = f"content-length: {1536 << 20}\r\n"
    # no body byte is sent: an answer proves nothing was waited for
    assert raw_request(handle, _head("/not-allowed", key, big))[0] == 403
    assert raw_request(handle, _head("/v1/messages", "wrong", big))[0] == 401
    status, data = raw_request(handle, _head("/v1/messages", key, big))
    assert status == 413 and b"limit" in data
    assert raw_request(handle, _head("/v1/messages", key, "content-length: 5\r\ncontent-length: 5\r\n"),
                       b"{}{}{")[0] == 400
    assert upstream.requests == []
    assert [e["status"] for e in log(agent_dir)] == [403, 401, 413, 400]
    _refused_small_body_read_away(handle, upstream)


def test_a_chunked_body_past_the_cap_is_refused(anthropic):
    handle, upstream, agent_dir = anthropic
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(15)
    sock.connect(str(handle.gateway.socket_path))
    sock.sendall(_head("/v1/messages", handle.env["ANTHROPIC_API_KEY"], "transfer-encoding: chunked\r\n").encode())
    chunk = b"%x\r\n%s\r\n" % (1 << 20, b" " * (1 << 20))

    def send():
        try:
            for _ in range((gw_mod.MAX_REQUEST_BODY >> 20) + 2):
                sock.sendall(chunk)
            sock.sendall(b'1\r\n{\r\n0\r\n\r\n')
        except OSError:
            pass
    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    data = _answer_head(sock)
    sock.close()
    assert data.split(b" ", 2)[1] == b"413", data[:200]
    assert upstream.requests == []
    assert log(agent_dir)[-1]["status"] == 413


def test_gateway_jsonl_keeps_a_bounded_record(anthropic, monkeypatch):
    handle, upstream, agent_dir = anthropic
    body = json.dumps({**MSG, "messages": [{"role": "user", "content": "A" * (2 << 20)}]}).encode()
    assert post(handle, body)[0] == 200
    line = (agent_dir / "gateway.jsonl").read_text()
    assert len(line) < gw_mod.TRANSCRIPT_REQUEST_LIMIT + 4096
    assert log(agent_dir)[-1]["request"]["truncated"] is True
    # in all: past the total only bare records, past the hard limit nothing (counted)
    monkeypatch.setattr(gw_mod, "TRANSCRIPT_TOTAL_LIMIT", len(line) + 1)
    monkeypatch.setattr(gw_mod, "TRANSCRIPT_HARD_LIMIT", len(line) + 6000)
    for _ in range(20):
        assert post(handle, json.dumps(MSG).encode())[0] == 200
    size = (agent_dir / "gateway.jsonl").stat().st_size
    assert size < len(line) + 6000 + 2000
    summary = json.loads((agent_dir / "gateway.json").read_text())
    assert summary["requests"] == 21 and summary["transcript_dropped"] > 0
    assert "<dropped" in log(agent_dir)[-1]["response"]


def test_stdout_times_is_bounded(tmp_path, monkeypatch):
    upstream, agent_dir, ctx = _gateway(tmp_path, monkeypatch)
    lines = gw_mod.STDOUT_TIMES_MAX_LINES + 5000
    with ctx:
        with open(agent_dir / "stdout.log", "wb") as fh:
            fh.write(b"\n" * lines)
    upstream.close()
    times = (agent_dir / "stdout.times").read_text().split()
    assert len(times) == gw_mod.STDOUT_TIMES_MAX_LINES
    assert json.loads((agent_dir / "gateway.json").read_text())["stdout_lines_untimed"] == 5000


# -- cli_folders: the bind rule of every agent exec (confine.never_for), checked at preflight -----------
def _cli(folder: Path, name="rtcli", target: Path | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if target:
        path.symlink_to(target)
    else:
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
    return path


def test_cli_folders_refuse_task_data_the_run_and_home_or_the_checkout_whole(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    ok = _cli(tmp_path / "opt" / "bin")
    monkeypatch.setenv("PATH", f"{ok.parent}:{os.environ['PATH']}")
    assert cli_folders("rtcli") == [ok.parent]
    # symlinked into the checkout's test fixtures (task data: its real file's folder would be mounted)
    _cli(tmp_path / "b1", target=gw_mod.REPO / "tests" / "fixtures" / "dram" / "fake_sampler.py")
    monkeypatch.setenv("PATH", f"{tmp_path / 'b1'}:{os.environ['PATH']}")
    with pytest.raises(GatewayError, match="would mount what no agent may see"):
        cli_folders("rtcli")
    # HOME itself (resolved through a symlinked folder): it would be bound whole
    _cli(home)
    (tmp_path / "b2").symlink_to(home)
    monkeypatch.setenv("PATH", f"{tmp_path / 'b2'}:{os.environ['PATH']}")
    with pytest.raises(GatewayError, match="never bound whole"):
        cli_folders("rtcli")
    # a folder inside HOME is bound like any other (the rule every bind follows)
    inside = _cli(home / "bin", name="rtcli2")
    monkeypatch.setenv("PATH", f"{inside.parent}:{os.environ['PATH']}")
    assert cli_folders("rtcli2") == [inside.parent]
    # the run's folder, and a folder that contains it
    monkeypatch.setenv("PATH", f"{ok.parent}:{os.environ['PATH']}")
    with pytest.raises(GatewayError, match="would mount"):
        cli_folders("rtcli", never=(ok.parent / "run",))
    with pytest.raises(GatewayError, match="would mount"):
        cli_folders("rtcli", never=(ok.parent,))


def test_expect_100_continue_only_after_the_checks(anthropic):
    handle, upstream, _ = anthropic
    key = handle.env["ANTHROPIC_API_KEY"]
    status, _ = raw_request(handle, _head("/not-allowed", key, "content-length: 10\r\nexpect: 100-continue\r\n"))
    assert status == 403                        # refused at once: no "100 Continue" invites the body
    body = json.dumps(MSG).encode()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(15)
    sock.connect(str(handle.gateway.socket_path))
    sock.sendall(_head("/v1/messages", key, f"content-length: {len(body)}\r\nexpect: 100-continue\r\n").encode())
    assert sock.recv(25).startswith(b"HTTP/1.1 100")
    sock.sendall(body)
    data = b""
    while b" 200 " not in data:
        got = sock.recv(65536)
        assert got, data
        data += got
    sock.close()
    assert len(upstream.requests) == 1


def test_connections_past_the_cap_are_closed(anthropic, monkeypatch):
    handle, _, _ = anthropic
    monkeypatch.setattr(gw_mod, "MAX_CONNECTIONS", 2)
    socks = []
    for i in range(3):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(10)
        sock.connect(str(handle.gateway.socket_path))
        socks.append(sock)
        for _ in range(500 if i < 2 else 0):    # each connection's handler is up before the next one
            if handle.gateway.active >= i + 1:
                break
            time.sleep(0.01)
    assert socks[2].recv(10) == b""             # closed unanswered
    for sock in socks:
        sock.close()


def test_only_claude_codes_query_marker_goes_upstream(anthropic):
    handle, upstream, agent_dir = anthropic
    assert post(handle, json.dumps(MSG).encode(), path="/v1/messages?beta=true")[0] == 200
    assert post(handle, json.dumps(MSG).encode(), path="/v1/messages?beta=true&x=1")[0] == 200
    assert [r["path"] for r in upstream.requests] == ["/v1/messages?beta=true", "/v1/messages"]
    assert log(agent_dir)[-1]["dropped_query"] == "beta=true&x=1"


def _refused_small_body_read_away(handle, upstream):
    """A refused request's small body is read away (a plain client is still sending it) and the
    connection kept: the next request on it is answered."""
    key = handle.env["ANTHROPIC_API_KEY"]
    body = json.dumps(MSG).encode()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(15)
    sock.connect(str(handle.gateway.socket_path))
    for path in ("/v1/complete", "/v1/messages"):      # refused, then allowed, on one connection
        sock.sendall(_head(path, key, f"content-length: {len(body)}\r\n").encode())
        sock.sendall(body)
    data = b""
    while data.count(b"HTTP/1.1 ") < 2 or not data.endswith(b"}"):
        got = sock.recv(65536)
        assert got, data
        data += got
    sock.close()
    assert re.findall(rb"HTTP/1\.1 (\d{3}) ", data) == [b"403", b"200"]
    assert len(upstream.requests) == 1
