"""Sandbox: where an agent or an evaluation runs. The seam is small on purpose: exec, copy, stop.

Backends register by name; callers open one with `open_sandbox(backend, spec)` and never learn
which they got. `local` runs processes on this host (no isolation: for development and for GPU
hosts without docker); `docker` (runner/sandbox/docker.py) runs one container per phase.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol


@dataclass(frozen=True)
class Mount:
    source: Path          # host path
    target: str           # path inside the sandbox
    read_only: bool = True


@dataclass(frozen=True)
class SandboxSpec:
    """What a phase needs. `workdir` is mounted read-write at the same `workdir_target`."""
    role: str                              # "agent" or "eval"
    platform: str                          # cuda | rocm | cpu: picks the image and the GPU plumbing
    workdir: Path
    workdir_target: str = "/workspace"
    mounts: tuple[Mount, ...] = ()
    env: dict = field(default_factory=dict)
    gpu_ids: tuple[str, ...] = ()
    network: bool = False                  # agents reach models only through the gateway socket
    labels: dict = field(default_factory=dict)
    image: str | None = None
    # local backend: the host folder that is each exec's TMPDIR (under the run's temp root, removed
    # with the run); a container has its own /tmp and ignores it
    tmp_dir: Path | None = None


@dataclass
class ExecResult:
    returncode: int | None
    timed_out: bool
    seconds: float
    stdout_path: Path | None = None
    stderr_path: Path | None = None
    containment: str | None = None        # how its processes were held: pid-namespace | process-group | container


class Sandbox(Protocol):
    spec: SandboxSpec

    def path(self, host_path: Path) -> str:
        """Where a host path under the workdir or a mount appears inside the sandbox."""

    def exec(self, argv: list[str], *, timeout: float, cwd: str | None = None, env: dict | None = None,
             stdout: Path | None = None, stderr: Path | None = None, stdin: bytes | None = None,
             grace: float = 10.0) -> ExecResult:
        """Run argv to completion or until `timeout` s: then SIGTERM, `grace` s, SIGKILL of every
        process it started. Output goes to the given host files."""

    def copy_in(self, source: Path, target: str) -> None: ...

    def copy_out(self, source: str, target: Path) -> None: ...

    def stop(self) -> None:
        """Kill everything still running in the sandbox. Idempotent."""


_REGISTRY: dict[str, Callable[[], type]] = {}


def register(name: str):
    def wrap(loader: Callable[[], type]):
        _REGISTRY[name] = loader
        return loader
    return wrap


@register("local")
def _local():
    from .local import LocalSandbox
    return LocalSandbox


# The docker backend (one container per phase); imported only when asked for.
@register("docker")
def _docker():
    from .docker import DockerSandbox
    return DockerSandbox


def backends() -> list[str]:
    return sorted(_REGISTRY)


def open_sandbox(backend: str, spec: SandboxSpec) -> Sandbox:
    if backend not in _REGISTRY:
        raise ValueError(f"unknown sandbox backend {backend!r} (known: {', '.join(backends())})")
    return _REGISTRY[backend]()(spec)
