#!/usr/bin/env bash
# GPU call 3 of 2026-11-27 (session 12), issue 10. (1) bench/archive/instance_bias.py again, with two more
# cases: one physical allocation mapped at several addresses (page-table entries of its own each)
# and the L2 flushed through several buffers: which process-held thing moves a small call's time?
# (2) Nsight Compute against the judge (the solution, largest seen config) on 3 tasks. (3) the
# overhead against the in-process evaluator (.carry/old = c6a5871's runner/), bias_gelu_residual,
# with this checkout (43e7b45 + the profiler session at each runner's start).
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 120 python3 -u bench/archive/instance_bias.py --copies 6 --regimes cold --out /tmp/instance.json > $OUT/instance.txt 2>&1
cut -c1-200 $OUT/instance.txt
timeout 230 python3 -u bench/judge_gpu.py ncu --out /tmp/ncu --tasks cuda2cuda/softmax cuda2cuda/transpose triton2triton/softmax > $OUT/ncu.txt 2>&1
grep -E "diff_pct" $OUT/ncu.txt | cut -c1-300
timeout 200 python3 -u bench/judge_gpu.py overhead --out /tmp/ovh --old .carry/old --tasks torch2cuda/bias_gelu_residual > $OUT/overhead.txt 2>&1
grep -E "ratio|old_s" $OUT/overhead.txt | cut -c1-400
