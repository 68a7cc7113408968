"""Docker sandbox: one container per phase (agent, evaluation), driven through the docker SDK.

The container's own process is `sleep infinity` under docker's init, run as nobody (65534); every
exec runs as the agent user (uid 1000, or the host uid when the runner is not root) inside
`setsid --wait timeout --signal=TERM --kill-after=<grace> <timeout> argv`, so the budget is enforced
inside the container, with a host-side watchdog as backstop. After each exec every process of the
agent user in the container is SIGKILLed (`kill -9 -1` run as that user: atomic against fork, and it
cannot reach init or the keepalive, which belong to another uid). stop() removes the container, so
nothing it started survives.

Isolation (docs/docker.md has the full table and the `docker run` equivalent):
  never privileged; cap_drop ALL; no-new-privileges; read-only root filesystem; tmpfs /tmp and
  /home/agent with a size cap; memory (no swap), CPU and pids limits; RLIMIT_FSIZE on every file;
  a watchdog on the workspace's total size; network none unless spec.network; labels
  gauntlet.* on every container (`gauntlet gc` removes them all).

Limits come from the environment so operators and tests can tighten them without code:
  GAUNTLET_DOCKER_MEMORY (8g)  GAUNTLET_DOCKER_CPUS (min(4, host))  GAUNTLET_DOCKER_PIDS (1024)
  GAUNTLET_DOCKER_TMPFS (1g)   GAUNTLET_DOCKER_SHM (1g)  GAUNTLET_DOCKER_FILE_MAX (1g, per file)
  GAUNTLET_DOCKER_WORKSPACE_MAX (2g, total)  GAUNTLET_DOCKER_WORKSPACE_FILES (100000)
  GAUNTLET_DOCKER_LOG_MAX (64m per captured stream)  GAUNTLET_ROCM_SECCOMP (unconfined)
"""
from __future__ import annotations

import grp
import io
import os
import socket
import tarfile
import threading
import time
import uuid
from pathlib import Path, PurePosixPath

from runner.sandbox.base import ExecResult, ResourceLimits, SandboxSpec, parse_size
from runner.sandbox.hostfs import DeadlineFreeze, DiskWatch, _lchown_tree, copy_path, pids_in_namespace_of, remove_tree

MARKER = "GAUNTLET_SANDBOX_EXEC"
AGENT_UID = 1000
KEEPALIVE_USER = "65534:65534"
RUNNER_TARGET = "/opt/gauntlet"          # the repo's runner/ package is mounted read-only under here
MANAGED = "gauntlet.managed"
IMAGE_PYTHON = "/opt/venv/bin/python"   # every image has it (scripts/images/install-python.sh)
JUDGE_DIR = "/gauntlet/judge"
JUDGE_CAPS = ["SETUID", "SETGID", "CHOWN", "FOWNER", "DAC_OVERRIDE", "KILL",
              "SYS_PTRACE"]   # the process watch reads the runner's programs in /proc (evaluator/procwatch.py)
WATCHDOG_MARGIN_S = 5.0
FREEZE_LEAD_S = 2.0
KILL_EXEC_S = 5.0          # how long the exec that kills an agent's processes may take (_kill_all)
PACKAGE = Path(__file__).resolve().parent.parent     # runner/, wherever it is installed

_CLIENT = None
_CLIENT_LOCK = threading.Lock()


def client():
    """One docker client per process (DOCKER_HOST etc. honoured by docker.from_env)."""
    global _CLIENT
    with _CLIENT_LOCK:
        if _CLIENT is None:
            import docker
            _CLIENT = docker.from_env(timeout=120)
        return _CLIENT


def limits() -> dict:
    env = os.environ.get
    per_exec = ResourceLimits.from_env("GAUNTLET_DOCKER_")
    return {
        "memory": per_exec.memory, "cpus": per_exec.cpus, "pids": per_exec.pids,
        "tmpfs": parse_size(env("GAUNTLET_DOCKER_TMPFS", "1g")),
        "shm": parse_size(env("GAUNTLET_DOCKER_SHM", "1g")),
        "file_max": parse_size(env("GAUNTLET_DOCKER_FILE_MAX", "1g")),
        "workspace_max": parse_size(env("GAUNTLET_DOCKER_WORKSPACE_MAX", "2g")),
        "workspace_files": int(env("GAUNTLET_DOCKER_WORKSPACE_FILES", "100000")),
        "log_max": parse_size(env("GAUNTLET_DOCKER_LOG_MAX", "64m")),
    }


