#!/usr/bin/env bash
# Session 15, call 2 (2026-11-30), on nvidia-h200-x2. Carry .whl, .carry and .aka (bench/prepare_carry.sh).
#  GPU 0: issue 30's overhead limit (+20 % against e9f494d), which session 14 read at +17.9 % from one
#         evaluation each: two tasks, each twice, old and new alternating; then the headline shard 0/2.
#  GPU 1: the headline suite's oracles (noop on X->X) with the clean room's stand-in, shard 1/2,
#         continuing call 1's ledger (no flag expected).
# The two GPUs' jobs run at once (32 cores): the overhead figures are read beside one other evaluation.
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/c2; mkdir -p $L
record_env
cp results/gpu-2026-11-30-s15/headline-standin.jsonl $OUT/headline-standin.jsonl
CUDA_VISIBLE_DEVICES=1 timeout $(left 570 570) python3 -u bench/judge_gpu.py fidelity --out $L/head1 --suite headline \
  --shard 1/2 --ledger $OUT/headline-standin.jsonl > $L/head1.txt 2>&1 &
CUDA_VISIBLE_DEVICES=0 timeout $(left 570 280) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old \
  --tasks triton2triton/softmax cuda2cuda/softmax triton2triton/softmax cuda2cuda/softmax > $L/ov.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -E "ratio|total_s" $L/ov.txt | cut -c1-260
CUDA_VISIBLE_DEVICES=0 timeout $(left 570 570) python3 -u bench/judge_gpu.py fidelity --out $L/head0 --suite headline \
  --shard 0/2 --ledger $OUT/headline-standin.jsonl > $L/head0.txt 2>&1
echo "shard 0 rc=$? at ${SECONDS}s"; wait; echo "shard 1 done at ${SECONDS}s"
grep -hE "^\S+/\S+ +(oracle|noop)" $L/head0.txt $L/head1.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp c2 2>/dev/null; echo "wall ${SECONDS}s"
