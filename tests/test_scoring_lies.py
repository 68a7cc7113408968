"""Scoring paths that used to lie (issue 31): an agent that never ran, an evaluator that died, a
model stall cut by the budget. Each must end as what it is, never as the agent's pass or failure.
Real CLI subprocesses and the real evaluator on the CPU."""
import json

import pytest

from runner.results import report, score
from runner.results.result import AttemptResult

from .conftest import gauntlet
from .test_run import ATTEMPT, SCALE, result, run

DIE = "import os\nos._exit(137)\n"     # prepended to a task's reference.py: the judge dies importing it


@pytest.mark.quick
def test_an_agent_whose_command_does_not_exist_passes_nothing_and_the_run_says_so(tasks_root, tmp_path):
    out = tmp_path / "run"
    proc = run(tasks_root, out, "--agent", "command", "--command", "no-such-agent-cli-xyz --go", check=False)
    r = result(out)
    assert r["status"] == "agent_error" and r["agent_exit_code"] == 127 and r["changed_files"] == []
    assert r["agent_failure"] == "not_started" and "not evaluated" in r["error"]
    assert not r["compiled"] and not r["correct_seen"] and not r["configs"]
    assert proc.returncode == 4, proc.stderr
    assert "agent command never ran" in proc.stderr and "exit 127" in proc.stderr
    row, = report.aggregate(report.load_results([out]))
    assert row.correct_seen_pct == 0.0 and row.fast_0 == 0.0 and row.aka_mean == 0.0


@pytest.mark.quick
def test_an_agent_error_that_changed_nothing_never_counts_as_correct():
    """A result written before the evaluation was skipped (or re-evaluated by `gauntlet eval`): the
    unedited X->X baseline evaluated correct, under an agent that exited 127."""
    r = AttemptResult(task=SCALE, category="triton2triton", agent="command", device="cpu",
                      status="agent_error", compiled=True, correct_seen=True, correct_unseen=True,
                      speedup_seen=1.0, speedup_unseen=1.0, agent_exit_code=127)
    assert score.scored(r) and not score.produced(r)
    assert not score.compiled(r) and not score.passed(r) and score.aka_score(r) == 0
    assert score.fast_p([r], 0.0) == 0
    edited = AttemptResult(**{**r.to_dict(), "configs": [], "changed_files": ["kernel.py"]})
    assert score.passed(edited)      # an agent that failed after a real edit keeps what it did


def test_an_evaluator_that_dies_is_infra_error_and_resume_redoes_it(tasks_root, tmp_path):
    """The judge dies as the OOM killer leaves it (exit status 137 = 128 + SIGKILL) while it imports
    the reference (a SIGKILL it sent itself would not land: it is pid 1 of its pid namespace)."""
    reference = tasks_root / SCALE / "reference.py"
    shipped = reference.read_text()
    reference.write_text(DIE + shipped)
    out = tmp_path / "run"
    proc = run(tasks_root, out, "--agent", "oracle", check=False)
    r = result(out)
    assert r["status"] == "infra_error" and "exited with 137" in r["error"], r["error"]
    assert not r["compiled"] and proc.returncode == 3, proc.stderr
    assert not score.compiled(AttemptResult.from_dict(r))

    reference.write_text(shipped)
    run(tasks_root, out, "--agent", "oracle", "--resume")
    r = result(out)
    assert r["status"] == "ok" and r["correct_seen"] and r["correct_unseen"]


def test_gauntlet_eval_with_a_dying_evaluator_is_infra_error(tasks_root, tmp_path):
    """`gauntlet eval`: the re-evaluated attempt is an infra_error, not a compile failure with status ok."""
    out = tmp_path / "run"
    run(tasks_root, out, "--agent", "oracle")
    assert result(out)["correct_seen"]
    reference = tasks_root / SCALE / "reference.py"
    reference.write_text(DIE + reference.read_text())
    proc = gauntlet("eval", out, "--device", "cpu", "--tasks-root", tasks_root, check=False)
    r = result(out)
    assert r["status"] == "infra_error" and not r["compiled"] and "exited with 137" in r["error"], r
    assert proc.returncode == 3, proc.stderr
    assert json.loads((out / "attempts" / ATTEMPT / "result.prev-1.json").read_text())["correct_seen"]


@pytest.mark.quick
def test_the_oracle_on_a_task_without_a_solution_is_refused_before_any_attempt(tasks_root, tmp_path):
    import shutil
    shutil.rmtree(tasks_root / SCALE / "solution")
    toml = tasks_root / SCALE / "task.toml"
    toml.write_text(toml.read_text().replace('[solution]\ndir = "solution"\n', ""))
    out = tmp_path / "run"
    proc = run(tasks_root, out, "--agent", "oracle", check=False)
    assert proc.returncode == 1 and not out.exists(), proc.stdout + proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and "--agent oracle: triton2triton/scale ship(s) no solution/" in errors[0], errors


def test_a_baseline_runner_that_dies_is_infra_error_not_the_candidates_failure(tasks_root, tmp_path):
    """The baseline's runner is the judge's side (the task's own kernel): when it dies under a
    config (an H200 baseline runner aborted so, results/gpu-2026-11-30-s20.md), that config and
    those after it say nothing of the candidate. The attempt is an infra_error, redone by --resume,
    never a candidate marked wrong."""
    kernel = tasks_root / SCALE / "kernel.py"
    shipped = kernel.read_text()
    kernel.write_text(shipped.replace("def forward(x, alpha):\n",
                                      "def forward(x, alpha):\n    import os\n    if x.numel() == 10007:\n"
                                      "        os._exit(134)\n"))
    out = tmp_path / "run"
    proc = run(tasks_root, out, "--agent", "oracle", check=False)
    r = result(out)
    assert r["status"] == "infra_error" and "baseline runner died" in r["error"], r["error"]
    assert r["correct_seen"] and proc.returncode == 3, proc.stderr    # the seen configs ran before it
    assert not score.passed(AttemptResult.from_dict(r))
    kernel.write_text(shipped)
    run(tasks_root, out, "--agent", "oracle", "--resume")
    r = result(out)
    assert r["status"] == "ok" and r["correct_seen"] and r["correct_unseen"]
