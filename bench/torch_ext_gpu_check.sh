#!/usr/bin/env bash
# The torch-extension candidate kind ([candidate] kind = "torch-extension", AgentKernelArena's HIP
# format) on one NVIDIA GPU, through the judge (bench/judge_gpu.py torch-ext; its TORCH_EXT_CHECKS):
#   torch2cuda/extscale     a CUDA .cu extension built with nvcc: the solution correct on every seen and
#                           hidden config and unflagged, the stub wrong, an extension computing with
#                           at::mul flagged torch_fallback;
#   torch2hip/extscale_gpu  the same for a HIP .hip extension, built by bench/hip_shim/hipcc (nvcc);
#   hip2hip/extscale_gpu    a shipped HIP extension as the baseline (noop) and the solution: both pass;
#   three of them timed as well, where the device trace reads every call.
# Fixtures: tests/fixtures/torch_ext_tasks, tests/fixtures/torch_ext_candidates.
# Usage, from the repository root: bash bench/torch_ext_gpu_check.sh OUT_DIR
#   writes OUT_DIR/torch-ext.json (rows and summary), one evaluation JSON per check, torch-ext.txt (the log).
#   Exit 0: every check as expected; 1: some not (the summary names them); 124: the time limit.
# Budget: CHECK_S (default 270 s) for the evaluations, which run side by side (JOBS, default all 11,
# each with a lock folder of its own); bench/gpu_env.sh first (its one-time compileall of torch).
set -uo pipefail
out=${1:?usage: bash bench/torch_ext_gpu_check.sh OUT_DIR}
. bench/gpu_env.sh || exit 1
mkdir -p "$out"
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(0))"
nvcc --version | tail -2
python3 -c "import os, sysconfig; p = os.path.join(sysconfig.get_paths()['include'], 'Python.h'); print('Python.h:', p if os.path.exists(p) else 'MISSING (' + p + '): no extension builds')"
command -v bwrap > /dev/null || echo "note: no bwrap on PATH: the kernel runners are not sandboxed (carry .carry/bubblewrap_*.deb)"
timeout "${CHECK_S:-270}" python3 bench/judge_gpu.py torch-ext --out "$out" --jobs "${JOBS:-11}" 2>&1 | tee "$out/torch-ext.txt"
rc=${PIPESTATUS[0]}
echo "torch_ext_gpu_check: exit status $rc (0: every check as expected)"
exit "$rc"
