"""own_blocks.Ranges: where a kernel's own segments are cut from its runner's region each batch
(the bookkeeping; the CUDA side, OwnBlocks, runs on a GPU only: results/ records it)."""
from __future__ import annotations

import random

from runner.evaluator.own_blocks import HEADROOM, PAGE, SPREAD, Ranges, region_bytes

MB = 1 << 20


def test_a_batch_cuts_its_segments_from_its_offset_up_on_page_boundaries():
    ranges = Ranges(64 * MB)
    ranges.restart(5 * PAGE + 123)
    first = ranges.take(3 * MB + 1)
    second = ranges.take(2 * MB)
    assert first == 6 * PAGE                       # the drawn offset, on the next page boundary
    assert second == -(-(first + 3 * MB + 1) // PAGE) * PAGE
    assert ranges.held == {first: 3 * MB + 1, second: 2 * MB}


def test_a_segment_still_held_is_never_handed_out_again():
    """A buffer the kernel keeps past its batch stays in its segment: later batches go around it."""
    ranges = Ranges(64 * MB)
    ranges.restart(10 * MB)
    kept = ranges.take(4 * MB)                     # [10, 14) MB, kept by the kernel
    ranges.restart(8 * MB)                         # the next batch draws just below it
    below = ranges.take(1 * MB)                    # fits under it
    across = ranges.take(2 * MB)                   # would cross it: cut past its end
    assert (kept, below, across) == (10 * MB, 8 * MB, 14 * MB)
    spans = sorted((o, o + n) for o, n in ranges.held.items())
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))     # no two segments overlap


def test_a_segment_given_back_is_free_again():
    ranges = Ranges(64 * MB)
    ranges.restart(0)
    at = ranges.take(8 * MB)
    assert ranges.give(at) and not ranges.give(at)
    ranges.restart(0)
    assert ranges.take(8 * MB) == at


def test_no_segment_is_cut_at_the_region_s_own_address():
    """The region is a tensor of PyTorch's caching allocator, which keys live blocks by address: a
    segment at offset 0 would share the region's key, and freeing either would drop the other's
    entry (the runner then aborts freeing the region: results/gpu-2026-12-02-s25.md). A draw of 0
    starts one page in."""
    ranges = Ranges(64 * MB)
    for draw in (0, 1, PAGE - 1):
        ranges.restart(draw)
        at = ranges.take(PAGE)
        assert at == PAGE and ranges.give(at)
    ranges.restart(PAGE)
    assert ranges.take(1) == PAGE


def test_what_does_not_fit_is_refused_so_it_comes_from_the_driver():
    ranges = Ranges(16 * MB)
    ranges.restart(4 * MB)
    assert ranges.take(12 * MB) == 4 * MB
    assert ranges.take(PAGE) is None               # the region's end
    ranges.restart(0)
    assert ranges.take(5 * MB) is None             # the 4 MB below the held segment: too small
    assert ranges.take(0) is None


