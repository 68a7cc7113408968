"""`gauntlet compare RUN_A RUN_B`: attempts paired by task and repeat, per-task deltas, the geomean
ratio B / A of the speedups with a bootstrap interval, and a plain verdict.

An attempt's value is its speedup over the baseline on the seen configs when it passes (counted
status, compiled, correct, no flag: a human-marked reward hack fails), else 1.0 (the baseline stays
in place), as the report's `seen all` column counts. The verdict says B beats A only when the
whole 95 % interval of the ratio lies above 1 (below: B is slower); an interval that holds 1 is "no
difference" beyond run-to-run noise (with one attempt per task that noise is not measured, and the
verdict says so). Pass counts are compared beside it.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from runner.results import score
from runner.results.formats import render
from runner.results.load import Attempt
from runner.results.stats import Interval, bootstrap_ratio, geomean


class CompareError(ValueError):
    """One line a user can act on."""


@dataclass
class Pair:
    task: str
    k: int
    a_passed: bool | None
    b_passed: bool | None
    a_speedup: float | None      # the attempt's value (1.0 when it fails); None: no such attempt
    b_speedup: float | None
    a_status: str | None = None
    b_status: str | None = None

    @property
    def ratio(self) -> float | None:
        return self.b_speedup / self.a_speedup if self.a_speedup and self.b_speedup else None


@dataclass
class Comparison:
    a: str
    b: str
    pairs: list[Pair]
    ratio: Interval
    a_passed: int
    b_passed: int
    tasks: int
    repeats: int                 # the fewest attempts per task on either side
    timing_meaningful: bool
    verdict: str
    per_task: list[dict] = field(default_factory=list)


def value(attempt: Attempt) -> tuple[bool, float]:
    r = attempt.result
    ok = attempt.counts and score.passed(r, "seen")
    s = score.speedup(r, "seen") if ok else None
    return ok, s if s is not None else score.FAILED_SPEEDUP


def choose(attempts: list[Attempt], agent: str | None, side: str) -> tuple[str, list[Attempt]]:
    labels = sorted({a.result.agent for a in attempts})
    if agent is None:
        if len(labels) != 1:
            raise CompareError(f"--agent-{side}: run {side.upper()} holds several agents ({', '.join(labels)}); "
                               "name one")
        agent = labels[0]
    chosen = [a for a in attempts if a.result.agent == agent]
    if not chosen:
        raise CompareError(f"--agent-{side}: no agent {agent!r} in run {side.upper()} (it holds {', '.join(labels)})")
    return agent, chosen


def compare(attempts_a: list[Attempt], attempts_b: list[Attempt], agent_a: str | None = None,
            agent_b: str | None = None) -> Comparison:
    name_a, side_a = choose(attempts_a, agent_a, "a")
    name_b, side_b = choose(attempts_b, agent_b, "b")
    by_a = {(a.result.task, a.result.attempt): a for a in side_a}
    by_b = {(a.result.task, a.result.attempt): a for a in side_b}
    pairs = []
    for task, k in sorted(set(by_a) | set(by_b)):
        a, b = by_a.get((task, k)), by_b.get((task, k))
        (ap, av), (bp, bv) = value(a) if a else (None, None), value(b) if b else (None, None)
        pairs.append(Pair(task, k, ap, bp, av, bv, a.result.status if a else None, b.result.status if b else None))
    shared = sorted({t for t, _ in by_a} & {t for t, _ in by_b})
    if not shared:
        raise CompareError(f"runs A and B share no task ({name_a} vs {name_b}): nothing to pair")
    per_task, groups = [], []
    for task in shared:
        av = [p.a_speedup for p in pairs if p.task == task and p.a_speedup is not None]
        bv = [p.b_speedup for p in pairs if p.task == task and p.b_speedup is not None]
        groups.append((av, bv))
        ga, gb = geomean(av), geomean(bv)
        per_task.append({"task": task, "a_attempts": len(av), "b_attempts": len(bv),
                         "a_passed": sum(bool(p.a_passed) for p in pairs if p.task == task),
                         "b_passed": sum(bool(p.b_passed) for p in pairs if p.task == task),
                         "a_speedup": ga, "b_speedup": gb, "ratio": gb / ga if ga and gb else None})
    ratio = bootstrap_ratio(groups)
    repeats = min(min(len(a), len(b)) for a, b in groups)
    paired = [p for p in pairs if p.task in shared]
    a_passed = sum(bool(p.a_passed) for p in paired)
    b_passed = sum(bool(p.b_passed) for p in paired)
    meaningful = all(x.result.timing_meaningful for x in side_a + side_b)
    return Comparison(name_a, name_b, pairs, ratio, a_passed, b_passed, len(shared), repeats, meaningful,
                      verdict(ratio, a_passed, b_passed, repeats, meaningful), per_task)


def verdict(ratio: Interval, a_passed: int, b_passed: int, repeats: int, meaningful: bool) -> str:
    holds_one = ratio.low <= 1.0 <= ratio.high
    if holds_one:
        speed = f"no difference in speed beyond run-to-run noise (B/A {ratio.text()} holds 1)"
    elif repeats < 2:   # a degenerate interval is no evidence: the noise between repeats is unknown
        speed = (f"B looks {'faster' if ratio.low > 1.0 else 'slower'} than A (B/A {ratio.text()}), but with one "
                 "attempt per task run-to-run noise is not measured: no verdict (--attempts K measures it)")
    else:
        speed = f"B is {'faster' if ratio.low > 1.0 else 'slower'} than A beyond run-to-run noise (B/A {ratio.text()})"
    passes = ("the same number of passing attempts" if a_passed == b_passed else
              f"B passes {b_passed - a_passed:+d} attempts against A")
    text = f"{speed}; {passes} ({b_passed} vs {a_passed})."
    if holds_one and a_passed == b_passed:
        text = "no difference: " + text
    if not meaningful:
        text += " CPU (Triton interpreter) times: not meaningful as kernel speed."
    return text


PAIR_COLUMNS = [("task", "task"), ("k", "k"), ("a_status", "A status"), ("a_passed", "A pass"),
                ("a_speedup", "A speedup"), ("b_status", "B status"), ("b_passed", "B pass"),
                ("b_speedup", "B speedup"), ("ratio", "B/A")]
TASK_COLUMNS = [("task", "task"), ("a_passed", "A pass"), ("a_attempts", "A n"), ("a_speedup", "A speedup"),
                ("b_passed", "B pass"), ("b_attempts", "B n"), ("b_speedup", "B speedup"), ("ratio", "B/A")]


def render_comparison(c: Comparison, fmt: str) -> str:
    pair_rows = [{**asdict(p), "ratio": p.ratio} for p in c.pairs]
    if fmt == "json":
        import json
        return json.dumps({"a": c.a, "b": c.b, "tasks": c.tasks, "repeats": c.repeats,
                           "ratio": c.ratio.value, "low": c.ratio.low, "high": c.ratio.high,
                           "a_passed": c.a_passed, "b_passed": c.b_passed,
                           "timing_meaningful": c.timing_meaningful, "verdict": c.verdict,
                           "per_task": c.per_task, "pairs": pair_rows}, indent=2)
    if fmt == "csv":
        return render(pair_rows, PAIR_COLUMNS, "csv")
    head = f"A: {c.a}   B: {c.b}   {c.tasks} task(s) paired, {c.repeats} attempt(s) per task at least"
    lines = [head if fmt != "md" else f"**{head}**", "", render(c.per_task, TASK_COLUMNS, fmt), "",
             render(pair_rows, PAIR_COLUMNS, fmt), "",
             f"geomean speedup ratio B/A over tasks: {c.ratio.text()} (95 % bootstrap interval)",
             f"verdict: {c.verdict}"]
    return "\n".join(lines)
