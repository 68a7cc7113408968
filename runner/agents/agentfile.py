"""The schema of agents/<name>.toml (pydantic v2, host side only): unknown keys, wrong types and
unknown parsers or gateway protocols are refused when the file is loaded, before any agent runs,
as one AgentError line `<file>: <field>: <what is wrong>`."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from runner.agents.kinds import KINDS, AgentError
from runner.agents.parsers import PARSERS


class _Table(BaseModel):
    # strict: `gateway = "yes"` or `set = { X = 1 }` is an error, never coerced
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class EnvTable(_Table):
    required: list[str] = []       # host variables the run needs (the gateway injects them)
    set: dict[str, str] = {}       # variables the agent's command gets


class GatewayTable(_Table):
    """The [gateway] table (runner/agents/gateway.py); unset keys take the protocol's defaults."""
    protocol: str
    upstream: str = ""
    paths: list[str] = []
    key_env: str = ""
    key_header: str = ""
    agent_env: dict[str, str] = {}
    allow_hosts: list[str] = []    # protocol "connect": host:port pairs
    pass_env: list[str] = []       # protocol "connect": keys the CLI holds itself
    idle_timeout_s: int | float | None = None   # a stream silent this long is stopped (range checked in gateway.py)

    @field_validator("protocol")
    @classmethod
    def _known_protocol(cls, value: str) -> str:
        from runner.agents.gateway import PROTOCOLS
        return _one_of(value, PROTOCOLS, f"{value!r} is not one of {', '.join(PROTOCOLS)}")


def _one_of(value: str, known, message: str) -> str:
    if value not in known:
        raise ValueError(message)
    return value


class AgentFile(_Table):
    name: str
    kind: Literal[KINDS]
    description: str = ""
    command: str | None = None     # shell template with {placeholders}
    parser: str = "plain"
    env: EnvTable = EnvTable()
    install: str = ""
    gateway: GatewayTable | None = None
    cli: str = ""                  # the executable the command needs (checked before a run starts)

    @field_validator("parser")
    @classmethod
    def _known_parser(cls, value: str) -> str:
        return _one_of(value, PARSERS, f"unknown parser {value!r} (known: {', '.join(sorted(PARSERS))})")


_MESSAGES = {   # pydantic's wording -> the TOML user's
    "extra_forbidden": "unknown key",
    "missing": "required key is missing",
    "model_type": "must be a table",
    "dict_type": "must be a table",
    "list_type": "must be a list of strings",
    "string_type": "must be a string",
}


def validate(path: Path, data: dict) -> AgentFile:
    try:
        return AgentFile.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or "file"
        if error["type"] == "value_error":
            message = str(error["ctx"]["error"])
        elif error["type"] == "literal_error":
            message = f"{error['input']!r} is not one of {error['ctx']['expected']}"
        else:
            message = _MESSAGES.get(error["type"], error["msg"])
            if error["type"] not in ("extra_forbidden", "missing"):
                message += f", not {error['input']!r}"[:80]
        raise AgentError(path, field, message) from None