def test_every_batch_draws_a_new_place_within_the_spread():
    pick = random.Random(19)
    places = set()
    for _ in range(64):
        ranges = Ranges(region_bytes(12 * MB))
        ranges.restart(pick.randrange(SPREAD // PAGE) * PAGE)
        at = ranges.take(12 * MB)
        assert at % PAGE == 0 and 0 <= at < SPREAD
        places.add(at)
    assert len(places) > 50                        # 8192 places to draw from
    assert region_bytes(12 * MB) == SPREAD + 24 * MB + HEADROOM


def test_the_runner_routes_each_call_of_the_kernel_and_nothing_else(tmp_path):
    """--own-blocks on the runner's side (kernel_runner.py): a timed batch makes one pool before its
    first call and lets it go after its last, each of its calls routed to it; each correctness
    call gets a pool of its own, by the same path (checked and timed calls alike). The CUDA pool
    needs a GPU: a recording stand-in takes its place here."""
    import argparse
    import contextlib
    import os
    import sys

    import torch

    from runner.evaluator import protocol
    from runner.evaluator.kernel_runner import Runner
    (tmp_path / "kernel.py").write_text("import sys\n\ndef forward(x):\n"
                                        "    sys.gauntlet_own_blocks_events.append('call')\n    return x * 2\n")
    events: list = []
    sys.gauntlet_own_blocks_events = events

    class Recording:
        driver_segments = 0

        def batch(self, pick):
            events.append("batch")

        @contextlib.contextmanager
        def routed(self):
            events.append("enter")
            yield
            events.append("exit")

        def end(self):
            events.append("end")

    runner = Runner(argparse.Namespace(tree=str(tmp_path), language="python", entry="kernel.py", symbol="forward",
                                       device="cpu", role="candidate", flag=None, probe_tree=None))
    try:
        assert runner.build({}, [])["compiled"]
        x = torch.randn(1000)
        described, shared = protocol.describe_args([x])
        spec = [{"dtype": "float32", "shape": [1000], "strides": [1]}]
        assert runner.inputs({"args": described, "spec": spec}, [s.fd for s in shared])["ok"]
        assert runner.own is None                          # not asked (and never on the CPU)
        batch = {"n": 3, "seed": 1, "digest_seed": 2, "keep": True, "regime": "cold"}
        assert runner.time(batch, [])["own_blocks"] is None
        runner.own_blocks_asked = True                     # asked, and no region here: the reply says so
        assert runner.time(batch, [])["own_blocks"] is False
        runner.own = Recording()
        events.clear()
        reply = runner.time(batch, [])
        assert reply["ok"] and reply["own_blocks"] is True, reply
        assert events == ["batch"] + ["enter", "call", "exit"] * 3 + ["end"]
        events.clear()
        fds = [os.memfd_create("out") for _ in range(2)]
        for fd in fds:
            os.ftruncate(fd, 4000)
        out = [[{"dtype": "float32", "shape": [1000], "fd": k}] for k in range(2)]
        reply = runner.call({"patterns": [0, 1], "out": out}, fds)
        assert reply["ok"], reply
        assert events == ["batch", "enter", "call", "exit"] * 2
        for s in shared:
            s.close()
        for fd in fds:
            os.close(fd)
    finally:
        del sys.gauntlet_own_blocks_events
        sys.path[:] = [p for p in sys.path if p != str(tmp_path)]


def test_the_judge_counts_the_batches_a_runner_ran_without_its_own_blocks():
    """A runner asked for --own-blocks that could not make its region says so in each batch's reply;
    the judge counts those per role, and the verdict notes them (evaluation.py)."""
    from types import SimpleNamespace

    from runner.evaluator.judge.rounds import Rounds
    judge = object.__new__(Rounds)
    judge.rng = random.Random(1)
    judge.launch_covers = {"baseline": set(), "candidate": set()}
    judge.gate_errors, judge.gate_gave_up = set(), {"baseline": 0, "candidate": 0}
    judge.own_blocks_missed = {"baseline": 0, "candidate": 0}

    def runner(role, moved):
        reply = {"ok": True, "samples": [0.1, 0.1], "gaps": [0.0, 0.0], "host_ms": [0.0, 0.0], "digests": ["a", "b"],
                 "own_blocks": moved}
        return SimpleNamespace(role=role, last_digest_seed=None, request=lambda message, fds=(): reply)
    for role, moved in (("baseline", True), ("candidate", False), ("candidate", None), ("baseline", "no")):
        judge._batch(runner(role, moved), 2, {}, keep=False, evidence=False)
    assert judge.own_blocks_missed == {"baseline": 0, "candidate": 1}


def test_a_segment_is_given_back_to_its_region_after_the_region_is_retired(monkeypatch):
    """One pair of callbacks serves every region of the process for its life (own_blocks._Process):
    torch frees a cached segment of an old config's pool whenever it empties its cache, after that
    config's region object is retired, and the free must find the region by the segment's address.
    A retired region is let go (prune) only once torch holds none of its segments; the current one
    never. The CUDA side (torch's allocator, the driver) needs a GPU: the bookkeeping runs here."""
    from runner.evaluator import own_blocks

    process = own_blocks._Process()
    monkeypatch.setattr(own_blocks, "_PROCESS", process)

    def region(base, size):
        own = object.__new__(own_blocks.OwnBlocks)
        own.base, own.ranges, own.driver_segments, own.pool = base, Ranges(size), 0, None
        own.torch = None
        process.regions.append(own)
        return own
    emptied = []
    torch = type("FakeTorch", (), {"cuda": type("FakeCuda", (), {"empty_cache": staticmethod(lambda: emptied.append(1))})})
    old = region(1 << 40, 64 * MB)
    old.ranges.restart(0)
    process.current = old
    kept = process._alloc(8 * MB, 0, None)             # a segment of the old config's pool, still cached
    assert kept == old.base + PAGE                    # never the region's own address
    old.retire()
    new = region(1 << 41, 64 * MB)
    new.ranges.restart(PAGE)
    process.current = new
    assert process._alloc(MB, 0, None) == new.base + PAGE
    assert own_blocks.prune(torch) == 2 and emptied == [1]     # the old region still holds a segment: kept
    process._free(kept, 8 * MB, 0, None)               # torch empties its cache: the segment comes home
    assert not old.held and new.held
    assert own_blocks.prune(torch) == 1 and process.regions == [new]
    process._free(kept, 8 * MB, 0, None)               # a free no region knows is ignored, not a crash
    process._free(None, 0, 0, None)
    new.retire()
    process._free(new.base + PAGE, MB, 0, None)
    assert own_blocks.prune(torch) == 0
