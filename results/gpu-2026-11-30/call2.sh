#!/usr/bin/env bash
# Session 14 GPU call 2 (2026-11-30), code: the clean room's stand-in (a third runner of the baseline's
# code alternates with the baseline in the clean room, as the candidate did beside it). In order:
#  1. issue 33: cuda2cuda/l2norm against eager (call 1's --only list dropped it: a sed that split "l2norm");
#  2. issue 30: AKA's host-bound reshape_and_cache_flash noop twice (call 1: baseline_interference on both,
#     0.19-0.25 ms beside its own code, 0.158 ms alone): the stand-in's clean room must not flag it;
#  3. issue 30: evaluation wall time against e9f494d (the +20 % bound) with the third runner;
#  4. issue 30: mapped memory: the probe's zero_copy scenario (call 1: its child had no source file);
#  5. issue 30: the red team's honest, baseline_hog, forged_record and the new mapped_host_result.
set -uo pipefail
. bench/gpu_env.sh || exit 1
L=/tmp/c2; mkdir -p $L
record_env
timeout $(left 575 60) python3 -u bench/baselines_vs_eager.py --only cuda2cuda/l2norm --json $OUT/baselines-l2norm.json > $L/base.txt 2>&1
echo "baselines rc=$? at ${SECONDS}s"; tail -6 $L/base.txt | cut -c1-250
timeout $(left 575 230) python3 -u bench/judge_gpu.py fidelity --out $L/rc --tasks-root .aka/tasks --agents noop --tasks triton2triton/vllm_triton_reshape_and_cache_flash triton2triton/vllm_triton_reshape_and_cache_flash > $L/rc.txt 2>&1
echo "reshape rc=$? at ${SECONDS}s"; grep -E "^\S+/\S+ +(oracle|noop)|timed twice" $L/rc.txt | cut -c1-400
timeout $(left 575 90) python3 -u bench/judge_gpu.py overhead --out $L/ov --old .carry/old --tasks triton2triton/softmax > $L/ov.txt 2>&1
echo "overhead rc=$? at ${SECONDS}s"; tail -8 $L/ov.txt | cut -c1-300
timeout $(left 575 40) python3 -u bench/mapped_memory_probe.py --json $OUT/mapped-memory.json 2>&1 | tail -8 | cut -c1-400
timeout $(left 575 575) python3 -u bench/judge_gpu.py redteam --out $L/rt --cheats honest mapped_host_result forged_record baseline_hog > $L/rt.txt 2>&1
echo "redteam rc=$? at ${SECONDS}s"; grep -vE "^\s*$" $L/rt.txt | cut -c1-700 | tail -8
tar czf $OUT/records.tgz -C /tmp c2 2>/dev/null; echo "wall ${SECONDS}s"
