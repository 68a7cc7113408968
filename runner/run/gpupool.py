"""GpuPool: the devices one run spreads its attempts over (`gauntlet run --gpus`).

Each evaluation takes one device for itself (the pool hands it out and takes it back; an evaluation
that finds none free waits); agents get a device to test on, round robin, shared with other agents,
or, with `--agent-gpu exclusive`, one held like an evaluation's for the whole agent phase.
The pool excludes evaluations of this run from one another; the judge's per-device flock
(runner/evaluator/gpulock.py) still excludes evaluations of other runs and containers. Names are
what the platform calls its devices: CUDA indexes or UUIDs, ROCm indexes or render nodes; on the
CPU any names (e.g. `--gpus cpu`) make exclusive evaluation slots, which is how CI tests the pool.
"""
from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import threading
from contextlib import contextmanager
from typing import Iterator


class GpuPool:
    def __init__(self, names: list[str]):
        if not names:
            raise ValueError("a GPU pool needs at least one device")
        if len(set(names)) != len(names):
            raise ValueError(f"devices named twice: {', '.join(sorted({n for n in names if names.count(n) > 1}))}")
        self.names = list(names)
        self._free = list(names)
        self._ready = threading.Condition()
        self._round_robin = itertools.cycle(names)
        self._rr_lock = threading.Lock()

    @classmethod
    def parse(cls, text: str) -> "GpuPool":
        """'0,1' / '0, 1' -> a pool of 0 and 1; one line for nonsense."""
        names = [part.strip() for part in text.split(",")]
        if not text.strip() or any(not n for n in names):
            raise ValueError(f"{text!r} is not a comma-separated list of device names (example: 0,1)")
        return cls(names)

    @contextmanager
    def evaluation(self) -> Iterator[str]:
        """One device for this evaluation alone, for the duration of the block."""
        with self._ready:
            while not self._free:
                self._ready.wait()
            name = self._free.pop(0)
        try:
            yield name
        finally:
            with self._ready:
                self._free.append(name)
                self._ready.notify()

    @contextmanager
    def agent(self, exclusive: bool = False) -> Iterator[str]:
        """A device for an agent phase: shared round robin (for_agent), or with `exclusive` held as an
        evaluation holds one, so no other agent and no evaluation uses it until the agent stops."""
        if exclusive:
            with self.evaluation() as name:
                yield name
        else:
            yield self.for_agent()

    def for_agent(self) -> str:
        """A device for an agent to test on (shared: agents do not time anything that is scored)."""
        with self._rr_lock:
            return next(self._round_robin)

    @property
    def free(self) -> list[str]:
        with self._ready:
            return list(self._free)


def visible_gpus(device: str) -> list[str]:
    """The devices this host shows for `device` (the default pool): CUDA_VISIBLE_DEVICES or
    HIP_VISIBLE_DEVICES where set, else what nvidia-smi / the AMD render nodes list; [] on the CPU."""
    if device == "cuda":
        chosen = os.environ.get("CUDA_VISIBLE_DEVICES")
        if chosen is not None:
            return [n.strip() for n in chosen.split(",") if n.strip()]
        if not shutil.which("nvidia-smi"):
            return []
        try:
            out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20).stdout
        except (OSError, subprocess.TimeoutExpired):
            return []
        return [str(i) for i, line in enumerate(l for l in out.splitlines() if l.startswith("GPU "))]
    if device == "rocm":
        chosen = os.environ.get("HIP_VISIBLE_DEVICES") or os.environ.get("ROCR_VISIBLE_DEVICES")
        if chosen is not None:
            return [n.strip() for n in chosen.split(",") if n.strip()]
        from runner.sandbox.docker import amd_render_nodes
        return [str(i) for i in range(len(amd_render_nodes()))]
    return []


# What tells a process which GPU it may use, per platform (the docker backend uses gpu_ids instead).
VISIBLE_ENV = {"cuda": ("CUDA_VISIBLE_DEVICES",), "rocm": ("HIP_VISIBLE_DEVICES",)}


def visible_env(device: str, name: str | None) -> dict[str, str]:
    """The environment that restricts a local process to the pool's device `name`."""
    if name is None:
        return {}
    return {var: name for var in VISIBLE_ENV.get(device, ())}
