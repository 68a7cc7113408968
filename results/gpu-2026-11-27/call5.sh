#!/usr/bin/env bash
# GPU call 5 of 2026-11-27 (session 10), issue 10: the native launch check (a profiler session in
# the candidate's runner alone, at its first correct config) run in the baseline's runner too. A/B
# in one call, interleaved: this tree (both) against .carry/pre (the same code with the check in the
# candidate's runner only), noop on the native tasks whose small configs read the candidate slower
# in call 4.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
for task in cuda2cuda/log_softmax cuda2cuda/l2norm cuda2cuda/gelu cuda2cuda/layernorm; do
  for code in new pre; do
    name=$(basename $task)-$code
    extra=(); [ $code = pre ] && extra=(--code .carry/pre)
    echo "== $name" >> $OUT/ab.txt
    timeout 60 python3 -u bench/judge_gpu.py fidelity --out /tmp/$name --agents noop --tasks $task "${extra[@]}" >> $OUT/ab.txt 2>&1
  done
done
grep -E "^== |noop |seen|unseen|noop_abs" $OUT/ab.txt | cut -c1-140
