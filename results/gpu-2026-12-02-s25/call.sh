#!/usr/bin/env bash
# Session 25's GPU calls (2026-12-02), any one-GPU kind; carry .whl and .carry.
#   bash results/gpu-2026-12-02-s25/call.sh LEDGER STEP...   STEP: smoke redteam sweep
#  smoke    the red team's honest control and device_memory_hog alone: the first evaluations on a GPU
#           with the runner limits of sessions 23-24 (sized /tmp and /dev/shm tmpfs, /dev remounted
#           read-only after the GPU nodes are bound, prlimit/choom before exec, the runner's cgroup);
#  redteam  the whole GPU red team (every cheat in bench/judge_gpu.py CHEATS);
#  orphan   bench/sampler_orphan.py: the DRAM sampler dies with a judge killed by SIGKILL, and a new one
#           starts (call 3's sweep ran without its witness: the red team's timeout had orphaned one);
#  transpose torch2cuda/transpose's oracle three times (call 3: its baseline runner aborted on
#           rows40009-cols333, "invalid device pointer" freed through the caching allocator);
#  sweep    oracle and noop of every task a CUDA host runs, through the resumable ledger.
set -uo pipefail
. bench/gpu_env.sh || exit 1
LEDGER=${1:?a ledger path under results/}; shift
L=/tmp/n25; rm -rf $L; mkdir -p $L
record_env
cp "$LEDGER" $OUT/ 2>/dev/null || touch $OUT/$(basename "$LEDGER")
LED=$OUT/$(basename "$LEDGER")
for step in "$@"; do
  case $step in
    smoke)
      timeout $(left 560 240) python3 -u bench/judge_gpu.py redteam --out $L/sm --cheats honest device_memory_hog > $L/sm.txt 2>&1
      echo "smoke rc=$? at ${SECONDS}s"; grep -E "correct=" $L/sm.txt | cut -c1-700
      grep -h '"candidate_runner_limits"\|harness_error' $L/sm/*.json 2>/dev/null | cut -c1-300 | head -6
      tail -5 $L/sm.txt | cut -c1-400;;
    redteam)
      timeout $(left 560 540) python3 -u bench/judge_gpu.py redteam --out $L/rt > $L/rt.txt 2>&1
      echo "redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/rt.txt | cut -c1-400;;
    orphan)
      timeout 90 python3 -u bench/sampler_orphan.py --out $L/orphan > $L/orphan.txt 2>&1
      echo "orphan rc=$? at ${SECONDS}s"; tail -5 $L/orphan.txt;;
    transpose)
      timeout $(left 560 300) python3 -u bench/judge_gpu.py fidelity --out $L/tr --tasks torch2cuda/transpose torch2cuda/transpose torch2cuda/transpose \
        --agents oracle > $L/tr.txt 2>&1
      echo "transpose rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)|ok=False" $L/tr.txt | cut -c1-1500;;
    sweep)
      timeout $(left 560 560) python3 -u bench/judge_gpu.py fidelity --out $L/su --tasks-root tasks \
        --agents oracle noop --ledger $LED > $L/su.txt 2>&1
      echo "sweep rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)" $L/su.txt | cut -c1-250
      echo "ledger lines: $(grep -c . $LED)";;
  esac
done
tar czf $OUT/records.tgz -C /tmp n25 2>/dev/null; echo "wall ${SECONDS}s"
