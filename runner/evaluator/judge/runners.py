"""A kernel runner seen from the judge: its process, its sandbox's processes (/proc), its requests
and replies (protocol.py), its death. The judge never loads what the runner holds."""
from __future__ import annotations

import math
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from runner.evaluator import arena, devtrace, protocol, timing
from runner.evaluator.isolation import Isolation, prepare_workdir
from runner.evaluator.judge import policy
from runner.evaluator.judge.procwatch import ProcessWatch
from runner.evaluator.protocol import ProtocolError
from runner.sandbox.base import ResourceLimits, parse_size
from runner.sandbox.cgroups import ExecGroup, own_memory_limit
from runner.sandbox.hostfs import DiskWatch, remove_tree


class RunnerFailed(Exception):
    """A kernel runner died, hung or broke the protocol."""



# -- a kernel runner, seen from the judge -----------------------------------------------------------
def _pid_ns(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _uid_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _proc_state(stat_path: str) -> str | None:
    """The one-letter state in a /proc .../stat file (R, S, T, Z, ...); None when it is gone."""
    try:
        with open(stat_path) as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def _running(pid: int) -> bool:
    """Whether any thread of `pid` is neither stopped nor dead (a vanished process is not running)."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in threads:
        state = _proc_state(f"/proc/{pid}/task/{tid}/stat")
        if state is not None and state not in _STOPPED:
            return True
    return False


_STOPPED = ("T", "t", "Z", "X", "x")
_ENDED = ("Z", "X", "x")
_HAS_CHILDREN_LISTS = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def _descend(root: int, visit) -> set[int]:
    """`root` and its descendants, each visited once as the walk reaches it: `visit(pid)` returns
    the pids of its children (its threads' /proc/<pid>/task/<tid>/children lists)."""
    stack, seen = [root], set()
    while stack:
        pid = stack.pop()
        if pid not in seen:
            seen.add(pid)
            stack.extend(visit(pid))
    return seen


def _stop_tree(root: int, ended_before: frozenset = frozenset()) -> tuple[bool, frozenset]:
    """SIGSTOP `root` and every descendant, each signalled before its children are read, as the walk
    goes. (clean, the processes found ended): clean when every thread found was already stopped,
    nothing vanished mid-look, and every ended (zombie) process found had been found ended by the
    look before (`ended_before`). A process that ends hands its children to the sandbox's init:
    when that happens between the walk reading init's list and reaching the process, the look finds
    it a zombie with no children and misses them; a process that newly ended means another look."""
    clean, ended = True, set()

    def visit(pid: int) -> list[int]:
        nonlocal clean
        children = []
        try:
            os.kill(pid, signal.SIGSTOP)
            tids = os.listdir(f"/proc/{pid}/task")
        except (ProcessLookupError, PermissionError, OSError):
            clean = False                  # vanished under the look: the sandbox is still changing
            return children
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as fh:
                    state = fh.read().rsplit(")", 1)[1].split()[0]
                with open(f"/proc/{pid}/task/{tid}/children") as fh:
                    children += [int(k) for k in fh.read().split()]
            except (OSError, IndexError, ValueError):
                clean = False
                continue
            if state not in _STOPPED:
                clean = False
            elif state in _ENDED:
                ended.add(pid)
                if pid not in ended_before:
                    clean = False
        return children
    _descend(root, visit)
    return clean, frozenset(ended)


def _tree(root: int) -> set[int]:
    """`root` and its descendants (what vanishes is skipped). It signals nothing: read whole while
    the tree is stopped (thaw), it is exact."""
    def visit(pid: int) -> list[int]:
        children = []
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/children") as fh:
                    children += [int(k) for k in fh.read().split()]
        except (OSError, ValueError):
            pass
        return children
    return _descend(root, visit)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _copy_if_absent(source: str, target: str) -> None:
    """A file copied only where the target has none: a runner's own cache files may be loaded in it
    (the stand-in makes its clock, and with it the launch gate's launcher stubs, at its build), and
    a copy over one rewrites, in place, a shared object mapped into a live process."""
    if not os.path.lexists(target):
        shutil.copy2(source, target)


class RunnerClient:
    def __init__(self, isolation: Isolation, tree: Path, *, language: str, entry: str, symbol: str,
                 device: str, role: str, flags=(), probe: dict | None = None, trace_library: Path | None = None,
                 report_ops: bool = False, stand_in: bool = False, own_blocks: bool = False):
        self.role = role
        # setpriv mode: each role its own uid, so the judge can tell the candidate's processes apart.
        # A stand-in (a second runner of the baseline's code: Judge.clean_room) shares the baseline's
        # uid, so its processes are its own descendants: stopping it must not stop the baseline.
        self.uid = isolation.runner_uid(role) if isolation.mode == "setpriv" and not stand_in else None
        self.stand_in = stand_in
        self.workdir = Path(tempfile.mkdtemp(prefix=f"gauntlet-runner-{role}-"))
        shutil.copytree(tree, self.workdir / "kernel")
        probe_args = []
        if probe is not None:       # the baseline's files beside the kernel's (Judge.process_offset)
            shutil.copytree(probe["tree"], self.workdir / "probe")
            probe_args = ["--probe-tree", str(self.workdir / "probe"), "--probe-language", probe["language"],
                          "--probe-entry", probe["entry"], "--probe-symbol", probe["symbol"],
                          *[a for f in probe["flags"] for a in ("--probe-flag", f)]]
        prepare_workdir(self.workdir, isolation.mode, isolation.runner_uid(role))
        self.log_path = self.workdir / "runner.log"
        judge_end, runner_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = [sys.executable, "-m", "runner.evaluator.kernel_runner", "--fd", str(runner_end.fileno()),
                "--tree", str(self.workdir / "kernel"), "--language", language, "--entry", entry,
                "--symbol", symbol, "--device", device, "--role", role,
                *[a for f in flags for a in ("--flag", f)], *(["--report-ops"] if report_ops else []),
                *(["--own-blocks"] if own_blocks else []),
                *probe_args, *isolation.runner_args()]
        # The device trace (devtrace.py): the driver loads the judge's library into the runner at
        # CUDA's first initialisation, and it writes to a pipe whose reading end stays here.
        self.trace = devtrace.Reader() if trace_library is not None else None
        self.trace_batches: list[tuple[list, int, list]] = []    # (records, calls, samples) per timed batch
        self.empty_ms = 0.0        # the runner's empty event pair, as its clock calibrated it (devtrace.clock_offset)
        self.calls_left: list[list] = []     # correctness calls no timed config's reading took (evaluation.py)
        self.calls_made = 0                  # correctness calls the runner answered, each bracketed in the trace
        env = isolation.env(self.workdir)
        pass_fds = [runner_end.fileno()]
        if self.trace is not None:
            env.update(devtrace.runner_env(trace_library, self.trace.write_fd))
            pass_fds.append(self.trace.write_fd)
        # the candidate's processes share a memory and a pid cap where cgroups are writable (the
        # baseline runs the task's own code): its exhaustion is its own OOM kill, never the judge's
        self.group = runner_group(self.workdir.name) if role == "candidate" else None
        log = open(self.log_path, "wb")
        try:
            self.proc = subprocess.Popen([*(self.group.prefix() if self.group else []),
                                          *isolation.wrap(argv, self.workdir, role)], env=env,
                                         cwd=str(self.workdir), stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, pass_fds=tuple(pass_fds),
                                         start_new_session=True)
        finally:
            log.close()
            runner_end.close()
            if self.trace is not None:
                self.trace.child_started()
        self.sock = judge_end
        self.last_digest_seed = 0
        # The candidate's sandbox watched from outside for the runner's whole life (procwatch.py):
        # a worker started at import, at build or in a call is a finding however the runner's own
        # Python was changed. The baseline runs the task's own code: nothing to watch there.
        self.watch = None
        self.loaded = False        # its own kernel built and loaded (_build)
        self.outside_findings: list[str] = []
        if role == "candidate":
            own_uid = isolation.runner_uid(role) if isolation.mode in ("setpriv", "unshare") and os.geteuid() == 0 else None
            self.watch = ProcessWatch(self.proc.pid, str(self.workdir), members=self.members if self.uid is not None else None,
                                      runner_uid=own_uid).start()
        self.op_seconds: dict[str, float] = defaultdict(float)   # as the runner reports them (a record only)
        self.guard = RunnerGuard(self) if role == "candidate" else None

    def request(self, message: dict, fds=()) -> dict:
        """Send one command, wait for its reply (bounded), check its shape."""
        if self.proc.poll() is not None:
            raise RunnerFailed(f"the {self.role} runner exited with {self.proc.returncode}{self._tail()}")
        self.sock.settimeout(policy.TIMEOUTS_S.get(message["op"], 300.0))
        try:
            protocol.send(self.sock, message, list(fds))
            reply, got_fds = protocol.receive(self.sock)
        except socket.timeout:
            self.kill()
            raise RunnerFailed(f"the {self.role} runner did not answer {message['op']!r} within "
                               f"{policy.TIMEOUTS_S.get(message['op'], 300.0):.0f} s") from None
        except (ProtocolError, OSError) as exc:
            ended = self._how_it_ended()
            self.kill()
            raise RunnerFailed(f"the {self.role} runner broke off ({exc}{ended}){self._tail()}") from None
        for fd in got_fds:                  # the runner sends no descriptors
            os.close(fd)
        if not isinstance(reply.get("ok"), bool):
            raise RunnerFailed(f"the {self.role} runner sent a malformed reply")
        runner_ms = reply.get("runner_ms")          # diagnostics only: a runner's own word, bounded
        if isinstance(runner_ms, (int, float)) and 0 <= runner_ms < 1e9:
            self.op_seconds[message["op"]] += float(runner_ms) / 1000.0
        for key, phase in (("clock_ms", "clock made"), ("trace_flush_ms", "trace flush")):   # parts of the op
            part = reply.get(key)
            if isinstance(part, (int, float)) and 0 <= part < 1e9:
                self.op_seconds[phase] += float(part) / 1000.0
        first = reply.get("first_batch_ms")         # the parts of the runner's first timed batch, once
        if isinstance(first, dict) and not any(k.startswith("first batch: ") for k in self.op_seconds):
            for part in protocol.FIRST_BATCH_PARTS:
                value = first.get(part)
                if isinstance(value, (int, float)) and 0 <= value < 1e9:
                    self.op_seconds[f"first batch: {part}"] += float(value) / 1000.0
        empty_ms = reply.get("empty_ms")            # read for the baseline's runner only (trusted code)
        if isinstance(empty_ms, (int, float)) and 0 <= empty_ms < 1.0:
            self.empty_ms = float(empty_ms)
        if message["op"] == "call" and reply["ok"] and self.trace is not None:
            self.calls_made += len(message.get("patterns", ()))   # each bracketed by the runner (kernel_runner.call)
        if message["op"] == "time" and self.trace is not None and not self.trace.dead:
            # every timed batch's records, whoever asked for it: the batch markers pair in order
            samples = reply.get("samples") if reply["ok"] and isinstance(reply.get("samples"), list) else []
            waited = time.perf_counter()
            records = self.trace.take_batch()
            # the harness floor's calls launch nothing; the DRAM witness's unflushed batch has no flush
            # to find (both untimed, their outputs checked): no evidence for the timed calls' rules
            if not message.get("empty") and not message.get("unflushed"):
                self.trace_batches.append((records, int(message["n"]), samples))
            self.op_seconds["judge: trace wait"] += time.perf_counter() - waited
        return reply

    # -- the runner's processes, seen from the judge --------------------------------------------
    def members(self) -> list[int]:
        """Every process of this runner's sandbox, a double-forked daemon too: the processes of its
        pid namespace (bwrap, unshare), or of its uid (setpriv), or its descendants (unisolated)."""
        table = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as fh:
                        ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
                    table[int(entry)] = ppid
                except (OSError, ValueError, IndexError):
                    pass
        family, grew = {self.proc.pid}, True
        while grew:
            grew = False
            for pid, ppid in table.items():
                if ppid in family and pid not in family:
                    family.add(pid)
                    grew = True
        if self.uid is not None:                         # setpriv: the runner's own uid
            return [pid for pid in table if _uid_of(pid) == self.uid]
        own = _pid_ns(os.getpid())
        spaces = {_pid_ns(pid) for pid in family} - {own, None}
        return sorted(family | {pid for pid in table if _pid_ns(pid) in spaces})

    def signal_all(self, sig: int) -> None:
        for pid in self.members():
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def freeze(self) -> None:
        """Every process of this runner's sandbox stopped, as a look at each of their threads sees it
        after the signal. A pass that signals what it listed misses a process that forks and exits in
        a loop (its pid is another by the time the signal goes out), and a look that skips what
        vanished under it can miss it too; so in the namespace modes the judge walks the sandbox's
        tree through the kernel's per-thread children lists from the runner's root, stopping each
        process as it finds it, and counts a look clean only when every process it found was already
        stopped, none vanished and none had newly ended (a stopped process neither forks nor exits;
        one that just ended may have handed children to init behind the walk). When policy.FREEZE_S is not
        enough, the sandbox is killed whole (its pid namespace dies with it) and RunnerFailed says
        so: nothing of it runs beside the baseline."""
        deadline = time.monotonic() + policy.FREEZE_S
        ended = frozenset()
        while True:
            if self.uid is None and _HAS_CHILDREN_LISTS:
                clean, ended = _stop_tree(self.proc.pid, ended)
            else:                          # setpriv (by uid) or no children lists: by /proc scan
                self.signal_all(signal.SIGSTOP)
                clean = not any(_running(pid) for pid in self.members())
            if clean:
                return
            if time.monotonic() > deadline:
                self.kill()
                raise RunnerFailed(f"the {self.role} runner's sandbox kept processes running that SIGSTOP "
                                   f"did not hold for {policy.FREEZE_S:.0f} s (a process that keeps changing its "
                                   "pid); the sandbox was killed")

    def thaw(self) -> None:
        """Every process freeze stopped, resumed. Where freeze walks the tree (the namespace
        modes), so does the thaw: whole first, while all of it is still stopped (none can fork,
        exit or be reparented under the walk), then signalled. It scanned every process of the
        host (members), and stopping and resuming the candidate around each baseline batch cost
        5-9 ms a batch on an H200 (results/gpu-2026-11-30-s15.md); a process a walk missed would
        only stay stopped."""
        if self.uid is None and _HAS_CHILDREN_LISTS:
            for pid in _tree(self.proc.pid):
                try:
                    os.kill(pid, signal.SIGCONT)
                except (ProcessLookupError, PermissionError):
                    pass
        else:
            self.signal_all(signal.SIGCONT)

    def take_compiled(self, other: "RunnerClient") -> None:
        """Another trusted runner's Triton cache (TRITON_CACHE_DIR: compiled kernels and the launcher
        stub) copied into this one's, as this runner's own files: a stand-in (Judge.clean_room) built
        from the same source then compiles nothing in its warm-up (on an H200, 3.4 s of a 25 s
        evaluation before, results/gpu-2026-11-30.md). Only a baseline's runner is ever copied."""
        source, target = other.workdir / ".triton", self.workdir / ".triton"
        if not source.is_dir() or source.is_symlink():
            return
        shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True, copy_function=_copy_if_absent)
        if os.geteuid() == 0:
            owner = os.stat(self.workdir)
            for path in [target, *target.rglob("*")]:
                os.lchown(path, owner.st_uid, owner.st_gid)

    def _how_it_ended(self, wait_s: float = 1.0) -> str:
        """How the runner's process ended, when it did within `wait_s` of its socket breaking (the
        broken socket can come first): a signal's name says a crash (SIGSEGV, SIGBUS) where its log
        has no Python traceback to show."""
        try:
            code = self.proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            return ""
        if self.guard is not None and self.guard.reason:
            return f"; the judge killed it: {self.guard.reason}"
        if code < 0:
            return f"; its process was killed by {_signal_name(-code)}"
        if code > 128:          # a sandbox's wrapper (bwrap) passes its child's death by signal on so
            return f"; its process exited with {code}, 128 + {_signal_name(code - 128)}"
        return f"; its process exited with {code}"

    def _tail(self) -> str:
        """The last bytes of the runner's log. The log lies in the runner's writable work dir, where
        the candidate can swap it for a link to a file it cannot read (the judge would quote it), a
        FIFO (the judge would block on it) or something endless (/dev/zero): it is opened without
        following links or blocking, read only when it is a regular file, and from its end."""
        try:
            fd = os.open(self.log_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return ""
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return ""
            span = 16 * policy.LOG_TAIL_BYTES
            text = os.pread(fd, span, max(0, info.st_size - span)).decode(errors="replace")
        except OSError:
            return ""
        finally:
            os.close(fd)
        # A crash's stacks (faulthandler) run innermost frame first, then out to runpy, then a list
        # of extension modules: the crash site is at their start, not the log's end. What a library
        # wrote just before it (a C++ exception's `terminate called after throwing ... what(): ...`)
        # says why: its last lines come too.
        crash = text.rfind("Fatal Python error")
        if crash >= 0:
            # a C++ exception's message comes before its backtrace (c10::Error's runs ~25 frames)
            why = text.rfind("what():", 0, crash)
            message = text[why:crash].splitlines()[:2] if why >= 0 else []
            # the C++ frames say little (the last ones are libc's) and would crowd out the Python
            # stack that follows, which names the runner's line that let the memory go
            before = [line for line in text[max(0, crash - policy.LOG_TAIL_BYTES // 2):crash].splitlines()
                      if not line.startswith("frame #")][-4:]
            text = "\n".join([*message, *before, text[crash:crash + policy.LOG_TAIL_BYTES]]).strip()
        else:
            text = text[-policy.LOG_TAIL_BYTES:].strip()
        return f": {text}" if text else ""

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        if self.watch is not None:
            filtered = self.watch.runner_filtered()
            self.outside_findings = self.watch.stop()
            if filtered is False and self.loaded:
                self.outside_findings.append("note: the candidate's runner ran without its fork filter (nofork.py): "
                                             "only the judge's process watch looked for other processes")
            self.watch = None
        if self.proc.poll() is None:
            try:
                self.sock.settimeout(policy.TIMEOUTS_S["exit"])
                protocol.send(self.sock, {"op": "exit"})
                protocol.receive(self.sock)
            except (ProtocolError, OSError):
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        if self.guard is not None:
            self.guard.stop()
        self.kill()             # the process group, whatever is left of it
        if self.group is not None:
            self.group.close()  # and whatever of its cgroup is left (a process that left the group)
        self.sock.close()
        if self.trace is not None:
            self.trace.join()
            if self.role == "candidate":      # markers first: take_calls consumes what is left
                self.outside_findings += self.trace.after_exit(self.calls_made)
            self.calls_left = self.trace.take_calls()
        remove_tree(self.workdir, ignore_errors=True)


def interference(beside_ms: float, clean_ms: float, kind: str, clean_rounds=(), beside_round_count: int = 0) -> str | None:
    """The finding when the baseline ran slower beside the candidate than in the clean room by more
    than policy.CLEAN_ROOM_SLACK and than the two figures' own uncertainty: a flag on a GPU, a note
    on the CPU (times not meaningful there). Each figure is the median of its round figures; how
    widely one round's figure spreads is read from the clean room's rounds alone (the candidate's
    processes are gone by then: it cannot widen them to buy itself room), and the difference of the
    two medians gets CLEAN_ROOM_Z standard errors of that spread."""
    rel, abs_ms = policy.CLEAN_ROOM_SLACK[kind]
    noise = 0.0
    if len(clean_rounds) > 1 and beside_round_count:
        noise = policy.CLEAN_ROOM_Z * timing.median_standard_error(list(clean_rounds)) \
            * math.sqrt(1 + len(clean_rounds) / beside_round_count)
    if not beside_ms > clean_ms * (1 + rel) + abs_ms + noise:
        return None
    word = "note: baseline_interference" if kind == "cpu" else "baseline_interference"
    spread = f" (the two figures' uncertainty: {noise:.3g} ms)" if noise >= 0.0005 else ""
    return (f"{word}: the baseline took {beside_ms:.4g} ms per call beside the candidate and "
            f"{clean_ms:.4g} ms once the candidate's processes were gone{spread}: work the candidate "
            "left running slowed the baseline")


def placement_for(layout: "arena.Layout | None", rng) -> dict:
    """What a timed batch is told of where its buffers go: a new draw in the config's arena, or
    nothing (each runner places its own)."""
    return {"placement": layout.draw(rng)} if layout is not None else {}


RUNNER_MEMORY_ENV, RUNNER_PIDS = "GAUNTLET_RUNNER_MEMORY", 4096


def runner_limits() -> ResourceLimits:
    """The candidate runner's caps: half the memory the judge has (the host's, or its own cgroup's
    limit where lower: the docker backend's container; GAUNTLET_RUNNER_MEMORY), tmpfs pages
    included, no swap; 4096 tasks (threads count); every core (its time is measured, never
    throttled)."""
    try:
        with open("/proc/meminfo") as fh:
            total = int(next(line for line in fh if line.startswith("MemTotal:")).split()[1]) * 1024
    except (OSError, StopIteration, ValueError, IndexError):
        total = 16 << 30
    total = min(total, own_memory_limit() or total)
    memory = os.environ.get(RUNNER_MEMORY_ENV)
    return ResourceLimits(memory=parse_size(memory) if memory else total // 2, cpus=float(os.cpu_count() or 1),
                          pids=RUNNER_PIDS)


def runner_group(token: str) -> ExecGroup:
    """The candidate runner's cgroup (ExecGroup.enforced says what holds: "none: why" where cgroups
    are not writable, and then only the file, tmpfs and OOM-order limits of isolation.py do)."""
    return ExecGroup(token, runner_limits())


RUNNER_DISK_MAX_ENV, RUNNER_DISK_MAX, RUNNER_DISK_FILES = "GAUNTLET_RUNNER_DISK_MAX", "16g", 100_000


class RunnerGuard:
    """The candidate's runner watched from a thread of the judge's (every PERIOD_S), and killed
    (its failure, config by config) when past a cap:
    - its work dir: bytes in its tree and in deleted files its processes hold open, or entries, or
      the filesystem nearly full (before the disk the judge writes its verdict to is full: an
      infra_error, not scored and redone). Each file is capped by RLIMIT_FSIZE (isolation.py); this
      bounds their number and sum;
    - its memory: the resident memory no file holds (anonymous and shared-memory pages) of every
      process of its sandbox past the runner's memory cap (runner_limits). Where a cgroup holds
      the runner the kernel enforces the same cap first; where none does (the lent GPU hosts, the docker backend's
      container) this is the cap, and without it the OOM killer, choosing by resident set, takes
      the judge or the baseline's runner when the candidate's memory is spread over processes each
      smaller than theirs. Memory no resident set shows cannot be made in a runner (nofork.py)."""

    PERIOD_S = 0.25

    def __init__(self, runner: "RunnerClient"):
        self.runner, self.reason = runner, None
        size = parse_size(os.environ.get(RUNNER_DISK_MAX_ENV, RUNNER_DISK_MAX))
        self.watch = DiskWatch(runner.workdir, size, RUNNER_DISK_FILES, names=("its work dir", "the runner"))
        self.memory_cap = runner.group.limits.memory     # the cap its cgroup has, where one holds it
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="gauntlet-runner-guard", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.PERIOD_S):
            if self.runner.proc.poll() is not None:
                return
            try:
                members = self.runner.members()
            except OSError:
                continue
            why = None
            for check in (self.watch.check, self._memory):   # each on its own: one that cannot read
                try:                                         # this look never blinds the other
                    why = check(members)
                except OSError:
                    continue
                if why:
                    break
            if why:
                self.reason = why
                self.runner.kill()
                return

    def _memory(self, members) -> str | None:
        held = resident_memory(members)
        if held > self.memory_cap:
            return (f"its processes' memory exceeded its limit ({held >> 20} MiB resident, limit "
                    f"{self.memory_cap >> 20} MiB: {RUNNER_MEMORY_ENV})")
        return None

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def resident_memory(pids) -> int:
    """Bytes of memory resident in the processes `pids` that no file on disk holds: anonymous pages
    and shared-memory pages (RssAnon + RssShmem of /proc/PID/status; pinned host memory, which
    cudaHostAlloc maps as shared anonymous memory, is the latter: results/gpu-2026-11-30.md). A
    buffer the judge hands over and the runner maps is counted too: the config's own tensors."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith(("RssAnon:", "RssShmem:")):
                        total += int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            pass
    return total


def close_all(runners: list[RunnerClient]) -> None:
    """Every runner closed at once; each waits for its process to end."""
    with ThreadPoolExecutor(max_workers=max(1, len(runners))) as pool:
        list(pool.map(RunnerClient.close, runners))


def wait_gone(pids, timeout_s: float = 10.0) -> None:
    """Until none of `pids` is alive (a zombie counts as gone: its memory and GPU contexts are)."""
    deadline = time.monotonic() + timeout_s
    alive = list(pids)
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in alive if _proc_state(f"/proc/{pid}/stat") not in (None, "Z")]
        if alive:
            time.sleep(0.02)
