#!/usr/bin/env bash
# GPU call 4 of 2026-11-27 (session 11), issue 10: A/B, interleaved, of an empty profiler session at
# each GPU runner's start (B: the checkout) against none (A: .carry/ab, the runner package of call 3),
# on the noops of cuda2cuda/gelu and triton2triton/gelu, three each.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
for i in 1 2 3; do
  timeout 150 python3 -u bench/judge_gpu.py fidelity --out /tmp/ab/a$i --agents noop --code .carry/ab --tasks cuda2cuda/gelu triton2triton/gelu >> $OUT/a.txt 2>&1
  timeout 150 python3 -u bench/judge_gpu.py fidelity --out /tmp/ab/b$i --agents noop --tasks cuda2cuda/gelu triton2triton/gelu >> $OUT/b.txt 2>&1
done
tar czf $OUT/traces.tgz -C /tmp/ab . 2>/dev/null
grep -E "noop_abs|noop_plain_abs" $OUT/a.txt $OUT/b.txt
