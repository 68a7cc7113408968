"""Red-team holes of the agent phase (session rtB): what an agent sees of the host (H3), what an agent
can make of its own attempt's record (H4), and the kept workspace's git. Real `gauntlet run` with
`command` agents, real git, real bubblewrap where it works here."""
import base64
import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from runner.agents import parsers
from runner.sandbox import confine

from .conftest import gauntlet

ATTEMPT = "triton2triton__scale"
CONFINED = confine.available() is None


def b64(script: str) -> str:
    return f"echo {base64.b64encode(script.encode()).decode()} | base64 -d > $TMPDIR/a.sh && sh $TMPDIR/a.sh"


def run(tasks_root, out, *args, env=None, check=True):
    return gauntlet("run", "--tasks", "triton2triton/scale", "--tasks-root", tasks_root, "--device", "cpu",
                    "--out", out, *args, env=env, check=check)


def result(out: Path) -> dict:
    return json.loads((out / "attempts" / ATTEMPT / "result.json").read_text())


# -- H4: names and bytes that are not UTF-8 --------------------------------------------------------
def test_a_name_and_a_file_that_are_not_utf8_are_recorded_not_an_infra_error(tasks_root, tmp_path):
    """p08 + p19: a file named notes-\\xff.txt and a protected file holding one Latin-1 byte. The host
    records both (names with \\xNN, diff.patch as git's bytes), the edit is evaluated, and nothing is
    an infra_error (which --resume would redo: a free retry)."""
    out = tmp_path / "run"
    script = ("echo '# a bad kernel edit' >> kernel.py\n"
              "printf 'x' > \"$(printf 'notes-\\377.txt')\"\n"
              "printf 'caf\\351\\n' > notes.txt\n")
    run(tasks_root, out, "--agent", "command", "--command", b64(script))
    r = result(out)
    assert r["status"] == "ok" and r["compiled"], r["error"]
    assert "notes-\\xff.txt" in r["changed_files"] and "notes.txt" in r["violations"]
    patch = (out / "attempts" / ATTEMPT / "diff.patch").read_bytes()
    assert b"+# a bad kernel edit" in patch and b"+caf\xe9" in patch
    # and `gauntlet eval` rebuilds the candidate from those bytes
    gauntlet("eval", out, "--tasks-root", tasks_root, "--device", "cpu")
    assert result(out)["status"] == "ok"


# -- H4: the parsers are total ----------------------------------------------------------------------
ODD_VALUES = [None, True, 0, -1, 2 ** 70, 1.5, float("nan"), "", "str", [], [1, "x", None], {}, {"a": [{}]},
              [[[[[]]]]], {"type": None}, {"content": 3}]
SHAPES = [
    {"type": "assistant", "message": "str"},                                  # p09
    {"type": "assistant", "message": {"content": ["a", 1, None]}},
    {"type": "user", "message": {"content": [{"type": "tool_result", "content": {"x": 1}}]}},
    {"type": "result", "usage": "lots", "total_cost_usd": "free", "modelUsage": [1], "errors": 5,
     "is_error": "yes", "num_turns": "many"},
    {"type": "result", "total_cost_usd": {"usd": 1}, "usage": {"input_tokens": 1e400}},
    {"type": "system", "timestamp": 10 ** 400},
    {"type": "turn.failed", "error": "down"},
    {"type": "turn.completed", "usage": [1, 2]},
    {"type": "error", "message": {"nested": True}},
    {"type": "item.completed", "item": "x"},
    {"type": "tool_call", "subtype": "completed", "tool_call": [1, 2]},
    {"type": "tool_call", "subtype": "completed", "tool_call": {"readToolCall": {"result": 7}}},
    {"type": "result", "timestamp": "9999-99-99"},
]


def _random_event(rng: random.Random) -> dict:
    kinds = ["assistant", "user", "result", "system", "turn.completed", "turn.failed", "error", "item.started",
             "item.completed", "thread.started", "tool_call", "thinking", rng.choice(ODD_VALUES)]
    keys = ["message", "content", "usage", "total_cost_usd", "modelUsage", "errors", "is_error", "num_turns",
            "timestamp", "timestamp_ms", "item", "error", "tool_call", "subtype", "result", "api_error_status"]
    event = {"type": rng.choice(kinds)}
    for key in rng.sample(keys, rng.randint(1, 6)):
        event[key] = rng.choice(ODD_VALUES + [{"type": rng.choice(["text", "tool_use", "tool_result", "thinking"]),
                                               "content": rng.choice(ODD_VALUES), "text": rng.choice(ODD_VALUES)}])
    return event


