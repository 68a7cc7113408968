# The agent CLI versions Gauntlet pins: the one list, sourced by scripts/install-agents.sh (the host's
# .agents/) and scripts/images/bundle-agent-clis.sh (the bundle the images copy), so a host and an image
# run the same CLI. Bump here, then rerun `gauntlet agents check claude-code` / `codex`.
# An environment variable of the same name overrides a pin for one install.
CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.330}"
CODEX_VERSION="${CODEX_VERSION:-0.169.0}"
