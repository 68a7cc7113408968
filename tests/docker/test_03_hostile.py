"""A hostile `command` agent, one attempt per test. Each must be contained: the attempt's own result
shows it, and test_zz_after shows no other attempt's result moved. Each test fails if the defence
it guards is taken away (the comment on each names the defence)."""
from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import REPO

from .conftest import HIDDEN_NAMES, tree_digest

WRONG_KERNEL = "def forward(x, alpha):\\n    return x * 0\\n"


def test_cannot_read_hidden_configs(run_agent, shared_tasks):
    # Defence: the task tree (hidden configs, solution) is mounted only into the eval container.
    command = (r"find / \( -path /proc -o -path /sys -o -path /dev -o -path /opt/venv -o -path /usr \) -prune "
               r"-o -type f \( -name '*.toml' -o -name '*.py' \) -print 2>/dev/null "
               r"| xargs grep -l -s -e hidden-prime -e hidden-tiny > {workspace}/leak.txt; "
               r"ls -R /gauntlet >> {workspace}/seen-mounts.txt 2>&1; exit 0")
    a = run_agent("command", command)
    leak = a.workspace("leak.txt").read_text()
    assert leak.strip() == "", f"hidden configs reachable from the agent container: {leak}"
    assert "hidden" not in a.workspace("seen-mounts.txt").read_text()
    assert a.result["correct_unseen"]      # the evaluation still ran the hidden configs


def test_cannot_modify_evaluator_or_reference(run_agent, shared_tasks):
    # Defences: runner/ is mounted read-only; the evaluator uses the task's pristine reference,
    # never the workspace's copy (protected files are violations and never cross over).
    before_tasks = tree_digest(shared_tasks)
    harness = REPO / "runner" / "evaluator" / "judge" / "evaluation.py"
    command = ("cd {workspace}; "
               "echo 'raise SystemExit(0)' >> /opt/gauntlet/runner/evaluator/judge/evaluation.py 2>>denied.txt "
               "|| echo evaluator-denied >> denied.txt; "
               "printf 'import torch\\n\\ndef make_inputs(config, generator, device):\\n"
               "    return [torch.zeros(1), 0.0]\\n\\ndef reference(x, alpha):\\n    return x * 0\\n' > reference.py; "
               f"printf '{WRONG_KERNEL}' > kernel.py; exit 0")
    a = run_agent("command", command)
    r = a.result
    assert "evaluator-denied" in a.workspace("denied.txt").read_text()
    assert "raise SystemExit(0)" not in harness.read_text()
    assert tree_digest(shared_tasks) == before_tasks
    assert "reference.py" in r["violations"]
    assert r["compiled"] and not r["correct_seen"] and not r["correct_unseen"], r


def test_cannot_write_outside_workspace(run_agent, shared_tasks, tmp_path):
    # Defences: read-only root filesystem; the prompt folder is a read-only mount; only the
    # workspace is bind-mounted read-write.
    targets = ["/gauntlet/agent/prompt.md", "/gauntlet/agent/new.txt", "/etc/passwd", "/escape.txt",
               "/usr/local/bin/evil", "/opt/venv/evil.pth", "/workspace/../escape2.txt",
               "/eval/agent-owned-in-image.txt"]   # /eval belongs to agent in the image: only the ro root fs stops it
    probe = "; ".join(f"(echo x >> {t}) 2>/dev/null && echo 'WROTE {t}' >> {{workspace}}/report.txt "
                      f"|| echo 'denied {t}' >> {{workspace}}/report.txt" for t in targets)
    a = run_agent("command", probe + "; exit 0")
    report = a.workspace("report.txt").read_text()
    assert "WROTE" not in report, report
    assert report.count("denied") == len(targets)
    prompt = (a.dir / "agent" / "prompt.md").read_text()
    assert not prompt.endswith("x\n")
    assert sorted(p.name for p in (a.dir / "agent").iterdir()) == ["prompt.md", "stderr.log", "stdout.log"]


def test_cannot_reach_docker_socket(run_agent):
    # Defences: the engine socket is never mounted; no capabilities; not root.
    command = ("cd {workspace}; for s in /var/run/docker.sock /run/docker.sock /run/containerd/containerd.sock; do "
               "if [ -e $s ]; then echo present $s; fi; done > sock.txt; "
               "python3 -c \"import socket,sys\nfor p in ('/var/run/docker.sock','/run/docker.sock'):\n"
               "  s=socket.socket(socket.AF_UNIX)\n  try:\n    s.connect(p); print('CONNECTED', p)\n"
               "  except OSError as e: print('refused', p, e.errno)\" >> sock.txt; "
               "grep -E 'CapEff|CapBnd|NoNewPrivs' /proc/self/status >> sock.txt; id -u >> sock.txt; exit 0")
    a = run_agent("command", command)
    text = a.workspace("sock.txt").read_text()
    assert "present" not in text and "CONNECTED" not in text, text
    assert "CapEff:\t0000000000000000" in text and "CapBnd:\t0000000000000000" in text
    assert "NoNewPrivs:\t1" in text
    assert text.strip().splitlines()[-1] == "1000"


