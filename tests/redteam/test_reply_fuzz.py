"""Every reply of the candidate's runner is the candidate's to write: its harness runs in the
candidate's process, which can reach the runner's modules by name and replace how replies are sent.
A reply that makes the judge raise would make the evaluation the harness's failure (infra_error:
never scored, redone by --resume), a failing candidate's way out. Here the candidate mutates its
runner's replies at random, at rates from one field in a hundred to one in twenty (numbers turned
into NaN, infinities, strings, lists, huge integers; fields dropped; lists and dicts swapped), seeded
so each case repeats. Whatever it sends, the verdict must be the candidate's own: no harness error,
no task error, no config failed by the evaluator itself. (Session 26's exploration ran 88 such
seeds, all held; these keep the invariant.)"""
import pytest

from .conftest import KERNEL

MUTATING = KERNEL + '''
import sys, random
_protocol = sys.modules["runner.evaluator.protocol"]
_send = _protocol.send
_rng = random.Random(SEED)
RATE = PROB


def _mutated(v):
    r = _rng.random()
    if isinstance(v, bool):
        return v if r > RATE else _rng.choice([not v, "x", None, 1])
    if isinstance(v, (int, float)):
        return v if r > RATE else _rng.choice([-v, 0, float("nan"), float("inf"), -float("inf"), 1e300, "1", None,
                                                [v], {"a": v}, v * 1000, 2**70, True])
    if isinstance(v, str):
        return v if r > RATE else _rng.choice([None, 1, "", v * 2, [v]])
    if isinstance(v, list):
        return _rng.choice([{}, [], None, "x", 5]) if r < RATE / 3 else [_mutated(x) for x in v]
    if isinstance(v, dict):
        if r < RATE / 3:
            return _rng.choice([[], None, "x", 5, {}])
        return {k: (x if k == "ok" else _mutated(x)) for k, x in v.items() if k == "ok" or _rng.random() >= RATE / 3}
    return v


def send(sock, message, fds=()):
    if isinstance(message, dict) and isinstance(message.get("ok"), bool):
        message = _mutated(message)
        if not isinstance(message, dict):
            message = {"ok": True}
    return _send(sock, message, fds)


_protocol.send = send


def forward(x, alpha):
    return honest(x, alpha)
'''


@pytest.mark.parametrize("seed, rate", [(101, 0.01), (102, 0.02), (103, 0.03), (104, 0.05),
                                        (105, 0.01), (106, 0.02), (107, 0.03), (108, 0.05)])
def test_no_reply_of_the_candidates_runner_makes_the_judges_failure(judge, seed, rate):
    v = judge(MUTATING.replace("SEED", str(seed)).replace("PROB", str(rate)), splits=("seen", "unseen"), measure=True)
    by_the_judge = [c.error for c in v.evaluation.configs if (c.error or "").startswith("evaluator:")]
    assert not v.evaluation.harness_error and not v.evaluation.task_error and not by_the_judge, (
        v.evaluation.harness_error, v.evaluation.task_error, by_the_judge)
    assert v.flagged("harness_access")                 # the reach into the runner's modules is named
