#!/usr/bin/env bash
# Issue 30's "done when" on an H100, whenever one is lent (written 2026-11-30, session 19; no H100
# has been lent since session 16). Carry .whl, .carry, .aka. Run as often as device time allows:
#   bash results/gpu-2026-11-30-s19/next-h100.sh LEDGER [redteam]
#  - with `redteam`: the whole GPU red team first (18 cheats, flush_on_inputs among them, and the
#    honest control; about 450 s on an H200) — the red-team half of the "done when";
#  - then oracle and noop over the built-in suite (every task a CUDA host runs), one ledger line per
#    evaluation appended to LEDGER (commit it under results/ after each call): what the ledger
#    already holds is skipped, so the suite is timed over as many calls and sessions as it takes.
#    On nvidia-h200-x2-like kinds of H100s, one process per GPU: --shard K/N.
set -uo pipefail
. bench/gpu_env.sh || exit 1
LEDGER=${1:?a ledger path under results/}
L=/tmp/h1; mkdir -p $L
record_env
if [ "${2:-}" = redteam ]; then
  timeout $(left 570 480) python3 -u bench/judge_gpu.py redteam --out $L/rt > $L/rt.txt 2>&1
  echo "redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/rt.txt | cut -c1-400
fi
cp "$LEDGER" $OUT/ 2>/dev/null || touch $OUT/$(basename "$LEDGER")
timeout $(left 570 570) python3 -u bench/judge_gpu.py fidelity --out $L/suite --tasks-root tasks --agents oracle noop \
  --ledger $OUT/$(basename "$LEDGER") > $L/suite.txt 2>&1
echo "suite rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)" $L/suite.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp h1 2>/dev/null; echo "wall ${SECONDS}s"
