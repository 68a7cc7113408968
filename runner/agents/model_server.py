"""Scripted model server: a stand-in for the Anthropic Messages and OpenAI Responses APIs.

It plays a script, so real agent CLIs can be driven end to end with no model and no network:
`gauntlet agents check` and tests/agents/ put it behind the gateway as the agent's upstream.

Routes (the query string is ignored: Claude Code posts to /v1/messages?beta=true):
  POST /v1/messages               Anthropic Messages, SSE when "stream": true, else one JSON message
  POST /v1/messages/count_tokens  {"input_tokens": N}
  POST /v1/responses              OpenAI Responses, SSE (response.created ... response.completed)
  GET  /v1/models                 a one-model list
Anything else is a 404.

A script is a list of steps (TOML `[[steps]]` or a JSON list / {"steps": [...]}); the server is
stateless and plays step k on the request whose history holds k earlier assistant turns, so a
retried request gets the same answer. Steps:

  {read = "kernel.py"}                            read a file (Claude: Read; Codex: a shell `cat`)
  {edit = "kernel.py", old = "...", new = "..."}   replace text once (Claude: Edit; Codex: a shell
                                                  python one-liner, or apply_patch when offered)
  {write = "notes.txt", content = "..."}           write a whole file
  {shell = "python3 -c 'print(1)'"}                run a shell command (timeout_s = N: the tool's own
                                                  time limit, as a model asks for one; Codex's default is 10 s)
                                                  Codex's unified exec answers after at most 30 s with what
                                                  ran so far: while the command runs, the model polls its
                                                  session (write_stdin, no input, waiting timeout_s or 30 s
                                                  each time) and only then plays the next step
  {text = "Done."}                                 final answer: the agent's turn ends here
  {error = 401}  {error = 429}  {error = 529}      an API error with that HTTP status (every request
                                                  at or past this step gets it, retries included)
  {error = "quota"} / {error = "context"}          429 insufficient_quota / 400 prompt too long
  {hang = true}                                    accept the request and never answer
  {stall = true}                                   start the stream (its first event), then send nothing
                                                  more until the server closes
  {cut = true}                                     start the stream, then close the connection: no
                                                  terminal event (message_stop / response.completed)
  {malformed = true}                               start the stream, then an event whose data is not JSON,
                                                  then close
  Faults (error, hang, stall, cut, malformed) hit every request at or past their step, retries included.

Past the end of the script the last `text` step (or "Done.") is played again. Requests with no
tools (titles, probes) get a short text answer and do not advance the script. Paths in steps are
relative to the agent's working directory; `{cwd}` in a step is replaced by it when it is known, and
`{check}` in a shell step by the correctness command the agent's prompt gives (runner/agents/agent.py
build_prompt: "- Correctness ...: `COMMAND`"), as a model that follows the prompt would run it.

Usage is deterministic so tests can check accounting exactly: turn k (0-based) reports
  Anthropic: input_tokens=100+k, cache_creation_input_tokens=20, cache_read_input_tokens=30+k,
             output_tokens=7+k (in message_delta; message_start says 1)
  OpenAI:    input_tokens=200+k (of which cached_tokens=50), output_tokens=9+k (reasoning 3)

Run it:  python -m runner.agents.model_server --script s.toml [--port 0 | --unix PATH] [--log requests.jsonl]
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import re
import socketserver
import sys
import threading
import time
import tomllib
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MODEL = "gauntlet-scripted"

# The default script of `gauntlet agents check` and the tests: read the fixture kernel, widen its
# block (BLOCK=256 -> 1024, the reference solution), run the seen-config check, finish.
CHECK_SCRIPT = [
    {"read": "kernel.py"},
    {"edit": "kernel.py", "old": "_scale[(triton.cdiv(n, 256),)](x, y, n, alpha, BLOCK=256)",
     "new": "_scale[(triton.cdiv(n, 1024),)](x, y, n, alpha, BLOCK=1024)"},
    {"shell": "grep -n BLOCK=1024 kernel.py && echo gauntlet-scripted-check-ok"},
    {"text": "Widened the block to 1024 elements; the kernel is correct for any n."},
]


def load_script(path_or_steps) -> list[dict]:
    if isinstance(path_or_steps, list):
        return [dict(s) for s in path_or_steps]
    path = Path(path_or_steps)
    text = path.read_text()
    data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    steps = data.get("steps") if isinstance(data, dict) else data
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        raise ValueError(f"{path}: a script is a list of step tables ([[steps]])")
    return steps


def _error_body(kind: str, message: str, protocol: str) -> dict:
    if protocol == "anthropic":
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"type": kind, "code": kind, "message": message, "param": None}}


ERRORS = {  # step error -> (status, anthropic type, openai type, message)
    401: (401, "authentication_error", "invalid_api_key", "invalid x-api-key (scripted)"),
    403: (403, "permission_error", "permission_denied", "permission denied (scripted)"),
    429: (429, "rate_limit_error", "rate_limit_exceeded", "Rate limit reached for requests (scripted)"),
    500: (500, "api_error", "server_error", "Internal server error (scripted)"),
    529: (529, "overloaded_error", "server_error", "Overloaded (scripted)"),
    "quota": (429, "rate_limit_error", "insufficient_quota",
              "You exceeded your current quota / credit balance is too low (scripted)"),
    "context": (400, "invalid_request_error", "context_length_exceeded",
                "prompt is too long: 250000 tokens > 200000 maximum (scripted)"),
}


class ScriptedModelServer:
    """One server, two protocols. Use as a context manager; `url` is what an upstream points at."""

    def __init__(self, script, *, host: str = "127.0.0.1", port: int = 0, unix: str | Path | None = None,
                 log: str | Path | None = None, require_key: str | None = None):
        self.steps = load_script(script)
        self.require_key = require_key     # reject requests that do not carry exactly this key
        self.log_path = Path(log) if log else None
        self.requests: list[dict] = []     # what arrived: method, path, headers, body
        self._lock = threading.Lock()
        self._stop = threading.Event()
        handler = _make_handler(self)
        if unix:
            self.unix = str(unix)
            if os.path.exists(self.unix):
                os.unlink(self.unix)
            self.httpd = _UnixHTTPServer(self.unix, handler)
            self.url = f"unix:{self.unix}"
        else:
            self.unix = None
            self.httpd = ThreadingHTTPServer((host, port), handler)
            self.httpd.daemon_threads = True
            self.url = f"http://{host}:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                        daemon=True, name="model-server")

    def start(self) -> "ScriptedModelServer":
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()                   # releases hanging handlers
        self.httpd.shutdown()
        self.httpd.server_close()
        if self.unix and os.path.exists(self.unix):
            os.unlink(self.unix)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    def record(self, entry: dict) -> None:
        with self._lock:
            self.requests.append(entry)
            if self.log_path:
                with open(self.log_path, "a") as fh:
                    fh.write(json.dumps(entry) + "\n")

    def step(self, k: int) -> dict:
        if k < len(self.steps):
            return self.steps[k]
        finals = [s for s in self.steps if "text" in s]
        return finals[-1] if finals else {"text": "Done."}


class _UnixHTTPServer(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    allow_reuse_address = True

    def get_request(self):
        conn, _ = self.socket.accept()
        return conn, ("unix", 0)           # BaseHTTPRequestHandler wants a (host, port)


def _make_handler(server: ScriptedModelServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "gauntlet-scripted/1"

        def log_message(self, *args):      # quiet
            pass

        def _body(self) -> dict:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                return json.loads(raw or b"{}")
            except ValueError:
                return {}

        def _json(self, status: int, obj: dict, headers: dict | None = None) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _sse_start(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            self.close_connection = True

        def _event(self, name: str, data: dict) -> None:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            server.record({"t": time.time(), "method": "GET", "path": self.path, "headers": dict(self.headers)})
            if path in ("/v1/models", "/models"):
                return self._json(200, {"object": "list", "data": [
                    {"id": MODEL, "object": "model", "type": "model", "display_name": MODEL, "created": 0,
                     "owned_by": "gauntlet"}]})
            self._json(404, {"error": {"type": "not_found_error", "message": f"no route {path}"}})

        def do_POST(self):
            path = self.path.split("?", 1)[0]
            body = self._body()
            entry = {"t": time.time(), "method": "POST", "path": self.path, "headers": dict(self.headers),
                     "body": body}
            server.record(entry)
            protocol = "openai" if path.endswith("/responses") else "anthropic"
            if server.require_key is not None:
                got = self.headers.get("x-api-key") or (self.headers.get("authorization") or "")[7:]
                if got != server.require_key:
                    return self._json(401, _error_body("authentication_error" if protocol == "anthropic"
                                                       else "invalid_api_key",
                                                       "key does not match (scripted server)", protocol))
            if path == "/v1/messages/count_tokens":
                return self._json(200, {"input_tokens": 100})
            if path == "/v1/messages":
                return self._anthropic(body)
            if path == "/v1/responses":
                return self._openai(body)
            self._json(404, _error_body("not_found_error", f"no route {path}", protocol))

        # -- shared ----------------------------------------------------------------------------------
        def _maybe_fail(self, step: dict, protocol: str) -> bool:
            if step.get("hang"):
                server._stop.wait()        # until the server closes
                self.close_connection = True
                return True
            if step.get("stall") or step.get("cut") or step.get("malformed"):
                self._fault_stream(step, protocol)
                return True
            if "error" in step:
                key = step["error"]
                status, a_type, o_type, message = (ERRORS[key] if key in ERRORS else
                                                   (int(key), "api_error", "server_error", f"scripted error {key}"))
                headers = {"retry-after": "0"} if status == 429 else {}
                self._json(status, _error_body(a_type if protocol == "anthropic" else o_type, message, protocol),
                           headers)
                return True
            return False

        def _fault_stream(self, step: dict, protocol: str) -> None:
            """A stream that starts like a real one and then stalls, is cut, or turns to garbage."""
            self._sse_start()
            if protocol == "anthropic":
                self._event("message_start", {"type": "message_start", "message": {
                    "id": f"msg_{uuid.uuid4().hex[:20]}", "type": "message", "role": "assistant", "model": MODEL,
                    "content": [], "stop_reason": None, "stop_sequence": None,
                    "usage": {"input_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                              "output_tokens": 1}}})
            else:
                self._event("response.created", {"type": "response.created", "sequence_number": 0, "response": {
                    "id": f"resp_{uuid.uuid4().hex[:20]}", "object": "response", "created_at": int(time.time()),
                    "model": MODEL, "status": "in_progress", "output": []}})
            if step.get("stall"):
                server._stop.wait()
            elif step.get("malformed"):
                self.wfile.write(b"event: content_block_delta\ndata: {not json at all\n\n")
                self.wfile.flush()
            # returning closes the connection (connection: close): for "cut" that is the whole point

        # -- Anthropic Messages --------------------------------------------------------------------------
        def _anthropic(self, body: dict) -> None:
            messages = body.get("messages") or []
            if not body.get("tools") or body.get("max_tokens", 2) <= 1:
                return self._anthropic_reply(body, [{"type": "text", "text": "ok"}], "end_turn", 0, counted=False)
            k = sum(1 for m in messages if m.get("role") == "assistant")
            step = server.step(k)
            if self._maybe_fail(step, "anthropic"):
                return
            cwd = _anthropic_cwd(body)
            if "text" in step:
                return self._anthropic_reply(body, [{"type": "text", "text": step["text"]}], "end_turn", k)
            name, tool_input = _claude_tool(_with_check(step, body), cwd)
            block = {"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:20]}", "name": name, "input": tool_input}
            self._anthropic_reply(body, [{"type": "text", "text": f"Step {k + 1}."}, block], "tool_use", k)

        def _anthropic_reply(self, body, blocks, stop_reason, k, counted=True):
            usage = ({"input_tokens": 100 + k, "cache_creation_input_tokens": 20,
                      "cache_read_input_tokens": 30 + k, "output_tokens": 7 + k} if counted else
                     {"input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                      "output_tokens": 1})
            msg_id = f"msg_{uuid.uuid4().hex[:20]}"
            model = body.get("model") or MODEL
            if not body.get("stream"):
                return self._json(200, {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                                        "content": blocks, "stop_reason": stop_reason, "stop_sequence": None,
                                        "usage": usage})
            self._sse_start()
            start_usage = {**usage, "output_tokens": 1}
            self._event("message_start", {"type": "message_start", "message": {
                "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
                "stop_reason": None, "stop_sequence": None, "usage": start_usage}})
            self._event("ping", {"type": "ping"})
            for i, block in enumerate(blocks):
                if block["type"] == "text":
                    self._event("content_block_start", {"type": "content_block_start", "index": i,
                                                        "content_block": {"type": "text", "text": ""}})
                    self._event("content_block_delta", {"type": "content_block_delta", "index": i,
                                                        "delta": {"type": "text_delta", "text": block["text"]}})
                else:
                    self._event("content_block_start", {"type": "content_block_start", "index": i,
                                                        "content_block": {**block, "input": {}}})
                    raw = json.dumps(block["input"])
                    for j in range(0, len(raw), 64):
                        self._event("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                            "type": "input_json_delta", "partial_json": raw[j:j + 64]}})
                self._event("content_block_stop", {"type": "content_block_stop", "index": i})
            self._event("message_delta", {"type": "message_delta",
                                          "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                          "usage": {"output_tokens": usage["output_tokens"]}})
            self._event("message_stop", {"type": "message_stop"})

        # -- OpenAI Responses ----------------------------------------------------------------------------
        def _openai(self, body: dict) -> None:
            items = body.get("input") or []
            if isinstance(items, str):
                items = []
            tools = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
            if not tools:
                return self._openai_reply(body, [_message_item("ok")], 0, counted=False)
            turns = [it for it in items if isinstance(it, dict) and (
                it.get("type") in ("function_call", "custom_tool_call", "local_shell_call")
                or (it.get("type") == "message" and it.get("role") == "assistant"))]
            polls = sum(1 for it in turns if it.get("name") == "write_stdin")
            k = len(turns) - polls         # the step: polls of a running command are not steps
            session = _running_exec_session(items) if "write_stdin" in tools else None
            if session is not None:        # the last step's command still runs: wait on it, as a model must
                return self._openai_reply(body, [_codex_poll(session, server.step(k - 1))], len(turns))
            step = server.step(k)
            if self._maybe_fail(step, "openai"):
                return
            if "text" in step:
                return self._openai_reply(body, [_message_item(step["text"])], len(turns))
            self._openai_reply(body, [_codex_tool(_with_check(step, body), tools)], len(turns))

        def _openai_reply(self, body, output, k, counted=True):
            usage = ({"input_tokens": 200 + k, "input_tokens_details": {"cached_tokens": 50},
                      "output_tokens": 9 + k, "output_tokens_details": {"reasoning_tokens": 3}} if counted else
                     {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
                      "output_tokens_details": {"reasoning_tokens": 0}})
            usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
            rid = f"resp_{uuid.uuid4().hex[:20]}"
            model = body.get("model") or MODEL
            base = {"id": rid, "object": "response", "created_at": int(time.time()), "model": model}
            if not body.get("stream"):
                return self._json(200, {**base, "status": "completed", "output": output, "usage": usage})
            self._sse_start()
            seq = iter(range(10 ** 6))
            self._event("response.created", {"type": "response.created", "sequence_number": next(seq),
                                             "response": {**base, "status": "in_progress", "output": []}})
            self._event("response.in_progress", {"type": "response.in_progress", "sequence_number": next(seq),
                                                 "response": {**base, "status": "in_progress", "output": []}})
            for i, item in enumerate(output):
                self._event("response.output_item.added", {"type": "response.output_item.added",
                                                           "sequence_number": next(seq), "output_index": i,
                                                           "item": {**item, "status": "in_progress"}})
                if item["type"] == "message":
                    text = item["content"][0]["text"]
                    self._event("response.output_text.delta", {
                        "type": "response.output_text.delta", "sequence_number": next(seq), "item_id": item["id"],
                        "output_index": i, "content_index": 0, "delta": text})
                    self._event("response.output_text.done", {
                        "type": "response.output_text.done", "sequence_number": next(seq), "item_id": item["id"],
                        "output_index": i, "content_index": 0, "text": text})
                elif item["type"] == "function_call":
                    self._event("response.function_call_arguments.done", {
                        "type": "response.function_call_arguments.done", "sequence_number": next(seq),
                        "item_id": item["id"], "output_index": i, "arguments": item["arguments"]})
                self._event("response.output_item.done", {"type": "response.output_item.done",
                                                          "sequence_number": next(seq), "output_index": i,
                                                          "item": item})
            self._event("response.completed", {"type": "response.completed", "sequence_number": next(seq),
                                               "response": {**base, "status": "completed", "output": output,
                                                            "usage": usage}})

    return Handler


def _message_item(text: str) -> dict:
    return {"type": "message", "id": f"msg_{uuid.uuid4().hex[:20]}", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


_CWD_RE = re.compile(r"(?:Primary working directory|Working directory|cwd):\s*(/[^\s<]*)")


def _anthropic_cwd(body: dict) -> str | None:
    system = body.get("system")
    texts = [system] if isinstance(system, str) else [b.get("text", "") for b in system or [] if isinstance(b, dict)]
    for m in body.get("messages") or []:
        content = m.get("content")
        texts += [content] if isinstance(content, str) else [c.get("text", "") for c in content or []
                                                             if isinstance(c, dict)]
    for text in texts:
        match = _CWD_RE.search(text or "")
        if match:
            return match.group(1)
    return None


_PROMPT_CHECK_RE = re.compile(r"^- Correctness[^`\n]*`([^`\n]+)`", re.M)


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _with_check(step: dict, body: dict) -> dict:
    """The step with `{check}` in its shell command replaced by the prompt's correctness command,
    found in the request (the prompt is the conversation's first user message)."""
    if "{check}" not in step.get("shell", ""):
        return step
    found = next((m.group(1) for text in _strings(body) if (m := _PROMPT_CHECK_RE.search(text))), None)
    if found is None:
        return {**step, "shell": "echo 'scripted model: no correctness command in the prompt' >&2; exit 97"}
    return {**step, "shell": step["shell"].replace("{check}", found)}


def _fill(value: str, cwd: str | None) -> str:
    return value.replace("{cwd}", cwd or ".")


def _abs(path: str, cwd: str | None) -> str:
    path = _fill(path, cwd)
    return path if path.startswith("/") or not cwd else f"{cwd.rstrip('/')}/{path}"


def _claude_tool(step: dict, cwd: str | None) -> tuple[str, dict]:
    if "read" in step:
        return "Read", {"file_path": _abs(step["read"], cwd)}
    if "edit" in step:
        return "Edit", {"file_path": _abs(step["edit"], cwd), "old_string": step["old"], "new_string": step["new"],
                        "replace_all": False}
    if "write" in step:
        return "Write", {"file_path": _abs(step["write"], cwd), "content": step["content"]}
    if "shell" in step:
        return "Bash", {"command": _fill(step["shell"], cwd), "description": "scripted command",
                        **({"timeout": int(step["timeout_s"] * 1000)} if "timeout_s" in step else {})}
    raise ValueError(f"unknown step {step}")


def _shell_for(step: dict) -> str:
    """A step as one shell command (for agents whose only tool is a shell)."""
    if "read" in step:
        return f"cat {_q(step['read'])}"
    if "shell" in step:
        return step["shell"]
    if "edit" in step:
        args = {"path": step["edit"], "old": step["old"], "new": step["new"]}
        code = ("import base64,json,pathlib;a=json.loads(base64.b64decode('%s'));p=pathlib.Path(a['path']);"
                "s=p.read_text();assert a['old'] in s,'old text not found';p.write_text(s.replace(a['old'],a['new'],1));"
                "print('edited',a['path'])") % base64.b64encode(json.dumps(args).encode()).decode()
        return f'python3 -c "{code}"'
    if "write" in step:
        args = {"path": step["write"], "content": step["content"]}
        code = ("import base64,json,pathlib;a=json.loads(base64.b64decode('%s'));"
                "pathlib.Path(a['path']).write_text(a['content']);print('wrote',a['path'])"
                ) % base64.b64encode(json.dumps(args).encode()).decode()
        return f'python3 -c "{code}"'
    raise ValueError(f"unknown step {step}")


def _q(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


def _codex_tool(step: dict, tools: set) -> dict:
    command = _shell_for(step)
    limit = {"timeout_ms": int(step["timeout_s"] * 1000)} if "timeout_s" in step else {}
    if "exec_command" in tools:
        # unified exec answers after yield_time_ms with what ran so far; waiting that long is the limit
        name, args = "exec_command", {"cmd": command, **({"yield_time_ms": limit["timeout_ms"]} if limit else {})}
    elif "shell_command" in tools:
        name, args = "shell_command", {"command": command, **limit}
    else:
        name, args = "shell", {"command": ["bash", "-lc", command], **limit}
    return _function_call(name, args)


def _function_call(name: str, args: dict) -> dict:
    return {"type": "function_call", "id": f"fc_{uuid.uuid4().hex[:20]}", "status": "completed",
            "call_id": f"call_{uuid.uuid4().hex[:20]}", "name": name, "arguments": json.dumps(args)}


# Codex's unified exec answers a call whose command outlives its wait with a header line
# "Process running with session ID N" (one that ended says "Process exited with code C") above "Output:".
_RUNNING_RE = re.compile(r"^Process running with session ID (\d+)\s*$", re.M)
POLL_DEFAULT_MS = 30_000


def _running_exec_session(items: list) -> int | None:
    """The session id when the conversation's last item is the output of an exec_command or
    write_stdin call whose command was still running; else None."""
    last = items[-1] if items else None
    if not isinstance(last, dict) or last.get("type") != "function_call_output":
        return None
    output = last.get("output")
    text = output if isinstance(output, str) else " ".join(_strings(output))
    header = text.split("\nOutput:", 1)[0]           # never match the command's own output
    match = _RUNNING_RE.search(header)
    return int(match.group(1)) if match else None


def _codex_poll(session: int, step: dict) -> dict:
    """write_stdin with no input: wait for more output of a running session (Codex lets an empty
    poll wait up to 300 s, an exec_command only 30 s). Each poll waits the step's timeout_s."""
    wait_ms = int(step["timeout_s"] * 1000) if "timeout_s" in step else POLL_DEFAULT_MS
    return _function_call("write_stdin", {"session_id": session, "chars": "", "yield_time_ms": wait_ms})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m runner.agents.model_server", description=__doc__.split("\n\n")[0])
    ap.add_argument("--script", help="TOML/JSON script (default: the agents-check script)")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--unix", help="serve on this unix socket instead of TCP")
    ap.add_argument("--log", help="append every request (JSONL) here")
    args = ap.parse_args(argv)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        ap.error("--host: the scripted server listens on loopback only")
    server = ScriptedModelServer(load_script(args.script) if args.script else CHECK_SCRIPT, host=args.host,
                                 port=args.port, unix=args.unix, log=args.log)
    server.start()
    print(server.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
