"""Red team, issue 30: evidence the candidate cannot reach. Each cheat here does its work where no
watch inside the runner's process looks; what stops it must live outside that process.

- Other processes: a worker the candidate starts (a plain Python worker, as a torch DataLoader or
  multiprocessing `spawn` starts one; a forked copy of the runner; a program it compiled, named as
  the toolchain's) computes the outputs. The runner cannot fork a copy of itself (nofork.py, a
  seccomp filter it cannot lift) and the judge's process watch (procwatch.py, /proc from the
  judge's side) flags any other program in the sandbox.

Each cheat passed correct and unflagged on e9f494d, before these mechanisms.
"""
import pytest

from .conftest import KERNEL, REPO, gpu_cheat

HONEST = KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n"

# Each cheat reaches what it needs through names resolved from strings (a torch utility imports a
# dotted name), which the static checks cannot follow, and launches one token Triton kernel a call
# so that no in-process watch has a word to say: on e9f494d each passed correct and unflagged.
PRE = KERNEL + '''
_load = torch._utils._import_dotted_name
_os, _sys, _struct = _load("o" + "s"), _load("s" + "ys"), _load("str" + "uct")
_token = torch.ones(1)


def _bytes_of(x):
    return bytes(x.detach().contiguous().cpu().untyped_storage())[:4 * x.numel()]


def _tensor_like(x, data):
    honest(_token.to(x.device), 1.0)           # a Triton launch, for the launch counter
    return torch.frombuffer(bytearray(data), dtype=torch.float32).reshape(x.shape).to(x.device)
'''

# The outputs computed by another Python process, fed over pipes: what a DataLoader worker does.
PYTHON_WORKER = PRE + '''
_CODE = """
import sys, struct, array
inp, out = sys.stdin.buffer, sys.stdout.buffer
while True:
    head = inp.read(12)
    if len(head) < 12:
        break
    n, alpha = struct.unpack("<qf", head)
    x = array.array("f", inp.read(4 * n))
    out.write(array.array("f", [v * alpha for v in x]).tobytes())
    out.flush()
"""
_proc = getattr(_load("sub" + "process"), "Po" + "pen")([_sys.executable, "-c", _CODE], stdin=-1, stdout=-1)


def forward(x, alpha):
    data = _bytes_of(x)
    getattr(_proc.stdin, "wri" + "te")(_struct.pack("<qf", x.numel(), float(alpha)) + data)
    getattr(_proc.stdin, "fl" + "ush")()
    return _tensor_like(x, getattr(_proc.stdout, "re" + "ad")(len(data)))
'''

# A copy of the runner made at import, serving over pipes: no new program at all.
FORKED_WORKER = PRE + '''
_array = _load("ar" + "ray")
_from_parent, _to_child = getattr(_os, "pi" + "pe")()      # (read end, write end)
_from_child, _to_parent = getattr(_os, "pi" + "pe")()
_read, _write = getattr(_os, "re" + "ad"), getattr(_os, "wri" + "te")


def _read_all(fd, n):
    buf = b""
    while len(buf) < n:
        buf += _read(fd, n - len(buf))
    return buf


def _write_all(fd, data):
    while data:
        data = data[_write(fd, data):]


if getattr(_os, "fo" + "rk")() == 0:
    while True:
        n, alpha = _struct.unpack("<qf", _read_all(_from_parent, 12))
        x = _array.array("f", _read_all(_from_parent, 4 * n))
        _write_all(_to_parent, _array.array("f", [v * alpha for v in x]).tobytes())


def forward(x, alpha):
    data = _bytes_of(x)
    _write_all(_to_child, _struct.pack("<qf", x.numel(), float(alpha)) + data)
    return _tensor_like(x, _read_all(_from_child, len(data)))
'''

