#!/usr/bin/env bash
# GPU call 5 of 2026-11-26 (session 9), issue 10: the overhead on the other six CUDA tasks of
# bench/judge_gpu.py (1a13e95, bytecode caches compiled as in gpu_env.sh): in-process (.carry/old)
# against the judge, one pass, as far as the call's time allows (overhead.partial.json per task).
set -uo pipefail
. bench/gpu_env.sh || exit 1
R=/tmp/r; mkdir -p $R/p1
timeout 540 python3 -u bench/judge_gpu.py overhead --out $R/p1 --old .carry/old \
  --tasks torch2triton/rmsnorm cuda2cuda/transpose torch2triton/silu_mul torch2cuda/rmsnorm triton2triton/matmul torch2cuda/bias_gelu_residual > $OUT/overhead.txt 2>&1
cp $R/p1/overhead.partial.json $OUT/ 2>/dev/null
grep -hE "old_s" $OUT/overhead.txt | cut -c1-160
