"""Red team against the judge/runner protocol and the buffers that cross it. The candidate shares
the runner's process: every reply, every descriptor the runner holds and every file in its work dir
is the candidate's. Each attack below worked against the judge as it was before its defence landed
(docs/evaluation.md, threat model); each test names the mechanism that now stops it."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import KERNEL, SCALE, TIMED

HONEST = KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n"
REPO = Path(__file__).resolve().parent.parent.parent

# The runner runs as `python -m runner.evaluator.kernel_runner`: its classes live in __main__.
RUNNER_CLASS = 'sys.modules["__main__"].Runner'


def _evaluate_in_a_subprocess(tasks_root, tmp_path, source: str, *args: str, timeout: float = 400):
    """The judge as the host runs it (`python -m runner.evaluator`): an attack that kills the judge
    process shows as a lost verdict here instead of killing the test."""
    candidate = tmp_path / "candidate"
    candidate.mkdir()
    (candidate / "kernel.py").write_text(source)
    out = tmp_path / "verdict" / "evaluation.json"
    out.parent.mkdir()
    proc = subprocess.run([sys.executable, "-m", "runner.evaluator", str(tasks_root / SCALE), "--tasks-root",
                           str(tasks_root), "--candidate", str(candidate), "--device", "cpu", "--split", "seen",
                           "--out", str(out), *args], capture_output=True, text=True, timeout=timeout, cwd=REPO)
    return proc, (json.loads(out.read_text()) if out.is_file() else None)


# -- the buffers the judge hands over ---------------------------------------------------------------
def test_shrinking_the_judges_output_buffer_fails_the_candidate_not_the_judge(tasks_root, tmp_path):
    """The runner holds the judge's output memfds while it writes them. Truncated to zero bytes after
    the write, the judge's mapping of them faults (SIGBUS) on its first read: the judge died and the
    verdict was lost. The judge's memfds are sealed against shrinking and growing before they cross."""
    proc, verdict = _evaluate_in_a_subprocess(tasks_root, tmp_path, HONEST + f'''
import os, sys
_write = {RUNNER_CLASS}._write


def _shrinking_write(self, outs, targets, fds):
    meta = _write(self, outs, targets, fds)
    for t in targets:
        try:
            os.ftruncate(fds[t["fd"]], 0)
        except OSError as exc:
            print("ftruncate refused:", exc, file=sys.stderr)
    return meta


{RUNNER_CLASS}._write = _shrinking_write
''', "--no-timing")
    assert proc.returncode == 0 and verdict is not None, (proc.returncode, proc.stderr[-800:])
    # The bytes it wrote before the refused truncation are correct: what matters is that the judge
    # lived to write a verdict (and the static checks name the reach into the runner).
    assert verdict["flags"], verdict


# -- the replies ------------------------------------------------------------------------------------
@pytest.mark.parametrize("reply", ["nested", "not_a_dict_call", "huge_shape", "shape_product_past_int64",
                                   "integer_past_64_bits", "nan"])
def test_a_malformed_reply_fails_the_candidate_and_never_the_judge(judge, reply):
    """Replies the candidate forges by replacing the runner's send: JSON nested deeper than the
    judge's parser recurses (it raised RecursionError out of the build), a `calls` list of numbers,
    an output described with a shape of 2**60 elements, one whose every extent is in range but whose
    product is past torch's int64 (its meta tensor raised RuntimeError in the judge: a harness error,
    so a candidate wrong on its hidden configs was redone, never failed; red team, session 23), an
    integer JSON allows and no float holds, a NaN Python's parser takes. Each must end as the
    candidate's failure."""
    forged = {
        "nested": 'sock.sendall(b"[" * 200000)',
        "not_a_dict_call": 'real(sock, {**message, "calls": [1, 2]} if "calls" in message else message, fds)',
        "huge_shape": ('real(sock, {**message, "calls": [{"outputs": [{"dtype": "float32", "shape": [2**30, 2**30], '
                       '"strides": [1, 1], "device": "cpu"}]} for _ in message["calls"]]} '
                       'if "calls" in message else message, fds)'),
        "shape_product_past_int64": (
            'real(sock, {**message, "calls": [{"outputs": [{"dtype": "float32", "shape": [2**39] * 4, '
            '"strides": [1] * 4, "device": "cpu"}]} for _ in message["calls"]]} '
            'if "calls" in message else message, fds)'),
        "integer_past_64_bits": 'real(sock, {**message, "runner_ms": 10 ** 400}, fds)',
        "nan": 'real(sock, {**message, "runner_ms": float("nan")}, fds)',
    }[reply]
    v = judge(HONEST + f'''
import sys
_protocol = sys.modules["runner.evaluator.protocol"]
real = _protocol.send


def _forged(sock, message, fds=()):
    {forged}


_protocol.send = _forged
''')
    assert not v.correct, v.errors
    assert not any("evaluator:" in (e or "") for e in v.errors.values()), v.errors


