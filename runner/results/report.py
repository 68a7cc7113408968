"""Report: per-category aggregates over the result.json files of one or more run dirs.

Speedup means are taken over attempts that pass that split (correct and not flagged; a failed
attempt has no speedup); the share of attempts they cover is the correct-% column next to them.
The `all` variants count every attempt, a failed one as speedup 1.0. Scores, fast_p, quadrants and
conditional correctness come from runner/results/score.py; docs/scoring.md defines them.
"""
from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict, dataclass

from runner.results import score
from runner.results.result import AttemptResult
from runner.results.formats import text_table


@dataclass
class CategoryRow:
    category: str
    agent: str
    device: str
    attempts: int
    infra_errors: int                   # the harness failed: never a pass (docs/scoring.md), redone by --resume
    task_errors: int                    # the task itself is broken: never a pass
    compiled_pct: float
    correct_seen_pct: float
    correct_unseen_pct: float
    mean_speedup_seen: float | None
    geomean_speedup_seen: float | None
    mean_speedup_unseen: float | None
    geomean_speedup_unseen: float | None
    timing_meaningful: bool
    flagged_pct: float = 0.0
    aka_mean: float | None = None              # mean AKA score (seen configs) over all attempts
    bounded_mean: float | None = None          # mean bounded reward (seen) over all attempts
    aka_unseen_mean: float | None = None
    bounded_unseen_mean: float | None = None
    fast_0: float | None = None                # KernelBench fast_p on the seen configs
    fast_1: float | None = None
    fast_1_5: float | None = None
    fast_2: float | None = None
    fast_1_unseen: float | None = None
    mean_speedup_seen_all: float | None = None     # every attempt, a failed one counted as 1.0
    geomean_speedup_seen_all: float | None = None
    geomean_speedup_unseen_all: float | None = None
    both_pass: int = 0
    opt_regression: int = 0
    both_fail: int = 0
    opt_improvement: int = 0
    conditional_correctness_pct: float | None = None  # P(cand passes unseen | baseline passes unseen)
    generalization_speedup_seen: float | None = None  # geomean over attempts passing both splits
    generalization_speedup_unseen: float | None = None
    correct_drawn_pct: float | None = None            # --unseen N: attempts correct on every drawn config
    geomean_speedup_drawn: float | None = None        # over attempts passing the drawn configs
    attempts_per_task: int = 1                        # --attempts K: the fewest any task of the row has
    pass_at_1: float | None = None                    # unbiased pass@k over tasks (seen configs)
    pass_at_k: float | None = None                    # k = attempts_per_task
    speedup_spread_seen: float | None = None          # mean over tasks of the std of speedup across attempts
    roofline_seen: float | None = None                # geomean fraction of the GPU's roofline, attempts that pass
    roofline_unseen: float | None = None


def load_results(run_dirs) -> list[AttemptResult]:
    """Every attempt's result, agents told apart by full identity and a human's verdicts applied
    (runner/results/load.py)."""
    from runner.results.annotations import AnnotationError
    from runner.results.load import load_attempts
    try:
        return [a.result for a in load_attempts(run_dirs)]
    except AnnotationError as exc:
        raise FileNotFoundError(str(exc)) from None


def _mean(values):
    return sum(values) / len(values) if values else None


def _geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def _pct(flags) -> float:
    flags = list(flags)
    return round(100.0 * sum(flags) / len(flags), 1) if flags else 0.0


