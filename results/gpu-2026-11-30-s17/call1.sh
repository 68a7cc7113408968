#!/usr/bin/env bash
# Session 17 GPU call 1 (written in session 16 as next-call1.sh). Copy it into that session's record
# folder, with this folder's headline-standin.jsonl; carry .whl, .carry and .aka (bench/prepare_carry.sh).
# One H200 (nvidia-h200), nothing else running on it. Each step time-boxed by what is left of 575 s:
#  1. where the trace's host cost per timed call goes (bench/trace_call_cost.py: off, shipped, no
#     end marker, no forced flush, kernels-only library, no flusher thread; both orders);
#  2. issue 30's overhead on cuda2cuda/softmax alone, twice, and triton2triton/softmax once, both
#     evaluators on this tree's tasks (--same-tasks). Session 16 read +20.1 % and +13.2 % with e9f494d
#     judging its own tasks, whose cuda2cuda/softmax baseline was 2.8x slower on the smallest
#     configs: the faster baseline needs more rounds there (timing.more_rounds), no cost of the judge's;
#  3. the two red-team cheats session 16's call 1 had no time for (cublas_matmul, empty_graph), and
#     skipped_l2_flush and honest: does the device trace's new `l2_flush` rule fire (its trace= field)
#     on the cheat, and stay quiet on honest; clock_shaved (every sample 5 % short, under clock_short's
#     margin): the device-time floor should bring its x= back to honest's (unfloored it would read 1.05x honest's);
#  4. what time is left: the headline ledger (23 of 94 left; oracles with clock_short's new margin).
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/n1; mkdir -p $L
D=$(dirname "$0")
record_env
timeout $(left 575 150) python3 -u bench/trace_call_cost.py --json $L/trace_call_cost.json > $L/tcc.txt 2>&1
echo "trace_call_cost rc=$? at ${SECONDS}s"; tail -8 $L/tcc.txt
timeout $(left 575 230) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old --same-tasks \
  --tasks cuda2cuda/softmax cuda2cuda/softmax triton2triton/softmax > $L/ov.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -E "'ratio'|total_s" $L/ov.txt | cut -c1-120
timeout $(left 575 150) python3 -u bench/judge_gpu.py redteam --out $L/rt --cheats honest skipped_l2_flush clock_shaved cublas_matmul empty_graph > $L/rt.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/rt.txt | cut -c1-300
cp $D/headline-standin.jsonl $OUT/headline-standin.jsonl
timeout $(left 575 575) python3 -u bench/judge_gpu.py fidelity --out $L/head --suite headline \
  --ledger $OUT/headline-standin.jsonl > $L/head.txt 2>&1
echo "headline rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)" $L/head.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp n1 2>/dev/null; echo "wall ${SECONDS}s"
