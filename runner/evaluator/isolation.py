"""Where a kernel runner runs: a sandbox of its own inside the evaluation sandbox.

The judge starts every kernel runner (kernel_runner.py) through one of these, best first:

  bwrap     bubblewrap: new user, mount, pid, net, ipc and uts namespaces; a root file system of
            read-only binds of the system and Python directories only (never the task folders,
            the run dir or the judge's files), a private /tmp, its own work dir read-write, the GPU
            device nodes; it dies with the judge.
  unshare   util-linux unshare: new pid, mount, net, ipc and uts namespaces (and a user namespace
            when not root); the runner's first act, before any candidate code exists, is to mount
            empty tmpfs over the hidden paths and, as root, to drop to uid 65534. Killed with its
            pid namespace when unshare ends.
  setpriv   no namespaces can be made (a docker container's default seccomp profile refuses them):
            the runner runs as uid 65534 with no capabilities; the hidden paths are protected by
            permissions (the docker backend mounts the task folders under a 0700 directory), and the
            judge proves it before use.
  none      refused, unless GAUNTLET_ALLOW_UNISOLATED=1 (development only; every verdict then
            carries the note).

Whatever the mode, `Isolation.verify` runs a probe in the same sandbox that must find none of the
hidden paths readable and the judge's output folder not writable; a mode that fails it is not used.
"""
from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from runner.sandbox.base import parse_size
from runner.sandbox.confine import SYSTEM_DIRS, package_data, system_links_sys_and_gpus
from runner.evaluator.build import COMPILER_ENV
from runner.resources import IMPORT_ROOT
from runner.sandbox.hostfs import remove_tree

RUNNER_UID = 65534                  # the candidate's runner (and every runner in the namespace modes)
BASELINE_UID = 65533                # the baseline's runner in setpriv mode: the judge tells them apart by uid
UNISOLATED_ENV = "GAUNTLET_ALLOW_UNISOLATED"
HIDE_ENV = "GAUNTLET_EVAL_HIDE"       # more paths no runner may see (os.pathsep-separated): the run dir
MODES = ("bwrap", "unshare", "setpriv")
# What a candidate's runner may take of the host. Its exhaustion must be its own failure, never the
# judge's nor the baseline's: an OOM kill of the judge, or a full disk under the verdict, is an
# infra_error, an attempt that is not scored and that --resume redoes (a failing candidate's way out
# of its failure). Every file it writes is capped (RLIMIT_FSIZE), the bwrap sandbox's /tmp and
# /dev/shm are tmpfs of a fixed size (/dev itself read-only), the kernel's OOM killer takes it first (oom_score_adj 1000; a
# kernel may let it lower that to 0, never below: the judge and the baseline's runners are at -500
# where the judge holds CAP_SYS_RESOURCE), and where cgroups are writable its processes share a memory cap (tmpfs
# and memfd pages included, which no RSS shows) and a pid cap (judge/runners.py `runner_group`).
RUNNER_FILE_MAX_ENV, RUNNER_FILE_MAX = "GAUNTLET_RUNNER_FILE_MAX", "2g"
RUNNER_TMPFS = 1 << 30
CANDIDATE_OOM_SCORE_ADJ = 1000
TRUSTED_OOM_SCORE_ADJ = -500       # the judge's and the baseline's runners, where the judge may (CAP_SYS_RESOURCE)
# PyTorch's threads per process on device cpu (unless OMP_NUM_THREADS says otherwise), the judge's
# and each runner's: three processes share the cores there, and the idle threads of each one's pool
# spin between ops (1 thread: 15 % less CPU for the harness's own ops, issue 31). Times are not
# meaningful on the CPU, and the interpreter, most of a Triton call, uses one thread anyway.
CPU_THREADS = "1"
# ... and glibc keeps freed memory for the next allocation instead of mapping fresh pages each time
# (above 32 MB it always did): the interpreter's arrays and the harness's copies of a 36 MB config
# faulted in new pages on every call, a quarter of a call's CPU time as system time (an rmsnorm
# call of 3000x3000: 1.3 s of system time per 3 calls, 0.2 s so). Outputs a kernel leaves unwritten
# read what the allocator last held either way, as every allocation under 32 MB already did; the
# per-repetition perturbation and the checks catch a stale output, not fresh pages.
CPU_MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(1 << 30), "MALLOC_TRIM_THRESHOLD_": str(1 << 32)}
# The judge's cores: no runner may run there (taskset before exec; the runner's seccomp filter refuses
# sched_setaffinity, nofork.py), so however many threads a candidate keeps busy, the judge's processes
# that must keep up with the device (the DRAM witness's sampler decodes the counters' samples as they
# come, judge/dram.py) have cores of their own. "auto" (default): on a GPU device, the last cores of
# the judge's own set, one for every WITNESSES_PER_CORE GPUs of the host (evaluations side by side
# under --jobs each run a sampler, all on these cores), none on the CPU (the runners there are the
# work); "off"; or a comma-separated list of cores (tests).
JUDGE_CORES_ENV = "GAUNTLET_JUDGE_CORES"
WITNESSES_PER_CORE = 4       # a sampler's decode takes ~11 % of a core at its interval (an H200, session 22)
# Passed through to the runner when set; nothing else of the judge's environment is.
PASSED_ENV = ("LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
              "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "ROCM_PATH", "HIP_PATH", *COMPILER_ENV.values(),
              "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OMP_NUM_THREADS",
              "TORCH_CUDA_ARCH_LIST", "TRITON_PTXAS_PATH")


