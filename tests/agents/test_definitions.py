"""Agent definitions: agents/{claude-code,codex,cursor}.toml load, and their command lines are what
the CLIs need (checked by running each template against a fake CLI that records its invocation).
Fail-fast: a missing key or CLI is one error line before anything starts."""
import json
import shutil
import os
import re
import subprocess
import tomllib
from pathlib import Path


from runner.agents.agent import AttemptContext, render_command, resolve_agent
from runner.agents.parsers import PARSERS
from runner.agents.parsers import PRICES_PER_MTOK

from .conftest import REPO, gauntlet

HERE = Path(__file__).resolve().parent


def fake_bin(tmp_path: Path, name: str, **settings: str) -> Path:
    """A bin folder holding a fake `name`; its settings go into fake-env.json beside it (an agent gets
    only an allowlist of the runner's environment)."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    shutil.copy(HERE / "fake_cli.py", bindir / name)
    (bindir / "fake-env.json").write_text(json.dumps(settings))
    return bindir


def run_template(agent: str, tmp_path: Path, cli: str, env: dict) -> dict:
    spec = resolve_agent(agent)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    prompt = tmp_path / "prompt.md"
    prompt.write_text("# Task triton2triton/scale\nmake it fast\n")
    ctx = AttemptContext(task_id="triton2triton/scale", workspace=workspace, workspace_in_sandbox=str(workspace),
                         prompt_file=prompt, prompt_in_sandbox=str(prompt), budget_s=60, deadline_epoch=0,
                         solution={})
    bindir = fake_bin(tmp_path, cli)
    record = tmp_path / "record.json"
    full = {k: v for k, v in os.environ.items() if not k.startswith("GAUNTLET_")}
    full.update({"PATH": f"{bindir}:{os.environ['PATH']}", "FAKE_CLI_RECORD": str(record),
                 "GAUNTLET_GATEWAY_URL": "http://127.0.0.1:9", **spec.env_set, **env})
    proc = subprocess.run(render_command(spec, ctx), env=full, cwd=tmp_path, capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(record.read_text())
    out["workspace"] = str(workspace)
    return out


def test_shipped_agents_load_with_registered_parsers():
    for name, protocol, cli in (("claude-code", "anthropic", "claude"), ("codex", "openai-responses", "codex"),
                                ("cursor", "connect", "cursor-agent")):
        spec = resolve_agent(name)
        assert spec.kind == "command" and spec.cli == cli and spec.parser in PARSERS
        assert spec.gateway["protocol"] == protocol and spec.env_required and spec.install


def test_claude_command_line(tmp_path):
    rec = run_template("claude-code", tmp_path, "claude", {})
    argv = rec["argv"]
    assert argv[:6] == ["-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions",
                        "--disallowedTools"] and argv[6] == "WebSearch,WebFetch"
    assert "--model" not in argv and "--max-turns" not in argv       # unset run options: no flags
    assert rec["stdin"].startswith("# Task triton2triton/scale")      # the prompt arrives on stdin
    assert rec["cwd"] == rec["workspace"]
    assert rec["env"]["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1" and rec["env"]["DISABLE_AUTOUPDATER"] == "1"
    assert (rec["env"].get("IS_SANDBOX") == "1") == (rec["uid"] == 0)  # only as root
    config = rec["env"]["CLAUDE_CONFIG_DIR"]
    assert config.startswith("/") and not os.path.exists(config)      # fresh per attempt, removed after

    (tmp_path / "b").mkdir()
    rec = run_template("claude-code", tmp_path / "b", "claude",
                       {"GAUNTLET_MODEL": "claude-x 1", "GAUNTLET_MAX_TURNS": "7", "GAUNTLET_EFFORT": "high",
                        "GAUNTLET_API_RETRIES": "0"})
    argv = rec["argv"]
    assert argv[argv.index("--model") + 1] == "claude-x 1" and argv[argv.index("--max-turns") + 1] == "7"
    assert argv[argv.index("--effort") + 1] == "high" and rec["env"]["CLAUDE_CODE_MAX_RETRIES"] == "0"


def test_codex_command_line_and_provider_config(tmp_path):
    rec = run_template("codex", tmp_path, "codex", {"GAUNTLET_EFFORT": "low"})
    argv = rec["argv"]
    assert argv[:7] == ["exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
                        "--color", "never", "-C"] and argv[7] == rec["workspace"]
    assert argv[8].startswith("# Task triton2triton/scale")           # the prompt is the argument
    assert rec["stdin"] == ""                                           # stdin closed (/dev/null)
    config = tomllib.loads(rec["codex_config"])
    provider = config["model_providers"][config["model_provider"]]
    assert provider["base_url"] == "http://127.0.0.1:9/v1" and provider["wire_api"] == "responses"
    assert provider["env_key"] == "OPENAI_API_KEY" and provider["supports_websockets"] is False
    assert config["model"] == "gpt-5.5" and config["model_reasoning_effort"] == "low"
    assert config["analytics"]["enabled"] is False and config["web_search"] == "disabled"
    assert not os.path.exists(rec["env"]["CODEX_HOME"])


def test_cursor_command_line(tmp_path):
    rec = run_template("cursor", tmp_path, "cursor-agent", {"GAUNTLET_MODEL": "sonnet-4.5"})
    argv = rec["argv"]
    assert argv[:6] == ["--print", "--force", "--output-format", "stream-json", "--model", "sonnet-4.5"]
    assert argv[6].startswith("# Task triton2triton/scale") and rec["cwd"] == rec["workspace"]


def test_run_options_reach_the_agent_through_gauntlet_run(tmp_path, tasks_root):
    """`gauntlet run --model/--max-turns/--effort` -> the CLI's flags; the agent sees the gateway's URL and
    a per-attempt key, never the real one."""
    # in the workspace: the only host folder a confined agent writes
    record = tmp_path / "run" / "attempts" / "triton2triton__scale" / "workspace" / "record.json"
    bindir = fake_bin(tmp_path, "claude", FAKE_CLI_RECORD=str(record))
    proc = gauntlet("run", "--agent", "claude-code", "--tasks", "triton2triton", "--tasks-root", tasks_root,
                    "--device", "cpu", "--budget", "60", "--out", tmp_path / "run", "--model", "m-1",
                    "--max-turns", "3", "--effort", "low", isolate=False,
                    env={"PATH": f"{bindir}:{os.environ['PATH']}", "ANTHROPIC_API_KEY": "sk-real-secret"})
    assert proc.returncode == 0, proc.stderr
    rec = json.loads(record.read_text())
    argv = rec["argv"]
    assert argv[argv.index("--model") + 1] == "m-1" and argv[argv.index("--max-turns") + 1] == "3"
    assert argv[argv.index("--effort") + 1] == "low"
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", rec["env"]["ANTHROPIC_BASE_URL"])
    assert rec["env"]["ANTHROPIC_API_KEY"].startswith("gauntlet-")
    assert "sk-real-secret" not in json.dumps(rec["env"])
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["options"]["agent_env"] == {"GAUNTLET_MODEL": "m-1", "GAUNTLET_MAX_TURNS": "3",
                                                "GAUNTLET_EFFORT": "low"}
    # a resume with another model would mix two configurations in one run: refused, naming the field
    again = gauntlet("run", "--agent", "claude-code", "--tasks", "triton2triton", "--tasks-root", tasks_root,
                     "--device", "cpu", "--budget", "60", "--out", tmp_path / "run", "--resume", "--model", "m-2",
                     "--max-turns", "3", "--effort", "low", isolate=False,
                     env={"PATH": f"{bindir}:{os.environ['PATH']}", "ANTHROPIC_API_KEY": "sk-real-secret"})
    assert again.returncode != 0 and "manifest.json: options" in again.stderr


def test_missing_key_fails_fast_in_one_line(tmp_path, tasks_root):
    out = tmp_path / "run"
    path = f"{fake_bin(tmp_path, 'claude')}:{os.environ['PATH']}"     # the CLI there, installed or not
    proc = gauntlet("run", "--agent", "claude-code", "--tasks", "triton2triton", "--tasks-root", tasks_root,
                    "--device", "cpu", "--out", out, isolate=False, env={"ANTHROPIC_API_KEY": "", "PATH": path})
    assert proc.returncode == 1
    assert proc.stderr.strip() == ("Error: agent claude-code: environment variable ANTHROPIC_API_KEY is not set "
                                   "(needed by claude-code.toml)")
    assert not out.exists()                                            # nothing started


def test_missing_cli_fails_fast_in_one_line(tmp_path, tasks_root):
    text = (REPO / "agents" / "claude-code.toml").read_text()
    agent = tmp_path / "ghost.toml"
    agent.write_text(text.replace('name = "claude-code"', 'name = "ghost"').replace('cli = "claude"',
                                                                                    'cli = "no-such-agent-cli"'))
    out = tmp_path / "run"
    proc = gauntlet("run", "--agent", agent, "--tasks", "triton2triton", "--tasks-root", tasks_root,
                    "--device", "cpu", "--out", out, isolate=False, env={"ANTHROPIC_API_KEY": "k"})
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1
    assert "CLI 'no-such-agent-cli' not found" in proc.stderr and not out.exists()


def test_agents_check_refuses_cursor_offline():
    proc = gauntlet("agents", "check", "cursor", isolate=False)
    assert proc.returncode == 1 and "cannot be checked offline" in proc.stderr


def test_price_table_in_docs_matches_code():
    text = (REPO / "docs" / "agents.md").read_text()
    rows = re.findall(r"^\| `([^`]+)` \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$", text, re.M)
    assert {m: tuple(float(x) for x in r) for m, *r in rows} == PRICES_PER_MTOK


def test_install_script_pins_versions():
    """One list of pins, sourced by the host install and the image bundle alike."""
    text = (REPO / "scripts" / "agent-cli-versions.sh").read_text()
    for user in ("install-agents.sh", "images/bundle-agent-clis.sh"):
        assert "agent-cli-versions.sh" in (REPO / "scripts" / user).read_text(), user
    assert re.search(r'CLAUDE_CODE_VERSION="\$\{CLAUDE_CODE_VERSION:-\d+\.\d+\.\d+\}"', text)
    assert re.search(r'CODEX_VERSION="\$\{CODEX_VERSION:-\d+\.\d+\.\d+\}"', text)
    assert "/.agents" in (REPO / ".gitignore").read_text().splitlines()   # a folder or a link: never committed


def test_every_missing_prerequisite_is_named_at_once(tmp_path, tasks_root):
    """Cursor with neither its key nor its CLI (it is not installable here): one line naming both."""
    out = tmp_path / "run"
    proc = gauntlet("run", "--agent", "cursor", "--tasks", "triton2triton", "--tasks-root", tasks_root,
                    "--device", "cpu", "--out", out, isolate=False,
                    env={"CURSOR_API_KEY": "", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "CURSOR_API_KEY is not set" in proc.stderr and "CLI 'cursor-agent' not found" in proc.stderr
    assert not out.exists()
