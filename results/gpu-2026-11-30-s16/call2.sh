#!/usr/bin/env bash
# The next session's GPU call 2 (written 2026-11-30, session 15; run in session 16), on nvidia-h200-x2: the headline
# suite's oracles (noop on X->X) with the stand-in and clock_short's new margin, continuing this
# session's ledger (25 of 93 done; no flag expected), one shard per GPU.
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/n2; mkdir -p $L
record_env
cp results/gpu-2026-11-30-s15/headline-standin.jsonl $OUT/headline-standin.jsonl
for k in 0 1; do
  CUDA_VISIBLE_DEVICES=$k timeout $(left 570 570) python3 -u bench/judge_gpu.py fidelity --out $L/head$k --suite headline \
    --shard $k/2 --ledger $OUT/headline-standin.jsonl > $L/head$k.txt 2>&1 &
done
wait; echo "shards done at ${SECONDS}s"
grep -hE "^\S+/\S+ +(oracle|noop)" $L/head0.txt $L/head1.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp n2 2>/dev/null; echo "wall ${SECONDS}s"