def aggregate(results: list[AttemptResult], by: str = "category") -> list[CategoryRow]:
    """One row per (category, agent, device); by="task": per task (the row's category is the task id)."""
    groups: dict[tuple, list[AttemptResult]] = {}
    for r in results:
        groups.setdefault((r.task if by == "task" else r.category, r.agent, r.device), []).append(r)
    rows = []
    for (category, agent, device), rs in sorted(groups.items()):
        seen = score.speedups(rs, "seen")
        unseen = score.speedups(rs, "unseen")
        gen = score.generalization(rs)
        drawn = [r for r in rs if r.correct_drawn is not None]
        drawn_speedups = [r.speedup_drawn for r in drawn if score.passed(r, "drawn") and r.speedup_drawn]
        rows.append(CategoryRow(
            category=category, agent=agent, device=device, attempts=len(rs),
            infra_errors=sum(r.status == "infra_error" for r in rs),
            task_errors=sum(r.status == "task_error" for r in rs),
            compiled_pct=_pct(score.compiled(r) for r in rs), correct_seen_pct=_pct(score.correct(r, "seen") for r in rs),
            correct_unseen_pct=_pct(score.correct(r, "unseen") for r in rs),
            mean_speedup_seen=_mean(seen), geomean_speedup_seen=_geomean(seen),
            mean_speedup_unseen=_mean(unseen), geomean_speedup_unseen=_geomean(unseen),
            timing_meaningful=all(r.timing_meaningful for r in rs),
            flagged_pct=_pct(bool(r.flags) for r in rs),
            aka_mean=_mean([score.aka_score(r, "seen") for r in rs]),
            bounded_mean=_mean([score.bounded_score(r, "seen") for r in rs]),
            aka_unseen_mean=_mean([score.aka_score(r, "unseen") for r in rs]),
            bounded_unseen_mean=_mean([score.bounded_score(r, "unseen") for r in rs]),
            fast_0=score.fast_p(rs, 0.0), fast_1=score.fast_p(rs, 1.0), fast_1_5=score.fast_p(rs, 1.5),
            fast_2=score.fast_p(rs, 2.0), fast_1_unseen=score.fast_p(rs, 1.0, "unseen"),
            mean_speedup_seen_all=_mean(score.speedups(rs, "seen", include_failures=True)),
            geomean_speedup_seen_all=_geomean(score.speedups(rs, "seen", include_failures=True)),
            geomean_speedup_unseen_all=_geomean(score.speedups(rs, "unseen", include_failures=True)),
            conditional_correctness_pct=(round(gen.conditional_correctness, 1)
                                         if gen.conditional_correctness is not None else None),
            generalization_speedup_seen=gen.speedup_seen, generalization_speedup_unseen=gen.speedup_unseen,
            correct_drawn_pct=_pct(score.correct(r, "drawn") for r in drawn) if drawn else None,
            geomean_speedup_drawn=_geomean(drawn_speedups),
            attempts_per_task=(k := min(len(v) for v in score.by_task(rs).values())),
            pass_at_1=score.pass_at_k(rs, 1), pass_at_k=score.pass_at_k(rs, k),
            speedup_spread_seen=score.speedup_spread(rs),
            roofline_seen=_geomean(score.rooflines(rs, "seen")),
            roofline_unseen=_geomean(score.rooflines(rs, "unseen")),
            **gen.quadrants))
    return rows


@dataclass
class SuiteRow:
    """One named suite for one agent: each kernel counts once per language, however many twins ran."""
    suite: str
    agent: str
    device: str
    kernels: int                        # distinct (kernel, language) pairs: what the suite counts
    tasks: int                          # distinct tasks behind them (twins of a kernel share a pair)
    attempts: int
    passed_pct: float                   # per pair: share of its attempts passing seen configs; mean over pairs
    geomean_speedup_seen: float | None  # per pair: geomean over its passing attempts; geomean over pairs
    roofline_seen: float | None         # the same over the fraction of the GPU's roofline


def suite_rows(results: list[AttemptResult]) -> list[SuiteRow]:
    """Per suite named in the results' task.toml (result.json `suites`) and agent: twins grouped by
    kernel and language, so a kernel with more twins weighs no more."""
    groups: dict[tuple, list[AttemptResult]] = {}
    for r in results:
        for suite in r.suites:
            groups.setdefault((suite, r.agent, r.device), []).append(r)
    rows = []
    for (suite, agent, device), rs in sorted(groups.items()):
        pairs: dict[tuple, list[AttemptResult]] = {}
        for r in rs:
            pairs.setdefault((r.task.rsplit("/", 1)[-1], r.category.split("2")[1]), []).append(r)
        passed = [100.0 * sum(score.passed(r) for r in p) / len(p) for p in pairs.values()]
        speed = [g for p in pairs.values() if (g := _geomean(score.speedups(p, "seen")))]
        roof = [g for p in pairs.values() if (g := _geomean(score.rooflines(p, "seen")))]
        rows.append(SuiteRow(suite=suite, agent=agent, device=device, kernels=len(pairs),
                             tasks=len({r.task for r in rs}), attempts=len(rs),
                             passed_pct=round(sum(passed) / len(passed), 1),
                             geomean_speedup_seen=_geomean(speed), roofline_seen=_geomean(roof)))
    return rows


