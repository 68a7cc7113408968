"""Does the judge's static reading of a native source's kernels (static_checks.declared_kernels)
name every kernel the compiler makes of it? The device trace reads a kernel in a native candidate's
call as someone else's (PyTorch's) when its sources do not declare it (devtrace.declared_by), so a
kernel the reading misses would flag an honest candidate.

For every CUDA and HIP source the suite ships (solutions and X->X baselines), nvcc (a cubin) or
Debian's hipcc (an AMDGPU code object) compiles it here, no GPU needed, and the device code's kernels
are read against the reading.
Usage, from the repository root: python3 bench/check_declared_kernels.py [--jobs N]
Exit 0: every entry declared (or no native source to read, None); 1: some not (listed).
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from runner.evaluator.devtrace import declared_by  # noqa: E402
from runner.evaluator.judge.evaluation import _declared_kernels as declared_in_tree  # noqa: E402
from runner.tasks.task import load_task  # noqa: E402


def entries(source: Path, nvcc: str) -> list[str]:
    """The kernels of the device code the compiler makes: a CUDA source's cubin entries (nvcc,
    STO_CUDA_ENTRY), a HIP source's AMDGPU code object's kernels (Debian's hipcc, offline: each
    kernel has a `NAME.kd` descriptor)."""
    hip = source.suffix == ".hip"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "device.o"
        if hip:
            cmd = ["hipcc", "--offload-arch=gfx90a", "--offload-device-only", "--no-gpu-bundle-output", "-c", "-std=c++17",
                   "-I", str(source.parent), "-o", str(out), str(source)]
        else:
            cmd = [nvcc, "-cubin", "-arch=sm_90", "-std=c++17", "-I", str(source.parent), "-o", str(out), str(source)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"} if hip else None)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr[-400:])
        table = subprocess.run(["readelf", "-sW", str(out)], capture_output=True, text=True).stdout
    if hip:
        names = [line.split()[-1] for line in table.splitlines() if len(line.split()) > 7]
        return sorted({n.removesuffix(".kd") for n in names if n.endswith(".kd")})
    return [line.split()[-1] for line in table.splitlines() if " FUNC " in line and "[<other>: 10]" in line]


def check(source: Path, nvcc: str) -> tuple[Path, list[str], str]:
    # what the judge reads: its own function, over the task's native files in the source's folder
    folder = source.parent
    task_dir = folder.parent if folder.name == "solution" else folder
    task = load_task(task_dir, ROOT / "tasks")
    declared = declared_in_tree(task, task.language, folder)
    try:
        names = entries(source, nvcc)
    except RuntimeError as exc:
        return source, [], f"did not compile: {exc}"
    if declared is None:
        return source, [], "no native source read (None): no rule applies"
    missed = [n for n in names if not declared_by(n, declared)]
    return source, missed, f"{len(names)} entries, {len(missed)} not declared"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    nvcc = os.environ.get("NVCC") or next((p for p in ("nvcc", "/usr/local/cuda/bin/nvcc", *glob.glob("/usr/local/cuda-*/bin/nvcc"))
                                           if subprocess.run(["sh", "-c", f"command -v {p}"], capture_output=True).returncode == 0), None)
    if nvcc is None:
        print("no nvcc")
        return 2
    sources = sorted({Path(p) for p in glob.glob(str(ROOT / "tasks/*/*/solution/*.cu"))
                      + glob.glob(str(ROOT / "tasks/cuda2cuda/*/kernel.cu"))
                      + glob.glob(str(ROOT / "tasks/*/*/solution/*.hip")) + glob.glob(str(ROOT / "tasks/hip2hip/*/kernel.hip"))})
    bad = 0
    with ThreadPoolExecutor(args.jobs) as pool:
        for source, missed, what in pool.map(lambda s: check(s, nvcc), sources):
            rel = source.relative_to(ROOT)
            print(f"{'BAD ' if missed else 'ok  '}{rel}: {what}" + (f": {missed[:3]}" if missed else ""))
            bad += bool(missed)
    print(f"{len(sources)} sources, {bad} with a kernel the reading does not declare")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
