#!/usr/bin/env bash
# Session 18 GPU call 1 (written 2026-11-30 in session 17 as next-call1.sh). Run with this
# folder's headline-standin.jsonl and noop-ledger.jsonl; carry .whl, .carry, .aka.
# One H200 (nvidia-h200). Each step time-boxed by what is left of 575 s:
#  1. why the clean room's stand-in dies (results/gpu-2026-11-30-s17.md): bench/standin_probe.py on
#     triton2triton/softmax, the judge as shipped (now with the runner's exit status and crash stack
#     in the note, and the cache copy that no longer rewrites held files), and patched four ways
#     (the stand-in's clock at its first batch; no cache copy; not frozen after its build; the old
#     thaw), and cuda2cuda/gelu's noop as shipped and with the clock at the first batch (its 2.4 us
#     calls read 1.05x in session 17: does the stand-in's clock, made beside the baseline's first
#     batch, move them?). Read stand_in_notes: empty where the stand-in worked;
#  2. the overhead on triton2triton/softmax, both evaluators on this tree's tasks (not reached in
#     session 17's call 1);
#  3. what time is left: the X->X noops' ledger (the 35 triton2triton noops left).
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/n1; mkdir -p $L
D=$(dirname "$0")
record_env
timeout $(left 575 300) python3 -u bench/standin_probe.py --out $L/sp > $L/sp.txt 2>&1
echo "standin_probe rc=$? at ${SECONDS}s"; cut -c1-700 $L/sp.txt
timeout $(left 575 130) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old --same-tasks \
  --tasks triton2triton/softmax triton2triton/softmax > $L/ov.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -E "'ratio'" $L/ov.txt | cut -c1-120
cp $D/headline-standin.jsonl $D/noop-ledger.jsonl $OUT/
XX=$(cd tasks && ls -d cuda2cuda/* triton2triton/* | tr '\n' ' ')
timeout $(left 575 575) python3 -u bench/judge_gpu.py fidelity --out $L/noop --agents noop --tasks $XX \
  --ledger $OUT/noop-ledger.jsonl > $L/noop.txt 2>&1
echo "noop rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)" $L/noop.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp n1 2>/dev/null; echo "wall ${SECONDS}s"
