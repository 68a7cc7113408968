"""The device trace (issue 30): what ran on the GPU during each timed call, recorded by the driver's
profiling interface and read by the judge, never by the candidate's Python.

A small C library (devtrace_inject.c), compiled by the judge and loaded by the CUDA driver itself
when a runner first initialises CUDA (CUDA_INJECTION64_PATH), writes a record of every kernel, copy
and memset to a pipe only the judge reads. The runner brackets what it times with kernels of its
own (launch_gate.py): the gate before each call, an end marker after its end event, a batch marker
at each batch's start and end. From the records alone, without a word from the runner's Python:

  brackets   every timed call has its gate and end marker, in order; a batch without its closing
             marker, or a call without a bracket, means the trace was stopped or forged (a flag);
  inside     what the candidate's call put on the device, on any stream: PyTorch's own kernels
             (the `at::` namespace, less fills and copies) are PyTorch computing for it, and a call
             with no kernel of its own wrote none;
  between    what ran between calls is the harness's steps (refill, copy, digest, flush), the same
             code in both runners: a kernel in the candidate's runner there that the baseline's
             runner never shows is work moved out of the timed span;
  device time  from the gate's end to the last of the call's device work, on every stream: a
             sample the runner reports shorter than that is a clock that does not see everything;
  flush      in the cold regime the harness's L2 flush is the gate's neighbour, before every call, as
             in the baseline's runner (a step in the candidate's process that changes no output);
  floor      every sample counts as at least its call's device time less the baseline's gap and
             0.3 us: a clock forged short below clock_short's margin gains no more;
  host copies  a result computed off the device reaches it by a copy from the host inside the call;
  forgery    the pipe's writing end is in the runner's process: records can be added, never
             removed, so each rule reads added records as more findings, a forged batch leaves a
             real one that no request took (after_exit), a record of a batch already read is late.

On for every timed evaluation on CUDA (CUPTI is NVIDIA's); GAUNTLET_DEVICE_TRACE=0 turns it off.
On an H200 (results/gpu-2026-11-28b.md, -28c.md) it raised no flag on the honest evaluations read
and caught every red-team cheat that reaches into the runner's process; docs/evaluation.md says
what it costs and what it leaves open. In the runner it replaces
the profiler sessions (CUPTI takes one client).

Imports only the standard library.
"""
from __future__ import annotations

import fcntl
import functools
import glob
import hashlib
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import sysconfig
import termios
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

SWITCH = "GAUNTLET_DEVICE_TRACE"
FD_ENV, LIBRARY_ENV = "GAUNTLET_DEVTRACE_FD", "CUDA_INJECTION64_PATH"
SOURCE = Path(__file__).with_name("devtrace_inject.c")
RECORD = struct.Struct("<IHHIIQQIIQ")          # devtrace_inject.c: trace_record
MAGIC = 0x31525447
KINDS = {1: "hello", 2: "kernel", 3: "memcpy", 4: "memset", 5: "dropped", 6: "error"}
GATE, END, BATCH = "gauntlet_launch_gate", "gauntlet_end_marker", "gauntlet_batch_marker"
CALL = "gauntlet_call_marker"                  # before and after each correctness call
MARKERS = (GATE, END, BATCH, CALL)
# PyTorch's own kernels (mangled names in the `at` namespace) that only allocate, fill or copy:
# what protocol.ALLOWED_ATEN lets a Triton candidate do; any other `at::` kernel computes.
TORCH_PREFIXES = ("_ZN2at", "_ZN3c10")
TORCH_GLUE = ("FillFunctor", "copy_kernel", "arange", "fill_kernel")
# Of those, the copies move data (a layout change, a dtype cast): the whole work of a transpose, a
# permute or a cast, so excused by amount, not by name (COPIES_OWN_REL, _torch_fallback)
TORCH_COPIES = ("copy_kernel",)
# The kernels of the libraries PyTorch computes with, by the names their vendors give them (an
# identifier of the kernel's name, mangled or not): torch.matmul's cuBLAS/cuBLASLt GEMMs and GEMVs,
# convolutions' cuDNN, attention's bundled FlashAttention and memory-efficient kernels, PyTorch's
# CUTLASS instantiations (`at::` in their template arguments), torch.compile's generated Triton.
# A candidate that reaches one past the dispatcher (ctypes, a C++ call, an op watch it cleared) runs
# the library's kernel, named as the library names it: the name is the evidence, read outside its
# process. Names seen in H200 traces: results/gpu-2026-11-29d.md.
LIBRARY_WORDS = re.compile(
    r"^(?:cublas|cudnn|cufft|cusparse|cusolver|curand|magma|cask_"        # the library's name in an identifier
    r"|nvjet_|sm\d+a?_xmma_|xmma_|cutlass_\d+_|cutlass3x_|implicit_convolve"  # cuBLAS(Lt), cuDNN kernels
    r"|at_cuda_detail$"                                                      # PyTorch's own copy of CUB
    r"|(?:ampere|volta|turing|maxwell)_\w*gemm\w*_\d+x\d+"                # cuBLAS's older GEMMs, tile in the name
    r"|gemvx$|gemv2[TN]_|gemmk1_|gemmSN_|splitKreduce_"                    # cuBLAS's GEMV and split-K kernels
    r"|pytorch_flash$|PyTorchMemEffAttention$|fmha_cutlass"               # PyTorch's attention kernels
    r"|triton_(?:poi|red|per|tem|spl|for|unk)_)")                          # torch.compile's (Inductor's) Triton
