#!/usr/bin/env bash
# GPU call 1 of 2026-11-29 (session 8); each step time-boxed by what is left of 570 s:
#  1. issue 30: the harness floor (Rounds._harness_floor, not yet run on a GPU) on the two honest
#     oracles the H200 flagged "steps skipped" (session 7), main's loop references, no ledger;
#  2. issue 33: wave3/varlen-ref's one-kernel references (carried as .carry/varlen: its two
#     reference.py and README.md over a copy of this tree), both oracles through the judge;
#  3. issue 30: bench/hostbound_probe.py (the loop reference as X->X, its noop = the baseline's own
#     code), unpinned and pinned to the GPU's NUMA-local CPUs.
set -uo pipefail
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
L=/tmp/c1; mkdir -p $L
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; nproc; lscpu | grep -iE "numa|model name|socket"; nvidia-smi topo -m; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
show() { grep -E "^\S+/\S+ +(oracle|noop)|process offset|^    (seen|unseen)" "$1" | cut -c1-420; }
G=torch2cuda/grouped_gemm_moe; A=torch2cuda/attention_prefill_gqa
timeout $(left 570 150) python3 -u bench/judge_gpu.py fidelity --agents oracle --out $L/floor --tasks $G $A > $L/floor.txt 2>&1
echo "floor rc=$? at ${SECONDS}s"; show $L/floor.txt
python3 - $L/floor <<'PY'
import json, pathlib, sys
for p in sorted(pathlib.Path(sys.argv[1]).rglob("*.trace.jsonl")):
    for line in open(p):
        d = json.loads(line)
        if "walls" in d and not d.get("probe"):
            over = {k: [round((w - t) / n, 3) for w, n, t in v] for k, v in d["walls"].items()}
            print(p.name, d["config"], "floor", d.get("floor_ms") and round(d["floor_ms"], 3), "unexplained", over)
PY
mkdir -p /tmp/vr && cp -r runner bench tasks /tmp/vr/ && cp -r .carry/varlen/tasks/. /tmp/vr/tasks/
(cd /tmp/vr && PYTHONPATH=/tmp/site:$PWD timeout $(left 570 200) python3 -u bench/judge_gpu.py fidelity --agents oracle --out $L/varlen --tasks $G $A) > $L/varlen.txt 2>&1
echo "varlen rc=$? at ${SECONDS}s"; show $L/varlen.txt
CPUS=$(nvidia-smi topo -m 2>/dev/null | awk '/^GPU0/{for(i=2;i<=NF;i++) if ($i ~ /^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$/ && $(i-1) !~ /^[0-9]/) {print $i; exit}}')
echo "GPU0 CPU affinity: ${CPUS:-unknown}"
# one NUMA node holding every CPU: pin to four of them instead (does migration between CPUs matter?)
[ "$CPUS" = "0-$(( $(nproc) - 1 ))" ] && CPUS=0-3
timeout $(left 570 570) python3 -u bench/hostbound_probe.py --out $L/probe --repeats 1 --taskset '' ${CPUS:+$CPUS} > $L/probe.txt 2>&1
echo "probe rc=$? at ${SECONDS}s"; grep -vE "^\s*$" $L/probe.txt | tail -60 | cut -c1-300
tar czf $OUT/records.tgz -C /tmp c1 2>/dev/null; echo "wall ${SECONDS}s"
