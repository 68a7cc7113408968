#!/usr/bin/env bash
# Session 15, call 1 (2026-11-30): session 14's next-call1.sh as written.
# Copy it into that session's record folder; carry .whl, .carry and .aka (bench/prepare_carry.sh).
# Each step time-boxed by what is left of 575 s:
#  1. issue 30: the red team's mapped_host_result must now carry host_memory flags (static checks
#     name host memory a kernel can address); honest must stay clean;
#  2. issue 30: the noops call 3 of 2026-11-30 cut: cuda2cuda/embedding and AKA reshape_and_cache_flash
#     (the clean room's stand-in: no baseline_interference);
#  3. issue 30: the stand-in over a wider sample, oracle timed on the headline suite's first tasks into a
#     ledger (bench/judge_gpu.py fidelity --suite headline --ledger), no flag expected.
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/c1; mkdir -p $L
record_env
timeout $(left 575 100) python3 -u bench/judge_gpu.py redteam --out $L/rt --cheats honest mapped_host_result > $L/rt.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; grep -vE "^\s*$" $L/rt.txt | cut -c1-900 | tail -4
timeout $(left 575 80) python3 -u bench/judge_gpu.py fidelity --out $L/fidn --agents noop --tasks cuda2cuda/embedding > $L/fidn.txt 2>&1
echo "noop rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|ok=False" $L/fidn.txt | cut -c1-400
timeout $(left 575 130) python3 -u bench/judge_gpu.py fidelity --out $L/rc --tasks-root .aka/tasks --agents noop --tasks triton2triton/vllm_triton_reshape_and_cache_flash > $L/rc.txt 2>&1
echo "reshape rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|timed twice" $L/rc.txt | cut -c1-400
timeout $(left 575 575) python3 -u bench/judge_gpu.py fidelity --out $L/head --suite headline --ledger $OUT/headline-standin.jsonl > $L/head.txt 2>&1
echo "headline rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)" $L/head.txt | cut -c1-300 | tail -12
tar czf $OUT/records.tgz -C /tmp c1 2>/dev/null; echo "wall ${SECONDS}s"
