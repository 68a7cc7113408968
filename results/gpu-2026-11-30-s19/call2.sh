#!/usr/bin/env bash
# Session 19 GPU call 2 (written in session 18 as next-call2.sh), on one H200 or an H100; carry
# .whl, .carry, .aka. Session 18's last code (a18c3a4: the trace's flush held through each timed
# batch, a lock so a hold waits out a flush under way; the offset rule's agreement) has not run a
# cheat on a GPU: the records of the runner's batches now reach the judge at each batch's forced
# flush only. So:
#  1. the whole GPU red team (bench/judge_gpu.py redteam): every cheat rejected, honest unflagged;
#  2. the overhead on triton2triton/softmax twice (with the lock), both evaluators on this tree's tasks.
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/n2; mkdir -p $L
record_env
timeout $(left 575 400) python3 -u bench/judge_gpu.py redteam --out $L/rt > $L/rt.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/rt.txt | cut -c1-300
timeout $(left 575 160) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old --same-tasks \
  --tasks triton2triton/softmax triton2triton/softmax > $L/ov.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -E "'ratio'" $L/ov.txt | cut -c1-120
tar czf $OUT/records.tgz -C /tmp n2 2>/dev/null; echo "wall ${SECONDS}s"
