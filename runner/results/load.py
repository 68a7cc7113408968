"""The attempts of one or more run dirs, each with its run, its folder and its agent's full identity.

Agents are kept apart by identity (name, command, agent options such as the model), never by name
alone: three different `command` agents over two suites are three rows. A name that stands for one
identity across the loaded runs keeps its plain name; otherwise each identity is labelled
`name [hash]` (the view shows the whole identity). A human's verdicts (annotations.py) are applied
here, so report, view, compare and audit read the same scores.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from runner.results.result import AttemptResult, read_json
from runner.run.layout import RunLayout
from runner.results.annotations import Annotation, apply_annotation, read_annotations

# Only these statuses leave an attempt that can count as correct in the tables of this package:
# an agent that errored, or a harness/task failure, never passes whatever its evaluation says.
COUNTED_STATUSES = ("ok", "agent_timeout")


@dataclass(frozen=True)
class AgentIdentity:
    name: str
    command: str | None = None
    options: tuple = ()          # sorted (GAUNTLET_MODEL, ...) pairs of the run

    def key(self) -> str:
        text = json.dumps([self.name, self.command, list(self.options)])
        return hashlib.sha256(text.encode()).hexdigest()[:6]

    def describe(self, limit: int | None = None) -> str:
        """Name, options and command; a command past `limit` characters is cut (an agent whose
        script travels inline in its command would fill a leaderboard row)."""
        parts = [self.name] + [f"{k.removeprefix('GAUNTLET_').lower()}={v}" for k, v in self.options]
        command = self.command
        if command and limit and len(command) > limit:
            command = f"{command[:limit]}... ({len(command)} characters)"
        return " ".join(parts) + (f" | command: {command}" if command else "")


@dataclass
class Attempt:
    result: AttemptResult          # agent relabelled by identity, a human's verdict applied
    run_dir: Path
    dir: Path                      # attempts/<name>/
    identity: AgentIdentity
    annotation: Annotation | None = None
    manifest: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The attempt's folder name: unique within its run, the key of annotations.toml."""
        return self.dir.name

    @property
    def counts(self) -> bool:
        """Can this attempt count as a pass at all (status; a human or judge flag is in result.flags)."""
        return self.result.status in COUNTED_STATUSES

    def scored(self) -> AttemptResult:
        """The result as runner/results/score.py should score it here: an attempt whose status does not count
        carries a flag saying so, so no score function can pass it."""
        if self.counts:
            return self.result
        return replace(self.result, flags=[*self.result.flags, f"status {self.result.status}: not counted"])


def _identities(manifest: dict) -> dict[str, AgentIdentity]:
    options = manifest.get("options") or {}
    env = tuple(sorted((options.get("agent_env") or {}).items()))
    agents = [{"agent": options.get("agent"), "agent_command": options.get("agent_command")},
              *(options.get("more_agents") or [])]
    return {a["agent"]: AgentIdentity(a["agent"], a.get("agent_command"), env) for a in agents if a.get("agent")}


def _read_result(path: Path) -> AttemptResult:
    try:
        return AttemptResult.from_dict(read_json(path))
    except (OSError, ValueError, TypeError, AttributeError) as exc:   # one line, no traceback
        raise FileNotFoundError(f"{path}: not a readable result ({type(exc).__name__}: "
                                f"{str(exc)[:120]})") from None


def load_attempts(run_dirs, annotations: bool = True) -> list[Attempt]:
    attempts = []
    for run_dir in map(Path, run_dirs):
        paths = RunLayout(run_dir).result_paths()
        if not paths:
            raise FileNotFoundError(f"{run_dir}: no attempts/*/result.json (is this a run dir?)")
        try:
            manifest = read_json(run_dir / "manifest.json")
        except (OSError, ValueError):
            manifest = {}
        identities = _identities(manifest if isinstance(manifest, dict) else {})
        verdicts = read_annotations(run_dir) if annotations else {}
        for path in paths:
            result = _read_result(path)
            identity = identities.get(result.agent, AgentIdentity(result.agent))
            attempt = Attempt(result, run_dir, path.parent, identity, verdicts.get(path.parent.name), manifest)
            if attempt.annotation:
                apply_annotation(result, attempt.annotation)
            attempts.append(attempt)
    _label(attempts)
    return attempts


def _label(attempts: list[Attempt]) -> None:
    """Plain names where a name is one identity; `name [hash]` where it is several."""
    by_name: dict[str, set] = {}
    for a in attempts:
        by_name.setdefault(a.identity.name, set()).add(a.identity)
    for a in attempts:
        if len(by_name[a.identity.name]) > 1:
            a.result.agent = f"{a.identity.name} [{a.identity.key()}]"


def agent_labels(attempts: list[Attempt]) -> dict[str, AgentIdentity]:
    return {a.result.agent: a.identity for a in attempts}