# -- the runner's work dir, read by the judge --------------------------------------------------------
def test_the_runner_log_swapped_for_a_link_to_hidden_data_is_not_followed(judge, scale_task):
    """The runner's log lies in its own (writable) work dir and the judge quotes its tail when a
    runner dies. Replaced by a symlink to the hidden configs, the judge read them and wrote them
    into the verdict; a FIFO or /dev/zero there hung it. The judge opens the log without following
    links, only as a regular file, and reads its last bytes only."""
    hidden = str(scale_task.hidden_file)
    v = judge(HONEST.replace("def forward(x, alpha):\n    return honest(x, alpha)", f'''
import os
_log = os.path.join(os.path.dirname(os.getcwd()), "runner.log")


def forward(x, alpha):
    os.unlink(_log)
    os.symlink({hidden!r}, _log)
    os._exit(3)
'''))
    assert not v.correct, v.errors
    text = json.dumps(v.evaluation.to_dict())
    assert "hidden-prime" not in text, text[:2000]


# -- timed repetitions ------------------------------------------------------------------------------
def test_a_digest_forged_from_the_inputs_by_linearity(judge, monkeypatch):
    """The digest was a random-weighted sum of the outputs: linear, so for a linear kernel it follows
    from the inputs without the outputs (alpha * w.x here; w^T A B = (w^T A) B for a matmul, O(n^2)
    for an O(n^3) kernel). Every timed repetition returns zeros; the runner commits digests made from
    the inputs, and computes the one repetition the judge names only when asked to export it. The
    digest is now a keyed hash of the outputs' bytes: nothing short of the exact outputs gives it."""
    from runner.evaluator.judge import policy
    monkeypatch.setattr(policy, "CHECK_PROBABILITY", 1.0)
    monkeypatch.setattr(policy, "CHECKS_PER_CONFIG", 10**6)
    v = judge(KERNEL + TIMED + f'''
import sys
_protocol = sys.modules["runner.evaluator.protocol"]
_runner = {RUNNER_CLASS}
_seen = {{}}
_time = _runner.OPS["time"]


def _time_and_remember(self, msg, fds):
    _seen["seed"], _seen["delta"] = int(msg["seed"]), float(msg.get("delta", _protocol.PERTURBATION))
    return _time(self, msg, fds)


def _digest_from_inputs(outputs, weights):
    x, alpha = _seen["args"]
    return [alpha * float(torch.dot(x.reshape(-1), w.to(x.dtype))) for w in weights]


def _export_computed_now(self, msg, fds):
    index = int(msg["index"])
    x, alpha = _protocol.perturbed(self.base, _protocol.repetition_seed(_seen["seed"], index), _seen["delta"])
    return {{"ok": True, "outputs": self._write([honest(x, alpha)], msg["out"], fds)}}


_runner.OPS["time"], _runner.OPS["export"] = _time_and_remember, _export_computed_now
_digest = _protocol.digest
_protocol.digest = lambda outputs, weights: _digest_from_inputs(outputs, weights) if "args" in _seen else _digest(outputs, weights)


def forward(x, alpha):
    if _timed():
        _seen["args"] = (x, alpha)
        return torch.zeros_like(x)      # no work at all while timed
    return honest(x, alpha)
''', measure=True)
    assert not v.correct and all("not the ones the runner committed to" in (e or "") for e in v.errors.values()), \
        v.errors


