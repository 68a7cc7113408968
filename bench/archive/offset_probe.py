"""Where does a runner process's fixed time offset come from? (issue 10, docs/benchmarks.md)

The judge's noop on triton2triton/softmax reads a self-speedup of up to ~1.5 %: each runner process
runs the three-launch baseline at its own level, fixed for the life of the process (the fifth
session's `--clock` runs: results/h100-2026-11-26e.md). The first modes start fresh processes
one after another, each timing the task's shipped kernel on square-1800 with CUDA events around a
call (256 MB flush before each, no launch gate: host launch time leaks into these samples):

    first    the kernel as first loaded, on the first input
    buffers  the same loaded code on two other inputs (other addresses)
    reload   the module imported again under a new name (new JIT objects: the cubin is loaded
             again, at a new code address), on the first input, twice

`--clock` uses the judge's own clock instead (runner/evaluator/timing.GpuClock) in live processes.

    python3 bench/archive/offset_probe.py [--procs 6] [--reps 300] > OUT.txt
    python3 bench/archive/offset_probe.py --pattern [--procs 3]     # is it the sequence's place, the time, the parity?
    python3 bench/archive/offset_probe.py --variants [--procs 3]    # a CUDA graph, a PyTorch kernel, other flushes
    python3 bench/archive/offset_probe.py --clock [--procs 4] [--rounds 8] [--graph] [--move] [--cpus LIST]
        the judge's own clock (runner/evaluator/timing.GpuClock: flush, launch gate, empty-pair
        subtraction) in PROCS processes alive at once, as the judge keeps its runners: each round
        times one sequence in every process, in a random order; prints each process's medians.
        --graph: CUDA-graph replays; --move: new input buffers before every sequence; --cpus: pin
        every process to these CPUs (e.g. the GPU's local_cpulist); --recal: subtract the empty
        pair as measured after the warm-up; --replace flush,mem,code: before every sequence a new
        flush buffer / new memory segments (after a hold of random size) / the kernels loaded again;
        --watch: the judge's stream watch (a profiler window) once after the warm-up; --serial: one
        process alive at a time; --idle N: N more processes holding an idle CUDA context throughout;
        --kernel torch_softmax|trivial3|torch3: one PyTorch launch, three launches of a one-program
        Triton kernel, or three one-element PyTorch launches;
        --regime warm: no flush; --touch: a one-program launch after every flush; --streams N: the
        j-th sequence on stream j % N (0: the process's default stream, then new ones).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

TASK = Path(__file__).resolve().parents[2] / "tasks" / "triton2triton" / "softmax"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, TASK / "kernel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def child(reps: int, mode: str = "order") -> dict:
    import torch
    flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    gen = torch.Generator().manual_seed(0)
    inputs = [(torch.randn(1800, 1800, generator=gen) * 3.0).cuda() for _ in range(3)]
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def seq(fn, x, n=reps, pause=0.0, flush_elems=flush.numel()) -> list[float]:
        """One timed sequence: [median, median of even calls, median of odd calls] in us."""
        time.sleep(pause)
        for _ in range(5):
            fn(x)
        got = []
        for _ in range(n):
            if flush_elems:
                flush[:flush_elems].zero_()
            start.record()
            fn(x)
            end.record()
            end.synchronize()
            got.append(start.elapsed_time(end) * 1000.0)
        return [round(statistics.median(got), 3), round(statistics.median(got[0::2]), 3),
                round(statistics.median(got[1::2]), 3)]

    first = _load("probe_kernel_0")
    if mode == "pattern":       # the same code on the same input, sequence after sequence
        return {"back_to_back": [seq(first.forward, inputs[0]) for _ in range(8)],
                "paused_0.5s": [seq(first.forward, inputs[0], pause=0.5) for _ in range(6)],
                "odd_length": [seq(first.forward, inputs[0], n=reps + 1) for _ in range(6)]}
    if mode == "variants":      # which part of the call carries the flip
        settle = time.perf_counter() + 3.0          # the first seconds of a process are noisy
        while time.perf_counter() < settle:
            first.forward(inputs[0])
        torch.cuda.synchronize()
        x = inputs[0]
        graph = torch.cuda.CUDAGraph()
        try:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                first.forward(x)
                with torch.cuda.graph(graph, stream=side):
                    first.forward(x)
            torch.cuda.current_stream().wait_stream(side)
            graphed = [seq(lambda _: graph.replay(), x)[0] for _ in range(6)]
        except Exception as exc:       # the other variants still say something
            graphed = f"capture failed: {type(exc).__name__}: {str(exc)[:200]}"
        return {"triton": [seq(first.forward, x)[0] for _ in range(6)],
                "triton_graph": graphed,
                "torch_softmax": [seq(lambda t: torch.softmax(t, -1), x)[0] for _ in range(6)],
                "triton_flush64MB": [seq(first.forward, x, flush_elems=flush.numel() // 4)[0] for _ in range(6)],
                "triton_noflush": [seq(first.forward, x, flush_elems=0)[0] for _ in range(6)]}
    return {"first": seq(first.forward, inputs[0])[0],
            "buffers": [seq(first.forward, x)[0] for x in inputs[1:]],
            "reload": [seq(_load(f"probe_kernel_{i}").forward, inputs[0])[0] for i in (1, 2)],
            "first_again": seq(first.forward, inputs[0])[0]}


def clock_worker(args) -> int:
    """One process of --clock: set up, then time a sequence per line read ("time") until EOF."""
    import os
    import random
    if args.cpus:
        os.sched_setaffinity(0, _cpu_list(args.cpus))
    sys.path.insert(0, str(TASK.parent.parent.parent))
    import torch
    from runner.evaluator import timing
    clock = timing.GpuClock(args.regime, graph=args.graph)
    cal, cal_pre = None, None
    if args.calibrate:         # N one-element PyTorch launches on a tensor of their own: the process's launch cost
        dot = torch.zeros(1, device="cuda")

        def cal():
            for _ in range(args.calibrate):
                dot.add_(1.0)
            return dot
        settle = time.perf_counter() + 1.0
        while time.perf_counter() < settle:
            clock.once(cal)
        cal_pre = statistics.median(clock.once(cal)[0] * 1000.0 for _ in range(args.reps))  # before any kernel is loaded
    module = _load("probe_kernel_0")
    gen = torch.Generator().manual_seed(0)
    base = (torch.randn(1800, 1800, generator=gen) * 3.0).cuda()
    x = base.clone()
    fn = (lambda: module.forward(x))
    if args.kernel != "softmax3":
        import triton
        import triton.language as tl

        @triton.jit
        def _one(ptr):
            tl.store(ptr, tl.load(ptr) + 1.0)
        if args.kernel == "torch_softmax":
            fn = (lambda: torch.softmax(x, -1))
        elif args.kernel == "torch3":       # three one-element PyTorch launches: the launch, not the work
            head = x[:1, :1]

            def fn():
                for _ in range(3):
                    head.add_(1.0)
                return x
        else:                  # three one-program launches: the launch, not the work
            def fn():
                for _ in range(3):
                    _one[(1,)](x)
                return x
    if args.touch:             # a one-program launch after every flush, before the gate: per-context state warmed
        import triton
        import triton.language as tl

        @triton.jit
        def _touch(ptr):
            tl.store(ptr, 0.0)
        scratch = torch.zeros(1, device="cuda")
        flush = clock.flush

        def flush_and_touch():
            flush()
            _touch[(1,)](scratch)
        clock.flush = flush_and_touch
    if args.graph:
        fn = clock.capture(fn)
    ring = torch.empty_like(base)
    settle = time.perf_counter() + 3.0
    while time.perf_counter() < settle:
        clock.once(fn)
    empty_at_start = clock.empty_ms * 1000.0
    hot = _empty_median(clock)
    if args.recal:
        clock.empty_ms = hot / 1000.0
    print(json.dumps({"ready": os.getpid(), "cal_pre": cal_pre, "cover": clock.launch_cover, "gate_error": clock.gate_error,
                      "empty_us_at_start": round(empty_at_start, 3), "empty_us_hot": round(hot, 3)}), flush=True)
    if args.watch:             # the judge's stream watch, once, as in its warm-up (the profiler stays attached)
        from runner.evaluator.guard import StreamWatch
        watch = StreamWatch()
        watch.start()
        clock.once(fn)
        watch.stop()
    pick = random.Random(os.getpid())
    replace = set(filter(None, args.replace.split(",")))
    hold, loads = None, 0
    streams = [torch.cuda.current_stream()] + [torch.cuda.Stream() for _ in range(args.streams - 1)]
    sequences = 0
    for line in sys.stdin:
        began = time.perf_counter()
        if args.move and not args.graph:
            spacer = torch.empty(pick.randrange(1, 1 << 16) * 512, dtype=torch.uint8, device="cuda")
            x = base.clone()
            del spacer
        if "mem" in replace:   # new segments from the driver, after a hold of random size
            x = hold = None
            torch.cuda.empty_cache()
            hold = torch.empty(pick.randrange(1, 1024) << 20, dtype=torch.uint8, device="cuda")
            x = base.clone()
        if "flush" in replace:
            clock.buffer = None
            torch.cuda.empty_cache()
            clock.buffer = torch.ones(timing.L2_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
        if "code" in replace:  # the kernels loaded again (new JIT objects: a new code address)
            loads += 1
            module = _load(f"probe_kernel_{loads}")
            for _ in range(3):
                module.forward(x)
        got, gaps = [], []
        stream = streams[sequences % len(streams)]
        sequences += 1
        with torch.cuda.stream(stream):
            for i in range(args.reps):
                torch.mul(base, 1.0 + 1e-3 * (i % 7), out=x)     # the judge perturbs inputs between calls
                sample, gap, out = clock.once(fn)
                ring.copy_(out)
                got.append(sample * 1000.0)
                gaps.append(gap * 1000.0)
        raw = statistics.median(got) + clock.empty_ms * 1000.0
        row = [round(statistics.median(got), 3), round(raw, 3), round(_empty_median(clock), 3),
               round(time.perf_counter() - began, 2)]
        if cal is not None:
            row.append(round(statistics.median(clock.once(cal)[0] * 1000.0 for _ in range(args.reps)), 3))
        print(json.dumps(row), flush=True)
    return 0


def _empty_median(clock, reps: int = 50) -> float:
    """The empty event pair's span now (us), measured as GpuClock.calibrate does."""
    return 1000.0 * statistics.median(clock._raw(lambda: None)[0] for _ in range(reps))


