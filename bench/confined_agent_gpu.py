"""Does a GPU work inside the local backend's agent sandbox (runner/sandbox/confine.py)? Not a test:
it needs a GPU host. Runs, as an agent exec would (role "agent", bubblewrap, uid 1000, no network):
nvidia-smi -L, torch.cuda.is_available() and a small matmul on the GPU, and prints one JSON line per
probe plus the sandbox's containment. Look for: containment "bwrap", every probe rc 0, cuda True.

    . bench/gpu_env.sh && python3 bench/confined_agent_gpu.py
"""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner.sandbox import SandboxSpec, open_sandbox  # noqa: E402
from runner.sandbox.confine import available  # noqa: E402

PROBES = {
    "nvidia-smi": ["nvidia-smi", "-L"],
    "torch-cuda": [sys.executable, "-c", "import torch; print(torch.cuda.is_available(), torch.cuda.device_count()); "
                   "x = torch.randn(1024, 1024, device='cuda'); print(float((x @ x).sum()))"],
    "network": [sys.executable, "-c", "import socket; s = socket.socket(); s.settimeout(3); "
                "print(s.connect_ex(('1.1.1.1', 443)))"],
}


def main() -> int:
    print(json.dumps({"confinement": available() or "bwrap"}))
    root = Path(tempfile.mkdtemp(prefix="confined-gpu-"))
    try:
        ws = root / "attempt" / "workspace"
        ws.mkdir(parents=True)
        sandbox = open_sandbox("local", SandboxSpec(role="agent", platform="cuda", workdir=ws, tmp_dir=root / "tmp"))
        for name, argv in PROBES.items():
            result = sandbox.exec(argv, timeout=300, stdout=root / f"{name}.out", stderr=root / f"{name}.err")
            print(json.dumps({"probe": name, "containment": result.containment, "rc": result.returncode,
                              "stdout": (root / f"{name}.out").read_text()[-400:],
                              "stderr": (root / f"{name}.err").read_text()[-400:]}))
        sandbox.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
