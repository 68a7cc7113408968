#!/usr/bin/env bash
# GPU call 2 of 2026-11-29 (session 7); each step time-boxed by what is left of 560 s:
#  1. issue 30: torch2cuda/attention_prefill_gqa's honest oracle was flagged in call 1
#     (baseline_interference: 1.38 ms beside the candidate, 0.92 ms in the clean room; "steps
#     skipped" on every config). Its PyTorch baseline syncs (cu_seqlens.tolist()) and launches per
#     sequence: host-bound. The same evaluation three ways: trace on (as call 1), trace off
#     (GAUNTLET_DEVICE_TRACE=0), trace on without the library's 10 ms flush thread (a patched copy);
#  2. issue 33: the triton2triton rewrites again, timed with the host's launch covered (time_fn's
#     200 us sleep kernel; call 1 timed Triton's Python launcher against eager's C++ one);
#  3. the headline ledger, as far as the time goes.
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c2; mkdir -p $L
LEDGER=results/gpu-2026-11-29/headline-timed.jsonl
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
mkdir -p /tmp/nt && cp -r runner /tmp/nt/ && sed -i 's/pthread_create(&thread, NULL, flusher, NULL) == 0/0/' /tmp/nt/runner/evaluator/devtrace_inject.c
grep -c "flusher, NULL) == 0" /tmp/nt/runner/evaluator/devtrace_inject.c
T=torch2cuda/attention_prefill_gqa
for mode in on off nothread; do
  case $mode in
    on) E=(); C=();;
    off) E=(env GAUNTLET_DEVICE_TRACE=0); C=();;
    nothread) E=(); C=(--code /tmp/nt);;
  esac
  timeout $(left 560 120) "${E[@]}" python3 -u bench/judge_gpu.py fidelity --agents oracle --out $L/gqa-$mode --tasks $T "${C[@]}" > $L/gqa-$mode.txt 2>&1
  echo "gqa $mode rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|process offset|^    (seen|unseen)" $L/gqa-$mode.txt | cut -c1-330
done
(cd .carry/tb && PYTHONPATH=/tmp/site:$PWD timeout $(left 560 120) python3 -u bench/baselines_vs_eager.py --json $L/baselines.json \
  --only triton2triton/add_rmsnorm,triton2triton/embedding,triton2triton/l2norm,triton2triton/log_softmax,triton2triton/matmul_bias_relu,triton2triton/maxpool1d,triton2triton/rmsnorm,triton2triton/row_max,triton2triton/row_mean,triton2triton/softmax,triton2triton/transpose) > $L/baselines.txt 2>&1
echo "baselines rc=$? at ${SECONDS}s"; grep -v "^ " $L/baselines.txt | grep -A60 "^task " | cut -c1-200
cp $L/baselines.json $OUT/baselines.json 2>/dev/null
timeout $(left 560 560) python3 -u bench/judge_gpu.py fidelity --out $L/fid --suite headline --ledger $LEDGER > $L/fidelity.txt 2>&1
echo "fidelity rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)" $L/fidelity.txt | cut -c1-250
cp $LEDGER $OUT/ledger.jsonl 2>/dev/null
tar czf $OUT/records.tgz -C /tmp c2 2>/dev/null; echo "wall ${SECONDS}s"
