#!/usr/bin/env bash
# GPU call 6 of 2026-11-26 (session 5), issue 10: does the level belong to the stream (its hardware
# queue) rather than the process? The judge's clock in 4 live processes, sequence j on stream j % 4.
# Then the judge's --graph regime: py-spy of the baseline runner 5 times, 2 s apart, and the trace.
set -uo pipefail
. bench/gpu_env.sh || exit 1
python3 -m pip install -q --no-index --no-deps --target /tmp/pyspy .carry/py_spy-*.whl
run() { echo "== $*"; timeout 110 python3 bench/archive/offset_probe.py --clock --procs 4 "$@" 2>&1 | grep -v "^process .*ready" | tail -7; }
{ run --rounds 8 --streams 4; run --rounds 8 --streams 4 --kernel trivial3; } > $OUT/streams.txt
cat $OUT/streams.txt
mkdir -p /tmp/gd
GAUNTLET_JUDGE_TRACE=/tmp/gd/trace.jsonl python3 -m runner.evaluator tasks/triton2triton/softmax --tasks-root tasks --device cuda \
  --out /tmp/gd/r.json --candidate tasks/triton2triton/softmax/solution --graph > /tmp/gd/judge.txt 2>&1 &
pid=$!
for i in $(seq 45); do kill -0 $pid 2>/dev/null || break; sleep 1; done
{
  echo "after ${i} s, judge alive: $(kill -0 $pid 2>/dev/null && echo yes || echo no)"
  for k in 1 2 3 4 5; do
    for p in $(pgrep -f '^[^ ]*python3? -m runner.evaluator.kernel_runner'); do
      echo "== $k pid $p $(tr '\0' ' ' < /proc/$p/cmdline | cut -c60-110) state $(awk '{print $3}' /proc/$p/stat)"
      timeout 10 /tmp/pyspy/bin/py-spy dump --pid $p 2>&1 | grep -E "^\s+\S+ \(" | head -6
    done
    sleep 2
  done
  echo "== trace"; cut -c1-600 /tmp/gd/trace.jsonl 2>/dev/null
  echo "== judge"; tail -20 /tmp/gd/judge.txt
} > $OUT/graph-stacks.txt 2>&1
kill $pid 2>/dev/null
cut -c1-220 $OUT/graph-stacks.txt | head -120
