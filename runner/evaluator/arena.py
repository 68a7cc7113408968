"""The arena: device memory the judge allocates and both kernel runners map, so that the buffers
each kernel reads and writes while it is timed sit on the same physical memory for both.

Why: on an H100 a memory-bound kernel's time depends on where its buffers sit (up to 5 % on a
128 MB rmsnorm, results/h100-2026-11-26h.md), and each process's caching allocator places
them by its own history, so the same code read a few per cent apart in two runner processes.
With one arena and the judge naming the offsets of each round, both kernels of a round run on the
same pages at the same device addresses.

How: CUDA's virtual memory management API. The judge makes one physical allocation (cuMemCreate),
exports it as a file descriptor and passes it over the runner's socket (SCM_RIGHTS: it crosses
PID and user namespaces, which legacy CUDA IPC handles do not); each runner imports it and maps
it at the address the judge names. The runner sees only memory that the judge made for it and
that holds only its own kernel's inputs and outputs; nothing of the judge's is in it.

ctypes over libcuda only (no compiler, no extra package). On the CPU the same seam is a memfd, so
the test suite runs the mechanism; on ROCm there is none yet and each runner keeps its own memory.
"""
from __future__ import annotations

import ctypes
import os
import random
from dataclasses import dataclass

ALIGN = 2 << 20                      # the VMM API's granularity on current NVIDIA GPUs (2 MB pages)
PAGE = 4096                          # each placed tensor starts on such a boundary
SPREAD = 32 << 20                    # how far a round's draw moves each region (as the runner's spacer did)
_HANDLE_FD = 1                       # CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
_PINNED, _ON_DEVICE, _READ_WRITE = 1, 1, 3


class ArenaError(RuntimeError):
    """The driver refused an arena call (the message names which and why)."""


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class _Properties(ctypes.Structure):          # CUmemAllocationProp
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int), ("location", _Location),
                ("win32HandleMetaData", ctypes.c_void_p), ("allocFlags", _AllocFlags)]


class _Access(ctypes.Structure):              # CUmemAccessDesc
    _fields_ = [("location", _Location), ("flags", ctypes.c_int)]


_driver = None


def _cuda():
    global _driver
    if _driver is None:
        _driver = ctypes.CDLL("libcuda.so.1")
        for name in ("cuMemAddressReserve", "cuMemMap", "cuMemSetAccess", "cuMemUnmap", "cuMemAddressFree"):
            getattr(_driver, name).argtypes = {
                "cuMemAddressReserve": (ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t, ctypes.c_size_t,
                                        ctypes.c_uint64, ctypes.c_ulonglong),
                "cuMemMap": (ctypes.c_uint64, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_uint64, ctypes.c_ulonglong),
                "cuMemSetAccess": (ctypes.c_uint64, ctypes.c_size_t, ctypes.POINTER(_Access), ctypes.c_size_t),
                "cuMemUnmap": (ctypes.c_uint64, ctypes.c_size_t),
                "cuMemAddressFree": (ctypes.c_uint64, ctypes.c_size_t),
            }[name]
    return _driver


def _check(result: int, what: str) -> None:
    if result != 0:
        name = ctypes.c_char_p()
        _cuda().cuGetErrorName(result, ctypes.byref(name))
        raise ArenaError(f"{what}: {(name.value or b'error %d' % result).decode()}")


def available(device: str) -> bool:
    """An arena can be made here: on CUDA, a driver with the VMM API; on the CPU, memfds (Linux)."""
    if device == "cpu":
        return hasattr(os, "memfd_create")
    if device != "cuda":
        return False          # ROCm: not built (hipMemCreate would be its counterpart)
    try:
        return hasattr(_cuda(), "cuMemCreate")
    except OSError:
        return False


def _device_index() -> int:
    import torch
    torch.cuda.init()
    index = torch.cuda.current_device()
    torch.empty(1, device=f"cuda:{index}")           # the primary context current in this thread
    return index


