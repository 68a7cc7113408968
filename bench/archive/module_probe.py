"""Is a small native kernel's level in a process set by the loaded copy of its code, or by the process?
(issue 10: the noop's small configs)

With the arena, memory-bound configs read the same in both runner processes; small launch-bound
ones (2-10 us) still read a constant apart within one evaluation, up to 0.4-0.8 us a call in either
direction (cuda2cuda/log_softmax on an H100 and an H200, results/gpu-2026-11-27.md), after a
process offset measured on the baseline's copy of the code before the candidate's was loaded. If the
level belonged to the process, that offset would have removed it; the candidate's runner runs another
loaded copy of the same code (its own build) than the one the offset was measured on.

Each child process compiles nothing: the parent builds cuda2cuda/log_softmax's kernel once and gives
every child COPIES files of it (each dlopen'd on its own: a module of its own). The child times copy
0 alone for BATCHES batches, loads the others, then times every copy in alternating batches (random
order per round), all on the same buffers, with the judge's clock (timing.GpuClock: cold L2, launch
gate). It prints each copy's median (us). --profile: copy 0 is timed again after one profiler
session (guard.StreamWatch, what the runner's stream watch and launch check start), before the
other copies are loaded. Copies apart within a process: the level is the code's;
together, but processes apart: it is the process's.

    python3 bench/archive/module_probe.py [--procs 3] [--copies 3] [--batches 12] [--reps 32] [--profile] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TASK = ROOT / "tasks" / "cuda2cuda" / "log_softmax"
CONFIGS = {"rows4096-cols512": (4096, 512), "rows1531-cols1000": (1531, 1000)}


def child(paths: list[str], batches: int, reps: int, profile: bool) -> dict:
    sys.path.insert(0, str(ROOT))
    import torch
    from runner.evaluator.build import load_native
    from runner.evaluator.timing import GpuClock
    clock = GpuClock("cold")
    pick = random.Random()
    kernels = [load_native(Path(paths[0]), "launch", "copy0")]
    cases = {}
    for name, (rows, cols) in CONFIGS.items():
        x = (100.0 + 8.0 * torch.randn(rows, cols, generator=torch.Generator().manual_seed(rows))).cuda()
        args = [x, rows, cols]
        cases[name] = (args, kernels[0].prepare(args, [torch.empty(rows, cols, device="meta")]))

    def batch(kernel, name):
        args, state = cases[name]
        kernel.run(args, state)
        torch.cuda.synchronize()
        return [clock.once(lambda: kernel.run(args, state))[0] for _ in range(reps)]

    alone = {name: [] for name in CONFIGS}
    for _ in range(batches):
        for name in CONFIGS:
            alone[name] += batch(kernels[0], name)
    profiled = {name: [] for name in CONFIGS}
    if profile:        # one profiler session, as the runner's stream watch and launch check start one
        from runner.evaluator.guard import StreamWatch
        watch = StreamWatch()
        watch.start()
        batch(kernels[0], next(iter(CONFIGS)))
        watch.stop()
        for _ in range(batches):
            for name in CONFIGS:
                profiled[name] += batch(kernels[0], name)
    kernels += [load_native(Path(p), "launch", f"copy{i}") for i, p in enumerate(paths[1:], 1)]
    together = {name: [[] for _ in kernels] for name in CONFIGS}
    for _ in range(batches):
        order = list(range(len(kernels)))
        pick.shuffle(order)
        for k in order:
            for name in CONFIGS:
                together[name][k] += batch(kernels[k], name)
    return {name: {"copy0_alone_us": statistics.median(alone[name]) * 1e3,
                   "copy0_after_profiler_us": statistics.median(profiled[name]) * 1e3 if profiled[name] else None,
                   "copies_us": [statistics.median(s) * 1e3 for s in together[name]]} for name in CONFIGS}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--procs", type=int, default=3)
    parser.add_argument("--copies", type=int, default=3)
    parser.add_argument("--batches", type=int, default=12)
    parser.add_argument("--reps", type=int, default=32)
    parser.add_argument("--json", default=None)
    parser.add_argument("--profile", action="store_true", help="time copy 0 again after one profiler session")
    parser.add_argument("--child", nargs="+", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.batches, args.reps, args.profile)))
        return 0
    sys.path.insert(0, str(ROOT))
    from runner.evaluator.build import compile_native
    folder = Path(tempfile.mkdtemp(prefix="module-probe-"))
    library, _ = compile_native("cuda", TASK, "kernel.cu", "sm_90", out_dir=folder)
    found = []
    for p in range(args.procs):
        paths = [str(shutil.copy(library, folder / f"p{p}-copy{i}.so")) for i in range(args.copies)]
        proc = subprocess.run([sys.executable, __file__, "--batches", str(args.batches), "--reps", str(args.reps),
                               *(["--profile"] if args.profile else []), "--child", *paths],
                              capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            print(f"process {p} failed: {proc.stderr[-1500:]}", flush=True)
            continue
        found.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        for name, r in found[-1].items():
            after = r["copy0_after_profiler_us"]
            print(f"process {p} {name:18s} copy0 alone {r['copy0_alone_us']:.3f} us"
                  + (f", after a profiler session {after:.3f}" if after is not None else "") + "; copies together "
                  + " ".join(f"{v:.3f}" for v in r["copies_us"]), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
