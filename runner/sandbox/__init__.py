"""Sandbox: where an agent or an evaluation runs. The seam is small on purpose: exec, copy, stop.

Backends register by name; callers open one with `open_sandbox(backend, spec)` and never learn
which they got. `local` runs processes on this host, an agent's in a bubblewrap sandbox
(runner/sandbox/confine.py); `docker` (runner/sandbox/docker.py) runs one container per phase.
"""
from __future__ import annotations

import threading
import weakref
from typing import Callable

from runner.sandbox.base import (ExecResult, Mount, ResourceLimits, Sandbox, SandboxSpec,  # noqa: F401 (the interface)
                                 parse_size)


_REGISTRY: dict[str, Callable[[], type]] = {}


def register(name: str):
    def wrap(loader: Callable[[], type]):
        _REGISTRY[name] = loader
        return loader
    return wrap


@register("local")
def _local():
    from runner.sandbox.local import LocalSandbox
    return LocalSandbox


# The docker backend (one container per phase); imported only when asked for.
@register("docker")
def _docker():
    from runner.sandbox.docker import DockerSandbox
    return DockerSandbox


def backends() -> list[str]:
    return sorted(_REGISTRY)


class SandboxesStopped(RuntimeError):
    """stop_all() ran (the runner got SIGTERM or SIGINT): no sandbox opens any more."""


# Every sandbox this process opened and has not dropped, so that a signal handled in the main thread
# can stop those that attempts in other threads (--jobs N) are waiting on.
_LIVE: "weakref.WeakSet[Sandbox]" = weakref.WeakSet()
_LIVE_LOCK = threading.Lock()
_STOPPED = threading.Event()


def open_sandbox(backend: str, spec: SandboxSpec) -> Sandbox:
    if backend not in _REGISTRY:
        raise ValueError(f"unknown sandbox backend {backend!r} (known: {', '.join(backends())})")
    with _LIVE_LOCK:
        if _STOPPED.is_set():
            raise SandboxesStopped("the run is stopping (SIGTERM/SIGINT): no new sandbox")
        sandbox = _REGISTRY[backend]()(spec)
        _LIVE.add(sandbox)
    return sandbox


def stop_all() -> None:
    """Stop every live sandbox of this process (their exec calls return at once) and open no more:
    what a signal that ends the run does. For the rest of the process's life."""
    with _LIVE_LOCK:
        _STOPPED.set()
        live = list(_LIVE)
    for sandbox in live:
        try:
            sandbox.stop()
        except Exception:   # noqa: BLE001 -- stop the others; gc removes what one left
            pass


def stopping() -> bool:
    """Whether stop_all() ran: an attempt failing now was interrupted, not failed."""
    return _STOPPED.is_set()
