"""`gauntlet agents check`: one real agent CLI, through the gateway, against the scripted model server
(runner/agents/model_server.py), on the fixture task triton2triton/scale, as a whole run: what it
checks is that the CLI's traffic, edits, usage and trajectory all reach the run's records."""
from __future__ import annotations

import json
import os
import secrets
import shutil
import tempfile
from pathlib import Path

from runner.agents.agent import resolve_agent
from runner.agents.gateway import find_cli, gateway_config
from runner.agents.model_server import CHECK_SCRIPT, ScriptedModelServer, load_script
from runner.agents.parsers import TOKEN_KEYS
from runner.resources import suite_root
from runner.results.result import read_json
from runner.run.run import Run, RunOptions
from runner.run.layout import attempt_dir_name
from runner.tasks.task import load_task
from runner.sandbox.hostfs import remove_tree


class CheckError(RuntimeError):
    """`gauntlet agents check` cannot run this agent (one line)."""


def edits_landed(edits: list[dict], candidate: Path, diff: str) -> bool:
    """Every scripted edit is in the evaluated file and the diff names that file. Judged on the file,
    not on the diff's added lines: a new text that repeats lines of the old one leaves those lines
    as unchanged context in the diff."""
    for step in edits:
        path = candidate / step["edit"]
        if f"b/{step['edit']}" not in diff or not path.is_file():
            return False
        if step["new"] not in path.read_text(errors="replace"):
            return False
    return bool(edits)


def run_check(agent: str, *, backend: str = "local", out: Path | None = None, script=None,
              budget_s: float = 300.0, device: str = "cpu", agent_env: dict | None = None) -> dict:
    """`gauntlet agents check`: the real CLI, through the gateway, against this server, on the
    fixture task triton2triton/scale. Returns what was checked (each item: ok, detail)."""
    spec = resolve_agent(agent)
    if not spec.gateway:
        raise CheckError(f"agent {spec.name}: has no [gateway] table; nothing to check against a model server")
    config = gateway_config(spec)
    if config["protocol"] == "connect":
        raise CheckError(f"agent {spec.name}: speaks a private protocol (gateway CONNECT only); it cannot be "
                         f"checked offline: run one task with a real key instead (docs/agents.md)")
    if backend == "local" and spec.cli and not find_cli(spec.cli):
        raise CheckError(f"agent {spec.name}: CLI {spec.cli!r} not found on PATH or in .agents/node_modules/.bin "
                         f"(install it: {spec.install or 'see docs/agents.md'})")
    scratch = Path(tempfile.mkdtemp(prefix="gl-check-"))
    root = scratch / "tasks"
    shutil.copytree(suite_root() / "tests" / "fixtures" / "tasks", root)
    task = load_task(root / "triton2triton" / "scale", root)
    out = Path(out) if out else scratch / "run"
    key = "sk-gauntlet-check-" + secrets.token_hex(8)   # what the server demands: proves key injection
    steps = load_script(script) if script else CHECK_SCRIPT
    saved = dict(os.environ)
    try:
        with ScriptedModelServer(steps, unix=scratch / "model.sock", log=scratch / "model-requests.jsonl",
                                 require_key=key) as server:
            os.environ.update({"GAUNTLET_GATEWAY_UPSTREAM": server.url, config["key_env"]: key})
            the_run = Run(out, RunOptions(agent=spec, device=device, backend=backend, budget_s=budget_s,
                                          tasks_root=root,
                                          agent_env={"GAUNTLET_API_RETRIES": "0", **(agent_env or {})}), [task])
            result = the_run.attempt(task)
            the_run.close()
            requests = list(server.requests)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        if out.resolve().parent != scratch.resolve():   # the run dir lives elsewhere: drop the scratch
            remove_tree(scratch, ignore_errors=True)
    adir = out / "attempts" / attempt_dir_name(task.id)
    diff = (adir / "diff.patch").read_text() if (adir / "diff.patch").is_file() else ""
    meter = read_json(adir / "agent" / "gateway.json") if (adir / "agent" / "gateway.json").is_file() else {}
    metered = meter.get("usage") or {}
    usage = result.usage or {}
    landed = edits_landed([s for s in steps if "edit" in s], adir / "candidate", diff)
    checks = {
        "cli ran": (result.agent_failure is None and result.status == "ok",
                    f"status {result.status}, exit {result.agent_exit_code}, failure {result.agent_failure}"
                    + (f", error {result.error}" if result.error else "")),
        "model traffic via gateway": (bool(requests) and meter.get("requests", 0) >= len(requests),
                                      f"{len(requests)} request(s) reached the model server with the injected key, "
                                      f"gateway saw {meter.get('requests', 0)}"),
        "edit landed in diff.patch": (landed, f"changed {result.changed_files}"),
        "evaluated": (result.compiled and result.correct_seen and result.correct_unseen,
                      f"compiled={result.compiled} seen={result.correct_seen} unseen={result.correct_unseen}"),
        "usage parsed": (bool(usage) and usage.get("output_tokens", 0) > 0, json.dumps(usage)),
        "usage matches gateway meter": (bool(usage) and all(usage.get(k, 0) == metered.get(k, 0) for k in TOKEN_KEYS),
                                        json.dumps({k: metered.get(k, 0) for k in TOKEN_KEYS})),
        "trajectory": ((adir / "agent" / "trajectory.jsonl").is_file() and
                       '"tool_call"' in (adir / "agent" / "trajectory.jsonl").read_text(),
                       str(adir / "agent" / "trajectory.jsonl")),
    }
    return {"agent": spec.name, "backend": backend, "run_dir": str(out), "ok": all(ok for ok, _ in checks.values()),
            "checks": {k: {"ok": bool(ok), "detail": d} for k, (ok, d) in checks.items()},
            "cost_usd": result.cost_usd, "agent_seconds": result.agent_seconds}
