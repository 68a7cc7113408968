#!/usr/bin/env bash
# The test command: make sure what the suite drives is present, then run it.
#   - the agent CLIs (Claude Code, Codex) from npm into .agents/      (scripts/install-agents.sh)
#   - a docker engine and the gauntlet-cpu image, built offline      (scripts/setup-docker.sh)
#   - Debian's chromium for the view test (Playwright drives it)      (scripts/install-browser.sh)
# Each step is idempotent and fast when already done. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-agents.sh
bash scripts/setup-docker.sh
bash scripts/install-browser.sh
exec "${GAUNTLET_VENV:-.venv}/bin/python" -m pytest -q -ra "$@"
