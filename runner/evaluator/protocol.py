"""The messages between the judge and a kernel runner: the only module both sides import.

Transport: a Unix SOCK_SEQPACKET socket pair; one message is one JSON object (UTF-8), with file
descriptors attached for tensor data. A tensor crosses by value: its bytes live in a memfd that the
side which owns the data creates, fills and passes; the receiver maps it and copies what it needs.
Nothing the runner sends is ever unpickled or executed by the judge: the judge reads JSON, checks
every field's type, and reads tensor bytes only as the dtype and shape it expects itself.

Why memfds and not CUDA IPC: legacy CUDA IPC handles do not open across PID namespaces, and the
runner lives in a namespace of its own. The copies cost time outside every timed span only. The one
piece of device memory that crosses is the timed batches' arena (arena.py): an allocation of the
judge's, passed as a file descriptor, holding only the inputs and outputs the runner places in it.

Commands (judge -> runner), each {"op": ..., ...}:
  build                          build or import the kernel; reply {compiled, log}
  inputs    args, spec           load these inputs (host bytes) onto the device as the base inputs
  arena     nbytes, address      map the judge's arena (one fd) for this config's timed batches
  call      patterns, out        run once per poison pattern on fresh copies of the base inputs,
                                 write each call's outputs into the `out` memfds
  time      n, seed, delta, ...  n timed repetitions (timing.py), each on the base inputs perturbed
                                 per element by `perturbation(seed, i)`, outputs kept; reply samples,
                                 gaps, host times and a digest of every repetition's outputs;
                                 `placement`: where in the arena the batch's buffers go
  export    index, out           write the kept outputs of repetition `index` into `out`
  release                        drop the kept outputs
  exit
Standard library only at import; torch is imported by the functions that need it.
"""
from __future__ import annotations

import array
import fcntl
import json
import math
import mmap
import os
import socket


# -- the PyTorch ops a candidate may run itself ---------------------------------------------------
# Both sides read this one list: the runner's op watch (guard.py) and the judge's static checks.
# Allocation, views, copies and dtype-preserving glue; everything else is computation PyTorch does
# for the candidate (a fallback) when the category asks for a custom kernel.
ALLOWED_ATEN = frozenset({
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "new_zeros", "new_full",
    "zeros", "zeros_like", "ones", "ones_like", "full", "full_like", "fill_", "zero_", "set_", "copy_",
    "_to_copy", "clone", "view", "_unsafe_view", "reshape", "as_strided", "t", "transpose", "permute",
    "expand", "contiguous", "detach", "alias", "lift_fresh", "slice", "select", "unsqueeze", "squeeze",
    "split", "split_with_sizes", "chunk", "unbind", "narrow", "view_as", "resize_", "_reshape_alias",
    "_local_scalar_dense", "arange", "is_same_size", "sym_size", "sym_stride", "sym_numel",
    "sym_storage_offset", "record_stream", "_has_compatible_shallow_copy_type", "lift", "flatten",
    "unflatten", "movedim", "numpy_T", "is_pinned", "_pin_memory",
})

MAX_MESSAGE = 1 << 20          # a reply larger than this is a protocol violation
MAX_FDS = 64
PERTURBATION = 0.125           # per element: x * (1 + delta * u), u uniform in [-1, 1)
# The parts of a runner's first timed batch it reports in `first_batch_ms` (the judge's phases).
FIRST_BATCH_PARTS = ("setup", "gc and trace marks", "refill", "call", "check and digest", "other calls and flush")
SEED_STRIDE = 1_000_003


class ProtocolError(RuntimeError):
    """The other side broke the protocol (or died)."""


# -- messages -------------------------------------------------------------------------------------
def send(sock: socket.socket, message: dict, fds: list[int] = ()) -> None:
    data = json.dumps(message, allow_nan=True).encode()
    if len(data) > MAX_MESSAGE:
        raise ProtocolError(f"message of {len(data)} bytes exceeds {MAX_MESSAGE}")
    if fds:
        sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
    else:
        sock.sendall(data)


