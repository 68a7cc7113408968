#!/usr/bin/env bash
# GPU call 1 of 2026-11-29 (session 7); each step time-boxed by what is left of 560 s:
#  1. issue 33: the 11 triton2triton baselines rewritten on wave3/triton-baselines (carried as
#     .carry/tb, that branch's tree) against PyTorch eager and their solutions;
#  2. issue 30/33: the headline suite's oracle (and X->X noop) timed through the judge with the
#     device trace on, appended to the ledger; the next calls and sessions skip what it holds.
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c1; mkdir -p $L
LEDGER=${LEDGER:-results/gpu-2026-11-29/headline-timed.jsonl}
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
(cd .carry/tb && PYTHONPATH=/tmp/site:$PWD timeout $(left 560 200) python3 -u bench/baselines_vs_eager.py --json $L/baselines.json \
  --only triton2triton/add_rmsnorm,triton2triton/embedding,triton2triton/l2norm,triton2triton/log_softmax,triton2triton/matmul_bias_relu,triton2triton/maxpool1d,triton2triton/rmsnorm,triton2triton/row_max,triton2triton/row_mean,triton2triton/softmax,triton2triton/transpose) > $L/baselines.txt 2>&1
echo "baselines rc=$? at ${SECONDS}s"; grep -v "^ " $L/baselines.txt | grep -A60 "^task " | cut -c1-200
cp $L/baselines.json $OUT/baselines.json 2>/dev/null
timeout $(left 560 560) python3 -u bench/judge_gpu.py fidelity --out $L/fid --suite headline --ledger $LEDGER > $L/fidelity.txt 2>&1
echo "fidelity rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)" $L/fidelity.txt | cut -c1-250
cp $LEDGER $OUT/ledger.jsonl 2>/dev/null
tar czf $OUT/records.tgz -C /tmp c1 2>/dev/null; echo "wall ${SECONDS}s"
