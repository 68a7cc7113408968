#!/usr/bin/env bash
# GPU call 3 of 2026-11-26 (session 8), issue 10: (1) triton2triton/layernorm's oracle twice more,
# traces kept (call 2 flagged it "steps skipped" once: the time bound's negative side); (2) where the
# split's overhead goes: on triton2triton/softmax, the in-process evaluator (.carry/old) and this
# judge (overhead mode), then this judge without the process offset, twice, interleaved.
set -uo pipefail
. bench/gpu_env.sh || exit 1
R=/tmp/r; mkdir -p $R/ln1 $R/ln2 $R/off1 $R/off2
pack() { tar -C $R -czf $OUT/raw.tgz . 2>/dev/null; }
for i in 1 2; do
  timeout 80 python3 -u bench/judge_gpu.py fidelity --out $R/ln$i --tasks triton2triton/layernorm --repeats 0 > $OUT/ln$i.txt 2>&1; pack
done
for i in 1 2; do
  timeout 90 python3 -u bench/judge_gpu.py overhead --out $R/ovh$i --old .carry/old --tasks triton2triton/softmax > $OUT/overhead$i.txt 2>&1
  timeout 60 python3 -u bench/judge_gpu.py fidelity --out $R/off$i --tasks triton2triton/softmax --repeats 0 --eval-args=--no-process-offset > $OUT/nooffset$i.txt 2>&1; pack
done
grep -E "oracle |timing_mismatch" $OUT/ln*.txt | cut -c1-220
grep -hE "old_s" $OUT/overhead*.txt | cut -c1-120; grep -hE "oracle " $OUT/nooffset*.txt
