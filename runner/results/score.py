"""Scores of attempts and aggregates over them; docs/scoring.md gives every definition and the
benchmark each one reproduces. Standard library only.

An attempt *scores* only when its status is not infra_error or task_error (the harness or the task
failed, not the agent: such an attempt never counts as compiled, correct or fast, whatever its
evaluation says, and `gauntlet run --resume` redoes infra errors). An agent_error that changed
nothing scores as a failure (`produced`). It *passes* a split when it
scores, compiled, every config of the split is correct, and it carries no anti-reward-hacking flag. Its speedup on a split is the geometric mean over the split's configs of
baseline_ms / candidate_ms, each capped at SPEEDUP_CAP (result.Evaluation.speedup).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from runner.results.result import SPEEDUP_CAP, AttemptResult

FAST_P = (0.0, 1.0, 1.5, 2.0)
BOUNDED_MARGIN = 1.05          # AgentKernelArena v0.4: max(0, 1 - 1.05 / speedup)
QUADRANTS = ("both_pass", "opt_regression", "both_fail", "opt_improvement")
FAILED_SPEEDUP = 1.0           # what a failed attempt contributes to the all-attempts means
NOT_SCORED = ("infra_error", "task_error")


def scored(r: AttemptResult) -> bool:
    """False when the harness or the task failed: an X->X task left unedited because the model API
    answered 500 every time evaluates the shipped baseline as correct, and that is no pass."""
    return r.status not in NOT_SCORED


def produced(r: AttemptResult) -> bool:
    """False when the agent failed (agent_error) and left the workspace as shipped (a command that
    does not exist exits 127 and changes nothing): an evaluation would judge the task's own
    baseline, which an X->X task passes, and that is no work of the agent's. Such an attempt scores
    (as the agent's failure) but never counts as compiled, correct or fast."""
    return not (r.status == "agent_error" and not r.changed_files)


def compiled(r: AttemptResult) -> bool:
    return bool(scored(r) and produced(r) and r.compiled)


def correct(r: AttemptResult, split: str = "seen") -> bool:
    """Every config of the split correct (flags aside), in an attempt that scores."""
    ok = {"seen": r.correct_seen, "unseen": r.correct_unseen, "drawn": r.correct_drawn}[split]
    return bool(compiled(r) and ok)


def passed(r: AttemptResult, split: str = "seen") -> bool:
    return correct(r, split) and not r.flags


def speedup(r: AttemptResult, split: str = "seen") -> float | None:
    s = {"seen": r.speedup_seen, "unseen": r.speedup_unseen, "drawn": r.speedup_drawn}[split]
    return min(s, SPEEDUP_CAP) if s is not None and s > 0 else None


def aka_score(r: AttemptResult, split: str = "seen") -> float:
    """AgentKernelArena's additive score: 0 not compiled, 20 compiled but wrong, 120 + 100*speedup
    correct (the speedup term only when a speedup was measured). Flagged: 0."""
    if not compiled(r) or r.flags:
        return 0.0
    if not passed(r, split):
        return 20.0
    s = speedup(r, split)
    return 120.0 + (100.0 * s if s else 0.0)


def bounded_score(r: AttemptResult, split: str = "seen") -> float:
    """AgentKernelArena v0.4's bounded reward in [0, 1): max(0, 1 - 1.05 / speedup), with compile,
    correctness and no flags as prerequisites (0 otherwise, no partial credit)."""
    s = speedup(r, split)
    if not passed(r, split) or not s:
        return 0.0
    return max(0.0, 1.0 - BOUNDED_MARGIN / s)


def fast_p(results: list[AttemptResult], p: float, split: str = "seen") -> float | None:
    """KernelBench's fast_p: the share of all attempts that pass and are faster than p x the
    baseline. fast_0 is the pass rate (an attempt evaluated without timing counts for p = 0 only)."""
    if not results:
        return None
    hits = 0
    for r in results:
        if not passed(r, split):
            continue
        s = speedup(r, split)
        if p == 0.0 or (s is not None and s > p):
            hits += 1
    return hits / len(results)


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else None


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def speedups(results, split: str = "seen", include_failures: bool = False) -> list[float]:
    """Over passing attempts with a measured speedup; with `include_failures`, every attempt, a
    failing one counted as FAILED_SPEEDUP (the baseline stays in place)."""
    out = []
    for r in results:
        s = speedup(r, split) if passed(r, split) else None
        if s is not None:
            out.append(s)
        elif include_failures:
            out.append(FAILED_SPEEDUP)
    return out


def rooflines(results, split: str = "seen") -> list[float]:
    """The fraction of the GPU's measured roofline (geomean over the split's configs) of every passing
    attempt that has one (GPU runs of tasks with [work]; runner/evaluator/judge/roofline.py)."""
    values = [r.roofline_seen if split == "seen" else r.roofline_unseen for r in results if passed(r, split)]
    return [v for v in values if v]


@dataclass
class Generalization:
    quadrants: dict
    conditional_correctness: float | None     # P(candidate passes unseen | baseline passes unseen)
    baseline_ok: int
    both_ok: int
    speedup_seen: float | None                # geomean over attempts passing both splits
    speedup_unseen: float | None


def generalization(results: list[AttemptResult]) -> Generalization:
    """AgentKernelArena's held-out protocol, on every run: quadrants and conditional correctness."""
    counts = {q: 0 for q in QUADRANTS}
    baseline_ok = both_ok = 0
    for r in results:
        if r.baseline_correct_unseen is None or not scored(r):
            continue
        cand = passed(r, "unseen")
        q = {(True, True): "both_pass", (True, False): "opt_regression", (False, False): "both_fail",
             (False, True): "opt_improvement"}[(bool(r.baseline_correct_unseen), cand)]
        counts[q] += 1
        if r.baseline_correct_unseen:
            baseline_ok += 1
            both_ok += cand
    pairs = [(speedup(r, "seen"), speedup(r, "unseen")) for r in results
             if passed(r, "seen") and passed(r, "unseen")]
    pairs = [(a, b) for a, b in pairs if a and b]
    return Generalization(
        quadrants=counts,
        conditional_correctness=(100.0 * both_ok / baseline_ok) if baseline_ok else None,
        baseline_ok=baseline_ok, both_ok=both_ok,
        speedup_seen=geomean(a for a, _ in pairs), speedup_unseen=geomean(b for _, b in pairs))


def attempt_scores(r: AttemptResult) -> dict:
    return {"aka": aka_score(r, "seen"), "aka_unseen": aka_score(r, "unseen"),
            "bounded": bounded_score(r, "seen"), "bounded_unseen": bounded_score(r, "unseen"),
            "passed_seen": passed(r, "seen"), "passed_unseen": passed(r, "unseen"),
            "roofline_seen": r.roofline_seen if passed(r, "seen") else None,
            "roofline_unseen": r.roofline_unseen if passed(r, "unseen") else None}


def by_task(results: list[AttemptResult]) -> dict[str, list[AttemptResult]]:
    groups: dict[str, list[AttemptResult]] = {}
    for r in results:
        groups.setdefault(r.task, []).append(r)
    return groups


def pass_at_k(results: list[AttemptResult], k: int, split: str = "seen") -> float | None:
    """Codex/HumanEval's unbiased pass@k, averaged over tasks: per task with n attempts of which c
    pass, 1 - C(n-c, k) / C(n, k). Tasks with fewer than k attempts are left out."""
    values = []
    for rs in by_task(results).values():
        n, c = len(rs), sum(passed(r, split) for r in rs)
        if n < k:
            continue
        values.append(1.0 - (math.comb(n - c, k) / math.comb(n, k) if n - c >= k else 0.0))
    return mean(values)


def speedup_spread(results: list[AttemptResult], split: str = "seen") -> float | None:
    """The spread across repeats: per task, the standard deviation of the speedup over its attempts
    (a failed one counted as FAILED_SPEEDUP), averaged over tasks with two attempts or more."""
    spreads = []
    for rs in by_task(results).values():
        if len(rs) < 2:
            continue
        values = speedups(rs, split, include_failures=True)
        mu = sum(values) / len(values)
        spreads.append(math.sqrt(sum((v - mu) ** 2 for v in values) / (len(values) - 1)))
    return mean(spreads)
