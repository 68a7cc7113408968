#!/usr/bin/env bash
# GPU call 1 of 2026-11-28 (session 4, issue 30): the device trace's first run on a GPU.
# (1) the CUPTI injection library builds on the lent host; (2) with GAUNTLET_DEVICE_TRACE=1 the red
# team's honest control passes unflagged and the cheats that reach into the runner's process
# (findings_cleared, refill_wrapped, side_stream_when_unwatched, dispatch_mode_pushed) and two
# side-stream ones are caught; (3) oracle and noop with the trace on raise no flag on honest code.
# (4) the evaluation wall time against e9f494d's evaluator (.carry/old), trace on, one task.
# Each step is time-boxed by what is left of the call's 590 s; the judge's bench trace
# (GAUNTLET_JUDGE_TRACE) keeps what each rule read.
set -uo pipefail
left() { local l=$(( ${1:-590} - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
. bench/gpu_env.sh || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
export GAUNTLET_DEVICE_TRACE=1
timeout 60 python3 -c "from runner.evaluator import devtrace; p = devtrace.build(devtrace.cache_dir()); print(p); print(devtrace._cupti_dirs()[:2])" > $OUT/build.txt 2>&1
echo "build rc=$?"; cat $OUT/build.txt | cut -c1-300
timeout $(left 590 200) python3 -u bench/judge_gpu.py redteam --out /tmp/red --cheats honest findings_cleared refill_wrapped \
  side_stream_when_unwatched dispatch_mode_pushed side_stream_getattr side_stream_driver gpu_worker > $OUT/redteam.txt 2>&1
echo "redteam rc=$?"; cut -c1-400 $OUT/redteam.txt | tail -10
timeout $(left 590 100) python3 -u bench/judge_gpu.py overhead --out /tmp/ovh --old .carry/old --tasks triton2triton/softmax > $OUT/overhead.txt 2>&1
echo "overhead rc=$?"; grep -E "ratio|error" $OUT/overhead.txt | cut -c1-400
timeout $(left 575 230) python3 -u bench/judge_gpu.py fidelity --out /tmp/fid --tasks cuda2cuda/softmax triton2triton/softmax \
  torch2triton/rmsnorm torch2cuda/rmsnorm cuda2cuda/gelu > $OUT/fidelity.txt 2>&1
echo "fidelity rc=$?"; grep -E "^\S+/\S+ +(oracle|noop)|flagged_honest|noop_abs" $OUT/fidelity.txt | cut -c1-400
python3 - /tmp/red /tmp/fid > $OUT/devtrace.txt 2>&1 <<'PY'
import json, glob, sys
for d in sys.argv[1:]:
    for f in sorted(glob.glob(d + "/*.json")):
        if f.endswith("partial.json") or f.endswith("redteam.json") or f.endswith("fidelity.json"):
            continue
        r = json.load(open(f))
        print("==", f.split("/")[-1], "flags:", [x[:200] for x in r.get("flags") or []])
        print("   notes:", [x[:200] for x in r.get("notes") or []], "error:", (r.get("error") or "")[:300])
        for c in r.get("configs", []):
            print("   ", c["config"][:24], c.get("correct"), c.get("speedup"), [x[:160] for x in c.get("flags") or []], (c.get("error") or "")[:120])
        t = f[:-5] + ".trace.jsonl"
        try:
            lines = [json.loads(l) for l in open(t)]
        except OSError:
            continue
        for l in lines:
            if "devtrace" in l:
                dt = l["devtrace"]
                print("   trace", l["config"][:24], "findings", [x[:150] for x in dt["findings"]])
                print("     base", json.dumps(dt["baseline"][:1])[:700])
                print("     cand", json.dumps(dt["candidate"][:1])[:700])
PY
head -c 6000 $OUT/devtrace.txt
tar czf $OUT/records.tgz -C /tmp red fid ovh 2>/dev/null; echo "wall ${SECONDS}s"
