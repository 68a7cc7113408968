#!/usr/bin/env bash
# Rebuild, on the development host, the git-ignored folders a device call carries
# (`carry=[".whl", ".carry", ".aka"]`): a fresh development machine has none of them.
#   .whl/    pure-Python and cp312 wheels of the runtime dependencies the lent GPU host lacks (it
#            has Python 3.12, torch, triton and numpy, and no pip index): bench/gpu_env.sh puts
#            them on PYTHONPATH there
#   .carry/  bubblewrap's .deb (the kernel runners' sandbox; gpu_env.sh unpacks it) and old/, the
#            runner and tasks at e9f494d (the overhead bench's reference: `judge_gpu.py overhead --old`)
#   .aka/    AgentKernelArena's tasks imported with `gauntlet tasks import aka` (AKA=DIR: a checkout,
#            e.g. what the `fetch` tool brought; without it .aka is left as it is)
# Usage: [AKA=/path/to/AgentKernelArena] bash bench/prepare_carry.sh
set -euo pipefail
cd "$(dirname "$0")/.."
VPY=.venv/bin/python
mkdir -p .whl .carry
$VPY -m pip download -q -d .whl --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 --implementation cp \
  click docker gitpython gitdb smmap psutil rich markdown-it-py mdurl pygments pydantic pydantic-core \
  annotated-types typing-extensions typing-inspection jinja2 markupsafe plotly narwhals tomli-w pyyaml \
  requests urllib3 idna certifi charset-normalizer packaging
# numpy, torch and triton are the host's own: never shadow them
rm -f .whl/numpy-* .whl/torch-* .whl/triton-*
(cd .carry && apt-get download -qq bubblewrap)
rm -rf .carry/old && mkdir -p .carry/old && git archive e9f494d runner tasks | tar -x -C .carry/old
if [ -n "${AKA:-}" ]; then
  .venv/bin/gauntlet tasks import aka "$AKA" --out .aka/tasks
fi
ls .whl | wc -l | xargs echo "wheels:"; ls .carry
if [ -d .aka/tasks ]; then find .aka/tasks -name task.toml | wc -l | xargs echo "aka tasks:"; fi
du -sh .whl .carry $([ -d .aka ] && echo .aka)   # (a fresh machine has no .aka: not a failure)
