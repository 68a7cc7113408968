"""Result: the typed records an attempt produces, and their JSON form.

Standard library only (the evaluator writes these inside containers).
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

STATUSES = ("ok", "agent_timeout", "agent_error", "infra_error", "task_error")
# task_error: the task itself is broken (its reference raises, make_inputs is missing or returns
# the wrong types); set from Evaluation.task_error. Never counted as the candidate failing or passing.
# Per-config speedups enter every aggregate capped at this value (docs/scoring.md): one config (or
# one task) cannot dominate a mean. Independent of the excessive-speedup flag (evaluator, default 10x).
SPEEDUP_CAP = 10.0


@dataclass
class ConfigResult:
    """One config of one split: did the candidate match the reference, and how fast were both."""
    config: str
    split: str                       # seen | unseen | drawn (--unseen N: runner/tasks/configspace.py)
    params: dict
    correct: bool
    max_abs_err: float | None = None
    error: str | None = None         # why it is not correct, in one line
    baseline_correct: bool | None = None
    baseline_ms: float | None = None   # with baseline_offset_ms added where it was measured
    candidate_ms: float | None = None
    speedup: float | None = None     # baseline_ms / candidate_ms, only when correct
    # a 95 % interval for `speedup` (bootstrap over the paired rounds: evaluator/timing.speedup_interval)
    speedup_ci95: list[float] | None = None
    baseline_iqr_ms: float | None = None
    candidate_iqr_ms: float | None = None
    baseline_cv: float | None = None   # coefficient of variation of the timed repetitions
    candidate_cv: float | None = None
    timing_samples: int | None = None  # candidate repetitions behind candidate_ms
    escaped_reps: int | None = None    # repetitions with work outside the current stream (GPU)
    judge_overhead_ms: float | None = None  # the baseline's per-call wall time its samples do not explain
    judge_excess_ms: float | None = None    # the candidate's unexplained per-call time less the baseline's
    baseline_clean_ms: float | None = None  # the baseline timed again once the candidate's processes were gone
    # the baseline's time in the candidate's runner process less its time in its own, measured before
    # the candidate was loaded (GPU; judge.process_offset): included in baseline_ms
    baseline_offset_ms: float | None = None
    flags: list[str] = field(default_factory=list)  # per-config anti-reward-hacking findings
    # graded against the hardware (GPU; runner/evaluator/judge/roofline.py): the task's [work] for this config,
    # the candidate's achieved rates, and roofline time / measured time against this GPU's measured ceilings
    work_bytes: float | None = None
    work_flops: float | None = None
    achieved_gbps: float | None = None
    achieved_tflops: float | None = None
    roofline_fraction: float | None = None
    bound: str | None = None               # memory | compute: which ceiling the roofline time comes from
    baseline_roofline_fraction: float | None = None


MAX_SPEEDUP = 10.0   # default excessive-speedup flag (KernelBench's); a run option


@dataclass
class Evaluation:
    """What the evaluator reports for one candidate on one device."""
    device: str
    compiled: bool
    compile_log: str = ""
    configs: list[ConfigResult] = field(default_factory=list)
    timing_meaningful: bool = True
    timing_method: str = ""
    error: str | None = None         # an evaluator failure not tied to one config
    timing_regime: str = ""          # cold (L2 flushed per call) | warm (back to back)
    max_speedup: float | None = None # the excessive-speedup threshold in force
    flags: list[str] = field(default_factory=list)  # anti-reward-hacking findings: scores are zero
    # The flags that rest only on what the candidate's own process reported (its runner's findings
    # and op watch): early explanations the candidate could have silenced; every other flag is the
    # judge's, the OS's or the device trace's reading (docs/evaluation.md, "Evidence").
    in_process_flags: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    nonce: str | None = None         # echoed from the host: the file is the evaluator's own
    task_error: str | None = None    # the task's reference/make_inputs failed: not the candidate's fault
    # The judge's own side failed (the baseline's runner died, the baseline failed its clean room):
    # the configs it took down are no verdict on the candidate, and the attempt is an infra_error.
    harness_error: str | None = None
    environment: dict = field(default_factory=dict)  # torch, triton, CUDA/ROCm, driver, GPU it ran on
    ceilings: dict = field(default_factory=dict)     # this GPU's measured bandwidth and math peaks (roofline.py)

    def split(self, name: str) -> list[ConfigResult]:
        return [c for c in self.configs if c.split == name]

    def correct(self, split: str) -> bool:
        rows = self.split(split)
        return self.compiled and bool(rows) and all(c.correct for c in rows)

    def speedup(self, split: str) -> float | None:
        """Geometric mean over the split's configs of baseline_ms / candidate_ms, each capped at
        SPEEDUP_CAP; None unless correct."""
        if not self.correct(split):
            return None
        ratios = [c.speedup for c in self.split(split)]
        if not ratios or any(r is None or r <= 0 for r in ratios):
            return None
        return math.exp(sum(math.log(min(r, SPEEDUP_CAP)) for r in ratios) / len(ratios))

    def roofline(self, split: str) -> float | None:
        """Geometric mean over the split's configs of the candidate's fraction of the roofline; None
        unless correct with a fraction on every config."""
        if not self.correct(split):
            return None
        fractions = [c.roofline_fraction for c in self.split(split)]
        if not fractions or any(f is None or f <= 0 for f in fractions):
            return None
        return math.exp(sum(math.log(f) for f in fractions) / len(fractions))

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Evaluation":
        configs = [ConfigResult(**_known(ConfigResult, c)) for c in data.get("configs", [])]
        return cls(**{**_known(cls, data), "configs": configs})


# Flags the attempt raises itself (runner/run/run.py), not its evaluation: kept when one is applied.
UNRECORDED = "unrecorded_changes"
ATTEMPT_FLAGS = (f"{UNRECORDED}:",)


@dataclass
class AttemptResult:
    """result.json of one attempt (one agent on one task)."""
    task: str
    category: str
    agent: str
    device: str
    status: str                      # one of STATUSES
    compiled: bool = False
    correct_seen: bool = False
    correct_unseen: bool = False
    speedup_seen: float | None = None
    speedup_unseen: float | None = None
    changed_files: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    configs: list[ConfigResult] = field(default_factory=list)
    # bytes the agent's workspace holds when it stopped, junk included (it stays in the run dir until
    # `gauntlet gc --workspaces RUN_DIR` prunes the workspaces of a finished run)
    workspace_bytes: int | None = None
    agent_seconds: float | None = None
    agent_exit_code: int | None = None
    agent_containment: str | None = None  # how the agent's processes were held (runner/sandbox/local.py)
    agent_limits: str | None = None      # CPU/memory/pid limits enforced on them, or "none: <why>"
    agent_failure: str | None = None     # classified by the agent's parser
    usage: dict | None = None            # from the CLI's own final event, else the gateway's meter
    usage_source: str | None = None      # "cli" | "gateway" (the CLI had no final usage: killed, crashed)
    cost_usd: float | None = None
    eval_seconds: float | None = None
    timing_meaningful: bool = True
    timing_method: str = ""
    timing_regime: str = ""
    flags: list[str] = field(default_factory=list)  # non-empty: every score of this attempt is zero
    baseline_correct_unseen: bool | None = None     # the baseline passes every hidden config
    correct_drawn: bool | None = None               # --unseen N: correct on every drawn config (None: none)
    speedup_drawn: float | None = None              # geomean over the drawn configs; null unless correct
    quadrant: str | None = None                     # both_pass | opt_regression | both_fail | opt_improvement
    origin: dict | None = None                      # an imported task's [source]: benchmark, path, category, commit
    environment: dict = field(default_factory=dict)  # the judge's: torch, triton, CUDA/ROCm, compilers, driver, GPU/CPU, OS
    compile_log: str = ""
    error: str | None = None
    attempt: int = 0                                # k of `--attempts K` (0 .. K-1)
    suites: list[str] = field(default_factory=list)  # the named suites the task counts in (task.toml)
    roofline_seen: float | None = None              # geomean fraction of this GPU's roofline (seen; null unless correct)
    roofline_unseen: float | None = None
    ceilings: dict = field(default_factory=dict)    # the measured ceilings the fractions are of
    gpu: str | None = None                          # the pool's device the evaluation had alone (--gpus)
    eval_started: float | None = None               # the evaluation's window, epoch seconds: windows on
    eval_finished: float | None = None              # one GPU never overlap (GpuPool + gpulock)
    started: str = ""
    finished: str = ""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "AttemptResult":
        configs = [ConfigResult(**_known(ConfigResult, c)) for c in data.get("configs", [])]
        return cls(**{**_known(cls, data), "configs": configs})

    def apply(self, evaluation: Evaluation) -> None:
        self.compiled = evaluation.compiled
        self.correct_seen = evaluation.correct("seen")
        self.correct_unseen = evaluation.correct("unseen")
        self.speedup_seen = evaluation.speedup("seen")
        self.speedup_unseen = evaluation.speedup("unseen")
        self.configs = evaluation.configs
        self.timing_meaningful = evaluation.timing_meaningful
        self.timing_method = evaluation.timing_method
        self.timing_regime = evaluation.timing_regime
        self.flags = [*(f for f in self.flags if f.startswith(ATTEMPT_FLAGS)), *evaluation.flags]
        drawn = evaluation.split("drawn")
        self.correct_drawn = evaluation.correct("drawn") if drawn else None
        self.speedup_drawn = evaluation.speedup("drawn") if drawn else None
        unseen = evaluation.split("unseen")
        self.baseline_correct_unseen = all(c.baseline_correct for c in unseen) if unseen else None
        self.quadrant = (quadrant(self.baseline_correct_unseen, self.correct_unseen and not self.flags)
                         if unseen else None)
        self.environment = dict(evaluation.environment)
        self.roofline_seen = evaluation.roofline("seen")
        self.roofline_unseen = evaluation.roofline("unseen")
        self.ceilings = dict(evaluation.ceilings)
        self.compile_log = evaluation.compile_log[-4000:]
        if evaluation.error:
            self.error = evaluation.error
        if evaluation.harness_error:
            self.status = "infra_error"      # redone by --resume; never a pass, never the agent's failure
            self.error = evaluation.harness_error
        if evaluation.task_error:
            self.status = "task_error"       # the task is broken: not the candidate's failure


def quadrant(baseline_ok: bool | None, candidate_ok: bool) -> str | None:
    """AgentKernelArena's held-out quadrants: (baseline, candidate) on the hidden configs."""
    if baseline_ok is None:
        return None
    return {(True, True): "both_pass", (True, False): "opt_regression",
            (False, False): "both_fail", (False, True): "opt_improvement"}[(bool(baseline_ok), bool(candidate_ok))]


def _known(cls, data: dict) -> dict:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def write_json(path: Path, data: dict) -> None:
    """Atomic write: a reader (or a resumed run) never sees half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=2, sort_keys=False, default=str)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def read_json(path: Path) -> dict:
    return json.loads(Path(path).read_text())