# A C program the candidate compiles into its work dir at import, named like the toolchain's ptxas.
NATIVE_WORKER = PRE + r'''
_sp = _load("sub" + "process")
_SRC = """
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
int main(void) {
    int64_t n; float a;
    while (fread(&n, 8, 1, stdin) == 1 && fread(&a, 4, 1, stdin) == 1) {
        float* x = malloc(4 * n);
        if (fread(x, 4, n, stdin) != (size_t)n) return 1;
        for (int64_t i = 0; i < n; i++) x[i] *= a;
        fwrite(x, 4, n, stdout); fflush(stdout); free(x);
    }
    return 0;
}
"""
_dir = getattr(_os, "getc" + "wd")()
with getattr(_load("buil" + "tins"), "op" + "en")(_dir + "/w.c", "w") as fh:
    fh.write(_SRC)
getattr(getattr(_sp, "Po" + "pen")(["cc", "-O2", "-o", _dir + "/ptxas", _dir + "/w.c"]), "wa" + "it")()
_proc = getattr(_sp, "Po" + "pen")([_dir + "/ptxas"], stdin=-1, stdout=-1)


def forward(x, alpha):
    data = _bytes_of(x)
    getattr(_proc.stdin, "wri" + "te")(_struct.pack("<qf", x.numel(), float(alpha)) + data)
    getattr(_proc.stdin, "fl" + "ush")()
    return _tensor_like(x, getattr(_proc.stdout, "re" + "ad")(len(data)))
'''


def test_the_static_checks_name_them_now_and_the_tests_below_read_past_them():
    """On e9f494d no static flag named these cheats: a dotted name imported from a string was not
    followed. The static checks follow it now (and flag an import of a name they cannot fold), so
    the tests below read only the other lines' flags (Verdict.outside_flags): each outside
    mechanism is shown to hold where a spelling the static checks miss is found."""
    from runner.evaluator.judge.static_checks import check_python
    for source in (PYTHON_WORKER, FORKED_WORKER, NATIVE_WORKER):
        assert any(f.startswith("process_control: os via _load") for f in check_python(source))


def test_an_honest_kernel_raises_no_process_finding(judge):
    v = judge(HONEST)
    assert v.correct and not v.flagged("foreign_process"), v.flags
    assert not any("fork filter" in n for n in v.evaluation.notes), v.evaluation.notes


def test_a_python_worker_process_is_seen_from_outside(judge):
    v = judge(PYTHON_WORKER)
    assert any(f.startswith("foreign_process") for f in v.outside_flags) and v.rejected(), (v.flags, v.errors)
    assert any("second Python process" in f for f in v.flags), v.flags


def test_a_forked_copy_of_the_runner_is_refused(judge):
    v = judge(FORKED_WORKER)
    assert not v.evaluation.compiled and v.rejected(), (v.flags, v.evaluation.compile_log[-300:])
    assert "Operation not permitted" in v.evaluation.compile_log, v.evaluation.compile_log[-300:]
    assert not v.outside_flags, v.flags    # the fork refused is the whole defence: no other line named it


def test_a_program_compiled_in_the_sandbox_under_a_toolchain_name_is_seen(judge):
    v = judge(NATIVE_WORKER)
    assert v.rejected() and any("'ptxas'" in f for f in v.flags if f.startswith("foreign_process")), \
        (v.flags, v.errors, v.evaluation.compile_log[-300:])


@pytest.mark.parametrize("period_s", [0.01])
def test_the_watch_lets_the_toolchain_run_and_names_anything_else(tmp_path, period_s):
    """The rule on its own, on real processes: a real cc (from PATH) is the system's; a program in
    the work dir named `cc`, and a second interpreter, are not."""
    import shutil
    import subprocess
    import sys

    from runner.evaluator.judge.procwatch import ProcessWatch
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(shutil.which("sleep"), work / "cc")     # a program of the sandbox's, named as the toolchain's
    root = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time\n"
                             f"a = subprocess.Popen([{shutil.which('cc')!r}, '-E', '-'], stdin=subprocess.PIPE)\n"
                             f"b = subprocess.Popen([{str(work / 'cc')!r}, '30'])\n"
                             "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
                             "time.sleep(30)\n"])
    try:
        watch = ProcessWatch(root.pid, str(work), period_s=period_s).start()
        import time
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(watch.findings) < 2:
            time.sleep(0.05)
        found = watch.stop()
    finally:
        for child in subprocess.run(["pgrep", "-P", str(root.pid)], capture_output=True, text=True).stdout.split():
            subprocess.run(["kill", "-9", child])
        root.kill()
    assert any("'cc'" in f for f in found), found                      # the copy in the work dir
    assert any("second Python process" in f for f in found), found
    assert len(found) == 2, found                                       # the real cc is the toolchain's


