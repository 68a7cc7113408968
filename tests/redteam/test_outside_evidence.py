"""Red team, issue 30: evidence the candidate cannot reach. Each cheat here does its work where no
watch inside the runner's process looks; what stops it must live outside that process.

- Other processes: a worker the candidate starts (a plain Python worker, as a torch DataLoader or
  multiprocessing `spawn` starts one; a forked copy of the runner; a program it compiled, named as
  the toolchain's) computes the outputs. The runner cannot fork a copy of itself (nofork.py, a
  seccomp filter it cannot lift) and the judge's process watch (procwatch.py, /proc from the
  judge's side) flags any other program in the sandbox.

Each was checked to pass as correct and unflagged on e9f494d (before these mechanisms).
"""
import pytest

from .conftest import KERNEL

HONEST = KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n"

# The outputs computed by another Python process, fed over pipes: what a DataLoader worker does.
PYTHON_WORKER = KERNEL + '''
import subprocess, sys, struct
import numpy as np
_WORKER = """
import sys, struct
import numpy as np
inp, out = sys.stdin.buffer, sys.stdout.buffer
while True:
    head = inp.read(12)
    if len(head) < 12:
        break
    n, alpha = struct.unpack("<qf", head)
    x = np.frombuffer(inp.read(4 * n), dtype=np.float32)
    out.write((x * np.float32(alpha)).astype(np.float32).tobytes())
    out.flush()
"""
_proc = subprocess.Popen([sys.executable, "-c", _WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def forward(x, alpha):
    data = x.detach().contiguous().cpu().numpy().astype(np.float32).tobytes()
    _proc.stdin.write(struct.pack("<qf", x.numel(), float(alpha)) + data)
    _proc.stdin.flush()
    y = np.frombuffer(_proc.stdout.read(len(data)), dtype=np.float32).copy()
    return torch.from_numpy(y).reshape(x.shape).to(x.device)
'''

# A copy of the runner made at import, serving the same protocol: no new program at all.
FORKED_WORKER = KERNEL + '''
import os, struct
import numpy as np
_to_child, _from_parent = os.pipe()
_from_child, _to_parent = os.pipe()
if os.fork() == 0:
    while True:
        head = os.read(_from_parent, 12)
        if len(head) < 12:
            os._exit(0)
        n, alpha = struct.unpack("<qf", head)
        buf = b""
        while len(buf) < 4 * n:
            buf += os.read(_from_parent, 4 * n - len(buf))
        y = (np.frombuffer(buf, dtype=np.float32) * np.float32(alpha)).astype(np.float32).tobytes()
        while y:
            y = y[os.write(_to_parent, y):]


def forward(x, alpha):
    data = x.detach().contiguous().cpu().numpy().astype(np.float32).tobytes()
    os.write(_to_child, struct.pack("<qf", x.numel(), float(alpha)))
    view = data
    while view:
        view = view[os.write(_to_child, view):]
    buf = b""
    while len(buf) < len(data):
        buf += os.read(_from_child, len(data) - len(buf))
    return torch.from_numpy(np.frombuffer(buf, dtype=np.float32).copy()).reshape(x.shape).to(x.device)
'''

# A C program the candidate compiles into its work dir at import, named like the toolchain's ptxas.
NATIVE_WORKER = KERNEL + r'''
import os, subprocess, struct, tempfile
import numpy as np
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
_dir = tempfile.mkdtemp(dir=os.getcwd())
with open(os.path.join(_dir, "w.c"), "w") as fh:
    fh.write(_SRC)
subprocess.run(["cc", "-O2", "-o", os.path.join(_dir, "ptxas"), os.path.join(_dir, "w.c")], check=True)
_proc = subprocess.Popen([os.path.join(_dir, "ptxas")], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def forward(x, alpha):
    data = x.detach().contiguous().cpu().numpy().astype(np.float32).tobytes()
    _proc.stdin.write(struct.pack("<qf", x.numel(), float(alpha)) + data)
    _proc.stdin.flush()
    y = np.frombuffer(_proc.stdout.read(len(data)), dtype=np.float32).copy()
    return torch.from_numpy(y).reshape(x.shape).to(x.device)
'''


def test_an_honest_kernel_raises_no_process_finding(judge):
    v = judge(HONEST)
    assert v.correct and not v.flagged("foreign_process"), v.flags
    assert not any("fork filter" in n for n in v.evaluation.notes), v.evaluation.notes


def test_a_python_worker_process_is_seen_from_outside(judge):
    v = judge(PYTHON_WORKER)
    assert v.flagged("foreign_process") and v.rejected(), (v.flags, v.errors)
    assert any("second Python process" in f for f in v.flags), v.flags


def test_a_forked_copy_of_the_runner_is_refused(judge):
    v = judge(FORKED_WORKER)
    assert not v.evaluation.compiled and v.rejected(), (v.flags, v.evaluation.compile_log[-300:])
    assert "Operation not permitted" in v.evaluation.compile_log, v.evaluation.compile_log[-300:]


def test_a_program_compiled_in_the_sandbox_under_a_toolchain_name_is_seen(judge):
    v = judge(NATIVE_WORKER)
    assert v.rejected() and any("'ptxas'" in f for f in v.flags if f.startswith("foreign_process")), \
        (v.flags, v.errors, v.evaluation.compile_log[-300:])


@pytest.mark.parametrize("period_s", [0.01])
def test_the_watch_lets_the_toolchain_run_and_names_anything_else(tmp_path, period_s):
    """The rule on its own, on real processes: a real cc (from PATH) is the toolchain's; a copy of
    it in the work dir, and a second interpreter, are not."""
    import shutil
    import subprocess
    import sys

    from runner.evaluator.procwatch import ProcessWatch
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(shutil.which("cc"), work / "cc")
    root = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time\n"
                             f"a = subprocess.Popen([{shutil.which('cc')!r}, '-E', '-'], stdin=subprocess.PIPE)\n"
                             f"b = subprocess.Popen([{str(work / 'cc')!r}, '-E', '-'], stdin=subprocess.PIPE)\n"
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