# -- GPUs ----------------------------------------------------------------------------------------
def amd_render_nodes() -> list[str]:
    """/dev/dri/renderD* nodes of AMD GPUs (vendor 0x1002), in minor-number order."""
    nodes = []
    for node in sorted(Path("/dev/dri").glob("renderD*"), key=lambda p: int(p.name[7:] or 0)):
        vendor = Path("/sys/class/drm") / node.name / "device" / "vendor"
        try:
            if vendor.read_text().strip().lower() != "0x1002":
                continue
        except OSError:
            pass
        nodes.append(str(node))
    return nodes


def rocm_devices(gpu_ids: tuple[str, ...]) -> list[str]:
    """The attempt's render node(s): ids are node names (renderD129, /dev/dri/renderD129) or indexes
    into amd_render_nodes(); none given: every AMD render node."""
    nodes = amd_render_nodes()
    if not gpu_ids:
        return nodes
    chosen = []
    for gid in gpu_ids:
        if gid.isdigit():
            if int(gid) >= len(nodes):
                raise RuntimeError(f"rocm GPU index {gid}: this host has {len(nodes)} AMD render node(s)")
            chosen.append(nodes[int(gid)])
        else:
            chosen.append(gid if gid.startswith("/dev/") else f"/dev/dri/{gid}")
    return chosen


def host_gpu_groups(paths: list[str]) -> list[str]:
    """Numeric gids that own the device nodes, plus the host's video and render groups: the names
    may not exist in the image, so numbers are passed."""
    gids = set()
    for name in ("video", "render"):
        try:
            gids.add(grp.getgrnam(name).gr_gid)
        except KeyError:
            pass
    for path in paths:
        try:
            gids.add(os.stat(path).st_gid)
        except OSError:
            pass
    return [str(g) for g in sorted(gids) if g != 0]


def gpu_options(spec: SandboxSpec) -> tuple[dict, dict]:
    """(container kwargs, environment) for the platform's GPU plumbing."""
    if spec.platform == "cuda":
        from docker.types import DeviceRequest
        if spec.gpu_ids:
            request = DeviceRequest(device_ids=list(spec.gpu_ids), capabilities=[["gpu"]])
            visible = ",".join(spec.gpu_ids)
        else:
            request = DeviceRequest(count=-1, capabilities=[["gpu"]])
            visible = "all"
        return ({"device_requests": [request]},
                {"NVIDIA_VISIBLE_DEVICES": visible, "NVIDIA_DRIVER_CAPABILITIES": "compute,utility"})
    if spec.platform == "rocm":
        render = rocm_devices(spec.gpu_ids)
        devices = ["/dev/kfd", *render]
        kwargs = {"devices": [f"{d}:{d}:rwm" for d in devices], "group_add": host_gpu_groups(devices)}
        seccomp = os.environ.get("GAUNTLET_ROCM_SECCOMP", "unconfined")
        kwargs["security_opt_extra"] = [f"seccomp={seccomp}"] if seccomp else []
        visible = ",".join(str(i) for i in range(len(render)))  # inside, GPUs are numbered from 0
        return kwargs, {"HIP_VISIBLE_DEVICES": visible, "ROCR_VISIBLE_DEVICES": visible}
    return {}, {}


