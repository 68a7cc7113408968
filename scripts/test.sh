#!/usr/bin/env bash
# The test command: make sure what the suite drives is present, then run it.
#   - the agent CLIs (Claude Code, Codex) from npm into .agents/      (scripts/install-agents.sh)
#   - a docker engine and the gauntlet-cpu image, built offline      (scripts/setup-docker.sh)
#   - Debian's chromium for the view test (Playwright drives it)      (scripts/install-browser.sh)
# Each step is idempotent and fast when already done. Extra arguments go to pytest.
#
#   --quick   the fast tier: no docker, no agent CLIs, nothing installed; the tests marked `quick`
#             (tests/conftest.py QUICK_MODULES and single end-to-end tests), under 10 minutes on a
#             2-core machine. CI runs the full tier (no option): on two pytest-xdist workers
#             (GAUNTLET_TEST_WORKERS=0 runs it in one process).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--quick" ]; then
    shift
    exec "${GAUNTLET_VENV:-.venv}/bin/python" -m pytest -q -ra -m "quick and not docker and not slow" "$@"
fi
bash scripts/install-agents.sh
bash scripts/setup-docker.sh
bash scripts/install-browser.sh
# --durations: the slowest tests named in every full run, so CI time is watched where it is spent.
# Two workers (GAUNTLET_TEST_WORKERS; 0: one process), each module on one, the docker engine's
# modules together (tests/conftest.py _xdist_group).
WORKERS=${GAUNTLET_TEST_WORKERS:-2}
PARALLEL=()
[ "$WORKERS" != 0 ] && PARALLEL=(-n "$WORKERS" --dist loadgroup)
exec "${GAUNTLET_VENV:-.venv}/bin/python" -m pytest -q -ra --durations=30 "${PARALLEL[@]}" "$@"
