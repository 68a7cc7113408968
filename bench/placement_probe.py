#!/usr/bin/env python3
"""Does where a kernel's *own* allocations sit move its time? (issue 30, requirement 5)

Session 18's triton2triton noops on an H200 (results/gpu-2026-11-30-s18.md): scatter_add's
rows3001-n1-dim1000 (37 us, a 12 MB copy) read 1.117x, its 95 % interval excluding 1.0: the
baseline's runner ran the same code 10 % slower than both the candidate's runner and the clean
room's stand-in, in every round. cumsum read 0.90x on 5-8 us calls, gelu and mish 1.04x on 10 us.
The judge's arena (runner/evaluator/arena.py) puts each round's inputs at one place for both
kernels, but these kernels allocate their outputs themselves (`torch.empty_like`), from each
runner's own caching allocator, at a place that process's history chose.

This times each task's baseline kernel on one config, in one process, with its output placed at
`--places` offsets (4 KiB-aligned, drawn over 64 MiB of one allocation), in `--places` batches
routed as the runner routes them with `--own-blocks` (own_blocks.OwnBlocks: a pool of one region
at an offset drawn per batch; session 19's addition, to show each batch lands at its own place),
and with the allocator's own choice after `--places` different padding allocations; each point the median of `--calls`
cold-L2 calls timed by the judge's own clock (clock.GpuClock). A spread across places far
beyond the spread of one place measured twice says the output's placement moves the time; then
the arena should also hold what a kernel allocates while it is timed.

    python3 bench/placement_probe.py [--json out.json] [--places 16] [--calls 30]

GPU only (torch, triton).
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CASES = [("triton2triton/scatter_add", "rows3001-n1-dim1000"), ("triton2triton/cumsum", "rows4096-cols512"),
         ("triton2triton/gelu", "n2999999"), ("triton2triton/mish", "n3000017")]
ARENA_BYTES = 64 << 20
PAGE = 4096


def _load(task_id: str, config_name: str):
    import importlib.util
    from runner.evaluator.judge.evaluation import import_reference
    from runner.tasks.task import load_task
    task = load_task(ROOT / "tasks" / task_id)
    config = next(c for split in ("seen", "unseen") for c in task.configs(split) if c.name == config_name)
    reference = import_reference(task.reference)
    spec = importlib.util.spec_from_file_location("probe_kernel", task.files[task.entry])
    kernel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernel)
    return task, config, reference, kernel


def _timer():
    """The judge's own cold-L2 clock (clock.GpuClock: the 256 MB flush, the launch gate, the empty
    pair taken off): the median sample in us of `calls` calls after three."""
    from runner.evaluator.clock import make_clock
    clock = make_clock("cuda", "cold")

    def median_us(fn, calls: int) -> float:
        samples = [clock.once(fn)[0] for _ in range(calls + 3)]
        return statistics.median(samples[3:]) * 1000.0
    return median_us


def _outputs(symbol, args) -> tuple:
    out = symbol(*args)
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def probe(task_id: str, config_name: str, places: int, calls: int, rng: random.Random) -> dict:
    import torch
    task, config, reference, kernel = _load(task_id, config_name)
    gen = torch.Generator().manual_seed(1234)
    args = list(reference.make_inputs(dict(config.params), gen, "cuda"))
    median_us = _timer()
    symbol = getattr(kernel, task.symbol)
    symbol(*args)                                   # compile
    torch.cuda.synchronize()
    arena = torch.empty(ARENA_BYTES, dtype=torch.uint8, device="cuda")
    real_empty_like = torch.empty_like
    offset = [0]
    placed = {"placed": 0, "not": 0}                # every call of the kernel's empty_like, placed or not

    def placed_empty_like(x, *a, **k):              # the output at arena + offset[0]
        nbytes = x.numel() * x.element_size()
        if nbytes + offset[0] > ARENA_BYTES or a or k or not x.is_contiguous():
            placed["not"] += 1
            return real_empty_like(x, *a, **k)
        placed["placed"] += 1
        return arena[offset[0]:offset[0] + nbytes].view(x.dtype).view(x.shape)

    def time_at(off: int) -> float:
        offset[0] = off
        torch.empty_like = placed_empty_like
        try:
            return median_us(lambda: symbol(*args), calls)
        finally:
            torch.empty_like = real_empty_like

    top = ARENA_BYTES - (1 << 24)
    offsets = [rng.randrange(0, top // PAGE) * PAGE for _ in range(places)]
    at_place = [time_at(off) for off in offsets]
    again = [time_at(off) for off in offsets]       # the same places, a second time
    # what the judge's runner does with --own-blocks (own_blocks.py): each batch a new pool of one
    # region at a drawn offset, the kernel's call routed to it (the first of a batch's calls cuts)
    from runner.evaluator.own_blocks import OwnBlocks, region_bytes
    blocks = OwnBlocks(torch, region_bytes(sum(t.numel() * t.element_size() for t in _outputs(symbol, args))))
    blocks.check()
    routed, routed_at = [], []

    def one_routed():
        with blocks.routed():
            return symbol(*args)
    for _ in range(places):
        blocks.batch(rng)
        routed.append(median_us(one_routed, calls))
        routed_at.append(min(blocks.ranges.held, default=None))
        blocks.end()
    own = []
    pads = []
    for k in range(places):                         # the allocator's own choice, its history moved
        torch.cuda.empty_cache()                    # the output's cached block goes back, the pads move the next
        pads.append(torch.empty((k + 1) * (3 << 20) + rng.randrange(1, 1 << 20), dtype=torch.uint8, device="cuda"))
        own.append(median_us(lambda: symbol(*args), calls))
    del pads

    def spread(xs):
        return (max(xs) - min(xs)) / statistics.median(xs)
    repeat = statistics.median(abs(a - b) / b for a, b in zip(again, at_place))
    return {"task": task_id, "config": config_name, "placed_us": at_place, "placed_again_us": again,
            "offsets": offsets, "own_us": own, "placed_spread": spread(at_place), "own_spread": spread(own),
            "own_blocks_us": routed, "own_blocks_spread": spread(routed), "own_blocks_at": routed_at,
            "own_blocks_driver_segments": blocks.driver_segments,
            "same_place_median_diff": repeat, "empty_like_calls": placed}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--places", type=int, default=16)
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    rng = random.Random(18)
    rows = []
    for task_id, config in CASES:
        row = probe(task_id, config, args.places, args.calls, rng)
        rows.append(row)
        print(f"{task_id:28s} {config:22s} placed {min(row['placed_us']):7.2f}-{max(row['placed_us']):7.2f} us "
              f"(spread {row['placed_spread']:.1%}; the same place again: median {row['same_place_median_diff']:.2%} "
              f"apart); allocator's own {min(row['own_us']):7.2f}-{max(row['own_us']):7.2f} us "
              f"(spread {row['own_spread']:.1%}); --own-blocks batches {min(row['own_blocks_us']):7.2f}-"
              f"{max(row['own_blocks_us']):7.2f} us (spread {row['own_blocks_spread']:.1%}, "
              f"{row['own_blocks_driver_segments']} segments from the driver); empty_like calls placed/not "
              f"{row['empty_like_calls']}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
