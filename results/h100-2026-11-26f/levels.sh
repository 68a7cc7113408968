#!/usr/bin/env bash
# GPU call 1 of 2026-11-26 (session 6), issue 10: how the per-process level is distributed. The
# judge's GpuClock on the triton2triton/softmax baseline in 12 live processes, three times: how
# often does a process land on the floor (the lowest level)? That decides whether picking each
# kernel's fastest of K runner processes can cancel the offset, and which K.
set -uo pipefail
. bench/gpu_env.sh || exit 1
run() { echo "== $*"; /usr/bin/time -f "wall %e s" timeout 150 python3 bench/archive/offset_probe.py --clock --procs 12 --rounds 4 "$@" 2>&1 | grep -v "ready" | tail -16; }
{ run; run; run; } > $OUT/levels.txt 2>&1
cat $OUT/levels.txt
