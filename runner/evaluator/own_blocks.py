"""Where a kernel's own allocations sit while it runs: one region of the runner's own, at a new
offset every batch (issue 30, requirement 5). On for GPUs (policy.OWN_BLOCKS; `--no-own-blocks`
turns it off), CUDA only.

Why: the arena (arena.py) puts the inputs and a native kernel's outputs at the same places for
both kernels; what a Python kernel allocates itself (its outputs, its intermediates) comes from
each runner's caching allocator, which hands it the same block in every batch of a process. On an
H200 that block's place moved a 37 us Triton scatter_add 34-38 us (16 places in one allocation;
the same place timed twice 0.3 % apart: bench/placement_probe.py, results/gpu-2026-11-30-s19.md),
and a noop read the two runners 5-11 % apart on that config, the sign changing between
evaluations. Emptying the allocator's cache and holding a spacer of random size each batch did not
move it (the same record): the driver hands freed memory back where it was. Cut from one region
at an offset drawn each batch, the place is a draw of the round, which the rounds' spread and
the speedup's interval then carry.

How: the kernel's calls allocate from a torch MemPool whose allocator (two ctypes callbacks, as
bench/archive/arena_probe.py's BumpPool; one pair for the life of the process, _Process) cuts
segments from the region, from the batch's offset up and around the segments still held (a buffer
the kernel keeps past its batch stays where it is and is never handed out again while it is
held); what does not fit comes from the driver
(cuMemAlloc: placed where the driver puts it, which the runner notes). A new pool every batch, so
every batch's segments are cut anew; the first call of a batch cuts them, inside its span (the
launch gate holds the device through that host work). The region is device memory of this
runner's alone: nothing another process writes, nothing the judge reads. Not for graph replays
(their buffers are captured once).

Ranges (the bookkeeping) runs anywhere, and the CPU tests run it; OwnBlocks needs CUDA.
"""
from __future__ import annotations

import contextlib
import ctypes
import random

from runner.evaluator.arena import PAGE, SPREAD    # a segment's boundary; how far a batch's draw moves the first

HEADROOM = 64 << 20         # room beyond twice the outputs, for intermediates


def region_bytes(output_bytes: int) -> int:
    """How large a config's region is: its draw's spread, twice its outputs, the headroom."""
    return SPREAD + 2 * int(output_bytes) + HEADROOM


def _aligned(offset: int) -> int:
    return -(-offset // PAGE) * PAGE


class Ranges:
    """A region's segments in use (offset -> bytes) and where the next one goes: from the batch's
    offset up, past every segment still held; None where it does not fit."""

    def __init__(self, size: int):
        self.size = size
        self.held: dict[int, int] = {}
        self.cursor = 0

    def restart(self, offset: int) -> None:
        self.cursor = _aligned(offset)

    def take(self, nbytes: int) -> int | None:
        # Never the region's first page: a segment there has the address of the region's own tensor,
        # and PyTorch's caching allocator keys its live blocks by address, so freeing the one drops
        # the other's entry and freeing the region then aborts the runner ("invalid device pointer":
        # the batch's draw is 0 once in 8,192; three baseline runners on an H200, 2026-12-02)
        at = max(_aligned(self.cursor), PAGE)
        for offset, held in sorted(self.held.items()):
            if offset + held <= at:
                continue
            if offset >= at + nbytes:
                break
            at = _aligned(offset + held)
        if nbytes <= 0 or at + nbytes > self.size:
            return None
        self.held[at] = nbytes
        self.cursor = at + nbytes
        return at

    def give(self, offset: int) -> bool:
        return self.held.pop(offset, None) is not None


_ALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p)
_FREE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p)


