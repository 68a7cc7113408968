"""The agent kinds and the one error an agent definition or option gives. Standard library only: the
CLI imports this at start-up, the pydantic schema (agentfile.py) only when an agent file is read."""
from __future__ import annotations

KINDS = ("noop", "oracle", "replay", "command")


class AgentError(ValueError):
    """An agent definition or option problem: `<file>: <field>: <what is wrong>`."""

    def __init__(self, file, key: str, message: str):
        super().__init__(f"{file}: {key}: {message}")
