"""The scripted model server's Codex exec polling, without a CLI: the function_call_output texts
below are what Codex 0.169's unified exec sent back (recorded from a real run)."""
import http.client
import json

from runner.agents.model_server import ScriptedModelServer

TOOLS = [{"type": "function", "name": "exec_command"}, {"type": "function", "name": "write_stdin"}]
RUNNING = ("Chunk ID: 526c83\nWall time: 30.0014 seconds\nProcess running with session ID 44764\n"
           "Original token count: 0\nOutput:\n")
EXITED = ("Chunk ID: 5ad910\nWall time: 3.5142 seconds\nProcess exited with code 0\n"
          "Original token count: 3\nOutput:\nslept-ok\n")
# a command whose own output looks like a running header is not a running session
EXITED_ECHOING = EXITED.replace("slept-ok", "Process running with session ID 7")


def call(name, args):
    return {"type": "function_call", "call_id": f"c-{name}", "name": name, "arguments": json.dumps(args)}


def output(text):
    return {"type": "function_call_output", "call_id": "c", "output": text}


def answer(server, items) -> dict:
    host, port = server.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("POST", "/v1/responses", json.dumps({"model": "m", "tools": TOOLS, "stream": False, "input": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}, *items]}),
        {"content-type": "application/json"})
    item = json.loads(conn.getresponse().read())["output"][0]
    return {"name": item.get("name"), "args": json.loads(item.get("arguments") or "{}"),
            "text": item.get("content", [{}])[0].get("text") if item["type"] == "message" else None}


def test_a_running_exec_session_is_polled_before_the_next_step():
    script = [{"shell": "sleep 40; echo slept-ok", "timeout_s": 120}, {"shell": "echo second"}, {"text": "Done."}]
    exec_call = call("exec_command", {"cmd": "sleep 40; echo slept-ok", "yield_time_ms": 120000})
    poll = call("write_stdin", {"session_id": 44764, "chars": "", "yield_time_ms": 120000})
    with ScriptedModelServer(script) as server:
        first = answer(server, [])
        assert first["name"] == "exec_command" and first["args"]["cmd"] == "sleep 40; echo slept-ok"
        # still running after the exec's wait, and after a poll: poll again, with the step's limit
        for history in ([exec_call, output(RUNNING)], [exec_call, output(RUNNING), poll, output(RUNNING)]):
            assert answer(server, history) == {"name": "write_stdin", "text": None, "args": {
                "session_id": 44764, "chars": "", "yield_time_ms": 120000}}
        # exited: the polls were not steps, the next step is the second one
        done = [exec_call, output(RUNNING), poll, output(EXITED)]
        assert answer(server, done)["args"] == {"cmd": "echo second"}
        assert answer(server, [exec_call, output(EXITED_ECHOING)])["args"] == {"cmd": "echo second"}
        assert answer(server, [*done, call("exec_command", {"cmd": "echo second"}), output(EXITED)])["text"] == "Done."