@pytest.mark.parametrize("name", ["claude-stream-json", "codex-json", "cursor-stream-json"])
def test_the_parsers_never_raise_on_any_json_value(name, tmp_path):
    """Every malformed shape the red team found, then 300 seeded random events of odd values: each
    parser returns a report, and what it could not read is an `unreadable` step, not an exception."""
    rng = random.Random(1234)
    lines = [json.dumps(e) for e in SHAPES] + [json.dumps(_random_event(rng)) for _ in range(300)]
    lines += ["[" * 100000 + "]" * 100000, "[1, 2]", '"just a string"', "{not json"]
    agent_dir = tmp_path / "a"
    agent_dir.mkdir()
    (agent_dir / "stdout.log").write_text("\n".join(lines) + "\n")
    report = parsers.PARSERS[name](agent_dir / "stdout.log", agent_dir, False, 1)
    assert report.failure is not None and report.cost_usd is None or isinstance(report.cost_usd, float)
    steps = [json.loads(line) for line in (agent_dir / "trajectory.jsonl").read_text().splitlines()]
    assert steps
    if name == "claude-stream-json":
        assert any(s["type"] == "unreadable" and '"message": "str"' in s["text"] for s in steps)


def test_an_unreadable_event_is_recorded_and_the_attempt_evaluated(tasks_root, tmp_path):
    """p09 end to end: agents/crashparse.toml's one malformed stream-json event is an unreadable step;
    the attempt is the agent's (evaluated), never an infra_error."""
    agent = tmp_path / "crashparse.toml"
    agent.write_text('name = "crashparse"\nkind = "command"\nparser = "claude-stream-json"\ncli = "sh"\n'
                     'command = "echo \'# bad edit\' >> kernel.py; echo \'{\\"type\\":\\"assistant\\",\\"message\\":\\"str\\"}\'"\n')
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", agent)
    r = result(out)
    assert r["status"] != "infra_error" and r["compiled"] is True, r["error"]
    steps = (out / "attempts" / ATTEMPT / "agent" / "trajectory.jsonl").read_text()
    assert '"type": "unreadable"' in steps and (out / "attempts" / ATTEMPT / "diff.patch").is_file()


# -- H4: an infra class the agent's stream claims --------------------------------------------------
FORGED = ('{"type":"result","subtype":"error_during_execution","is_error":true,"api_error_status":529,'
          '"api_error_type":"overloaded_error","result":"API Error: 529 overloaded","num_turns":1,'
          '"total_cost_usd":0.0,"usage":{"input_tokens":1,"output_tokens":1}}')


def test_a_forged_model_outage_is_the_agents_failure_not_an_infra_error(tasks_root, tmp_path):
    """p07: a stream whose final event claims API error 529 while no gateway saw one is cli_crash (the
    attempt is evaluated and kept; --resume does not redo it)."""
    script = f"printf '%s\\n' '{FORGED}'\necho '# my bad kernel' >> kernel.py\nexit 1\n"
    agent = tmp_path / "forge.toml"
    agent.write_text('name = "forge"\nkind = "command"\nparser = "claude-stream-json"\ncli = "sh"\n'
                     f'command = "{b64(script)}"\n')
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", agent)
    r = result(out)
    assert r["status"] == "agent_error" and r["agent_failure"] == "cli_crash"
    assert "claimed model_api" in r["error"]
    # resume: the attempt is finished, nothing is redone
    again = run(tasks_root, out, "--agent", agent, "--resume")
    assert "0 to do" in again.stdout


