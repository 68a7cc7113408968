#!/usr/bin/env bash
# Install Gauntlet for development and CPU runs: the package, torch's CPU build, Triton (its
# interpreter runs kernels on the CPU), pytest, and, where apt is available, Debian's hipcc for
# offline HIP compiles. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
echo "[install] gauntlet + torch (CPU) + triton + pytest"
# torch==2.13.0 resolves to the CPU wheel on CPU-only hosts here; on a GPU host install torch your way first.
if ! "$PY" -c "import torch" 2>/dev/null; then
  "$PY" -m pip install -q "torch==2.13.0"
fi
"$PY" -m pip install -q -e ".[dev]" triton

if ! command -v hipcc >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "[install] hipcc (Debian, ROCm 5.2) for offline HIP compiles"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hipcc >/dev/null
fi
echo "[install] done: $(command -v gauntlet)"
