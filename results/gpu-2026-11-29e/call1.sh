#!/usr/bin/env bash
# GPU call 1 of 2026-11-29 (session 11); each step time-boxed by what is left of 575 s:
#  1. issue 30: the device trace's new rules in a judge on a GPU: the red-team cheats that run PyTorch's
#     kernels with no at:: name (softmax's anonymous-namespace kernel beside a Triton kernel; cuBLAS's GEMM
#     with the runner's findings emptied), the findings-cleared cheat and the honest control;
#  2. issue 30: the declared-kernel rule against honest CUDA candidates (oracle, and the cuda2cuda noops);
#  3. issue 30/33: the headline ledger resumed (23 left, rotary_kv_write first: its row was removed).
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c1; mkdir -p $L
LEDGER=results/gpu-2026-11-29/headline-timed.jsonl
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout $(left 575 200) python3 -u bench/judge_gpu.py redteam --out $L/rt --cheats honest torch_softmax_beside cublas_matmul findings_cleared > $L/rt.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; grep -vE "^\s*$" $L/rt.txt | cut -c1-400 | tail -30
timeout $(left 575 160) python3 -u bench/judge_gpu.py fidelity --out $L/decl --tasks torch2cuda/topk torch2cuda/softmax cuda2cuda/topk cuda2cuda/softmax > $L/decl.txt 2>&1
echo "declared rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|^    (seen|unseen)|first timing|flag" $L/decl.txt | cut -c1-400
timeout $(left 575 90) python3 -u bench/judge_gpu.py fidelity --out $L/rot --tasks torch2cuda/rotary_kv_write --ledger $LEDGER > $L/rot.txt 2>&1
echo "rotary rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|^    (seen|unseen)|first timing|flag" $L/rot.txt | cut -c1-400
timeout $(left 575 575) python3 -u bench/judge_gpu.py fidelity --out $L/head --suite headline --ledger $LEDGER > $L/head.txt 2>&1
echo "headline rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|first timing" $L/head.txt | cut -c1-330
cp $LEDGER $OUT/headline-ledger.jsonl
tar czf $OUT/records.tgz -C /tmp c1 2>/dev/null; echo "wall ${SECONDS}s"
