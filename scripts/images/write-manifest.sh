#!/bin/sh
# Image build step (last): /etc/gauntlet-image.json, the versions `gauntlet doctor` reports.
set -eu
python3 - <<'PY'
import json, os, platform, shutil, subprocess
def out(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return (r.stdout or r.stderr).strip().splitlines()[0] if r.returncode == 0 else None
    except Exception:
        return None
info = {"gauntlet": os.environ.get("GAUNTLET_VERSION"), "platform": os.environ.get("GAUNTLET_PLATFORM"),
        "base": os.environ.get("BASE"), "python": platform.python_version(), "node": out(["node", "--version"]),
        "git": out(["git", "--version"])}
for mod in ("torch", "triton", "numpy"):
    try:
        info[mod] = __import__(mod).__version__
    except Exception:
        info[mod] = None
for tool in ("nvcc", "hipcc"):
    info[tool] = out([tool, "--version"]) and " ".join(out([tool, "--version"]).split()[-3:]) if shutil.which(tool) else None
info["agent_clis"] = {}
for cli in ("claude", "codex"):
    path = os.path.join("/opt/agent-clis/bin", cli)
    info["agent_clis"][cli] = out([path, "--version"]) if os.path.exists(path) else None
with open("/etc/gauntlet-image.json", "w") as fh:
    json.dump(info, fh, indent=2)
print(json.dumps(info, indent=2))
PY