def test_an_outage_the_gateway_recorded_is_still_an_infra_error_and_its_meter_wins(tmp_path):
    """The same claim with the gateway's own record of a 529 is model_api (retryable); usage and cost
    are the gateway meter's, not the stream's."""
    from runner.agents.agent import parse_output, resolve_agent
    agent_dir = tmp_path / "a"
    agent_dir.mkdir()
    (agent_dir / "stdout.log").write_text(FORGED + "\n")
    spec = resolve_agent("claude-code")
    report = parse_output(spec, agent_dir, False, 1)
    assert report.failure == "cli_crash" and not report.retryable and report.claimed_failure == "model_api"
    (agent_dir / "gateway.jsonl").write_text(json.dumps({"method": "POST", "status": 529, "outcome": "complete"}) + "\n")
    metered = {"input_tokens": 5000, "cache_read_tokens": 0, "cache_write_tokens": 0, "output_tokens": 700}
    (agent_dir / "gateway.json").write_text(json.dumps({"usage": metered, "by_model": {"gpt-5": metered}}))
    report = parse_output(spec, agent_dir, False, 1)
    assert report.failure == "model_api" and report.retryable
    assert {k: report.usage[k] for k in metered} == metered and report.usage_source == "gateway"
    assert report.usage.get("turns") == 1       # the CLI's own turn count is kept beside the meter
    assert report.cost_usd == pytest.approx(parsers.price("gpt-5", metered))


# -- H3: what the agent's sandbox may bind ---------------------------------------------------------
def test_never_refuses_a_folder_that_holds_or_lies_in_a_never_folder_symlinks_resolved(tmp_path):
    secret = tmp_path / "opt" / "tasks"
    (secret / "t" / "hidden").mkdir(parents=True)
    (tmp_path / "link").symlink_to(secret / "t")
    never = confine.Never(secret=(secret,), whole=(tmp_path / "checkout",))
    assert never.refusal(tmp_path / "opt") and never.refusal(secret / "t" / "hidden")
    assert never.refusal(tmp_path / "link")                      # a symlink into it: resolved first
    assert never.refusal(tmp_path / "checkout") and never.refusal(tmp_path)
    assert never.refusal(tmp_path / "checkout" / ".venv") is None and never.refusal(tmp_path / "other") is None
    with pytest.raises(confine.BindRefused):
        confine.check_binds(never, [tmp_path / "opt"])


def test_a_toolchain_folder_holding_task_data_is_split_around_it(tmp_path, monkeypatch):
    """runner/ of an installed package holds runner/suite/tasks: only its code is bound; /opt holding
    the tasks root: its other children are."""
    pkg = tmp_path / "site" / "runner"
    (pkg / "suite" / "tasks" / "t" / "hidden").mkdir(parents=True)
    (pkg / "agents").mkdir()
    (pkg / "cli.py").write_text("")
    (pkg / "alias").symlink_to("agents")
    monkeypatch.setenv(confine.TOOLCHAIN_ENV, str(pkg))
    never = confine.Never(secret=(pkg / "suite",), whole=())
    entries = confine.toolchain_binds(never)
    bound = {p for kind, p in entries if kind == "bind"}
    assert pkg / "agents" in bound and pkg / "cli.py" in bound and ("symlink", pkg / "alias") in entries
    assert not any(confine._within(p, pkg / "suite") or confine._within(pkg, p) for p in bound)


@pytest.mark.skipif(not CONFINED, reason="bubblewrap cannot confine an agent here")
def test_a_tasks_root_under_a_bound_folder_is_not_visible_to_the_agent(tasks_root, tmp_path):
    """p04: the tasks root under a folder the sandbox binds (GAUNTLET_AGENT_TOOLCHAIN here, /opt for
    the red team): the agent finds no hidden config and no solution, and copies nothing."""
    wide = tasks_root.parent
    script = ("for f in $(find / \\( -path /proc -o -path /sys \\) -prune -o \\( -path '*/hidden/*' -o "
              "-path '*/scale/solution/*' -o -path '*/run/manifest.json' \\) -print 2>/dev/null); do echo \"$f\"; done "
              "> found.txt\necho '# edit' >> kernel.py\n")
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", "command", "--command", b64(script), env={confine.TOOLCHAIN_ENV: str(wide)})
    found = (out / "attempts" / ATTEMPT / "workspace" / "found.txt").read_text()
    assert found.strip() == "", found
    assert result(out)["status"] == "ok"


