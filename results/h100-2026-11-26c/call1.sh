#!/usr/bin/env bash
# GPU call 1 (2026-11-26, session 3): self-speedup after the per-batch cache hand-back (each batch's
# buffers, a Triton kernel's own outputs too, at new memory), evaluation wall times, dequantize_fp8.
set -uo pipefail
. bench/gpu_env.sh || exit 1
R=/tmp/r; mkdir -p $R
pack() { tar -C $R -czf $OUT/raw.tgz . 2>/dev/null; }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format=%h 2>/dev/null
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'; } > $OUT/env.txt 2>&1
timeout 330 python3 bench/judge_gpu.py fidelity --out $R/fid1 --tasks triton2triton/softmax --repeats 4 > $OUT/fid1.txt 2>&1; pack
timeout 150 python3 bench/judge_gpu.py fidelity --out $R/fid2 --tasks cuda2cuda/softmax triton2triton/matmul --repeats 1 > $OUT/fid2.txt 2>&1; pack
timeout 50 python3 bench/check_native_tasks.py --only dequantize_fp8 > $OUT/native.txt 2>&1
timeout 40 python3 bench/check_triton_tasks.py --device cuda --reps 30 --tasks torch2triton/dequantize_fp8 > $OUT/triton.txt 2>&1; pack
