#!/usr/bin/env bash
# GPU call 4 of 2026-11-28 (wave 3), on the merged main: the process watch with HIP builds through
# the HIP-on-CUDA shim (call 3's false positive), the red team's control and CUDA worker again, this
# GPU's ceilings (issue 33), the 32 imported AgentKernelArena Triton tasks through the judge (noop:
# the baseline against itself; issue 34), and the runs behind an example `gauntlet view` (issue 32).
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 60 python3 -u bench/judge_gpu.py redteam --out /tmp/red --cheats honest gpu_worker > $OUT/redteam.txt 2>&1
echo "redteam rc=$?"; cut -c1-200 $OUT/redteam.txt | tail -3
timeout 50 python3 -u bench/judge_gpu.py suite --out /tmp/suite --jobs 4 --hip-on-cuda --tasks torch2hip/rmsnorm_backward \
  torch2hip/softmax_backward hip2hip/gelu torch2hip/rmsnorm > $OUT/suite.txt 2>&1
echo "suite rc=$?"; cut -c1-200 $OUT/suite.txt | grep -v "^ " | tail -10
timeout 30 python3 -u bench/ceilings.py --repeat 2 --json $OUT/ceilings.json > $OUT/ceilings.txt 2>&1
echo "ceilings rc=$?"; tail -12 $OUT/ceilings.txt | cut -c1-200
OUT=$OUT JOBS=8 SUITE_S=100 timeout 110 bash bench/aka_check.sh .aka/tasks > $OUT/aka.txt 2>&1
echo "aka rc=$?"; tail -45 $OUT/aka.txt | cut -c1-200
TASKS="cuda2cuda/gelu triton2triton/softmax" timeout 150 bash bench/view_gpu.sh /tmp/view > $OUT/view.txt 2>&1
echo "view rc=$?"; tail -12 $OUT/view.txt | cut -c1-200; cp /tmp/view/runs.tgz $OUT/ 2>/dev/null
