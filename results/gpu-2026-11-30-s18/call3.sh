#!/usr/bin/env bash
# Session 18 GPU call 3, one H200 (nvidia-h200); carry .whl, .carry, .aka. Call 2: with the
# flusher held off through timed batches the trace's host cost fell from +299 to +98 us a call,
# and triton2triton/softmax's overhead read +25.3 % and +20.2 %; of what is left, the clean room's
# stand-in is about 1.2 s, 0.5-0.6 s of it its warm-up (its first batch in a fresh process). Each
# runner now reports where its first timed batch's time went ("first batch: ..." phases):
#  1. the overhead on triton2triton/softmax twice more, with those phases;
#  2. what time is left (about 400 s): the X->X noops' ledger.
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/n3; mkdir -p $L
D=$(dirname "$0")
record_env
timeout $(left 490 110) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old --same-tasks \
  --tasks triton2triton/softmax triton2triton/softmax > $L/ov.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -E "'ratio'" $L/ov.txt | cut -c1-120
cp $D/noop-ledger.jsonl $OUT/
XX=$(cd tasks && ls -d cuda2cuda/* triton2triton/* | tr '\n' ' ')
timeout $(left 490 490) python3 -u bench/judge_gpu.py fidelity --out $L/noop --agents noop --tasks $XX \
  --ledger $OUT/noop-ledger.jsonl > $L/noop.txt 2>&1
echo "noop rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)" $L/noop.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp n3 2>/dev/null; echo "wall ${SECONDS}s"
