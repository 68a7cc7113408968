#!/usr/bin/env bash
# GPU call 5 of 2026-11-27 (session 12), issue 10: the code as committed at the end of the session
# (43e7b45 + the profiler session at each runner's start; the pool of call 4 reverted), one noop on
# each of 12 more X->X tasks, every sample in the traces: the fidelity figures across the suite.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
export GAUNTLET_JUDGE_TRACE_SAMPLES=1
timeout 520 python3 -u bench/judge_gpu.py fidelity --out /tmp/s/suite --agents noop --tasks cuda2cuda/softmax \
  cuda2cuda/transpose triton2triton/layernorm cuda2cuda/layernorm triton2triton/rmsnorm cuda2cuda/l2norm \
  triton2triton/l2norm cuda2cuda/add_rmsnorm triton2triton/add_rmsnorm triton2triton/matmul cuda2cuda/embedding \
  cuda2cuda/rmsnorm > $OUT/fidelity.txt 2>&1
grep -E "noop_|s flags" $OUT/fidelity.txt | cut -c1-200
tar czf $OUT/traces.tgz -C /tmp/s . 2>/dev/null
