#!/usr/bin/env bash
# GPU call 1 of 2026-11-29 (session 12), written in session 11 as next-call1.sh; the record
# is results/gpu-2026-11-29f.md). Each step time-boxed by what is left of 575 s:
#  1. issue 30: the red-team cheats with the fixed FINDINGS_CLEARED prefix: cuBLAS (LIBRARY_WORDS) and
#     softmax with the runner's findings emptied; expected, `trace=` non-empty for each but honest;
#  2. issue 30: the declared-kernel rule, finished (cuda2cuda/softmax; the noops of the four);
#  3. issue 30/34: AKA's fused_moe noops again, no ledger: the offset limit and the resampled intervals;
#  4. issue 33: the 21 cuda2cuda baselines never measured against eager (the rule; then speedup_caps.py).
set -uo pipefail
. bench/gpu_env.sh || exit 1      # also left() and record_env
L=/tmp/c1; mkdir -p $L
record_env
timeout 60 python3 bench/int8_ceiling_probe.py 2>&1 | tail -8     # roofline: the int8 ceiling read 126 TOPS on an H200
timeout $(left 575 150) python3 -u bench/judge_gpu.py redteam --out $L/rt --cheats honest cublas_matmul findings_cleared > $L/rt.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; grep -vE "^\s*$" $L/rt.txt | cut -c1-600 | tail -12
timeout $(left 575 60) python3 -u bench/judge_gpu.py fidelity --out $L/decl1 --tasks cuda2cuda/softmax --agents oracle > $L/decl.txt 2>&1
timeout $(left 575 120) python3 -u bench/judge_gpu.py fidelity --out $L/decl2 --tasks cuda2cuda/softmax torch2cuda/topk torch2cuda/softmax cuda2cuda/topk --agents noop >> $L/decl.txt 2>&1
echo "declared rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|^    (seen|unseen)|flag" $L/decl.txt | cut -c1-300
timeout $(left 575 150) python3 -u bench/judge_gpu.py fidelity --out $L/moe --tasks-root .aka/tasks --agents noop --tasks triton2triton/vllm_triton_fused_moe triton2triton/vllm_triton_fused_moe_gptq_awq > $L/moe.txt 2>&1
echo "fused_moe rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|^    (seen|unseen)|process offset|not applied" $L/moe.txt | cut -c1-300
CX=cuda2cuda/add_rmsnorm,cuda2cuda/attention_causal,cuda2cuda/bmm,cuda2cuda/cross_entropy,cuda2cuda/cumsum,cuda2cuda/embedding,cuda2cuda/geglu,cuda2cuda/groupnorm,cuda2cuda/hardswish,cuda2cuda/l2norm,cuda2cuda/layernorm,cuda2cuda/leaky_relu,cuda2cuda/log_softmax,cuda2cuda/mish,cuda2cuda/rmsnorm,cuda2cuda/rotary,cuda2cuda/row_max,cuda2cuda/sigmoid,cuda2cuda/silu_mul,cuda2cuda/softplus,cuda2cuda/transpose
timeout $(left 575 575) python3 -u bench/baselines_vs_eager.py --only $CX --json $OUT/baselines-cuda.json > $L/base.txt 2>&1
echo "baselines rc=$? at ${SECONDS}s"; tail -30 $L/base.txt | cut -c1-250
tar czf $OUT/records.tgz -C /tmp c1 2>/dev/null; echo "wall ${SECONDS}s"
