#!/usr/bin/env bash
# GPU call 4 of 2026-11-27 (session 13), issue 10: the same code as call 3 on more tasks — the GPU red
# team, three noops of triton2triton/permute, one noop of each other small-call task.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 120 python3 -u bench/judge_gpu.py redteam --out /tmp/red > $OUT/redteam.txt 2>&1
grep -vE "^\s*$" $OUT/redteam.txt | cut -c1-150 | head -10
export GAUNTLET_JUDGE_TRACE_SAMPLES=1
timeout 110 python3 -u bench/judge_gpu.py fidelity --out /tmp/s/permute --agents noop --repeats 3 --tasks triton2triton/permute > $OUT/permute.txt 2>&1
grep -E "noop_task|noop_abs|s flags" $OUT/permute.txt | cut -c1-160
timeout 330 python3 -u bench/judge_gpu.py fidelity --out /tmp/s/suite --agents noop --tasks triton2triton/gelu cuda2cuda/log_softmax \
  triton2triton/l2norm cuda2cuda/l2norm triton2triton/layernorm cuda2cuda/layernorm triton2triton/rmsnorm cuda2cuda/add_rmsnorm \
  triton2triton/softmax cuda2cuda/embedding > $OUT/suite.txt 2>&1
grep -E "noop_task|noop_abs|s flags" $OUT/suite.txt | cut -c1-160
tar czf $OUT/traces.tgz -C /tmp/s . 2>/dev/null
