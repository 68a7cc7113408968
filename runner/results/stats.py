"""Geometric means with a percentile bootstrap interval over tasks and repeats (standard library).

Resampling is two-level: tasks with replacement, then each drawn task's repeats with replacement,
so the interval covers both which tasks were picked and run-to-run noise within a task. Seeded:
the same results give the same interval.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass

RESAMPLES = 2000
LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    value: float | None
    low: float | None
    high: float | None

    def text(self, unit: str = "x") -> str:
        if self.value is None:
            return "-"
        return f"{self.value:.3f}{unit} [{self.low:.3f}, {self.high:.3f}]"


def geomean(values) -> float | None:
    values = [v for v in values if v is not None and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def _task_mean_log(values: list[float]) -> float:
    return sum(map(math.log, values)) / len(values)


def bootstrap_geomean(groups: list[list[float]], resamples: int = RESAMPLES, seed: int = 0) -> Interval:
    """groups: per task, the positive values of its repeats. The geomean over tasks of each task's
    geomean over repeats, with its interval."""
    groups = [[v for v in g if v and v > 0] for g in groups]
    groups = [g for g in groups if g]
    if not groups:
        return Interval(None, None, None)
    point = math.exp(sum(_task_mean_log(g) for g in groups) / len(groups))
    rng = random.Random(seed)
    stats = []
    for _ in range(resamples):
        total = 0.0
        for _ in groups:
            g = groups[rng.randrange(len(groups))]
            total += _task_mean_log([g[rng.randrange(len(g))] for _ in g])
        stats.append(math.exp(total / len(groups)))
    stats.sort()
    tail = (1 - LEVEL) / 2
    return Interval(point, stats[int(tail * (resamples - 1))], stats[int((1 - tail) * (resamples - 1))])


def bootstrap_ratio(tasks: list[tuple[list[float], list[float]]], resamples: int = RESAMPLES,
                    seed: int = 0) -> Interval:
    """tasks: per task, (A's repeat values, B's repeat values), all positive. The geomean over tasks
    of geomean(B) / geomean(A), with its interval (tasks resampled, then each side's repeats)."""
    tasks = [(a, b) for a, b in tasks if a and b]
    if not tasks:
        return Interval(None, None, None)

    def log_ratio(a, b):
        return _task_mean_log(b) - _task_mean_log(a)
    point = math.exp(sum(log_ratio(a, b) for a, b in tasks) / len(tasks))
    rng = random.Random(seed)
    stats = []
    for _ in range(resamples):
        total = 0.0
        for _ in tasks:
            a, b = tasks[rng.randrange(len(tasks))]
            total += log_ratio([a[rng.randrange(len(a))] for _ in a], [b[rng.randrange(len(b))] for _ in b])
        stats.append(math.exp(total / len(tasks)))
    stats.sort()
    tail = (1 - LEVEL) / 2
    return Interval(point, stats[int(tail * (resamples - 1))], stats[int((1 - tail) * (resamples - 1))])
