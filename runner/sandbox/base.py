"""The sandbox interface every backend implements (exec, copy, stop) and the records it takes and
gives: what a phase needs (SandboxSpec, Mount, ResourceLimits) and what an exec did (ExecResult)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


def parse_size(text: str) -> int:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*", str(text).lower())
    if not match:
        raise ValueError(f"{text!r} is not a size (examples: 512m, 2g)")
    return int(float(match.group(1)) * 1024 ** " kmgt".index(match.group(2) or " "))


@dataclass(frozen=True)
class ResourceLimits:
    memory: int       # bytes, swap included
    cpus: float       # CPU time per wall second
    pids: int

    @classmethod
    def from_env(cls, prefix: str, cpus: float | None = None) -> "ResourceLimits":
        """`<prefix>MEMORY` (8g), `<prefix>CPUS` (`cpus`, else min(4, cores)), `<prefix>PIDS` (1024)."""
        env = os.environ.get
        default_cpus = cpus if cpus is not None else min(4, os.cpu_count() or 1)
        return cls(memory=parse_size(env(f"{prefix}MEMORY", "8g")),
                   cpus=float(env(f"{prefix}CPUS", str(default_cpus))),
                   pids=int(env(f"{prefix}PIDS", "1024")))

    @classmethod
    def for_agents(cls, jobs: int) -> "ResourceLimits":
        """Each of `jobs` concurrent agents: the cores less one (kept for the evaluation beside
        them) shared out, 1 to 4 each; GAUNTLET_AGENT_{MEMORY,CPUS,PIDS} override."""
        cores = os.cpu_count() or 1
        return cls.from_env("GAUNTLET_AGENT_", cpus=max(1.0, min(4.0, (cores - 1) / max(jobs, 1))))

    def describe(self) -> str:
        return f"memory {self.memory // 2**20} MiB, cpus {self.cpus:g}, pids {self.pids}"


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
    # CPU, memory and pids of each exec: a cgroup per exec on the local backend (where cgroups are
    # writable), the container's limits on docker; None: the backend's defaults
    limits: ResourceLimits | None = None


@dataclass
class ExecResult:
    returncode: int | None
    timed_out: bool
    seconds: float
    stdout_path: Path | None = None
    stderr_path: Path | None = None
    # how its processes were held: bwrap | pid-namespace | process-group | container
    containment: str | None = None
    limits: str | None = None             # the limits enforced on them, or "none: <why>"


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
