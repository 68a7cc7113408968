#!/usr/bin/env bash
# Runs Gauntlet agents over every CUDA-capable task on a GPU host with the local backend, as the
# device tool does it (no pip install possible there: pure-Python wheels are carried in .whl/).
# Usage: [TASKS="cuda2cuda torch2triton/rmsnorm"] [RUN_TIMEOUT_S=N (per agent)] bash bench/gpu_run.sh OUT_DIR AGENT [AGENT...]
# Writes OUT_DIR/{env.txt,report.md,results.json,runs.tgz} (runs.tgz: the run dirs without workspaces).
set -uo pipefail
out=$1; shift
. bench/gpu_env.sh || exit 1
mkdir -p "$out"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -1
  python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)'; } > "$out/env.txt" 2>&1
cat "$out/env.txt"
for agent in "$@"; do
  sel=(); for t in ${TASKS:-all}; do sel+=(--tasks "$t"); done
  timeout "${RUN_TIMEOUT_S:-86400}" python3 -m runner.cli run --agent "$agent" --device cuda "${sel[@]}" --out "$out/runs/$agent" --budget 60s
done
python3 -m runner.cli report "$out"/runs/* --format md > "$out/report.md"
cat "$out/report.md"
# Per-attempt summaries (result.json without the workspace) for the record.
python3 - "$out" <<'PY'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
rows = []
for p in sorted(out.glob("runs/*/attempts/*/result.json")):
    r = json.loads(p.read_text())
    rows.append(r)
    print(f"{r['agent']:7s} {r['task']:32s} compiled={r['compiled']} seen={r['correct_seen']} unseen={r['correct_unseen']} "
          f"speedup seen={r['speedup_seen']} unseen={r['speedup_unseen']} eval={r.get('eval_seconds')}s flags={r.get('flags')}")
    for c in r["configs"]:
        print(f"    {c['split']:6s} {c['config']:18s} correct={c['correct']} base={c['baseline_ms']} cand={c['candidate_ms']} "
              f"speedup={c['speedup']} cv={c.get('baseline_cv')}/{c.get('candidate_cv')} err={c['error']}")
(out / "results.json").write_text(json.dumps(rows, indent=1))
PY
tar -C "$out" --exclude=workspace --exclude=record.git -czf "$out/runs.tgz" runs && rm -rf "$out/runs"