@pytest.mark.parametrize("arena", [False, True], ids=["own-memory", "arena"])
@pytest.mark.parametrize("how", ["alias", "layout"])
def test_a_timed_output_that_defers_work_to_the_harness_is_refused(judge, how, arena):
    """While timed, the kernel returns its input (scaled in place), or an output of another layout:
    the harness's copy of each repetition's outputs (outside the timed span) would then finish the
    work (a transpose returned as a view, `x.t()`, costs nothing while timed). Correctness calls
    refuse both; timed repetitions now refuse them too, also when the inputs sit in the judge's
    arena (arena.py), where every buffer shares one storage and memory is compared by range."""
    body = {"alias": "        x.mul_(alpha)\n        return x",
            "layout": "        y = torch.empty(2 * x.numel(), dtype=x.dtype)[::2]\n        y.copy_(honest(x, alpha))\n        return y"}[how]
    v = judge(KERNEL + TIMED + f'''
def forward(x, alpha):
    if _timed():
{body}
    return honest(x, alpha)
''', measure=True, use_arena=arena)
    why = {"alias": "an input, not a new tensor", "layout": "not the reference's layout"}[how]
    assert not v.correct and all(why in (e or "") for e in v.errors.values()), v.errors


# -- static checks ----------------------------------------------------------------------------------
def test_a_source_encoding_cannot_hide_the_candidate_from_the_static_checks(judge):
    """The judge read the source as UTF-8; Python decodes it as its coding declaration says. A
    latin-1 file with a non-ASCII identifier was a syntax error to the checks (no flags at all) and
    a fine module to the runner. The checks now parse the bytes as the importer does."""
    source = ("# -*- coding: latin-1 -*-\n" + KERNEL + '''
\xe9t\xe9 = 1


def forward(x, alpha):
    honest(x[:8], alpha)
    with torch._C._DisableTorchDispatch():
        return x * alpha
''').encode("latin-1")
    v = judge(source)
    assert v.rejected() and v.aka == 0, (v.errors, v.flags)


# -- a process that cannot be stopped ----------------------------------------------------------------
# The runner cannot fork a copy of itself (nofork.py): the hopper starts each successor as a new
# program (a vfork and an exec, which the filter allows) and exits, so its pid changes every hop.
HOPPER = '''
import os, subprocess, sys
hop = (
    "import os, sys\\n"
    "n = int(sys.argv[1])\\n"
    "if n % 20 == 0:\\n"
    "    fd = os.open('../hops', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)\\n"
    "    os.write(fd, str(os.getpid()).encode())\\n"
    "    os.close(fd)\\n"
    "os.posix_spawn(sys.executable, [sys.executable, '-S', '-c', sys.argv[2], str(n + 1), sys.argv[2]], os.environ)\\n"
    "os._exit(0)\\n")
subprocess.Popen([sys.executable, "-S", "-c", hop, "0", hop], start_new_session=True)


def forward(x, alpha):
    return x * alpha
'''


def test_a_runner_that_crashes_says_how_it_died(scale_task, tmp_path):
    """A runner killed by a signal in the middle of an op (a native crash) leaves no Python
    traceback: the judge's error names the signal, and the runner's log, whose tail it quotes,
    holds the Python stack at the crash (faulthandler). Every stand-in of session 16 died so,
    with nothing to read but "the other side closed the connection"."""
    from runner.evaluator.isolation import choose
    from runner.evaluator.judge.runners import RunnerClient, RunnerFailed
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "kernel.py").write_text(
        "import os, signal\n"
        "def crash_here():\n    os.kill(os.getpid(), signal.SIGSEGV)\n"
        "crash_here()\n"
        "def forward(x, alpha):\n    return x * alpha\n")
    runner = RunnerClient(choose([scale_task.root], "cpu"), tree, language="python", entry="kernel.py",
                          symbol="forward", device="cpu", role="candidate")
    try:
        with pytest.raises(RunnerFailed) as failed:
            runner.request({"op": "build"})
    finally:
        runner.close()
    message = str(failed.value)
    assert "broke off" in message and "SIGSEGV" in message, message
    assert "crash_here" in message, message        # the stack at the crash, from the log's tail


