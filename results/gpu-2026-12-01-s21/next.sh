#!/usr/bin/env bash
# The next session's first GPU call (written 2026-12-01, session 21); any one-GPU kind; carry .whl
# and .carry. First bench/dram_probe.py (about a minute: can the device's DRAM counters, sampled
# from a process of their own, tell the harness's L2 flush from one pointed at memory the L2 holds,
# and a cold call from a warm one), the red team's flush_aliased beside its honest control, then
# the oracle/noop sweep through the ledger as call.sh runs
# it (start from this folder's suite.jsonl: 102 lines; copy it into the new session's folder).
#   bash results/gpu-2026-12-01-s21/next.sh LEDGER
# Read: $OUT/dram/dram_probe.json (per interval: summary.best_shift: read_MB_per_flush of each
# flush form, call_read_MB after each; flush_ms_with/without_sampler; kernels_* for the forms'
# kernels and blocks); the sweep as call.sh's.
set -uo pipefail
. bench/gpu_env.sh || exit 1
LEDGER=${1:?a ledger path under results/}
L=/tmp/n; mkdir -p $L
record_env
timeout 240 python3 -u bench/dram_probe.py --out $OUT/dram > $OUT/dram.txt 2>&1
echo "dram probe rc=$? at ${SECONDS}s"; tail -c 6000 $OUT/dram.txt
# flush_aliased (new in session 21: the flush over one physical chunk mapped 64 times, no copy)
# beside the honest control: does anything but the static checks see it?
timeout 150 python3 -u bench/judge_gpu.py redteam --cheats honest flush_aliased --out $L/rt > $L/rt.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/rt.txt | cut -c1-900
BUDGET=$(left 565 565) bash results/gpu-2026-12-01-s21/call.sh "$LEDGER"
