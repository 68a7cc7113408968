#!/usr/bin/env bash
# GPU call 8 of 2026-11-26 (session 4): noop self-speedup of triton2triton/softmax through the judge,
# the default regime and --graph (each kernel's call captured in a CUDA graph), same machine (issue 10).
set -uo pipefail
. bench/gpu_env.sh || exit 1
mkdir -p /tmp/g1 /tmp/g2
timeout 250 python3 bench/judge_gpu.py fidelity --out /tmp/g1 --tasks triton2triton/softmax --repeats 3 \
  --eval-args=--graph > $OUT/fid-graph.txt 2>&1
timeout 200 python3 bench/judge_gpu.py fidelity --out /tmp/g2 --tasks triton2triton/softmax --repeats 2 > $OUT/fid-default.txt 2>&1
for f in fid-graph fid-default; do echo "== $f"; grep -E "noop|x=|noop_abs" $OUT/$f.txt | cut -c1-150; done
