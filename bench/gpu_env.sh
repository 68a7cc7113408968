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
