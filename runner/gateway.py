"""Gateway: the harness-owned endpoint between an agent and its model API.

An agent definition with a [gateway] table gets one for the length of its attempt; the gateway
yields the environment (base URLs) and mounts (its unix socket) the agent's sandbox needs. Agents
without one (noop, oracle, replay, plain command) get nothing: no network, no variables.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from .sandbox import Mount


@dataclass(frozen=True)
class GatewayHandle:
    env: dict
    mounts: tuple[Mount, ...] = ()
    network: bool = False


@contextlib.contextmanager
def open_gateway(spec, agent_dir: Path, backend: str):
    if not spec.gateway:
        yield GatewayHandle(env={})
        return
    raise NotImplementedError("model gateway: see issue 5")
