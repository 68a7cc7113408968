#!/usr/bin/env bash
# GPU call 3 of 2026-11-28 (wave 3): issue 33's new production operators through the judge (oracle
# correct everywhere, noop failing), the X->X baselines against PyTorch eager (issue 33 item 1),
# and the judge's overhead against e9f494d's evaluator (issue 30 item 6), on one GPU.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
OPS="rmsnorm_quant_fp8 softmax_backward rmsnorm_backward gemm_bias_act gemm_fp8_tensorwise gemm_fp8_blockwise grouped_gemm_moe paged_decode_attention"
judged=(); for k in $OPS; do judged+=("torch2cuda/$k" "torch2hip/$k" "torch2triton/$k"); done
timeout 270 python3 -u bench/judge_gpu.py suite --out $OUT/newops --jobs 4 --hip-on-cuda --tasks "${judged[@]}" > $OUT/newops.txt 2>&1
echo "newops rc=$?"; cut -c1-230 $OUT/newops.txt | grep -v "^ " | tail -52
timeout 190 python3 -u bench/baselines_vs_eager.py --json $OUT/baselines.json > $OUT/baselines.txt 2>&1
echo "baselines rc=$?"; cut -c1-200 $OUT/baselines.txt | tail -75
timeout 110 python3 -u bench/judge_gpu.py overhead --out /tmp/ovh --old .carry/old --tasks torch2cuda/bias_gelu_residual > $OUT/overhead.txt 2>&1
echo "overhead rc=$?"; grep -E "ratio|old_s" $OUT/overhead.txt | cut -c1-300
tar czf $OUT/records.tgz -C $OUT newops 2>/dev/null; rm -rf $OUT/newops