def _cpu_list(text: str) -> set[int]:
    cpus = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def clock_parent(args) -> int:
    import random
    extra = ["--reps", str(args.reps), "--kernel", args.kernel, "--regime", args.regime, "--streams", str(args.streams), "--calibrate", str(args.calibrate)] \
        + [f"--{k}" for k in ("graph", "move", "recal", "watch", "touch") if getattr(args, k)] \
        + (["--replace", args.replace] if args.replace else []) \
        + (["--cpus", args.cpus] if args.cpus else [])
    # idle CUDA contexts (a process that made one and waits), alive throughout: the judge's own context
    idle = [subprocess.Popen([sys.executable, "-c", "import sys, torch; torch.zeros(1, device='cuda'); "
                              "torch.cuda.synchronize(); print('up', flush=True); sys.stdin.read()"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for _ in range(args.idle)]
    for p in idle:
        p.stdout.readline()

    def spawn():
        return subprocess.Popen([sys.executable, __file__, "clock-worker", *extra], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)

    def ready(p):
        line = p.stdout.readline().strip()
        print(f"process {len(started)}: {line}", flush=True)
        pre.append(json.loads(line).get("cal_pre") if line.startswith("{") else None)
        started.append(p)
        return p

    def start():
        return ready(spawn())

    def sequence(p) -> list:
        p.stdin.write("time\n")
        p.stdin.flush()
        return json.loads(p.stdout.readline())

    started, pre = [], []
    medians = [[] for _ in range(args.procs)]
    if args.serial:          # one worker alive at a time: all its rounds, then it ends
        for i in range(args.procs):
            p = start()
            medians[i] = [sequence(p) for _ in range(args.rounds)]
            p.stdin.close()
            p.wait(timeout=60)
    else:
        procs = [ready(p) for p in [spawn() for _ in range(args.procs)]]   # set up at once, as the judge's pool
        order = list(range(len(procs)))
        pick = random.Random(0)
        for _ in range(args.rounds):
            pick.shuffle(order)
            for i in order:
                medians[i].append(sequence(procs[i]))
        for p in procs:
            p.stdin.close()
            p.wait(timeout=60)
    for p in idle:
        p.stdin.close()
        p.wait(timeout=60)
    print(f"the judge's GpuClock, {args.kernel}, {args.regime}{', touched after the flush' if args.touch else ''}, "
          f"{f'sequence j on stream j % {args.streams}, ' if args.streams > 1 else ''}"
          f"{'graph replay' if args.graph else 'eager'}"
          f"{', buffers moved per sequence' if args.move else ''}{', empty pair re-measured hot' if args.recal else ''}{', watched once' if args.watch else ''}{', new ' + args.replace + ' per sequence' if args.replace else ''}{', cpus ' + args.cpus if args.cpus else ''}"
          f"{', one process at a time' if args.serial else ''}{f', {args.idle} idle contexts alive' if args.idle else ''}; "
          f"{args.reps} calls a sequence; median sample in us per round; [raw tight span, empty pair now, wall s] of the last")
    overall = []
    for i, rows in enumerate(medians):
        level = statistics.median(r[0] for r in rows)
        overall.append(level)
        print(f"process {i}: median of medians {level:.3f}  " + " ".join(f"{r[0]:.3f}" for r in rows)
              + f"  {rows[-1][1:]}", flush=True)
    lo = min(overall)
    print("offsets from the fastest process: " + " ".join(f"{100 * (v / lo - 1):+.2f}%" for v in overall))
    if args.calibrate:
        _calibration_report(overall, [statistics.median(r[4] for r in rows) for rows in medians], pre)
    return 0


def _calibration_report(levels: list[float], cal: list[float], pre: list[float]) -> None:
    """Does a process's launch cost, measured before its kernel is loaded, predict the kernel's level?
    And if each kernel went on in the process of lowest calibration among K, what noop |s-1| follows?"""
    import random
    print("calibration (us, before load | during rounds) and kernel level per process:")
    for i, (lv, c, p) in enumerate(zip(levels, cal, pre)):
        print(f"  process {i}: cal_pre {p:.3f}  cal {c:.3f}  kernel {lv:.3f}")
    for name, xs in (("cal_pre", pre), ("cal", cal)):
        print(f"pearson r({name}, kernel) = {statistics.correlation(xs, levels):+.3f}")
    draw = random.Random(1)
    n = len(levels)
    for k in (1, 2, 3, 4, 6, 8):
        if 2 * k > n:
            break
        by_pre, by_kernel = [], []
        for _ in range(4000):
            idx = draw.sample(range(n), 2 * k)
            a, b = idx[:k], idx[k:]
            pa, pb = min(a, key=lambda i: pre[i]), min(b, key=lambda i: pre[i])
            by_pre.append(abs(levels[pa] / levels[pb] - 1) * 100)
            ka, kb = min(a, key=lambda i: levels[i]), min(b, key=lambda i: levels[i])
            by_kernel.append(abs(levels[ka] / levels[kb] - 1) * 100)
        q = lambda xs, f: sorted(xs)[int(f * (len(xs) - 1))]
        print(f"K={k}: noop |s-1| picked by cal_pre median {q(by_pre, .5):.3f}% p90 {q(by_pre, .9):.3f}%; "
              f"picked by kernel level median {q(by_kernel, .5):.3f}% p90 {q(by_kernel, .9):.3f}%")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", nargs="?", default="parent", choices=("parent", "child", "clock-worker"))
    parser.add_argument("--procs", type=int, default=6)
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--pattern", action="store_true",
                        help="each process: 8 sequences back to back, 6 after a 0.5 s pause, 6 one call longer")
    parser.add_argument("--variants", action="store_true",
                        help="each process, after 3 s of calls: 6 sequences each of the kernel, its CUDA graph, "
                             "torch.softmax, the kernel with a 64 MB flush, the kernel with none")
    parser.add_argument("--clock", action="store_true", help="the judge's GpuClock in PROCS live processes")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--graph", action="store_true")
    parser.add_argument("--move", action="store_true")
    parser.add_argument("--replace", default="", help="before every sequence, anew: flush,mem,code (comma list)")
    parser.add_argument("--watch", action="store_true", help="the judge's stream watch (profiler) once, after the warm-up")
    parser.add_argument("--serial", action="store_true", help="--clock: one worker alive at a time")
    parser.add_argument("--idle", type=int, default=0, help="--clock: this many idle CUDA contexts alive throughout")
    parser.add_argument("--kernel", choices=("softmax3", "torch_softmax", "trivial3", "torch3"), default="softmax3")
    parser.add_argument("--regime", choices=("cold", "warm"), default="cold")
    parser.add_argument("--streams", type=int, default=1, help="sequence j runs on stream j %% N (0: the default)")
    parser.add_argument("--touch", action="store_true", help="a one-program launch after every flush")
    parser.add_argument("--recal", action="store_true", help="subtract the empty pair measured after the warm-up")
    parser.add_argument("--cpus", default="")
    parser.add_argument("--calibrate", type=int, default=0,
                        help="--clock: also time N one-element PyTorch launches, before the kernel is loaded and "
                             "after each sequence; print how well that predicts each process's kernel level")
    args = parser.parse_args()
    if args.mode == "clock-worker":
        return clock_worker(args)
    if args.clock:
        return clock_parent(args)
    args.mode_of_child = "pattern" if args.pattern else "variants" if args.variants else "order"
    if args.mode == "child":
        print(json.dumps(child(args.reps, args.mode_of_child)))
        return 0
    if args.pattern or args.variants:
        kind = "pattern" if args.pattern else "variants"
        print(f"one process per block; each sequence's median (pattern: [median, median of even calls, of odd "
              f"calls]) in us, {args.reps} calls")
        for proc in range(args.procs):
            out = subprocess.run([sys.executable, __file__, "child", "--reps", str(args.reps), "--" + kind],
                                 capture_output=True, text=True, timeout=300)
            print(f"process {proc}: " + (out.stdout.strip().splitlines() or [out.stderr[-300:]])[-1], flush=True)
        return 0
    print(f"triton2triton/softmax baseline, square-1800, median us of {args.reps} calls (flush before each)")
    print(f"{'proc':>4} {'first':>8} {'buffers':>17} {'reload':>17} {'first again':>11}")
    for proc in range(args.procs):
        out = subprocess.run([sys.executable, __file__, "child", "--reps", str(args.reps)],
                             capture_output=True, text=True, timeout=300)
        if out.returncode != 0:
            print(f"{proc:>4} failed: {out.stderr.strip()[-300:]}")
            continue
        row = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{proc:>4} {row['first']:8.3f} {row['buffers'][0]:8.3f} {row['buffers'][1]:8.3f} "
              f"{row['reload'][0]:8.3f} {row['reload'][1]:8.3f} {row['first_again']:11.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
