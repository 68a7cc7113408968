#!/usr/bin/env bash
# GPU call 2 of 2026-11-26 (session 5), issue 10: is the per-process offset the empty event pair each
# runner subtracts (calibrated at its start-up, on a GPU still clocking up)? The probe prints the pair
# at start-up and hot, and the raw tight span; --recal subtracts the hot one. Then where the judge's
# --graph regime stops: stacks of the judge and its runners (kill -USR1) after 75 s.
set -uo pipefail
. bench/gpu_env.sh || exit 1
run() { echo "== $*"; timeout 120 python3 bench/archive/offset_probe.py --clock --procs 4 --rounds 6 "$@" 2>&1 | tail -12; }
{ run; run --recal; run --graph --recal; } > $OUT/empty.txt
cat $OUT/empty.txt
mkdir -p /tmp/gd
python3 -m runner.evaluator tasks/triton2triton/softmax --tasks-root tasks --device cuda --out /tmp/gd/r.json \
  --candidate tasks/triton2triton/softmax/solution --graph > /tmp/gd/judge.txt 2>&1 &
pid=$!
for i in $(seq 75); do kill -0 $pid 2>/dev/null || break; sleep 1; done
{
  echo "after ${i} s, judge alive: $(kill -0 $pid 2>/dev/null && echo yes || echo no)"
  ps -eo pid,etimes,pcpu,args | grep -E "runner.evaluator" | grep -v grep | cut -c1-200
  nvidia-smi --query-gpu=utilization.gpu,clocks.sm --format=csv,noheader
  pkill -USR1 -f "runner.evaluator.kernel_runner"; kill -USR1 $pid 2>/dev/null; sleep 3
  for f in /tmp/gauntlet-runner-*/runner.log; do echo "== $f"; tail -80 "$f"; done
  echo "== judge"; tail -80 /tmp/gd/judge.txt
  [ -f /tmp/gd/r.json ] && python3 -c "import json; d=json.load(open('/tmp/gd/r.json')); print(d.get('timing_method')); [print(c['config'], c.get('speedup'), c.get('flags'), c.get('error')) for c in d['configs']]"
} > $OUT/graph-stacks.txt 2>&1
kill $pid 2>/dev/null
cut -c1-220 $OUT/graph-stacks.txt | head -150
