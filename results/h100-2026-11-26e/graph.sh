#!/usr/bin/env bash
# GPU call 7 of 2026-11-26 (session 5), issue 10: the judge's --graph regime after the fix (a replay's
# output was poisoned row by row: 1800 fills a repetition). Oracle and noop x2 on triton2triton/softmax
# with --graph, the default regime once beside it, and the empty-graph cheat.
set -uo pipefail
. bench/gpu_env.sh || exit 1
mkdir -p /tmp/g1 /tmp/g2 /tmp/g3
timeout 220 python3 -u bench/judge_gpu.py fidelity --out /tmp/g1 --tasks triton2triton/softmax --repeats 2 --eval-args=--graph > $OUT/fid-graph.txt 2>&1
timeout 120 python3 -u bench/judge_gpu.py fidelity --out /tmp/g2 --tasks triton2triton/softmax --repeats 2 > $OUT/fid-default.txt 2>&1
timeout 100 python3 -u bench/judge_gpu.py redteam --out /tmp/g3 --cheats honest empty_graph > $OUT/redteam-graph.txt 2>&1
for f in fid-graph fid-default redteam-graph; do echo "== $f"; grep -E "noop|oracle|x=|noop_abs|timing|correct=" $OUT/$f.txt | cut -c1-240; done
