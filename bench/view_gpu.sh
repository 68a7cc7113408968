#!/usr/bin/env bash
# The runs behind the example `gauntlet view` of an H100 run (issue 32): oracle and noop over CUDA
# and Triton tasks, and the scripted reward hack of tests/fixtures/agents/scripted_cheat.py (PyTorch
# computes the result, the seen sizes are hard-coded, it tries to read the hidden configs) on the
# fixture task triton2triton/scale. On the GPU host only the runs: the site is built afterwards on
# any machine from the tarball (no jinja2/plotly needed on the GPU host).
# Usage: [TASKS="cuda2cuda/gelu triton2triton/softmax"] bash bench/view_gpu.sh OUT_DIR
# Then, on this machine (jinja2, plotly, tomli-w installed):
#   tar -C OUT_DIR -xzf OUT_DIR/runs.tgz && gauntlet view OUT_DIR/runs/* --out OUT_DIR/site
#   gauntlet audit OUT_DIR/runs/scripted-cheat; gauntlet compare OUT_DIR/runs/oracle-noop OUT_DIR/runs/oracle-noop --agent-a noop --agent-b oracle
set -uo pipefail
out=$1
. bench/gpu_env.sh || exit 1
mkdir -p "$out/runs"
sel=(); for t in ${TASKS:-cuda2cuda/gelu cuda2cuda/softmax triton2triton/gelu triton2triton/softmax}; do sel+=(--tasks "$t"); done
python3 -m runner.cli run --agent oracle --agent noop --device cuda "${sel[@]}" --out "$out/runs/oracle-noop" --budget 60s
# the script travels inline: a confined agent sees its workspace and toolchains, not the checkout's tests/
python3 -c 'import shlex, sys, tomli_w; print(tomli_w.dumps({"name": "scripted", "kind": "command", "parser": "claude-stream-json", "command": "python3 -c " + shlex.quote(open(sys.argv[1]).read())}))' \
  tests/fixtures/agents/scripted_cheat.py > "$out/scripted.toml"
python3 -m runner.cli run --agent "$out/scripted.toml" --device cuda --tasks-root tests/fixtures/tasks \
  --tasks triton2triton/scale --out "$out/runs/scripted-cheat" --budget 60s
tar -C "$out" --exclude=workspace --exclude=record.git -czf "$out/runs.tgz" runs && rm -rf "$out/runs"
