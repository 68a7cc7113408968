"""The candidate's sandbox seen from outside: which processes run in it (judge side).

A kernel runner is one Python process. Anything else that runs in the candidate's sandbox while its
kernel is served is either a compiler the runner started (nvcc and what it runs, Triton's ptxas and
the C compiler it builds its launcher with) or work the candidate moved where no watch of the
runner's looks and no timed span reaches: a `torch.utils.data.DataLoader` worker, a
`multiprocessing` pool, a program it compiled or wrote. The runner cannot fork a copy of itself
(nofork.py); what it can still start is another program, and this watch, a thread of the judge's
reading /proc, sees each one: it is not in the candidate's process, so nothing the candidate does
to its own Python reaches it.

What is allowed: the sandbox's wrappers (bwrap, unshare, setpriv), the runner itself (the first
process running the judge's own interpreter), and the system's programs (the file at that path
outside the sandbox, not in the runner's work dir, not the runner's own: a program named `ptxas`
in the sandbox's /tmp is not the toolchain's) unless they are interpreters or map a device runtime.
Everything else, a second Python included, is a finding.
A look every PERIOD_S: a program that starts Python takes far longer than that to do anything;
a second Python is named once it has been one for GRACE_S (a child between fork and exec is one
for microseconds).
"""
from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager

PERIOD_S = 0.01
GRACE_S = 0.05
WRAPPERS = ("bwrap", "unshare", "setpriv")
# Programs that run code they are given: a worker in any of them can compute. Matched on the name's
# stem ("python3.12", "perl5.36" and "x86_64-linux-gnu-python3" are pythons and perls).
INTERPRETERS = ("python", "pypy", "perl", "ruby", "node", "nodejs", "deno", "bun", "lua", "luajit", "php",
                "tclsh", "wish", "rscript", "julia", "java", "awk", "gawk", "mawk", "nawk", "busybox", "bc", "dc",
                "octave", "guile", "racket", "sbcl", "ghci", "swipl", "gdb", "gdbserver", "expect", "jshell")
# A process other than the runner that maps one of these can run work on the device.
DEVICE_LIBRARIES = ("libcuda.so", "libcudart.so", "libtorch_cuda.so", "libcublas", "libamdhip64.so",
                    "libhsa-runtime64.so", "libtorch_hip.so", "libnvrtc", "libOpenCL.so")


def _identity(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _children(pid: int) -> list[int]:
    found = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                found.extend(int(k) for k in fh.read().split())
        except (OSError, ValueError):
            pass
    return found


def _interpreter(name: str) -> bool:
    stem = name.lower().rsplit("-", 1)[-1] if name.lower().startswith(("x86_64-", "aarch64-")) else name.lower()
    stem = stem.rstrip("0123456789.")
    return stem in INTERPRETERS or stem.startswith(("python", "pypy", "perl", "ruby", "lua", "php"))


def _maps_device(pid: int) -> str | None:
    """The first device runtime library `pid` has mapped (None: none, or it is gone)."""
    try:
        with open(f"/proc/{pid}/maps") as fh:
            for line in fh:
                base = line.rsplit("/", 1)[-1]
                for lib in DEVICE_LIBRARIES:
                    if base.startswith(lib):
                        return lib
    except OSError:
        pass
    return None


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] in ("Z", "X", "x")
    except (OSError, IndexError):
        return True          # gone: nothing runs


