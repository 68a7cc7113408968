"""`gauntlet run --executor ray`: each attempt a Ray task; Ray places it (docs/scaling.md).

The driver (this process) holds the run dir's lock and writes the manifest; it draws --unseen
configs before it submits, so a remote attempt only runs `Attempt` and writes its own attempt
folder, which must be on a file system every node shares (the one run dir). Each node runs its own
sandbox backend. An attempt asks Ray for one CPU, one GPU on cuda/rocm (the GPU Ray assigns is the
attempt's alone for its whole run: its sandboxes get that one device, local or docker) and any
--ray-resource. Ray does the scheduling and queueing; nothing here does.
"""
from __future__ import annotations

import os
import socket

from runner.run.gpupool import GpuPool
from runner.run.run import Attempt, AttemptKey, Run, no_phase
from runner.resources import IMPORT_ROOT


class RayError(RuntimeError):
    """Ray is missing or the cluster cannot be reached (one line)."""


def _check_reachable(address: str | None, timeout_s: float = 10.0) -> None:
    """A host:port that refuses or drops a TCP connection is named now: ray.init retries a dead
    GCS address for minutes before it gives up."""
    if not address or "://" in address or address == "auto" or ":" not in address:
        return
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            pass
    except (OSError, ValueError) as exc:
        raise RayError(f"--ray-address: cannot join Ray at {address}: "
                       f"{exc.strerror or exc if isinstance(exc, OSError) else exc}") from None


def _own_cluster_token() -> None:
    """The run's own local cluster under Ray's default token authentication (Ray 2.5x and later:
    on for a new local cluster): without a token in the environment Ray writes one to
    ~/.ray/auth_token, left there when the start fails. A token made for this run, in this process's
    environment (which the cluster's processes inherit), keeps the user's home untouched. A mode or
    token the user set is theirs to keep."""
    if os.environ.get("RAY_AUTH_MODE") or os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH"):
        return
    import secrets
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)


def _remote_attempt(attempt: Attempt) -> dict:
    """In the Ray worker: the GPU Ray gave this task becomes the attempt's pool of one, so it is the
    device recorded in result.json (`gpu`) and the one the sandboxes get (a docker container is given
    that device, not every GPU of the node; locally the same CUDA/HIP_VISIBLE_DEVICES Ray set)."""
    import ray
    assigned = [str(i) for i in ray.get_gpu_ids()] if attempt.options.device in ("cuda", "rocm") else []
    if assigned:
        attempt.gpus = GpuPool(assigned)
    return attempt.run().to_dict()


def execute_on_ray(run: Run, keys: list[AttemptKey], address: str | None, resources: dict[str, float],
                   on_start=None, on_done=None, on_phase=None) -> list:
    if address is None:
        _own_cluster_token()      # before Ray is imported: its token loader reads the environment once
    try:
        import ray
    except ImportError:
        raise RayError("--executor ray: ray is not installed (pip install 'gauntlet[ray]')") from None
    from runner.results.result import AttemptResult
    repo = str(IMPORT_ROOT)
    # Workers import this checkout's runner (a shared file system, or the same path on every node).
    runtime_env = {"env_vars": {"PYTHONPATH": os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")]))}}
    _check_reachable(address)
    try:
        ray.init(address=address, runtime_env=runtime_env, ignore_reinit_error=True, log_to_driver=False,
                 include_dashboard=False)
    except Exception as exc:   # ConnectionError, ValueError, ...: one line naming the address
        raise RayError(f"--ray-address: cannot join Ray at {address or 'a new local cluster'}: "
                       f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    try:
        gpus = 1 if run.options.device in ("cuda", "rocm") else 0
        remote = ray.remote(_remote_attempt).options(num_cpus=1, num_gpus=gpus, resources=resources or None,
                                                     max_retries=0)
        pending = {}
        for key in keys:
            if on_start:    # before the draw, which can take minutes: a log shows it as this attempt's
                on_start(key)
            try:
                drawn = run.drawn_configs(   # on the driver: it alone writes the manifest
                    key.task, (lambda text, key=key: on_phase(key, text)) if on_phase else no_phase)
            except Exception as exc:
                result = Attempt(key.task, run.options.for_agent(key.agent), run.attempt_dir(key.task, key.agent, key.k),
                                 key.k, run.run_id).failed(exc)
                if on_done:
                    on_done(key, result)
                continue
            attempt = Attempt(key.task, run.options.for_agent(key.agent), run.attempt_dir(key.task, key.agent, key.k),
                              key.k, run.run_id, drawn)
            pending[remote.remote(attempt)] = key
        results = []
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            key = pending.pop(done[0])
            try:
                result = AttemptResult.from_dict(ray.get(done[0]))
            except Exception as exc:   # the worker died: an infra error, as in a thread
                result = Attempt(key.task, run.options.for_agent(key.agent),
                                 run.attempt_dir(key.task, key.agent, key.k), key.k, run.run_id).failed(exc)
            results.append(result)
            if on_done:
                on_done(key, result)
        return results
    finally:
        ray.shutdown()
