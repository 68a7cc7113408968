#!/usr/bin/env bash
# GPU call of 2026-11-26 (session 4): one fresh timing table of every CUDA and Triton task (the
# solution against the task's baseline, bench/check_native_tasks.py and bench/check_triton_tasks.py),
# then the KernelBench import (levels 1-2, torch2triton + torch2cuda) on this host, kept as
# $OUT/kb-tasks.tgz for the noop calls (kbnoop.sh).
set -uo pipefail
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'; } > $OUT/env.txt 2>&1
timeout ${NATIVE_S:-240} python3 bench/check_native_tasks.py --only cuda2cuda,torch2cuda > $OUT/native.txt 2>&1
echo "native rc=$?"; tail -3 $OUT/native.txt
triton_tasks=$(ls -d tasks/torch2triton/*/ tasks/triton2triton/*/ | sed 's#^tasks/##; s#/$##')
timeout ${TRITON_S:-200} python3 bench/check_triton_tasks.py --device cuda --reps 30 --tasks $triton_tasks > $OUT/triton.txt 2>&1
echo "triton rc=$?"; tail -3 $OUT/triton.txt
if [ -d .kb ]; then
  start=$(date +%s)
  timeout ${IMPORT_S:-140} python3 -m runner.cli tasks import kernelbench .kb --level 1 --level 2 \
    --category torch2triton --category torch2cuda --out /tmp/kb-tasks --jobs "$(nproc)" > $OUT/kb-import.txt 2>&1
  echo "import rc=$? in $(( $(date +%s) - start )) s"; tail -6 $OUT/kb-import.txt
  cp /tmp/kb-tasks/kernelbench-import.json $OUT/ 2>/dev/null
  tar -czf $OUT/kb-tasks.tgz -C /tmp kb-tasks
fi
