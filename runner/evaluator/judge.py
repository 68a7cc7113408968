"""The judge: the trusted side of an evaluation, read top to bottom (docs/evaluation.md).

It reads the task (configs, hidden configs, tolerances), imports the task's reference, makes every
input from its own RNG, computes every expected output, compares, sets flags and writes the verdict.
It never imports, loads or executes candidate or baseline code: each kernel is built and called by
a kernel runner (kernel_runner.py), a process of its own in a sandbox of its own (isolation.py),
that holds only its kernel's files and the inputs it is handed (protocol.py).

0. before any kernel exists: task files hashed, configs read, reference imported and warmed up,
   static checks over the candidate's sources (text only);
1. compile gate   the baseline's and the candidate's runners build their kernels (on a GPU the
                  candidate's runner first builds the baseline, and the judge times it there
                  against the baseline's own runner: the process offset, Judge.process_offset);
2. correctness    per config: several seeds of fresh inputs, then outlier inputs; the candidate runs
                  twice per seed on fresh copies, outputs poisoned differently each time; both
                  results must match the reference and each other; type, dtype, shape and layout
                  are checked from what arrives, values by the judge alone;
3. performance    baseline and candidate repetitions in alternating rounds, first of each round
                  drawn at random (timing.py), each
                  repetition on the same inputs perturbed per element; every batch of repetitions
                  is timed by the judge's own clock; the runner commits to a digest of every
                  repetition's outputs, then the judge picks the repetitions it checks;
4. flags          the time bound (the candidate's time per call that its samples do not explain,
                  against the baseline's), excessive speedup, the runner's findings (evidence only),
                  static checks, task files changed.
"""
from __future__ import annotations

import importlib.util
import json
import math
import os
import random
import shutil
import signal
import socket
import stat
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager, nullcontext
from pathlib import Path

from runner.candidate import kernel_tree
from runner.tasks.configspace import SPLIT as SPLIT_DRAWN
from runner.results.result import MAX_SPEEDUP, ConfigResult, Evaluation
from runner.tasks.task import Config, Task
from runner.evaluator import arena, devtrace, protocol, roofline, static_checks, timing
from runner.evaluator.gpulock import exclusive_device
from runner.evaluator.isolation import Isolation, IsolationError, choose, prepare_workdir
from runner.evaluator.procwatch import ProcessWatch
from runner.evaluator.protocol import ProtocolError, Shared

CORRECTNESS_SEEDS = {"gpu": (0, 1, 2, 3, 4), "cpu": (0, 1)}   # KernelBench uses 5 trials
OUTLIER_SEEDS = {"gpu": (100, 101), "cpu": (100,)}
WARMUP_SEED, TIMING_SEED = 900, 2000
OUTLIER_FRACTION, OUTLIER_SCALE = 0.001, 50.0                  # KernelBench-X: 0.1 % of entries x50
ESCAPED_MIN_MS, ESCAPED_REL = 0.02, 0.5                         # gap excess that flags escaped work
# The runners' stream watch (a CUPTI profiler session, ~0.8 s per runner and config for a native
# kernel on an H100) runs in this many timed configs per evaluation, chosen at random by the judge;
# the device-sync gap and the time bound still look at every config.
WATCHED_CONFIGS = 2
# The clean-room baseline: SIGSTOP halts the candidate's processes while the baseline is timed, but
# not GPU work they queued before (another CUDA context of theirs keeps running, time-sliced with
# the baseline's, and makes the baseline look slow). So, once every candidate process is gone, the
# baseline is timed again on this many timed configs chosen at random; its time beside the candidate
# may exceed that by at most REL (+ ABS ms) before the evaluation is flagged. On the CPU, where times
# are not meaningful and a shared machine's load varies, it is a note with a wide margin.
CLEAN_ROOM_CONFIGS = 2
CLEAN_ROOM_SLACK = {"gpu": (0.05, 0.002), "cpu": (0.5, 1.0)}     # (REL, ABS ms)
# Off on the CPU: there it could only add a note (no GPU work outlives a stopped process, and times
# are not meaningful), for two more baseline calls (seconds each in the Triton interpreter: 15 s
# of a softmax evaluation's 264 s at load 12, issue 31). `clean_room=True` turns it on there.
CLEAN_ROOM = {"gpu": True, "cpu": False}
CHECK_PROBABILITY, CHECKS_PER_CONFIG = 0.5, 4   # timed batches of the candidate checked: this chance at most,
                                                # about this many per config, and the last always
KEPT_BYTES = {"gpu": 4 << 30, "cpu": 256 << 20}                 # outputs a runner keeps per batch
# The time bound: the candidate's per-call wall time not explained by its samples, less the
# baseline's, must stay within max(ABS, REL x the candidate's median sample). Set from honest runs:
# on an H100 (73 configs, oracle and noop) |excess| had median 0.04 ms, p95 0.16 ms, max 0.23 ms,
# whole batches of either runner now and then running 0.06-0.12 ms per call slow; so a forgery is
# caught when it hides more than 0.5 ms, or more than the time it reports, per call. CPU: a shared
# 2-core machine, where times are not meaningful anyway.
BOUND_ABS_MS = {"gpu": 0.5, "cpu": 25.0}
BOUND_REL = 1.0
BOUND_BASE_REL = 0.10      # the negative side's limit, as a share of the baseline's median (_bound)
TIMEOUTS_S = {"build": 900.0, "inputs": 300.0, "call": 300.0, "capture": 300.0, "time": 600.0,
              "export": 300.0, "release": 60.0, "exit": 10.0}
MAGNITUDE_FLOOR = 1e-3        # atol scales with an output's RMS down to this (docs/task-format.md, tolerances)
MAX_DIMS, MAX_EXTENT = 16, 1 << 40   # an output description beyond these is a broken (or hostile) reply
LOG_TAIL_BYTES = 600         # of a runner's log, quoted when it dies
FREEZE_S = 2.0               # how long the judge tries to see every process of the candidate's sandbox stopped
# The process offset (Judge.process_offset): on an H100 every process pays a cost per kernel launch
# of its own, fixed when it starts, so one kernel reads 0-4 % apart in two processes (30 us, three
# launches: results/h100-2026-11-26e.md, -26g.md). Before the candidate is loaded its runner
# builds the baseline, and the baseline is timed in both runners on the config of its quickest call;
# the difference is added to every baseline time, so each speedup is that of two kernels in the
# candidate's process.
# Off on the CPU, where times are not meaningful (`process_offset=True` turns it on there).
PROCESS_OFFSET = {"gpu": True, "cpu": False}
# The arena (arena.py): each round's timed inputs and harness-made outputs at one place in one
# judge-owned allocation for both kernels. On a GPU where it can be made; on the CPU only when asked
# (times mean nothing there; the test suite runs the mechanism).
ARENA = {"gpu": True, "cpu": False}


class Mismatch(Exception):
    """The candidate's output is not the reference's (one line)."""


class TaskBroken(Exception):
    """The task's own reference or make_inputs failed: not the candidate's fault."""


class RunnerFailed(Exception):
    """A kernel runner died, hung or broke the protocol."""


class Phases:
    """Seconds spent per phase of an evaluation, for the overhead record (GAUNTLET_JUDGE_TRACE)."""

    def __init__(self):
        self.seconds: dict[str, float] = defaultdict(float)

    @contextmanager
    def __call__(self, name: str):
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] += time.perf_counter() - started


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


def _stop_tree(root: int, ended_before: frozenset = frozenset()) -> tuple[bool, frozenset]:
    """SIGSTOP `root` and every descendant, found through /proc/<pid>/task/<tid>/children as the walk
    goes. (clean, the processes found ended): clean when every thread found was already stopped,
    nothing vanished mid-look, and every ended (zombie) process found had been found ended by the
    look before (`ended_before`). A process that ends hands its children to the sandbox's init:
    when that happens between the walk reading init's list and reaching the process, the look finds
    it a zombie with no children and misses them; a process that newly ended means another look."""
    clean, stack, seen, ended = True, [root], set(), set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            os.kill(pid, signal.SIGSTOP)
            tids = os.listdir(f"/proc/{pid}/task")
        except (ProcessLookupError, PermissionError, OSError):
            clean = False                  # vanished under the look: the sandbox is still changing
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as fh:
                    state = fh.read().rsplit(")", 1)[1].split()[0]
                with open(f"/proc/{pid}/task/{tid}/children") as fh:
                    stack.extend(int(k) for k in fh.read().split())
            except (OSError, IndexError, ValueError):
                clean = False
                continue
            if state not in _STOPPED:
                clean = False
            elif state in _ENDED:
                ended.add(pid)
                if pid not in ended_before:
                    clean = False
    return clean, frozenset(ended)


