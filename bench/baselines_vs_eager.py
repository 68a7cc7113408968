#!/usr/bin/env python3
"""Are the X->X baselines honest? Time each shipped baseline against PyTorch eager on one NVIDIA GPU.

For every cuda2cuda and triton2triton task (hip2hip is left out: an NVIDIA timing says nothing
about an AMD GPU) and every seen and hidden config (seed 0), it builds the inputs with the task's
reference.py and times three things with CUDA events (cold L2: a 256 MB buffer zeroed before each
call; a 200 us sleep kernel queued before the start event, so a Triton launcher's Python is not
timed against eager's C++ launch, as the judge's device spin does; warm-up; median of up to 100
calls, bench/check_native_tasks.time_fn; records before 2026-11-29 timed without the sleep):

  eager     the PyTorch reference (what a torch2X task's baseline is),
  baseline  the shipped kernel.cu / kernel.py (the X->X task's baseline; checked correct first),
  solution  solution/<entry> (the reference solution the oracle ships).

It also measures this GPU's ceilings once: a device-to-device copy of 1 GiB (bandwidth, counting
read + write) and a large torch.matmul per dtype (float32 IEEE, float16, bfloat16). A config's
bytes and FLOPs come from the task's `[work]` expressions when it has them; without `bytes`, the
sizes of its input and output tensors (each moved once: the least traffic any kernel needs). A config
is compute-bound when FLOPs / bytes exceeds the ridge point of the ceilings, else memory-bound.

Per task it reports geomean(baseline / eager), the geomean fraction of the ceiling for the bound
the baseline reaches, geomean and largest (baseline / solution) beside the task's declared cap
(default 10x), and the acceptance rule of issue 33:
`honest` when the baseline is within 2x of eager or reaches >= 30 % of the measured ceiling.

    PYTHONUNBUFFERED=1 python3 bench/baselines_vs_eager.py [--only SUB[,SUB...]] [--json out.json]

Needs torch, triton, nvcc and the standard library. Exit status 1 if a baseline or solution is
wrong on a config (a timing never fails the run: it is a measurement, not a test).
"""
from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

os.environ.setdefault("TRITON_F32_DEFAULT", "ieee")   # tl.dot on float32 as the judge runs it

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runner.tasks.work import evaluate  # noqa: E402  (the judge's own reading of [work])
from check_native_tasks import (TASKS_ROOT, Kernel, Task, as_tuple, canonical_for, check, compare,  # noqa: E402
                                compile_kernel, nvcc_path, time_fn)

CATEGORIES = ("cuda2cuda", "triton2triton")
FLUSH_BYTES = 256 * 1024 * 1024
HONEST_RATIO, HONEST_FRACTION = 2.0, 0.30

def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def measure_ceilings(torch) -> dict:
    """This GPU's bandwidth (copy) and math (vendor GEMM) ceilings, the best of a few timings."""
    def best_ms(fn, reps=20):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(3):
            fn()
        times = []
        for _ in range(reps):
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        return min(times)

    src = torch.empty(1 << 28, dtype=torch.float32, device="cuda")   # 1 GiB
    dst = torch.empty_like(src)
    out = {"copy_GBps": 2 * src.numel() * 4 / best_ms(lambda: dst.copy_(src)) / 1e6}
    del src, dst
    n = 8192
    for name, dtype in (("float32", torch.float32), ("float16", torch.float16), ("bfloat16", torch.bfloat16)):
        a = torch.randn(n, n, device="cuda").to(dtype)
        b = torch.randn(n, n, device="cuda").to(dtype)
        out[f"gemm_{name}_TFLOPs"] = 2 * n ** 3 / best_ms(lambda: torch.matmul(a, b), reps=10) / 1e9
    return out


