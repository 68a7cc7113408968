#!/usr/bin/env bash
# GPU call 6 of 2026-11-27 (session 10), issue 10: the small configs' level, the loaded copy's or the
# process's? bench/archive/module_probe.py on cuda2cuda/log_softmax's naive kernel (3 processes x 3 copies).
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 280 python3 -u bench/archive/module_probe.py --procs 4 --copies 3 --json $OUT/module.json > $OUT/module.txt 2>&1
cat $OUT/module.txt | cut -c1-200
