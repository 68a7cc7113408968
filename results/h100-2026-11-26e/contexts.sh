#!/usr/bin/env bash
# GPU call 4 of 2026-11-26 (session 5), issue 10: does the per-process offset need other CUDA contexts
# alive? The judge's clock in 4 processes one at a time, then alive at once, then 2 at once beside an
# idle context (the judge's own), then one at a time beside 2 idle contexts. Then the judge's --graph
# stall, seen by py-spy (carried wheel) after 50 s.
set -uo pipefail
. bench/gpu_env.sh || exit 1
python3 -m pip install -q --no-index --no-deps --target /tmp/pyspy .carry/py_spy-*.whl
run() { echo "== $*"; timeout 150 python3 bench/archive/offset_probe.py --clock --rounds 5 "$@" 2>&1 | grep -v "^process .*ready" | tail -8; }
{ run --procs 4 --serial; run --procs 4; run --procs 2 --idle 1; run --procs 4 --serial --idle 2; } > $OUT/contexts.txt
cat $OUT/contexts.txt
mkdir -p /tmp/gd
python3 -m runner.evaluator tasks/triton2triton/softmax --tasks-root tasks --device cuda --out /tmp/gd/r.json \
  --candidate tasks/triton2triton/softmax/solution --graph > /tmp/gd/judge.txt 2>&1 &
pid=$!
for i in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 1; done
{
  echo "after ${i} s, judge alive: $(kill -0 $pid 2>/dev/null && echo yes || echo no)"
  for p in $pid $(pgrep -f '^[^ ]*python3? -m runner.evaluator.kernel_runner'); do
    echo "== pid $p $(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-120) state $(awk '{print $3}' /proc/$p/stat)"
    timeout 20 /tmp/pyspy/bin/py-spy dump --pid $p --native 2>&1 | head -60 || timeout 20 /tmp/pyspy/bin/py-spy dump --pid $p 2>&1 | head -40
  done
  echo "== judge"; tail -20 /tmp/gd/judge.txt
} > $OUT/graph-stacks.txt 2>&1
kill $pid 2>/dev/null
cut -c1-200 $OUT/graph-stacks.txt | head -200