class IsolationError(RuntimeError):
    """No sandbox could be made for the kernel runner; the evaluation cannot be trusted."""


def _is_within(path: Path, other: Path) -> bool:
    return path == other or path.is_relative_to(other)


@dataclass
class Isolation:
    mode: str
    hidden: tuple[Path, ...]           # never visible to a runner
    device: str
    notes: list[str] = field(default_factory=list)
    extra_readable: list[Path] = field(default_factory=list)   # judge-owned folders a runner reads
    judge_cores: tuple[int, ...] = ()   # no runner runs on them (judge_cores()); () where none are kept
    # the suite's data and the checkout's history (data_folders()): in `hidden` too; bound inside a
    # Python installation's folder (an installed package's runner/suite), they are masked by a tmpfs
    data: tuple[Path, ...] = ()

    # -- commands -------------------------------------------------------------------------------
    def env(self, workdir: Path) -> dict:
        env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
        env.update({"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(workdir),
                    "TMPDIR": str(workdir / "tmp"), "PYTHONPATH": str(IMPORT_ROOT),
                    "PYTHONDONTWRITEBYTECODE": "1", "TRITON_CACHE_DIR": str(workdir / ".triton"),
                    "PYTHONUNBUFFERED": "1"})
        if self.device == "cpu":
            env["TRITON_INTERPRET"] = "1"
            env.setdefault("OMP_NUM_THREADS", CPU_THREADS)
            env.update(CPU_MALLOC)
        return env

    def runner_uid(self, role: str) -> int:
        return BASELINE_UID if role == "baseline" and self.mode == "setpriv" else RUNNER_UID

    def wrap(self, argv: list[str], workdir: Path, role: str = "candidate") -> list[str]:
        """argv run inside the sandbox, with `workdir` its only writable folder, under the runner's
        limits (limits_prefix)."""
        return [*limits_prefix(role), *off_cores(self.judge_cores), *self._sandboxed(argv, workdir, role)]

    def _sandboxed(self, argv: list[str], workdir: Path, role: str) -> list[str]:
        if self.mode == "bwrap":
            return [*self._bwrap(workdir), "--", *argv]
        if self.mode == "unshare":
            root = os.geteuid() == 0
            return ["unshare", "--pid", "--fork", "--kill-child", "--mount", "--mount-proc", "--net",
                    "--ipc", "--uts", "--propagation", "private", *([] if root else ["--user", "--map-root-user"]),
                    "--", *argv]
        if self.mode == "setpriv":
            uid = self.runner_uid(role)
            return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                    "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--", *argv]
        return list(argv)

    def runner_args(self) -> list[str]:
        """Arguments for kernel_runner.py: the prelude it runs before anything else."""
        if self.mode != "unshare":
            return []
        return ["--prelude", "unshare", *[a for p in self.hidden for a in ("--hide", str(p))]]

    def _bwrap(self, workdir: Path) -> list[str]:
        args = ["bwrap", "--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL",
                "--uid", str(RUNNER_UID), "--gid", str(RUNNER_UID)]
        # the private /tmp first: binds made after it may live under /tmp (a checkout or venv there)
        args += ["--dev", "/dev", "--proc", "/proc", "--size", str(RUNNER_TMPFS), "--tmpfs", "/tmp",
                 "--size", str(RUNNER_TMPFS), "--tmpfs", "/dev/shm"]
        readable = self._readable()
        for path in readable:
            args += ["--ro-bind", str(path), str(path)]
        for path in self.data:      # inside a bound folder (runner/suite of an installed package): emptied
            if path.is_dir() and any(_is_within(path, r) for r in readable):
                args += ["--size", "4096", "--tmpfs", str(path), "--remount-ro", str(path)]
        args += system_links_sys_and_gpus()
        # /dev itself is a tmpfs of bwrap's, of no fixed size and the runner's to write: read-only once
        # the GPU nodes are bound in (they stay usable; /dev/shm is a mount of its own)
        args += ["--remount-ro", "/dev"]
        args += ["--bind", str(workdir), str(workdir), "--chdir", str(workdir)]
        return args

    def _readable(self) -> list[Path]:
        """System and Python folders, never one that holds (or is inside) a hidden path, but for a
        Python installation's own folder whose only hidden paths are the suite's data (an installed
        package's runner/suite: masked, _bwrap). A source checkout on sys.path (PYTHONPATH) is never
        bound: its tasks, fixtures and git history hold every hidden config; only its runner/ is."""
        wanted = [Path(p) for p in SYSTEM_DIRS]
        wanted += [Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)]
        wanted += [Path(p) for p in sysconfig.get_paths().values()]
        wanted += [Path(p) for p in sys.path if p and Path(p).is_dir()]
        for tool in ("nvcc", "hipcc", "cc", "gcc"):
            found = shutil.which(tool)
            if found:
                wanted.append(Path(found).resolve().parent.parent)
        for var in COMPILER_ENV.values():     # a compiler named by path (build.find_compiler) runs in here
            if os.environ.get(var):
                wanted.append(Path(os.environ[var]).resolve().parent.parent)
        for var in ("CUDA_HOME", "CUDA_PATH", "ROCM_PATH", "HIP_PATH"):
            if os.environ.get(var):
                wanted.append(Path(os.environ[var]))
        wanted += self.extra_readable          # the judge's device-trace library (devtrace.py)
        installation = {Path(p).resolve() for p in sysconfig.get_paths().values()}
        installation |= {Path(p).resolve() for p in sys.path if p and Path(p).name in ("site-packages", "dist-packages")}
        chosen: list[Path] = [IMPORT_ROOT / "runner"]
        for path in wanted:
            try:
                path = path.resolve()
            except OSError:
                continue
            if not path.exists() or path == Path("/"):
                continue
            held = [h for h in self.hidden if _is_within(h, path)]
            if held and not (path in installation and set(held) <= set(self.data)):   # would expose a hidden path
                continue
            if any(_is_within(path, c) for c in chosen):
                continue
            chosen = [c for c in chosen if not _is_within(c, path)] + [path]
        return sorted(chosen, key=lambda p: len(p.parts))

    # -- the conformance probe ------------------------------------------------------------------
    def verify(self, workdir: Path, forbidden_write: tuple[Path, ...] = ()) -> str | None:
        """None when a process in this sandbox sees no hidden path and cannot write the judge's
        folders; else what it could reach."""
        script = ("import os,sys\n"
                  "hidden, unwritable = sys.argv[1].split('\\n'), sys.argv[2].split('\\n')\n"
                  "def seen(p):\n"
                  "    try:\n"
                  "        return bool(os.listdir(p)) if os.path.isdir(p) else os.access(p, os.R_OK)\n"
                  "    except OSError:\n"
                  "        return False\n"
                  "bad = [p for p in hidden if p and seen(p)]\n"
                  "bad += ['write:' + p for p in unwritable if p and os.path.exists(p) and os.access(p, os.W_OK)]\n"
                  "print('\\n'.join(bad))\n")
        argv = [sys.executable, "-c", script, "\n".join(map(str, self.hidden)),
                "\n".join(map(str, forbidden_write))]
        if self.mode == "unshare":    # the prelude hides, as it does for the runner
            argv = [sys.executable, "-m", "runner.evaluator.isolation", *self.runner_args(),
                    "--tree", str(workdir), "--", *argv]
        try:
            proc = subprocess.run(self.wrap(argv, workdir), capture_output=True, text=True, timeout=60,
                                  env=self.env(workdir), cwd=str(workdir))
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"probe failed to start: {exc}"
        if proc.returncode != 0:
            return f"probe exited {proc.returncode}: {(proc.stderr or proc.stdout).strip()[-300:]}"
        reached = proc.stdout.strip()
        return f"reachable from the runner sandbox: {reached.replace(chr(10), ', ')[:300]}" if reached else None


