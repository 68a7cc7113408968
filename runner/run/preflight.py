"""Preflight: what `gauntlet run` and `gauntlet eval` need from this host, checked before any agent
or evaluator starts, so a missing GPU, engine or image is one line instead of N failed attempts.

Never imports torch (CLI start-up); the docker SDK is imported only for `--backend docker`.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path


class PreflightError(RuntimeError):
    """`<option>: <what is missing> (<how to get it>)`: one line."""


def _answers(cmd: list[str]) -> bool:
    if not shutil.which(cmd[0]):
        return False
    try:
        return subprocess.run(cmd, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def device_present(device: str) -> bool:
    """Whether this host has the device: an NVIDIA GPU that nvidia-smi lists, an AMD one rocminfo
    lists (behind /dev/kfd); the CPU always."""
    if device == "cuda":
        return _answers(["nvidia-smi", "-L"])
    if device == "rocm":
        return Path("/dev/kfd").exists() and _answers(["rocminfo"])
    return device == "cpu"


def check_device(device: str) -> None:
    if not device_present(device):
        how = "nvidia-smi lists no NVIDIA GPU" if device == "cuda" else "no /dev/kfd or rocminfo lists no AMD GPU"
        raise PreflightError(f"--device {device}: this host has no {device} device ({how}); "
                             "use --device cpu or auto")


def check_docker(device: str) -> None:
    """An engine answers and holds the image a sandbox of `device` runs."""
    try:
        import docker
        from docker.errors import DockerException, ImageNotFound
    except ImportError as exc:
        raise PreflightError(f"--backend docker: the docker Python SDK is not installed ({exc})") from None
    from runner.sandbox.images import image_ref
    ref = image_ref(device)
    host = os.environ.get("DOCKER_HOST", "the default socket")
    try:
        client = docker.from_env(timeout=20)
        client.ping()
    except Exception as exc:  # DockerException, requests' ConnectionError, ...: all mean "no engine"
        reason = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        raise PreflightError(f"--backend docker: no docker engine answers at {host} ({reason}); "
                             "start one (scripts/setup-docker.sh) or use --backend local") from None
    try:
        client.images.get(ref)
    except ImageNotFound:
        raise PreflightError(f"--backend docker: image {ref} is missing (gauntlet images build {device})") from None
    except DockerException as exc:
        raise PreflightError(f"--backend docker: cannot inspect image {ref}: {str(exc).splitlines()[0][:160]}") \
            from None
    finally:
        client.close()


def check(device: str, backend: str) -> None:
    """Everything `run`/`eval` needs on this host for `device` (already resolved from auto) and `backend`."""
    check_device(device)
    if backend == "docker":
        check_docker(device)
