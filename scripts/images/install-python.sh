#!/bin/sh
# Image build step: torch, triton and numpy in /opt/venv.
#   - wheels in /tmp/wheels (a wheelhouse): installed from there only (--no-index), offline;
#   - else, if the base's python already imports torch (rocm/pytorch): nothing is installed,
#     /opt/venv holds only a bin/python link to it and the base's python is the one on PATH;
#   - else: torch==$TORCH_VERSION from $TORCH_INDEX_URL (an online build).
set -eu
pip="/opt/venv/bin/python -m pip --disable-pip-version-check --no-cache-dir"
if ls /tmp/wheels/*.whl >/dev/null 2>&1; then
    echo "install-python: from the wheelhouse (offline)"
    python3 -m venv --system-site-packages /opt/venv
    $pip install --no-index --find-links /tmp/wheels torch${TORCH_VERSION:+==$TORCH_VERSION} triton numpy
elif python3 -c "import torch" 2>/dev/null; then
    # The base's own python (rocm/pytorch: its venv or conda, first on the base's PATH) is used
    # as is; /opt/venv/bin holds no python3, so PATH falls through to it.
    echo "install-python: the base provides torch $(python3 -c 'import torch; print(torch.__version__)') at $(command -v python3)"
    # Bytecode caches, which a kernel runner cannot write: without them every runner compiles
    # torch's sources again (seconds per import; docs/benchmarks.md). A no-op where pip wrote them.
    python3 -m compileall -q -j 0 "$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')" > /dev/null || true
    # linked as /opt/venv/bin/python: the prompt names the interpreter by that absolute path
    mkdir -p /opt/venv/bin
    ln -s "$(command -v python3)" /opt/venv/bin/python
    exit 0
else
    python3 -m venv --system-site-packages /opt/venv
    echo "install-python: torch==${TORCH_VERSION} from ${TORCH_INDEX_URL}"
    $pip install --index-url "${TORCH_INDEX_URL}" --extra-index-url https://pypi.org/simple \
        "torch==${TORCH_VERSION}" triton numpy
fi
PATH=/opt/venv/bin:$PATH python3 -c "import torch, numpy; print('install-python: torch', torch.__version__, 'numpy', numpy.__version__)"
