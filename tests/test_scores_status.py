"""An attempt whose harness or task failed (infra_error, task_error) never counts as compiled,
correct or fast, whatever its evaluation says; `run` says so in its exit code, and `--resume`
redoes infra errors. Real CLI subprocesses and the real evaluator on the CPU for the run."""
import json
from pathlib import Path

import pytest

from runner.results import report, score
from runner.results.result import AttemptResult

from .conftest import gauntlet
from .test_run import ATTEMPT, SCALE, result


def _attempt(status: str) -> AttemptResult:
    """What an unedited X->X task looks like when the model API answered 500 every time: the shipped
    baseline, evaluated, is correct on every config."""
    return AttemptResult(task=SCALE, category="triton2triton", agent="claude", device="cuda", status=status,
                         compiled=True, correct_seen=True, correct_unseen=True, speedup_seen=1.0,
                         speedup_unseen=1.0, baseline_correct_unseen=True, quadrant="both_pass")


@pytest.mark.parametrize("status", ["infra_error", "task_error"])
def test_an_attempt_that_did_not_score_passes_nothing(status):
    ok, failed = _attempt("ok"), _attempt(status)
    assert score.passed(ok) and score.aka_score(ok) > 0          # the same evaluation, scored
    assert not score.passed(failed, "seen") and not score.passed(failed, "unseen")
    assert not score.compiled(failed) and not score.correct(failed, "seen")
    assert score.aka_score(failed) == 0 and score.bounded_score(failed) == 0
    assert score.fast_p([failed], 0.0) == 0 and score.fast_p([failed], 1.0) == 0
    assert score.speedups([failed], "seen") == [] and score.speedups([failed], include_failures=True) == [1.0]
    assert score.generalization([failed]).quadrants == {q: 0 for q in score.QUADRANTS}
    row, = report.aggregate([failed, ok])
    assert row.attempts == 2 and row.compiled_pct == 50.0 and row.correct_seen_pct == 50.0
    assert (row.infra_errors, row.task_errors) == ((1, 0) if status == "infra_error" else (0, 1))
    assert row.fast_0 == 0.5 and row.both_pass == 1
    text = report.render([row], "table")
    assert f"ended in infra_error" in text and "--resume" in text


def test_each_split_scores_its_own_speedup():
    r = _attempt("ok")
    r.speedup_seen, r.speedup_unseen, r.correct_drawn, r.speedup_drawn = 2.0, 3.0, True, 5.0
    assert [score.speedup(r, split) for split in ("seen", "unseen", "drawn")] == [2.0, 3.0, 5.0]
    assert score.speedups([r], "drawn") == [5.0]


def test_report_columns_for_csv_keep_their_historical_order():
    row, = report.aggregate([_attempt("ok")])
    header = report.render([row], "csv").splitlines()[0].split(",")
    assert header[:5] == ["category", "agent", "device", "attempts", "compiled_pct"]
    assert "infra_errors" in header and "task_errors" in header


def test_run_exits_3_on_infra_errors_and_resume_redoes_them(tasks_root, tmp_path):
    patch = tmp_path / "agent.patch"
    patch.write_text("diff --git a/kernel.py b/kernel.py\n--- a/kernel.py\n+++ b/kernel.py\n"
                     "@@ -1,1 +1,1 @@\n-not a line of kernel.py\n+x\n")          # does not apply: infra_error
    out = tmp_path / "run"
    args = ("run", "--tasks", "triton2triton/scale", "--tasks-root", tasks_root, "--device", "cpu",
            "--out", out, "--agent", "replay", "--replay-from", patch)
    first = gauntlet(*args, check=False)
    assert first.returncode == 3, first.stderr
    assert "1 attempt(s) did not score: triton2triton/scale (infra_error)" in first.stderr
    assert result(out)["status"] == "infra_error"
    rep = gauntlet("report", out)
    assert "ended in infra_error" in rep.stdout

    patch.write_text("")                       # the fault is gone: the resumed run redoes the attempt
    again = gauntlet(*args, "--resume", check=False)
    assert again.returncode == 0, again.stderr
    assert "1 to do, 0 already finished" in again.stdout
    assert result(out)["status"] == "ok"