def receive(sock: socket.socket) -> tuple[dict, list[int]]:
    """One message and the descriptors that came with it. Raises ProtocolError on EOF or garbage."""
    data, ancdata, flags, _ = sock.recvmsg(MAX_MESSAGE + 1, socket.CMSG_SPACE(MAX_FDS * 4))
    fds: list[int] = []
    for level, kind, payload in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            arr = array.array("i")
            arr.frombytes(payload[:len(payload) - len(payload) % arr.itemsize])
            fds.extend(arr)
    if not data:
        for fd in fds:
            os.close(fd)
        raise ProtocolError("the other side closed the connection")
    if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC) or len(data) > MAX_MESSAGE:
        for fd in fds:
            os.close(fd)
        raise ProtocolError("oversized message")
    try:
        message = json.loads(data.decode())
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:   # nested past the parser's stack too
        raise ProtocolError(f"unreadable message: {type(exc).__name__}") from None
    if not isinstance(message, dict):
        raise ProtocolError("a message must be a JSON object")
    if not numbers_in_range(message):
        raise ProtocolError("a number out of range (an integer past 64 bits, or NaN or an infinity)")
    return message, fds


def numbers_in_range(message) -> bool:
    """Every number in a decoded message is a 64-bit integer or a finite float. JSON allows integers
    of any size, and Python's parser NaN and Infinity; a reader of a runner's reply (a timing sample,
    a shape, a count) must never meet one it cannot convert or compare: the exception would be the
    judge's, and a hostile runner's failure would become a harness error."""
    stack = [message]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, bool) or isinstance(value, str) or value is None:
            continue
        elif isinstance(value, int):
            if not -(1 << 63) <= value < (1 << 63):
                return False
        elif isinstance(value, float) and not math.isfinite(value):
            return False
    return True


# -- tensors by value -----------------------------------------------------------------------------
# uint16 and uint32 (torch's "limited support" unsigned types: copies, views, fill, comparisons and
# conversion, all the judge does with an output) are exact in the float64 the judge compares in;
# uint64 is left out: past 2**53 its values would compare rounded.
DTYPES = ("float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "int64", "int32", "int16", "int8",
          "uint32", "uint16", "uint8", "bool")


def output_problem(outs, args) -> str | None:
    """The contract every kernel's outputs meet, the candidate's and the baseline's (a PyTorch->X
    task's baseline is its reference): each a plain torch.Tensor (a subclass or a lazy object could
    defer its work into the judge's read), none (a view of) an input, none sharing memory with
    another. The runner refuses an output that breaks it; `gauntlet tasks validate` refuses a
    reference that does where the reference is the baseline."""
    import torch
    inputs = {a.untyped_storage().data_ptr() for a in args
              if type(a) is torch.Tensor and a.untyped_storage().nbytes()}
    seen = set()
    for i, o in enumerate(outs):
        if type(o) is not torch.Tensor:
            return f"output {i} is a {type(o).__name__}, not a torch.Tensor"
        ptr = o.untyped_storage().data_ptr() if o.untyped_storage().nbytes() else None
        if ptr is not None and ptr in inputs:
            return f"output {i} is (a view of) an input, not a new tensor"
        if ptr is not None and ptr in seen:
            return f"output {i} shares memory with another output"
        seen.add(ptr)
    return None


def _torch_dtype(name: str):
    import torch
    if name not in DTYPES:
        raise ProtocolError(f"dtype {name!r} is not one the protocol carries")
    return getattr(torch, name)


def dtype_name(tensor) -> str:
    return str(tensor.dtype).removeprefix("torch.")


