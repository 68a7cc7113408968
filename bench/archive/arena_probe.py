"""Do two runner processes time the same kernel alike when its buffers sit in one judge-owned arena?
(issue 10: the noop's worst config)

The judge's noop read the candidate's runner 2-4 % slower than the baseline's on memory-bound
configs (cuda2cuda/rmsnorm rows8192-cols4096, cuda2cuda/transpose rows1000003-cols13; 4 of 4
noops, results/h100-2026-11-26h.md and -26i.md), a bias the per-launch process offset does not
model. The candidate's runner differs in its history: it built and timed the baseline first (the
probe), ran the profiler in a correctness call (the native launch check), then loaded the kernel.

This probe times one kernel in a pair of processes, A (with that history: allocations made and
dropped, one profiler session) and B (without), in alternating batches of the judge's shape, with
its buffers placed by SCHEME:

    own     as the runner does now: a spacer of random size, then the inputs cloned and new
            outputs, all from the process's own caching allocator
    arena   the inputs and a native kernel's outputs at offsets of one arena (runner.evaluator.arena),
            the same offsets for A and B in a round, new ones each round
    pool    (PyTorch kernels) as arena, and what the kernel allocates itself (its outputs and
            intermediates) from a MemPool whose segments come from the arena at the round's offset

and prints A's median over B's per case and scheme: what a noop reads. --sandbox bwrap starts the
children as the judge starts runners (isolation.py), which also shows the arena's fd opening
across user and PID namespaces.

    python3 bench/archive/arena_probe.py [--pairs 3] [--rounds 8] [--reps 16] [--sandbox bwrap] [--json FILE]
"""
from __future__ import annotations

import argparse
import ctypes
import json
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from runner.evaluator import protocol  # noqa: E402

NATIVE = {"rmsnorm": ROOT / "tasks" / "cuda2cuda" / "rmsnorm", "transpose": ROOT / "tasks" / "cuda2cuda" / "transpose"}
# (name, kernel, rows, cols, schemes)
CASES = [("rmsnorm 8192x4096", "rmsnorm", 8192, 4096, ("own", "arena")),
         ("rmsnorm 6007x1531", "rmsnorm", 6007, 1531, ("own", "arena")),
         ("transpose 1000003x13", "transpose", 1000003, 13, ("own", "arena")),
         ("transpose 1531x8191", "transpose", 1531, 8191, ("own", "arena")),
         ("torch-rmsnorm 8192x4096", "torch-rmsnorm", 8192, 4096, ("own", "arena", "pool"))]
ARENA_BYTES = 3 << 30
SLOT = 1 << 30             # inputs at [0, SLOT), outputs (or the pool's segments) at [SLOT, 3 GB)


def inputs(kernel: str, rows: int, cols: int, device: str = "cuda"):
    import torch
    gen = torch.Generator().manual_seed(rows * 7 + cols)
    x = torch.randn((rows, cols), generator=gen).to(device)
    if kernel == "transpose":
        return [x, rows, cols], [(cols, rows)]
    w = (1.0 + 0.1 * torch.randn((cols,), generator=gen)).to(device)
    return ([x, w, rows, cols, 1e-6] if kernel == "rmsnorm" else [x, w]), [(rows, cols)]


def torch_rmsnorm(x, w):
    import torch
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * w


