"""Do loaded copies of one kernel read apart on a GPU? (issue 10: the residual of small calls.)

    python3 bench/archive/instance_bias.py [--copies 8] [--rounds 20]

One process, one clock (timing.GpuClock, as a kernel runner times), fixed inputs. For each case it
times K things in random order every round and prints each one's figure (the median over rounds of
the rounds' trimmed means, as timing.stats) with the spread over the K:

  native   K copies of one compiled .so (cuda2cuda/gelu), each dlopen'ed from its own path: K loads
           of the same machine code, each its own CUDA module;
  triton   K imports of triton2triton/gelu's kernel.py under K module names: K JIT functions, each
           loading the same cached binary as its own module;
  data     one native copy on K input/output pairs, each allocated at its own place;
  mapping  one native copy on one physical allocation (arena.py) mapped at K addresses: the same
           memory, K sets of page-table entries;
  flush    one native copy, one buffer, the L2 flushed through K buffers of its own (the clock's).

A spread over `native` or `triton` well above the figures' own noise (the standard error printed
beside it) says where a kernel's code is loaded moves its time; over `data`, where its buffers are."""
from __future__ import annotations

import argparse
import ctypes
import json
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from runner.evaluator import timing  # noqa: E402
from runner.evaluator.build import compile_native, device_arch, import_module  # noqa: E402


def _figure(rounds: list[list[float]]) -> tuple[float, float]:
    per = [timing.trimmed_mean(r) for r in rounds]
    return statistics.median(per), 1.25 * statistics.stdev(per) / len(per) ** 0.5


def measure(clock, calls: dict, rounds: int, reps: int, pick: random.Random) -> dict:
    """name -> (figure us, its standard error us) for each (prepare, zero-argument call)."""
    samples = {name: [] for name in calls}
    flush_buffer = clock.buffer
    for prep, fn in calls.values():
        prep()
        for _ in range(timing.WARMUP_CALLS):
            clock.once(fn)
    for _ in range(rounds):
        order = list(calls.items())
        pick.shuffle(order)
        for name, (prep, fn) in order:
            prep()
            samples[name].append([clock.once(fn)[0] for _ in range(reps)])
    clock.buffer = flush_buffer
    return {name: tuple(1000 * x for x in _figure(r)) for name, r in samples.items()}


def report(case: str, figures: dict) -> dict:
    values = [f for f, _ in figures.values()]
    se = statistics.median(e for _, e in figures.values())
    out = {"case": case, "figures_us": {k: round(v[0], 4) for k, v in figures.items()},
           "spread_us": round(max(values) - min(values), 4), "sd_us": round(statistics.stdev(values), 4),
           "se_us": round(se, 4)}
    print(f"{case:28s} spread {out['spread_us']:.4f} us  sd {out['sd_us']:.4f}  (noise se {se:.4f})  "
          + " ".join(f"{v:.3f}" for v in values), flush=True)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--reps", type=int, default=25)
    parser.add_argument("--sizes", type=int, nargs="+", default=[7, 12345])
    parser.add_argument("--regimes", nargs="+", default=["cold", "warm"])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    import torch
    from runner.evaluator import arena
    pick = random.Random(1)
    work = Path(tempfile.mkdtemp(prefix="instance-bias-"))
    tree = ROOT / "tasks" / "cuda2cuda" / "gelu"
    library, _ = compile_native("cuda", tree, "kernel.cu", device_arch("cuda"), out_dir=work / "build")
    natives = []
    for i in range(args.copies):
        copy = work / f"copy{i}.so"
        shutil.copyfile(library, copy)
        lib = ctypes.CDLL(str(copy))
        lib.launch.restype = ctypes.c_int
        natives.append((lib, lib.launch))
    tritons = [import_module(ROOT / "tasks" / "triton2triton" / "gelu" / "kernel.py", f"gelu_copy{i}").forward
               for i in range(args.copies)]
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    results = []
    for regime in args.regimes:
        clock = timing.GpuClock(regime)
        clock.set_pad(0.1, timing.spin_rate(torch))
        for n in args.sizes:
            spacers = []
            pairs = []
            for i in range(args.copies):
                spacers.append(torch.empty(pick.randrange(1, 1 << 16) * 512, dtype=torch.uint8, device="cuda"))
                x = torch.randn(n, device="cuda")
                pairs.append((x, torch.empty_like(x)))
            x, y = pairs[0]

            def native(launch, x=x, y=y):
                return lambda: launch(ctypes.c_void_p(x.data_ptr()), ctypes.c_int64(n), ctypes.c_void_p(y.data_ptr()), stream)

            memory = arena.Arena.create(arena.ALIGN)
            maps = [arena.Arena.open(memory.fd, memory.nbytes) for _ in range(args.copies)]
            maps[0].view(0, torch.float32, (n,)).copy_(x)
            views = [(m.view(0, torch.float32, (n,)), m.view(arena.ALIGN // 2, torch.float32, (n,))) for m in maps]
            flushes = [torch.ones_like(clock.buffer) for _ in range(args.copies)]

            def flushing(buffer):
                def prep():
                    clock.buffer = buffer
                return prep

            keep = clock.buffer
            same = flushing(keep)
            cases = {
                "native": {f"copy{i}": (same, native(fn)) for i, (_, fn) in enumerate(natives)},
                "triton": {f"copy{i}": (same, lambda f=f: f(x, n)) for i, f in enumerate(tritons)},
                "data": {f"buffers{i}": (same, native(natives[0][1], a, b)) for i, (a, b) in enumerate(pairs)},
                "mapping": {f"map{i}": (same, native(natives[0][1], a, b)) for i, (a, b) in enumerate(views)},
                "flush": {f"flush{i}": (flushing(buf), native(natives[0][1])) for i, buf in enumerate(flushes)},
            }
            print("mapping addresses", [hex(m.address) for m in maps], flush=True)
            for case, calls in cases.items():
                results.append({**report(f"{regime} n={n} {case}", measure(clock, calls, args.rounds, args.reps, pick)),
                                "regime": regime, "n": n})
            del views, flushes
            for m in maps:
                m.close()
            memory.close()
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
