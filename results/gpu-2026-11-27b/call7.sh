#!/usr/bin/env bash
# GPU call 7 of 2026-11-27 (session 11), issue 10: call 6's red team passed empty_graph (a kernel
# whose CUDA graph records nothing). That cheat alone, the checkout against the same code without the
# profiler session at each runner's start (.carry/ab2), with each run's notes.
# NOT RUN: the device tool refused it (the session's device time was spent). Kept as the next step.
set -uo pipefail
. bench/gpu_env.sh || exit 1
for v in checkout ab2; do
  code=""; [ $v = ab2 ] && code="--code .carry/ab2"
  timeout 100 python3 -u bench/judge_gpu.py redteam --cheats empty_graph $code --out /tmp/red-$v > $OUT/red-$v.txt 2>&1
  python3 -c "
import json,sys; d=json.load(open('/tmp/red-$v/red-empty_graph.json'))
print('$v', d.get('timing_method','')[:80]); print([c.get('flags') for c in d.get('configs',[])]); print(d.get('notes'), d.get('flags'))" >> $OUT/red-$v.txt 2>&1
  cat $OUT/red-$v.txt | cut -c1-400
done