class BumpPool:
    """A MemPool whose segments are cut one after another from the arena, from `start` on."""

    ALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p)
    FREE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p)

    def __init__(self, arena, start: int):
        import torch
        self.arena, self.next = arena, start

        def alloc(size, _device, _stream):
            address = self.arena.address + self.next
            if self.next + size > self.arena.nbytes:
                return 0
            self.next += -(-size // (2 << 20)) * (2 << 20)
            return address
        self._alloc, self._free = self.ALLOC(alloc), self.FREE(lambda *_: None)
        allocator = torch._C._cuda_customAllocator(ctypes.cast(self._alloc, ctypes.c_void_p).value,
                                                   ctypes.cast(self._free, ctypes.c_void_p).value)
        self.pool = torch.cuda.MemPool(allocator=allocator)


def child(fd: int, libraries: dict, history: bool) -> int:
    import torch
    from runner.evaluator.arena import Arena
    from runner.evaluator.build import load_native, poison
    from runner.evaluator.timing import GpuClock
    sock = socket.socket(fileno=fd)
    kernels = {name: load_native(Path(lib), "launch", name) for name, lib in libraries.items()}
    clock = GpuClock("cold")
    if history:       # what the candidate's runner did before its first timed config
        x, spec = inputs("rmsnorm", 6007, 1531)
        kept = [torch.empty_like(x[0]) for _ in range(60)]
        state = kernels["rmsnorm"].prepare(x, [torch.empty(spec[0], device="meta")])
        from runner.evaluator.guard import StreamWatch
        watch = StreamWatch()
        watch.start()
        kernels["rmsnorm"].run(x, state)
        torch.cuda.synchronize()
        watch.stop()
        del x, kept, state
    pick = random.SystemRandom()
    arena = None
    cache = {}
    while True:
        msg, fds = protocol.receive(sock)
        if msg["op"] == "exit":
            protocol.send(sock, {"ok": True})
            return 0
        if msg["op"] == "arena":
            arena = Arena.open(fds[0], msg["nbytes"], "cuda", msg["address"])
            protocol.send(sock, {"ok": True, "same_address": arena.address == msg["address"]})
            continue
        kernel, rows, cols, scheme = msg["kernel"], msg["rows"], msg["cols"], msg["scheme"]
        key = (kernel, rows, cols)
        if key not in cache:
            cache.clear()
            cache[key] = inputs(kernel, rows, cols)
        base, shapes = cache[key]
        tensors = [a for a in base if isinstance(a, torch.Tensor)]
        pool = None
        if scheme == "own":
            spacer = torch.empty(pick.randrange(1, 1 << 16) * 512, dtype=torch.uint8, device="cuda")
            work = [t.clone() for t in tensors]
            outs = [torch.empty(s, device="cuda") for s in shapes]
            del spacer
        else:
            offset, work = msg["in_offset"], []
            for t in tensors:
                work.append(arena.view(offset, t.dtype, t.shape))
                work[-1].copy_(t)
                offset += -(-t.numel() * t.element_size() // 4096) * 4096
            outs = [arena.view(msg["out_offset"], torch.float32, s) for s in shapes]
            if scheme == "pool":
                pool = BumpPool(arena, msg["out_offset"])
        for o in outs:
            poison(o)
        args = [work.pop(0) if isinstance(a, torch.Tensor) else a for a in base]
        scratch = [torch.empty_like(a) if isinstance(a, torch.Tensor) else None for a in args]
        perturb_base = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        if kernel == "torch-rmsnorm":
            def call():
                if pool is None:
                    return torch_rmsnorm(*args)
                with torch.cuda.use_mem_pool(pool.pool):
                    return torch_rmsnorm(*args)
        else:
            k = kernels[kernel]
            call = lambda: k.run(args, outs)    # noqa: E731
        samples = []
        for i in range(msg["n"] + 3):
            protocol.perturbed(perturb_base, msg["seed"] + i, out=args, scratch=scratch)
            sample, _, out = clock.once(call)
            del out
            if i >= 3:
                samples.append(sample)
        torch.cuda.synchronize()
        del args, outs, scratch, perturb_base, pool
        protocol.send(sock, {"ok": True, "samples": samples})


def spawn(libraries: dict, history: bool, sandbox: str):
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    argv = [sys.executable, "-u", str(Path(__file__).resolve()), "--child", str(theirs.fileno()),
            "--libraries", json.dumps(libraries), *(["--history"] if history else [])]
    workdir = Path(tempfile.mkdtemp(prefix="arena-probe-"))
    for name, library in libraries.items():      # a sandboxed child sees its own folder, not ours
        libraries = {**libraries, name: str(shutil.copy(library, workdir / f"{name}.so"))}
    argv[argv.index("--libraries") + 1] = json.dumps(libraries)
    env = None
    if sandbox == "bwrap":
        from runner.evaluator.isolation import Isolation, prepare_workdir
        iso = Isolation("bwrap", (), "cuda")
        prepare_workdir(workdir, "bwrap")
        env = iso.env(workdir)
        env["PYTHONPATH"] = f"{ROOT}"
        argv = iso.wrap(argv, workdir)
    proc = subprocess.Popen(argv, pass_fds=(theirs.fileno(),), env=env, cwd=str(workdir))
    theirs.close()
    return proc, ours


def request(sock, msg, fds=()):
    protocol.send(sock, msg, list(fds))
    reply, _ = protocol.receive(sock)
    if not reply.get("ok"):
        raise RuntimeError(reply)
    return reply


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--reps", type=int, default=16)
    parser.add_argument("--sandbox", choices=("none", "bwrap"), default="none")
    parser.add_argument("--json", default=None)
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--libraries", default="{}", help=argparse.SUPPRESS)
    parser.add_argument("--history", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        return child(args.child, json.loads(args.libraries), args.history)
    import torch
    from runner.evaluator.arena import Arena
    from runner.evaluator.build import compile_native
    out_dir = Path(tempfile.mkdtemp(prefix="arena-probe-lib-"))
    libraries = {name: str(compile_native("cuda", tree, "kernel.cu", "sm_90", out_dir=out_dir)[0])
                 for name, tree in NATIVE.items()}
    pick = random.SystemRandom()
    found: dict[str, list] = {}
    for pair in range(args.pairs):
        arena = Arena.create(ARENA_BYTES, "cuda")
        started = time.perf_counter()
        procs = {"A": spawn(libraries, True, args.sandbox), "B": spawn(libraries, False, args.sandbox)}
        for name, (_, sock) in procs.items():
            import os
            reply = request(sock, {"op": "arena", "nbytes": arena.nbytes, "address": arena.address}, [os.dup(arena.fd)])
            print(f"pair {pair} {name}: arena open, same address {reply['same_address']}", flush=True)
        for case, kernel, rows, cols, schemes in CASES:
            for scheme in schemes:
                samples = {"A": [], "B": []}
                for r in range(args.rounds):
                    msg = {"op": "batch", "kernel": kernel, "rows": rows, "cols": cols, "scheme": scheme,
                           "n": args.reps, "seed": pick.getrandbits(40),
                           "in_offset": pick.randrange(0, (SLOT - (300 << 20)) // 4096) * 4096,
                           "out_offset": SLOT + pick.randrange(0, 256) * (2 << 20)}
                    order = ["A", "B"] if pick.random() < 0.5 else ["B", "A"]
                    for name in order:
                        samples[name] += request(procs[name][1], msg)["samples"]
                a, b = statistics.median(samples["A"]), statistics.median(samples["B"])
                found.setdefault(f"{case} | {scheme}", []).append({"A_us": a * 1e3, "B_us": b * 1e3, "ratio": a / b})
                print(f"pair {pair} {case:26s} {scheme:6s} A {a * 1e3:9.3f} us  B {b * 1e3:9.3f} us  A/B {a / b:.4f}",
                      flush=True)
        for proc, sock in procs.values():
            request(sock, {"op": "exit"})
            proc.wait(timeout=30)
        arena.close()
        print(f"pair {pair}: {time.perf_counter() - started:.1f} s", flush=True)
    summary = {key: {"ratios": [round(v["ratio"], 4) for v in rows],
                     "abs_dev_max_pct": round(max(abs(v["ratio"] - 1) for v in rows) * 100, 3),
                     "abs_dev_median_pct": round(statistics.median(abs(v["ratio"] - 1) for v in rows) * 100, 3)}
               for key, rows in found.items()}
    print(json.dumps(summary, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "rows": found,
                                               "torch": torch.__version__}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
