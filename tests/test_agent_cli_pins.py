"""The agent CLIs are pinned once (scripts/agent-cli-versions.sh): the host install and the image
bundle ask npm for the same versions. The real scripts run, with a recording `npm` first on PATH
(no registry is reached)."""
import os
import re
import subprocess
from pathlib import Path

from .conftest import REPO

FAKE_NPM = """#!/bin/sh
# records its arguments; makes the bins the scripts call afterwards
echo "$*" >> "$NPM_LOG"
prefix=.
while [ $# -gt 0 ]; do [ "$1" = --prefix ] && prefix="$2"; shift; done
mkdir -p "$prefix/node_modules/.bin"
for b in claude codex; do printf '#!/bin/sh\\necho fake-%s\\n' $b > "$prefix/node_modules/.bin/$b"
  chmod +x "$prefix/node_modules/.bin/$b"; done
"""


def pins() -> dict[str, str]:
    text = (REPO / "scripts" / "agent-cli-versions.sh").read_text()
    return dict(re.findall(r'^(\w+_VERSION)="\$\{\w+:-([^}]+)\}"', text, re.M))


def npm_requests(tmp_path: Path, *command: str) -> str:
    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    (fake / "npm").write_text(FAKE_NPM)
    (fake / "npm").chmod(0o755)
    log = tmp_path / "npm.log"
    log.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_VERSION")}
    env.update(PATH=f"{fake}:{os.environ['PATH']}", NPM_LOG=str(log))
    subprocess.run(command, cwd=tmp_path, env=env, check=True, capture_output=True, text=True)
    return log.read_text()


def test_host_install_and_image_bundle_ask_for_the_same_pinned_versions(tmp_path):
    versions = pins()
    assert set(versions) == {"CLAUDE_CODE_VERSION", "CODEX_VERSION"}
    wanted = {f"@anthropic-ai/claude-code@{versions['CLAUDE_CODE_VERSION']}",
              f"@openai/codex@{versions['CODEX_VERSION']}"}
    host = npm_requests(tmp_path, "bash", str(REPO / "scripts" / "install-agents.sh"),
                        "--prefix", str(tmp_path / "agents"))
    image = npm_requests(tmp_path, "sh", str(REPO / "scripts" / "images" / "bundle-agent-clis.sh"),
                         str(tmp_path / "bundle"))
    for requested in (host, image):
        packages = {w for w in requested.split() if w.startswith("@")}
        assert packages == wanted, requested
    assert "latest" not in host + image