def test_a_program_that_runs_another_under_the_look_is_not_taken_for_one_from_the_sandbox(monkeypatch):
    """A compiler's child between its fork and its exec is the compiler, then the program it runs
    (gcc, then `as`): a look that reads the link before the exec and the file's identity after it
    sees a name and an identity that disagree, which reads as a program from inside the sandbox
    (an honest Triton noop was flagged so on an H200, results/gpu-2026-11-30-s20.md). The watch
    reads the link again and judges such a process at its next look, as what it runs then."""
    import os
    import shutil
    import subprocess

    from runner.evaluator.judge import procwatch
    proc = subprocess.Popen([shutil.which("sleep"), "30"])       # a system program, stable
    real, cc = os.readlink, os.path.realpath(shutil.which("cc"))
    reads = []

    def exec_between_reads(path):          # the first read sees the program it ran before: cc
        reads.append(path)
        return cc if len(reads) == 1 else real(path)
    try:
        watch = procwatch.ProcessWatch(proc.pid, "/nonexistent")
        monkeypatch.setattr(procwatch.os, "readlink", exec_between_reads)
        assert watch.judge(proc.pid) is None, reads
        monkeypatch.setattr(procwatch.os, "readlink", real)
        assert watch.judge(proc.pid) is None                   # the next look: sleep, the system's
        # a name that stays at odds with the program's identity is still a finding
        monkeypatch.setattr(procwatch.os, "readlink", lambda path: cc if path.startswith("/proc/") else real(path))
        assert "from inside the sandbox" in (watch.judge(proc.pid) or "")
    finally:
        proc.kill()
        proc.wait()


def test_a_judge_that_cannot_read_the_runner_says_so_and_flags_nothing(monkeypatch):
    """The docker backend's judge has no ptrace access to the runner's uid: it cannot read any
    program there. It must say it did not look, never flag the honest runner as foreign; once the
    runner was read, a process that hides its program is a finding."""
    import os
    import subprocess
    import sys

    from runner.evaluator.judge import procwatch
    root = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    real = os.readlink
    try:
        monkeypatch.setattr(procwatch.os, "readlink", lambda p: (_ for _ in ()).throw(PermissionError(13, p)))
        watch = procwatch.ProcessWatch(root.pid, "/nonexistent")
        watch.look()
        found = watch.stop()
        assert len(found) == 1 and found[0].startswith("note: the process watch could not read"), found
        monkeypatch.setattr(procwatch.os, "readlink", real)
        watch = procwatch.ProcessWatch(root.pid, "/nonexistent")
        watch.look()                                      # the runner read
        monkeypatch.setattr(procwatch.os, "readlink", lambda p: (_ for _ in ()).throw(PermissionError(13, p)))
        assert watch.judge(root.pid + 10 ** 6) == "a process that hid its program from the judge"
        watch.stop()
    finally:
        root.kill()
        root.wait()


def _gpu_cheat(name: str) -> str:
    """A cheat of the GPU red team (bench/judge_gpu.py CHEATS), as that bench writes it beside
    triton2triton/softmax's honest kernel."""
    honest = (REPO / "tasks" / "triton2triton" / "softmax" / "solution" / "kernel.py").read_text()
    return honest.replace("def forward(", "def _honest(") + "\n" + gpu_cheat(name).replace("{sym}", "forward")


