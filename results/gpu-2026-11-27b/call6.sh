#!/usr/bin/env bash
# GPU call 6 of 2026-11-27 (session 11), issue 10: the code as committed (rounds per config, each
# round's trimmed mean, the candidate paired with the baseline round by round, a profiler session at
# every GPU runner's start, the device-sync gap timed twice before a flag): the GPU red team, then
# the small-call noops and two others once, every sample in the trace (bench/archive/replay_stats.py).
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 240 python3 -u bench/judge_gpu.py redteam --out /tmp/red > $OUT/redteam.txt 2>&1
grep -vE "^\s*$" $OUT/redteam.txt | cut -c1-160 | head -12
export GAUNTLET_JUDGE_TRACE_SAMPLES=1
timeout 230 python3 -u bench/judge_gpu.py fidelity --out /tmp/s/small --agents noop --tasks cuda2cuda/log_softmax cuda2cuda/gelu triton2triton/permute cuda2cuda/embedding triton2triton/gelu cuda2cuda/softmax triton2triton/layernorm > $OUT/fidelity.txt 2>&1
tar czf $OUT/traces.tgz -C /tmp/s . 2>/dev/null
grep -E "noop_|flagged" $OUT/fidelity.txt
python3 bench/archive/replay_stats.py /tmp/s
