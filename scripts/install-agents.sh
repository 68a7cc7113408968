#!/usr/bin/env bash
# Install the agent CLIs Gauntlet drives (Claude Code, Codex) into a repo-local folder:
#   .agents/node_modules/.bin/{claude,codex}
# Pinned versions: scripts/agent-cli-versions.sh (shared with the image builds).
# Cursor's CLI is not an npm package (curl https://cursor.com/install | bash); it is not installed here.
#
# Usage: scripts/install-agents.sh [--prefix DIR]     (default: <repo>/.agents)
# Then:  export PATH="$PWD/.agents/node_modules/.bin:$PATH"   (gauntlet also looks there by itself)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$repo/scripts/agent-cli-versions.sh"
prefix="$repo/.agents"
if [[ "${1:-}" == "--prefix" ]]; then prefix="$2"; fi

command -v npm >/dev/null || { echo "install-agents: npm is not installed (apt-get install nodejs npm, or nodesource)" >&2; exit 1; }
mkdir -p "$prefix"
[[ -f "$prefix/package.json" ]] || echo '{"name":"gauntlet-agents","private":true}' > "$prefix/package.json"

# --no-fund/--no-audit: no extra registry traffic. Claude Code declares engines.node >=22 but ships a
# native binary (optionalDependencies, copied into place by its postinstall), so an older node only warns.
npm install --prefix "$prefix" --no-fund --no-audit --no-save --loglevel=error \
  "@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}" "@openai/codex@${CODEX_VERSION}"
# --no-save keeps package.json free of versions: scripts/agent-cli-versions.sh is the one place they are pinned.

bin="$prefix/node_modules/.bin"
echo "claude: $("$bin/claude" --version 2>&1 | head -1)"
echo "codex:  $("$bin/codex" --version 2>&1 | head -1)"
echo "add to PATH: export PATH=\"$bin:\$PATH\""