def render_suites(rows: list[SuiteRow], fmt: str = "table") -> str:
    """The suites block of `gauntlet report` (empty when no task of the run names a suite)."""
    if not rows:
        return ""
    if fmt == "json":
        return json.dumps([asdict(r) for r in rows], indent=2)
    header = ["suite", "agent", "device", "kernels", "tasks", "n", "passed %", "seen", "roofline seen"]
    body = [[r.suite, r.agent, r.device, str(r.kernels), str(r.tasks), str(r.attempts), f"{r.passed_pct:.1f}",
             f"{r.geomean_speedup_seen:.3f}x" if r.geomean_speedup_seen else "-",
             f"{r.roofline_seen:.3f}" if r.roofline_seen else "-"] for r in rows]
    if fmt == "md":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(cells) + " |" for cells in body]
    else:
        widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(header)]
        lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
        lines += ["  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip() for cells in body]
    title = ("Suites (task.toml `suites`): each kernel counts once per language; twins of a kernel in one "
             "language are one entry")
    return "\n".join(["", title if fmt != "md" else f"\n**{title}**\n", *lines])


# The tables of `gauntlet report` (table and md): short titles, so each fits 100 columns with the
# shipped category and agent names; LEGEND says what they mean (docs/scoring.md defines them fully).
KEY = [("category", "category"), ("agent", "agent")]
COLUMNS = [*KEY, ("device", "device"), ("attempts", "n"), ("infra_errors", "infra err"),
           ("task_errors", "task err"), ("compiled_pct", "compiled %"), ("correct_seen_pct", "seen ok %"),
           ("correct_unseen_pct", "hidden ok %")]
SPEEDUP_COLUMNS = [*KEY, ("geomean_speedup_seen", "seen"), ("mean_speedup_seen", "seen mean"),
                   ("geomean_speedup_unseen", "hidden"), ("mean_speedup_unseen", "hidden mean"),
                   ("geomean_speedup_seen_all", "seen all")]
SCORE_COLUMNS = [*KEY, ("flagged_pct", "flagged %"), ("aka_mean", "aka"), ("bounded_mean", "bounded"),
                 ("aka_unseen_mean", "aka hidden"), ("bounded_unseen_mean", "bounded hidden")]
FAST_COLUMNS = [*KEY, ("fast_0", "fast_0"), ("fast_1", "fast_1"), ("fast_1_5", "fast_1.5"), ("fast_2", "fast_2"),
                ("fast_1_unseen", "fast_1 hidden")]
GENERALIZATION_COLUMNS = [*KEY, ("both_pass", "both ok"), ("opt_regression", "regressed"),
                          ("both_fail", "both fail"), ("opt_improvement", "improved"),
                          ("conditional_correctness_pct", "cond. ok %")]
BOTH_PASS_COLUMNS = [*KEY, ("generalization_speedup_seen", "seen (both ok)"),
                     ("generalization_speedup_unseen", "hidden (both ok)")]
DRAWN_COLUMNS = [("correct_drawn_pct", "drawn ok %"), ("geomean_speedup_drawn", "drawn")]
ROOFLINE_COLUMNS = [*KEY, ("roofline_seen", "roofline seen"), ("roofline_unseen", "roofline hidden")]
REPEAT_COLUMNS = [*KEY, ("attempts_per_task", "k"), ("pass_at_1", "pass@1"), ("pass_at_k", "pass@k"),
                  ("speedup_spread_seen", "spread seen")]
LEGEND = (
    "n: attempts; infra err / task err: attempts the harness or the task broke (they pass nothing). "
    "seen: the configs the agent saw; hidden: configs it never saw; drawn: --unseen configs. "
    "ok %: attempts correct on every config of the split. Speedup: baseline time / candidate time, "
    "geomean over configs (each capped at 10x), then geomean (or mean) over the attempts that pass; "
    "'all' counts every attempt, a failure as 1.0x. aka: 0 not compiled or flagged, 20 compiled but "
    "wrong, 120 + 100 x speedup passing. bounded: max(0, 1 - 1.05 / speedup) passing, else 0. fast_p: share of "
    "all attempts that pass and beat the baseline by more than p x. both ok / regressed / both fail / "
    "improved: (baseline, candidate) pass on hidden configs; cond. ok %: candidate ok where the baseline "
    "is. Full definitions: docs/scoring.md.")
# csv: these historical columns first, in this order (scripts read them by position), then the rest
CSV_FIELDS = ["category", "agent", "device", "attempts", "compiled_pct", "correct_seen_pct", "correct_unseen_pct",
              "mean_speedup_seen", "geomean_speedup_seen", "mean_speedup_unseen", "geomean_speedup_unseen",
              "timing_meaningful"]


def _cell(row: CategoryRow, key: str) -> str:
    value = getattr(row, key)
    if value is None:
        return "-"
    if isinstance(value, float):
        if "speedup" in key:
            text = f"{value:.3f}x"
        elif key.startswith(("fast_", "bounded", "pass_at", "roofline")):
            text = f"{value:.3f}"
        else:
            text = f"{value:.1f}"
        return text + ("*" if ("speedup" in key or key.startswith(("fast_", "aka", "bounded")))
                       and not row.timing_meaningful else "")
    return str(value)


def _table(rows, columns, fmt, by: str = "category") -> list[str]:
    titles = [by if key == "category" else title for key, title in columns]
    return text_table(titles, [[_cell(r, k) for k, _ in columns] for r in rows], fmt)


def render(rows: list[CategoryRow], fmt: str, by: str = "category") -> str:
    """table, md, latex (each block a tabular), csv or json; by="task" titles the first column task."""
    def record(r: CategoryRow) -> dict:   # by task: the first field is named for what it holds
        return {(by if k == "category" else k): v for k, v in asdict(r).items()}
    if fmt == "json":
        return json.dumps([record(r) for r in rows], indent=2)
    if fmt == "csv":
        buf = io.StringIO()
        # The historical columns first (scripts read them by position), then every other field.
        names = CSV_FIELDS + [k for k in asdict(rows[0]) if k not in CSV_FIELDS] if rows else CSV_FIELDS
        writer = csv.DictWriter(buf, fieldnames=[by if k == "category" else k for k in names])
        writer.writeheader()
        for r in rows:
            writer.writerow(record(r))
        return buf.getvalue()
    def block(title: str, columns) -> list[str]:
        heading = {"md": f"\n**{title}**\n", "latex": f"% {title}"}.get(fmt, title)
        return ["", heading] + _table(rows, columns, fmt, by)
    drawn = DRAWN_COLUMNS if any(r.correct_drawn_pct is not None for r in rows) else []
    blocks = [_table(rows, COLUMNS, fmt, by),
              block("Speedup over the baseline (attempts that pass)", SPEEDUP_COLUMNS),
              block("Scores (seen configs unless named; flagged attempts score 0)", SCORE_COLUMNS),
              block("fast_p (share of all attempts)", FAST_COLUMNS),
              block("Hidden configs: (baseline, candidate) quadrants", GENERALIZATION_COLUMNS),
              block("Speedup of attempts that pass both seen and hidden configs", BOTH_PASS_COLUMNS + drawn)]
    if any(r.roofline_seen is not None or r.roofline_unseen is not None for r in rows):
        blocks.append(block("Fraction of this GPU's measured roofline (geomean; attempts that pass)", ROOFLINE_COLUMNS))
    if any(r.attempts_per_task > 1 for r in rows):
        blocks.append(block("Repeats (--attempts; pass@k unbiased, over tasks)", REPEAT_COLUMNS))
    import textwrap
    blocks.append([""] + textwrap.wrap(LEGEND, width=100))
    notes = []
    if any(not r.timing_meaningful for r in rows):
        notes.append("* CPU (Triton interpreter) times: recorded, not meaningful as kernel speed.")
    infra, broken = sum(r.infra_errors for r in rows), sum(r.task_errors for r in rows)
    if infra or broken:
        notes.append(f"! {infra} attempt(s) ended in infra_error and {broken} in task_error: they count in every "
                     "denominator and pass nothing (docs/scoring.md); `gauntlet run --resume` redoes infra errors.")
    blocks.append([line for note in notes for line in textwrap.wrap(note, width=100, subsequent_indent="  ")])
    lines = [line for block in blocks for line in block]
    if fmt == "latex":   # the prose as TeX comments: the output pastes into a paper as it is
        lines = [line if not line or line.startswith(("\\", "%")) or line.endswith("\\\\") else f"% {line}"
                 for line in lines]
    return "\n".join(lines)
