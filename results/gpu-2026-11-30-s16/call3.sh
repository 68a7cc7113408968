#!/usr/bin/env bash
# Session 16, call 3, on nvidia-h200-x2 (the rest of this session's device time, ~470 s):
#  GPU 0: issue 30's overhead on cuda2cuda/softmax (session 15: +36.7 % alone), with session 15's
#         changes (tree-walk thaw, stand-in clock at build), then the headline ledger, shard 0/2;
#  GPU 1: the headline ledger, shard 1/2 (oracles, noop on X->X, clock_short's new margin).
# The ledger continues call 2's (50 of 93), less torch2cuda/dequantize_int8's session-15 line
# (its clock_short came before the baseline-gap fix): that task runs again under the new margin.
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/n3; mkdir -p $L
record_env
grep -v '"torch2cuda/dequantize_int8"' results/gpu-2026-11-30-s16/headline-standin.jsonl > $OUT/headline-standin.jsonl
( CUDA_VISIBLE_DEVICES=0 timeout $(left 465 150) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old \
    --tasks cuda2cuda/softmax > $L/ov.txt 2>&1
  echo "overhead rc=$? at ${SECONDS}s"
  CUDA_VISIBLE_DEVICES=0 timeout $(left 465 465) python3 -u bench/judge_gpu.py fidelity --out $L/head0 --suite headline \
    --shard 0/2 --ledger $OUT/headline-standin.jsonl > $L/head0.txt 2>&1 ) &
CUDA_VISIBLE_DEVICES=1 timeout $(left 465 465) python3 -u bench/judge_gpu.py fidelity --out $L/head1 --suite headline \
  --shard 1/2 --ledger $OUT/headline-standin.jsonl > $L/head1.txt 2>&1 &
wait; echo "done at ${SECONDS}s"
grep -E "'ratio'|total_s" $L/ov.txt | cut -c1-160
grep -hE "^\S+/\S+ +(oracle|noop)" $L/head0.txt $L/head1.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp n3 2>/dev/null; echo "wall ${SECONDS}s"
