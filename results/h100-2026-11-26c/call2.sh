#!/usr/bin/env bash
# GPU call 2 (2026-11-26, session 3): self-speedup with samples rebased per batch on empty repetitions.
set -uo pipefail
. bench/gpu_env.sh || exit 1
R=/tmp/r2; mkdir -p $R
pack() { tar -C $R -czf $OUT/raw.tgz . 2>/dev/null; }
timeout 150 python3 bench/judge_gpu.py fidelity --out $R/fid3 --tasks triton2triton/softmax --repeats 3 > $OUT/fid3.txt 2>&1; pack
timeout 110 python3 bench/judge_gpu.py fidelity --out $R/fid4 --tasks cuda2cuda/transpose --repeats 1 > $OUT/fid4.txt 2>&1; pack
