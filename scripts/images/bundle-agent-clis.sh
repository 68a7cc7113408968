#!/bin/sh
# Host side, before an offline image build: npm-install the agent CLIs into a folder that the
# Dockerfiles COPY (builds run with network none, so nothing is installed at build or trial time).
#   scripts/images/bundle-agent-clis.sh OUT_DIR
# Versions: the pins of scripts/agent-cli-versions.sh, the same as the host's scripts/install-agents.sh
# (recorded in OUT_DIR/versions.txt so the image manifest and the bundle agree). Linux x86-64 glibc.
set -eu
out="${1:?usage: bundle-agent-clis.sh OUT_DIR}"
. "$(cd "$(dirname "$0")/.." && pwd)/agent-cli-versions.sh"
claude="@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}"
codex="@openai/codex@${CODEX_VERSION}"
mkdir -p "$out"
echo "bundle-agent-clis: npm install $claude $codex -> $out"
cd "$out"
[ -f package.json ] || echo '{"name":"gauntlet-agent-clis","private":true}' > package.json
npm install --no-audit --no-fund --no-update-notifier --os=linux --cpu=x64 "$claude" "$codex" >npm-install.log 2>&1 \
    || { tail -20 npm-install.log >&2; exit 1; }
npm ls --depth=0 2>/dev/null | tee versions.txt
