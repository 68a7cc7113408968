#!/usr/bin/env bash
# Session 19 GPU call 3, on one H200; carry .whl, .carry, .aka. Call 1's placement probe: the place
# of a kernel's own output moved scatter_add's 37 us call 34-38 us (the same place twice 0.3 % apart),
# and each runner's allocator handed its kernel the same block in every batch. This tree moves those
# blocks every batch (kernel_runner._move_own_blocks: the allocator's cache emptied, a spacer of
# random size held through the batch, the outputs' sizes landed behind it). So:
#  1. the noops call 1 read (scatter_add twice, cumsum) and gelu and mish (10 us, 4.3 and 3.6 % in
#     session 18), on this tree;
#  2. two oracles whose kernels allocate their own outputs (no flag, correct);
#  3. the red team's two cheats call 2 had no time for (cublas_matmul, empty_graph), and honest;
#  4. the overhead on triton2triton/softmax once (the cache emptied every batch costs time);
#  5. what time is left: the headline ledger (7 of 94 oracles left).
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/n3; mkdir -p $L
D=$(dirname "$0")
record_env
for r in 0 1; do
  tasks="triton2triton/scatter_add"; [ $r = 0 ] && tasks="$tasks triton2triton/cumsum triton2triton/gelu triton2triton/mish"
  timeout $(left 560 200) python3 -u bench/judge_gpu.py fidelity --out $L/nz$r --agents noop --tasks $tasks > $L/nz$r.txt 2>&1
  echo "noops $r rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +noop" $L/nz$r.txt | cut -c1-300
done
python3 bench/noop_floor.py $L/nz0 $L/nz1 | cut -c1-400
timeout $(left 560 90) python3 -u bench/judge_gpu.py fidelity --out $L/or --agents oracle \
  --tasks triton2triton/scatter_add torch2triton/gelu > $L/or.txt 2>&1
echo "oracles rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +oracle" $L/or.txt | cut -c1-300
timeout $(left 560 110) python3 -u bench/judge_gpu.py redteam --out $L/rt --cheats honest cublas_matmul empty_graph > $L/rt.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/rt.txt | cut -c1-300
timeout $(left 560 80) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old --same-tasks \
  --tasks triton2triton/softmax > $L/ov.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -E "'ratio'" $L/ov.txt | cut -c1-120
cp $D/headline-standin.jsonl $OUT/
timeout $(left 560 560) python3 -u bench/judge_gpu.py fidelity --out $L/head --suite headline \
  --ledger $OUT/headline-standin.jsonl > $L/head.txt 2>&1
echo "headline rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)" $L/head.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp n3 2>/dev/null; echo "wall ${SECONDS}s"