def rounded(nbytes: int) -> int:
    return max(ALIGN, -(-int(nbytes) // ALIGN) * ALIGN)


class Arena:
    """One allocation of the judge's mapped read-write into this process: device memory on CUDA;
    on the CPU a memfd (times mean nothing there, but the mechanism runs: the test suite's)."""

    def __init__(self, device: str, nbytes: int, fd: int | None, address: int = 0, handle: int = 0,
                 mapping=None):
        self.device, self.nbytes, self.fd = device, nbytes, fd
        self.address, self.handle, self.mapping = address, handle, mapping
        self._tensor = None

    @classmethod
    def create(cls, nbytes: int, device: str = "cuda") -> "Arena":
        """The judge's side: a new allocation of at least `nbytes` (2 MB units), exportable as an fd.
        On CUDA mapped here too, only to find an address that the runners then ask for."""
        nbytes = rounded(nbytes)
        if device == "cpu":
            import fcntl
            fd = os.memfd_create("gauntlet-arena", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
            os.ftruncate(fd, nbytes)
            # a runner that shrank it would make the other runner's mapping fault (SIGBUS)
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
            return cls(device, nbytes, fd)
        index = _device_index()
        props = _Properties(type=_PINNED, requestedHandleTypes=_HANDLE_FD, location=_Location(_ON_DEVICE, index))
        handle = ctypes.c_uint64()
        _check(_cuda().cuMemCreate(ctypes.byref(handle), ctypes.c_size_t(nbytes), ctypes.byref(props),
                                   ctypes.c_ulonglong(0)), "cuMemCreate")
        fd = ctypes.c_int(-1)
        try:
            _check(_cuda().cuMemExportToShareableHandle(ctypes.byref(fd), handle, ctypes.c_int(_HANDLE_FD),
                                                        ctypes.c_ulonglong(0)), "cuMemExportToShareableHandle")
            address = _map(handle.value, nbytes, index, 0)
        except BaseException:
            if fd.value >= 0:
                os.close(fd.value)
            _cuda().cuMemRelease(handle)
            raise
        return cls(device, nbytes, fd.value, address, handle.value)

    @classmethod
    def open(cls, fd: int, nbytes: int, device: str = "cuda", address: int = 0) -> "Arena":
        """A runner's side: the judge's allocation from its fd (which stays the caller's to close),
        on CUDA mapped at `address` when that range is free here (both processes then use the same
        device addresses), elsewhere if not."""
        if nbytes != rounded(nbytes):
            raise ArenaError(f"arena size {nbytes} is not a multiple of {ALIGN}")
        if device == "cpu":
            import mmap
            if os.fstat(fd).st_size < nbytes:
                raise ArenaError("the arena's memfd is smaller than its declared size")
            mapping = mmap.mmap(fd, nbytes, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
            return cls(device, nbytes, None, ctypes.addressof(ctypes.c_char.from_buffer(mapping)), mapping=mapping)
        index = _device_index()
        handle = ctypes.c_uint64()
        _check(_cuda().cuMemImportFromShareableHandle(ctypes.byref(handle), ctypes.c_void_p(fd),
                                                      ctypes.c_int(_HANDLE_FD)), "cuMemImportFromShareableHandle")
        try:
            mapped = _map(handle.value, nbytes, index, address)
        except BaseException:
            _cuda().cuMemRelease(ctypes.c_uint64(handle.value))
            raise
        return cls(device, nbytes, None, mapped, handle.value)

    def tensor(self):
        """The whole arena as a uint8 tensor on its device (no copy; valid while this object is open)."""
        if self._tensor is None:
            import torch
            if self.mapping is not None:
                self._tensor = torch.frombuffer(self.mapping, dtype=torch.uint8)
            else:
                self._tensor = torch.as_tensor(_Interface(self.address, self.nbytes), device="cuda")
        return self._tensor

    def view(self, offset: int, dtype, shape):
        """A contiguous tensor of `dtype` and `shape` at byte `offset`."""
        import math
        itemsize = dtype.itemsize
        count = math.prod(shape)
        if offset < 0 or offset % max(itemsize, 16) or offset + count * itemsize > self.nbytes:
            raise ArenaError(f"{count} x {dtype} at offset {offset} does not fit the arena of {self.nbytes} bytes")
        return self.tensor()[offset:offset + count * itemsize].view(dtype).view(tuple(shape))

    def close(self) -> None:
        """Unmapped and released here (the memory lives on until every process has let it go)."""
        self._tensor = None
        if self.mapping is not None:
            try:
                self.mapping.close()
            except BufferError:      # a tensor still views it: the mapping goes with that tensor
                pass
            self.mapping = None
        elif self.address:
            _cuda().cuMemUnmap(self.address, self.nbytes)
            _cuda().cuMemAddressFree(self.address, self.nbytes)
            _cuda().cuMemRelease(ctypes.c_uint64(self.handle))
        self.address = 0
        if self.fd is not None:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.fd = None


class _Interface:
    """What torch.as_tensor reads to wrap device memory it does not own."""

    def __init__(self, address: int, nbytes: int):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (address, False),
                                         "version": 2}


def _map(handle: int, nbytes: int, device: int, address: int) -> int:
    """Reserve a range (at `address` if free), map the allocation there, make it read-write for
    `device`; returns the address."""
    cuda = _cuda()
    ptr = ctypes.c_uint64()
    _check(cuda.cuMemAddressReserve(ctypes.byref(ptr), nbytes, ALIGN, address, 0), "cuMemAddressReserve")
    try:
        _check(cuda.cuMemMap(ptr.value, nbytes, 0, handle, 0), "cuMemMap")
        try:
            access = _Access(_Location(_ON_DEVICE, device), _READ_WRITE)
            _check(cuda.cuMemSetAccess(ptr.value, nbytes, ctypes.byref(access), 1), "cuMemSetAccess")
        except BaseException:
            cuda.cuMemUnmap(ptr.value, nbytes)
            raise
    except BaseException:
        cuda.cuMemAddressFree(ptr.value, nbytes)
        raise
    return ptr.value


# -- the judge's side: how big, and where each round's buffers go (no torch, no GPU) ---------------
def _pages(nbytes: int) -> int:
    return -(-int(nbytes) // PAGE) * PAGE


def sizes(values) -> list[int]:
    """The bytes of each tensor among `values` (0 for a scalar or an empty tensor), in order."""
    return [v.numel() * v.element_size() if hasattr(v, "element_size") else 0 for v in values]


def span(sizes) -> int:
    """Bytes the tensors of `sizes` take placed one after another, each on a PAGE boundary."""
    return sum(_pages(n) for n in sizes if n)


@dataclass(frozen=True)
class Layout:
    """One timed config's arena: its inputs, then its outputs, each region moved by up to SPREAD per
    round."""
    inputs: int                       # span of the input tensors
    outputs: int                      # span of the harness-made outputs (native kernels)

    @property
    def nbytes(self) -> int:
        return rounded(self.inputs + self.outputs + 2 * SPREAD)

    def draw(self, rng: random.Random) -> dict:
        """A round's placement, the same for both kernels: byte offsets of the first input and the
        first output."""
        first = rng.randrange(SPREAD // PAGE) * PAGE
        return {"inputs": first, "outputs": first + self.inputs + rng.randrange(SPREAD // PAGE) * PAGE}


def offsets(start: int, sizes) -> list:
    """Where each tensor of `sizes` goes from `start` on (None for an empty one)."""
    placed = []
    for n in sizes:
        placed.append(start if n else None)
        start += _pages(n)
    return placed
