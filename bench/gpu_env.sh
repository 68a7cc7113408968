# Sourced on a GPU host lent by the device tool (no pip install possible there): puts the carried
# pure-Python wheels (.whl/, `pip download` for the host's Python) on PYTHONPATH and the carried
# bubblewrap (.carry/bubblewrap_*.deb, unpacked with dpkg -x) on PATH, so the judge's kernel
# runners get their bwrap sandboxes as on a real install.
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || return 1
  export PYTHONPATH=/tmp/site:$PWD
fi
for deb in .carry/bubblewrap_*.deb; do
  [ -f "$deb" ] && dpkg -x "$deb" /tmp/bw && export PATH=/tmp/bw/usr/bin:$PATH
done
export PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1 COLUMNS=200
# The lent host's torch has no bytecode caches (and PYTHONDONTWRITEBYTECODE=1): every kernel runner,
# which may write none, compiled torch's sources again, seconds per import. A pip install writes
# them (our images' does); so here, once per machine, before anything is measured.
SP=$(python3 -c "import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))" 2>/dev/null)
if [ -n "$SP" ] && [ -w "$SP/torch" ] && [ ! -f /tmp/.gauntlet-compiled ]; then
  python3 -m compileall -q -j 0 "$SP/torch" "$SP/triton" "$SP/sympy" "$SP/numpy" > /dev/null 2>&1 && touch /tmp/.gauntlet-compiled
fi
# For a call's script: `left TOTAL CAP` is the seconds a step may take (at most CAP, at least 5) of
# TOTAL for the call; `record_env` writes the machine and versions to $OUT/env.txt and shows them.
left() { local l=$(( $1 - SECONDS )); [ $l -gt $2 ] && echo $2 || echo $(( l > 5 ? l : 5 )); }
record_env() {
  { date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    python3 -c "import torch, triton; print(torch.__version__, triton.__version__)"; } > $OUT/env.txt 2>&1
  cat $OUT/env.txt
}
# `call_start DIR LEDGER`: a call script's start: DIR (its scratch under /tmp) made empty, the machine
# recorded, and the resumable ledger copied into $OUT (a new one where LEDGER does not exist yet);
# sets L=DIR and LED, the ledger that comes back with the call's files.
call_start() {
  L=$1; rm -rf "$L"; mkdir -p "$L"
  record_env
  cp "$2" $OUT/ 2>/dev/null || touch $OUT/$(basename "$2")
  LED=$OUT/$(basename "$2")
}
# `call_sweep`: oracle and noop of every task a CUDA host runs, through the resumable ledger $LED
# (call_start's), for what is left of the call's CALL_S seconds (560 unless set); prints each
# evaluation's line, the baseline aborts seen in its records and the ledger's length.
call_sweep() {
  timeout $(left ${CALL_S:-560} 560) python3 -u bench/judge_gpu.py fidelity --out $L/su --tasks-root tasks \
    --agents oracle noop --ledger $LED > $L/su.txt 2>&1
  echo "sweep rc=$? at ${SECONDS}s"; grep -hE "^\S+/\S+ +(oracle|noop)" $L/su.txt | cut -c1-250
  echo "invalid device pointer: $(grep -rl 'invalid device pointer' $L 2>/dev/null | wc -l) files"
  echo "ledger lines: $(grep -c . $LED)"
}
