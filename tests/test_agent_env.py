"""The local backend hands an agent an allowlist of the host's environment, never all of it: other
vendors' API keys and any other secret in the runner's environment stay out. Real CLI subprocess,
real command agent."""
from pathlib import Path

from .conftest import gauntlet

SECRETS = {"OPENAI_API_KEY": "sk-openai-should-not-leak", "ANTHROPIC_API_KEY": "sk-ant-should-not-leak",
           "MY_DATABASE_PASSWORD": "hunter2-should-not-leak"}


def _agent_env(tasks_root, out, *agent_args, extra_env=None) -> dict:
    env = {**SECRETS, "TZ": "UTC", **(extra_env or {})}
    gauntlet("run", "--tasks", "triton2triton/scale", "--tasks-root", tasks_root, "--device", "cpu",
             "--out", out, *agent_args, env=env)
    dump = next(Path(out).glob("attempts/*/workspace/env.txt")).read_text()
    return dict(line.split("=", 1) for line in dump.splitlines() if "=" in line)


def test_a_command_agent_sees_no_host_secret(tasks_root, tmp_path):
    seen = _agent_env(tasks_root, tmp_path / "run", "--agent", "command", "--command", "env > {workspace}/env.txt")
    leaked = {k for k in SECRETS if k in seen} | {k for k, v in seen.items() if v in SECRETS.values()}
    assert not leaked, leaked
    assert seen["PATH"] and seen["TZ"] == "UTC" and "GAUNTLET_DEADLINE_EPOCH" in seen


def test_an_agent_without_a_gateway_gets_only_the_keys_its_file_requires(tasks_root, tmp_path):
    agent = tmp_path / "mine.toml"
    agent.write_text('name = "mine"\nkind = "command"\ndescription = "test"\n'
                     'command = "env > {workspace}/env.txt"\n[env]\nrequired = ["MY_TOOL_TOKEN"]\n')
    seen = _agent_env(tasks_root, tmp_path / "run", "--agent", agent, extra_env={"MY_TOOL_TOKEN": "tool-token"})
    assert seen.get("MY_TOOL_TOKEN") == "tool-token"
    assert not {k for k in SECRETS if k in seen}
