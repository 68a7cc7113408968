#!/usr/bin/env bash
# GPU call 4 of 2026-11-29 (session 12), 330 s: the noop flagged baseline_interference in call 2 run
# again (is the flag reproducible?), then fused_moe_gptq_awq's noop that call 1 ran out of time for.
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/c4; mkdir -p $L
timeout $(left 330 200) python3 -u bench/judge_gpu.py fidelity --out $L/rc --tasks-root .aka/tasks --agents noop --tasks triton2triton/vllm_triton_reshape_and_cache_flash triton2triton/vllm_triton_reshape_and_cache_flash > $L/rc.txt 2>&1
echo "rc rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|^    (seen|unseen)|process offset|not applied" $L/rc.txt | cut -c1-400
timeout $(left 330 330) python3 -u bench/judge_gpu.py fidelity --out $L/moe --tasks-root .aka/tasks --agents noop --tasks triton2triton/vllm_triton_fused_moe_gptq_awq > $L/moe.txt 2>&1
echo "moe rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|^    (seen|unseen)|process offset|not applied" $L/moe.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp c4 2>/dev/null; echo "wall ${SECONDS}s"
