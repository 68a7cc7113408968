#!/usr/bin/env bash
# Session 14 GPU call 1 (2026-11-30): session 13's results/gpu-2026-11-29f/next-call1.sh, plus step 1b.
# Carries .whl, .carry and .aka (bench/prepare_carry.sh rebuilds them). If step 1 or 2 fails for a task,
# its old baseline is `git show 770caa2:tasks/<family>/<task>/kernel.*`.
# Each step time-boxed by what is left of 575 s:
#  1. issue 33: the seven rewritten cuda2cuda baselines and their hip2hip twins (HIP through
#     bench/hip_shim), oracle and noop through the judge, correctness only, 8 at once: every oracle
#     correct and unflagged, every noop correct and unflagged (an X->X task);
#  2. issue 33: the seven against eager (the rule), then `bench/speedup_caps.py --write --source`;
#  3. roofline: the int8 ceiling as the judge now measures it (column-major B), three repeats;
#  4. issue 30: the clean room's confirmation on a GPU: baseline_hog must still be flagged, honest not;
#     AKA's host-bound reshape_and_cache_flash noop twice (a trip now times the clean room again);
#  5. issue 30: what /proc shows of device-addressable host memory (bench/mapped_memory_probe.py).
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/c1; mkdir -p $L
record_env
K="add_rmsnorm attention_causal embedding l2norm log_softmax rmsnorm row_max"
T=""; for k in $K; do T="$T cuda2cuda/$k hip2hip/$k"; done
timeout $(left 575 200) python3 -u bench/judge_gpu.py suite --out $L/suite --jobs 8 --hip-on-cuda --tasks $T > $L/suite.txt 2>&1
echo "suite rc=$? at ${SECONDS}s"; tail -32 $L/suite.txt | cut -c1-300
# 1b. the five solutions changed since their last GPU run: torch2cuda silu_mul and bias_gelu_residual
#     (type punning replaced by memcpy) and torch2hip silu_mul, groupnorm, layernorm (HIP-CPU fixes), oracle only
timeout $(left 575 120) python3 -u bench/judge_gpu.py suite --out $L/sol --jobs 5 --hip-on-cuda --agents oracle --tasks torch2cuda/silu_mul torch2cuda/bias_gelu_residual torch2hip/silu_mul torch2hip/groupnorm torch2hip/layernorm > $L/sol.txt 2>&1
echo "solutions rc=$? at ${SECONDS}s"; tail -12 $L/sol.txt | cut -c1-300
O=$(echo $K | sed 's/\([a-z_]*\)/cuda2cuda\/\1/g; s/ /,/g')
timeout $(left 575 200) python3 -u bench/baselines_vs_eager.py --only $O --json $OUT/baselines-7.json > $L/base.txt 2>&1
echo "baselines rc=$? at ${SECONDS}s"; tail -12 $L/base.txt | cut -c1-250
timeout $(left 575 45) python3 -u bench/mapped_memory_probe.py --json $OUT/mapped-memory.json 2>&1 | tail -8 | cut -c1-400
timeout $(left 575 60) python3 -u bench/ceilings.py --repeat 3 2>&1 | tail -12
timeout $(left 575 120) python3 -u bench/judge_gpu.py redteam --out $L/rt --cheats honest baseline_hog > $L/rt.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; grep -vE "^\s*$" $L/rt.txt | cut -c1-500 | tail -6
timeout $(left 575 575) python3 -u bench/judge_gpu.py fidelity --out $L/rc --tasks-root .aka/tasks --agents noop --tasks triton2triton/vllm_triton_reshape_and_cache_flash triton2triton/vllm_triton_reshape_and_cache_flash > $L/rc.txt 2>&1
echo "reshape rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|timed twice" $L/rc.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp c1 2>/dev/null; echo "wall ${SECONDS}s"
