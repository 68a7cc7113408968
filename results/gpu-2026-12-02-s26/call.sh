#!/usr/bin/env bash
# Session 26's GPU calls (2026-12-02), any one-GPU kind; carry .whl and .carry.
#   bash results/gpu-2026-12-02-s26/call.sh LEDGER STEP...   STEP: aborts redteam hog sweep
#  aborts   what aborted a baseline runner in session 25 ("invalid device pointer", 3 of 41), again with
#           own blocks never cut at the region's address: the red team's honest, baseline_hog and
#           flush_stride0, and torch2cuda/transpose's oracle three times;
#  redteam  the whole GPU red team (every cheat in bench/judge_gpu.py CHEATS);
#  hog      the red team's device-memory cheats alone (the judge's own allocations beside a hog);
#  sweep    oracle and noop of every task a CUDA host runs, through the resumable ledger.
set -uo pipefail
. bench/gpu_env.sh || exit 1
LEDGER=${1:?a ledger path under results/}; shift
L=/tmp/n26; rm -rf $L; mkdir -p $L
record_env
cp "$LEDGER" $OUT/ 2>/dev/null || touch $OUT/$(basename "$LEDGER")
LED=$OUT/$(basename "$LEDGER")
for step in "$@"; do
  case $step in
    aborts)
      timeout $(left 560 200) python3 -u bench/judge_gpu.py redteam --out $L/ab --cheats honest baseline_hog flush_stride0 > $L/ab.txt 2>&1
      echo "aborts/redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/ab.txt | cut -c1-500
      timeout $(left 560 200) python3 -u bench/judge_gpu.py fidelity --out $L/tr --tasks torch2cuda/transpose torch2cuda/transpose torch2cuda/transpose \
        --agents oracle > $L/tr.txt 2>&1
      echo "aborts/transpose rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)|ok=False" $L/tr.txt | cut -c1-600
      echo "invalid device pointer: $(grep -rl 'invalid device pointer' $L 2>/dev/null | wc -l) files";;
    redteam)
      timeout $(left 560 540) python3 -u bench/judge_gpu.py redteam --out $L/rt > $L/rt.txt 2>&1
      echo "redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/rt.txt | cut -c1-400;;
    hog)
      timeout $(left 560 240) python3 -u bench/judge_gpu.py redteam --out $L/hog --cheats honest device_memory_hog device_memory_hog_late > $L/hog.txt 2>&1
      echo "hog rc=$? at ${SECONDS}s"; grep -E "correct=" $L/hog.txt | cut -c1-700
      grep -h 'harness_error' $L/hog/*.json 2>/dev/null | cut -c1-300 | head -6;;
    sweep)
      timeout $(left 560 560) python3 -u bench/judge_gpu.py fidelity --out $L/su --tasks-root tasks \
        --agents oracle noop --ledger $LED > $L/su.txt 2>&1
      echo "sweep rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)" $L/su.txt | cut -c1-250
      echo "invalid device pointer: $(grep -rl 'invalid device pointer' $L 2>/dev/null | wc -l) files"
      echo "ledger lines: $(grep -c . $LED)";;
  esac
done
tar czf $OUT/records.tgz -C /tmp n26 2>/dev/null; echo "wall ${SECONDS}s"
