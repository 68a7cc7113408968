#!/usr/bin/env bash
# GPU call of 2026-11-26 (session 4): the offset probe's pattern mode (issue 10), then oracle and a
# timed noop through the judge on four X->X tasks never timed through it before (issue 12's
# "noop reads ~1.0x on X->X").
set -uo pipefail
. bench/gpu_env.sh || exit 1
timeout 120 python3 bench/archive/offset_probe.py --pattern --procs 3 --reps 300 > $OUT/offset-pattern.txt 2>&1; cat $OUT/offset-pattern.txt
mkdir -p /tmp/fid
timeout 330 python3 bench/judge_gpu.py fidelity --out /tmp/fid --tasks cuda2cuda/gelu cuda2cuda/layernorm \
  triton2triton/cross_entropy triton2triton/rotary > $OUT/fidelity.txt 2>&1
cp /tmp/fid/fidelity*.json $OUT/ 2>/dev/null
grep -E "^(cuda|triton)|x=|noop_abs" $OUT/fidelity.txt | cut -c1-170
