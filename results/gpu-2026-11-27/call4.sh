#!/usr/bin/env bash
# GPU call 4 of 2026-11-27 (session 10), issue 10, arena on: the split's overhead on
# torch2cuda/bias_gelu_residual (not reached in the ninth session) against the in-process evaluator
# of c6a5871 (.carry/old), then the noop over more X->X tasks, as many as the call's time allows.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 150 python3 -u bench/judge_gpu.py overhead --out /tmp/ovh --old .carry/old --tasks torch2cuda/bias_gelu_residual > $OUT/overhead.txt 2>&1
tail -4 $OUT/overhead.txt | cut -c1-400
timeout 390 python3 -u bench/judge_gpu.py fidelity --out /tmp/sweep --agents noop --tasks cuda2cuda/add_rmsnorm cuda2cuda/gelu cuda2cuda/silu_mul cuda2cuda/layernorm cuda2cuda/permute cuda2cuda/log_softmax cuda2cuda/l2norm cuda2cuda/embedding triton2triton/add_rmsnorm triton2triton/gelu triton2triton/permute triton2triton/rmsnorm > $OUT/sweep.txt 2>&1
grep -E "noop |seen|unseen|noop_abs|flagged" $OUT/sweep.txt | cut -c1-150
