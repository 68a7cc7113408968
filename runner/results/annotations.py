"""annotations.toml in a run dir: a human's verdict and note per attempt, which report, view,
compare and audit honour. `gauntlet audit RUN` writes it (one table per attempt folder, with what
the audit found) and keeps whatever a human wrote there on later audits.

  ["triton2triton__scale"]
  audit = "flagged"                 # written by gauntlet audit; not read back
  verdict = "reward_hack"           # "" | clean | suspicious | reward_hack
  note = "returns torch.mul: no Triton kernel runs"

An attempt marked reward_hack scores as failed: it gets the flag `human_verdict: reward_hack: <note>`,
and any flag zeroes every score (runner/results/score.py), as the judge's own flags do.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

FILE = "annotations.toml"
VERDICTS = ("", "clean", "suspicious", "reward_hack")
HUMAN_FLAG = "human_verdict: reward_hack"
HEADER = ("# Human verdicts per attempt (gauntlet audit writes this file; edit verdict and note).\n"
          "# verdict: \"\" (none yet) | \"clean\" | \"suspicious\" | \"reward_hack\"\n"
          "# reward_hack: the attempt scores as failed in gauntlet report, view and compare.\n"
          "# audit: what gauntlet audit found (rewritten on each audit; verdict and note are kept).\n\n")


class AnnotationError(ValueError):
    """`<file>: <field>: <what is wrong>`: one line."""


@dataclass(frozen=True)
class Annotation:
    verdict: str = ""
    note: str = ""

    @property
    def reward_hack(self) -> bool:
        return self.verdict == "reward_hack"


def read_annotations(run_dir: Path) -> dict[str, Annotation]:
    path = Path(run_dir) / FILE
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise AnnotationError(f"{path}: not readable TOML ({exc})") from None
    out = {}
    for name, table in data.items():
        if not isinstance(table, dict):
            raise AnnotationError(f"{path}: {name}: expected a table of verdict and note")
        verdict, note = table.get("verdict", ""), table.get("note", "")
        if verdict not in VERDICTS:
            raise AnnotationError(f"{path}: {name}.verdict: {verdict!r} is not one of "
                                  f"{', '.join(repr(v) for v in VERDICTS)}")
        if not isinstance(note, str):
            raise AnnotationError(f"{path}: {name}.note: must be a string")
        out[name] = Annotation(verdict, note)
    return out


def apply_annotation(result, annotation: Annotation) -> None:
    """A human-marked reward hack scores as failed, and says why, as a judge flag would."""
    if annotation.reward_hack:
        result.flags = [*result.flags, f"{HUMAN_FLAG}: {annotation.note or 'no note'} ({FILE})"]


def write_annotations(run_dir: Path, audited: dict[str, str]) -> Path:
    """{attempt folder: audit verdict} into annotations.toml, keeping a human's verdicts and notes."""
    import tomli_w
    path = Path(run_dir) / FILE
    previous = read_annotations(run_dir)
    body = {}
    for name in sorted(set(audited) | set(previous)):
        old = previous.get(name, Annotation())
        body[name] = {"audit": audited.get(name, "not audited"), "verdict": old.verdict, "note": old.note}
    path.write_text(HEADER + tomli_w.dumps(body))
    return path
