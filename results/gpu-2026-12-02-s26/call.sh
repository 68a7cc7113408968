#!/usr/bin/env bash
# Session 26's GPU calls (2026-12-02), any one-GPU kind; carry .whl and .carry.
#   bash results/gpu-2026-12-02-s26/call.sh LEDGER STEP...   STEP: aborts redteam hog sweep
#  aborts   what aborted a baseline runner in session 25 ("invalid device pointer", 3 of 41), again with
#           own blocks never cut at the region's address: the red team's honest, baseline_hog and
#           flush_stride0, and torch2cuda/transpose's oracle three times;
#  redteam  the whole GPU red team (every cheat in bench/judge_gpu.py CHEATS);
#  hog      the red team's device-memory cheats alone (the judge's own allocations beside a hog);
#  hog2     device_memory_hog_late alone (call 3: its second version, which keeps the memory taken);
#  filter   the runner's seccomp filter refusing memfd_create, shmget and msgget (session 26): the red
#           team's honest and invisible_memory, and oracles of a Triton, a CUDA and a torch-extension
#           task (nothing CUDA, Triton or their toolchains run may need them);
#  sweep    oracle and noop of every task a CUDA host runs, through the resumable ledger (CALL_S: the
#           seconds the call may take, 560 unless set).
set -uo pipefail
. bench/gpu_env.sh || exit 1
call_start /tmp/n26 "${1:?a ledger path under results/}"; shift
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
    filter)
      timeout $(left 450 130) python3 -u bench/judge_gpu.py redteam --out $L/fi --cheats honest invisible_memory > $L/fi.txt 2>&1
      echo "filter/redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/fi.txt | cut -c1-700
      timeout $(left 450 200) python3 -u bench/judge_gpu.py fidelity --out $L/fo --tasks triton2triton/softmax cuda2cuda/argmax \
        torch2cuda/attention_decode --agents oracle > $L/fo.txt 2>&1
      echo "filter/oracles rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)|ok=False" $L/fo.txt | cut -c1-600
      grep -rh "fork filter\|fork_filter" $L/fi $L/fo 2>/dev/null | sort | uniq -c | head -5;;
    hog2)
      timeout $(left 450 170) python3 -u bench/judge_gpu.py redteam --out $L/hog2 --cheats device_memory_hog_late > $L/hog2.txt 2>&1
      echo "hog2 rc=$? at ${SECONDS}s"; grep -E "correct=" $L/hog2.txt | cut -c1-900
      grep -h 'harness_error\|task_error' $L/hog2/*.json 2>/dev/null | cut -c1-300 | head -4
      grep -ho "the judge's own step[^\"]*" $L/hog2/*.json 2>/dev/null | cut -c1-400 | head -3;;
    sweep)
      call_sweep;;
  esac
done
tar czf $OUT/records.tgz -C /tmp n26 2>/dev/null; echo "wall ${SECONDS}s"
