#!/usr/bin/env python3
"""Check Triton tasks: correctness of baseline and solution on every config, and their speed.

For each task and each config (seen and hidden) it builds the inputs with the task's
reference.py, runs the shipped kernel.py (triton2triton only: for torch2triton the shipped file is
a stub and the baseline is the PyTorch reference) and solution/kernel.py, and compares each with
the reference using torch.allclose (task tolerance, else float32 1e-4 / float16 1e-2 / bfloat16
2e-2). On CUDA it times baseline and solution with CUDA events (warm-up, then alternating rounds,
each call preceded by zeroing a 256 MB buffer to flush L2; median). On CPU it sets
TRITON_INTERPRET=1 and reports the wall time per call instead.

    python3 bench/check_triton_tasks.py --device cpu
    python3 bench/check_triton_tasks.py --device cuda [--tasks triton2triton/softmax ...]

Needs only torch, triton, numpy and the standard library. Exit status 1 if anything failed.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
import tomllib
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TASKS = ["triton2triton/softmax", "triton2triton/matmul",
                 "torch2triton/rmsnorm", "torch2triton/silu_mul"]
DEFAULT_TOL = {"float32": (1e-4, 1e-4), "float16": (1e-2, 1e-2), "bfloat16": (2e-2, 2e-2),
               "float64": (1e-7, 1e-7)}
FLUSH_BYTES = 256 * 1024 * 1024
MIN_SPEEDUP = 1.3


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--tasks", nargs="*", default=None,
                   help="task ids (default: the four Triton tasks this script was written for)")
    p.add_argument("--reps", type=int, default=100, help="timed calls per kernel (cuda)")
    p.add_argument("--cpu-reps", type=int, default=3, help="timed calls per kernel (cpu)")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


ARGS = parse_args()
if ARGS.device == "cpu":
    # Must be set before triton.jit decorates any kernel: every task module is imported later.
    os.environ["TRITON_INTERPRET"] = "1"

os.environ["TRITON_F32_DEFAULT"] = "ieee"   # tl.dot on float32 as the judge runs it
import torch  # noqa: E402
import triton  # noqa: E402

# What a float32 task means in the judge (protocol.strict_float32): IEEE float32, no TF32.
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_configs(path: Path, split: str) -> list[tuple[str, str, dict]]:
    data = tomllib.loads(path.read_text())
    return [(split, c["name"], {k: v for k, v in c.items() if k != "name"})
            for c in data["config"]]


class TaskInfo:
    def __init__(self, task_id: str):
        self.id = task_id
        self.dir = ROOT / "tasks" / task_id
        meta = tomllib.loads((self.dir / "task.toml").read_text())
        # `extends` (docs/task-format.md): keys and files this task lacks come from its bases.
        self.folders, data = [self.dir], meta
        while "extends" in data:
            self.folders.append(ROOT / "tasks" / data["extends"])
            data = tomllib.loads((self.folders[-1] / "task.toml").read_text())
            for key, value in data.items():
                if key in ("id", "category", "extends"):
                    continue
                if isinstance(value, dict) and isinstance(meta.get(key), dict):
                    meta[key] = {**value, **meta[key]}
                elif key not in meta:
                    meta[key] = value
        self.category = meta["category"]
        self.platforms = meta["platforms"]
        self.baseline_is_reference = self.category.startswith("torch2")
        entry, symbol = meta["candidate"]["entry"], meta["candidate"]["symbol"]
        tag = task_id.replace("/", "_")
        self.ref = load_module(self.resolve(meta["reference"]["module"]), f"{tag}_reference")
        self.baseline_mod = load_module(self.resolve(entry), f"{tag}_baseline")
        self.solution = getattr(load_module(self.resolve(meta["solution"]["dir"]) / entry,
                                            f"{tag}_solution"), symbol)
        self.shipped = getattr(self.baseline_mod, symbol)
        self.tolerance = {k: (v["atol"], v["rtol"]) for k, v in meta.get("tolerance", {}).items()}
        self.configs = (load_configs(self.resolve(meta["configs"]["seen"]), "seen")
                        + load_configs(self.resolve(meta["configs"]["hidden"]), "hidden"))

    def resolve(self, rel: str) -> Path:
        """A task path, looked up in this folder first, then in the extended tasks."""
        return next((f / rel for f in self.folders if (f / rel).exists()), self.dir / rel)

    def tol(self, dtype: torch.dtype) -> tuple[float, float]:
        name = str(dtype).removeprefix("torch.")
        return self.tolerance.get(name) or DEFAULT_TOL.get(name, (0.0, 0.0))


def compare(task: TaskInfo, out, ref, args=None) -> tuple[bool, str]:
    canon = getattr(task.ref, "canonical", None)
    if args is not None and callable(canon):   # more than one correct answer: compare what the judge compares
        try:
            out = canon(tuple(out) if isinstance(out, (tuple, list)) else (out,), *args)
        except Exception as exc:
            return False, f"canonical() raised {type(exc).__name__} on the output: {exc}"
        ref = canon(tuple(ref) if isinstance(ref, (tuple, list)) else (ref,), *args)
    if isinstance(ref, (tuple, list)):   # several outputs: each compared, the worst reported
        if not isinstance(out, (tuple, list)) or len(out) != len(ref):
            return False, f"returned {type(out).__name__}, want {len(ref)} tensors"
        results = [compare(task, o, r) for o, r in zip(out, ref)]
        return all(ok for ok, _ in results), "; ".join(msg for _, msg in results)
    if not isinstance(out, torch.Tensor):
        return False, f"returned {type(out).__name__}"
    if out.shape != ref.shape or out.dtype != ref.dtype:
        return False, f"got {tuple(out.shape)} {out.dtype}, want {tuple(ref.shape)} {ref.dtype}"
    atol, rtol = task.tol(ref.dtype)
    ok = torch.allclose(out.double(), ref.double(), atol=atol, rtol=rtol)   # float8 has no allclose of its own
    err = (out.float() - ref.float()).abs().max().item()
    return ok, f"max|err|={err:.2e}"


def time_cuda(fns: dict, reps: int) -> dict[str, float]:
    """Median ms per call: cold L2 per call, alternating rounds between the kernels."""
    flush = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for fn in fns.values():
        for _ in range(5):
            fn()
    torch.cuda.synchronize()
    samples = {name: [] for name in fns}
    rounds = 5
    for _ in range(rounds):
        for name, fn in fns.items():
            for _ in range(max(1, reps // rounds)):
                flush.zero_()   # also keeps the GPU busy while the call below is launched
                start.record()
                fn()
                end.record()
                torch.cuda.synchronize()
                samples[name].append(start.elapsed_time(end))
    return {name: statistics.median(s) for name, s in samples.items()}


def time_cpu(fn, reps: int) -> tuple[float, float]:
    """Median (wall ms, process CPU ms) per call; CPU time shows the cost on a shared host."""
    wall, cpu = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def describe(params: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items())


def main() -> int:
    device = ARGS.device
    if device == "cuda" and not torch.cuda.is_available():
        print("CUDA requested but not available", file=sys.stderr)
        return 2
    task_ids = ARGS.tasks or DEFAULT_TASKS
    print(f"# device={device}"
          + (f" ({torch.cuda.get_device_name()})" if device == "cuda" else " (TRITON_INTERPRET=1)")
          + f" torch={torch.__version__} triton={triton.__version__}"
          + f" python={sys.version.split()[0]}")
    failures = []
    rows = []
    for task_id in task_ids:
        try:
            task = TaskInfo(task_id)
        except Exception:
            failures.append(f"{task_id}: load failed")
            traceback.print_exc()
            continue
        if device == "cpu" and "cpu" not in task.platforms:
            print(f"# {task_id}: cpu not in platforms, skipped")
            continue
        # The torch2triton stub must refuse to run; it is not a baseline.
        if task.baseline_is_reference:
            try:
                task.shipped(*task.ref.make_inputs(task.configs[0][2], torch.Generator().manual_seed(0), device))
                failures.append(f"{task_id}: shipped stub did not raise NotImplementedError")
            except NotImplementedError:
                pass
            except Exception as exc:
                failures.append(f"{task_id}: shipped stub raised {type(exc).__name__}, "
                                "expected NotImplementedError")
        for split, name, params in task.configs:
            gen = torch.Generator().manual_seed(ARGS.seed)
            args = task.ref.make_inputs(params, gen, device)
            ref = task.ref.reference(*args)
            baseline = (lambda: task.ref.reference(*args)) if task.baseline_is_reference \
                else (lambda: task.shipped(*args))
            solution = lambda: task.solution(*args)  # noqa: E731
            row = {"task": task_id, "split": split, "config": name, "params": describe(params)}
            for label, fn in (("base", baseline), ("sol", solution)):
                if label == "base" and task.baseline_is_reference:
                    row["base_ok"], row["base_err"] = True, "reference"
                    continue
                t0 = time.perf_counter()
                try:
                    out = fn()
                    if device == "cuda":
                        torch.cuda.synchronize()
                    ok, msg = compare(task, out, ref, args)
                except Exception as exc:
                    ok, msg = False, f"{type(exc).__name__}: {exc}"
                    traceback.print_exc()
                row[f"{label}_first_ms"] = (time.perf_counter() - t0) * 1000
                row[f"{label}_ok"], row[f"{label}_err"] = ok, msg
                if not ok:
                    failures.append(f"{task_id}/{name}: {label} incorrect ({msg})")
            if device == "cuda":
                if row["base_ok"] and row["sol_ok"]:
                    t = time_cuda({"base": baseline, "sol": solution}, ARGS.reps)
                    row["base_ms"], row["sol_ms"] = t["base"], t["sol"]
                    row["speedup"] = t["base"] / t["sol"]
                    if row["speedup"] < MIN_SPEEDUP:
                        failures.append(f"{task_id}/{name}: speedup {row['speedup']:.2f}x "
                                        f"< {MIN_SPEEDUP}x")
            else:
                if not task.baseline_is_reference and row["base_ok"]:
                    row["base_ms"], row["base_cpu_ms"] = time_cpu(baseline, ARGS.cpu_reps)
                if row["sol_ok"]:
                    row["sol_ms"], row["sol_cpu_ms"] = time_cpu(solution, ARGS.cpu_reps)
            rows.append(row)
            print_row(row, device, flush=True)
            del args, ref
    print()
    print_table(rows, device)
    if failures:
        print("\nFAILURES:")
        for f in failures:
            print("  " + f)
        return 1
    print("\nall checks passed")
    return 0


def fmt_ms(row, key, scale=1.0, digits=1):
    return f"{row[key] * scale:.{digits}f}" if key in row else "-"


def print_row(row, device, flush=False):
    print(f"  {row['task']:24s} {row['split']:6s} {row['config']:18s} "
          f"base:{'ok' if row['base_ok'] else 'FAIL'} ({row['base_err']}) "
          f"sol:{'ok' if row['sol_ok'] else 'FAIL'} ({row['sol_err']})", flush=flush)


def print_table(rows, device):
    if device == "cuda":
        head = ("| task | split | config | shape | baseline us | solution us | speedup | "
                "baseline ok | solution ok | solution max abs err |")
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for r in rows:
            print(f"| {r['task']} | {r['split']} | {r['config']} | {r['params']} | "
                  f"{fmt_ms(r, 'base_ms', 1000)} | {fmt_ms(r, 'sol_ms', 1000)} | "
                  f"{fmt_ms(r, 'speedup', 1, 2)}x | {r['base_ok']} | {r['sol_ok']} | "
                  f"{r['sol_err'].removeprefix('max|err|=')} |")
    else:
        head = ("| task | split | config | shape | baseline wall ms/call | baseline cpu ms/call | "
                "solution wall ms/call | solution cpu ms/call | baseline ok | solution ok |")
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for r in rows:
            torch_base = r["base_err"] == "reference"
            base = "torch" if torch_base else fmt_ms(r, "base_ms", 1, 0)
            base_cpu = "torch" if torch_base else fmt_ms(r, "base_cpu_ms", 1, 0)
            print(f"| {r['task']} | {r['split']} | {r['config']} | {r['params']} | "
                  f"{base} | {base_cpu} | {fmt_ms(r, 'sol_ms', 1, 0)} | "
                  f"{fmt_ms(r, 'sol_cpu_ms', 1, 0)} | {r['base_ok']} | {r['sol_ok']} |")


if __name__ == "__main__":
    sys.exit(main())
