"""No second process that is a copy of the runner, and no memory outside every resident set: a
seccomp filter the kernel runner installs on itself before any kernel code exists in it
(docs/evaluation.md, "Other processes" and the threat model's host exhaustion row).

Why: work done in another process is outside every watch of the runner's and outside its timed
span; a candidate that forks a worker (a `torch.utils.data.DataLoader` worker, `multiprocessing`)
can compute there. A seccomp filter cannot be lifted by the process it is on, nor by any child it
starts, so it holds whatever the candidate later does to the runner's Python. What it refuses:

- `fork`, and `clone` without CLONE_THREAD unless it is a vfork (CLONE_VM|CLONE_VFORK): a plain
  copy of the process. Threads stay (CUDA, Triton and torch start their own). A vfork child shares
  the runner's memory with the runner suspended until it execs or exits: the way `subprocess`,
  `posix_spawn` and compilers start the toolchain (nvcc, ptxas, cc), which must keep working;
- `clone3`, answered ENOSYS: its flags lie in memory a filter cannot read, and glibc falls back to
  `clone` (which is checked) when it is missing;
- every system call of another ABI (i386 through `int 0x80`, x32), where the numbers differ;
- `memfd_create`, `shmget` and `msgget`: memory that no process's resident set shows (a memfd
  written and never mapped, a System V segment or message queue of the sandbox's own IPC
  namespace, written and left). Where no cgroup holds the runner (the lent GPU hosts have none),
  the kernel's OOM killer chooses by resident set, and would take the judge or the baseline's
  runner for it: an infra_error, never scored, redone as often as a failing candidate likes. With
  these refused, what a candidate holds is its resident set, a file of the sized tmpfs, or a file
  under the file-size cap, and the OOM killer's choice is the candidate. The runner itself creates
  none (the judge makes every shared buffer and hands its fd over);
- `sched_setaffinity`: the judge starts a runner off its own cores (isolation.judge_cores), and no
  thread of the runner's may move back onto them: however many threads a candidate keeps busy, the
  judge's processes that must keep up with the device keep their cores. No library the runner loads
  needs to pin its threads (an OpenMP runtime told to bind warns and goes on).

On the CPU device (with one thread for PyTorch's and OpenBLAS's pools, OMP_NUM_THREADS=1, the
judge's default there) a new thread is refused as well: an honest runner there is one thread from
its kernel's load on (measured: every call and timed batch of an honest evaluation), and a thread
the candidate starts (at import, a `logging.handlers.QueueListener`'s) computes where the runner's
dispatch watch, a mode of the calling thread, does not look (red team, session 27: correct and
unflagged on the CPU before). On a GPU, runtimes start threads of their own (CUDA's, CUPTI's), and
the device trace sees work from every thread.

What a vfork or exec starts is another program: the judge's process watch (judge.ProcessWatch)
sees it from outside and flags any that is not a known toolchain program. x86-64 Linux only; on
anything else `install` returns why not and the judge's watch is the only line.
Standard library only: it runs in the runner before torch is imported.
"""
from __future__ import annotations

import ctypes
import errno
import platform
import struct
import sys

# <linux/seccomp.h>, <linux/filter.h>, <linux/audit.h>, <linux/sched.h>
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1     # every thread of the process, not only the caller
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
NR_CLONE, NR_FORK, NR_VFORK, NR_CLONE3, NR_SECCOMP = 56, 57, 58, 435, 317
NR_SHMGET, NR_MSGGET, NR_MEMFD_CREATE, NR_SCHED_SETAFFINITY = 29, 68, 319, 203
CLONE_VM, CLONE_VFORK, CLONE_THREAD = 0x100, 0x4000, 0x10000

BPF_LD_W_ABS = 0x20       # BPF_LD | BPF_W | BPF_ABS
BPF_JEQ_K = 0x15          # BPF_JMP | BPF_JEQ | BPF_K
BPF_JGE_K = 0x35          # BPF_JMP | BPF_JGE | BPF_K
BPF_JSET_K = 0x45         # BPF_JMP | BPF_JSET | BPF_K
BPF_AND_K = 0x54          # BPF_ALU | BPF_AND | BPF_K
BPF_RET_K = 0x06          # BPF_RET | BPF_K

