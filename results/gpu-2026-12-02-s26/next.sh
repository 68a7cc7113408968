#!/usr/bin/env bash
# The next session's GPU calls, written in session 26 (not yet run); any one-GPU kind; carry .whl and .carry.
#   bash results/gpu-2026-12-02-s26/next.sh LEDGER STEP...   STEP: pinned starved busy unflushed redteam sweep
#  pinned   pinned_host_hog alone (host memory pinned past half the host): the runner guard must kill
#           it (the candidate's failure, `harness_error` null). Alone and first: should the guard not
#           hold, the host's OOM killer may take this call's own processes;
#  starved  witness_starved (the host's cores kept busy): is the DRAM witness lost (an infra_error)?
#           Since session 27 the sampler runs on the judge's cores (isolation.judge_cores): expected
#           correct, flagged thread_injection, no harness fault, environment.judge_cores set;
#  busy     bench/busy_probe.py (session 27's addition): do the SMs' and engine's activity counters,
#           sampled from the judge's process, match the kernel time a trace records? (the outside
#           witness for a trace silenced selectively: docs/evaluation.md, "Records the candidate can silence");
#  unflushed the DRAM differential (GAUNTLET_DRAM_UNFLUSHED=1) on flush_aliased_bulky, flush_aliased
#           and honest: the bulky one is only the differential's to catch; honest must stay unflagged;
#  redteam  the whole GPU red team (every cheat in bench/judge_gpu.py CHEATS, the two above included);
#  sweep    oracle and noop of every task a CUDA host runs, through the resumable ledger (CALL_S: the
#           seconds the call may take, 560 unless set).
# On an H100: results/gpu-2026-11-30-s19/next-h100.sh (issue 30's done-when) first.
set -uo pipefail
. bench/gpu_env.sh || exit 1
call_start /tmp/next "${1:?a ledger path under results/}"; shift
for step in "$@"; do
  case $step in
    pinned|starved)
      cheat=$([ $step = pinned ] && echo pinned_host_hog || echo witness_starved)
      timeout $(left ${CALL_S:-560} 240) python3 -u bench/judge_gpu.py redteam --out $L/$step --cheats $cheat > $L/$step.txt 2>&1
      echo "$step rc=$? at ${SECONDS}s"; grep -E "correct=" $L/$step.txt | cut -c1-900
      grep -h '"harness_error"\|"task_error"' $L/$step/*.json 2>/dev/null | cut -c1-300 | head -4;;
    busy)
      timeout $(left ${CALL_S:-560} 120) python3 -u bench/busy_probe.py --out $L/busy > $L/busy.txt 2>&1
      echo "busy rc=$? at ${SECONDS}s"; tail -30 $L/busy.txt | cut -c1-300;;
    unflushed)
      GAUNTLET_DRAM_UNFLUSHED=1 timeout $(left ${CALL_S:-560} 240) python3 -u bench/judge_gpu.py redteam \
        --out $L/unflushed --cheats flush_aliased_bulky flush_aliased honest > $L/unflushed.txt 2>&1
      echo "unflushed rc=$? at ${SECONDS}s"; grep -E "correct=" $L/unflushed.txt | cut -c1-600;;
    redteam)
      timeout $(left ${CALL_S:-560} 540) python3 -u bench/judge_gpu.py redteam --out $L/rt > $L/rt.txt 2>&1
      echo "redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/rt.txt | cut -c1-400;;
    sweep)
      call_sweep;;
  esac
done
tar czf $OUT/records.tgz -C /tmp next 2>/dev/null; echo "wall ${SECONDS}s"
