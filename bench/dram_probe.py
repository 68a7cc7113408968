#!/usr/bin/env python3
"""Can the device's own DRAM counters, sampled from another process, tell a real L2 flush from
one pointed at memory the L2 already holds, and a cold call from a warm one? (issue 30, the
threat model's open row "a flush pointed elsewhere")

The device trace names each kernel, its blocks, stream and device time, never the memory it
read. The harness's cold-L2 flush (`clock.GpuClock`: PyTorch's sum over a 256 MB int32 buffer)
runs in the candidate's process, so a candidate can launch the same kernel, with the same blocks,
for as long, over memory the L2 already holds; the call after it then runs with its inputs in
the L2. Through PyTorch's API that has cost a copy the trace sees (the red team's
flush_on_inputs and flush_stride0, results/gpu-2026-12-01-s21.md); through the driver's virtual
memory calls it costs none: one physical chunk mapped at 64 consecutive addresses is dense to
PyTorch, 256 MB long, and 4 MB in the L2.

What would hold against any form is the effect itself: how many bytes each flush and each call
read from DRAM. The judge's sampler (`runner/evaluator/judge/dram_sampler.cpp`) samples the device's counters (CUPTI PM sampling:
dram__bytes_read.sum, dram__bytes_write.sum) in a process of its own; this script runs it at a
few intervals beside a workload of its own, with globaltimer stamps at every edge, and reports:
- whether PM sampling works on this host at all (privileges), and the chip's DRAM/L2 metrics;
- DRAM bytes read per flush: the harness's flush, the stride-0 form (with its copy), the aliased
  form; and whether the aliased form launches the same kernel with the same blocks, for as long;
- DRAM bytes read inside each call's window (a softmax on 8 MB, a stand-in for a candidate's
  kernel), after the real flush, after no flush, after the aliased flush;
- whether sample timestamps and globaltimer stamps share a base (session 22: they do), and how
  much of the sampled span the samples cover;
- the flush's time with and without the sampler running (the sampler's cost on the device), and
  whether PyTorch's profiler (CUPTI's activity records, as the device trace uses) still sees
  kernels in this process while another process samples (a CUDA 12.8 report says PM sampling
  silences activity records in its own process).

    python3 bench/dram_probe.py --out DIR [--intervals 100000 20000] [--reps 40]

GPU only (torch, triton, CUPTI's headers and library, a C++ compiler). Not a test: a probe whose
figures decide whether the judge should sample the device's counters.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
FLUSH_BYTES = 256 << 20          # timing.L2_FLUSH_BYTES
CALL_SHAPE = (4096, 512)         # the stand-in call's input: 8 MB of float32
SPIN_CYCLES = 40_000             # ~20 us of torch.cuda._sleep between a flush and a call


# -- the sampler process (the judge's own: runner/evaluator/judge/dram.py) ----------------------------
def start_sampler(exe: Path, interval_ns: int, path: Path, metrics):
    """The judge's sampler (dram.Witness) beside the workload: stop() it, then read its samples,
    clock pairs and other lines (`samples`, `clocks`, `other`)."""
    from runner.evaluator.judge import dram
    return dram.Witness(exe, 0, path, 0, 0, interval_ns, metrics).ready()


def ended(sampler) -> dict:
    """What a stopped sampler said: exit code, stderr, its header and closing lines."""
    said = sampler.stop()
    return {"rc": said["rc"], "stderr": said["stderr"],
            "header": next((line for line in sampler.other if line.startswith("# chip")), ""),
            "trailer": next((line for line in sampler.other if line.startswith("# samples")), "")}


def window_sums(samples, windows, shift_ns: float = 0.0):
    """Bytes (read, written) inside each [a, b] window of the stamps' clock, the samples moved by
    `shift_ns` (dram.window_reads)."""
    import numpy as np
    from runner.evaluator.judge import dram
    if len(samples) == 0:
        return np.zeros((len(windows), 2))
    return np.array(dram.window_reads(samples, [(a - shift_ns, b - shift_ns) for a, b in windows]))[:, :2]


def coverage(samples) -> dict:
    """How much of the sampled span the samples cover, and the longest gap between two."""
    if len(samples) < 2:
        return {}
    span = samples[-1, 1] - samples[0, 0]
    gaps = samples[1:, 0] - samples[:-1, 1]
    return {"span_ms": span / 1e6, "covered": float((samples[:, 1] - samples[:, 0]).sum() / span),
            "longest_gap_us": float(gaps.max() / 1e3)}


# -- the workload -----------------------------------------------------------------------------------
def stamp_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def gauntlet_probe_stamp(out, i):
        z = tl.zeros([1], dtype=tl.int64)
        t = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l,l", [z], dtype=tl.int64,
                                      is_pure=False, pack=1)
        tl.store(out + i + tl.arange(0, 1), t)
    return gauntlet_probe_stamp


def aliased_buffer(torch, n_bytes: int):
    """A dense int32 tensor of n_bytes whose every 4 MB piece is the same physical memory, built as
    the red team's flush_aliased builds it (bench/judge_gpu.py: its `_aliased`, cuMemCreate once and
    cuMemMap at n_bytes / 4 MB addresses), so that this measures what that cheat hands the flush."""
    sys.path.insert(0, str(ROOT / "bench"))
    from judge_gpu import CHEATS
    source = CHEATS["flush_aliased"]
    namespace = {"torch": torch}
    exec(source[:source.index("\nfor _name, _mod in")], namespace)    # its imports and _aliased only
    return namespace["_aliased"](n_bytes)


class Workload:
    def __init__(self, reps: int):
        import torch
        self.torch, self.reps = torch, reps
        self.buffer = torch.ones(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
        self.sink = torch.zeros((), dtype=torch.int32, device="cuda")     # as clock.GpuClock's
        word = torch.ones(1, dtype=torch.int32, device="cuda")
        self.stride0 = word.as_strided((FLUSH_BYTES // 4,), (0,))
        self.alias_error = None
        try:
            self.aliased = aliased_buffer(torch, FLUSH_BYTES)
        except Exception as exc:       # no VMM on this host: the other phases still run
            self.aliased, self.alias_error = None, f"{type(exc).__name__}: {exc}"
        self.x = torch.randn(CALL_SHAPE, device="cuda")
        self.stamps = torch.zeros(1 << 16, dtype=torch.int64, device="cuda")
        self.n_stamps = 0
        self.stamp_fn = stamp_kernel()
        self.stamp()
        torch.cuda.synchronize()
        self.n_stamps = 0

    def stamp(self) -> int:
        i = self.n_stamps
        self.stamp_fn[(1,)](self.stamps, i)
        self.n_stamps += 1
        return i

    def flush(self, kind: str):
        src = {"real": self.buffer, "stride0": self.stride0, "aliased": self.aliased}[kind]
        self.torch.sum(src, 0, dtype=self.torch.int32, out=self.sink)

    def call(self):
        self.torch.softmax(self.x, dim=-1)

    def run(self) -> dict:
        """Phases apart by idle host time (the DRAM quiet between them); every edge stamped."""
        torch = self.torch
        edges = {}

        def phase(name, body):
            torch.cuda.synchronize()
            time.sleep(0.005)
            a = self.stamp()
            calls = body()
            b = self.stamp()
            torch.cuda.synchronize()
            edges[name] = (a, b, calls)

        kinds = ["real", "stride0"] + (["aliased"] if self.aliased is not None else [])
        phase("idle", lambda: time.sleep(0.005) or [])
        for kind in kinds:
            phase(f"flush:{kind}", lambda kind=kind: [self.flush(kind) for _ in range(self.reps)] and [])
        for kind in ["real", "none"] + (["aliased"] if self.aliased is not None else []):
            def body(kind=kind):
                calls = []
                for _ in range(self.reps):
                    if kind != "none":
                        self.flush(kind)
                    torch.cuda._sleep(SPIN_CYCLES)
                    a = self.stamp()
                    self.call()
                    b = self.stamp()
                    torch.cuda._sleep(SPIN_CYCLES)
                    calls.append((a, b))
                return calls
            phase(f"call after flush:{kind}", body)
        torch.cuda.synchronize()
        stamps = self.stamps[:self.n_stamps].cpu().tolist()
        return {name: {"window": (stamps[a], stamps[b]),
                       "calls": [(stamps[x], stamps[y]) for x, y in calls]} for name, (a, b, calls) in edges.items()}

    def flush_times_ms(self, kind: str, n: int = 21) -> dict:
        torch = self.torch
        times = []
        for _ in range(n):
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            self.flush(kind)
            e1.record()
            torch.cuda.synchronize()
            times.append(e0.elapsed_time(e1))
        times.sort()
        return {"min": times[0], "median": times[n // 2], "max": times[-1]}

    def kernels_seen(self, kinds) -> dict:
        """Each flush form's kernels as PyTorch's profiler (CUPTI activity records) reports them:
        name, grid, block, duration."""
        torch = self.torch
        seen = {}
        for kind in kinds:
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                for _ in range(3):
                    self.flush(kind)
                torch.cuda.synchronize()
            with tempfile.NamedTemporaryFile(suffix=".json") as f:
                prof.export_chrome_trace(f.name)
                events = json.load(open(f.name)).get("traceEvents", [])
            seen[kind] = [{"name": e.get("name", "")[:120], "grid": e.get("args", {}).get("grid"),
                           "block": e.get("args", {}).get("block"), "dur_us": e.get("dur")}
                          for e in events if e.get("cat") == "kernel"]
        return seen


def summarise(run: dict, samples, reps: int) -> dict:
    import numpy as np
    names = list(run)
    windows = [run[n]["window"] for n in names]
    out = {"first_sample_ns": float(samples[0, 0]) if len(samples) else None,
           "first_stamp_ns": float(min(w[0] for w in windows)), "samples": int(len(samples))}
    if len(samples) == 0:
        return out
    # Both are the device's globaltimer: on an H200 (session 22) the windows read the flushes' bytes
    # with no shift, and a search for a better one (removed) found a wrong one.
    for shift_name, shift in (("no_shift", 0.0),):
        phases = {}
        sums = window_sums(samples, windows, shift)
        for k, name in enumerate(names):
            per = {"window_us": (windows[k][1] - windows[k][0]) / 1e3,
                   "read_MB": sums[k, 0] / 1e6, "written_MB": sums[k, 1] / 1e6}
            if name.startswith("flush:"):
                per["read_MB_per_flush"] = sums[k, 0] / 1e6 / reps
            calls = run[name]["calls"]
            if calls:
                c = window_sums(samples, calls, shift)
                per["call_us_median"] = float(np.median([(b - a) / 1e3 for a, b in calls]))
                per["call_read_MB"] = {"median": float(np.median(c[:, 0]) / 1e6), "min": float(c[:, 0].min() / 1e6),
                                       "max": float(c[:, 0].max() / 1e6)}
                per["call_written_MB_median"] = float(np.median(c[:, 1]) / 1e6)
            phases[name] = per
        out[shift_name] = phases
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--intervals", type=int, nargs="+", default=[100000, 20000])
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--metrics", nargs=2, default=None, help="the DRAM read and write metrics (default: "
                    "dram__bytes_read.sum and dram__bytes_write.sum, or the chip's listed names like them)")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}

    def save():
        (args.out / "dram_probe.json").write_text(json.dumps(report, indent=1, default=str))

    from runner.evaluator.judge import dram
    try:
        exe = dram.build(args.out / "cache")
    except Exception as exc:
        report["build_error"] = str(exc)
        save()
        print("build:", exc)
        return 1
    listing = subprocess.run([str(exe), "0", "--list", str(args.out / "pm_metrics.txt")],
                             capture_output=True, text=True, timeout=120)
    report["list"] = {"rc": listing.returncode, "stderr": listing.stderr[-400:]}
    if listing.returncode == 0:
        names = [line.split(" ", 1)[-1] for line in (args.out / "pm_metrics.txt").read_text().splitlines()]
        report["list"]["dram_lts"] = [n for n in names if n.startswith(("dram__", "lts__t_bytes", "lts__t_sectors"))][:80]
    metrics = args.metrics or ["dram__bytes_read.sum", "dram__bytes_write.sum"]
    listed = report["list"].get("dram_lts") or []
    for k, word in enumerate(("dram__bytes_read", "dram__bytes_write")):
        # the listing holds base metrics (`dram__bytes_read`); a sampled value is a rollup of one (`.sum`)
        if listed and metrics[k] not in listed and metrics[k].split(".")[0] not in listed:
            other = next((n for n in listed if n.startswith(word)), None)
            if other:
                metrics[k] = other if "." in other else other + ".sum"
    report["metrics"] = metrics
    print("list:", report["list"], "metrics:", metrics)
    save()

    import torch
    work = Workload(args.reps)
    kinds = ["real", "stride0"] + (["aliased"] if work.aliased is not None else [])
    report["alias_error"] = work.alias_error
    report["device"] = torch.cuda.get_device_name()
    report["versions"] = {"torch": torch.__version__}
    report["flush_ms_without_sampler"] = {k: work.flush_times_ms(k) for k in kinds}
    report["kernels_without_sampler"] = work.kernels_seen(kinds)
    save()
    for interval in args.intervals:
        entry: dict = {}
        report[f"interval_{interval}"] = entry
        try:
            sampler = start_sampler(exe, interval, args.out / f"samples_{interval}.txt", metrics)
        except Exception as exc:
            entry["error"] = str(exc)
            print(interval, "sampler:", exc)
            save()
            continue
        t0 = time.perf_counter()
        time.sleep(0.02)
        run = work.run()
        entry["flush_ms_with_sampler"] = {k: work.flush_times_ms(k) for k in kinds}
        if interval == args.intervals[0]:
            entry["kernels_with_sampler"] = work.kernels_seen(kinds)
        time.sleep(0.02)
        entry.update(ended(sampler))
        entry["workload_s"] = time.perf_counter() - t0
        entry["summary"] = summarise(run, sampler.samples, args.reps)
        entry["coverage"] = coverage(sampler.samples)
        entry["clock_pairs"] = sampler.clocks[:3]
        (args.out / f"samples_{interval}.txt").unlink(missing_ok=True)   # large; the summary keeps what matters
        print(interval, json.dumps({"coverage": entry["coverage"], **entry["summary"].get("no_shift", {})})[:1500])
        save()
    save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
