#!/usr/bin/env bash
# KernelBench importer on a GPU host (issue 12): import levels 1-2 as torch2triton and torch2cuda,
# then run noop (the shipped stubs: must fail) over a sample of the imported tasks on the GPU.
# Usage: bash bench/kernelbench_gpu.sh KB_CHECKOUT OUT_DIR [SAMPLE_TASK...]
set -uo pipefail
kb=$1; out=$2; shift 2
. bench/gpu_env.sh || exit 1
mkdir -p "$out"
start=$(date +%s)
timeout 300 python3 -m runner.cli tasks import kernelbench "$kb" --level 1 --level 2 \
  --category torch2triton --category torch2cuda --out "$out/kb-tasks" --jobs "$(nproc)" > "$out/import.txt" 2>&1
echo "import rc=$? in $(( $(date +%s) - start )) s"; tail -8 "$out/import.txt"
cp "$out/kb-tasks/"*.json "$out/" 2>/dev/null
sel=(); for t in "$@"; do sel+=(--tasks "$t"); done
timeout 330 python3 -m runner.cli run --agent noop --device cuda --tasks-root "$out/kb-tasks" "${sel[@]}" \
  --out "$out/noop" > "$out/noop.txt" 2>&1
echo "noop rc=$?"; grep -E "done  " "$out/noop.txt" | cut -c1-160
rm -rf "$out/kb-tasks" "$out/noop/attempts/"*/workspace "$out/noop/attempts/"*/record.git