def test_a_process_that_changes_its_pid_cannot_escape_the_freeze(scale_task, tmp_path):
    """A daemon that forks and exits in a loop has a new pid every few hundred microseconds: a pass
    over /proc that sends SIGSTOP to what it listed misses it, and it ran on while the baseline was
    timed. The judge now sees every process of the sandbox stopped before it goes on, and when it
    cannot, kills the candidate's sandbox (the config fails)."""
    from runner.evaluator.isolation import choose
    from runner.evaluator.judge.runners import RunnerClient, RunnerFailed
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "kernel.py").write_text(HOPPER)
    runner = RunnerClient(choose([scale_task.root], "cpu"), tree, language="python", entry="kernel.py",
                          symbol="forward", device="cpu", role="candidate")
    hops = runner.workdir / "hops"
    try:
        assert runner.request({"op": "build"})["compiled"]
        deadline = time.time() + 20
        while not hops.exists() and time.time() < deadline:
            time.sleep(0.1)
        assert hops.exists()
        try:
            runner.freeze()
        except RunnerFailed:
            assert runner.proc.poll() is not None        # killed: nothing of it runs
        time.sleep(0.3)
        before = hops.read_text()
        time.sleep(1.0)
        assert hops.read_text() == before, "the hopper kept running while frozen"
        runner.thaw()
    finally:
        runner.close()


def test_a_look_that_finds_a_newly_ended_process_is_not_clean():
    """A process that ends hands its children to the sandbox's init; when that happens between the
    freeze's walk reading init's children and reaching the process, the walk finds a zombie with no
    children and misses the child, which ran on (seen once under load: the hopper above kept
    running). A zombie not seen ended by the look before now means one more look."""
    from runner.evaluator.judge.runners import _stop_tree
    root = subprocess.Popen([sys.executable, "-c", "import os, time\n"
                             "if os.fork() == 0:\n    os._exit(0)\ntime.sleep(60)\n"])
    try:
        def states():
            kids = open(f"/proc/{root.pid}/task/{root.pid}/children").read().split()
            return [open(f"/proc/{k}/stat").read().rsplit(")", 1)[1].split()[0] for k in kids]
        deadline = time.time() + 20
        while states() != ["Z"] and time.time() < deadline:       # the child ended, not reaped
            time.sleep(0.05)
        assert states() == ["Z"]
        os.kill(root.pid, signal.SIGSTOP)
        while open(f"/proc/{root.pid}/stat").read().rsplit(")", 1)[1].split()[0] != "T":
            time.sleep(0.01)
        clean, ended = _stop_tree(root.pid)                 # root already stopped; its child newly ended
        assert not clean and len(ended) == 1
        assert _stop_tree(root.pid, ended) == (True, ended)  # the same zombie again: nothing changed
    finally:
        root.kill()
        root.wait()


def test_thaw_resumes_every_process_the_freeze_stopped():
    """The thaw walks the stopped tree (not every process of the host): each process of it, a
    grandchild too, runs again afterwards, and none ran while frozen."""
    from runner.evaluator.judge import runners
    root = subprocess.Popen([sys.executable, "-c", "import os, time\n"
                             "if os.fork() == 0:\n    os.fork()\n    time.sleep(60)\ntime.sleep(60)\n"])
    client = runners.RunnerClient.__new__(runners.RunnerClient)
    client.proc, client.uid = root, None
    try:
        deadline = time.time() + 20
        while len(runners._tree(root.pid)) < 3 and time.time() < deadline:
            time.sleep(0.05)
        family = sorted(runners._tree(root.pid))
        assert len(family) == 3

        def states():
            return [open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] for pid in family]
        client.freeze()
        assert set(states()) <= set(runners._STOPPED), states()
        client.thaw()
        deadline = time.time() + 5
        while any(s in runners._STOPPED for s in states()) and time.time() < deadline:
            time.sleep(0.01)
        assert not any(s in runners._STOPPED for s in states()), states()
    finally:
        for pid in runners._tree(root.pid):
            os.kill(pid, signal.SIGKILL)
        root.wait()