class Shared:
    """One memfd holding one tensor's bytes (contiguous, row-major), mapped read-write, or read-only
    (`readonly`: a received input, which the judge sealed against writes)."""

    def __init__(self, dtype: str, shape: tuple[int, ...], fd: int | None = None, name: str = "t",
                 readonly: bool = False, final_seals: bool = True):
        import math
        self.dtype, self.shape = dtype, tuple(int(s) for s in shape)
        itemsize = _torch_dtype(dtype).itemsize
        self.nbytes = math.prod(self.shape) * itemsize
        if fd is None:
            # Sealed at its size before it crosses: a receiver that shrank it would make the creator's
            # mapping fault (SIGBUS) on its next read, killing the judge instead of failing the kernel.
            # Without `final_seals`, seal_contents adds the last ones once the bytes are written (inputs).
            fd = os.memfd_create(f"gauntlet-{name}", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
            os.ftruncate(fd, max(1, self.nbytes))
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW |
                        (fcntl.F_SEAL_SEAL if final_seals else 0))
        elif os.fstat(fd).st_size < self.nbytes:
            os.close(fd)
            raise ProtocolError("a shared buffer is smaller than its declared shape")
        self.fd = fd
        # Pages made in one go, not faulted in one by one at first touch (tens of thousands for a
        # large tensor; on the H100 it did not measurably shorten the copies: docs/benchmarks.md).
        self.map = mmap.mmap(fd, max(1, self.nbytes), flags=mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0),
                             prot=mmap.PROT_READ | (0 if readonly else mmap.PROT_WRITE))
        self.readonly = readonly

    def seal_contents(self) -> None:
        """No process can write these bytes again, the creator included (an input sent to both
        runners: neither can change what the other reads). The creator's mapping goes first (a
        writable mapping forbids the seal); the fd stays, to be sent."""
        self.map.close()
        self.map = None
        fcntl.fcntl(self.fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SEAL)

    def tensor(self):
        """A CPU tensor viewing the mapped bytes (valid while this object lives)."""
        import torch
        dtype = _torch_dtype(self.dtype)
        if not self.nbytes:
            return torch.empty(self.shape, dtype=dtype)
        import warnings
        with warnings.catch_warnings():
            if self.readonly:    # frombuffer warns of a read-only buffer; the tensor is only read
                warnings.simplefilter("ignore", UserWarning)
            return torch.frombuffer(self.map, dtype=dtype, count=self.nbytes // dtype.itemsize).view(self.shape)

    def describe(self) -> dict:
        return {"dtype": self.dtype, "shape": list(self.shape)}

    def close(self) -> None:
        try:
            if self.map is not None:
                self.map.close()
        except BufferError:      # a tensor still views it: the mapping goes when that tensor does
            pass
        try:
            os.close(self.fd)
        except OSError:
            pass


def share(tensor, name: str = "t") -> Shared:
    """A new memfd holding a copy of `tensor` (any device), unwritable once filled."""
    shared = Shared(dtype_name(tensor), tuple(tensor.shape), name=name, final_seals=False)
    if shared.nbytes:
        view = shared.tensor()
        view.copy_(tensor.detach().reshape(tensor.shape))
        del view
    shared.seal_contents()
    return shared


def describe_args(args) -> tuple[list[dict], list["Shared"]]:
    """Encode make_inputs' values: tensors as memfds (index into the fd list), sealed against writes
    (one set serves both runners), scalars inline."""
    import torch
    described, shared = [], []
    for a in args:
        if isinstance(a, torch.Tensor):
            shared.append(share(a, "input"))
            described.append({"tensor": len(shared) - 1, **shared[-1].describe()})
        elif isinstance(a, bool):
            described.append({"bool": a})
        elif isinstance(a, int):
            described.append({"int": a})
        elif isinstance(a, float):
            described.append({"float": a})
        else:
            raise TypeError(f"make_inputs returned a {type(a).__name__}; only tensors, int, float and bool cross")
    return described, shared


def scalar(value: dict):
    for key, kind in (("bool", bool), ("int", int), ("float", (int, float))):
        if key in value:
            v = value[key]
            if not isinstance(v, kind) or (key != "bool" and isinstance(v, bool)):
                raise ProtocolError(f"argument {value!r} is not a {key}")
            return float(v) if key == "float" else v
    raise ProtocolError(f"argument {value!r} is neither a tensor nor a scalar")


# -- what both sides compute alike ----------------------------------------------------------------
def repetition_seed(batch_seed: int, index: int) -> int:
    return (batch_seed + SEED_STRIDE * (index + 1)) % (2**62)


def perturbed(base, seed: int, delta: float = PERTURBATION, out=None, scratch=None, generators=None) -> list:
    """The inputs of one timed repetition: every floating-point tensor of `base` multiplied element
    by element by (1 + delta * u), u uniform in [-1, 1) from a generator on the tensor's device
    seeded with `seed`; integers and scalars unchanged. The judge recomputes the same values for the
    repetitions it checks (same device type, same torch, same operations): no output of an earlier
    call is correct for them, and no single rescaling turns one into the other. With `out` (tensors
    shaped like `base`) and `scratch` (float32, one per tensor) the values are written in place."""
    import torch
    result = []
    for i, a in enumerate(base):
        if not isinstance(a, torch.Tensor):
            result.append(a)
            continue
        target = out[i] if out is not None else torch.empty_like(a)
        if a.is_floating_point() and a.numel():
            gen = (generators[i] if generators is not None else torch.Generator(device=a.device))
            gen.manual_seed((seed + i) % (2**62))
            u = scratch[i] if scratch is not None else torch.empty(a.shape, device=a.device, dtype=torch.float32)
            torch.rand(a.shape, generator=gen, device=a.device, dtype=torch.float32, out=u)
            u.mul_(2.0 * delta).add_(1.0 - delta)
            if a.dtype == torch.float32:
                torch.mul(a, u, out=target)
            elif a.element_size() == 1:          # float8: no arithmetic of its own; x1.125 past the
                top = torch.finfo(a.dtype).max   # largest value would overflow (inf in e5m2)
                target.copy_((a.float() * u).clamp_(-top, top).to(a.dtype))
            else:
                target.copy_(a * u.to(a.dtype))
        else:
            target.copy_(a)
        result.append(target)
    return result


def _words(tensor):
    """A tensor's bytes as integers (int32 words; int16 or uint8 where its size is not a multiple of
    4 bytes), row-major: what the digest sums."""
    import torch
    flat = tensor.detach().contiguous().reshape(-1)
    if flat.dtype == torch.bool:
        flat = flat.view(torch.uint8)
    size = flat.element_size()
    return flat.view(torch.int32 if size >= 4 else torch.int16 if size == 2 else torch.uint8)


def digest_weights(outputs, seed: int) -> list:
    """The digest's key: random int32 weights, one per 32-bit word of each output (per element for
    1- and 2-byte types), on the outputs' device."""
    import torch
    weights = []
    for i, o in enumerate(outputs):
        gen = torch.Generator(device=o.device).manual_seed((seed + i) % (2**62))
        weights.append(torch.randint(-2**31, 2**31, (_words(o).numel(),), generator=gen, device=o.device,
                                     dtype=torch.int32))
    return weights


def digest(outputs, weights) -> list[int | None]:
    """One integer per output: sum over its words of (word XOR weight) * weight (int64, wrapping), a
    keyed hash of its exact bytes. A runner commits to the digests of every timed repetition before the
    judge names the one it checks, and the judge recomputes it from the bytes exported afterwards.
    A weighted sum of the *values* was linear, so a linear kernel's digest followed from its inputs
    without its outputs (w^T (A B) = (w^T A) B: O(n^2) for an O(n^3) matmul); the bits of a float
    are no linear function of the values, the XOR keeps integer outputs from being one (an int32
    matmul's plain weighted sum is Freivalds' check again), and integer sums are exact in any order,
    so the judge asks for equality. None where an output's size does not fit its key."""
    import torch
    values: list[int | None] = []
    for o, w in zip(outputs, weights):
        words = _words(o)
        if words.numel() != w.numel():
            values.append(None)
            continue
        term = words.to(torch.int64)
        term.bitwise_xor_(w)
        term.mul_(w)
        values.append(int(term.sum()))
    return values


def strict_float32() -> None:
    """What a float32 task means, on both sides: IEEE float32 arithmetic. PyTorch lets cuDNN
    convolutions use TF32 by default (a float32 reference computed in TF32 on an H100 differs from an
    exact kernel by ~1e-3), and Triton's `tl.dot` on float32 defaults to TF32; both are set to full
    precision before any reference, baseline or candidate runs. A kernel that asks for TF32 or reduced
    precision itself is flagged by the static checks on float32 tasks."""
    os.environ["TRITON_F32_DEFAULT"] = "ieee"
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False


def stack_dump_on_signal(crashes: bool = False) -> None:
    """`kill -USR1` a stuck runner (or judge) to see where it waits, and with `crashes` (a runner,
    where native kernels run) a crash (SIGSEGV, SIGBUS, SIGABRT...) to see where it died: its
    threads' Python stacks go to its stderr (the runner's log, whose tail the judge quotes when a
    runner breaks off). A diagnosis aid; it reads nothing the process does not hold."""
    import faulthandler
    import signal
    try:
        if crashes:
            faulthandler.enable(all_threads=True)
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    except (AttributeError, ValueError, OSError, RuntimeError):   # no SIGUSR1, or a stderr without a descriptor
        pass
