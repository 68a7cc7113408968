#!/usr/bin/env bash
# GPU call 8 of 2026-11-26 (session 5), issue 10: is the per-process launch cost Triton's? Three
# one-program Triton launches against three one-element PyTorch launches, 4 live processes, twice.
set -uo pipefail
. bench/gpu_env.sh || exit 1
run() { echo "== $*"; timeout 100 python3 bench/archive/offset_probe.py --clock --procs 4 --rounds 6 "$@" 2>&1 | grep -v "^process .*ready" | tail -7; }
{ run --kernel trivial3; run --kernel torch3; run --kernel trivial3; run --kernel torch3; } > $OUT/torch3.txt
cat $OUT/torch3.txt