# A sample shorter than the call's device time by more than this, beyond what the baseline's own
# samples sit below theirs (clock_offset), is a clock that missed work: below 10 % of any call of
# 10 us or more (issue 30). Honest calls on H200s (263 configs of 38 evaluations, three leases;
# bench/clock_gap.py) sat at most 0.63 us past the baseline's gap in their median call, and at
# most 12 % of a config's calls past this bound, where the rule needs most of them
# (results/gpu-2026-11-30-s15.md).
SHORT_ABS_MS, SHORT_REL = 0.0009, 0.075
# Below that margin a runner's samples could still be forged short (a clock in the candidate's own
# process), by up to max(0.9 us, 7.5 %) a call unflagged. So every timed call's sample, in both
# runners, counts as at least its device time less the baseline's gap and this slack (floored):
# what a forged clock can take off is this much a call. Honest oracles on H200s (336 configs of 47
# evaluations, results/gpu-2026-11-30-s16.md): the floor moved the median call of a config by 0 in
# the median config, 0.54 % at most; with no slack, 3.7 % at most (a 3 us call).
FLOOR_SLACK_MS = 0.0003
# The empty event pair counts toward the baseline's gap up to this: it read 1.3-3.5 us on H200s; a
# calibration the host stalled through (the launch gate ran out) would read host time, no gap.
EMPTY_PAIR_MAX_MS = 0.005
# The L2 flush (clock.GpuClock: a 256 MB read, the last work before each gate in the cold regime) is a
# step of the harness's that runs in the candidate's own process, and skipping it changes no output:
# its kernel must be in the device trace before every timed call, as the baseline's runner shows it
# (same kernel, same blocks), for at least this share of the baseline's median time and never less
# than FLUSH_MIN_OF_LEAST of the baseline's shortest (a bandwidth-bound read of a buffer larger than
# any L2 runs no faster in one process than another; one that read less, or from cache, would). Only
# where the baseline's runner shows it before every one of its calls: a rule the trusted runner does
# not itself meet would flag honest candidates.
FLUSH_MIN_SHARE, FLUSH_MIN_OF_LEAST = 0.5, 0.8
# ... and it ran where a flush runs: on its gate's stream, ending before the gate started and starting
# after the work before it on that stream ended (stream order; this much slack for the clocks of
# copy engines and kernels): a record written into the pipe to stand for a skipped flush has to fit,
# in launch order and device time, between real records the candidate never sees. That makes a
# forgery exact work, not impossible (docs/evaluation.md says so).
FLUSH_ORDER_SLACK_NS = 2000
EARLY_ABS_MS = 0.001     # a call's work that ran before its gate ended; the device's timestamps are ns
# Copies between the host and the device inside a timed call: a result computed off the device has
# to arrive this way. More than this a call, beyond what the baseline's calls copy, is a finding.
HOST_COPIES = ("memcpy HtoD", "memcpy DtoH", "memcpy other")
HOST_ABS_BYTES = 64 << 10
# An X->X task's shipped code may run PyTorch kernels itself (glue: routing, a decay), and the
# candidate may run them too, on the same config: per call, each of those kernels as often as the
# baseline's busiest call ran it, for at most GLUE_REL x the baseline's most PyTorch device time
# in one call + GLUE_ABS_MS. The factor leaves room for the same kernels' jitter, and for glue whose
# work follows the data (a nonzero's output); the slack for a kernel of a few microseconds, whose
# duration moves by more than its share (a launch's placement, the clock's boost). More than twice
# the baseline's glue is work the shipped code does not do.
GLUE_REL, GLUE_ABS_MS = 2.0, 0.005
# PyTorch's copies inside a call, beyond the shipped code's own (X->X: GLUE_REL x them), may take
# at most this times the candidate's own kernels' device time + GLUE_ABS_MS, in most calls: a call
# whose work is PyTorch's copy (x.t().contiguous() beside a token kernel: red team, session 23)
# would have to run kernels of its own for half the copy's time to pass, and so be slower than the
# reference it copies
COPIES_OWN_REL = 2.0
WAIT_S = 5.0                                   # for a batch's closing marker, once per runner
# Records held at once (a batch's are taken as it ends; correctness calls' wait for the runner's
# end): honest runners hold thousands. Past this the pipe is a flood of added records.
MAX_HELD = 1_000_000


class Unavailable(Exception):
    """No trace here (no CUPTI, no compiler): the judge notes it and goes on without one."""


def wanted(device: str) -> bool:
    return device == "cuda" and os.environ.get(SWITCH, "1") != "0"


