#!/usr/bin/env bash
# Session 20, calls 2 and 3, on nvidia-h200-x2 (two H200s of one host); carry .whl, .carry, .aka.
#   bash results/gpu-2026-11-30-s20/sweep.sh LEDGER [overhead]
# policy.OWN_BLOCKS is on for GPUs from this session (call 1: scatter_add's noop 0.15 % median,
# 0.70 % worst with --own-blocks, 10.7 % worst without). So the noop of every X->X task a CUDA host
# runs (31 cuda2cuda, 35 triton2triton) with the judge's defaults, one process per GPU
# (--shard K/2), one ledger line per evaluation (what LEDGER holds is skipped: resumable).
# With `overhead`: when GPU 0's shard is done, the overhead against e9f494d on triton2triton/softmax.
set -uo pipefail
. bench/gpu_env.sh || exit 1
LEDGER=${1:?a ledger path under results/}
L=/tmp/s; mkdir -p $L
record_env
nvidia-smi -L
cp "$LEDGER" $OUT/ 2>/dev/null || touch $OUT/$(basename "$LEDGER")
TASKS=$(ls -d tasks/triton2triton/*/ tasks/cuda2cuda/*/ | sed 's#^tasks/##; s#/$##')
end=${SWEEP_S:-560}; [ "${2:-}" = overhead ] && end=$(( end - 90 ))
for k in 0 1; do
  ( CUDA_VISIBLE_DEVICES=$k timeout $(left $end $end) python3 -u bench/judge_gpu.py fidelity --out $L/sw$k \
      --agents noop --shard $k/2 --ledger $OUT/$(basename "$LEDGER") --tasks $TASKS > $L/sw$k.txt 2>&1
    echo "shard $k rc=$? at ${SECONDS}s" ) &
done
wait
grep -hE "^\S+/\S+ +noop" $L/sw0.txt $L/sw1.txt | cut -c1-300
grep -h "own_blocks.py" $L/sw0/*.json 2>/dev/null | head -1 | cut -c1-200
python3 bench/noop_floor.py $L/sw0 $L/sw1 | cut -c1-400
if [ "${2:-}" = overhead ]; then
  CUDA_VISIBLE_DEVICES=0 timeout $(left 575 85) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old \
    --same-tasks --tasks triton2triton/softmax > $L/ov.txt 2>&1
  echo "overhead rc=$? at ${SECONDS}s"; grep -E "'ratio'" $L/ov.txt | cut -c1-120
fi
tar czf $OUT/records.tgz -C /tmp s 2>/dev/null; echo "wall ${SECONDS}s"
