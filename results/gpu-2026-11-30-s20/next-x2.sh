#!/usr/bin/env bash
# The next session's GPU calls (written 2026-11-30, session 20), on nvidia-h200-x2 (two H200s) or
# an H100 pair; carry .whl, .carry, .aka. Own blocks are on for GPUs since session 20; what has not
# run with them: the whole red team, and the oracles (a Python kernel's own outputs are cut from its
# runner's region there too). So:
#   bash results/gpu-2026-11-30-s20/next-x2.sh LEDGER [redteam]
#  - with `redteam`: GPU 0 runs the whole GPU red team first (19 cheats, flush_stride0 new, and the honest control,
#    ~450 s on one H200), then joins the sweep;
#  - the sweep: oracle and noop of every task a CUDA host runs, one process per GPU (--shard K/2),
#    one ledger line per evaluation (what LEDGER holds is skipped: start from suite-seed.jsonl,
#    session 20's 65 good noops; commit LEDGER under results/ after each call). About 170 oracles:
#    four or five calls. Read it with: grep -c . LEDGER; and harness_faults / flags per line; the noops with bench/noop_floor.py --detail.
set -uo pipefail
. bench/gpu_env.sh || exit 1
LEDGER=${1:?a ledger path under results/}
L=/tmp/n; mkdir -p $L
record_env
nvidia-smi -L
cp "$LEDGER" $OUT/ 2>/dev/null || touch $OUT/$(basename "$LEDGER")
LED=$OUT/$(basename "$LEDGER")
( if [ "${2:-}" = redteam ]; then
    CUDA_VISIBLE_DEVICES=0 timeout $(left 560 480) python3 -u bench/judge_gpu.py redteam --out $L/rt > $L/rt.txt 2>&1
    echo "redteam rc=$? at ${SECONDS}s"
  fi
  CUDA_VISIBLE_DEVICES=0 timeout $(left 560 560) python3 -u bench/judge_gpu.py fidelity --out $L/su0 --tasks-root tasks \
    --agents oracle noop --shard 0/2 --ledger $LED > $L/su0.txt 2>&1
  echo "shard 0 rc=$? at ${SECONDS}s" ) &
( CUDA_VISIBLE_DEVICES=1 timeout $(left 560 560) python3 -u bench/judge_gpu.py fidelity --out $L/su1 --tasks-root tasks \
    --agents oracle noop --shard 1/2 --ledger $LED > $L/su1.txt 2>&1
  echo "shard 1 rc=$? at ${SECONDS}s" ) &
wait
[ -f $L/rt.txt ] && grep -E "correct=" $L/rt.txt | cut -c1-400
grep -hE "^\S+/\S+ +(oracle|noop)" $L/su0.txt $L/su1.txt | cut -c1-300
echo "ledger lines: $(grep -c . $LED)"
tar czf $OUT/records.tgz -C /tmp n 2>/dev/null; echo "wall ${SECONDS}s"
