#!/bin/sh
# Image build step: torch, triton and numpy in /opt/venv.
#   - wheels in /tmp/wheels (a wheelhouse): installed from there only (--no-index), offline;
#   - else, if the base's python already imports torch (rocm/pytorch): the venv sees it
#     (--system-site-packages) and nothing is installed;
#   - else: torch==$TORCH_VERSION from $TORCH_INDEX_URL (an online build).
set -eu
python3 -m venv --system-site-packages /opt/venv
pip="/opt/venv/bin/python -m pip --disable-pip-version-check --no-cache-dir"
if ls /tmp/wheels/*.whl >/dev/null 2>&1; then
    echo "install-python: from the wheelhouse (offline)"
    $pip install --no-index --find-links /tmp/wheels torch${TORCH_VERSION:+==$TORCH_VERSION} triton numpy
elif /opt/venv/bin/python -c "import torch" 2>/dev/null; then
    echo "install-python: the base provides torch $(/opt/venv/bin/python -c 'import torch; print(torch.__version__)')"
else
    echo "install-python: torch==${TORCH_VERSION} from ${TORCH_INDEX_URL}"
    $pip install --index-url "${TORCH_INDEX_URL}" --extra-index-url https://pypi.org/simple \
        "torch==${TORCH_VERSION}" triton numpy
fi
/opt/venv/bin/python -c "import torch, numpy; print('install-python: torch', torch.__version__, 'numpy', numpy.__version__)"
