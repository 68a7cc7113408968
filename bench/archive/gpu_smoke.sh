#!/usr/bin/env bash
# GPU checks of the evaluator that the CPU test suite cannot make (docs/evaluation.md, "GPU-only"):
# every task's solution through the real evaluator, and a stream-injection candidate.
# Usage (on a CUDA machine, repo root): OUT=dir [TASKS="a/b c/d"] [EVAL_ARGS="--graph"] [CHEATS=0] bash bench/archive/gpu_smoke.sh
set -u
OUT=${OUT:-/tmp/gauntlet-smoke}; mkdir -p "$OUT"
python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, torch.cuda.get_device_name(0))'
which nvcc && nvcc --version | tail -2
for t in ${TASKS:-triton2triton/softmax triton2triton/matmul torch2triton/rmsnorm torch2triton/silu_mul \
         cuda2cuda/softmax cuda2cuda/transpose torch2cuda/rmsnorm torch2cuda/bias_gelu_residual}; do
  name=$(echo "$t" | tr / _)
  /usr/bin/time -f "$t %e s" timeout 300 python3 -m runner.evaluator "tasks/$t" --device cuda \
      --candidate "tasks/$t/solution" ${EVAL_ARGS:-} --out "$OUT/sol_$name.json" 2> "$OUT/err_$name.log" \
      || echo "$t: evaluator failed"; tail -1 "$OUT/err_$name.log"
done
# Stream injection: what the stream watch records for a call on the current stream and on a side
# stream, then the shipped softmax solution run on a side stream through the evaluator.
if [ "${CHEATS:-1}" = 1 ]; then
python3 - <<'PY'
import torch
from runner.evaluator.guard import StreamWatch, foreign_work
watch, x, side = StreamWatch(), torch.randn(1 << 20, device="cuda"), torch.cuda.Stream()
for label, stream in (("current stream", torch.cuda.current_stream()), ("side stream", side)):
    watch.start()
    with torch.cuda.stream(stream):
        (x * 2).sum()
    activity = watch.stop()
    print(f"stream watch, {label}: {len(activity)} operations, foreign: {foreign_work(activity)}")
PY
mkdir -p /tmp/stream_cheat
cp tasks/triton2triton/softmax/solution/kernel.py /tmp/stream_cheat/kernel.py
cat >> /tmp/stream_cheat/kernel.py <<'PY'

_inner = forward
_side = torch.cuda.Stream()


def forward(x):
    with torch.cuda.stream(_side):
        return _inner(x)
PY
timeout 300 python3 -m runner.evaluator tasks/triton2triton/softmax --device cuda --candidate /tmp/stream_cheat \
    --out "$OUT/stream_cheat.json" 2> "$OUT/err_stream.log" || echo "stream cheat: evaluator failed"
fi
python3 - "$OUT" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
for p in sorted(out.glob("*.json")):
    d = json.loads(p.read_text())
    rows = [(c["config"], c["correct"], c.get("speedup") and round(c["speedup"], 3), c.get("candidate_cv"),
             c.get("escaped_reps"), c.get("timing_samples"), (c.get("error") or "")[:90]) for c in d["configs"]]
    print(p.name, "compiled", d["compiled"], "flags", d.get("flags"), "notes", d.get("notes"), d.get("timing_method"),
          d.get("compile_log", "")[-200:] if not d["compiled"] else "")
    for r in rows:
        print("   ", r)
PY
