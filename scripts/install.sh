#!/usr/bin/env bash
# Install Gauntlet for development and CPU runs into a project virtual environment (.venv): the
# package, torch's CPU build, Triton (its interpreter runs kernels on the CPU), pytest, and, where
# apt is available and we are root, Debian's python3-venv, bubblewrap (the kernel runners' and
# the local backend's agents' sandbox) and hipcc (offline HIP compiles). Idempotent. Activate with `. .venv/bin/activate`.
#
# A stock Debian 12 python3 refuses `pip install` outside a venv (externally-managed-environment),
# which is why everything goes into .venv. On a GPU host, create .venv with
# `python3 -m venv --system-site-packages .venv` to reuse a system CUDA/ROCm torch; the script keeps
# whatever torch the venv already imports.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
VENV=${GAUNTLET_VENV:-.venv}
apt_install() {
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  fi
}
missing=()
"$PY" -c "import ensurepip" 2>/dev/null || missing+=(python3-venv)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v hipcc >/dev/null 2>&1 || missing+=(hipcc)
if [ ${#missing[@]} -gt 0 ]; then
  echo "[install] apt: ${missing[*]}"
  apt_install "${missing[@]}" || echo "[install] apt could not install ${missing[*]} (continuing)"
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "[install] virtual environment $VENV"
  "$PY" -m venv "$VENV"
fi
VPY="$VENV/bin/python"
echo "[install] gauntlet + torch (CPU) + triton + pytest into $VENV"
# torch==2.13.0 resolves to the CPU wheel on CPU-only hosts here; on a GPU host install torch your way first.
if ! "$VPY" -c "import torch" 2>/dev/null; then
  "$VPY" -m pip install -q "torch==2.13.0"
fi
"$VPY" -m pip install -q -e ".[dev,ray]" triton   # ray: tests of --executor ray
bash scripts/install-browser.sh || echo "[install] no chromium: the view test (tests/test_view.py) will fail"
echo "[install] done: $VENV/bin/gauntlet  (activate: . $VENV/bin/activate)"
