"""Does the judge's DRAM sampler die with its judge? (GPU host; results/gpu-2026-12-02-s25.md)

A judge killed mid-evaluation once left its sampler (a session of its own) holding the device's PM
sampling: every later judge on that H200 got CUPTI_ERROR_HARDWARE_BUSY and ran without its DRAM
witness. Here a stand-in judge starts the real sampler and is killed with SIGKILL; the sampler must
be gone within seconds, and a new one must start.

    python3 bench/sampler_orphan.py --out DIR
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runner.evaluator.judge import dram  # noqa: E402

FLUSH, L2 = 256 << 20, 60 << 20


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    exe = dram.build(args.out / "cache")
    judge = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from runner.evaluator.judge import dram\n"
        f"w = dram.Witness(__import__('pathlib').Path({str(exe)!r}), 0, "
        f"__import__('pathlib').Path({str(args.out / 'first.txt')!r}), {FLUSH}, {L2}).ready()\n"
        "print(w.proc.pid, flush=True)\n"
        "time.sleep(600)\n")], stdout=subprocess.PIPE, text=True)
    sampler = int(judge.stdout.readline())
    print(f"stand-in judge {judge.pid}, its sampler {sampler}: running", flush=True)
    judge.send_signal(signal.SIGKILL)
    judge.wait()
    start = time.monotonic()
    while Path(f"/proc/{sampler}").exists() and time.monotonic() - start < 10:
        state = Path(f"/proc/{sampler}/stat").read_text().split()[2] if Path(f"/proc/{sampler}/stat").exists() else "?"
        if state == "Z":
            break
        time.sleep(0.05)
    gone = not Path(f"/proc/{sampler}").exists() or Path(f"/proc/{sampler}/stat").read_text().split()[2] == "Z"
    print(f"judge killed: sampler {'gone' if gone else 'STILL RUNNING'} after {time.monotonic() - start:.2f} s", flush=True)
    if not gone:
        os.kill(sampler, signal.SIGKILL)
    try:
        second = dram.Witness(exe, 0, args.out / "second.txt", FLUSH, L2).ready()
        print(f"a new sampler started: {len(second.samples)} samples, {len(second.clocks)} clock pairs", flush=True)
        second.stop()
    except dram.Unavailable as exc:
        print(f"a new sampler did not start: {exc}", flush=True)
        return 1
    return 0 if gone else 1


if __name__ == "__main__":
    sys.exit(main())
