#!/usr/bin/env bash
# GPU call 5 of 2026-11-26 (session 5), issue 10: what carries the per-process level? The judge's clock
# in 4 live processes: the three-launch softmax cold (control) and warm (no flush), three launches of a
# one-program kernel, one PyTorch launch, and the softmax with a one-program launch after each flush.
# Then the judge's --graph regime (replays now covered by the spin pad, not the gate) on the same task.
set -uo pipefail
. bench/gpu_env.sh || exit 1
run() { echo "== $*"; timeout 110 python3 bench/archive/offset_probe.py --clock --procs 4 --rounds 5 "$@" 2>&1 | grep -v "^process .*ready" | tail -7; }
{ run; run --regime warm; run --kernel trivial3; run --kernel torch_softmax; run --touch; } > $OUT/launches.txt
cat $OUT/launches.txt
mkdir -p /tmp/g2
timeout 200 python3 -u bench/judge_gpu.py fidelity --out /tmp/g2 --tasks triton2triton/softmax --repeats 2 --eval-args=--graph > $OUT/fid-graph.txt 2>&1
grep -E "noop|oracle|x=|noop_abs|timing" $OUT/fid-graph.txt | cut -c1-200