OFFSET_NR, OFFSET_ARCH, OFFSET_ARG0 = 0, 4, 16   # struct seccomp_data (arg0's low word: little endian)


def _program(threads: bool = True) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) instructions; jumps count instructions skipped. Without
    `threads`, a new thread is refused too (EAGAIN: pthread_create's answer at a limit)."""
    deny = SECCOMP_RET_ERRNO | errno.EPERM
    no_thread = SECCOMP_RET_ERRNO | errno.EAGAIN
    nosys = SECCOMP_RET_ERRNO | errno.ENOSYS
    allow = SECCOMP_RET_ALLOW
    return [
        (BPF_LD_W_ABS, 0, 0, OFFSET_ARCH),
        (BPF_JEQ_K, 1, 0, AUDIT_ARCH_X86_64),       # 1: another ABI
        (BPF_RET_K, 0, 0, deny),
        (BPF_LD_W_ABS, 0, 0, OFFSET_NR),            # 3
        (BPF_JGE_K, 0, 1, X32_SYSCALL_BIT),         # 4: the x32 ABI
        (BPF_RET_K, 0, 0, deny),
        (BPF_JEQ_K, 0, 1, NR_MEMFD_CREATE),         # 6: memory no resident set shows
        (BPF_RET_K, 0, 0, deny),
        (BPF_JEQ_K, 0, 1, NR_SHMGET),               # 8
        (BPF_RET_K, 0, 0, deny),
        (BPF_JEQ_K, 0, 1, NR_MSGGET),               # 10
        (BPF_RET_K, 0, 0, deny),
        (BPF_JEQ_K, 0, 1, NR_SCHED_SETAFFINITY),    # 12: onto the judge's cores
        (BPF_RET_K, 0, 0, deny),
        (BPF_JEQ_K, 0, 1, NR_FORK),                 # 14
        (BPF_RET_K, 0, 0, deny),
        (BPF_JEQ_K, 0, 1, NR_CLONE3),               # 16
        (BPF_RET_K, 0, 0, nosys),
        (BPF_JEQ_K, 0, 6, NR_CLONE),                # 18: anything else is allowed (-> 25)
        (BPF_LD_W_ABS, 0, 0, OFFSET_ARG0),          # 19: clone's flags
        (BPF_JSET_K, 3, 0, CLONE_THREAD),           # 20: a thread (-> 24)
        (BPF_AND_K, 0, 0, CLONE_VM | CLONE_VFORK),  # 21
        (BPF_JEQ_K, 2, 0, CLONE_VM | CLONE_VFORK),  # 22: a vfork (-> 25)
        (BPF_RET_K, 0, 0, deny),                    # 23: a copy of the process
        (BPF_RET_K, 0, 0, allow if threads else no_thread),   # 24: a thread
        (BPF_RET_K, 0, 0, allow),                   # 25
    ]


def install(threads: bool = True) -> str | None:
    """Put the filter on every thread of this process (and so on everything it starts). None when
    it holds, else why it could not be installed (the caller notes it; the judge's process watch
    still looks). Called once a kernel's compile is done and before its code is loaded: nvcc and a
    shell's pipelines fork, and they run before any of the kernel's code does. `threads` False:
    no new thread either (the CPU device, module docstring)."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return f"no fork filter on {sys.platform}/{platform.machine()} (x86-64 Linux only)"
    code = b"".join(struct.pack("<HBBI", *ins) for ins in _program(threads))
    count = len(code) // 8
    buffer = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = SockFprog(count, ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return f"no fork filter: prctl(NO_NEW_PRIVS) failed (errno {ctypes.get_errno()})"
    libc.syscall.restype = ctypes.c_long
    if libc.syscall(ctypes.c_long(NR_SECCOMP), ctypes.c_long(SECCOMP_SET_MODE_FILTER),
                    ctypes.c_long(SECCOMP_FILTER_FLAG_TSYNC),
                    ctypes.byref(prog)) != 0:
        return f"no fork filter: seccomp() failed (errno {ctypes.get_errno()})"
    return None
