#!/usr/bin/env bash
# GPU call 5 of 2026-11-27 (session 11), issue 10: the checkout (rounds per config, paired figure,
# profiler at every runner's start) with every timed sample in the judge's trace
# (GAUNTLET_JUDGE_TRACE_SAMPLES), so statistics can be compared on one set of samples afterwards
# (bench/archive/replay_stats.py): the small-call noops twice, four other tasks once.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
export GAUNTLET_JUDGE_TRACE_SAMPLES=1
timeout 330 python3 -u bench/judge_gpu.py fidelity --out /tmp/s/small --agents noop --repeats 2 --tasks cuda2cuda/log_softmax cuda2cuda/gelu triton2triton/permute cuda2cuda/embedding triton2triton/gelu > $OUT/small.txt 2>&1
timeout 200 python3 -u bench/judge_gpu.py fidelity --out /tmp/s/other --agents noop --tasks cuda2cuda/softmax triton2triton/softmax cuda2cuda/transpose triton2triton/layernorm > $OUT/other.txt 2>&1
tar czf $OUT/traces.tgz -C /tmp/s . 2>/dev/null
grep -E "noop_|flagged" $OUT/small.txt $OUT/other.txt