def load_python(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tensor_bytes(tensors) -> int:
    import torch
    return sum(t.numel() * t.element_size() for t in tensors if isinstance(t, torch.Tensor))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="tasks whose id contains this substring (or one of several, comma-separated)")
    ap.add_argument("--json", default="", help="also write the rows and the per-task summary here")
    opts = ap.parse_args()

    import torch
    torch.backends.cudnn.allow_tf32 = False          # float32 tasks mean IEEE float32 (the judge's rule)
    torch.backends.cuda.matmul.allow_tf32 = False
    if not torch.cuda.is_available():
        print("needs an NVIDIA GPU", file=sys.stderr)
        return 2
    arch = "sm_%d%d" % torch.cuda.get_device_capability()
    header = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": torch.cuda.get_device_name(), "arch": arch, "torch": torch.__version__,
        "nvcc": subprocess.run([nvcc_path(), "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1],
        "command": " ".join([Path(sys.executable).name] + sys.argv),
    }
    ceilings = measure_ceilings(torch)
    header["ceilings"] = ceilings
    for k, v in header.items():
        print(f"# {k}: {v}")

    tasks = [Task(p.parent) for cat in CATEGORIES for p in sorted((TASKS_ROOT / cat).glob("*/task.toml"))]
    tasks = [t for t in tasks if any(part in t.id for part in opts.only.split(","))]
    build = Path(tempfile.mkdtemp(prefix="baselines-vs-eager-"))
    flush = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    rows, summary, failures = [], [], 0
    for t in tasks:
        sol_path = t.resolve(t.data["solution"]["dir"]) / t.entry
        triton_task = t.category.endswith("triton")
        try:
            if triton_task:
                tag = t.id.replace("/", "_")
                shipped = getattr(load_python(t.resolve(t.entry), tag + "_shipped"), t.symbol)
                solution = getattr(load_python(sol_path, tag + "_solution"), t.symbol)
            else:
                kernels = {}
                for which, src in (("shipped", t.resolve(t.entry)), ("solution", sol_path)):
                    so = build / f"{t.id.replace('/', '__')}__{which}.so"
                    ok, log = compile_kernel(src, so, arch, False, t.flags)
                    if not ok:
                        raise RuntimeError(f"{which} does not compile:\n{log[-2000:]}")
                    kernels[which] = Kernel(so, t.symbol)
        except Exception as exc:   # a task that cannot load is reported, the others still run
            print(f"{t.id}: {exc}")
            failures += 1
            continue
        ref = t.reference_module()
        work = t.data.get("work", {})
        per_task = []
        for name, split, params in t.configs():
            args = list(ref.make_inputs(dict(params), torch.Generator().manual_seed(0), "cuda"))
            expected = as_tuple(ref.reference(*args))
            torch.cuda.synchronize()
            row = {"task": t.id, "config": name, "split": split}
            if triton_task:
                calls = {"baseline": lambda: shipped(*args), "solution": lambda: solution(*args)}
                for which, fn in calls.items():
                    got = as_tuple(fn())
                    ok = len(got) == len(expected) and all(
                        g.shape == e.shape and g.dtype == e.dtype for g, e in zip(got, expected))
                    if ok:
                        ok, _, why = compare(t, got, expected, canonical_for(ref, args))   # e.g. only the KV slots written
                    else:
                        why = "wrong outputs' shape or dtype"
                    if not ok:
                        row[which] = f"FAIL: {why}"
            else:
                outs = {w: [torch.empty_like(e) for e in expected] for w in ("baseline", "solution")}
                calls = {"baseline": lambda: kernels["shipped"](args, outs["baseline"]),
                         "solution": lambda: kernels["solution"](args, outs["solution"])}
                for which, kern in (("baseline", kernels["shipped"]), ("solution", kernels["solution"])):
                    ok, _, why = check(t, kern, ref, args, expected)
                    if not ok:
                        row[which] = f"FAIL: {why}"
            if "baseline" in row or "solution" in row:
                failures += 1
                rows.append(row)
                print(row)
                continue
            eager_ms, _ = time_fn(lambda: ref.reference(*args), flush)
            base_ms, _ = time_fn(calls["baseline"], flush)
            sol_ms, _ = time_fn(calls["solution"], flush)
            names = {k: v for k, v in params.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
            # the task's own count where it declares one (a gather reads only the rows it names, not
            # its whole table: embedding's baseline read 185 % of the copy ceiling by tensor sizes)
            nbytes = (evaluate(work["bytes"], names) if "bytes" in work
                      else tensor_bytes(args) + tensor_bytes(expected))
            flops = evaluate(work["flops"], names) if "flops" in work else 0.0
            dtype = str(expected[0].dtype).removeprefix("torch.")
            gemm = ceilings.get(f"gemm_{dtype}_TFLOPs") or ceilings["gemm_float32_TFLOPs"]
            ridge = gemm * 1e12 / (ceilings["copy_GBps"] * 1e9)    # FLOPs per byte
            compute_bound = flops > 0 and flops / nbytes > ridge
            fraction = ((flops / (base_ms * 1e-3) / 1e12) / gemm if compute_bound
                        else (nbytes / (base_ms * 1e-3) / 1e9) / ceilings["copy_GBps"])
            row.update(eager_ms=eager_ms, baseline_ms=base_ms, solution_ms=sol_ms, bytes=nbytes, flops=flops,
                       bound="compute" if compute_bound else "memory", baseline_fraction=fraction)
            rows.append(row)
            per_task.append(row)
            print(f"{t.id:32s} {name:28s} eager {eager_ms:9.4f} ms  baseline {base_ms:9.4f} ms  "
                  f"solution {sol_ms:9.4f} ms  baseline at {100 * fraction:5.1f}% of {row['bound']} ceiling")
        if per_task:
            ratio = geomean([r["baseline_ms"] / r["eager_ms"] for r in per_task])
            frac = geomean([r["baseline_fraction"] for r in per_task])
            speedup = geomean([r["baseline_ms"] / r["solution_ms"] for r in per_task])
            top = max(per_task, key=lambda r: r["baseline_ms"] / r["solution_ms"])
            summary.append({"task": t.id, "configs": len(per_task), "baseline_over_eager": ratio,
                            "baseline_ceiling_fraction": frac, "solution_speedup": speedup,
                            "max_solution_speedup": top["baseline_ms"] / top["solution_ms"], "max_on": top["config"],
                            # the task's own cap only: runner/tasks/task.py never inherits one across kinds of baseline
                            "max_speedup_declared": tomllib.loads((t.folder / "task.toml").read_text())
                            .get("performance", {}).get("max_speedup"),
                            "honest": ratio <= HONEST_RATIO or frac >= HONEST_FRACTION})

    print(f"\n{'task':32s} {'cfgs':>4s} {'base/eager':>10s} {'base %ceil':>10s} {'sol speedup':>11s} "
          f"{'max (cap)':>16s}  verdict")
    for s in summary:
        cap = f"{s['max_solution_speedup']:.1f}x ({s['max_speedup_declared'] or 10:g})"
        print(f"{s['task']:32s} {s['configs']:4d} {s['baseline_over_eager']:10.2f} "
              f"{100 * s['baseline_ceiling_fraction']:9.1f}% {s['solution_speedup']:10.2f}x {cap:>16s}  "
              f"{'honest' if s['honest'] else 'HANDICAPPED (> 2x eager and < 30 % of ceiling)'}")
    print(f"\n{sum(s['honest'] for s in summary)} of {len(summary)} baselines honest; {failures} failure(s)")
    doc = {"header": header, "rule": {"max_ratio_to_eager": HONEST_RATIO, "min_ceiling_fraction": HONEST_FRACTION},
           "summary": summary, "rows": rows}
    print("\nJSON " + json.dumps({"header": header, "summary": summary}))
    if opts.json:
        Path(opts.json).write_text(json.dumps(doc, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
