#!/usr/bin/env bash
# GPU call 3 of 2026-11-26 (session 7), issue 10: the process offset after call 2, with both runners'
# first (JIT-compiling) calls made at once and 3 timing rounds for the offset; a native candidate's
# compile beside the probe's build. triton2triton/softmax oracle + noop x4; cuda2cuda/softmax oracle +
# noop x2 with it and oracle + noop without it (--no-process-offset), for the wall time.
set -uo pipefail
. bench/gpu_env.sh || exit 1
mkdir -p /tmp/t /tmp/c /tmp/c0
timeout 200 python3 -u bench/judge_gpu.py fidelity --out /tmp/t --tasks triton2triton/softmax --repeats 4 > $OUT/fid-triton.txt 2>&1
timeout 180 python3 -u bench/judge_gpu.py fidelity --out /tmp/c --tasks cuda2cuda/softmax --repeats 2 > $OUT/fid-cuda.txt 2>&1
timeout 130 python3 -u bench/judge_gpu.py fidelity --out /tmp/c0 --tasks cuda2cuda/softmax --repeats 1 --eval-args=--no-process-offset > $OUT/fid-cuda-off.txt 2>&1
for f in fid-triton fid-cuda fid-cuda-off; do echo "== $f"; grep -E "noop |oracle |noop_|Error|error|process offset" $OUT/$f.txt | cut -c1-240; grep -o "'timing: process offset': [0-9.]*\|'runner start+build': [0-9.]*\|'candidate build': [0-9.]*" $OUT/$f.txt | paste -sd' '; done
