#!/usr/bin/env bash
# GPU call of 2026-11-26 (session 4): the rest of the KernelBench noop (kbnoop.sh), then the
# per-process offset probe (bench/archive/offset_probe.py, issue 10), then a second timing of the Triton
# tasks whose first table today disagreed with earlier ones by more than 2x on a config.
set -uo pipefail
SUITE_S=${SUITE_S:-300} bash results/h100-2026-11-26d/kbnoop.sh
. bench/gpu_env.sh || exit 1
timeout 150 python3 bench/archive/offset_probe.py --procs 6 --reps 300 > $OUT/offset-probe.txt 2>&1; cat $OUT/offset-probe.txt
timeout 100 python3 bench/check_triton_tasks.py --device cuda --reps 100 --tasks torch2triton/permute \
  triton2triton/permute torch2triton/dwconv1d triton2triton/dwconv1d > $OUT/triton-recheck.txt 2>&1
grep -E "^\| t" $OUT/triton-recheck.txt | cut -d'|' -f2-8
