#!/usr/bin/env bash
# GPU call 4 of 2026-11-26 (session 7), issue 10: the process offset on five more X->X tasks (oracle +
# one noop each, every seen and hidden config), and the judge's solution times against Nsight Compute
# (candidate times: the offset moves only baseline times).
set -uo pipefail
. bench/gpu_env.sh || exit 1
mkdir -p /tmp/m /tmp/n
timeout 400 python3 -u bench/judge_gpu.py fidelity --out /tmp/m --tasks triton2triton/layernorm triton2triton/matmul triton2triton/cumsum cuda2cuda/transpose cuda2cuda/rmsnorm --repeats 1 > $OUT/fid-more.txt 2>&1
timeout 110 python3 -u bench/judge_gpu.py ncu --out /tmp/n --tasks triton2triton/softmax cuda2cuda/softmax > $OUT/ncu.txt 2>&1
echo "== fid-more"; grep -E "noop |oracle |noop_|Error|error|process offset" $OUT/fid-more.txt | cut -c1-240
echo "== ncu"; tail -25 $OUT/ncu.txt
