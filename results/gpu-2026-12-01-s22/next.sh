#!/usr/bin/env bash
# The next session's GPU calls (written 2026-12-01, session 22); any one-GPU kind (on an H100 run
# results/gpu-2026-11-30-s19/next-h100.sh first: issue 30's "done when"). Carry .whl and .carry
# (bench/prepare_carry.sh: .carry/old is e9f494d's runner, the overhead's base). Copy this folder's
# suite.jsonl (135 lines) into the new session's folder first.
#   bash results/gpu-2026-12-01-s22/next.sh LEDGER STEP...   STEP: overhead busy unflushed redteam sweep
#  overhead  issue 30's limit (+20 % evaluation wall time against e9f494d) with the flush a pure read
#            (0.32 ms shorter a timed call) and the DRAM witness on (~5 % of an evaluation), then
#            with GAUNTLET_DRAM_WITNESS=0: what the witness itself costs;
#  busy      bench/busy_probe.py: do the device's busy counters, sampled by the judge's sampler,
#            match the kernel time the trace records (the open row: selective silencing)?
#  redteam   the whole GPU red team with the witness on (its first whole run; ~480 s);
#  unflushed the witness's differential (policy.DRAM_UNFLUSHED, off until this runs): honest,
#            flush_aliased and flush_aliased_bulky with GAUNTLET_DRAM_UNFLUSHED=1, then the sweep with it
#            on (no flag may come of it on an oracle or noop; then turn it on in policy.py);
#  sweep     oracle and noop through the ledger with what is left of the call.
set -uo pipefail
. bench/gpu_env.sh || exit 1
LEDGER=${1:?a ledger path under results/}; shift
L=/tmp/n23; rm -rf $L; mkdir -p $L
record_env
cp "$LEDGER" $OUT/ 2>/dev/null || touch $OUT/$(basename "$LEDGER")
LED=$OUT/$(basename "$LEDGER")
for step in "$@"; do
  case $step in
    overhead)
      timeout $(left 560 150) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old \
        --tasks triton2triton/softmax triton2triton/softmax > $L/ov.txt 2>&1
      echo "overhead rc=$? at ${SECONDS}s"; grep -E "'ratio'|total_s" $L/ov.txt | cut -c1-160
      GAUNTLET_DRAM_WITNESS=0 timeout $(left 560 150) python3 -u bench/judge_gpu.py overhead --out $L/ov0 --old .carry/old \
        --tasks triton2triton/softmax triton2triton/softmax > $L/ov0.txt 2>&1
      echo "overhead, witness off rc=$? at ${SECONDS}s"; grep -E "'ratio'|total_s" $L/ov0.txt | cut -c1-160;;
    busy)
      timeout $(left 560 90) python3 -u bench/busy_probe.py --out $OUT/busy > $OUT/busy.txt 2>&1
      echo "busy probe rc=$? at ${SECONDS}s"; cut -c1-400 $OUT/busy.txt | tail -14;;
    redteam)
      timeout $(left 560 520) python3 -u bench/judge_gpu.py redteam --out $L/rt > $L/rt.txt 2>&1
      echo "redteam rc=$? at ${SECONDS}s"; grep -E "correct=" $L/rt.txt | cut -c1-300
      grep -ho "l2_flush: the device's DRAM[^\"]*" $L/rt/red-*.json | cut -c1-200 | sort | uniq -c | head;;
    unflushed)
      GAUNTLET_DRAM_UNFLUSHED=1 timeout $(left 560 200) python3 -u bench/judge_gpu.py redteam --out $L/rtu \
        --cheats honest flush_aliased flush_aliased_bulky > $L/rtu.txt 2>&1
      echo "redteam, differential rc=$? at ${SECONDS}s"; grep -E "correct=" $L/rtu.txt | cut -c1-300
      grep -h '"unflushed' $L/rtu/*.trace.jsonl | cut -c1-300 | head
      GAUNTLET_DRAM_UNFLUSHED=1 timeout $(left 560 560) python3 -u bench/judge_gpu.py fidelity --out $L/suu \
        --tasks-root tasks --agents oracle noop --ledger $LED > $L/suu.txt 2>&1
      echo "sweep, differential rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)" $L/suu.txt | cut -c1-250
      grep -ho "more than its calls with no flush[^\"]*" $L/suu/*.json | sort | uniq -c | head;;
    sweep)
      timeout $(left 560 560) python3 -u bench/judge_gpu.py fidelity --out $L/su --tasks-root tasks \
        --agents oracle noop --ledger $LED > $L/su.txt 2>&1
      echo "sweep rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)" $L/su.txt | cut -c1-250
      echo "ledger lines: $(grep -c . $LED)";;
  esac
done
tar czf $OUT/records.tgz -C /tmp n23 2>/dev/null; echo "wall ${SECONDS}s"
