#!/usr/bin/env bash
# GPU call 1 of 2026-11-27 (session 11), issue 10: the median interpolated within the event clock's
# tick (timing.tick_median) on the small-call noops that missed in call 9 of session 10, three
# repeats each (issue 3's measure: each task-config's median of 3). The judge's trace keeps the plain
# median of the same samples, so both statistics are read off one run.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 560 python3 -u bench/judge_gpu.py fidelity --out /tmp/q --agents noop --repeats 3 --tasks cuda2cuda/log_softmax cuda2cuda/gelu triton2triton/permute cuda2cuda/embedding triton2triton/gelu > $OUT/small.txt 2>&1
tar czf $OUT/traces.tgz -C /tmp/q . 2>/dev/null
grep -E "noop |offset|seen|unseen|noop_|flagged" $OUT/small.txt | cut -c1-170 | tail -60
