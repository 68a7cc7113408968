#!/usr/bin/env bash
# Session 21's GPU calls (2026-12-01), on nvidia-h200 (one H200: no two-GPU kind was lent); carry
# .whl and .carry. next-x2.sh of session 20 for one GPU: with `redteam`, the whole GPU red team
# first (19 cheats, flush_stride0 new, own blocks on: the first red team so), then oracle and noop
# of every task a CUDA host runs, in order, through the resumable ledger (suite.jsonl, seeded with
# session 20's 65 good noops).
#   [BUDGET=seconds] bash results/gpu-2026-12-01-s21/call.sh LEDGER [redteam]
# (calls 1 and 2 ran with the sweep's budget at 565 s, call 3 at 540, the default; next.sh hands it
# what its call has left)
set -uo pipefail
. bench/gpu_env.sh || exit 1
LEDGER=${1:?a ledger path under results/}
L=/tmp/n; mkdir -p $L
record_env
cp "$LEDGER" $OUT/ 2>/dev/null || touch $OUT/$(basename "$LEDGER")
LED=$OUT/$(basename "$LEDGER")
if [ "${2:-}" = redteam ]; then
  timeout $(left 560 480) python3 -u bench/judge_gpu.py redteam --out $L/rt > $L/rt.txt 2>&1
  echo "redteam rc=$? at ${SECONDS}s"
  grep -E "correct=" $L/rt.txt | cut -c1-400
fi
timeout $(left 565 565) python3 -u bench/judge_gpu.py fidelity --out $L/su --tasks-root tasks \
  --agents oracle noop --ledger $LED > $L/su.txt 2>&1
echo "sweep rc=$? at ${SECONDS}s"
grep -hE "^\S+/\S+ +(oracle|noop)" $L/su.txt | cut -c1-300
echo "ledger lines: $(grep -c . $LED)"
tar czf $OUT/records.tgz -C /tmp n 2>/dev/null; echo "wall ${SECONDS}s"