class DockerSandbox:
    def __init__(self, spec: SandboxSpec):
        from docker.types import Mount as DMount, Ulimit
        from runner.sandbox.images import image_ref

        self.spec = spec
        self.client = client()
        self.limits = limits()
        if spec.limits is not None:   # a phase's own limits (agents under --jobs) only tighten these
            for key in ("memory", "cpus", "pids"):
                self.limits[key] = min(self.limits[key], getattr(spec.limits, key))
        self.container = None
        self._stopped = False
        self._dead = False
        self._owner: tuple[int, int] | None = None
        self.image = spec.image or image_ref(spec.platform)

        # Who the agent is: uid 1000 when the runner is root (the workspace is chowned to it for the
        # phase and back afterwards); otherwise the runner's own uid, which already owns it.
        if os.geteuid() == 0:
            self.uid, self.gid = AGENT_UID, AGENT_UID
        else:
            self.uid, self.gid = os.geteuid(), os.getegid()
        self.user = f"{self.uid}:{self.gid}"
        # The evaluation's judge runs as root in its container, with only the capabilities it needs
        # to start kernel runners as another uid (evaluator/isolation.py, setpriv mode) and to read
        # what they wrote; the task folders and the verdict live under JUDGE_DIR, a 0700 tmpfs no
        # runner can enter.
        judge = spec.role == "eval"
        if judge:
            self.user = "0:0"

        workdir = Path(spec.workdir).resolve()
        # host path -> container path, most specific first (path() and copy_* use it)
        self._maps: list[tuple[Path, str, bool]] = [(workdir, spec.workdir_target, False)]
        mounts = [DMount(spec.workdir_target, str(workdir), type="bind", read_only=False)]
        for m in spec.mounts:
            src = Path(m.source).resolve()
            mounts.append(DMount(m.target, str(src), type="bind", read_only=m.read_only))
            self._maps.append((src, m.target, m.read_only))
        # The runner package, read-only: the evaluator (and the agent's self-check) import it from
        # here, so images need no rebuild when the code changes.
        runner_src = PACKAGE
        mounts.append(DMount(f"{RUNNER_TARGET}/runner", str(runner_src), type="bind", read_only=True))
        self._maps.append((runner_src, f"{RUNNER_TARGET}/runner", True))
        self._maps.sort(key=lambda item: len(item[0].parts), reverse=True)

        gpu_kwargs, gpu_env = gpu_options(spec)
        security = ["no-new-privileges:true", *gpu_kwargs.pop("security_opt_extra", [])]
        self.env = {"HOME": "/home/agent", "USER": "agent", "TMPDIR": "/tmp",
                    "PYTHONPATH": RUNNER_TARGET, "PYTHONDONTWRITEBYTECODE": "1", "GAUNTLET_SANDBOX": "docker",
                    "GAUNTLET_GPU_IDS": ",".join(spec.gpu_ids), **gpu_env, **spec.env}
        lim = self.limits
        from runner import __version__
        self.labels = {MANAGED: "true", "gauntlet.role": spec.role, "gauntlet.platform": spec.platform,
                       "gauntlet.version": __version__, "gauntlet.runner_pid": str(os.getpid()),
                       "gauntlet.created": str(int(time.time())),
                       **{str(k): str(v) for k, v in spec.labels.items()}}
        self.name = f"gauntlet-{spec.role}-{uuid.uuid4().hex[:12]}"
        tmpfs_opts = f"rw,nosuid,nodev,size={lim['tmpfs']}"
        self._create_kwargs = dict(
            image=self.image, command=["sleep", "infinity"], name=self.name, detach=True, init=True,
            # an exec gets the capabilities of the container's user: the judge's container runs as root
            user="0:0" if judge else KEEPALIVE_USER, working_dir=spec.workdir_target, hostname="sandbox",
            environment=self.env, labels=self.labels, mounts=mounts,
            network_mode="bridge" if spec.network else "none",
            read_only=True,
            tmpfs={"/tmp": f"{tmpfs_opts},mode=1777", "/var/tmp": f"{tmpfs_opts},mode=1777",
                   "/home/agent": f"{tmpfs_opts},uid={self.uid},gid={self.gid},mode=0700",
                   **({JUDGE_DIR: f"{tmpfs_opts},mode=0700"} if judge else {}),
                   # an installed package's runner/suite holds every task's hidden configs and
                   # solution: emptied in every container (agents' and the judge's runners alike)
                   **({f"{RUNNER_TARGET}/runner/suite": "ro,size=4k,mode=0555"} if (PACKAGE / "suite").is_dir() else {})},
            privileged=False, cap_drop=["ALL"], cap_add=JUDGE_CAPS if judge else None, security_opt=security,
            mem_limit=lim["memory"], memswap_limit=lim["memory"], pids_limit=lim["pids"],
            nano_cpus=int(lim["cpus"] * 1e9), shm_size=lim["shm"], ipc_mode="private",
            ulimits=[Ulimit(name="fsize", soft=lim["file_max"], hard=lim["file_max"]),
                     Ulimit(name="core", soft=0, hard=0)],
            **gpu_kwargs)

        self._writable = [workdir] + [Path(m.source).resolve() for m in spec.mounts if not m.read_only]
        if os.geteuid() == 0:
            st = workdir.stat()
            self._owner = (st.st_uid, st.st_gid)
            for path in self._writable:
                _lchown_tree(path, self.uid, self.gid)
        try:
            self.container = self.client.containers.run(**self._create_kwargs)
            if judge:   # docker gives a tmpfs root 0755 whatever its mode option says
                self.container.exec_run(["chmod", "0700", JUDGE_DIR], user="0:0")
        except Exception:
            self._restore_owner()
            raise

    # -- paths ---------------------------------------------------------------------------------------
    def path(self, host_path: Path) -> str:
        p = Path(host_path).resolve()
        for src, target, _ro in self._maps:
            if p == src or p.is_relative_to(src):
                rel = p.relative_to(src).as_posix()
                return target if rel == "." else str(PurePosixPath(target) / rel)
        raise ValueError(f"{host_path} is not under the sandbox's workdir or mounts")

    def _host(self, container_path: str) -> tuple[Path, bool] | None:
        cp = PurePosixPath(container_path)
        for src, target, ro in sorted(self._maps, key=lambda item: len(item[1]), reverse=True):
            t = PurePosixPath(target)
            if cp == t or cp.is_relative_to(t):
                return src / cp.relative_to(t), ro
        return None

    # -- exec ----------------------------------------------------------------------------------------
    def exec(self, argv, *, timeout, cwd=None, env=None, stdout=None, stderr=None, stdin=None,
             grace=10.0) -> ExecResult:
        if self.container is None or self._stopped or self._dead:
            raise RuntimeError(f"sandbox {self.name} is stopped")
        api = self.client.api
        token = uuid.uuid4().hex
        # an agent's workspace is copied at the budget from here, with the container paused; its
        # SIGTERM (inside) comes FREEZE_LEAD_S later, so the copy cannot miss the budget's end on a
        # slow engine; what it writes after the budget is undone either way
        lead = FREEZE_LEAD_S if self.spec.role == "agent" else 0.0
        wrapped = ["setsid", "--wait", "timeout", "--signal=TERM", f"--kill-after={max(grace, 0.1):g}s",
                   f"{max(timeout + lead, 0.1):g}s", *argv]
        full_env = {**self.env, **(env or {}), MARKER: token}
        start = time.monotonic()
        exec_id = api.exec_create(self.container.id, wrapped, stdin=stdin is not None, stdout=True,
                                  stderr=True, tty=False, user=self.user,
                                  workdir=cwd or self.spec.workdir_target, environment=full_env)["Id"]
        sock = api.exec_start(exec_id, socket=True)
        raw = getattr(sock, "_sock", sock)
        if stdin is not None:
            try:
                raw.sendall(stdin)
            except OSError:
                pass
        if stdin is not None:
            try:
                raw.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        pump = _Pump(sock, stdout, stderr, self.limits["log_max"])
        pump.start()

        watchdog_at = start + timeout + lead + grace + WATCHDOG_MARGIN_S
        killed_reason = None
        next_check = start + 1.0
        # an agent's workspace as it was at the budget: what it edits in the grace is not evaluated
        freeze = DeadlineFreeze(Path(self.spec.workdir)) if self.spec.role == "agent" else None
        # the workspace's size, deleted files the container's processes hold open on its filesystem
        # (they are in the host's /proc too), and that filesystem's free space (hostfs.DiskWatch)
        watch = DiskWatch(Path(self.spec.workdir), self.limits["workspace_max"], self.limits["workspace_files"])
        while pump.is_alive():
            to_budget = start + timeout - time.monotonic()   # wake at the budget while the copy is due
            pump.join(timeout=max(0.01, min(0.2, to_budget)) if freeze and freeze.copy is None else 0.2)
            now = time.monotonic()
            if not pump.is_alive():
                break
            if freeze is not None and freeze.copy is None and now >= start + timeout:
                self._frozen(freeze.take)
            # The command is gone but something it left holds its stdout open (the engine would wait
            # ~2 s for it): do not let that something run on.
            try:
                if not api.exec_inspect(exec_id).get("Running", True):
                    break
            except Exception:
                pass
            if now >= watchdog_at:
                killed_reason = "watchdog"   # the in-container timeout did not end it: kill from here
                break
            if now >= next_check:   # the workdir is the only writable host storage, in every role
                next_check = now + 1.0
                why = watch.check(self._pids())
                if why:
                    killed_reason = f"{self.spec.workdir_target}: {why}"
                    break
        # Whether it finished or not, nothing it started may outlive the exec.
        self._kill_all()
        pump.join(timeout=10)
        if pump.is_alive():          # the stream did not close: nothing left to ask politely
            self._hard_kill()
            pump.join(timeout=10)
        pump.close()
        note = freeze.restore() if freeze is not None else None
        if note and stderr:
            with open(stderr, "ab") as fh:
                fh.write(f"\n{note}\n".encode())
        seconds = time.monotonic() - start
        info = {}
        try:
            info = api.exec_inspect(exec_id)
        except Exception:
            pass
        code = None if info.get("Running") else info.get("ExitCode")
        # `timeout` ends the command at the budget at the latest, so a command that ran that long and
        # did not exit 0 was stopped by it (status 124, or 137/9 when --kill-after was needed).
        timed_out = killed_reason == "watchdog" or (code != 0 and seconds >= timeout)
        if killed_reason and killed_reason != "watchdog":
            if stderr:
                with open(stderr, "ab") as fh:
                    fh.write(f"\ngauntlet: agent killed: {killed_reason}\n".encode())
            code = 137 if code in (None, 0) else code
        if pump.truncated and stderr:
            with open(stderr, "ab") as fh:
                fh.write(f"\ngauntlet: output truncated at {self.limits['log_max']} bytes per stream\n".encode())
        return ExecResult(returncode=None if timed_out else code, timed_out=timed_out, seconds=seconds,
                          stdout_path=Path(stdout) if stdout else None,
                          stderr_path=Path(stderr) if stderr else None, containment="container")

    def _pids(self) -> list[int]:
        """The container's processes, by the host's pid of its init (its pid namespace)."""
        try:
            init = self.client.api.inspect_container(self.container.id)["State"]["Pid"]
        except Exception:
            return []
        return pids_in_namespace_of(init) if init else []

    def _frozen(self, action) -> None:
        """`action` while every process in the container is paused (the cgroup freezer), so that a
        copy of the workspace is of one instant."""
        try:
            self.container.pause()
        except Exception:
            action()                 # not pausable (already gone): the copy is still of the deadline
            return
        try:
            action()
        finally:
            try:
                self.container.unpause()
            except Exception:
                pass

    def _kill_all(self) -> None:
        """SIGKILL every process of the agent user: kill(-1) as that uid spares only other uids
        (init and the keepalive) and the caller; it is atomic against fork. Looped until none is left."""
        if self._dead:
            return
        script = "n=0; while kill -9 -1 2>/dev/null && [ $n -lt 200 ]; do n=$((n+1)); done; exit 0"
        outcome: list = []

        def kill() -> None:
            try:
                result = self.container.exec_run(["/bin/sh", "-c", script], user=self.user, stdout=True,
                                                  stderr=True)
                outcome.append(result.exit_code == 0)
            except Exception:
                outcome.append(False)
        # In a container whose pids limit a fork bomb holds, the engine may take a minute to fail the
        # exec (an attempt took 122 s on a 40 s budget): it gets KILL_EXEC_S, then the container goes.
        killer = threading.Thread(target=kill, name="docker-kill-all", daemon=True)
        killer.start()
        killer.join(timeout=KILL_EXEC_S)
        if outcome != [True]:
            self._hard_kill()

    def _hard_kill(self) -> None:
        self._dead = True
        try:
            self.container.kill()
        except Exception:
            pass

    # -- copies --------------------------------------------------------------------------------------
    def copy_in(self, source: Path, target: str) -> None:
        mapped = self._host(target)
        if mapped and not mapped[1]:
            _copy(Path(source), mapped[0])
            if os.geteuid() == 0:
                _lchown_tree(mapped[0], self.uid, self.gid)
            return
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            tar.add(str(source), arcname=PurePosixPath(target).name)
        self.container.put_archive(str(PurePosixPath(target).parent), buf.getvalue())

    def copy_out(self, source: str, target: Path) -> None:
        mapped = self._host(source)
        if mapped:
            _copy(mapped[0], Path(target))
            return
        stream, _ = self.container.get_archive(source)
        buf = io.BytesIO(b"".join(stream))
        target = Path(target)
        with tarfile.open(fileobj=buf) as tar, tempfile_dir(target.parent) as tmp:
            tar.extractall(tmp, filter="data")
            _copy(Path(tmp) / PurePosixPath(source).name, target)

    # -- stop ----------------------------------------------------------------------------------------
    def stop(self) -> None:
        """Remove the container (SIGKILL to its init: every process in it dies), then hand the
        workspace back to the runner's user. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        if self.container is not None:
            try:
                self.container.remove(force=True)
            except Exception as exc:  # already gone is fine; anything else is an infra error
                if "No such container" not in str(exc) and "404" not in str(exc):
                    raise
        self._restore_owner()

    def _restore_owner(self) -> None:
        if self._owner is not None:
            for path in self._writable:
                _lchown_tree(path, *self._owner)
            self._owner = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class _Pump(threading.Thread):
    """Demultiplexes the exec's stream into the host files, each capped at `cap` bytes."""

    def __init__(self, sock, stdout, stderr, cap: int):
        super().__init__(daemon=True)
        self.sock = sock
        self.files = {1: open(stdout, "wb") if stdout else None, 2: open(stderr, "wb") if stderr else None}
        self.written = {1: 0, 2: 0}
        self.cap = cap
        self.truncated = False

    def run(self) -> None:
        from docker.utils.socket import frames_iter
        try:
            for stream, data in frames_iter(self.sock, tty=False):
                fh = self.files.get(stream)
                if fh is None or not data:
                    continue
                room = self.cap - self.written[stream]
                if room <= 0:
                    self.truncated = True
                    continue
                fh.write(data[:room])
                fh.flush()
                self.written[stream] += min(len(data), room)
        except Exception:
            pass

    def close(self) -> None:
        for fh in self.files.values():
            if fh:
                fh.close()
        try:
            self.sock.close()
        except Exception:
            pass


