#!/usr/bin/env bash
# Session 22's GPU calls (2026-12-01), on nvidia-h200 (one H200); carry .whl and .carry.
#   bash results/gpu-2026-12-01-s22/call.sh LEDGER [witness]
# With `witness`: first bench/dram_probe.py at 100 us and 20 us (the harness's flush now a pure
# int32 read: its kernels and DRAM bytes; the samples' coverage; the sampler's clock pairs), then
# the red team's flush cheats beside the honest control with the judge's DRAM witness on (judge/dram.py;
# each config's per-call DRAM reads are in the trace's "dram" lines). Then oracle and noop of every
# task a CUDA host runs, in order, through the resumable ledger (call.sh of session 21).
set -uo pipefail
. bench/gpu_env.sh || exit 1
LEDGER=${1:?a ledger path under results/}
L=/tmp/n22; rm -rf $L; mkdir -p $L
record_env
cp "$LEDGER" $OUT/ 2>/dev/null || touch $OUT/$(basename "$LEDGER")
LED=$OUT/$(basename "$LEDGER")
if [ "${2:-}" = witness ]; then
  timeout 150 python3 -u bench/dram_probe.py --out $OUT/dram --intervals 100000 20000 > $OUT/dram.txt 2>&1
  echo "dram probe rc=$? at ${SECONDS}s"; grep -E "^(100000|20000) |^list:|rror" $OUT/dram.txt | cut -c1-1600
  rm -f $OUT/dram/pm_metrics.txt; rm -rf $OUT/dram/cache
  timeout 330 python3 -u bench/judge_gpu.py redteam --out $L/rt \
    --cheats honest flush_aliased flush_stride0 flush_on_inputs skipped_l2_flush > $L/rt.txt 2>&1
  echo "redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/rt.txt | cut -c1-700
  grep -h '"dram' $L/rt/*.trace.jsonl | cut -c1-700 | head -40
fi
timeout $(left 545 545) python3 -u bench/judge_gpu.py fidelity --out $L/su --tasks-root tasks \
  --agents oracle noop --ledger $LED > $L/su.txt 2>&1
echo "sweep rc=$? at ${SECONDS}s"
grep -hE "^\S+/\S+ +(oracle|noop)" $L/su.txt | cut -c1-300
echo "ledger lines: $(grep -c . $LED)"
grep -h '"dram' $L/su/*.trace.jsonl 2>/dev/null | cut -c1-300 | head -30
tar czf $OUT/records.tgz -C /tmp n22 2>/dev/null; echo "wall ${SECONDS}s"
