#!/usr/bin/env bash
# GPU call 7 of 2026-11-26 (session 4): the offset probe's variants (issue 10): does the flip between
# timed sequences survive a CUDA graph (no host launches), a PyTorch kernel, a smaller or no flush?
set -uo pipefail
. bench/gpu_env.sh || exit 1
timeout 200 python3 bench/archive/offset_probe.py --variants --procs 3 --reps 300 > $OUT/offset-variants.txt 2>&1
cat $OUT/offset-variants.txt