def limits_prefix(role: str) -> list[str]:
    """argv that sets a runner's limits and execs the rest (the process stays the one the judge
    started): every file capped, no core dumps; a candidate's taken first by the OOM killer."""
    prefix = []
    if shutil.which("prlimit"):
        size = parse_size(os.environ.get(RUNNER_FILE_MAX_ENV, RUNNER_FILE_MAX))
        hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
        if hard != resource.RLIM_INFINITY:       # never above the judge's own (a container's ulimit):
            size = min(size, hard)               # raising a hard limit is refused
        prefix += ["prlimit", f"--fsize={size}:{size}", "--core=0:0", "--"]
    if shutil.which("choom") and (role == "candidate" or _may_lower_oom_score()):
        prefix += ["choom", "-n", str(CANDIDATE_OOM_SCORE_ADJ if role == "candidate" else TRUSTED_OOM_SCORE_ADJ), "--"]
    return prefix


def _gpus_on_host() -> int:
    """NVIDIA's driver lists every GPU of the host here, whatever CUDA_VISIBLE_DEVICES says."""
    try:
        return max(1, len(os.listdir("/proc/driver/nvidia/gpus")))
    except OSError:
        return 1


def judge_cores(device: str) -> tuple[int, ...]:
    """The cores kept for the judge's own processes (JUDGE_CORES_ENV), or ()."""
    setting = os.environ.get(JUDGE_CORES_ENV, "auto").strip()
    try:
        own = sorted(os.sched_getaffinity(0))
    except OSError:
        return ()
    if setting == "off" or not shutil.which("taskset"):
        return ()
    if setting == "auto":
        kept = -(-_gpus_on_host() // WITNESSES_PER_CORE)
        return tuple(own[-kept:]) if device != "cpu" and len(own) > kept else ()
    try:
        cores = tuple(sorted({int(c) for c in setting.split(",")}))
    except ValueError:
        return ()
    return cores if set(cores) <= set(own) and len(cores) < len(own) else ()


def off_cores(cores: tuple[int, ...]) -> list[str]:
    """argv that runs the rest on every core of the judge's set but `cores` (exec: the same process)."""
    if not cores:
        return []
    others = sorted(os.sched_getaffinity(0) - set(cores))
    return ["taskset", "--cpu-list", ",".join(map(str, others))]


def on_cores(cores: tuple[int, ...]) -> list[str]:
    """argv that runs the rest on `cores` alone: a process of the judge's that must not be starved."""
    return ["taskset", "--cpu-list", ",".join(map(str, cores))] if cores else []


def _may_lower_oom_score() -> bool:
    """CAP_SYS_RESOURCE in this process's effective set (a root without it may not go below 0)."""
    try:
        with open("/proc/self/status") as fh:
            caps = next(line for line in fh if line.startswith("CapEff:")).split()[1]
        return bool(int(caps, 16) >> 24 & 1)
    except (OSError, StopIteration, ValueError, IndexError):
        return False


def protect_from_oom() -> None:
    """The judge's own process last in the OOM killer's order where it may say so (CAP_SYS_RESOURCE):
    a candidate may lower its runner's 1000 back to 0 on some kernels, and memory no process's RSS
    shows (a memfd written, never mapped) would then make the judge, the largest, the one killed."""
    if _may_lower_oom_score():
        try:
            with open("/proc/self/oom_score_adj", "w") as fh:
                fh.write(str(TRUSTED_OOM_SCORE_ADJ))
        except OSError:
            pass


def prepare_workdir(workdir: Path, mode: str, uid: int = RUNNER_UID) -> None:
    """The runner's own folder, writable by the uid it runs as."""
    (workdir / "tmp").mkdir(parents=True, exist_ok=True)
    if mode in ("unshare", "setpriv") and os.geteuid() == 0:
        for path in [workdir, *workdir.rglob("*")]:
            try:
                os.lchown(path, uid, uid)
            except OSError:
                pass


def hiding_the_temp_folder(paths) -> tuple[Path, Path] | None:
    """(the first of `paths` that holds the temporary folder, that folder), or None. The runners'
    own folders and the isolation probe's are made in the temporary folder, so a folder hidden from
    the runners must not hold it (`--out /tmp`): each runner would be hidden from itself."""
    temp = Path(tempfile.gettempdir()).resolve()
    holding = sorted(Path(p) for p in paths if temp.is_relative_to(Path(p).resolve()))
    return (holding[0], temp) if holding else None


def data_folders() -> tuple[Path, ...]:
    """Hidden from every runner whatever task it runs: the suite's task data (confine.package_data:
    every task's hidden configs and solution, the test fixtures' tasks, the run records) and the
    checkout's git history, whose objects hold them all."""
    git = IMPORT_ROOT / ".git"
    return tuple(sorted({*package_data(), *([git.resolve()] if git.exists() else [])}))


def choose(hidden, device: str, forbidden_write=(), allow_unisolated: bool = False) -> Isolation:
    """The best mode that works here and passes the probe; IsolationError when none does (unless
    GAUNTLET_ALLOW_UNISOLATED=1, or `allow_unisolated`). `hidden`: the task's own paths; the suite's
    data (data_folders) is hidden as well."""
    data, cores = data_folders(), judge_cores(device)
    hidden = tuple(sorted({Path(p).resolve() for p in hidden if p} | set(data)))
    failures = []
    forced = os.environ.get("GAUNTLET_RUNNER_ISOLATION")   # tests pin a mode
    modes = (forced,) if forced and forced != "none" else MODES
    if forced != "none":
        for mode in modes:
            if mode == "bwrap" and not shutil.which("bwrap"):
                failures.append("bwrap: not installed")
                continue
            if mode == "unshare" and not shutil.which("unshare"):
                failures.append("unshare: not installed")
                continue
            if mode == "setpriv" and (not shutil.which("setpriv") or os.geteuid() != 0):
                failures.append("setpriv: needs root and setpriv")
                continue
            iso = Isolation(mode, hidden, device, judge_cores=cores, data=data)
            probe_dir = Path(tempfile.mkdtemp(prefix=f"gauntlet-runner-probe-{mode}-"))
            prepare_workdir(probe_dir, mode)
            problem = iso.verify(probe_dir, tuple(Path(p) for p in forbidden_write))
            remove_tree(probe_dir, ignore_errors=True)
            if problem is None:
                return iso
            failures.append(f"{mode}: {problem}")
    if allow_unisolated or os.environ.get(UNISOLATED_ENV) == "1":
        iso = Isolation("none", hidden, device, judge_cores=cores, data=data)
        iso.notes.append("note: kernel runners NOT isolated (GAUNTLET_ALLOW_UNISOLATED=1): "
                         + "; ".join(failures)[:300])
        return iso
    raise IsolationError("no sandbox for the kernel runner works here (" + "; ".join(failures)[:600] +
                         "); install bubblewrap, or run where unshare or setpriv works (docs/evaluation.md)")


def apply_prelude(mode: str, hidden: list[str], tree: str) -> None:
    """unshare mode, in the runner before any candidate code: hide, then drop root."""
    if mode != "unshare":
        return
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p)
    ms_rec, ms_private = 16384, 1 << 18
    if libc.mount(b"none", b"/", None, ms_rec | ms_private, None) != 0:
        raise SystemExit(f"prelude: cannot make mounts private (errno {ctypes.get_errno()})")
    for path in hidden:
        p = Path(path)
        target = p if p.is_dir() else p.parent
        if not target.exists():
            continue
        if libc.mount(b"tmpfs", str(target).encode(), b"tmpfs", 0, b"size=1m,mode=0755") != 0:
            raise SystemExit(f"prelude: cannot hide {target} (errno {ctypes.get_errno()})")
    if os.geteuid() == 0 and os.environ.get("GAUNTLET_PRELUDE_KEEP_ROOT") != "1":
        os.setgroups([])
        os.setgid(RUNNER_UID)
        os.setuid(RUNNER_UID)
    os.chdir(tree)


def _probe_main(argv: list[str]) -> int:
    """`python -m runner.evaluator.isolation --prelude unshare --hide P... --tree D -- CMD...`:
    the probe under the same prelude as a runner."""
    import argparse
    split = argv.index("--")
    parser = argparse.ArgumentParser()
    parser.add_argument("--prelude", default="")
    parser.add_argument("--hide", action="append", default=[])
    parser.add_argument("--tree", required=True)
    args = parser.parse_args(argv[:split])
    apply_prelude(args.prelude, args.hide, args.tree)
    os.execvp(argv[split + 1], argv[split + 1:])
    return 127


if __name__ == "__main__":
    sys.exit(_probe_main(sys.argv[1:]))
