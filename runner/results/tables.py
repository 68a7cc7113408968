"""Paper tables: `gauntlet report --table aka` (AgentKernelArena's main table: per category, compiled
%, correct %, mean speedup, held-out correctness and speedup) and `--table kernelbench` (fast_p at
p = 0, 0.5, 1, 1.5, 2 per level/category), in every format of formats.py, per category or per task.

Only an attempt whose status is ok or agent_timeout can count as compiled, correct or fast here
(load.COUNTED_STATUSES); the rest stay in every denominator. Definitions: docs/scoring.md.
"""
from __future__ import annotations

from runner.results import score
from runner.results.result import AttemptResult
from runner.results.formats import render
from runner.results.load import COUNTED_STATUSES

KERNELBENCH_P = (0.0, 0.5, 1.0, 1.5, 2.0)
TABLES = ("main", "aka", "kernelbench")
CPU_NOTE = "* CPU (Triton interpreter) times: recorded, not meaningful as kernel speed."


def counted(rs: list[AttemptResult]) -> list[AttemptResult]:
    return [r for r in rs if r.status in COUNTED_STATUSES]


def _pct(hits: int, n: int) -> float | None:
    return round(100.0 * hits / n, 1) if n else None


def fast_p(rs: list[AttemptResult], p: float, split: str = "seen") -> float | None:
    """KernelBench's fast_p over every attempt, only counted ones able to hit."""
    ok = counted(rs)
    return score.fast_p(ok, p, split) * len(ok) / len(rs) if ok and rs else (0.0 if rs else None)


def _groups(results: list[AttemptResult], by: str) -> dict[tuple, list[AttemptResult]]:
    groups: dict[tuple, list[AttemptResult]] = {}
    for r in results:
        groups.setdefault((r.task if by == "task" else r.category, r.agent, r.device), []).append(r)
    return dict(sorted(groups.items()))


def aka_rows(results: list[AttemptResult], by: str = "category") -> list[dict]:
    rows = []
    for (key, agent, device), rs in _groups(results, by).items():
        ok, n = counted(rs), len(rs)
        gen = score.generalization(ok)
        rows.append({by: key, "agent": agent, "device": device, "attempts": n,
                     "compiled_pct": _pct(sum(score.compiled(r) for r in ok), n),
                     "correct_pct": _pct(sum(score.passed(r, "seen") for r in ok), n),
                     "mean_speedup": score.mean(score.speedups(ok, "seen")),
                     "heldout_correct_pct": _pct(sum(score.passed(r, "unseen") for r in ok), n),
                     "heldout_mean_speedup": score.mean(score.speedups(ok, "unseen")),
                     "conditional_correctness_pct": gen.conditional_correctness,
                     "timing_meaningful": all(r.timing_meaningful for r in rs)})
    return rows


def kernelbench_rows(results: list[AttemptResult], by: str = "category") -> list[dict]:
    rows = []
    for (key, agent, device), rs in _groups(results, by).items():
        row = {by: key, "agent": agent, "device": device, "attempts": len(rs)}
        row.update({f"fast_{p:g}": fast_p(rs, p) for p in KERNELBENCH_P})
        row["timing_meaningful"] = all(r.timing_meaningful for r in rs)
        rows.append(row)
    return rows


def columns(table: str, by: str) -> list[tuple[str, str]]:
    key = [(by, by), ("agent", "agent"), ("device", "device"), ("attempts", "n")]
    if table == "aka":
        return key + [("compiled_pct", "compiled %"), ("correct_pct", "correct %"), ("mean_speedup", "mean speedup"),
                      ("heldout_correct_pct", "held-out correct %"), ("heldout_mean_speedup", "held-out speedup"),
                      ("conditional_correctness_pct", "cond. correct %")]
    return key + [(f"fast_{p:g}", f"fast_{p:g}") for p in KERNELBENCH_P]


def render_table(results: list[AttemptResult], table: str, fmt: str, by: str = "category") -> str:
    rows = aka_rows(results, by) if table == "aka" else kernelbench_rows(results, by)
    cols = columns(table, by)
    if fmt in ("json", "csv"):
        return render(rows, cols + [("timing_meaningful", "timing_meaningful")], fmt)
    cpu = any(not r["timing_meaningful"] for r in rows)

    def fmt_cell(key):
        def one(value):
            if value is None:
                return "-"
            if isinstance(value, float):
                star = "*" if cpu and ("speedup" in key or key.startswith("fast_")) else ""
                return (f"{value:.3f}x" if "speedup" in key else f"{value:.3f}" if key.startswith("fast_")
                        else f"{value:.1f}") + star
            return str(value)
        return one
    body_rows = [{k: fmt_cell(k)(row.get(k)) for k, _ in cols} for row in rows]
    text = render(body_rows, cols, fmt, format_cell=str)
    if cpu:
        text += "\n" + ("% " if fmt == "latex" else "") + CPU_NOTE
    return text
