#!/usr/bin/env bash
# GPU call 7 of 2026-11-27 (session 10), issue 10: does one profiler session move a small native
# kernel's level in its process? bench/archive/module_probe.py --profile (4 processes x 2 copies).
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 200 python3 -u bench/archive/module_probe.py --procs 4 --copies 2 --profile --json $OUT/module.json > $OUT/module.txt 2>&1
cat $OUT/module.txt | cut -c1-220
