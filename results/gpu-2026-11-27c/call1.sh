#!/usr/bin/env bash
# GPU call 1 of 2026-11-27 (session 12), issue 10: (1) the GPU red team on the code as committed
# (43e7b45: the graph-mode fix 5651569 never ran on a GPU); (2) a diagnosis of the small calls'
# residual: GAUNTLET_JUDGE_OFFSET_ALL times the baseline against the candidate's runner (the probe)
# on every config, not just the quickest, every sample in the trace. Not applied: the verdict is as
# committed; bench/archive/replay_stats.py reads the per-config offsets afterwards.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 250 python3 -u bench/judge_gpu.py redteam --out /tmp/red > $OUT/redteam.txt 2>&1
grep -vE "^\s*$" $OUT/redteam.txt | cut -c1-220 | head -14
export GAUNTLET_JUDGE_TRACE_SAMPLES=1 GAUNTLET_JUDGE_OFFSET_ALL=1
timeout 290 python3 -u bench/judge_gpu.py fidelity --out /tmp/s/diag --agents noop --tasks cuda2cuda/gelu triton2triton/permute triton2triton/gelu cuda2cuda/log_softmax > $OUT/diag.txt 2>&1
tar czf $OUT/traces.tgz -C /tmp/s . 2>/dev/null
tar czf $OUT/red.tgz -C /tmp/red . 2>/dev/null
grep -E "noop_|flagged|s flags" $OUT/diag.txt
