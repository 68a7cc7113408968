#!/usr/bin/env bash
# Session 22's third GPU call (2026-12-01, nvidia-h200); carry .whl and .carry.
#   bash results/gpu-2026-12-01-s22/witness.sh LEDGER
# The DRAM witness after its fix (both runners' batches read in one pass: call 2 read the
# baseline's first and dropped the samples under the candidate's interleaved batches): the honest
# control and flush_aliased; then the runner abort of call 2 (torch2cuda/groupnorm's baseline
# runner, SIGABRT in own_blocks.prune's empty_cache at its second config) bisected: as in call 2,
# without the witness, without own blocks; then the sweep through the ledger with what is left.
set -uo pipefail
. bench/gpu_env.sh || exit 1
LEDGER=${1:?a ledger path under results/}
L=/tmp/n22w; rm -rf $L; mkdir -p $L
record_env
cp "$LEDGER" $OUT/ 2>/dev/null || touch $OUT/$(basename "$LEDGER")
LED=$OUT/$(basename "$LEDGER")
timeout 150 python3 -u bench/judge_gpu.py redteam --out $L/rt --cheats honest flush_aliased > $L/rt.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/rt.txt | cut -c1-300
grep -h '"dram' $L/rt/*.trace.jsonl | cut -c1-400
grep -ho "l2_flush: the device's DRAM[^\"]*" $L/rt/red-flush_aliased.json | sort -u | head -3
for v in default nowitness noownblocks; do
  case $v in
    default) env=; extra=;;
    nowitness) env="GAUNTLET_DRAM_WITNESS=0"; extra=;;
    noownblocks) env=; extra="--eval-args=--no-own-blocks";;
  esac
  env $env timeout 60 python3 -u bench/judge_gpu.py fidelity --out $L/gn-$v --tasks torch2cuda/groupnorm \
    --agents oracle $extra > $L/gn-$v.txt 2>&1
  echo "groupnorm $v rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +oracle" $L/gn-$v.txt | cut -c1-600
done
timeout $(left 470 470) python3 -u bench/judge_gpu.py fidelity --out $L/su --tasks-root tasks \
  --agents oracle noop --ledger $LED > $L/su.txt 2>&1
echo "sweep rc=$? at ${SECONDS}s"
grep -hE "^\S+/\S+ +(oracle|noop)" $L/su.txt | cut -c1-250
echo "ledger lines: $(grep -c . $LED)"
grep -h "l2_flush: the device's DRAM\|DRAM witness" $L/su/*.json 2>/dev/null | sort | uniq -c | head
tar czf $OUT/records.tgz -C /tmp n22w 2>/dev/null; echo "wall ${SECONDS}s"
