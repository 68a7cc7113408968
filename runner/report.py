"""Report: per-category aggregates over the result.json files of one or more run dirs.

Speedup means are taken over attempts that are correct on that split (a failed attempt has no
speedup); the share of attempts they cover is the correct-% column next to them.
"""
from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

from .result import AttemptResult, read_json


@dataclass
class CategoryRow:
    category: str
    agent: str
    device: str
    attempts: int
    compiled_pct: float
    correct_seen_pct: float
    correct_unseen_pct: float
    mean_speedup_seen: float | None
    geomean_speedup_seen: float | None
    mean_speedup_unseen: float | None
    geomean_speedup_unseen: float | None
    timing_meaningful: bool


def load_results(run_dirs) -> list[AttemptResult]:
    results = []
    for run_dir in run_dirs:
        paths = sorted(Path(run_dir).glob("attempts/*/result.json"))
        if not paths:
            raise FileNotFoundError(f"{run_dir}: no attempts/*/result.json (is this a run dir?)")
        results.extend(AttemptResult.from_dict(read_json(p)) for p in paths)
    return results


def _mean(values):
    return sum(values) / len(values) if values else None


def _geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def _pct(flags) -> float:
    flags = list(flags)
    return round(100.0 * sum(flags) / len(flags), 1) if flags else 0.0


def aggregate(results: list[AttemptResult]) -> list[CategoryRow]:
    groups: dict[tuple, list[AttemptResult]] = {}
    for r in results:
        groups.setdefault((r.category, r.agent, r.device), []).append(r)
    rows = []
    for (category, agent, device), rs in sorted(groups.items()):
        seen = [r.speedup_seen for r in rs if r.speedup_seen]
        unseen = [r.speedup_unseen for r in rs if r.speedup_unseen]
        rows.append(CategoryRow(
            category=category, agent=agent, device=device, attempts=len(rs),
            compiled_pct=_pct(r.compiled for r in rs), correct_seen_pct=_pct(r.correct_seen for r in rs),
            correct_unseen_pct=_pct(r.correct_unseen for r in rs),
            mean_speedup_seen=_mean(seen), geomean_speedup_seen=_geomean(seen),
            mean_speedup_unseen=_mean(unseen), geomean_speedup_unseen=_geomean(unseen),
            timing_meaningful=all(r.timing_meaningful for r in rs)))
    return rows


COLUMNS = [("category", "category"), ("agent", "agent"), ("device", "device"), ("attempts", "attempts"),
           ("compiled_pct", "compile %"), ("correct_seen_pct", "correct seen %"),
           ("correct_unseen_pct", "correct unseen %"), ("mean_speedup_seen", "mean speedup seen"),
           ("geomean_speedup_seen", "geomean speedup seen"), ("mean_speedup_unseen", "mean speedup unseen"),
           ("geomean_speedup_unseen", "geomean speedup unseen")]


def _cell(row: CategoryRow, key: str) -> str:
    value = getattr(row, key)
    if value is None:
        return "-"
    if isinstance(value, float):
        text = f"{value:.3f}x" if "speedup" in key else f"{value:.1f}"
        return text + ("*" if "speedup" in key and not row.timing_meaningful else "")
    return str(value)


def render(rows: list[CategoryRow], fmt: str) -> str:
    if fmt == "json":
        return json.dumps([asdict(r) for r in rows], indent=2)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=[k for k, _ in COLUMNS] + ["timing_meaningful"])
        writer.writeheader()
        for r in rows:
            writer.writerow(asdict(r))
        return buf.getvalue()
    header = [title for _, title in COLUMNS]
    body = [[_cell(r, k) for k, _ in COLUMNS] for r in rows]
    note = ("\n* CPU (Triton interpreter) times: recorded, not meaningful as kernel speed."
            if any(not r.timing_meaningful for r in rows) else "")
    if fmt == "md":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(cells) + " |" for cells in body]
        return "\n".join(lines) + ("\n" + note if note else "")
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(cells, widths)) for cells in body]
    return "\n".join(lines) + note
