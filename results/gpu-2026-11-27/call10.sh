#!/usr/bin/env bash
# GPU call 10 of 2026-11-27 (session 10), issue 10: the committed code (the arena and the offset on
# the quickest config) on the memory-bound noops of call 2: cuda2cuda/rmsnorm, cuda2cuda/transpose,
# triton2triton/layernorm.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 300 python3 -u bench/judge_gpu.py fidelity --out /tmp/f --agents noop --tasks cuda2cuda/rmsnorm cuda2cuda/transpose triton2triton/layernorm > $OUT/final.txt 2>&1
grep -E "noop |offset|seen|unseen|noop_abs|flagged" $OUT/final.txt | cut -c1-150