@pytest.mark.skipif(not CONFINED, reason="bubblewrap cannot confine an agent here")
def test_a_cli_folder_in_a_never_folder_is_an_infra_error_of_one_line(tasks_root, tmp_path):
    """p17: a user's agent CLI found through a symlink into a folder no agent may see (the tasks root
    here, the checkout for the red team) is refused before the agent starts: infra_error, one line."""
    real = tasks_root / "my-agent.sh"
    real.write_text("#!/bin/sh\necho '# edit' >> kernel.py\n")
    real.chmod(0o755)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "my-agent").symlink_to(real)
    agent = tmp_path / "mycli.toml"
    agent.write_text('name = "mycli"\nkind = "command"\ncli = "my-agent"\ncommand = "my-agent"\n'
                     '[gateway]\nprotocol = "anthropic"\n')
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", agent, check=False,
        env={"PATH": f"{bindir}:{os.environ['PATH']}", "ANTHROPIC_API_KEY": "dummy"})
    r = result(out)
    assert r["status"] == "infra_error" and r["error"].startswith(("BindRefused: ", "GatewayError: ")) and "\n" not in r["error"]
    assert str(tasks_root.resolve()) in r["error"]


def test_a_judge_that_refuses_to_judge_is_the_harness_failure(tmp_path, monkeypatch):
    """p03's side bug: the judge's own 'no sandbox for the kernel runner' refusal (no candidate code
    loaded) is marked by the judge as its harness error, which the attempt reads as infra_error (redone
    by --resume), never the candidate's compile failure -- and a candidate's own error never is."""
    from runner.evaluator import isolation
    from runner.evaluator.__main__ import main
    from runner.results.result import AttemptResult, Evaluation
    from runner.run.run import read_verdict
    monkeypatch.delenv("GAUNTLET_RUNNER_ISOLATION", raising=False)
    monkeypatch.delenv(isolation.UNISOLATED_ENV, raising=False)
    monkeypatch.setattr(isolation.shutil, "which", lambda name: None)     # no sandbox tool installed
    root = Path(__file__).resolve().parents[1] / "tasks"
    out = tmp_path / "out" / "verdict.json"
    out.parent.mkdir()
    assert main([str(root / "triton2triton" / "softmax"), "--tasks-root", str(root), "--device", "cpu",
                 "--no-timing", "--out", str(out)]) == 0
    verdict = json.loads(out.read_text())
    assert verdict["error"].startswith("no sandbox for the kernel runner works here (")
    assert verdict["harness_error"] == verdict["error"] and not verdict["configs"]
    attempt = AttemptResult(task="t", category="triton2triton", agent="a", device="cpu", status="ok")
    attempt.apply(Evaluation.from_dict(verdict))
    assert attempt.status == "infra_error", attempt.status
    candidate_error = Evaluation(device="cpu", compiled=False, nonce="n0", compile_log="Traceback ...",
                                 error="no sandbox for the kernel runner works here (forged)")
    path = tmp_path / "evaluation.json"
    path.write_text(json.dumps(candidate_error.to_dict()))
    attempt = AttemptResult(task="t", category="triton2triton", agent="a", device="cpu", status="ok")
    attempt.apply(read_verdict(path, "n0", "cpu", tmp_path / "kept.json"))
    assert attempt.status != "infra_error"    # the words alone are not the harness's failure


# -- the kept workspace's git ------------------------------------------------------------------------
def test_the_kept_workspaces_git_runs_nothing_the_agent_wrote(tasks_root, tmp_path):
    """An agent's core.fsmonitor, hooks and a nested repository: after the run a person's `git status`
    and `git diff` in the kept workspace run none of them (each .git renamed out of git's reach)."""
    marker = tmp_path / "ran"
    script = ("git config core.fsmonitor 'touch ran-fsmonitor; false'\n"
              "printf '#!/bin/sh\\ntouch ran-hook\\n' > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout\n"
              "mkdir sub && git -C sub init -q && git -C sub config core.fsmonitor 'touch ../ran-nested; false'\n"
              "echo '# edit' >> kernel.py\n")
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", "command", "--command", b64(script))
    ws = out / "attempts" / ATTEMPT / "workspace"
    assert (ws / ".git-agent" / "config").is_file() and not (ws / ".git").exists()
    for folder in (ws, ws / "sub"):
        subprocess.run(["git", "status"], cwd=folder, capture_output=True)
        subprocess.run(["git", "diff"], cwd=folder, capture_output=True)
    assert not list(ws.glob("ran-*")) and not marker.exists()
    assert result(out)["status"] == "ok"
