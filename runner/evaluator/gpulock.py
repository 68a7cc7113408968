"""One evaluation at a time per GPU: an exclusive `flock` on a file named after the device.

Two Gauntlet evaluations timing on the same GPU at once would slow each other's kernels (and the
baseline and candidate unequally). Every evaluation on a GPU holds the device's lock from its
first device call to its last; a second one waits. The lock folder is `$GAUNTLET_LOCK_DIR`
(default /tmp/gauntlet-locks); the docker backend mounts one host folder there in every
evaluation container, so containers and local processes exclude each other alike. The lock
covers Gauntlet's evaluations only: other programs on the GPU are not stopped."""
from __future__ import annotations

import fcntl
import os
import time
from contextlib import contextmanager
from pathlib import Path

LOCK_DIR_ENV = "GAUNTLET_LOCK_DIR"
DEFAULT_LOCK_DIR = "/tmp/gauntlet-locks"


def lock_dir() -> Path:
    return Path(os.environ.get(LOCK_DIR_ENV) or DEFAULT_LOCK_DIR)


def device_key(device: str) -> str:
    """The physical GPU (its UUID where torch reports one, so every container names it alike)."""
    import torch
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    uuid = getattr(props, "uuid", None)
    return f"{device}-{uuid}" if uuid else f"{device}-{torch.cuda.current_device()}"


@contextmanager
def exclusive(key: str):
    """Hold the lock named `key`; yields the seconds spent waiting for it."""
    folder = lock_dir()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        os.chmod(folder, 0o1777)        # shared by the runner and the (non-root) evaluation user
    except OSError:
        pass
    path = folder / f"{''.join(c if c.isalnum() or c in '-_.' else '_' for c in key)}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        started = time.monotonic()
        fcntl.flock(fd, fcntl.LOCK_EX)   # blocks while another evaluation holds it
        try:
            yield time.monotonic() - started
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextmanager
def exclusive_device(device: str):
    """`exclusive` for a GPU device; on the CPU nothing is locked (timings there mean nothing).
    Yields a note for the evaluation record, or None."""
    if device == "cpu":
        yield None
        return
    key = device_key(device)
    with exclusive(key) as waited:
        yield f"note: GPU held exclusively ({key}); waited {waited:.1f} s for another evaluation"
