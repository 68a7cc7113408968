#!/usr/bin/env bash
# GPU call 5 of 2026-11-26 (session 7), issue 10: the offset measured on the config of fewest input
# bytes (call 4: measured on cuda2cuda/rmsnorm's first config, 130 us, it moved a 36 us config by
# 3.8 %). triton2triton/softmax oracle + noop x3, cuda2cuda/rmsnorm oracle + noop x2; then Nsight
# Compute against the judge's solution times on cuda2cuda/softmax (the bench found its solution
# folder only under the task itself before).
set -uo pipefail
. bench/gpu_env.sh || exit 1
mkdir -p /tmp/s /tmp/r /tmp/n
timeout 150 python3 -u bench/judge_gpu.py fidelity --out /tmp/s --tasks triton2triton/softmax --repeats 3 > $OUT/fid-softmax.txt 2>&1
timeout 230 python3 -u bench/judge_gpu.py fidelity --out /tmp/r --tasks cuda2cuda/rmsnorm --repeats 2 > $OUT/fid-rmsnorm.txt 2>&1
timeout 100 python3 -u bench/judge_gpu.py ncu --out /tmp/n --tasks cuda2cuda/softmax > $OUT/ncu.txt 2>&1
for f in fid-softmax fid-rmsnorm; do echo "== $f"; grep -E "noop |oracle |noop_|Error|error|process offset" $OUT/$f.txt | cut -c1-240; done
echo "== ncu"; tail -4 $OUT/ncu.txt
