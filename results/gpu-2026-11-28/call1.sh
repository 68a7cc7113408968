#!/usr/bin/env bash
# GPU call 1 of 2026-11-28 (wave 3): issue 30's outside evidence on the GPU (the fork filter under
# nvcc and Triton's JIT, the process watch on a real CUDA worker, no foreign_process on honest
# evaluations), and the validations the other issues' branches ask for where they landed.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; git log --oneline -1; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
# 1. the red team's GPU cheats that touch processes: the honest control, a CUDA worker process, the hog
timeout 200 python3 -u bench/judge_gpu.py redteam --out $OUT/red --cheats honest gpu_worker baseline_hog > $OUT/redteam.txt 2>&1
echo "redteam rc=$?"; cut -c1-220 $OUT/redteam.txt | tail -8
# 2. oracle and noop through the judge with the fork filter and the process watch on: native and
#    Triton builds (nvcc forks before the filter; Triton's ptxas and launcher cc after it)
timeout 330 python3 -u bench/judge_gpu.py suite --out $OUT/suite --jobs 4 --tasks cuda2cuda/softmax cuda2cuda/rmsnorm \
  cuda2cuda/gelu torch2cuda/rmsnorm torch2cuda/softmax triton2triton/softmax triton2triton/matmul torch2triton/rmsnorm \
  torch2triton/gelu triton2triton/layernorm > $OUT/suite.txt 2>&1
echo "suite rc=$?"; cut -c1-220 $OUT/suite.txt | tail -30
tar czf $OUT/records.tgz -C $OUT red suite 2>/dev/null; rm -rf $OUT/red $OUT/suite
