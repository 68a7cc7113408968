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
