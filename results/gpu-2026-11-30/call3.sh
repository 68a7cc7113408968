#!/usr/bin/env bash
# Session 14 GPU call 3 (2026-11-30), code: the stand-in takes the baseline's Triton cache and warms up
# beside the baseline; the seven rewritten cuda2cuda baselines' caps re-derived (gpu-2026-11-30 records).
#  1. issue 30: evaluation wall time against e9f494d (call 2: +40 %, the stand-in's clean room 3.95 s
#     of it against 0.55 s alone);
#  2. issue 33: the seven rewritten cuda2cuda tasks' oracles timed by the judge (first timing through the
#     judge; their caps now from call 1), and two noops: no flag;
#  3. issue 30: the AKA reshape_and_cache_flash noop again (clean room with the stand-in; call 2: unflagged).
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/c3; mkdir -p $L
record_env
timeout $(left 540 100) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old --tasks triton2triton/softmax > $L/ov.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep "total_s" $L/ov.txt | cut -c1-300
T=""; for k in add_rmsnorm attention_causal embedding l2norm log_softmax rmsnorm row_max; do T="$T cuda2cuda/$k"; done
timeout $(left 540 330) python3 -u bench/judge_gpu.py fidelity --out $L/fid --agents oracle --tasks $T > $L/fid.txt 2>&1
echo "oracles rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|ok=False" $L/fid.txt | cut -c1-400
timeout $(left 540 90) python3 -u bench/judge_gpu.py fidelity --out $L/fidn --agents noop --tasks cuda2cuda/add_rmsnorm cuda2cuda/embedding > $L/fidn.txt 2>&1
echo "noops rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|ok=False" $L/fidn.txt | cut -c1-400
timeout $(left 540 540) python3 -u bench/judge_gpu.py fidelity --out $L/rc --tasks-root .aka/tasks --agents noop --tasks triton2triton/vllm_triton_reshape_and_cache_flash > $L/rc.txt 2>&1
echo "reshape rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|timed twice" $L/rc.txt | cut -c1-400
tar czf $OUT/records.tgz -C /tmp c3 2>/dev/null; echo "wall ${SECONDS}s"