class _Process:
    """What every region of this process shares, for the life of the process: one pair of ctypes
    callbacks and the one torch allocator made of them. Torch calls a pool's free callback for as
    long as it caches any segment of that pool, which can be long after the batch, the config and
    the region's own object are gone; a callback of a region's own, let go with it (by the garbage
    collector, in whatever order it tears a cycle down), is then a call into freed memory. A
    baseline runner aborted so, collecting garbage, once in 66 noops on an H200 with the callbacks
    per region (results/gpu-2026-11-30-s20.md). So a segment is found by its address among the
    regions still registered, and a region stays registered while torch holds any of its segments."""

    def __init__(self):
        self.regions: list[OwnBlocks] = []       # registered: current, or retired with segments held
        self.current: OwnBlocks | None = None    # the region whose pool the kernel's calls allocate from
        self.from_driver: dict[int, OwnBlocks | None] = {}
        self._cuda = None
        self._callbacks = None
        self.allocator = None

    def allocator_for(self, torch):
        if self.allocator is None:
            self._cuda = ctypes.CDLL("libcuda.so.1")
            self._cuda.cuMemAlloc_v2.argtypes = (ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t)
            self._cuda.cuMemFree_v2.argtypes = (ctypes.c_uint64,)
            self._callbacks = (_ALLOC(self._alloc), _FREE(self._free))
            self.allocator = torch._C._cuda_customAllocator(
                *(ctypes.cast(fn, ctypes.c_void_p).value for fn in self._callbacks))
        return self.allocator

    def _alloc(self, size, _device, _stream):
        own = self.current
        at = own.ranges.take(int(size)) if own is not None else None
        if at is not None:
            return own.base + at
        ptr = ctypes.c_uint64()
        if self._cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(int(size))) != 0:
            return None                                 # out of memory: torch says so
        self.from_driver[ptr.value] = own
        if own is not None:
            own.driver_segments += 1
        return ptr.value

    def _free(self, ptr, _size, _device, _stream):
        if ptr is None:
            return
        if ptr in self.from_driver:
            del self.from_driver[ptr]
            self._cuda.cuMemFree_v2(ctypes.c_uint64(ptr))
            return
        for own in self.regions:
            if own.base <= ptr < own.base + own.ranges.size:
                own.ranges.give(ptr - own.base)
                return


_PROCESS = _Process()


class OwnBlocks:
    """One region (torch.empty from the default allocator, before any pool) and the pool of the
    batch under way. `batch` draws the batch's offset and makes its pool; `routed` wraps each
    call of the kernel; `end` lets the batch's pool go (its free segments come back here);
    `retire` when the config is done, after which `prune` lets the region go once torch holds
    none of its segments."""

    def __init__(self, torch, nbytes: int):
        self.torch = torch
        self.allocator = _PROCESS.allocator_for(torch)
        self.region = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        self.base = self.region.data_ptr()
        self.ranges = Ranges(nbytes)
        self.driver_segments = 0             # every such segment (the runner notes them)
        self.pool = None
        _PROCESS.regions.append(self)

    @property
    def held(self) -> bool:
        """Segments still in use here (a kernel keeps a buffer; a pool torch has not emptied yet)."""
        return bool(self.ranges.held) or any(own is self for own in _PROCESS.from_driver.values())

    def batch(self, pick: random.Random) -> None:
        self.end()
        self.ranges.restart(pick.randrange(SPREAD // PAGE) * PAGE)
        _PROCESS.current = self
        self.pool = self.torch.cuda.MemPool(self.allocator)

    def routed(self):
        """What the kernel allocates inside, from this batch's pool (none: as it would anyway)."""
        if self.pool is None:
            return contextlib.nullcontext()
        return self.torch.cuda.use_mem_pool(self.pool)

    def end(self) -> None:
        """The batch's pool let go: torch releases its free segments through the free callback
        (cheap: the region's bookkeeping, no driver call). Where some are still counted as held
        (a buffer the kernel keeps; a torch that releases a pool's segments later), the cache is
        emptied as well, a cost only such a batch pays."""
        if self.pool is not None:
            self.pool = None
            if self.held:
                self.torch.cuda.empty_cache()

    def retire(self) -> None:
        """The config is done: no new pool here; the region is let go by `prune` once nothing of
        it is held."""
        self.end()
        if _PROCESS.current is self:
            _PROCESS.current = None

    def check(self) -> None:
        """One allocation through a pool of this region, let go: an allocator that refuses pools
        (expandable segments) fails here, before any kernel runs, not in the kernel's call."""
        self.batch(random.Random(0))
        with self.routed():
            probe = self.torch.empty(1, device="cuda")
        del probe
        self.end()


def prune(torch) -> int:
    """Let go every retired region torch holds no segment of (after emptying its cache once where
    some still hold: what a kernel let go since is released then); the number still registered."""
    retired = [own for own in _PROCESS.regions if own is not _PROCESS.current]
    if any(own.held for own in retired):
        torch.cuda.empty_cache()
    _PROCESS.regions[:] = [own for own in _PROCESS.regions if own is _PROCESS.current or own.held]
    return len(_PROCESS.regions)
