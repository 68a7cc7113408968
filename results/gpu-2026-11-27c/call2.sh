#!/usr/bin/env bash
# GPU call 2 of 2026-11-27 (session 12), issue 10. (1) bench/archive/instance_bias.py: do loaded copies of one
# kernel, or its buffers' places, read apart in one process? (2) A/B, interleaved per task, one noop
# each: the committed runner (.carry/head = 43e7b45's runner/) against this checkout, whose runners
# open one empty profiler session before anything is built (kernel_runner._attach_profiler), every
# sample in the trace. (3) graph mode with that session: the empty_graph cheat and an honest noop.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
timeout 100 python3 -u bench/archive/instance_bias.py --copies 6 --regimes cold --out /tmp/instance.json > $OUT/instance.txt 2>&1
cat $OUT/instance.txt | cut -c1-200
export GAUNTLET_JUDGE_TRACE_SAMPLES=1
for t in cuda2cuda/gelu triton2triton/permute triton2triton/gelu cuda2cuda/log_softmax; do
  for v in head attach; do
    code=""; [ $v = head ] && code="--code .carry/head"
    timeout 90 python3 -u bench/judge_gpu.py fidelity --out /tmp/s/$v --agents noop --tasks $t $code > /tmp/s-$v-${t//\//_}.txt 2>&1
    echo "$v $t $(grep -E 'noop_abs_dev_(median|max)' /tmp/s-$v-${t//\//_}.txt | tr -d '\n ')"
  done
done | tee $OUT/ab.txt
timeout 60 python3 -u bench/judge_gpu.py redteam --cheats empty_graph --out /tmp/red > $OUT/graph.txt 2>&1
timeout 60 python3 -u bench/judge_gpu.py fidelity --out /tmp/s/graph --agents noop --tasks triton2triton/softmax --eval-args=--graph >> $OUT/graph.txt 2>&1
grep -E "correct=|s flags|timing |noop_abs" $OUT/graph.txt | cut -c1-300
tar czf $OUT/traces.tgz -C /tmp/s . 2>/dev/null
