#!/usr/bin/env bash
# Issue 33's production operators on one NVIDIA GPU (run on the lent H100 from the repo root):
#   1. bench/check_native_tasks.py: every new torch2cuda / torch2hip task's stub and solution compile
#      (HIP through bench/hip_shim), the solution is correct on every seen and hidden config (seeds
#      0, 1), and the CUDA solution is timed against the PyTorch reference;
#   2. bench/check_triton_tasks.py --device cuda: the same for the new torch2triton tasks, and for
#      the triton2triton twins (TWINS) their shipped baseline too, timed against the solution;
#   3. bench/judge_gpu.py suite: the oracle (solution) and noop (the shipped kernel) through the
#      judge itself on every seen and hidden config: the oracle must be correct with no flag, noop
#      must fail every one of these PyTorch->X tasks and pass every triton2triton twin.
# Usage: bash bench/new_ops_check.sh OUT_DIR      (writes OUT_DIR/{native.txt,triton.txt,suite/...})
set -uo pipefail
out=${1:?usage: bash bench/new_ops_check.sh OUT_DIR}
. bench/gpu_env.sh || exit 1
mkdir -p "$out"
OPS="rmsnorm_quant_fp8 softmax_backward rmsnorm_backward gemm_bias_act gemm_fp8_tensorwise gemm_fp8_blockwise grouped_gemm_moe paged_decode_attention attention_prefill_gqa rotary_kv_write silu_mul_quant_fp8 topk_topp_sampling"
TWINS="rmsnorm_backward softmax_backward rotary_kv_write"      # triton2triton/<k>: an honest baseline kernel
only=$(for k in $OPS; do printf 'torch2cuda/%s,torch2hip/%s,' "$k" "$k"; done)
triton=(); judged=()
for k in $OPS; do triton+=("torch2triton/$k"); judged+=("torch2cuda/$k" "torch2hip/$k" "torch2triton/$k"); done
for k in $TWINS; do triton+=("triton2triton/$k"); judged+=("triton2triton/$k"); done
rc=0
python3 bench/check_native_tasks.py --only "${only%,}" 2>&1 | tee "$out/native.txt"; rc=$((rc | PIPESTATUS[0]))
python3 bench/check_triton_tasks.py --device cuda --tasks "${triton[@]}" 2>&1 | tee "$out/triton.txt"; rc=$((rc | PIPESTATUS[0]))
python3 bench/judge_gpu.py suite --out "$out/suite" --hip-on-cuda --tasks "${judged[@]}" 2>&1 | tee "$out/suite.txt"; rc=$((rc | PIPESTATUS[0]))
echo "new_ops_check: exit status $rc (0: every check above passed)"
exit $rc
