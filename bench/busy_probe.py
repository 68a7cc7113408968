#!/usr/bin/env python3
"""Does the device's own busy time, sampled from another process, account for the kernels a trace
records? (issue 30's open row: the device trace silenced selectively from inside the runner)

The device trace's library, CUPTI and the pipe's writing end live in the candidate's process, so
native code there can keep a kernel's record from being made or delivered; a trace stopped whole
is a finding, one filtered selectively is not. What the candidate's process cannot filter is the
device's own performance monitors, read by the judge's sampler (runner/evaluator/judge/
dram_sampler.cpp) in a process of its own: if the cycles the graphics engine and the SMs were
active in a window match the kernel time the trace recorded there, work whose records were
silenced shows as busy time no record explains.

This runs the sampler with the engine's and the SMs' activity (gr__cycles_active.sum over
gr__cycles_elapsed.max, sm__cycles_active.avg over sm__cycles_elapsed.avg) beside phases of its
own, each stamped with %globaltimer (bench/dram_probe.py's stamp kernel) and profiled by PyTorch's
profiler (CUPTI activity records, as the trace), and reports per phase: the counters' busy time,
the profiler's summed kernel time, their ratio, and the same for a phase run with the profiler
off (what a silenced trace would leave: busy time and no records).

    python3 bench/busy_probe.py --out DIR [--interval 20000]

GPU only. Not a test: a probe whose figures decide whether the judge should read the device's busy
time against the trace (the rule would be per batch: busy time no record explains).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
METRICS = ["gr__cycles_active.sum", "gr__cycles_elapsed.max", "sm__cycles_active.avg", "sm__cycles_elapsed.avg"]
CYCLES_PER_US = 1980          # an H100/H200 SM clock near its boost: only sizes the spins


def parse_samples(path: Path, n_metrics: int):
    import numpy as np
    rows = []
    for line in path.read_text().splitlines():
        if line and not line.startswith("#"):
            words = line.split()
            if len(words) == 2 + n_metrics:
                rows.append([float(w) for w in words])
    return np.array(rows, dtype=np.float64).reshape(-1, 2 + n_metrics)


def busy_in(samples, windows, active: int, elapsed: int) -> list[dict]:
    """Busy microseconds inside each (start, end) window: each sample's active share of its cycles
    times its own span, spread evenly over that span (dram.window_reads), and the window's cover."""
    import numpy as np
    from runner.evaluator.judge import dram
    span = samples[:, 1] - samples[:, 0]
    share = np.clip(samples[:, active] / np.maximum(samples[:, elapsed], 1.0), 0.0, 1.0)
    rows = np.stack([samples[:, 0], samples[:, 1], share * span, np.zeros(len(samples))], axis=1)
    return [{"busy_us": busy / 1e3, "coverage": cover} for busy, _, cover in dram.window_reads(rows, windows)]


def phases(torch, stamp, profile: bool) -> list[dict]:
    """Each phase: its globaltimer window and, under the profiler, its kernels' summed time."""
    x = torch.randn(16 << 20, device="cuda")           # 64 MB: an elementwise pass is ~30 us
    plan = [("idle", lambda: time.sleep(0.02)),
            ("spin 5 us x400", lambda: [torch.cuda._sleep(5 * CYCLES_PER_US) for _ in range(400)]),
            ("spin 50 us x100", lambda: [torch.cuda._sleep(50 * CYCLES_PER_US) for _ in range(100)]),
            ("spin 500 us x20", lambda: [torch.cuda._sleep(500 * CYCLES_PER_US) for _ in range(20)]),
            ("spin 5 us x200, 100 us host gaps", lambda: [torch.cuda._sleep(5 * CYCLES_PER_US) or time.sleep(1e-4)
                                                         for _ in range(200)]),
            ("elementwise 64 MB x200", lambda: [x.mul_(1.0000001) for _ in range(200)])]
    out = []
    for name, body in plan:
        torch.cuda.synchronize()
        time.sleep(0.01)
        if profile:
            prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA])
            prof.__enter__()
        a = stamp()
        body()
        b = stamp()
        torch.cuda.synchronize()
        kernels_us = None
        if profile:
            prof.__exit__(None, None, None)
            with tempfile.NamedTemporaryFile(suffix=".json") as f:      # kernels only (no op's total)
                prof.export_chrome_trace(f.name)
                events = json.load(open(f.name)).get("traceEvents", [])
            kernels_us = sum(e.get("dur", 0) for e in events
                             if e.get("cat") == "kernel" and "gauntlet_probe_stamp" not in e.get("name", ""))
        out.append({"phase": name, "stamps": (a, b), "kernels_us": kernels_us})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--interval", type=int, default=20000)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    from dram_probe import ended, start_sampler, stamp_kernel
    from runner.evaluator.judge import dram
    import torch
    report: dict = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "metrics": METRICS,
                    "device": torch.cuda.get_device_name(), "interval_ns": args.interval}
    stamps = torch.zeros(64, dtype=torch.int64, device="cuda")
    count = [0]
    fn = stamp_kernel()

    def stamp() -> int:
        fn[(1,)](stamps, count[0])
        count[0] += 1
        return count[0] - 1

    stamp()
    torch.cuda.synchronize()
    try:
        sampler = start_sampler(dram.build(args.out / "cache"), args.interval, args.out / "busy_samples.txt", METRICS)
    except Exception as exc:
        report["error"] = str(exc)[:600]
        (args.out / "busy_probe.json").write_text(json.dumps(report, indent=1))
        print("sampler:", exc)
        return 1
    time.sleep(0.05)
    runs = {"profiled": phases(torch, stamp, True), "unprofiled": phases(torch, stamp, False)}
    torch.cuda.synchronize()
    time.sleep(0.05)
    report.update(ended(sampler))
    samples = parse_samples(args.out / "busy_samples.txt", len(METRICS))
    at = stamps.cpu().tolist()
    for label, run in runs.items():
        windows = [(at[p["stamps"][0]], at[p["stamps"][1]]) for p in run]
        engine = busy_in(samples, windows, 2, 3)
        sms = busy_in(samples, windows, 4, 5)
        report[label] = [{"phase": p["phase"], "window_us": (w[1] - w[0]) / 1e3, "kernels_us": p["kernels_us"],
                          "engine_busy_us": e["busy_us"], "sm_busy_us": s["busy_us"], "coverage": e["coverage"],
                          "engine_over_kernels": e["busy_us"] / p["kernels_us"] if p["kernels_us"] else None}
                         for p, w, e, s in zip(run, windows, engine, sms)]
        for row in report[label]:
            print(label, json.dumps(row))
    (args.out / "busy_samples.txt").unlink(missing_ok=True)
    (args.out / "busy_probe.json").write_text(json.dumps(report, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
