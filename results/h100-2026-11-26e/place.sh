#!/usr/bin/env bash
# GPU call 3 of 2026-11-26 (session 5), issue 10: which per-process state carries the offset? Before
# every timed sequence, anew: the flush buffer / the memory segments / the loaded kernels. Then the
# judge's --graph stall: a graph replayed after the stream watch's profiler window, and the judge's
# and runners' stacks (kill -USR1 on the python processes only) after 60 s.
set -uo pipefail
. bench/gpu_env.sh || exit 1
run() { echo "== $*"; timeout 110 python3 bench/archive/offset_probe.py --clock --procs 4 --rounds 6 "$@" 2>&1 | tail -12; }
{ run --replace flush; run --replace mem; run --replace code; run --replace mem,flush,code; } > $OUT/place.txt
cat $OUT/place.txt
{ echo "== --graph --watch"; timeout 90 python3 bench/archive/offset_probe.py --clock --procs 2 --rounds 2 --reps 50 --graph --watch 2>&1 | tail -8; } > $OUT/graph-watch.txt
cat $OUT/graph-watch.txt
mkdir -p /tmp/gd
python3 -m runner.evaluator tasks/triton2triton/softmax --tasks-root tasks --device cuda --out /tmp/gd/r.json \
  --candidate tasks/triton2triton/softmax/solution --graph > /tmp/gd/judge.txt 2>&1 &
pid=$!
for i in $(seq 60); do kill -0 $pid 2>/dev/null || break; sleep 1; done
{
  echo "after ${i} s, judge alive: $(kill -0 $pid 2>/dev/null && echo yes || echo no)"
  ps -eo pid,etimes,pcpu,args | grep -E "runner.evaluator|bwrap|unshare|setpriv" | grep -v grep | cut -c1-160
  ls -la /tmp/gauntlet-runner-*/ 2>&1 | head -20
  for p in $(pgrep -f '^[^ ]*python3? -m runner.evaluator.kernel_runner'); do kill -USR1 $p; done
  kill -USR1 $pid 2>/dev/null; sleep 3
  for f in $(find /tmp -maxdepth 2 -name runner.log); do echo "== $f"; tail -60 "$f"; done
  echo "== judge"; tail -40 /tmp/gd/judge.txt
} > $OUT/graph-stacks.txt 2>&1
kill $pid 2>/dev/null
cut -c1-200 $OUT/graph-stacks.txt | head -150
