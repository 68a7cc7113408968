#!/usr/bin/env bash
# Session 18 GPU call 2, one H200 (nvidia-h200); carry .whl, .carry, .aka. Call 1 found the
# triton2triton/softmax overhead at +25.3 % over two runs (the limit is +20 %) now that the clean
# room's stand-in works; about 1 s of each evaluation's 5 s is the device trace's flusher asking
# CUPTI for records every 10 ms through the timed batches. The library now holds that flush off
# during a timed batch (gauntlet_devtrace_hold; the batch's forced flush hands its records over):
#  1. bench/trace_call_cost.py: off, shipped (held), unheld (as before), no-flusher, both orders;
#  2. the overhead on triton2triton/softmax again, both evaluators on this tree's tasks;
#  3. what time is left: the X->X noops' ledger.
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/n2; mkdir -p $L
D=$(dirname "$0")
record_env
timeout $(left 575 110) python3 -u bench/trace_call_cost.py --batches 40 --modes off shipped unheld no-flusher \
  --json $OUT/trace_call_cost.json > $L/tcc.txt 2>&1
echo "trace_call_cost rc=$? at ${SECONDS}s"; tail -6 $L/tcc.txt
timeout $(left 575 110) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old --same-tasks \
  --tasks triton2triton/softmax triton2triton/softmax > $L/ov.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -E "'ratio'" $L/ov.txt | cut -c1-120
cp $D/noop-ledger.jsonl $OUT/
XX=$(cd tasks && ls -d cuda2cuda/* triton2triton/* | tr '\n' ' ')
timeout $(left 575 575) python3 -u bench/judge_gpu.py fidelity --out $L/noop --agents noop --tasks $XX \
  --ledger $OUT/noop-ledger.jsonl > $L/noop.txt 2>&1
echo "noop rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)" $L/noop.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp n2 2>/dev/null; echo "wall ${SECONDS}s"
