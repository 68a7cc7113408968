"""After every other docker test: nothing moved, nothing left."""
from __future__ import annotations

from runner.sandbox.docker import managed_containers
from tests.conftest import FIXTURE_TASKS

from .conftest import tree_digest
from .test_02_agents import RESULTS


def test_shared_suite_unchanged(shared_tasks):
    assert tree_digest(shared_tasks) == tree_digest(FIXTURE_TASKS)


def test_oracle_result_unchanged_after_hostile_attempts(run_agent):
    a = run_agent("oracle")
    r = a.result
    now = {k: r[k] for k in ("status", "compiled", "correct_seen", "correct_unseen", "changed_files", "violations")}
    if "oracle" in RESULTS:
        assert now == RESULTS["oracle"]
    assert now["status"] == "ok" and now["correct_seen"] and now["correct_unseen"]


def test_no_runner_container_remains(engine):
    left = managed_containers(engine)
    assert left == [], [c.name for c in left]