def test_a_result_moved_through_host_memory_is_flagged_however_it_was_computed():
    """The device trace's open form (docs/evaluation.md): kernels of the candidate's own move the
    input into pinned host memory and the result out of it by host address, the CPU computing
    between; no copy and no PyTorch kernel is recorded. On an H200 (results/gpu-2026-11-30.md) the
    red team's mapped_host_result passed the trace and was caught only because its numpy calls were
    spelled. The memory itself is the mechanism's mark: with the computation moved where no check
    reads it, the pinned buffers are still `host_memory`."""
    from runner.evaluator.judge.static_checks import check_python
    cheat = _gpu_cheat("mapped_host_result")
    assert any(f.startswith("numpy_compute") for f in check_python(cheat))
    unspelled = cheat.replace("import numpy as np\n", "from helpers import compute_on_the_host\n")
    start, end = unspelled.index("    a = h_in.float()"), unspelled.index("    y = torch.empty_like(x)")
    unspelled = unspelled[:start] + "    compute_on_the_host(h_in, h_out)\n" + unspelled[end:]
    found = check_python(unspelled)
    assert not [f for f in found if f.startswith("numpy_compute")], found
    assert any(f.startswith("host_memory: pin_memory=True") for f in found), found


def test_a_clock_shaved_below_the_trace_margin_is_named_by_the_static_checks():
    """clock_shaved (bench/judge_gpu.py): every sample 5 % short, below clock_short's margin. On a
    GPU the device-time floor takes the gain back (devtrace.floored; tests/test_devtrace.py); here
    the static checks name the reach into the runner's clock."""
    from runner.evaluator.judge.static_checks import check_python
    found = check_python(_gpu_cheat("clock_shaved"))
    assert any(f.startswith("process_control: sys.modules") for f in found), found


@pytest.mark.parametrize("cheat", ["flush_on_inputs", "flush_stride0", "flush_aliased", "flush_aliased_bulky"])
def test_a_flush_pointed_elsewhere_is_named_by_the_static_checks(cheat):
    """The L2 flush's own reduction pointed at the call's inputs, at one word through a stride-0
    view, or at one physical chunk mapped 64 times (bench/judge_gpu.py): the device trace's flush
    rule checks name, blocks and time, which such a flush may meet; on CUDA the DRAM witness reads
    what it did not read (judge/dram.py, tests/test_dram_witness.py); the reach into the runner's
    clock it needs is what the static checks name, on every platform, and the driver's memory calls
    of the aliased forms are native access."""
    from runner.evaluator.judge.static_checks import check_python
    found = check_python(_gpu_cheat(cheat))
    assert any(f.startswith("process_control: sys.modules") for f in found), found
    if cheat.startswith("flush_aliased"):
        assert any(f.startswith("native_access: import ctypes") for f in found), found


# A thread started at import does the work (red team, session 27): the result computed by PyTorch on
# a logging.handlers.QueueListener's thread, beside a one-element launch of its own kernel. The
# dispatch watch is a mode of the calling thread and the static checks name no thread module here,
# so on the CPU it passed correct and unflagged. On the CPU device (one-thread pools) the runner's
# filter refuses any new thread once the kernel is loaded (nofork.py): its import fails.
QUEUE_WORKER = KERNEL + '''
import logging
import logging.handlers
import queue

_jobs, _done = queue.Queue(), queue.Queue()


class _Worker(logging.Handler):
    def handle(self, record):
        x, alpha = record.msg
        _done.put(x * alpha)
        return True


_listener = logging.handlers.QueueListener(_jobs, _Worker())
_listener.start()


def forward(x, alpha):
    honest(x[:1], alpha)
    _jobs.put(logging.makeLogRecord({"msg": (x, alpha)}))
    return _done.get()
'''


@pytest.mark.parametrize("pools", ["1", "2"])
def test_a_thread_started_at_import_cannot_compute_on_the_cpu(judge, monkeypatch, pools):
    monkeypatch.setenv("OMP_NUM_THREADS", pools)
    v = judge(QUEUE_WORKER, splits=("seen", "unseen"))
    if pools == "1":       # the judge's default on the CPU: no thread may start
        assert not v.evaluation.compiled and "can't start new thread" in v.evaluation.compile_log, v.errors
    else:                  # pools of two threads: threads allowed, and the cheat passes (what the test holds)
        assert v.evaluation.compiled and v.correct and not v.flags, (v.errors, v.flags)
