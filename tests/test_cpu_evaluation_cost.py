"""What a CPU evaluation leaves out because it buys nothing there (issue 31; docs/evaluation.md,
"on the CPU"), and what it keeps: the baseline's runner is not under the PyTorch op watch on the CPU
(its findings are ignored, and timing symmetry means nothing where times are not meaningful), the
candidate's always is; PyTorch runs one thread per runner on the CPU unless the user says otherwise,
and glibc reuses freed memory there instead of faulting in fresh pages."""
import argparse

import pytest

from runner.evaluator.isolation import CPU_MALLOC, CPU_THREADS, Isolation
from runner.evaluator.kernel_runner import Runner


def _runner(role: str, device: str, language: str, report_ops: bool = False) -> Runner:
    return Runner(argparse.Namespace(role=role, device=device, language=language, report_ops=report_ops))


@pytest.mark.parametrize("role,device,language,watched", [
    ("candidate", "cpu", "triton", True),      # the candidate: always, wherever it runs
    ("candidate", "cpu", "python", True),
    ("candidate", "cuda", "triton", True),
    ("baseline", "cuda", "python", True),      # a GPU times both: the same machinery in both processes
    ("baseline", "cuda", "triton", True),
    ("baseline", "cpu", "python", False),      # the CPU: no timing symmetry to keep, findings ignored
    ("baseline", "cpu", "triton", False),
    ("candidate", "cpu", "c", False),          # a native kernel computes outside PyTorch's dispatch
])
def test_the_op_watch_is_off_only_for_the_baseline_on_the_cpu(role, device, language, watched):
    assert _runner(role, device, language).watches_ops() is watched


def test_an_x_to_x_baseline_is_watched_on_the_cpu_too():
    """Its PyTorch glue is what the candidate may compute (--report-ops: the judge reads it)."""
    assert _runner("baseline", "cpu", "triton", report_ops=True).watches_ops() is True


def test_runners_on_the_cpu_get_one_torch_thread_and_reuse_freed_memory(tmp_path, monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert Isolation("bwrap", (), "cpu").env(tmp_path)["OMP_NUM_THREADS"] == CPU_THREADS == "1"
    assert "OMP_NUM_THREADS" not in Isolation("bwrap", (), "cuda").env(tmp_path)
    # glibc keeps freed memory for reuse on the CPU (no fresh pages faulted in per call); GPUs unchanged
    assert CPU_MALLOC and CPU_MALLOC.items() <= Isolation("bwrap", (), "cpu").env(tmp_path).items()
    assert not CPU_MALLOC.keys() & Isolation("bwrap", (), "cuda").env(tmp_path).keys()
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert Isolation("bwrap", (), "cpu").env(tmp_path)["OMP_NUM_THREADS"] == "2"