# -- the library ----------------------------------------------------------------------------------
def cache_dir() -> Path:
    """The judge's own cache (not /tmp, where a runner could plant a folder first)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gauntlet" / "devtrace"


def _cupti_dirs() -> list[tuple[Path, Path]]:
    """(include, lib) pairs that hold cupti.h and a libcupti, most specific first."""
    roots = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")]
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(str(Path(nvcc).resolve().parent.parent))
    roots += sorted(glob.glob("/usr/local/cuda*"), reverse=True)
    pairs = []
    for root in filter(None, roots):
        for inc, lib in (("include", "lib64"), ("include", "lib"), ("extras/CUPTI/include", "extras/CUPTI/lib64")):
            pairs.append((Path(root) / inc, Path(root) / lib))
    site = Path(sysconfig.get_paths()["purelib"])
    for inc in sorted(site.glob("nvidia/*/include")):
        pairs.append((inc, inc.parent / "lib"))
    return [(i, l) for i, l in pairs if (i / "cupti.h").is_file() and any(l.glob("libcupti.so*"))]


def compile_library(source: Path, out: Path, compiler: str, include: Path, lib: Path, executable: bool = False) -> None:
    """One injection library (or, `executable`, a program: judge/dram.py's sampler) from `source`
    against CUPTI's headers and library (build; a bench's variants of the source:
    bench/trace_call_cost.py)."""
    libname = sorted(lib.glob("libcupti.so*"), key=lambda p: len(p.name))[0]
    shape = ["-ldl"] if executable else ["-shared", "-fPIC", "-pthread"]
    argv = [compiler, *shape, "-O2", "-I", str(include), str(source), "-o", str(out),
            str(libname), f"-Wl,-rpath,{lib}"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise Unavailable(f"{out.name} did not build: {(proc.stderr or proc.stdout)[-300:]}")


def build(cache: Path, source: Path = SOURCE, name: str = "libgauntlet_devtrace.so", executable: bool = False) -> Path:
    """The injection library (or, `executable`, the C++ program judge/dram.py runs), compiled once
    per source and CUPTI into `cache` (judge-owned, not writable by a runner)."""
    dirs = _cupti_dirs()
    if not dirs:
        raise Unavailable("no CUPTI headers and library found (CUDA_HOME, nvcc's toolkit, pip's nvidia-*)")
    if executable:
        compiler = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")
    else:
        compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if compiler is None:
        raise Unavailable(f"no {'C++' if executable else 'C'} compiler to build {name}")
    include, lib = dirs[0]
    key = hashlib.sha256(source.read_bytes() + str(include).encode() + str(lib).encode()).hexdigest()[:16]
    out = cache / key / name
    if out.is_file():
        return out
    try:         # on by default: a host that cannot build it gets a note, never a failed evaluation
        out.parent.mkdir(parents=True, exist_ok=True)
        # A temporary name of this process's own: evaluations side by side (--jobs) build at once,
        # and one's rename took the file another was about to rename (session 10's H200 run).
        tmp = Path(f"{out}.{os.getpid()}.{threading.get_ident()}.tmp")
        compile_library(source, tmp, compiler, include, lib, executable)
        os.replace(tmp, out)      # atomic: a process that finds `out` finds a whole build
        for path in (out, out.parent):
            path.chmod(0o755)
    except (OSError, IndexError, subprocess.SubprocessError) as exc:
        raise Unavailable(f"{name} did not build: {exc}") from None
    return out


# -- records --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Op:
    kind: str
    name: str
    pid: int
    stream: int
    start: int          # ns, the device's clock
    end: int
    correlation: int    # launch order within one process
    amount: int

    @property
    def device_work(self) -> bool:
        return self.kind in ("kernel", "memcpy", "memset")


def parse(data: bytes) -> tuple[list[Op], bytes, str | None]:
    """The whole records in `data`, the bytes of a record not yet complete, and what broke the
    stream (a bad magic: nothing after it can be framed)."""
    ops, at = [], 0
    while len(data) - at >= RECORD.size:
        magic, kind, name_len, pid, stream, start, end, corr, _device, amount = RECORD.unpack_from(data, at)
        if magic != MAGIC or kind not in KINDS:
            return ops, b"", f"bad record at byte {at}"
        if len(data) - at < RECORD.size + name_len:
            break
        name = data[at + RECORD.size: at + RECORD.size + name_len].decode("utf-8", "replace")
        ops.append(Op(KINDS[kind], name, pid, stream, start, end, corr, amount))
        at += RECORD.size + name_len
    return ops, data[at:], None


class Reader:
    """The judge's end of one runner's trace pipe, drained by a thread of the judge's."""

    def __init__(self):
        self.read_fd, self.write_fd = os.pipe()
        os.set_inheritable(self.write_fd, True)
        self.ops: list[Op] = []
        self.problems: list[str] = []
        self.pid: int | None = None      # the first process that said hello: the runner
        self.calls: list[list[Op]] = []  # device work inside each correctness call's bracket
        self.dead = False                # a batch's records never came: no more waiting
        self.cut = 0                     # the launch order up to which the runner's records are read
        self.batches_taken = 0
        self.calls_bracketed = 0         # correctness calls whose two markers arrived (_keep_calls)
        self.late = 0                    # records of the read past that arrived afterwards
        self.flooded = False             # past MAX_HELD: nothing more is kept
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._drain, name="devtrace", daemon=True)
        self._thread.start()

    def child_started(self) -> None:
        """The runner holds the write end now; the judge's copy goes (EOF when the runner's does)."""
        os.close(self.write_fd)

    def _drain(self) -> None:
        rest = b""
        while True:
            # Read only once the pipe is readable, and read and parse under the lock: whoever holds
            # it sees every byte that left the pipe already parsed (take_batch's _drained).
            select.select([self.read_fd], [], [])
            with self._cond:
                try:
                    chunk = os.read(self.read_fd, 1 << 16)
                except OSError:
                    chunk = b""
                if not chunk:
                    break
                if self.flooded:              # read on and drop: the runner must not block on the pipe
                    continue
                ops, rest, broken = parse(rest + chunk)
                for op in ops:
                    if op.kind == "hello" and self.pid is None:
                        self.pid = op.pid
                    elif op.kind == "error":
                        self.problems.append(f"the trace did not start: {op.name}")
                    elif op.kind == "dropped":
                        self.problems.append(f"{op.amount} record(s) dropped by the trace")
                    elif op.device_work and op.pid == self.pid and op.correlation <= self.cut:
                        # Everything the runner launched up to a batch's end was on the pipe before
                        # its reply (it flushes first) and read before the batch was taken: a record
                        # of that past arriving now was written by something other than the library.
                        self._late(op)
                self.ops += ops
                if broken:
                    self.problems.append(f"the trace stream broke ({broken})")
                if len(self.ops) > MAX_HELD:  # the judge's memory is not the candidate's to fill
                    self.problems.append(f"more than {MAX_HELD} records held at once: records the library did not write")
                    self.flooded, self.dead, self.ops = True, True, []
                self._cond.notify_all()
            if broken:
                break
        with self._cond:
            self.dead = True
            self._cond.notify_all()
            os.close(self.read_fd)        # here, by the only thread that reads it, under the lock

    def take_batch(self, timeout_s: float = WAIT_S) -> list[Op] | None:
        """The runner's device work from one batch marker to the next (both included), removed from
        the buffer; None when the closing marker does not come (the trace stopped)."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while True:
                mine = sorted((op for op in self.ops if op.pid == self.pid), key=lambda o: o.correlation)
                marks = [i for i, op in enumerate(mine) if op.name == BATCH]
                if len(marks) >= 2 and self._drained():
                    self._keep_calls(mine[:marks[0]])
                    batch = mine[marks[0]: marks[1] + 1]
                    self.cut = mine[marks[1]].correlation
                    self.ops = [op for op in self.ops if op.pid != self.pid or op.correlation > self.cut]
                    self.batches_taken += 1
                    return batch
                left = deadline - time.monotonic()
                if self.dead or left <= 0:
                    self.dead = True
                    return None
                self._cond.wait(left)

    def _drained(self) -> bool:
        """Every byte already on the pipe read and parsed (the records of a batch the runner has
        flushed may span several reads: taking the batch at its closing marker could miss a
        record of another stream that came in a later read). Called under the lock."""
        if self.dead:
            return True
        pending = fcntl.ioctl(self.read_fd, termios.FIONREAD, b"\0\0\0\0")
        return int.from_bytes(pending, sys.byteorder) == 0

    def _late(self, op: Op) -> None:
        if not self.late:
            self.problems.append("a record of the runner's from before the last batch read arrived afterwards "
                                 f"({readable(op.name)}): records the library did not write")
        self.late += 1

    def after_exit(self, calls_made: int = 0) -> list[str]:
        """Once the runner is gone, what only a forger leaves: batch markers no timed batch of the
        judge's took (every real marker arrives and none can be removed, so a forged batch leaves
        the real one behind, or itself), records of the read past that came late, a flood; and
        fewer bracketed correctness calls than the `calls_made` the runner answered: their records
        were withheld (the library's periodic flush held and the runner's forced flush skipped, or
        the library silenced), so PyTorch computing in them would go unread."""
        with self._cond:
            mine = [op for op in self.ops if op.pid == self.pid]
            extra = sum(1 for op in mine if op.name == BATCH)
            bracketed = self.calls_bracketed + sum(1 for op in mine if op.name == CALL) // 2
        found = []
        if extra >= 2 and not self.dead:
            found.append(f"device_trace: {extra} batch marker(s) no timed batch took ({self.batches_taken} taken): "
                         "records the library did not write")
        if bracketed < calls_made and self.pid is not None and not self.dead:
            found.append(f"device_trace: the records of {calls_made - bracketed} of {calls_made} correctness calls "
                         "never arrived (the trace was held or stopped)")
        if self.late:
            found.append(f"device_trace: {self.late} record(s) of the runner's past arrived after the judge had "
                         "read it: records the library did not write")
        if self.flooded:
            found.append(f"device_trace: more than {MAX_HELD} records held at once: records the library did not write")
        return found

    def _keep_calls(self, ops: list[Op]) -> None:
        """The correctness calls' brackets among `ops` (launch order) into self.calls; an odd
        marker left over waits for the next look (its pair may not have arrived yet)."""
        marks = [i for i, op in enumerate(ops) if op.name == CALL]
        for a, b in zip(marks[0::2], marks[1::2]):
            self.calls.append([op for op in ops[a + 1:b] if op.device_work])
            self.calls_bracketed += 1

    def take_kept(self) -> list[list[Op]]:
        """The correctness calls kept so far (each batch keeps those bracketed before it): a timed
        config's own, when taken at its first batch's reading (Judge._read_trace)."""
        with self._cond:
            calls, self.calls = self.calls, []
            return calls

    def take_calls(self) -> list[list[Op]]:
        """Every correctness call bracketed since the last batch, once the runner is gone (then
        nothing more can arrive)."""
        with self._cond:
            mine = sorted((op for op in self.ops if op.pid == self.pid), key=lambda o: o.correlation)
            self._keep_calls(mine)
            self.ops = [op for op in self.ops if op.pid != self.pid]
            calls, self.calls = self.calls, []
            return calls

    def foreign(self) -> list[Op]:
        """Device work recorded from a process other than the runner."""
        with self._cond:
            return [op for op in self.ops if op.device_work and op.pid != self.pid]

    def join(self, timeout_s: float = 2.0) -> None:
        """After the runner's processes are gone: the pipe's end of file ends the reading thread."""
        self._thread.join(timeout_s)


# -- one batch ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Foreign:
    """What else a task's candidate cannot have written, beyond PyTorch's and its libraries' names.
    `reference`: a PyTorch->X task's reference's kernels on the config (reference_kernels): it is
    PyTorch, so they are PyTorch's wherever they run. `cxx`: a Triton task, whose kernels Triton
    names plainly: a C++ (mangled) kernel is PyTorch's or a library's. Both hold what no name rule
    can, PyTorch's kernels in anonymous namespaces (`softmax_warp_forward` of SoftMax.cu), whatever
    op a candidate reaches them through."""
    reference: frozenset[str] = frozenset()
    cxx: bool = False
    # A native (CUDA/HIP) task: what the code's sources declare (static_checks.DeclaredKernels:
    # kernels, namespaces, units), read by the judge before anything of them ran; a kernel none of
    # them declares is someone else's. None: not read (a Triton task, sources it could not read).
    declared: object = None


def is_torch(name: str, foreign: Foreign = Foreign()) -> bool:
    """PyTorch computing: its own kernels (less allocation's fills and copies), its libraries', and
    what `foreign` says this task's candidate cannot have written."""
    if is_glue_or_marker(name):
        return False
    return (name.startswith(TORCH_PREFIXES) or name in foreign.reference or (foreign.cxx and name.startswith("_Z"))
            or is_library(name) or (foreign.declared is not None and not declared_by(name, foreign.declared)))


# Header-only libraries a CUDA/HIP source instantiates its own kernels from (CUB's reduce, a
# CUTLASS GEMM): their kernels are the source's. PyTorch's own copies are named apart
# (at_cuda_detail::cub, CUTLASS on at::cuda: LIBRARY_WORDS, is_library).
HEADER_LIBRARIES = ("cub", "thrust", "cutlass", "cute", "cooperative_groups", "cuda", "hipcub", "rocprim")
# nvcc's anonymous namespace: _GLOBAL__N__<hash>_<length>_<file, '.' as '_'>_<a hash or a name>
_ANONYMOUS = re.compile(r"_GLOBAL__N__[0-9a-f]+_(\d{1,6})_")     # a name is under 64 KiB


def anonymous_unit(word: str) -> str | None:
    """The file an nvcc anonymous namespace was compiled from (`SoftMax_cu`), read by its length."""
    match = _ANONYMOUS.match(word)
    return word[match.end():match.end() + int(match.group(1))] if match else None


def qualified_name(name: str) -> list[str] | None:
    """A mangled kernel's scope and function, without its template arguments (a __global__ function
    is a free function: namespaces, then its name); a plain (extern "C", Triton) name whole; None
    where the mangling is not that."""
    if not name.startswith("_Z"):
        return [name]
    i = 2 + (name[2:3] == "L")
    nested = name[i:i + 1] == "N"
    i += nested
    words = []
    while i < len(name) and name[i].isdigit():
        word, i = _source_name(name, i)
        words.append(word)
        if not nested:
            break
    return words or None


def _source_name(name: str, i: int) -> tuple[str, int]:
    """The length-prefixed identifier at name[i] (a digit), and where the name goes on."""
    j = i
    while j < len(name) and name[j].isdigit():
        j += 1
    if j - i > 6:         # a record's name is under 64 KiB: longer is no length (int() refuses 4,300 digits)
        return "", len(name)
    end = j + int(name[i:j])
    return name[j:end], end


@functools.lru_cache(maxsize=8192)
def declared_by(name: str, declared) -> bool:
    """Whether a kernel is one the code's sources declare: its function one of their __global__
    names, in a scope they open (their namespaces, an anonymous namespace of one of their files) or
    a header library's. A name this cannot read counts as declared: no flag on a guess."""
    words = qualified_name(name)
    if words is None:
        return True
    *scope, function = words
    if scope and scope[0] in HEADER_LIBRARIES:
        return True
    if function not in declared.kernels and not declared.any_name:
        return False
    for word in scope:
        unit = anonymous_unit(word)
        if unit is not None:
            if unit not in declared.units:
                return False
        elif word not in declared.namespaces and word != "_GLOBAL__N_1":     # a host compiler's, fileless
            return False
    return True


def is_glue(name: str) -> bool:
    """PyTorch's own allocation fills and copies, which any code runs (by PyTorch's name: a kernel
    of the candidate's called `_copy_kernel` is its own)."""
    return name.startswith(TORCH_PREFIXES) and any(g in name for g in TORCH_GLUE)


def is_copy(name: str) -> bool:
    return is_glue(name) and any(c in name for c in TORCH_COPIES)


def is_glue_or_marker(name: str) -> bool:
    """Allocation's fills and copies, which any code runs, and the harness's own markers."""
    return name in MARKERS or is_glue(name)


def own_kernels(call: list[Op], foreign: "Foreign") -> list[Op]:
    """The candidate's own kernels in a call: not PyTorch's (its glue included), not a marker."""
    return [op for op in call if op.kind == "kernel" and not is_torch(op.name, foreign)
            and not is_glue_or_marker(op.name)]


def _kernel_ms(ops: list[Op]) -> float:
    return sum(op.end - op.start for op in ops) / 1e6


def _copies(call: list[Op]) -> list[Op]:
    return [op for op in call if op.kind == "kernel" and is_copy(op.name)]


@functools.lru_cache(maxsize=8192)      # read per kernel of every call, by several rules: names repeat
def is_library(name: str) -> bool:
    words = identifiers(name)
    if any(LIBRARY_WORDS.match(w) for w in words):
        return True
    # PyTorch's own instantiations of CUTLASS kernels (its fp8 rowwise GEMMs): `at::cuda`/`at::native`
    # in the template's arguments of a cutlass/cute kernel.
    return words[0] in ("cutlass", "cute") and any(a == "at" and b in ("cuda", "native")
                                                   for a, b in zip(words, words[1:]))


def identifiers(name: str) -> list[str]:
    """The identifiers a kernel's name is made of: a mangled C++ name's length-prefixed words
    (namespaces, the function, its template arguments' types), any other name whole."""
    if not name.startswith("_Z"):
        return [name]
    words, i = [], 2
    while i < len(name):
        if name[i].isdigit():
            word, i = _source_name(name, i)
            words.append(word)
        else:
            i += 1
    return [w for w in words if w]


def readable(name: str, limit: int = 90) -> str:
    """A mangled C++ kernel name as the identifiers it is made of (at::native::kernel<Functor...>),
    enough to say which operation ran; any other name as it is."""
    if not name.startswith("_Z"):
        return name[:limit]
    words = identifiers(name)
    text = "::".join(words[:3]) + (f"<{' '.join(words[3:])}>" if len(words) > 3 else "")
    return (text or name)[:limit]


@dataclass
class Batch:
    """One timed batch as the device saw it."""
    calls: int = 0
    inside: list[list[Op]] = field(default_factory=list)     # per call, gate to end marker
    before: list[list[Op]] = field(default_factory=list)     # per call, the device work from the last bracket to its gate
    tail: list[str] = field(default_factory=list)            # names, last end marker to batch marker
    gates: list[Op] = field(default_factory=list)            # per call, its gate
    device_ms: list[float] = field(default_factory=list)     # per call, its first work (or the gate's end) to its last
    early_ms: list[float] = field(default_factory=list)      # per call, device time its work ran before the gate ended
    problems: list[str] = field(default_factory=list)

    @property
    def prologue(self) -> list[str]:
        """Names, batch marker to first gate."""
        return [op.name for op in self.before[0]] if self.before else []

    @property
    def between(self) -> list[list[str]]:
        """Names, end marker i to gate i+1."""
        return [[op.name for op in ops] for ops in self.before[1:]]


def segment(ops: list[Op] | None, n: int) -> Batch:
    """Split one batch's records (launch order, batch marker to batch marker) at the brackets;
    None: the batch's closing marker never came."""
    batch = Batch()
    if ops is None:
        batch.problems.append("a batch's records never arrived (the trace was stopped)")
        return batch
    work = [op for op in ops if op.device_work]
    marks = [(i, op) for i, op in enumerate(work) if op.name in (GATE, END)]
    expected = [GATE, END] * n
    if [op.name for _, op in marks] != expected:
        names = [op.name for _, op in marks]
        batch.problems.append(f"{names.count(GATE)} gate(s) and {names.count(END)} end marker(s) in a batch "
                              f"of {n} calls, or out of order")
        return batch
    for k in range(n):
        g, e = marks[2 * k][0], marks[2 * k + 1][0]
        opened = marks[2 * k - 1][0] + 1 if k else 1
        batch.before.append([op for op in work[opened:g] if op.name != BATCH])
        gate = work[g]
        batch.gates.append(gate)
        call = work[g + 1: e]
        batch.inside.append(call)
        last = max((op.end for op in call), default=gate.end)
        first = min([op.start for op in call] + [gate.end])
        batch.device_ms.append(max(0, last - first) / 1e6)
        # The span opens when the gate ends; the call's launches queue behind the gate on its
        # stream. Work that ran while the gate still spun came on another stream, unseen by the clock.
        batch.early_ms.append(sum(max(0, min(op.end, gate.end) - op.start) for op in call) / 1e6)
    batch.tail = [op.name for op in work[marks[-1][0] + 1:] if op.name != BATCH]
    batch.calls = n
    return batch


def summary(batch: Batch, samples: list[float] | None = None) -> dict:
    """One batch as the rules read it, for a bench's record (GAUNTLET_JUDGE_TRACE)."""
    inside = Counter(readable(op.name) for call in batch.inside for op in call)
    short = [round(d - s, 5) for d, s in zip(batch.device_ms, samples or [])]
    # the device time of the last kernel before each gate: the L2 flush in the cold regime, the
    # figures FLUSH_MIN_SHARE is set from (a flush that read less, or from cache, runs shorter)
    last = sorted((ops[-1].end - ops[-1].start) / 1e6 for ops in batch.before if ops and ops[-1].kind == "kernel")

    def first(values):
        return [round(x, 5) for x in values[:6]]
    return {"calls": batch.calls, "problems": batch.problems, "inside": dict(inside.most_common(8)),
            "prologue": dict(Counter(map(readable, batch.prologue))), "tail": dict(Counter(map(readable, batch.tail))),
            "between": dict(Counter(readable(n) for x in batch.between for n in x).most_common(8)),
            "device_ms": first(batch.device_ms), "early_ms": first(batch.early_ms), "samples_ms": first(samples or []),
            "device_less_sample_ms_max": max(short, default=None),
            "device_less_sample_ms_median": sorted(short)[len(short) // 2] if short else None,
            "last_before_gate_ms": [round(last[0], 5), round(last[len(last) // 2], 5)] if last else None}


# -- the judge's reading --------------------------------------------------------------------------
def _extra(cand: list[str], seen: list[Counter]) -> Counter:
    """What `cand` holds beyond the nearest of the baseline's segments of the same place."""
    have = Counter(cand)
    if not seen:
        return Counter()
    return min((have - s for s in seen), key=lambda c: sum(c.values()))


def _distinct(segments: list[Counter]) -> list[Counter]:
    """The kinds among the baseline's segments of one place: a batch of 500 calls has 499
    between-segments, nearly all alike (reading each candidate segment against every one of them
    cost seconds a config)."""
    return [Counter(dict(k)) for k in {tuple(sorted(c.items())) for c in segments}]


def clock_offset(baseline: list[tuple[Batch, list[float]]], empty_ms: float = 0.0) -> float:
    """How far an honest runner's samples sit below its calls' device time, read from the
    baseline's runner on the same config (ms). The two clocks do not span the same thing: the
    device time opens at the gate's end, the sample at the start event, less the empty event pair's
    span (`empty_ms`, the baseline runner's calibration); on an H200 that left ~3 us of every call
    that no sample holds on one lease (an oracle's 3.6 us kernel read 6.6 us on the device), ~1.3 us
    on another (results/gpu-2026-11-30-s15.md). The median of the baseline's calls, and never less
    than its empty pair: a host-bound baseline whose launch gate runs out holds host time in its
    samples (its gaps fall below zero), while a candidate whose gate holds still shows the
    structural gap. The baseline's runner is the judge's and stopped while the candidate runs:
    the candidate cannot move either figure."""
    gaps = sorted(d - s for b, samples in baseline if not b.problems for d, s in zip(b.device_ms, samples))
    return max(0.0, min(empty_ms, EMPTY_PAIR_MAX_MS), gaps[len(gaps) // 2] if gaps else 0.0)


def flush_of(baseline: list[Batch]) -> tuple[str, int, float, float] | None:
    """The L2 flush as the baseline's runner ran it: (kernel, blocks, median device ms, the least ms a
    flush of the candidate's may take) of the last work before each gate, where one kernel is that
    before every call, run where a flush runs (_is_flush); else None (the rule is not applied)."""
    last = [before[-1] if before else None for b in baseline for before in b.before]
    kernels = Counter((op.name, op.amount) for op in last if op is not None and op.kind == "kernel")
    if not kernels:
        return None
    (name, blocks), _ = kernels.most_common(1)[0]
    if not all(_is_flush(before, gate, name, blocks, 0.0) for b in baseline for before, gate in zip(b.before, b.gates)):
        return None
    times = sorted((op.end - op.start) / 1e6 for op in last)
    median = times[len(times) // 2]
    return name, blocks, median, min(FLUSH_MIN_SHARE * median, FLUSH_MIN_OF_LEAST * times[0])


def _flush_missing(candidate: list[tuple[Batch, list[float]]], flush: tuple[str, int, float, float]) -> list[str]:
    """Timed calls of the candidate's runner with no L2 flush before them (flush_of): the harness's
    step skipped (or shrunk) in the candidate's process. Records can be added, not removed: an honest
    runner's flush is always there, the last work before the gate (clock.GpuClock._raw: flush, then
    gate), so one call without it is a finding. The last, not any: a kernel of the same name and
    size elsewhere in the gap (the previous call's digest of a large output) is not the flush, and
    work a candidate's thread queued after the flush is work between calls (work_outside_span)."""
    name, blocks, ms, least_ms = flush
    missing = calls = 0
    for b, _ in candidate:
        for before, gate in zip(b.before, b.gates):
            calls += 1
            if not _is_flush(before, gate, name, blocks, least_ms):
                missing += 1
    if not missing:
        return []
    return [f"l2_flush: in {missing} of {calls} timed calls the device trace saw no L2 flush before the call "
            f"(the harness's {readable(name, 40)} of {blocks} blocks, {ms * 1000:.0f} us in the baseline's runner): "
            "the L2 left warm for the call by the candidate's process"]


def floored(samples: list[float], batch: Batch, offset_ms: float) -> list[float]:
    """A batch's samples, each at least its call's device time less the baseline's gap (`offset_ms`,
    clock_offset) and FLOOR_SLACK_MS: the device's time is read outside the runner's process, and a
    record can be added there, not removed (forged work only lengthens a call). A batch whose
    records did not segment keeps its samples (its problems are flags of their own)."""
    if batch.problems or len(batch.device_ms) != len(samples):
        return list(samples)
    return [max(s, d - offset_ms - FLOOR_SLACK_MS) for s, d in zip(samples, batch.device_ms)]


def _is_flush(before: list[Op], gate: Op, name: str, blocks: int, least_ms: float) -> bool:
    """Whether the gate's neighbour in launch order is the flush, run where a flush runs."""
    if not before:
        return False
    last = before[-1]
    if last.kind != "kernel" or last.name != name or last.amount != blocks or (last.end - last.start) / 1e6 < least_ms:
        return False
    if last.stream != gate.stream or last.end > gate.start + FLUSH_ORDER_SLACK_NS:
        return False
    earlier = [op.end for op in before[:-1] if op.stream == last.stream]
    return not earlier or last.start >= max(earlier) - FLUSH_ORDER_SLACK_NS


def findings(candidate: list[tuple[Batch, list[float]]], baseline: list[Batch], *, own_kernel_required: bool,
             glue: Glue | None = None, foreign: Foreign = Foreign(), offset_ms: float = 0.0,
             cold: bool = False) -> list[str]:
    """Flags from one config's batches: the candidate's (with the samples its runner reported) read
    against the baseline's. Each names what the device recorded. `glue`: the PyTorch kernels the
    candidate's calls may run (an X->X task's baseline's own: Glue.of), else none; `foreign`: what
    else is PyTorch's for this task (Foreign); `offset_ms`: clock_offset of the baseline's batches;
    `cold`: the L2 is flushed before every call (the cold regime), so the flush must be seen."""
    found = []
    for batch, _ in candidate:
        found += [f"device_trace: {p}" for p in batch.problems]
    whole = [(b, s) for b, s in candidate if not b.problems]
    if not whole:
        return list(dict.fromkeys(found))
    found += _torch_fallback([call for b, _ in whole for call in b.inside], "timed calls", glue or Glue(), foreign)
    own = [op for b, _ in whole for call in b.inside for op in own_kernels(call, foreign)]
    if own_kernel_required and not own:
        found.append("no_kernel_launch: the device trace saw no kernel of the candidate's own in any timed call")
    clean = [b for b in baseline if not b.problems]
    if clean:
        places = {"prologue": _distinct([Counter(b.prologue) for b in clean]),
                  "between": _distinct([Counter(x) for b in clean for x in b.between] or [Counter()]),
                  "tail": _distinct([Counter(b.tail) for b in clean])}
        read: dict[tuple, Counter] = {}      # each kind of candidate segment read once

        def extra(segment: list[str], place: str) -> Counter:
            key = (place, *sorted(Counter(segment).items()))
            if key not in read:
                read[key] = _extra(segment, places[place])
            return read[key]
        moved = Counter()
        for b, _ in whole:
            moved += extra(b.prologue, "prologue") + extra(b.tail, "tail")
            for x in b.between:
                moved += extra(x, "between")
        if moved:
            names = ", ".join(f"{readable(n)} x{c}" for n, c in moved.most_common(3))
            found.append(f"work_outside_span: the device trace saw work between timed calls that the "
                         f"baseline's runner never runs there ({names})")
    found += _host_transfer(whole, clean)
    flush = flush_of(clean) if cold else None
    if flush is not None:
        found += _flush_missing(whole, flush)
    short = early = calls = 0
    for b, samples in whole:
        for device_ms, early_ms, sample in zip(b.device_ms, b.early_ms, samples):
            calls += 1
            if sample < device_ms - offset_ms - max(SHORT_ABS_MS, SHORT_REL * device_ms):
                short += 1
            if early_ms > EARLY_ABS_MS:
                early += 1
    if early > calls // 2:
        found.append(f"work_outside_span: in {early} of {calls} timed calls the device ran the call's work "
                     "before its span opened (while the launch gate still held the call's stream: another stream)")
    if short > calls // 2:
        found.append(f"clock_short: {short} of {calls} timed calls reported less time than the device "
                     f"spent on them (the device trace, every stream; beyond the baseline's own "
                     f"{offset_ms * 1000:.2f} us)")
    return list(dict.fromkeys(found))


def host_bytes(call: list[Op]) -> int:
    return sum(op.amount for op in call if op.kind == "memcpy" and op.name in HOST_COPIES)


def _host_transfer(candidate: list[tuple[Batch, list[float]]], baseline: list[Batch]) -> list[str]:
    """Copies between the host and the device inside most timed calls, beyond what the baseline's
    calls copy: the call's result computed on the CPU (or read back to be), whatever kernel
    records stand beside it. A kernel record can be forged from inside the runner; a copy that
    really ran cannot be taken back."""
    allowed = max([HOST_ABS_BYTES] + [2 * host_bytes(call) for b in baseline for call in b.inside])
    per_call = [host_bytes(call) for b, _ in candidate for call in b.inside]
    over = [x for x in per_call if x > allowed]
    if len(over) <= len(per_call) // 2:
        return []
    return [f"host_transfer: in {len(over)} of {len(per_call)} timed calls the device copied up to {max(over)} bytes "
            f"between host and device inside the call (allowed {allowed}): work done off the device"]


def _torch_kernels(call: list[Op], foreign: Foreign = Foreign()) -> list[Op]:
    return [op for op in call if op.kind == "kernel" and is_torch(op.name, foreign)]


def _torch_ms(call: list[Op], foreign: Foreign = Foreign()) -> float:
    """The device time of PyTorch's own kernels in one call (each kernel's, summed over streams)."""
    return sum(op.end - op.start for op in _torch_kernels(call, foreign)) / 1e6


def reference_kernels(calls: list[list[Op]]) -> frozenset[str]:
    """The kernels a PyTorch->X task's reference ran in its calls (it is PyTorch): less the
    harness's markers and allocation's fills and copies, which a candidate runs too."""
    return frozenset(op.name for call in calls for op in call if op.kind == "kernel" and not is_glue_or_marker(op.name))


@dataclass(frozen=True)
class Glue:
    """What PyTorch computes in one call of an X->X task's shipped code on one config (the
    baseline's calls as its runner's trace recorded them): each PyTorch kernel's most launches in
    one call, and the most PyTorch device time of one call. Empty: nothing is allowed."""
    counts: Counter = field(default_factory=Counter)
    ms: float = 0.0
    copies_ms: float = 0.0      # the most device time PyTorch's copies took in one call

    @classmethod
    def of(cls, calls: list[list[Op]], foreign: Foreign = Foreign()) -> "Glue":
        counts = Counter()
        for call in calls:
            counts |= Counter(op.name for op in _torch_kernels(call, foreign))      # | keeps the larger count
        return cls(counts, max((_torch_ms(call, foreign) for call in calls), default=0.0),
                   max((_kernel_ms(_copies(call)) for call in calls), default=0.0))


def _torch_fallback(calls: list[list[Op]], where: str, glue: Glue, foreign: Foreign = Foreign()) -> list[str]:
    """PyTorch's own kernels inside the candidate's calls beyond `glue`, each bound its finding:
    a kernel launched more often in a call than the glue's count (in any call: launches do not
    jitter), and PyTorch device time past GLUE_REL x the glue's + GLUE_ABS_MS (in most calls, as
    the other timed rules read: a kernel's duration does, and two processes share the device in
    correctness calls). The names say what; the time, that the same kernels did more work."""
    extra = Counter()
    for call in calls:
        extra |= Counter(op.name for op in _torch_kernels(call, foreign)) - glue.counts
    found = []
    if extra:
        names = ", ".join(readable(n) for n, _ in extra.most_common(3))
        beyond = " beyond the task's shipped code's own per call" if glue.counts else ""
        found.append(f"torch_fallback: the device trace saw PyTorch's own kernels in {where}{beyond} ({names})")
    limit = GLUE_REL * glue.ms + GLUE_ABS_MS
    over = [call for call in calls if _torch_ms(call, foreign) > limit]
    if glue.counts and len(over) > len(calls) // 2:
        spent = Counter()
        for call in over:
            for op in _torch_kernels(call, foreign):
                spent[op.name] += op.end - op.start
        names = ", ".join(readable(n) for n, _ in spent.most_common(3))
        found.append(f"torch_fallback: in {len(over)} of {len(calls)} {where} PyTorch's own kernels ran up to "
                     f"{max(_torch_ms(call, foreign) for call in over) * 1000:.1f} us, past {GLUE_REL:g}x the task's shipped code's "
                     f"{glue.ms * 1000:.1f} us per call + {GLUE_ABS_MS * 1000:g} us ({names})")
    copying = [(_kernel_ms(_copies(call)), _kernel_ms(own_kernels(call, foreign))) for call in calls]
    past = [(c, o) for c, o in copying if c > GLUE_REL * glue.copies_ms + GLUE_ABS_MS + COPIES_OWN_REL * o]
    if past and len(past) > len(copying) // 2:
        copy_ms, own_ms = max(past)
        shipped = f" beyond the task's shipped code's own {glue.copies_ms * 1000:.1f} us" if glue.copies_ms else ""
        found.append(f"torch_fallback: in {len(past)} of {len(copying)} {where} PyTorch's copies ran up to "
                     f"{copy_ms * 1000:.1f} us{shipped} against {own_ms * 1000:.1f} us of the candidate's own kernels "
                     f"(at most {COPIES_OWN_REL:g}x them + {GLUE_ABS_MS * 1000:g} us): the copy did the work")
    return found


def call_findings(calls: list[list[Op]], glue: Glue | None = None, foreign: Foreign = Foreign()) -> list[str]:
    """PyTorch computing inside the candidate's correctness calls (the judge's checked calls)."""
    return _torch_fallback(calls, "correctness calls", glue or Glue(), foreign)


def runner_env(library: Path, write_fd: int) -> dict:
    return {LIBRARY_ENV: str(library), FD_ENV: str(write_fd)}


def _in_runner(function: str, *args) -> None:
    """Call one of the library's own functions in this runner process (the driver loaded it)."""
    path = os.environ.get(LIBRARY_ENV)
    if not path or FD_ENV not in os.environ:
        return
    import ctypes
    try:
        getattr(ctypes.CDLL(path), function)(*args)
    except (OSError, AttributeError) as exc:
        print(f"runner: devtrace {function}: {exc}", file=sys.stderr)


def flush_in_runner() -> None:
    """In the runner, after a batch: ask the library to hand over what it holds (its flush period
    does the same within milliseconds; a candidate that stops this only delays it)."""
    _in_runner("gauntlet_devtrace_flush")


def hold_in_runner(on: bool) -> None:
    """In the runner, around a timed batch: the library's periodic flush waits until the batch
    ends (at most devtrace_inject.c's HOLD_MAX_MS); its asks cost each timed call host time. The
    batch's forced flush (flush_in_runner) hands its records over. A candidate that holds it and
    skips that flush withholds records: a batch without its closing marker, and correctness calls
    fewer than the runner answered (Reader.after_exit), are findings."""
    _in_runner("gauntlet_devtrace_hold", int(on))


def active_in_runner() -> bool:
    return bool(os.environ.get(LIBRARY_ENV)) and FD_ENV in os.environ