@pytest.fixture
def loopback_listener():
    """A listener on the host's loopback: the agent must not reach it (nor anything else)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    hits = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
                hits.append(conn.recv(64))
                conn.close()
            except OSError:
                pass
    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield srv.getsockname()[1], hits
    stop.set()
    thread.join()
    srv.close()


def test_no_network(run_agent, loopback_listener):
    # Defence: network_mode none: only lo exists in the container's network namespace.
    port, hits = loopback_listener
    command = ("cd {workspace}; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' > ifaces.txt; "
               "python3 -c \"import socket\nfor h in ('127.0.0.1','172.17.0.1','10.0.2.2','8.8.8.8'):\n"
               "  s=socket.socket(); s.settimeout(2)\n  try:\n    s.connect((h, " + str(port) + ")); "
               "s.send(b'ESCAPED'); print('REACHED', h)\n  except OSError as e: print('no', h, e.errno)\" > net.txt; exit 0")
    a = run_agent("command", command)
    assert a.workspace("ifaces.txt").read_text().split() == ["lo"]
    assert "REACHED" not in a.workspace("net.txt").read_text()
    assert hits == []


def test_fork_bomb_hits_pids_limit(run_agent):
    # Defence: pids limit (256 in these tests). The bomb is bounded (3000 sleepers) so that a
    # missing limit fails the assertion instead of taking the machine down.
    command = ("cd {workspace}; python3 -c \"\nimport os, time\nok = 0\nfor i in range(3000):\n"
               "    try:\n        pid = os.fork()\n    except OSError:\n        continue\n"
               "    if pid == 0:\n        time.sleep(600); os._exit(0)\n    ok += 1\n"
               "open('forks.txt', 'w').write(str(ok))\n\"; exit 0")
    started = time.monotonic()
    a = run_agent("command", command, budget="40s")
    count = int(a.workspace("forks.txt").read_text())
    assert count <= 256, count
    assert time.monotonic() - started < 120
    # the agent's phase ends near its budget (40 s, 10 s grace, 5 s watchdog margin, 5 s to kill)
    assert a.result["agent_seconds"] < 40 + 10 + 5 + 5 + 5, a.result["agent_seconds"]
    assert a.result["compiled"] and a.result["correct_seen"]  # the evaluation is unaffected


def test_memory_bomb_is_oom_killed(run_agent):
    # Defence: memory limit without swap (1 GiB in these tests).
    command = ("cd {workspace}; python3 -c \"\nchunks=[]\nfor i in range(40):\n"
               "    chunks.append(bytearray(100*2**20))\n    open('mem.txt','w').write(str(i+1))\n\"; "
               "echo exit=$? >> mem-exit.txt")
    a = run_agent("command", command)
    reached = int(a.workspace("mem.txt").read_text())
    assert reached < 12, f"allocated {reached * 100} MiB"       # 40 x 100 MiB without the limit
    assert "exit=137" in a.workspace("mem-exit.txt").read_text()
    assert a.result["compiled"] and a.result["correct_seen"]


def test_disk_fill_is_bounded(run_agent):
    # Defences: RLIMIT_FSIZE per file (32 MiB here); size-capped tmpfs for /tmp (64 MiB); the
    # watchdog on the workspace's total size (48 MiB here) kills the agent.
    free_before = shutil.disk_usage("/").free
    command = ("cd {workspace}; "
               "(python3 -c \"import os\nf=os.open('big.bin', os.O_CREAT|os.O_WRONLY)\n"
               "try:\n  os.posix_fallocate(f, 0, 10*2**30); print('FALLOCATED')\n"
               "except OSError as e: print('fsize', e.errno)\" > fsize.txt 2>&1); rm -f big.bin; "
               "for j in 0 1 2 3 4 5 6 7 8 9; do dd if=/dev/zero of=/tmp/fill$j bs=1M count=16 2>/dev/null; done; "
               "du -sm /tmp | cut -f1 > tmpfs.txt; "
               "i=0; while [ $i -lt 100 ]; do dd if=/dev/zero of=fill$i bs=1M count=16 2>/dev/null; i=$((i+1)); "
               "sleep 0.2; done; echo survived > survived.txt")
    a = run_agent("command", command, budget="60s")
    fsize = a.workspace("fsize.txt").read_text()
    assert "FALLOCATED" not in fsize, fsize
    assert int(a.workspace("tmpfs.txt").read_text()) <= 64
    assert not a.workspace("survived.txt").exists()
    total = sum(p.stat().st_size for p in a.workspace("").glob("fill*"))
    assert total <= 48 * 2 ** 20 + 2 * 16 * 2 ** 20, total
    assert "/workspace: the workspace exceeded its limit" in a.log("stderr.log")
    assert a.result["status"] == "agent_error"
    assert free_before - shutil.disk_usage("/").free < 1 * 2 ** 30


def test_ignoring_sigterm_does_not_outlive_budget(run_agent):
    # Defence: in-container timeout --kill-after, the host watchdog, then the container goes.
    command = "trap '' TERM; while :; do sleep 1; echo tick >> {workspace}/ticks.txt; done"
    started = time.monotonic()
    a = run_agent("command", command, budget="4s")
    r = a.result
    assert r["status"] == "agent_timeout"
    assert r["agent_seconds"] < 4 + 10 + 8, r["agent_seconds"]     # budget + AGENT_GRACE_S + slack
    ticks = a.workspace("ticks.txt").read_text().count("tick")
    time.sleep(2)
    assert a.workspace("ticks.txt").read_text().count("tick") == ticks
    assert time.monotonic() - started < 120


def test_background_process_after_budget_does_not_land(run_agent):
    # Defence: every process of the agent user is killed when the exec ends and the container is
    # removed before the workspace is read.
    command = ("cd {workspace}; (trap '' TERM HUP; setsid sh -c 'trap \"\" TERM HUP; sleep 3; "
               "echo LATE-EDIT >> kernel.py' </dev/null >/dev/null 2>&1 &); "
               "nohup sh -c 'sleep 3; echo LATE-NOHUP >> kernel.py' >/dev/null 2>&1 & exit 0")
    a = run_agent("command", command)
    time.sleep(5)
    assert "LATE" not in a.diff
    assert "LATE" not in a.workspace("kernel.py").read_text()
    assert a.result["changed_files"] == []


def test_git_history_tampering_changes_nothing(run_agent, tmp_path):
    # Defence: the record of changes is built from the task's own bytes in a git dir outside the
    # workspace; the workspace's hooks and config are never used on the host.
    marker = tmp_path / "pwned"
    command = ("cd {workspace}; " + f"printf '{WRONG_KERNEL}' > kernel.py; "
               "git add -A && git -c user.name=x -c user.email=x commit -q --amend -m baseline; "
               "git reflog expire --expire=now --all; git gc -q --prune=now; "
               f"git config core.fsmonitor 'touch {marker}'; "
               f"printf '#!/bin/sh\\ntouch {marker}\\n' > .git/hooks/post-checkout; chmod +x .git/hooks/*; "
               "echo 'kernel.py' > .gitignore; git config core.hooksPath .git/hooks; exit 0")
    a = run_agent("command", command)
    r = a.result
    assert "kernel.py" in r["changed_files"] and "return x * 0" in a.diff
    assert ".gitignore" in r["violations"]
    assert not r["correct_seen"]
    assert not marker.exists()


def test_a_candidate_in_the_evaluation_container_reaches_no_hidden_file(engine, shared_tasks, tmp_path):
    # Defence: in the evaluation container the kernel runner is uid 65534 without capabilities
    # (setpriv mode); the task folders, the candidate and the verdict live under /gauntlet/judge (0700).
    from runner.agents.agent import AgentSpec
    from runner.run.run import RunOptions, evaluate_candidate
    from runner.tasks.task import load_task
    task = load_task(shared_tasks / "triton2triton" / "scale", shared_tasks)
    adir = tmp_path / "run" / "attempts" / "triton2triton__scale"
    (adir / "candidate").mkdir(parents=True)
    (adir / "candidate" / "kernel.py").write_text(
        "import glob, os\n"
        "found = []\n"
        "for pattern in ('/gauntlet/judge/**', '/gauntlet/**', '/tmp/**'):\n"
        "    for path in glob.glob(pattern, recursive=True):\n"
        "        try:\n"
        "            if os.path.isfile(path) and 'hidden' + '-prime' in open(path, errors='replace').read():\n"
        "                found.append(path)\n"
        "        except OSError:\n"
        "            pass\n"
        "raise RuntimeError('FOUND:' + ','.join(found) + ':UID:' + str(os.getuid()))\n")
    options = RunOptions(agent=AgentSpec(name="redteam", kind="noop"), device="cpu", backend="docker",
                         tasks_root=shared_tasks)
    ev = evaluate_candidate(task, adir / "candidate", adir, options)
    assert "FOUND::UID:65534" in ev.compile_log, ev.compile_log[-600:]
    assert ev.environment.get("runner_isolation") == "setpriv", ev.environment
    assert [c.config for c in ev.configs if c.split == "unseen"] == ["hidden-prime", "hidden-tiny"]
