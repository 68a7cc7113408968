#!/usr/bin/env bash
# GPU call 3 (2026-11-26, session 3): the suite's validation, oracle + noop through the judge on every
# seen and hidden config (correctness only), HIP tasks through nvcc (bench/hip_shim/hipcc).
# Resumable: .gpu/suite/suite.jsonl (carried back from an earlier call, if any) is continued.
set -uo pipefail
. bench/gpu_env.sh || exit 1
R=/tmp/suite; mkdir -p $R
[ -f .gpu/suite/suite.jsonl ] && [ ! -f $R/suite.jsonl ] && cp .gpu/suite/suite.jsonl $R/
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'; } > $OUT/env.txt 2>&1
timeout ${SUITE_S:-500} python3 bench/judge_gpu.py suite --out $R --jobs ${JOBS:-14} --hip-on-cuda > $OUT/suite.txt 2>&1
cp $R/suite.jsonl $OUT/ 2>/dev/null
tail -30 $OUT/suite.txt