class RunnerClient:
    def __init__(self, isolation: Isolation, tree: Path, *, language: str, entry: str, symbol: str,
                 device: str, role: str, flags=(), probe: dict | None = None, trace_library: Path | None = None):
        self.role = role
        # setpriv mode: each role its own uid, so the judge can tell the candidate's processes apart
        self.uid = isolation.runner_uid(role) if isolation.mode == "setpriv" else None
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
                *[a for f in flags for a in ("--flag", f)], *probe_args, *isolation.runner_args()]
        # The device trace (devtrace.py): the driver loads the judge's library into the runner at
        # CUDA's first initialisation, and it writes to a pipe whose reading end stays here.
        self.trace = devtrace.Reader() if trace_library is not None else None
        self.trace_batches: list[tuple[list, int, list]] = []    # (records, calls, samples) per timed batch
        env = isolation.env(self.workdir)
        pass_fds = [runner_end.fileno()]
        if self.trace is not None:
            env.update(devtrace.runner_env(trace_library, self.trace.write_fd))
            pass_fds.append(self.trace.write_fd)
        log = open(self.log_path, "wb")
        try:
            self.proc = subprocess.Popen(isolation.wrap(argv, self.workdir, role), env=env,
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

    def request(self, message: dict, fds=()) -> dict:
        """Send one command, wait for its reply (bounded), check its shape."""
        if self.proc.poll() is not None:
            raise RunnerFailed(f"the {self.role} runner exited with {self.proc.returncode}{self._tail()}")
        self.sock.settimeout(TIMEOUTS_S.get(message["op"], 300.0))
        try:
            protocol.send(self.sock, message, list(fds))
            reply, got_fds = protocol.receive(self.sock)
        except socket.timeout:
            self.kill()
            raise RunnerFailed(f"the {self.role} runner did not answer {message['op']!r} within "
                               f"{TIMEOUTS_S.get(message['op'], 300.0):.0f} s") from None
        except (ProtocolError, OSError) as exc:
            self.kill()
            raise RunnerFailed(f"the {self.role} runner broke off ({exc}){self._tail()}") from None
        for fd in got_fds:                  # the runner sends no descriptors
            os.close(fd)
        if not isinstance(reply.get("ok"), bool):
            raise RunnerFailed(f"the {self.role} runner sent a malformed reply")
        runner_ms = reply.get("runner_ms")          # diagnostics only: a runner's own word, bounded
        if isinstance(runner_ms, (int, float)) and 0 <= runner_ms < 1e9:
            self.op_seconds[message["op"]] += float(runner_ms) / 1000.0
        if message["op"] == "time" and self.trace is not None and not self.trace.dead:
            # every timed batch's records, whoever asked for it: the batch markers pair in order
            samples = reply.get("samples") if reply["ok"] and isinstance(reply.get("samples"), list) else []
            self.trace_batches.append((self.trace.take_batch(), int(message["n"]), samples))
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
        one that just ended may have handed children to init behind the walk). When FREEZE_S is not
        enough, the sandbox is killed whole (its pid namespace dies with it) and RunnerFailed says
        so: nothing of it runs beside the baseline."""
        deadline = time.monotonic() + FREEZE_S
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
                                   f"did not hold for {FREEZE_S:.0f} s (a process that keeps changing its "
                                   "pid); the sandbox was killed")

    def thaw(self) -> None:
        self.signal_all(signal.SIGCONT)

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
            text = os.pread(fd, LOG_TAIL_BYTES, max(0, info.st_size - LOG_TAIL_BYTES))
        except OSError:
            return ""
        finally:
            os.close(fd)
        text = text.decode(errors="replace").strip()
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
                self.sock.settimeout(TIMEOUTS_S["exit"])
                protocol.send(self.sock, {"op": "exit"})
                protocol.receive(self.sock)
            except (ProtocolError, OSError):
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        self.kill()             # the process group, whatever is left of it
        self.sock.close()
        if self.trace is not None:
            self.trace.join()
            if self.role == "candidate":
                self.outside_findings += devtrace.call_findings(self.trace.take_calls())
        shutil.rmtree(self.workdir, ignore_errors=True)


def interference(beside_ms: float, clean_ms: float, kind: str) -> str | None:
    """The finding when the baseline ran slower beside the candidate than in the clean room by more
    than CLEAN_ROOM_SLACK: a flag on a GPU, a note on the CPU (times not meaningful there)."""
    rel, abs_ms = CLEAN_ROOM_SLACK[kind]
    if not beside_ms > clean_ms * (1 + rel) + abs_ms:
        return None
    word = "note: baseline_interference" if kind == "cpu" else "baseline_interference"
    return (f"{word}: the baseline took {beside_ms:.4g} ms per call beside the candidate and "
            f"{clean_ms:.4g} ms once the candidate's processes were gone: work the candidate left "
            "running slowed the baseline")


def _placement(layout: "arena.Layout | None", rng) -> dict:
    """What a timed batch is told of where its buffers go: a new draw in the config's arena, or
    nothing (each runner places its own)."""
    return {"placement": layout.draw(rng)} if layout is not None else {}


def close_all(runners: list[RunnerClient]) -> None:
    """Every runner closed at once; each waits for its process to end."""
    with ThreadPoolExecutor(max_workers=max(1, len(runners))) as pool:
        list(pool.map(RunnerClient.close, runners))


def _wait_gone(pids, timeout_s: float = 10.0) -> None:
    """Until none of `pids` is alive (a zombie counts as gone: its memory and GPU contexts are)."""
    deadline = time.monotonic() + timeout_s
    alive = list(pids)
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in alive if _proc_state(f"/proc/{pid}/stat") not in (None, "Z")]
        if alive:
            time.sleep(0.02)


# -- values -------------------------------------------------------------------------------------------
def device_kind(device: str) -> str:
    """"cpu" or "gpu": what the judge's per-kind settings are keyed by (CUDA and ROCm alike)."""
    return "cpu" if device == "cpu" else "gpu"


def _seed(config: Config, seed: int) -> int:
    return (sum(config.name.encode()) * 1_000_003 + seed) % (2**31)


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _clone(args):
    import torch
    return [a.clone() if isinstance(a, torch.Tensor) else a for a in args]


def add_outliers(args: list, generator) -> list:
    """KernelBench-X's outlier stage: 0.1 % (at least one) of every float input's entries x50."""
    import torch
    for a in args:
        # float8 inputs are left alone: x50 overflows most of their range
        if isinstance(a, torch.Tensor) and a.is_floating_point() and a.element_size() > 1 and a.numel() \
                and a.is_contiguous():
            k = max(1, round(a.numel() * OUTLIER_FRACTION))
            idx = torch.randint(a.numel(), (k,), generator=generator).to(a.device)
            flat = a.view(-1)
            flat[idx] = flat[idx] * OUTLIER_SCALE
    return args


class Frozen:
    """Outputs held by the judge (on its own device, where it compares them), with the layout and
    device the runner reported."""

    def __init__(self, tensors, strides, device):
        self.tensors, self.strides, self.device = tensors, strides, device
        self._magnitudes: dict[int, float] = {}

    def magnitude(self, i: int) -> float:
        """What output i's atol is scaled by: its RMS, clamped to [MAGNITUDE_FLOOR, 1]. A fixed atol
        means nothing for outputs much smaller than 1 (a softmax row of 1/4096 passes atol 1e-4 as a
        uniform row); outputs of size 1 or more keep the task's atol as it is."""
        if i not in self._magnitudes:
            t = self.tensors[i]
            rms = float(t.float().pow(2).mean().sqrt()) if t.is_floating_point() and t.numel() else 1.0
            self._magnitudes[i] = 1.0 if math.isnan(rms) else min(1.0, max(rms, MAGNITUDE_FLOOR))
        return self._magnitudes[i]

    def amax(self) -> float:
        vals = [float(t.float().abs().max()) for t in self.tensors if t.numel() and t.is_floating_point()]
        vals = [v for v in vals if not math.isnan(v)]
        return max(vals) if vals else 0.0


def freeze_reference(out) -> Frozen:
    """A copy of the reference's outputs where they were made (the reference may return views of
    its inputs); compared there, on the GPU when there is one."""
    import torch
    outs = _as_tuple(out)
    for i, o in enumerate(outs):
        if not isinstance(o, torch.Tensor):
            raise TaskBroken(f"the reference returned a {type(o).__name__} as output {i}")
    return Frozen([o.detach().clone() for o in outs], [tuple(o.stride()) for o in outs],
                  [o.device.type for o in outs])


def make_inputs(reference, config: Config, generator, torch_device: str) -> list:
    """The task's make_inputs for `config`; anything but a list of tensors and scalars is the task's error."""
    import torch
    try:
        args = list(reference.make_inputs(dict(config.params), generator, torch_device))
    except Exception as exc:
        raise TaskBroken(f"make_inputs raised {type(exc).__name__}: {str(exc)[:200]} on {config.name}") from None
    for a in args:
        if not isinstance(a, (torch.Tensor, bool, int, float)):
            raise TaskBroken(f"make_inputs returned a {type(a).__name__} on {config.name} "
                             "(only tensors, int, float and bool)")
    return args


def run_reference(reference, args) -> Frozen:
    """The reference's outputs on (copies of) `args`; a raise or a non-tensor output is the task's error."""
    try:
        out = reference.reference(*_clone(args))
    except Exception as exc:
        raise TaskBroken(f"the reference raised {type(exc).__name__}: {str(exc)[:200]}") from None
    return freeze_reference(out)


def _relevant_strides(shape, stride):
    return tuple(s for n, s in zip(shape, stride) if n > 1)


def compare(task: Task, got: Frozen, expected: Frozen, atol_scale: float = 1.0, what: str = "",
            canon=None) -> float:
    """Max abs error; raises Mismatch when count, dtype, shape, strides, device, NaN or values differ.
    `canon` (the task's `canonical` bound to the call's inputs, or None) maps both sides' outputs to
    the form whose values are compared, where more than one answer is correct (top-k under ties)."""
    import torch
    if len(got.tensors) != len(expected.tensors):
        raise Mismatch(f"returned {len(got.tensors)} outputs, expected {len(expected.tensors)}")
    for i, (g, e) in enumerate(zip(got.tensors, expected.tensors)):
        if g.shape != e.shape:
            raise Mismatch(f"output {i} shape {tuple(g.shape)} != {tuple(e.shape)}")
        if g.dtype != e.dtype:
            raise Mismatch(f"output {i} dtype {g.dtype} != {e.dtype}")
        if got.device[i] != expected.device[i]:
            raise Mismatch(f"output {i} on {got.device[i]}, expected {expected.device[i]}")
        if _relevant_strides(g.shape, got.strides[i]) != _relevant_strides(e.shape, expected.strides[i]):
            raise Mismatch(f"output {i} strides {tuple(got.strides[i])} != {tuple(expected.strides[i])} "
                           "(return the reference's layout)")
    if canon is not None:
        got, expected = _canonical(canon, got, expected)
    worst = 0.0
    for i, (g, e) in enumerate(zip(got.tensors, expected.tensors)):
        tol = task.tolerance(str(e.dtype).removeprefix("torch."))
        atol = tol.atol * atol_scale * expected.magnitude(i)
        fast = _fast_close(g, e, tol.rtol, atol)
        if fast is not None:       # every element close, no NaN anywhere: the common case
            worst = max(worst, fast)
            continue
        g64, e64 = g.double(), e.double()
        if bool(torch.isnan(g64).any()):
            raise Mismatch(f"output {i} has NaN{what}")  # NaN never passes
        if bool(torch.isnan(e64).any()):
            raise Mismatch(f"output {i}: the reference itself has NaN{what} (task bug)")
        diff = (g64 - e64).abs().nan_to_num(nan=0.0, posinf=math.inf)
        err = float(diff.max()) if diff.numel() else 0.0
        worst = max(worst, err)
        if not bool(torch.isclose(g64, e64, rtol=tol.rtol, atol=atol).all()):
            raise Mismatch(f"output {i} max abs error {err:.3g} exceeds atol={atol:.3g} rtol={tol.rtol}{what}")
    return worst


