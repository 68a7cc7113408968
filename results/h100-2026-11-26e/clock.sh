#!/usr/bin/env bash
# GPU call 1 of 2026-11-26 (session 5), issue 10: the judge's own clock (gate, flush, empty pair) in
# four live processes per variant (eager, graph replay, buffers moved, pinned to the GPU's CPUs),
# the host's topology, and the judge's noop self-speedup on triton2triton/softmax, default and --graph.
set -uo pipefail
. bench/gpu_env.sh || exit 1
{
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm --format=csv,noheader
  nproc; lscpu | grep -Ei "numa|socket|model name"
  bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -1 | tr 'A-F' 'a-f' | sed 's/^0000//')
  echo "gpu $bus numa_node $(cat /sys/bus/pci/devices/$bus/numa_node 2>&1) local_cpulist $(cat /sys/bus/pci/devices/$bus/local_cpulist 2>&1)"
  nvidia-smi topo -m 2>&1 | head -8
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
} > $OUT/env.txt 2>&1
cat $OUT/env.txt
bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -1 | tr 'A-F' 'a-f' | sed 's/^0000//')
local=$(cat /sys/bus/pci/devices/$bus/local_cpulist 2>/dev/null || echo "")
run() { echo "== $*"; timeout 120 python3 bench/archive/offset_probe.py --clock --procs 4 --rounds 8 "$@" 2>&1 | tail -12; }
{ run; run --graph; run --move; [ -n "$local" ] && run --cpus "$local"; run; } > $OUT/clock.txt
cat $OUT/clock.txt
mkdir -p /tmp/g1 /tmp/g2
timeout 170 python3 -u bench/judge_gpu.py fidelity --out /tmp/g1 --tasks triton2triton/softmax --repeats 3 > $OUT/fid-default.txt 2>&1
timeout 150 python3 -u bench/judge_gpu.py fidelity --out /tmp/g2 --tasks triton2triton/softmax --repeats 2 --eval-args=--graph > $OUT/fid-graph.txt 2>&1
for f in fid-default fid-graph; do echo "== $f"; grep -E "noop|oracle|x=|noop_abs|timing" $OUT/$f.txt | cut -c1-170; done