class tempfile_dir:
    def __init__(self, parent: Path):
        import tempfile
        parent.mkdir(parents=True, exist_ok=True)
        self.path = tempfile.mkdtemp(dir=parent, prefix=".gauntlet-copy-")

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        remove_tree(self.path, ignore_errors=True)


def _copy(source: Path, target: Path) -> None:
    """Never through a link a sandbox made (hostfs.copy_path)."""
    if source.resolve() == target.resolve():
        return
    copy_path(source, target)


# -- janitor -------------------------------------------------------------------------------------
def gc(dry_run: bool = False, live=lambda run_dir: False) -> list[str]:
    """Remove every container and network labelled gauntlet.managed=true, but those of a run that a
    live process still holds (`live(run_dir)`). Returns what it removed."""
    c = client()
    removed = []

    def spared(obj) -> bool:
        run_dir = (obj.labels or {}).get("gauntlet.run")
        return bool(run_dir) and Path(run_dir).is_dir() and live(Path(run_dir))

    for container in managed_containers(c):
        if spared(container):
            continue
        removed.append(f"container {container.name} ({container.labels.get('gauntlet.role', '?')}, "
                       f"{container.status})")
        if not dry_run:
            try:
                container.remove(force=True)
            except Exception as exc:
                if "No such container" not in str(exc):
                    raise
    for network in c.networks.list(filters={"label": f"{MANAGED}=true"}):
        if spared(network):
            continue
        removed.append(f"network {network.name}")
        if not dry_run:
            network.remove()
    return removed


def managed_containers(c, *labels: str) -> list:
    """Gauntlet's containers (all states) carrying every label given. A container removed between
    the engine's listing and its inspection (a run finishing beside us) is left out, not an error."""
    return c.containers.list(all=True, filters={"label": [f"{MANAGED}=true", *labels]}, ignore_removed=True)


def kill_leftovers(run_id: str) -> int:
    """Remove the containers a killed runner left for this run (label gauntlet.run=run_id): called
    when a run is resumed, so a leftover agent cannot keep using CPU or GPUs under the new attempt."""
    try:
        found = managed_containers(client(), f"gauntlet.run={run_id}")
    except Exception:
        return 0
    for container in found:
        try:
            container.remove(force=True)
        except Exception:
            pass
    return len(found)
