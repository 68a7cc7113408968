"""The audit's levels follow what the numbers can mean: a speedup near the excessive-speedup cap is
suspicious where times are meaningful (a GPU) and only a note on the CPU, where a loaded machine
moves a tiny kernel's time several-fold (an oracle reached 8.91x of a 10x cap on a CI machine)."""
import pytest

from runner.results.audit import NEAR_CAP, audit_attempt
from runner.results.load import AgentIdentity, Attempt
from runner.results.result import MAX_SPEEDUP, AttemptResult, ConfigResult


def _attempt(tmp_path, speedup: float, meaningful: bool) -> Attempt:
    row = ConfigResult(config="hidden-prime", split="unseen", params={}, correct=True, speedup=speedup)
    result = AttemptResult(task="triton2triton/scale", category="triton2triton", agent="oracle",
                           device="cuda" if meaningful else "cpu", status="ok", compiled=True,
                           correct_seen=True, correct_unseen=True, configs=[row], timing_meaningful=meaningful)
    return Attempt(result=result, run_dir=tmp_path, dir=tmp_path / "a", identity=AgentIdentity("oracle"))


@pytest.mark.parametrize("meaningful,level,verdict", [(True, "suspicious", "suspicious"), (False, "note", "clean")])
def test_near_cap_is_suspicious_only_where_times_mean_something(tmp_path, meaningful, level, verdict):
    row = audit_attempt(_attempt(tmp_path, 0.9 * MAX_SPEEDUP, meaningful))
    (finding,) = [f for f in row.findings if f.kind == "near_cap"]
    assert finding.level == level and row.verdict == verdict
    assert f"{0.9 * MAX_SPEEDUP:.2f}x against a {MAX_SPEEDUP:g}x cap" in finding.evidence


def test_below_near_cap_says_nothing(tmp_path):
    row = audit_attempt(_attempt(tmp_path, 0.99 * NEAR_CAP * MAX_SPEEDUP, True))
    assert row.verdict == "clean" and not row.findings
