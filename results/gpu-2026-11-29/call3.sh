#!/usr/bin/env bash
# GPU call 3 of 2026-11-29 (session 7), the last of the session's budget; each step time-boxed by
# what is left of 520 s:
#  1. issue 30: the launch gate told not to wait for a runner whose warm-up calls ran it out (call
#     2: attention_prefill_gqa's honest oracle was flagged "steps skipped" on every config and
#     baseline_interference with the trace on and off; its PyTorch baseline calls .tolist(), so
#     every baseline call spent the gate's 5 ms give-up outside its samples). The same evaluation
#     with the call-2 reference (a copy of this tree with it, .carry/oldref_reference.py);
#  2. issue 33: the task's new reference on an NVIDIA GPU (torch's varlen_attn: one kernel, no
#     host sync), through the judge;
#  3. the headline ledger, as far as the time goes.
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c3; mkdir -p $L
LEDGER=results/gpu-2026-11-29/headline-timed.jsonl
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
python3 -c "import inspect, torch.nn.attention.varlen as v; print('varlen_attn', inspect.signature(v.varlen_attn))" 2>&1 | tail -1
T=torch2cuda/attention_prefill_gqa
mkdir -p /tmp/oldref && cp -r runner bench tasks /tmp/oldref/ && cp .carry/oldref_reference.py /tmp/oldref/tasks/$T/reference.py
(cd /tmp/oldref && PYTHONPATH=/tmp/site:$PWD timeout $(left 520 150) python3 -u bench/judge_gpu.py fidelity --agents oracle --out $L/gqa-old --tasks $T) > $L/gqa-old.txt 2>&1
echo "gqa old reference rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|process offset|^    (seen|unseen)" $L/gqa-old.txt | cut -c1-400
timeout $(left 520 120) python3 -u bench/judge_gpu.py fidelity --agents oracle --out $L/gqa-new --tasks $T > $L/gqa-new.txt 2>&1
echo "gqa new reference rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|process offset|^    (seen|unseen)" $L/gqa-new.txt | cut -c1-400
timeout $(left 520 520) python3 -u bench/judge_gpu.py fidelity --out $L/fid --suite headline --ledger $LEDGER > $L/fidelity.txt 2>&1
echo "fidelity rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)" $L/fidelity.txt | cut -c1-250
cp $LEDGER $OUT/ledger.jsonl 2>/dev/null
tar czf $OUT/records.tgz -C /tmp c3 2>/dev/null; echo "wall ${SECONDS}s"
