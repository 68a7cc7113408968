#!/usr/bin/env bash
# The next session's GPU call 2 (session 17's call2.sh), on nvidia-h200-x2 (or one H200), one shard per
# GPU: first the noop of every X->X task (cuda2cuda, triton2triton) into its own ledger (reordered in
# session 17: the noops had never run under the new margin and the flush rule), then what is left of the headline ledger (oracles), with clock_short's new margin: issue 30's "oracle
# and noop over the suite raise no flag". Copy call 1's ledger into the record folder first, and
# noop-ledger.jsonl if an earlier call began it. Run again (next-call3) until both ledgers are whole.
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/n2; mkdir -p $L
record_env
D=$(dirname "$0")
cp $D/headline-standin.jsonl $OUT/headline-standin.jsonl
[ -f $D/noop-ledger.jsonl ] && cp $D/noop-ledger.jsonl $OUT/noop-ledger.jsonl
XX=$(cd tasks && ls -d cuda2cuda/* triton2triton/* | tr '\n' ' ')
N=$(nvidia-smi -L | wc -l); [ "$N" -ge 2 ] || N=1   # session 17: only nvidia-h200 (one GPU) was lent
for k in $(seq 0 $((N-1))); do
  ( CUDA_VISIBLE_DEVICES=$k timeout $(left 540 540) python3 -u bench/judge_gpu.py fidelity --out $L/noop$k --agents noop \
      --tasks $XX --shard $k/$N --ledger $OUT/noop-ledger.jsonl > $L/noop$k.txt 2>&1
    CUDA_VISIBLE_DEVICES=$k timeout $(left 540 540) python3 -u bench/judge_gpu.py fidelity --out $L/head$k --suite headline \
      --shard $k/$N --ledger $OUT/headline-standin.jsonl > $L/head$k.txt 2>&1 ) &
done
wait; echo "shards done at ${SECONDS}s"
grep -hE "^\S+/\S+ +(oracle|noop)" $L/head*.txt $L/noop*.txt | cut -c1-300
tar czf $OUT/records.tgz -C /tmp n2 2>/dev/null; echo "wall ${SECONDS}s"
