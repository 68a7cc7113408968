#!/usr/bin/env python3
"""A fake `cursor-agent`: Cursor's CLI cannot be installed or pointed at a local model here, so this
plays its documented `--output-format stream-json` events (system/init, user, assistant, tool_call
started/completed with readToolCall / editToolCall / shellToolCall, result) while really doing the
edit, so the adapter's command line, parser and diff capture are exercised end to end.

It checks its command line and environment the way the real CLI needs them and exits 2 (with a
message on stderr) when something is missing. It also opens one CONNECT tunnel through HTTPS_PROXY
(the gateway) to FAKE_CURSOR_UPSTREAM when that is set (in fake-env.json beside the path it was
invoked by, or in the environment), as the real CLI reaches Cursor's servers.
"""
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from urllib.parse import urlsplit


def need(cond, message):
    if not cond:
        print(f"fake cursor-agent: {message}", file=sys.stderr)
        sys.exit(2)


args = sys.argv[1:]
for flag in ("--print", "--force"):
    need(flag in args, f"missing {flag}")
need(args[args.index("--output-format") + 1] == "stream-json", "--output-format stream-json expected")
need("--model" in args and args[args.index("--model") + 1], "--model M expected")
need(os.environ.get("CURSOR_API_KEY"), "CURSOR_API_KEY is not set")
model = args[args.index("--model") + 1]
prompt = args[-1]
need(prompt.startswith("# Task "), "the prompt is the last argument")

beside = os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), "fake-env.json")
settings = json.load(open(beside)) if os.path.isfile(beside) else {}
upstream = settings.get("FAKE_CURSOR_UPSTREAM", os.environ.get("FAKE_CURSOR_UPSTREAM"))
if upstream:
    proxy = urlsplit(os.environ["HTTPS_PROXY"])
    with socket.create_connection((proxy.hostname, proxy.port), timeout=10) as s:
        s.sendall(f"CONNECT {upstream} HTTP/1.1\r\nHost: {upstream}\r\n\r\n".encode())
        head = s.recv(4096)
        need(head.startswith(b"HTTP/1.1 200"), f"CONNECT refused: {head[:80]!r}")
        s.sendall(b"ping\n")
        need(s.recv(64) == b"pong\n", "tunnel did not echo")

session = str(uuid.uuid4())


def emit(event):
    event.setdefault("session_id", session)
    print(json.dumps(event), flush=True)
    time.sleep(0.05)


emit({"type": "system", "subtype": "init", "apiKeySource": "env", "cwd": os.getcwd(), "model": model,
      "permissionMode": "default"})
emit({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": prompt}]}})
emit({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "Reading the kernel."}]}})
path = os.path.join(os.getcwd(), "kernel.py")
emit({"type": "tool_call", "subtype": "started", "call_id": "call_1", "tool_call": {"readToolCall": {"args": {"path": path}}}})
text = open(path).read()
emit({"type": "tool_call", "subtype": "completed", "call_id": "call_1", "tool_call": {"readToolCall": {
    "args": {"path": path}, "result": {"success": {"content": text, "isEmpty": False, "exceededLimit": False,
                                                 "totalLines": text.count("\n"), "totalChars": len(text)}}}}})
old, new = "BLOCK=256)", "BLOCK=1024)"
emit({"type": "tool_call", "subtype": "started", "call_id": "call_2", "tool_call": {"editToolCall": {"args": {"path": path}}}})
open(path, "w").write(text.replace("triton.cdiv(n, 256)", "triton.cdiv(n, 1024)").replace(old, new))
emit({"type": "tool_call", "subtype": "completed", "call_id": "call_2", "tool_call": {"editToolCall": {
    "args": {"path": path}, "result": {"success": {"path": path, "linesAdded": 1, "linesRemoved": 1}}}}})
emit({"type": "tool_call", "subtype": "started", "call_id": "call_3",
      "tool_call": {"shellToolCall": {"args": {"command": "grep -c BLOCK=1024 kernel.py"}}}})
out = subprocess.run(["grep", "-c", "BLOCK=1024", "kernel.py"], capture_output=True, text=True)
emit({"type": "tool_call", "subtype": "completed", "call_id": "call_3", "tool_call": {"shellToolCall": {
    "args": {"command": "grep -c BLOCK=1024 kernel.py"},
    "result": {"success": {"exitCode": out.returncode, "stdout": out.stdout, "stderr": out.stderr}}}}})
emit({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "Widened the block."}]}})
emit({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 400, "duration_api_ms": 300,
      "result": "Widened the block.", "request_id": str(uuid.uuid4()),
      "usage": {"inputTokens": 1200, "outputTokens": 80, "cacheReadTokens": 300, "cacheWriteTokens": 0}})