def canonical_for(reference, args):
    """The task's `canonical(outputs, *inputs)` bound to one call's inputs (the judge's copies), or
    None when reference.py defines none."""
    fn = getattr(reference, "canonical", None)
    if not callable(fn):
        return None
    return lambda outs: fn(tuple(outs), *args)


def _canonical(canon, got: Frozen, expected: Frozen) -> tuple[Frozen, Frozen]:
    def apply(frozen: Frozen, whose: str) -> Frozen:
        try:
            outs = tuple(canon(frozen.tensors))
        except Exception as exc:
            raise Mismatch(f"{whose} outputs: the task's canonical() raised {type(exc).__name__}: "
                           f"{str(exc)[:160]}") from None
        if len(outs) != len(expected.tensors):
            raise Mismatch(f"the task's canonical() returned {len(outs)} outputs (task bug)")
        return Frozen(list(outs), [tuple(o.stride()) for o in outs], [o.device.type for o in outs])
    want = apply(expected, "the reference's")
    have = apply(got, "the candidate's")
    for i, (g, e) in enumerate(zip(have.tensors, want.tensors)):
        if g.shape != e.shape or g.dtype != e.dtype:
            raise Mismatch(f"output {i}: the task's canonical() made {tuple(g.shape)} {g.dtype} of the "
                           f"candidate's, {tuple(e.shape)} {e.dtype} of the reference's")
    return have, want


def _fast_close(g, e, rtol: float, atol: float) -> float | None:
    """The max abs error when every element satisfies |g - e| <= atol + rtol * |e| and nothing is
    NaN; None otherwise (the exact float64 path then finds and words the failure)."""
    import torch
    if not (g.is_floating_point() and e.is_floating_point()) or g.dtype == torch.float64 or not g.numel():
        return None
    g32, e32 = g.float(), e.float()
    diff = torch.sub(g32, e32).abs_()
    bound = e32.abs().mul_(rtol).add_(atol)
    if not bool(diff.le(bound).all()):
        return None
    return float(diff.max())


class SentInputs:
    """One set of inputs in memfds sealed against writes (protocol.describe_args): made once, sent
    to each runner that loads them; closed by whoever made them."""

    def __init__(self, args):
        self.described, self.shared = protocol.describe_args(args)
        self.fds = [s.fd for s in self.shared]

    def close(self) -> None:
        for s in self.shared:
            s.close()


def _out_buffers(expected: Frozen, pattern: int) -> list[Shared]:
    """Judge-owned buffers for one call's outputs, poisoned: what the runner does not write fails."""
    buffers = []
    for t in expected.tensors:
        shared = Shared(protocol.dtype_name(t), tuple(t.shape), name="output")
        if shared.nbytes:
            view = shared.tensor()
            if view.is_floating_point():
                view.fill_(float("nan") if pattern % 2 == 0 else -1.2345e30 if view.dtype.itemsize > 2
                           else -1234.5 if view.dtype.itemsize == 2 else -224.0)     # finite in every float8
            elif view.dtype != __import__("torch").bool:
                view.fill_(-0x5A if pattern % 2 == 0 else 0x3C)
            del view
        buffers.append(shared)
    return buffers


def _received(buffers: list[Shared], meta, device: str = "cpu") -> Frozen:
    """What the runner wrote, copied out of the judge's buffers at once onto the judge's `device`
    (where the expected outputs are); layout and device as reported."""
    if not isinstance(meta, list) or len(meta) > protocol.MAX_FDS or not all(isinstance(m, dict) for m in meta):
        for b in buffers:
            b.close()
        raise RunnerFailed("malformed output description")
    tensors, strides, devices = [], [], []
    for i, m in enumerate(meta):
        dtype, shape = str(m.get("dtype"))[:40], m.get("shape")
        if not isinstance(shape, list) or len(shape) > MAX_DIMS or \
                not all(type(s) is int and 0 <= s < MAX_EXTENT for s in shape):
            for b in buffers:
                b.close()
            raise RunnerFailed("malformed output shape")
        if i >= len(buffers) or dtype != buffers[i].dtype or tuple(shape) != buffers[i].shape:
            import torch
            if dtype not in protocol.DTYPES:
                raise Mismatch(f"output {i} has dtype {dtype}")
            # no memory: compare fails it on count, shape or dtype before any value is read
            tensors.append(torch.empty(shape, dtype=getattr(torch, dtype), device="meta"))
        else:
            view = buffers[i].tensor()
            tensors.append(view.to(device, copy=True))
            del view
        raw = m.get("strides")
        strides.append(tuple(raw[:MAX_DIMS]) if isinstance(raw, list) else ())
        devices.append(str(m.get("device"))[:40])
    for b in buffers:
        b.close()
    return Frozen(tensors, strides, devices)


