#!/usr/bin/env bash
# The test command: make sure what the suite drives is present, then run it.
#   - the agent CLIs (Claude Code, Codex) from npm into .agents/      (scripts/install-agents.sh)
#   - a docker engine and the gauntlet-cpu image, built offline      (scripts/setup-docker.sh)
#   - Debian's chromium for the view test (Playwright drives it)      (scripts/install-browser.sh)
# Each step is idempotent and fast when already done. Extra arguments go to pytest.
#
#   --quick   the fast tier: no docker, no agent CLIs, nothing installed; the tests marked `quick`
#             (tests/conftest.py QUICK_MODULES and single end-to-end tests), under 10 minutes on a
#             2-core machine. CI runs the full tier (no option): the docker engine's modules in
#             one process beside the rest on two pytest-xdist workers (below).
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
# The modules that drive the one docker engine run in one process, in order (test_zz_after checks
# what they left; a container of another module's run fails test_04_gc), beside the rest on two
# pytest-xdist workers, a module per worker (--dist loadfile; loadgroup does not group under pytest 9:
# 2026-12-02). The serial tier outgrew CI's 90 minutes (98 % at 5,400 s) with the machine a third
# idle. GAUNTLET_TEST_WORKERS=0, or any pytest arguments, runs one process.
PY="${GAUNTLET_VENV:-.venv}/bin/python"
WORKERS=${GAUNTLET_TEST_WORKERS:-2}
if [ $# -gt 0 ] || [ "$WORKERS" = 0 ]; then
    exec "$PY" -m pytest -q -ra --durations=30 "$@"
fi
ENGINE=(tests/docker tests/agents/test_docker_clis.py tests/test_sandbox_conformance.py tests/test_sandbox_redteam.py)
ENGINE_LOG=$(mktemp)
"$PY" -m pytest -q -ra --durations=15 -p no:cacheprovider "${ENGINE[@]}" > "$ENGINE_LOG" 2>&1 &
ENGINE_PID=$!
status=0
"$PY" -m pytest -q -ra --durations=30 -n "$WORKERS" --dist loadfile "${ENGINE[@]/#/--ignore=}" || status=$?
engine_status=0
wait "$ENGINE_PID" || engine_status=$?
echo "== the docker engine's modules (one process, beside the above)"
cat "$ENGINE_LOG"
rm -f "$ENGINE_LOG"
[ "$status" = 0 ] && status=$engine_status
exit "$status"