class ProcessWatch:
    """Samples the process tree under `root` (or, where `members` is given, that list: the setpriv
    mode's processes are found by uid) from a thread of the judge's until `stop`."""

    def __init__(self, root: int, workdir: str, members: Callable[[], list[int]] | None = None,
                 runner_uid: int | None = None, period_s: float = PERIOD_S):
        self.root, self.workdir, self.members, self.period_s = root, os.path.realpath(workdir), members, period_s
        self.runner_uid = runner_uid     # where the runner has a uid of its own (unshare as root, setpriv)
        self.interpreter = _identity(sys.executable)
        self.wrappers = {ident for name in WRAPPERS if (path := shutil.which(name)) and (ident := _identity(path))}
        self.findings: list[str] = []
        self.looks = 0
        self._seen: set[tuple[int, str]] = set()
        self._pending: dict[tuple[int, str], float] = {}
        self.blind = False           # the judge may not read the sandbox's programs (judge)
        self._building = 0
        self._runner: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "ProcessWatch":
        self._thread = threading.Thread(target=self._loop, name="gauntlet-process-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> list[str]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.look()
        if self.blind and self._runner is None:
            return ["note: the process watch could not read the programs in the candidate's sandbox (no ptrace "
                    "access to the runner's uid): it judged none; the runner's fork filter held alone"]
        return list(self.findings)

    def runner_filtered(self) -> bool | None:
        """Whether the runner process is under a seccomp filter, as the kernel reports it (None:
        the runner was not found, or is gone)."""
        if self._runner is None:
            return None
        try:
            with open(f"/proc/{self._runner}/status") as fh:
                for line in fh:
                    if line.startswith("Seccomp:"):
                        return line.split()[1] == "2"
        except (OSError, IndexError):
            return None
        return None

    def _loop(self) -> None:
        while not self._stop.wait(self.period_s):
            self.look()

    def _tree(self) -> list[int]:
        if self.members is not None:
            return self.members()
        order, stack, seen = [], [self.root], set()
        while stack:
            pid = stack.pop(0)
            if pid in seen:
                continue
            seen.add(pid)
            order.append(pid)
            stack.extend(_children(pid))
        return order

    @contextmanager
    def building(self):
        """While the runner builds, compilers run whatever their wrappers are written in (hipcc is a
        Perl script on some ROCm releases, a Python shim in bench/hip_shim): nothing is judged. No
        kernel exists to compute for yet; a worker the kernel's import started is still there when
        the build replies, and judged then."""
        self._building += 1
        try:
            yield
        finally:
            self._building -= 1

    def look(self) -> None:
        """One look at every process of the sandbox; each foreign one is a finding, once."""
        if self._building:
            return
        self.looks += 1
        for pid in self._tree():
            if pid == self._runner or _zombie(pid):
                continue
            verdict = self.judge(pid)
            if verdict is None:
                continue
            if verdict.startswith(("a second Python", "a process the judge cannot", "a process that hid")):
                # A child between its fork and its exec still runs the interpreter (a compiler the
                # runner starts looks so for microseconds), and a process that is ending has no
                # program left to read: either, still so GRACE_S later, is what it says.
                first = self._pending.setdefault((pid, verdict), time.monotonic())
                if time.monotonic() - first < GRACE_S:
                    continue
            key = (pid, verdict)
            if key not in self._seen:
                self._seen.add(key)
                self.findings.append(f"foreign_process: {verdict} ran in the candidate's sandbox while its kernel "
                                     f"was served (pid {pid}): work outside the runner, where no watch or timed "
                                     "span reaches")

    def judge(self, pid: int) -> str | None:
        """None when `pid` may run in the sandbox, else what it is. The rule is by where a program
        comes from and what it can do, not by a list of compilers (Triton and nvcc run gcc, ld,
        `file` and more, by names that change from one distribution to the next): a program is the
        system's when its file is the one at that path outside the sandbox, not in the runner's work
        dir and not the runner's own; such a program may run unless it is an interpreter (it would
        run the candidate's code) or it maps a device runtime (it could compute on the GPU)."""
        try:
            path = os.readlink(f"/proc/{pid}/exe")
        except PermissionError:
            # A judge without ptrace access to the runner's uid (the docker backend's judge has no
            # CAP_SYS_PTRACE) cannot read even the runner: it says so once and judges nothing. Once
            # the runner was read, a process that hides its program (PR_SET_DUMPABLE 0) is a finding.
            if self._runner is None:
                self.blind = True
                return None
            return "a process that hid its program from the judge"
        except OSError:
            return "a process the judge cannot inspect"
        ident = _identity(f"/proc/{pid}/exe")
        if ident is None:             # ending under the look (the link read, the file no longer): as unreadable
            return "a process the judge cannot inspect"
        try:
            again = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            return "a process the judge cannot inspect"
        if again != path:
            # It ran another program between the two reads (gcc's child between its fork and its
            # exec of `as` is gcc, then `as`): the link and the identity may belong to different
            # programs, which read as a program from inside the sandbox. Judged at the next look,
            # as whatever it runs then (an H200 noop was flagged so, 2026-11-30).
            return None
        name = os.path.basename(path.removesuffix(" (deleted)"))
        if ident is not None and ident == self.interpreter:
            if self._runner is None:
                self._runner = pid            # the first Python down the tree is the runner itself
                return None
            return f"a second Python process ({name})"
        if ident is not None and ident in self.wrappers:
            return None
        if path.endswith(" (deleted)") or not self._outside_sandbox(path, ident):
            return f"the program {name!r}, from inside the sandbox"
        if _interpreter(name):
            return f"the interpreter {name!r}"
        device = _maps_device(pid)
        if device:
            return f"the program {name!r}, with {device} mapped"
        return None

    def _outside_sandbox(self, path: str, ident) -> bool:
        """`path` names a file that is the same outside the sandbox (bwrap's /tmp is the sandbox's
        own: a file written there is not at that path outside), is not in the runner's work dir, and
        is not the runner's own (where it has a uid of its own, a shared /tmp is writable to it)."""
        real = os.path.realpath(path)
        if ident is None or real.startswith(self.workdir + os.sep) or _identity(real) != ident:
            return False
        try:
            return self.runner_uid is None or os.stat(real).st_uid != self.runner_uid
        except OSError:
            return False