# -- one kernel's correctness and timing ----------------------------------------------------------------
class Judge:
    def __init__(self, task: Task, device: str, reference, *, fp32_task: bool, regime: str, graph: bool,
                 max_speedup: float, phases: Phases | None = None, use_arena: bool = False):
        self.task, self.device = task, device
        self.phases = phases or Phases()
        self.torch_device = "cpu" if device == "cpu" else "cuda"
        self.kind = device_kind(device)
        self.ref = reference
        self.seeds, self.outlier_seeds = CORRECTNESS_SEEDS[self.kind], OUTLIER_SEEDS[self.kind]
        self.fp32_task, self.regime, self.graph, self.max_speedup = fp32_task, regime, graph, max_speedup
        self.flags: list[str] = []
        self.row_notes: list[str] = []
        self.watched: set[tuple[str, str]] | None = None    # (split, name) of the watched configs; None: all
        # how each runner's clock kept launches out of its samples; timed calls whose launch gate ran out
        self.launch_covers: dict[str, set[str]] = {"baseline": set(), "candidate": set()}
        self.gate_gave_up: dict[str, int] = {"baseline": 0, "candidate": 0}
        self.rng = random.SystemRandom()    # what is checked, and the seeds of timed inputs: nothing a runner can seed
        self.timing_setup: dict[tuple[str, str], dict] = {}    # per timed config: how the baseline was timed
        self.baseline_offset_ms: float | None = None   # added to every baseline time (process_offset)
        self.offset_record: dict = {}            # how it was measured, for the trace
        # The timed buffers' arena (arena.py): one per timed config, shared by the runners timed on it
        self.use_arena = use_arena
        self.arena: arena.Arena | None = None
        self.arena_configs = 0                   # timed configs whose buffers sat in an arena
        self.arena_failures: list[str] = []      # why others did not

    # -- inputs and the reference ----------------------------------------------------------------
    def inputs(self, config: Config, seed: int, outliers: bool = False) -> list:
        import torch
        gen = torch.Generator().manual_seed(_seed(config, seed))
        args = make_inputs(self.ref, config, gen, self.torch_device)
        return add_outliers(args, gen) if outliers else args

    def expected(self, args) -> Frozen:
        return run_reference(self.ref, args)

    def load(self, runner: RunnerClient, args, expected: Frozen, sent: "SentInputs | None" = None) -> None:
        """`args` onto the runner as its base inputs; `sent`: them already in sealed memfds (one
        set for both runners), else made here for this runner alone."""
        own = sent is None
        sent = sent or SentInputs(args)
        spec = [{"dtype": protocol.dtype_name(t), "shape": list(t.shape), "strides": list(st)}
                for t, st in zip(expected.tensors, expected.strides)]
        try:
            reply = runner.request({"op": "inputs", "args": sent.described, "spec": spec}, sent.fds)
        finally:
            if own:
                sent.close()
        if not reply["ok"]:
            raise Mismatch(str(reply.get("error"))[:300])

    def call(self, runner: RunnerClient, args, expected: Frozen, patterns=(0,), launch_check=False,
             evidence: bool = True, sent: "SentInputs | None" = None) -> list:
        """The runner's outputs for each poison pattern, each call on fresh copies of `args`."""
        self.load(runner, args, expected, sent)
        buffers = [_out_buffers(expected, p) for p in patterns]
        out, fds = [], []
        for bufs in buffers:
            out.append([{"dtype": b.dtype, "shape": list(b.shape), "fd": len(fds) + j} for j, b in enumerate(bufs)])
            fds += [b.fd for b in bufs]
        reply = runner.request({"op": "call", "patterns": list(patterns), "out": out, "fp32_task": self.fp32_task,
                                "launch_check": launch_check}, fds)
        if evidence:
            self._findings(reply)
        if not reply["ok"]:
            for bufs in buffers:
                for b in bufs:
                    b.close()
            raise Mismatch(str(reply.get("error"))[:300])
        calls = reply.get("calls")
        if not isinstance(calls, list) or len(calls) != len(patterns) or not all(isinstance(c, dict) for c in calls):
            for bufs in buffers:
                for b in bufs:
                    b.close()
            raise RunnerFailed("malformed call reply")
        results = []
        for bufs, info in zip(buffers, calls):
            frozen = _received(bufs, info.get("outputs"), self.torch_device)
            if info.get("inputs_changed") is True:
                raise Mismatch("modified its inputs")
            results.append(frozen)
        return results

    def _findings(self, reply: dict) -> None:
        """A runner's findings incriminate its kernel; they are never needed to pass."""
        found = reply.get("findings")
        if isinstance(found, list):
            self.flags += [str(f)[:300] for f in found if isinstance(f, str)]

    # -- correctness -----------------------------------------------------------------------------
    def correctness(self, baseline: RunnerClient, candidate: RunnerClient | None, config: Config,
                    symmetric: bool) -> tuple[str | None, float | None, str | None]:
        """(baseline error, candidate's worst error, candidate error) over the stages: fresh inputs
        per seed, then outlier inputs; the candidate runs twice per stage on fresh copies, outputs
        poisoned differently each time, and both results must match the reference and each other.
        Each stage's inputs and expected outputs are made once and serve both kernels. With
        `symmetric` (the config will be timed) the baseline goes through the very calls the
        candidate does: both runner processes must reach the timing in the same state (an H100 run
        showed the candidate's process alone, after its correctness calls, timing some configs 2-7x
        slower than the same kernel in the baseline's). Otherwise one baseline call suffices."""
        stages = [(s, False) for s in self.seeds] + [(s, True) for s in self.outlier_seeds]
        if not (symmetric or candidate is not None):
            stages = stages[:1]
        with ThreadPoolExecutor(max_workers=1) as pool:
            return self._correctness_stages(baseline, candidate, stages, config, symmetric, pool)

    def _baseline_stage(self, baseline: RunnerClient, args, expected: Frozen, sent: "SentInputs", symmetric: bool,
                        atol_scale: float, what: str) -> str | None:
        """The baseline's calls of one correctness stage; its error, or None."""
        with self.phases("baseline calls"):
            try:
                got = self.call(baseline, args, expected, patterns=(0, 1) if symmetric else (0,), evidence=False,
                                sent=sent)
                compare(self.task, got[0], expected, atol_scale, what, canonical_for(self.ref, args))
            except Mismatch as exc:
                return f"baseline: {exc}"
        return None

    def _correctness_stages(self, baseline, candidate, stages, config: Config, symmetric: bool, pool):
        base_error = cand_error = None
        worst, scale_ref = 0.0, 0.0
        for index, ((seed, outliers), (args, expected, sent)) in enumerate(self._stage_data(config, stages)):
            base_due = base_error is None and (symmetric or index == 0)
            cand_due = candidate is not None and cand_error is None
            if not (base_due or cand_due):
                break
            what = f" (outlier inputs, seed {seed})" if outliers else f" (seed {seed})"
            amax = expected.amax()
            if not outliers:
                scale_ref = max(scale_ref, amax)
            # An outlier's x50 propagates into outputs: absolute tolerance scales with the output's
            # magnitude relative to the standard stage, never below the task's own.
            atol_scale = max(1.0, amax / scale_ref) if outliers and scale_ref > 0 else 1.0
            # The two runners are separate processes: the baseline's calls run in a thread while the
            # candidate's run here (sequential, they were most of a Triton task's evaluation time:
            # each process compiles its kernels on its first call of a shape).
            base_job = pool.submit(self._baseline_stage, baseline, args, expected, sent, symmetric, atol_scale,
                                   what) if base_due else None
            try:
                if cand_due:
                    with self.phases("candidate calls"):
                        try:
                            first, second = self.call(candidate, args, expected, patterns=(0, 1), sent=sent)
                            canon = canonical_for(self.ref, args)
                            worst = max(worst, compare(self.task, first, expected, atol_scale, what, canon))
                            compare(self.task, second, expected, atol_scale, f" on the second run{what}", canon)
                            try:
                                compare(self.task, second, first, atol_scale, canon=canon)
                            except Mismatch as exc:
                                raise Mismatch(f"two runs on the same inputs disagree{what}: {exc}") from None
                        except Mismatch as exc:
                            cand_error = str(exc)
            except BaseException:
                if base_job is not None:
                    wait([base_job])       # the candidate's failure is the one reported
                raise
            if base_job is not None:
                base_error = base_job.result()
            if cand_error is not None:
                break                  # nothing will be timed: the baseline's state no longer matters
        return base_error, (None if candidate is None or cand_error else worst), cand_error

    def _stage_data(self, config: Config, stages):
        """(stage, (inputs, expected outputs, the inputs in sealed memfds)) per stage; the next
        stage's are made in a thread while the runners work on the current one (make_inputs, the
        reference and the copy out of the device would otherwise add their time to every stage).
        A stage's memfds are closed once the caller comes back for the next."""
        def make(stage):
            started = time.perf_counter()
            args = self.inputs(config, *stage)
            expected = self.expected(args)
            sent = SentInputs(args)
            self.phases.seconds["inputs+reference (overlapped)"] += time.perf_counter() - started
            return args, expected, sent

        pool = ThreadPoolExecutor(max_workers=1)
        pending = data = None
        try:
            pending = pool.submit(make, stages[0])
            for i, stage in enumerate(stages):
                with self.phases("inputs+reference wait"):
                    data = pending.result()
                pending = pool.submit(make, stages[i + 1]) if i + 1 < len(stages) else None
                yield stage, data
                data[2].close()
                data = None
        finally:
            if data is not None:
                data[2].close()
            pool.shutdown(wait=True, cancel_futures=True)
            if pending is not None and pending.done() and not pending.cancelled() and pending.exception() is None:
                pending.result()[2].close()

    # -- performance -----------------------------------------------------------------------------
    def share_arena(self, runners, args, expected: Frozen) -> "arena.Layout | None":
        """A new arena for one timed config (arena.py), mapped by every runner in `runners`, and its
        layout; None where there is none (the CPU, no VMM API, a driver or runner that refused it):
        each runner then places its own buffers, as the other does too. The last arena goes."""
        if not self.use_arena:
            return None
        layout = arena.Layout(arena.span(arena.sizes(args)), arena.span(arena.sizes(expected.tensors)))
        self.close_arena()
        try:
            self.arena = arena.Arena.create(layout.nbytes, self.torch_device)
            for runner in runners:
                reply = runner.request({"op": "arena", "nbytes": self.arena.nbytes, "address": self.arena.address},
                                       [self.arena.fd])
                if not reply["ok"]:
                    raise arena.ArenaError(f"the {runner.role} runner: {str(reply.get('error'))[:160]}")
        except (arena.ArenaError, OSError) as exc:
            self.arena_failures.append(str(exc)[:200])
            self.close_arena()
            return None
        self.arena_configs += 1
        return layout

    def close_arena(self) -> None:
        if self.arena is not None:
            self.arena.close()
            self.arena = None

    def time(self, baseline: RunnerClient, candidate: RunnerClient, config: Config, probe: bool = False):
        """(baseline Timed, candidate Timed, bound) for one config; raises Mismatch when a checked
        repetition is wrong or its outputs are not the ones the runner committed to. `probe`: the
        candidate's runner holds the baseline (process_offset): no watch, no evidence, no checks."""
        with self.phases("inputs+reference"):
            args = self.inputs(config, TIMING_SEED)
            expected = self.expected(args)
        runners = {"baseline": baseline, "candidate": candidate}
        for runner in runners.values():
            runner.trace_batches.clear()
        with self.phases("timing: load"):
            sent = SentInputs(args)
            try:
                for runner in runners.values():
                    self.load(runner, args, expected, sent)
            finally:
                sent.close()
        graph = self.graph and self.device != "cpu"
        if graph:
            failed = {name: r.request({"op": "capture", "regime": self.regime, "graph": True})
                      for name, r in runners.items()}
            failed = {name: rep for name, rep in failed.items() if not rep["ok"]}
            if failed:
                name, reply = next(iter(failed.items()))
                self.row_notes.append(f"note: CUDA-graph capture of the {name} failed ({str(reply.get('error'))[:120]}); "
                                      "both timed with eager calls")
                graph = False
                for runner in runners.values():      # drop any replay that was made
                    self.load(runner, args, expected)
        common = self._common(graph)
        # Each round's buffers at one place in one arena for both kernels (a replay keeps its own)
        layout = None if graph else self.share_arena(runners.values(), args, expected)
        common.update(_placement(layout, self.rng))
        host, estimate = [], {}
        cpu = self.device == "cpu"
        if probe:       # both runners' first calls compile the same JIT kernels (seconds, CPU): at once
            with ThreadPoolExecutor(max_workers=2) as threads:
                list(threads.map(lambda r: r.request(self._time_message(r, timing.WARMUP_CALLS, common, keep=False)),
                                 runners.values()))
        for name, runner in runners.items():
            if cpu:            # no warm-up on the CPU (timing.CPU_REPS): no estimate, pad or watch is used there
                continue
            # Both runners start the stream watch's profiler once: an activated profiler slows
            # every later launch in its process, so it must be the same in both (its findings
            # count against the candidate only).
            watch = not probe and (self.watched is None or (config.split, config.name) in self.watched)
            with self.phases("timing: warm-up" + (" (watched)" if watch else "")):
                warm = self._batch(runner, timing.WARMUP_CALLS, common, keep=False, watch=watch,
                                   evidence=name == "candidate" and not probe)
            host += warm["host_ms"]
            with self.phases("timing: estimate"):
                estimate[name] = max(self._batch(runner, 3, common, keep=False)["samples"])
        with self.phases("timing: spin rate"):
            pad = timing.launch_pad_ms(host) if self.device != "cpu" else None
            if pad is not None:
                import torch
                common["cycles_per_ms"] = timing.spin_rate(torch)      # one figure for both runners
        out_bytes = sum(t.numel() * t.element_size() for t in expected.tensors)
        capacity = max(1, min(timing.MAX_REPS, KEPT_BYTES[self.kind] // max(1, 2 * out_bytes)))
        # The offset's rounds are as many as a timed config's: its error moves every config's speedup.
        rounds = timing.CPU_REPS if cpu else timing.rounds_for(min(estimate.values()))
        per_round = 1 if cpu else timing.reps_per_round(estimate["candidate"], rounds)
        # Which batches of the candidate are checked: about CHECKS_PER_CONFIG of them at random, and
        # always the last (a kernel moves its figure, a median of round differences, only by being
        # wrong in most rounds, and each check names one repetition at random after the batch).
        batches = rounds * -(-per_round // capacity)
        check_probability = min(CHECK_PROBABILITY, CHECKS_PER_CONFIG / batches)
        by_round = {name: [] for name in runners}   # each round's samples (timing.stats)
        gaps = {name: [] for name in runners}
        walls = {name: [] for name in runners}     # (judge's ms, n, sum of samples ms) per batch
        orders = []
        planned, round_index = rounds, 0
        while round_index < rounds:
            last_round = round_index == rounds - 1
            # Which runner goes first is drawn per round: a fixed order gives one of them the same
            # neighbour every round (what ran just before, the judge's check and freeze between), and
            # a bias that holds in every round is one no number of rounds averages out.
            order = list(runners.items())
            if self.rng.random() < 0.5:
                order.reverse()
            orders.append(order[0][0])
            common.update(_placement(layout, self.rng))
            for name, runner in order:
                by_round[name].append([])
                left = 1 if cpu else timing.reps_per_round(estimate[name], planned)
                while left:
                    n = min(left, capacity)
                    left -= n
                    seed = self.rng.getrandbits(62)
                    with self._stopped(candidate if name == "baseline" else None):
                        started = time.perf_counter()
                        reply = self._batch(runner, n, {**common, "pad_ms": pad}, keep=True, seed=seed,
                                            evidence=name == "candidate" and not probe)
                        wall_ms = (time.perf_counter() - started) * 1000.0
                    self.phases.seconds[f"timing: {name} batches"] += wall_ms / 1000.0
                    walls[name].append((wall_ms, n, sum(reply["samples"])))
                    by_round[name][-1] += reply["samples"]
                    gaps[name] += reply["gaps"]
                    if name == "candidate" and not probe and (
                            (last_round and not left) or self.rng.random() < check_probability):
                        with self.phases("timing: repetition checks"):
                            self._check_repetition(runner, args, expected, seed, reply["digests"])
                    runner.request({"op": "release"})
            round_index += 1
            if round_index == rounds:     # a config whose rounds spread widely (the CPU: a cheap one): more of them
                rounds += timing.more_rounds(by_round["baseline"], by_round["candidate"], planned)
        timed = {name: timing.stats([x for r in by_round[name] for x in r], 0, gaps[name], by_round[name])
                 for name in runners}
        timed["candidate"] = timing.paired(timed["baseline"], timed["candidate"])
        if not probe:
            self.timing_setup[(config.split, config.name)] = {
                "common": {**common, "pad_ms": pad}, "graph": graph, "capacity": capacity, "arena": layout is not None,
                "batches": rounds if cpu else 1,
                "n": 1 if cpu else timing.reps_per_round(estimate["baseline"], timing.ROUNDS)}
        trace = os.environ.get("GAUNTLET_JUDGE_TRACE")     # bench/judge_gpu.py: every batch, for the record
        if trace:
            with open(trace, "a") as fh:
                fh.write(json.dumps({"config": config.name, "probe": probe, "walls": walls, "first": orders, "pad_ms": pad,
                                                   "cycles_per_ms": common.get("cycles_per_ms"),
                                                   "time_ms": {k: v.time_ms for k, v in timed.items()},
                                                   "gap_ms": {k: v.gap_ms for k, v in timed.items()}, "rounds": rounds, "planned": planned,
                                                   # other statistics of the same samples (bench: the A/B of timing.stats)
                                                   "plain_median_ms": {k: statistics.median(v.all_ms) for k, v in timed.items()},
                                                   "round_samples": by_round if os.environ.get("GAUNTLET_JUDGE_TRACE_SAMPLES") else None}) + "\n")
        if not probe:
            self._read_trace(config, baseline, candidate)
        return timed["baseline"], timed["candidate"], self._bound(walls, timed["baseline"], timed["candidate"])

    def _read_trace(self, config: Config, baseline: RunnerClient, candidate: RunnerClient) -> None:
        """The device trace of this config's timed batches (devtrace.py), the candidate's read
        against the baseline's. A trace the baseline's runner did not deliver either is this
        machine's (a note), never the candidate's doing."""
        if candidate.trace is None or baseline.trace is None:
            return
        base = [devtrace.segment(ops, n) for ops, n, _ in baseline.trace_batches]
        cand = [(devtrace.segment(ops, n), samples) for ops, n, samples in candidate.trace_batches]
        if not base or any(b.problems for b in base) or baseline.trace.problems:
            problems = [p for b in base for p in b.problems] + baseline.trace.problems
            self.row_notes.append("note: no device trace read on this config (the baseline's runner: "
                                  + ("; ".join(dict.fromkeys(problems))[:200] or "no batches") + ")")
            return
        found = devtrace.findings(cand, base, own_kernel_required=True)
        found += [f"device_trace: {p}" for p in candidate.trace.problems]
        foreign = candidate.trace.foreign()
        if foreign:
            found.append(f"foreign_process: the device trace saw {len(foreign)} operation(s) from another process")
        for finding in dict.fromkeys(found):
            self.flags.append(f"{finding} ({config.name})")

    def quickest(self, baseline: RunnerClient, configs: list[Config]) -> Config:
        """The config of the baseline's quickest call, where the offset is measured (two calls of
        each in the baseline's runner, while the candidate's runner still builds): a per-launch cost
        weighs most there, and the few rounds of the offset carry that call's noise into every
        config. Chosen by fewest input bytes it was a 3 ms single-row call on an H100, whose +0.4 us of
        noise made a 10 us config read 4 % apart (results/gpu-2026-11-27.md); a 130 us one
        carried 1.4 us of placement into a 36 us config (3.8 %). A baseline that fails here fails
        in its correctness calls; the first config is taken."""
        if len(configs) < 2:
            return configs[0]
        common = self._common(False)
        estimates = {}
        try:
            for config in configs:
                args = self.inputs(config, TIMING_SEED)
                self.load(baseline, args, self.expected(args))
                # the first call compiles what a JIT kernel needs for this shape
                estimates[config.name] = self._batch(baseline, 2, common, keep=False, evidence=False)["samples"][-1]
        except (RunnerFailed, Mismatch):
            return configs[0]
        return min(configs, key=lambda c: estimates[c.name])

    def process_offset(self, baseline: RunnerClient, probe: RunnerClient, config: Config) -> float:
        """What the candidate's runner process adds to the baseline's time on `config` (ms; below zero
        when it runs faster), `probe` being that process with the baseline built in it and the
        candidate not yet loaded.

        Why: each process pays a cost of its own per kernel launch, fixed when it starts, so the
        same code reads up to a few per cent apart in two processes, and a noop's self-speedup was
        the difference of two such draws. Added to each baseline time it makes every speedup one of
        two kernels in one process (the candidate's). The candidate cannot move it: none of its code
        exists in the process yet, and its runner's build replaces the baseline afterwards. It is
        one figure for every config: the cost is per launch, and a baseline launches alike on each
        (it is measured on the config of the quickest call: Judge.quickest)."""
        base, other, _ = self.time(baseline, probe, config, probe=True)
        self.offset_record = {"config": config.name, "baseline_ms": base.time_ms, "probe_ms": other.time_ms,
                              "plain_ms": [statistics.median(base.all_ms), statistics.median(other.all_ms)]}
        return other.time_ms - base.time_ms

    def _common(self, graph: bool) -> dict:
        """What every timed batch of both kernels is told alike."""
        return {"regime": self.regime, "graph": graph, "delta": protocol.PERTURBATION}

    @staticmethod
    @contextmanager
    def _stopped(runner: RunnerClient | None):
        """While the baseline is timed every process of the candidate's sandbox is stopped: nothing
        it left running can load the machine or the GPU against the baseline."""
        if runner is None:
            yield
            return
        runner.freeze()
        try:
            yield
        finally:
            runner.thaw()

    def _time_message(self, runner: RunnerClient, n: int, common: dict, *, keep: bool, watch: bool = False,
                      seed: int | None = None) -> dict:
        """A batch of n timed calls; its input and digest seeds drawn now (the digest's kept on the runner)."""
        seed = self.rng.getrandbits(62) if seed is None else seed
        runner.last_digest_seed = self.rng.getrandbits(62)
        return {"op": "time", "n": n, "seed": seed, "digest_seed": runner.last_digest_seed,
                "keep": keep, "watch": watch, **common}

    def _batch(self, runner: RunnerClient, n: int, common: dict, *, keep: bool, watch: bool = False,
               seed: int | None = None, evidence: bool = True) -> dict:
        reply = runner.request(self._time_message(runner, n, common, keep=keep, watch=watch, seed=seed))
        if evidence:
            self._findings(reply)
        if not reply["ok"]:
            raise Mismatch(f"timed call: {str(reply.get('error'))[:300]}")
        for key in ("samples", "gaps", "host_ms", "digests"):
            value = reply.get(key)
            if not isinstance(value, list) or len(value) != n:
                raise RunnerFailed(f"malformed timing reply ({key})")
        if reply.get("launch_cover") in timing.LAUNCH_COVER_KINDS:     # any other word is not written into the verdict
            self.launch_covers[runner.role].add(reply["launch_cover"])
        gave_up = reply.get("gate_gave_up")
        if type(gave_up) is int and 0 < gave_up <= n:
            self.gate_gave_up[runner.role] += gave_up
        for key in ("samples", "gaps", "host_ms"):
            if not all(isinstance(v, (int, float)) and math.isfinite(v) and v >= 0 for v in reply[key]):
                raise RunnerFailed(f"malformed timing reply ({key})")
        return reply

    def _check_repetition(self, runner: RunnerClient, args, expected: Frozen, seed: int, digests: list) -> None:
        """One repetition of a timed batch, named only now: its outputs must be the ones the runner
        committed to, and correct for that repetition's inputs."""
        index = self.rng.randrange(len(digests))
        buffers = _out_buffers(expected, index)
        reply = runner.request({"op": "export", "index": index,
                                "out": [{"dtype": b.dtype, "shape": list(b.shape), "fd": j} for j, b in enumerate(buffers)]},
                               [b.fd for b in buffers])
        if not reply["ok"]:
            raise Mismatch(f"timed call: {str(reply.get('error'))[:200]}")
        got = _received(buffers, reply.get("outputs"), self.torch_device)
        rep_args = protocol.perturbed(args, protocol.repetition_seed(seed, index))
        want = self.expected(rep_args)
        committed = digests[index]
        device_outs = got.tensors
        canon = canonical_for(self.ref, rep_args)
        if any(t.device.type == "meta" for t in device_outs):      # not the expected outputs at all
            compare(self.task, got, want, what=f" (timed repetition {index}, checked after the batch)", canon=canon)
        actual = protocol.digest(device_outs, protocol.digest_weights(device_outs, runner.last_digest_seed))
        if not isinstance(committed, list) or len(committed) != len(actual) or not all(
                type(c) is int and a is not None and c == a for c, a in zip(committed, actual)):
            raise Mismatch(f"timed repetition {index}: the outputs exported afterwards are not the ones "
                           "the runner committed to when the batch ended")
        del device_outs
        compare(self.task, got, want, what=f" (timed repetition {index}, checked after the batch)", canon=canon)

    def _bound(self, walls: dict, base, cand) -> dict:
        """The judge's clock against the samples: per call, the wall time the samples do not explain
        (flush, spin, sync, perturbation, digest, the runner's own loop), candidate less baseline."""
        def unexplained(batches):
            return [(wall - total) / n for wall, n, total in batches]
        base_batches = unexplained(walls["baseline"])
        base_over = statistics.median(base_batches)
        cand_over = statistics.median(unexplained(walls["candidate"]))
        excess = cand_over - base_over
        limit = max(BOUND_ABS_MS[self.kind], BOUND_REL * cand.time_ms)
        # Below zero the figure subtracts the baseline's own unexplained time, as noisy as the
        # baseline's calls are long (an H100 read -0.85 and -0.87 ms on an honest kernel beside an
        # 18.7 ms naive baseline, 4.7 %): that side's limit grows with the baseline too, with 2x room.
        low_limit = max(limit, BOUND_BASE_REL * base.time_ms)
        # ... and "steps skipped" is said only when the candidate's calls take less wall time than
        # the baseline's in every one of its batches: a baseline slowed in most of its few batches
        # (an H100 read +0.78 ms a call on 5 batches of an 8 us kernel) must not make an honest
        # candidate look as if it skipped the harness's steps.
        over_clock = [(wall, total) for wall, _, total in walls["candidate"] if total > wall * 1.001 + 0.01]
        return {"baseline_overhead_ms": base_over, "excess_ms": excess, "limit_ms": limit, "low_limit_ms": low_limit,
                "short_ms": cand_over - min(base_batches), "over_clock": len(over_clock)}

    def clean_room(self, baseline: RunnerClient, rows: list, configs: dict) -> None:
        """Time the baseline again, on a few timed configs chosen now, after every process of the
        candidate is gone: the baseline's time beside the candidate must not exceed it by more than
        CLEAN_ROOM_SLACK (what a candidate that leaves work running against the baseline gains)."""
        timed = [r for r in rows if r.baseline_ms is not None and (r.split, r.config) in self.timing_setup]
        for row in self.rng.sample(timed, min(CLEAN_ROOM_CONFIGS, len(timed))):
            config = configs[(row.split, row.config)]
            setup = self.timing_setup[(row.split, row.config)]
            args = self.inputs(config, TIMING_SEED)
            expected = self.expected(args)
            self.load(baseline, args, expected)
            common = {k: v for k, v in setup["common"].items() if k != "placement"}
            if setup["graph"]:
                if not baseline.request({"op": "capture", "regime": self.regime, "graph": True})["ok"]:
                    continue
            # placed as it was beside the candidate: in an arena, at new places each batch
            layout = self.share_arena([baseline], args, expected) if setup["arena"] else None
            if self.kind != "cpu":          # the CPU: no warm-up (timing.CPU_REPS)
                self._batch(baseline, timing.WARMUP_CALLS, {**common, **_placement(layout, self.rng)},
                            keep=False, evidence=False)
            samples = []
            for _ in range(setup["batches"]):
                left = setup["n"]
                while left:
                    n = min(left, setup["capacity"])
                    left -= n
                    samples += self._batch(baseline, n, {**common, **_placement(layout, self.rng)}, keep=False,
                                           evidence=False)["samples"]
                    baseline.request({"op": "release"})
            row.baseline_clean_ms = timing.trimmed_mean(samples) if self.device != "cpu" else statistics.median(samples)
            finding = interference(row.baseline_ms - (row.baseline_offset_ms or 0.0), row.baseline_clean_ms, self.kind)
            if finding:
                self.flags.append(f"{finding} ({row.config})")

    def _gap_escapes(self, base, cand) -> bool:
        """The candidate's device-sync gap exceeds the baseline's by more than a kernel's honest
        spread: work left outside the timed stream (timing.py)."""
        return self.device != "cpu" and cand.gap_ms - base.gap_ms > max(ESCAPED_MIN_MS, ESCAPED_REL * cand.time_ms)

    # -- one config ------------------------------------------------------------------------------
    def config_result(self, baseline: RunnerClient, candidate: RunnerClient | None, config: Config,
                      measure: bool) -> ConfigResult:
        row = ConfigResult(config=config.name, split=config.split, params=dict(config.params), correct=False)
        # symmetric calls keep both runners in one state for the timing, which the CPU does not need
        # (its times are not meaningful; the baseline is checked there on the first stage's inputs)
        base_error, worst, cand_error = self.correctness(baseline, candidate, config,
                                                         symmetric=measure and candidate is not None
                                                         and self.kind != "cpu")
        row.baseline_correct = base_error is None
        row.error = base_error
        if candidate is None:
            row.error = row.error or "not compiled"
            return row
        if cand_error is not None:
            row.error = cand_error
            return row
        row.max_abs_err, row.correct = worst, True
        if measure and row.baseline_correct:
            try:
                base, cand, bound = self.time(baseline, candidate, config)
                if self._gap_escapes(base, cand):
                    # An honest noop's whole config once read its device-sync gap 20 us above the
                    # baseline's, and not on a second timing (results/gpu-2026-11-27b.md): a host
                    # thread's wake-up, not the kernel. Work that escapes the stream does so every time,
                    # so the config is timed again and the second timing is the one that counts.
                    first = (cand.gap_ms - base.gap_ms) * 1000
                    base, cand, bound = self.time(baseline, candidate, config)
                    if not self._gap_escapes(base, cand):
                        self.row_notes.append(f"note: the device-sync gap read {first:.0f} us above the "
                                              f"baseline's and not on a second timing of {config.name}, which counts")
            except Mismatch as exc:
                row.correct, row.error = False, f"timed call: {exc}".replace("timed call: timed call: ", "timed call: ")
                return row
            row.flags += self.row_notes
            self.row_notes.clear()
            row.baseline_ms, row.candidate_ms = base.time_ms, cand.time_ms
            offset = self.baseline_offset_ms
            if offset is not None and offset > -0.5 * base.time_ms:
                row.baseline_offset_ms = offset
                row.baseline_ms = base.time_ms + offset      # the baseline as timed in the candidate's process
            elif offset is not None:
                row.flags.append(f"note: the process offset ({offset * 1000:.2f} us) was not applied on "
                                 f"{config.name}: it is more than half the baseline's time")
            row.baseline_iqr_ms, row.candidate_iqr_ms = base.iqr_ms, cand.iqr_ms
            row.baseline_cv, row.candidate_cv = round(base.cv, 4), round(cand.cv, 4)
            row.timing_samples = cand.samples
            row.judge_excess_ms = round(bound["excess_ms"], 6)
            row.judge_overhead_ms = round(bound["baseline_overhead_ms"], 6)
            if bound["over_clock"]:
                row.flags.append(f"timing_mismatch: the runner reported more time than the judge's clock "
                                 f"measured in {bound['over_clock']} batch(es) (a forged timer)")
            if bound["excess_ms"] > bound["limit_ms"]:
                row.flags.append(f"timing_mismatch: the judge's clock saw {bound['excess_ms'] * 1000:.0f} us per call "
                                 f"more than the candidate's samples explain (the baseline's as reference; limit "
                                 f"{bound['limit_ms'] * 1000:.0f} us): work outside the timed span, or a forged timer")
                row.candidate_ms = cand.time_ms + bound["excess_ms"]   # timed as the judge's clock saw it
            elif bound["short_ms"] < -bound["low_limit_ms"]:
                # On the CPU this side is what a loaded machine's scheduler produces (the baseline's
                # batches delayed), and skipped steps gain nothing where times are not meaningful.
                word = "note: timing_mismatch" if self.kind == "cpu" else "timing_mismatch"
                row.flags.append(f"{word}: the candidate's repetitions took {-bound['short_ms'] * 1000:.0f} us "
                                 "per call less wall time than the harness's own steps take (steps skipped)")
            excess_gap = cand.gap_ms - base.gap_ms
            if self._gap_escapes(base, cand):
                row.flags.append(f"stream_injection: the candidate's device-sync gap exceeds the baseline's by "
                                 f"{excess_gap * 1000:.0f} us (work outside the current stream)")
                row.candidate_ms = max(row.candidate_ms, cand.time_ms + excess_gap)
            if row.candidate_ms > 0 and math.isfinite(row.candidate_ms):
                row.speedup = row.baseline_ms / row.candidate_ms
                row.speedup_ci95 = _interval(row, base, cand)
                if row.speedup > self.max_speedup and config.split == SPLIT_DRAWN:
                    # The task author vetted the seen and hidden configs, not a drawn shape, where the
                    # baseline itself can be pathological.
                    row.flags.append(f"note: {row.speedup:.1f}x > {self.max_speedup:g}x on drawn config "
                                     f"{config.name} (not flagged on drawn configs; capped in aggregates)")
                elif row.speedup > self.max_speedup:
                    row.flags.append(f"excessive_speedup: {row.speedup:.1f}x > {self.max_speedup:g}x "
                                     f"on {config.name}")
        return row


def _interval(row: ConfigResult, base, cand) -> list[float] | None:
    """The 95 % interval of the row's speedup from its rounds, moved with any correction the judge
    made to the candidate's figure (its own clock, the sync gap): the interval is of the samples'
    ratio, scaled onto the speedup that stands."""
    offset = row.baseline_offset_ms or 0.0
    interval = timing.speedup_interval(base, cand, offset)
    point = (base.time_ms + offset) / max(cand.time_ms, timing.EVENT_RESOLUTION_MS)
    if interval is None or not point > 0:
        return None
    scale = row.speedup / point
    return [round(interval[0] * scale, 4), round(interval[1] * scale, 4)]


# -- the evaluation ----------------------------------------------------------------------------------
def task_digest(folders) -> dict[str, str]:
    """sha256 of every file under the task's folders (its own and the ones it extends)."""
    import hashlib
    digest = {}
    for folder in folders:
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                try:
                    digest[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
                except OSError:
                    digest[str(path)] = "unreadable"
    return digest


def _warm_up(reference, task: Task, device: str) -> bool:
    """Run the reference once; returns whether the task is float32-only."""
    import torch
    torch_device = "cpu" if device == "cpu" else "cuda"
    configs = task.configs("seen")
    gen = torch.Generator().manual_seed(_seed(configs[0], WARMUP_SEED))
    try:
        args = list(reference.make_inputs(dict(configs[0].params), gen, torch_device))
        outs = _as_tuple(reference.reference(*_clone(args)))
    except Exception as exc:
        raise TaskBroken(f"the reference failed on {configs[0].name}: {type(exc).__name__}: {str(exc)[:200]}") from None
    floats = {str(t.dtype).removeprefix("torch.") for t in (*args, *outs)
              if isinstance(t, torch.Tensor) and t.is_floating_point()}
    return bool(floats) and floats <= {"float32", "float64"}


def import_reference(path: Path):
    """The task's reference module (trusted task code, from the pristine task folder)."""
    import importlib.util
    if not path.is_file():
        raise TaskBroken(f"{path.name}: file not found")
    spec = importlib.util.spec_from_file_location("gauntlet_reference", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001 -- a broken task may raise anything
        raise TaskBroken(f"importing {path.name} failed: {type(exc).__name__}: {str(exc)[:200]}") from None
    for name in ("make_inputs", "reference"):
        if not callable(getattr(module, name, None)):
            raise TaskBroken(f"{path.name} defines no callable {name}()")
    return module


def static_flags(task: Task, tree: Path, fp32_task: bool) -> list[str]:
    flags = []
    python_kernel = []          # per editable Python file: did it define a kernel (no no_custom_kernel)
    for rel in task.editable:
        path = tree / rel
        if not path.is_file():
            continue
        raw = path.read_bytes()
        if path.suffix == ".py":
            # Decoded as the importer decodes it (its coding declaration, a BOM): read as UTF-8, a
            # latin-1 or UTF-7 file was another text to the checks than to Python (a syntax error:
            # no flags at all). What the importer cannot decode does not import either.
            try:
                text = importlib.util.decode_source(raw)
            except (SyntaxError, UnicodeDecodeError, LookupError, ValueError):
                continue
            found = static_checks.check_python(text, custom_kernel=True, fp32_task=fp32_task, filename=rel)
            python_kernel.append(not any(f.startswith("no_custom_kernel") for f in found))
            flags += found
            continue
        text = raw.decode(errors="replace")
        if path.suffix in (".cu", ".hip", ".cuh", ".h", ".hpp", ".cpp", ".cc"):
            found = static_checks.check_native(text, fp32_task=fp32_task, filename=rel)
            if rel != task.entry:  # only the entry must hold the kernel itself
                found = [f for f in found if not f.startswith("no_custom_kernel")]
            flags += found
    if any(python_kernel):      # a task of several Python files (an imported entry that calls the kernel's
        flags = [f for f in flags if not f.startswith("no_custom_kernel")]    # module): one must hold it
    return flags


def _cpu_model() -> str | None:
    """The CPU's model name (Linux /proc/cpuinfo; platform.processor() elsewhere)."""
    import platform
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def environment(device: str, isolation: Isolation | None) -> dict:
    """What the numbers were measured on: the judge's own torch, triton, the CUDA/ROCm torch was built
    for, the vendor compilers, driver, GPU (or CPU) and OS; copied into result.json."""
    import platform
    import torch
    from runner.evaluator.build import compiler_versions
    env = {"python": platform.python_version(), "torch": torch.__version__,
           "cuda": torch.version.cuda, "hip": getattr(torch.version, "hip", None),
           "os": platform.platform(), "cpu": _cpu_model(), "device": device,
           "runner_isolation": isolation.mode if isolation else None, **compiler_versions()}
    try:
        import triton
        env["triton"] = triton.__version__
    except Exception:
        pass
    if device != "cpu":
        props = torch.cuda.get_device_properties(0)
        env.update({"gpu": props.name,
                    "arch": getattr(props, "gcnArchName", None) or f"sm_{props.major}{props.minor}"})
        tool = ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"] if device == "cuda" else \
            ["rocm-smi", "--showdriverversion"]
        try:
            out = subprocess.run(tool, capture_output=True, text=True, timeout=30)
            if out.returncode == 0:
                env["driver"] = out.stdout.strip().splitlines()[0][-60:]
        except (OSError, subprocess.TimeoutExpired, IndexError):
            pass
    return env


def _build(runner: RunnerClient, probe: bool = False) -> dict:
    """The runner's build reply (with `probe`, of the baseline's copy in a candidate's runner); a
    runner that died building (an import that exits) did not build."""
    try:
        with runner.watch.building() if runner.watch is not None else nullcontext():
            reply = runner.request({"op": "build", "probe": True} if probe else {"op": "build"})
        runner.loaded = runner.loaded or (not probe and reply.get("compiled") is True)
        return reply
    except RunnerFailed as exc:
        return {"ok": False, "compiled": False, "log": str(exc)}


def _runner_spec(task: Task, language: str, role: str) -> dict:
    if role == "baseline" and task.baseline_is_reference:
        return {"language": "python", "entry": task.reference.name, "symbol": "reference", "flags": ()}
    return {"language": language, "entry": task.entry, "symbol": task.symbol, "flags": task.compile_flags}


def evaluate(task: Task, candidate_dir: Path | None, device: str, splits=("seen", "unseen"),
             measure: bool = True, regime: str = "cold", graph: bool = False,
             max_speedup: float = MAX_SPEEDUP, drawn: list[Config] = (),
             baseline_only: bool = False, language: str | None = None, hide=(), out_dir: Path | None = None,
             workspace: bool = False, process_offset: bool | None = None, use_arena: bool | None = None,
             clean_room: bool | None = None) -> Evaluation:
    """Evaluate the candidate whose editable files are in `candidate_dir` (None: the task as shipped).
    `hide`: more paths no runner may see (the run dir); `out_dir`: where the verdict goes (no runner
    may write it); `workspace`: an agent's self-check in its own workspace (nothing hidden there);
    `process_offset`: measure the candidate's process offset (Judge.process_offset; default
    PROCESS_OFFSET for the device); `use_arena`: time both kernels on buffers in a judge-owned arena
    (arena.py; default: where the device is CUDA and the driver has the VMM API); `clean_room`: time
    the baseline again once the candidate is gone (Judge.clean_room; default CLEAN_ROOM for the device)."""
    language = language or task.language
    max_speedup = task.speedup_limit(max_speedup)
    evaluation = Evaluation(device=device, compiled=False, timing_meaningful=device != "cpu",
                            timing_method=timing.method(device, regime, graph) + ", judge's clock bounds each batch",
                            timing_regime=regime, max_speedup=max_speedup)
    folders = (task.root, *task.bases)
    digest_before = task_digest(folders)
    configs = {split: list(drawn) if split == "drawn" else task.configs(split) for split in splits}
    flags: list[str] = []
    runners: list[RunnerClient] = []
    started_runners: list[RunnerClient] = []     # every runner ever started, for what was seen of it from outside
    judge: Judge | None = None
    scratch = Path(tempfile.mkdtemp(prefix="gauntlet-judge-"))
    phases = Phases()
    started = time.perf_counter()
    try:
        hidden = {*folders, scratch, *(Path(h) for h in hide)}
        if candidate_dir is not None:
            hidden.add(Path(candidate_dir))
        if out_dir is not None:
            hidden.add(Path(out_dir))
        try:
            with phases("isolation probe"):
                isolation = choose(hidden, device, forbidden_write=(out_dir,) if out_dir else ())
        except IsolationError as exc:
            if not workspace:
                evaluation.error = str(exc)
                return evaluation
            # an agent's self-check in its own workspace: nothing there is hidden
            isolation = choose(hidden, device, allow_unisolated=True)
        flags += isolation.notes
        trace_library = None
        if devtrace.wanted(device) and measure:
            try:
                trace_library = devtrace.build(devtrace.cache_dir())
                isolation.extra_readable.append(trace_library.parent)
            except devtrace.Unavailable as exc:
                flags.append(f"note: no device trace ({str(exc)[:200]})")
        every = [c for split in splits for c in configs[split]]
        offset_pass = (measure and not baseline_only and bool(every)
                       and (PROCESS_OFFSET[device_kind(device)] if process_offset is None else process_offset))
        first = None          # where the offset is measured (Judge.quickest), found while the candidate builds

        def start(role: str, source: Path | None) -> RunnerClient:
            tree = kernel_tree(task.files, task.editable, source, scratch / role)
            if role == "baseline" and task.baseline_is_reference:
                shutil.copyfile(task.reference, tree / task.reference.name)
            probe = None
            if offset_pass:      # the baseline's files, built there first (in both runners: settle)
                probe = {"tree": scratch / "baseline", **_runner_spec(task, language, "baseline")}
            runner = RunnerClient(isolation, tree, device=device, role=role, probe=probe,
                                  trace_library=trace_library, **_runner_spec(task, language, role))
            runners.append(runner)
            started_runners.append(runner)
            return runner

        def retire(runner: RunnerClient) -> None:
            """A runner ended, and every process of its sandbox waited out (with them its GPU
            contexts and the work queued there) before anything else is timed."""
            members = runner.members()
            runners.remove(runner)
            runner.close()
            _wait_gone(members)

        def settle(runner: RunnerClient, probe_reply: dict, baseline_too: bool = True) -> dict:
            """The candidate's runner after its probe build: its process offset measured, then
            the candidate built in it (replacing the baseline). The candidate's build reply.

            `baseline_too`: the baseline's runner, which built a probe copy of its own first, loads
            its own copy at the same moment, so both processes go through the same loads between
            the offset and the timing: on an H100 the second native module a runner loaded moved
            its launches by +0.04 to +0.08 us, every time, the offset's whole error on a 2.6 us call
            (results/gpu-2026-11-27d.md). A candidate's runner started again after a crash
            comes without it: the baseline's own copy is loaded by then."""
            if probe_reply.get("compiled") is True:
                try:
                    with phases("timing: process offset"):
                        if os.environ.get("GAUNTLET_JUDGE_OFFSET_ALL"):   # bench: every config's offset in the trace, not applied
                            for config in every:
                                if config is not first:
                                    judge.time(baseline, runner, config, probe=True)
                        judge.baseline_offset_ms = judge.process_offset(baseline, runner, first)
                except (RunnerFailed, Mismatch) as exc:
                    judge.baseline_offset_ms = None
                    flags.append(f"note: the process offset was not measured ({str(exc)[:200]}); "
                                 "baseline times are from the baseline's own process")
            else:
                flags.append("note: the baseline did not build in the candidate's runner; baseline "
                             "times are from the baseline's own process")
            with phases("candidate build"):
                if not baseline_too:
                    return _build(runner)
                with ThreadPoolExecutor(max_workers=1) as pool:
                    own = pool.submit(_build, baseline)
                    reply = _build(runner)
                    own = own.result()
                if not own.get("compiled"):
                    raise TaskBroken("the baseline did not build its own copy after its probe copy: "
                                     + str(own.get("log", ""))[-1500:])
                return reply

        # The runners start first: each imports torch and what its guards need (seconds) while the
        # judge starts up and waits for the device. Nothing touches the GPU before their build,
        # which comes once the device is held.
        with phases("runner spawn"):
            baseline = start("baseline", None)
            candidate = None if baseline_only else start("candidate", candidate_dir)
        with exclusive_device(device) as held:
            try:
                with phases("reference import+warm-up"):
                    protocol.strict_float32()
                    reference = import_reference(task.reference)
                    fp32_task = _warm_up(reference, task, device)
            except TaskBroken as exc:
                evaluation.task_error = str(exc)
                evaluation.error = f"task: {exc}"
                return evaluation
            evaluation.environment = environment(device, isolation)
            judge = Judge(task, device, reference, fp32_task=fp32_task, regime=regime, graph=graph,
                          max_speedup=max_speedup, phases=phases,
                          use_arena=(ARENA[device_kind(device)] if use_arena is None else use_arena)
                          and arena.available(device))
            if use_arena and not judge.use_arena:
                flags.append(f"note: no arena on {device} here (NVIDIA's VMM API): each runner placed its own buffers")
            if baseline_only:
                evaluation.compile_log = "baseline only: no candidate was evaluated"
            else:
                tree = kernel_tree(task.files, task.editable, candidate_dir, scratch / "candidate-source")
                flags += static_flags(task, tree, fp32_task)
            # Both runners build at once (nvcc takes seconds each); neither sees the other. With the
            # offset pass the candidate's runner builds the baseline first, and its own kernel after.
            with phases("runner start+build"), ThreadPoolExecutor(max_workers=len(runners)) as pool:
                builds = {runner: pool.submit(_build, runner, offset_pass) for runner in runners}
                if offset_pass and builds[baseline].result().get("compiled"):
                    first = judge.quickest(baseline, every)
                builds = {runner: future.result() for runner, future in builds.items()}
            built = builds[baseline]
            if not built.get("compiled"):
                evaluation.task_error = "the baseline did not build: " + str(built.get("log", ""))[-1500:]
                evaluation.error = f"task: {evaluation.task_error}"
                return evaluation
            if candidate is not None:
                try:
                    reply = settle(candidate, builds[candidate]) if offset_pass else builds[candidate]
                except TaskBroken as exc:
                    evaluation.task_error = str(exc)
                    evaluation.error = f"task: {exc}"
                    return evaluation
                evaluation.compile_log = str(reply.get("log", ""))[-8000:]
                if reply.get("compiled") is True:
                    evaluation.compiled = True
                else:
                    retire(candidate)
                    candidate = None
            if judge.baseline_offset_ms is not None:
                evaluation.timing_method += ("; each baseline time moved to the candidate's runner process by "
                                             f"its offset, measured on {first.name} before the candidate was loaded")
            if measure and candidate is not None:
                timed = [(c.split, c.name) for split in splits for c in configs[split]]
                judge.watched = set(judge.rng.sample(timed, min(WATCHED_CONFIGS, len(timed))))
            launch_checked = False
            for split in splits:
                for config in configs[split]:
                    try:
                        row = judge.config_result(baseline, candidate, config, measure)
                        if row.correct and not launch_checked and device != "cpu" and language in ("cuda", "hip"):
                            launch_checked = True
                            args = judge.inputs(config, WARMUP_SEED)
                            judge.call(candidate, args, judge.expected(args), launch_check=True)
                    except TaskBroken as exc:
                        evaluation.task_error = evaluation.task_error or str(exc)
                        row = ConfigResult(config=config.name, split=split, params=dict(config.params),
                                           correct=False, error=f"task: {exc}")
                    except (RunnerFailed, Mismatch) as exc:
                        row = ConfigResult(config=config.name, split=split, params=dict(config.params),
                                           correct=False, error=str(exc)[:500])
                        if candidate is not None and candidate.proc.poll() is not None:
                            retire(candidate)    # what it left running is gone before its successor is timed
                            candidate = start("candidate", candidate_dir)     # a crash fails this config only
                            reply = _build(candidate, offset_pass)
                            if (settle(candidate, reply, False) if offset_pass else reply).get("compiled") is not True:
                                candidate = None
                        if baseline.proc.poll() is not None:
                            evaluation.error = f"the baseline runner died: {exc}"[:500]
                    except Exception as exc:  # the judge itself must not lose the other configs
                        traceback.print_exc()
                        row = ConfigResult(config=config.name, split=split, params=dict(config.params),
                                           correct=False, error=f"evaluator: {type(exc).__name__}: {exc}")
                    evaluation.configs.append(row)
            if measure and candidate is not None and (CLEAN_ROOM[device_kind(device)] if clean_room is None
                                                      else clean_room):
                # Every process of the candidate, and with them its GPU contexts and their queued
                # work, ends before the baseline's clean-room batches.
                retire(candidate)
                candidate = None
                with phases("timing: clean-room baseline"):
                    try:
                        judge.clean_room(baseline, evaluation.configs,
                                         {(c.split, c.name): c for split in splits for c in configs[split]})
                    except (RunnerFailed, Mismatch) as exc:
                        evaluation.error = evaluation.error or f"the baseline failed its clean-room batches: {exc}"[:500]
            flags += judge.flags
            if measure:   # graded against this GPU's measured ceilings, on the judge's own figures
                flags += roofline.annotate(evaluation, task, device)
            if judge.arena_configs:
                evaluation.timing_method += ("; each round's inputs and harness-made outputs at one place in one "
                                             "judge-owned arena for both kernels")
            if judge.arena_failures:
                flags.append(f"note: {len(judge.arena_failures)} timed config(s) without the arena, each runner placing "
                             f"its own buffers ({judge.arena_failures[0]})")
            covers = judge.launch_covers["baseline"] | judge.launch_covers["candidate"]
            if covers:
                evaluation.timing_method += f"; launches covered by {' / '.join(sorted(covers))}"
            if judge.launch_covers["baseline"] != judge.launch_covers["candidate"]:
                flags.append("note: the two runners' clocks covered launches differently "
                             f"({', '.join(sorted(covers))}): their times are less comparable")
            for role, count in judge.gate_gave_up.items():
                if count:
                    flags.append(f"note: the launch gate ran out on {count} timed call(s) of the {role} (a call "
                                 "that blocks the host before its launches are queued): their samples hold host time")
            if held:
                flags.append(held)
    finally:
        for runner in runners:
            for op, seconds in runner.op_seconds.items():
                phases.seconds[f"({runner.role} runner: {op})"] += seconds
        with phases("runner exit"):
            close_all(runners)
        if judge is not None:
            judge.close_arena()
        shutil.rmtree(scratch, ignore_errors=True)
        trace = os.environ.get("GAUNTLET_JUDGE_TRACE")
        if trace:
            phases.seconds["total"] = time.perf_counter() - started
            with open(trace, "a") as fh:
                fh.write(json.dumps({"task": task.id, "phases_s": dict(phases.seconds),
                                     "process_offset": judge.offset_record if judge else {},
                                     "baseline_offset_ms": judge.baseline_offset_ms if judge else None}) + "\n")
    for runner in started_runners:
        flags += runner.outside_findings
    changed = [p for p, h in task_digest(folders).items() if digest_before.get(p) != h]
    changed += [p for p in digest_before if not Path(p).exists()]
    if changed:
        flags.append("tampered_task_files: " + ", ".join(sorted({Path(p).name for p in changed})[:5]))
    for row in evaluation.configs:
        flags += row.flags
    evaluation.flags = list(dict.fromkeys(f for f in flags if not f.startswith("note:")))
    evaluation.notes = list(dict.fromkeys(f for f in flags if f.startswith("note:")))
    return evaluation
