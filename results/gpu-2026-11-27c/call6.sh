#!/usr/bin/env bash
# GPU call 6 of 2026-11-27 (session 12), issue 10: two more noops of triton2triton/l2norm, whose one
# noop in call 5 read the worst config (1.95 %) and a per-task median of 0.92 %, so that issue 3's
# measure (the median of three repeats) can be read for it. The code as committed (d55f4df).
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
export GAUNTLET_JUDGE_TRACE_SAMPLES=1
timeout 200 python3 -u bench/judge_gpu.py fidelity --out /tmp/s/l2norm --agents noop --repeats 2 --tasks triton2triton/l2norm > $OUT/fidelity.txt 2>&1
grep -E "noop_|s flags" $OUT/fidelity.txt | cut -c1-200
tar czf $OUT/traces.tgz -C /tmp/s . 2>/dev/null
