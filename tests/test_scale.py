"""Scale-out (docs/scaling.md): --jobs, the GPU pool, --attempts and several agents, Ray. Real CLI
subprocesses, real git, the real evaluator on the CPU; the pool is tested with CPU slot names."""
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from .conftest import REPO, gauntlet


@pytest.fixture(autouse=True)
def agents_write_to_the_host(monkeypatch):
    """These tests read the scheduling from files the agents write on the host (start and end times,
    starts): a confined agent sees only its workspace, so here agents run unconfined. Confinement
    itself is tested in test_sandbox_conformance.py and test_containment.py."""
    from runner.sandbox.confine import CONFINEMENT_ENV
    monkeypatch.setenv(CONFINEMENT_ENV, "off")

SCALE = "triton2triton/scale"


def clone_tasks(tasks_root: Path, names) -> None:
    for name in names:
        dest = tasks_root / "triton2triton" / name
        shutil.copytree(tasks_root / SCALE, dest)
        toml = dest / "task.toml"
        toml.write_text(toml.read_text().replace('"triton2triton/scale"', f'"triton2triton/{name}"'))


def results(out: Path) -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text()) for p in out.glob("attempts/*/result.json")}


def windows(out: Path, field: str) -> list[tuple[float, float]]:
    return [(r[f"{field}_started"], r[f"{field}_finished"]) for r in results(out).values()]


def overlapping(spans) -> bool:
    spans = sorted(spans)
    return any(b[0] < a[1] for a, b in zip(spans, spans[1:]))


def run_argv(tasks_root, out, *args):
    return ["run", "--tasks", "triton2triton", "--tasks-root", tasks_root, "--device", "cpu", "--out", out, *args]


# -- GpuPool -------------------------------------------------------------------------------------
def test_pool_gives_each_evaluation_a_device_of_its_own_and_agents_share():
    from runner.run.gpupool import GpuPool
    pool = GpuPool.parse("0, 1")
    assert pool.names == ["0", "1"]
    with pool.evaluation() as a, pool.evaluation() as b:
        assert {a, b} == {"0", "1"} and pool.free == []
        got = []
        waiter = threading.Thread(target=lambda: got.append(pool.evaluation().__enter__()))
        waiter.start()
        waiter.join(0.3)
        assert waiter.is_alive() and not got          # no device free: the third evaluation waits
    waiter.join(10)
    assert got and got[0] in ("0", "1")
    assert [pool.for_agent() for _ in range(4)] == ["0", "1", "0", "1"]


@pytest.mark.parametrize("text,message", [("", "not a comma-separated"), ("0,,1", "not a comma-separated"),
                                          ("0,0", "named twice: 0")])
def test_pool_refuses_bad_names(text, message):
    from runner.run.gpupool import GpuPool
    with pytest.raises(ValueError, match=message):
        GpuPool.parse(text)


def test_pool_env_names_the_device_on_gpus_only():
    from runner.run.gpupool import visible_env
    assert visible_env("cuda", "1") == {"CUDA_VISIBLE_DEVICES": "1"}
    assert visible_env("rocm", "0") == {"HIP_VISIBLE_DEVICES": "0"}
    assert visible_env("cpu", "cpu") == {} and visible_env("cuda", None) == {}


def test_default_pool_is_every_visible_gpu(monkeypatch, tmp_path):
    """--gpus left out: CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES where set, else every GPU that
    nvidia-smi -L lists (a stand-in on PATH here); nothing on the CPU."""
    from runner.run.gpupool import visible_gpus
    fake = tmp_path / "bin" / "nvidia-smi"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA H100 (UUID: GPU-a)'\necho 'GPU 1: NVIDIA H100 (UUID: GPU-b)'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    for var in ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"):
        monkeypatch.delenv(var, raising=False)
    assert visible_gpus("cuda") == ["0", "1"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2, 3")
    assert visible_gpus("cuda") == ["2", "3"]
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "1")
    assert visible_gpus("rocm") == ["1"] and visible_gpus("cpu") == []

def test_bad_gpus_option_is_one_line(tasks_root, tmp_path):
    proc = gauntlet(*run_argv(tasks_root, tmp_path / "run", "--agent", "noop", "--gpus", "0,0"), check=False)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert [line for line in proc.stderr.splitlines() if line.strip()] == ["Error: --gpus: devices named twice: 0"]


# -- --jobs --------------------------------------------------------------------------------------
def test_jobs_run_agents_side_by_side_and_evaluations_one_per_slot(tasks_root, tmp_path):
    """4 tasks, an agent that sleeps 5 s, --jobs 4 over a pool of two devices (CPU slot names standing
    in for GPUs): every attempt finishes, the agents' spans overlap, both devices evaluate, two
    evaluations run at once on different devices, and the windows on one device never overlap;
    each result.json has the same shape and outcome as with --jobs 1."""
    clone_tasks(tasks_root, ["scale_b", "scale_c", "scale_d"])
    spans = tmp_path / "spans"
    command = f"s=$(date +%s.%N); sleep 5; echo {{task_id}} $s $(date +%s.%N) >> {spans}"
    parallel = tmp_path / "parallel"
    proc = gauntlet(*run_argv(tasks_root, parallel, "--agent", "command", "--command", command, "--jobs", "4",
                              "--gpus", "slot0,slot1"))
    assert proc.stdout.count("start  triton2triton/") == 4        # not a TTY: plain lines per attempt
    assert "[0/4 done, 4 live]" in proc.stdout                     # every live attempt counted
    agent_spans = [tuple(map(float, line.split()[1:])) for line in spans.read_text().splitlines()]
    assert len(agent_spans) == 4 and overlapping(agent_spans)
    per_device: dict[str, list] = {}
    for r in results(parallel).values():
        per_device.setdefault(r["gpu"], []).append((r["eval_started"], r["eval_finished"]))
    assert sorted(per_device) == ["slot0", "slot1"], per_device   # the pool spread the evaluations
    for device, spans_on_it in per_device.items():
        assert not overlapping(spans_on_it), (device, spans_on_it)  # each held its device alone
    assert overlapping(windows(parallel, "eval"))                  # ... while the other device was busy

    serial = tmp_path / "serial"
    gauntlet(*run_argv(tasks_root, serial, "--agent", "command", "--command", "true", "--jobs", "1"))
    many, one = results(parallel), results(serial)
    assert sorted(many) == sorted(one) == ["triton2triton__scale", "triton2triton__scale_b",
                                           "triton2triton__scale_c", "triton2triton__scale_d"]
    for name in many:
        assert list(many[name]) == list(one[name])
        for key in ("status", "compiled", "correct_seen", "correct_unseen", "changed_files"):
            assert many[name][key] == one[name][key], (name, key)
    manifest = json.loads((parallel / "manifest.json").read_text())
    assert manifest["finished"] and manifest["runs"][0]["gpus"] == ["slot0", "slot1"]
    # each agent held to its CPU share of (cores - 1) / 4, at least 1 (or the host says it cannot be)
    share = max(1.0, min(4.0, ((os.cpu_count() or 1) - 1) / 4))
    for r in many.values():
        assert r["agent_limits"].startswith("none: ") or f"cpus {share:g}, pids 1024" in r["agent_limits"], r



def test_an_exclusive_agent_gpu_is_held_alone_by_one_agent_or_one_evaluation_at_a_time(tasks_root, tmp_path):
    """--agent-gpu exclusive over a pool of one device, two attempts at once: neither agent phase
    overlaps the other, nor any evaluation (which holds the same device); with no pool it is one line."""
    clone_tasks(tasks_root, ["scale_b"])
    spans = tmp_path / "spans"
    command = f"s=$(date +%s.%N); sleep 3; echo {{task_id}} $s $(date +%s.%N) >> {spans}"
    out = tmp_path / "run"
    gauntlet(*run_argv(tasks_root, out, "--agent", "command", "--command", command, "--jobs", "2",
                       "--gpus", "slot0", "--agent-gpu", "exclusive"))
    agent_spans = [tuple(map(float, line.split()[1:])) for line in spans.read_text().splitlines()]
    assert len(agent_spans) == 2 and len(results(out)) == 2
    assert not overlapping(agent_spans + windows(out, "eval")), (agent_spans, windows(out, "eval"))
    refused = gauntlet(*run_argv(tasks_root, tmp_path / "r2", "--agent", "noop", "--agent-gpu", "exclusive"),
                       check=False)
    assert refused.returncode == 1 and refused.stderr.startswith("Error: --agent-gpu exclusive: no GPU pool")

def _run_marked(run_dir: Path) -> list[psutil.Process]:
    from runner.sandbox.local import RUN_MARKER
    found = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if proc.environ().get(RUN_MARKER) == str(run_dir.resolve()):
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def test_sigkill_with_live_attempts_then_resume_keeps_finished_and_leaves_nothing_running(tasks_root, tmp_path):
    clone_tasks(tasks_root, ["scale_b", "scale_c", "scale_d"])
    out = tmp_path / "run"
    log = tmp_path / "agent-starts"
    slow = tmp_path / "slow"
    slow.write_text("")
    # scale finishes at once; the others sleep while `slow` exists, so they are live when the runner dies
    command = f"echo {{task_id}} >> {log}; case {{task_id}} in */scale) ;; *) test -e {slow} && sleep 60;; esac; true"
    argv = [sys.executable, "-m", "runner.cli", *map(str, run_argv(tasks_root, out, "--agent", "command",
                                                                    "--command", command, "--jobs", "4"))]
    host_tmp = tmp_path / "hosttmp"      # the run's temp root, and nobody else's, for gc to look at
    host_tmp.mkdir()
    env = {"TMPDIR": str(host_tmp)}
    proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, env={**os.environ, **env})
    first = out / "attempts" / "triton2triton__scale" / "result.json"
    deadline = time.monotonic() + 180
    while not first.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert first.exists(), "the first attempt never finished"
    while (not log.exists() or log.read_text().count("\n") < 4) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_run_marked(out)) >= 3                    # three agents live
    # the run-dir lock holds with attempts in threads: no second runner, and gc spares the live run
    second = gauntlet(*run_argv(tasks_root, out, "--agent", "command", "--command", command, "--resume"),
                      check=False, env=env)
    assert second.returncode == 1 and "in use by a live gauntlet process" in second.stderr, second.stderr
    assert str(out.resolve()) not in gauntlet("gc", "--backend", "local", "--dry-run", env=env).stdout
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    # dead: gc now sees the run's temp folders as left behind (resume below removes them itself)
    assert f"of run {out.resolve()}" in gauntlet("gc", "--backend", "local", "--dry-run", env=env).stdout
    finished_before = {p.parent.name: p.read_bytes() for p in out.glob("attempts/*/result.json")}
    assert list(finished_before) == ["triton2triton__scale"]

    from runner.sandbox.local import containment
    if containment() == "pid-namespace":                 # they die with the runner (pdeathsig)
        deadline = time.monotonic() + 30
        while _run_marked(out) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _run_marked(out) == []
    else:                                                # process groups: they live on until resume
        assert len(_run_marked(out)) >= 3
    slow.unlink()                                        # the redone agents finish at once
    resumed = run_argv(tasks_root, out, "--agent", "command", "--command", command, "--jobs", "4", "--resume")
    gauntlet(*resumed, env=env)
    after = {p.parent.name: p.read_bytes() for p in out.glob("attempts/*/result.json")}
    assert len(after) == 4 and after["triton2triton__scale"] == finished_before["triton2triton__scale"]
    assert _run_marked(out) == []                        # the orphans of the killed runner are gone
    assert list(host_tmp.iterdir()) == []                # and its temp folders


# -- --attempts and several agents ----------------------------------------------------------------
def test_repeats_and_two_agents_give_one_report_with_pass_at_k(tasks_root, tmp_path):
    out = tmp_path / "run"
    gauntlet(*run_argv(tasks_root, out, "--agent", "oracle", "--agent", "noop", "--attempts", "2", "--jobs", "2"))
    found = results(out)
    assert sorted(found) == ["triton2triton__scale__noop", "triton2triton__scale__noop__k1",
                             "triton2triton__scale__oracle", "triton2triton__scale__oracle__k1"]
    assert sorted((r["agent"], r["attempt"]) for r in found.values()) == [
        ("noop", 0), ("noop", 1), ("oracle", 0), ("oracle", 1)]
    rows = {r["agent"]: r for r in json.loads(gauntlet("report", out, "--format", "json").stdout)}
    assert rows["oracle"]["attempts"] == 2 and rows["oracle"]["attempts_per_task"] == 2
    assert rows["oracle"]["pass_at_1"] == 1.0 and rows["oracle"]["pass_at_k"] == 1.0
    assert rows["noop"]["pass_at_k"] is not None and rows["noop"]["speedup_spread_seen"] is not None
    assert "Repeats" in gauntlet("report", out).stdout
    # a resumed run may add repeats; the agents must match
    gauntlet(*run_argv(tasks_root, out, "--agent", "oracle", "--agent", "noop", "--attempts", "3", "--resume"))
    assert len(results(out)) == 6
    other = gauntlet(*run_argv(tasks_root, out, "--agent", "oracle", "--attempts", "3", "--resume"), check=False)
    assert other.returncode == 1 and "manifest.json: options:" in other.stderr


def test_pass_at_k_is_the_unbiased_estimator():
    from runner.results.result import AttemptResult
    from runner.results.score import pass_at_k

    def attempt(task, ok):
        return AttemptResult(task=task, category="c", agent="a", device="cpu", status="ok", compiled=ok,
                             correct_seen=ok)
    # task a: 1 of 4 passes; task b: 0 of 4
    rs = [attempt("a", i == 0) for i in range(4)] + [attempt("b", False) for _ in range(4)]
    assert pass_at_k(rs, 1) == pytest.approx((0.25 + 0.0) / 2)
    assert pass_at_k(rs, 2) == pytest.approx((1 - 3 / 6 + 0.0) / 2)     # 1 - C(3,2)/C(4,2)
    assert pass_at_k(rs, 4) == pytest.approx(0.5) and pass_at_k(rs, 5) is None



def test_pass_at_k_counts_no_infra_or_task_error_as_a_pass():
    """An attempt the harness (or the task) broke passes nothing in pass@k, even when its evaluation
    says correct (an X->X task left as shipped evaluates as correct); it still counts among the n."""
    from runner.results.result import AttemptResult
    from runner.results.score import pass_at_k

    def attempt(status):
        return AttemptResult(task="t", category="c", agent="a", device="cpu", status=status, compiled=True,
                             correct_seen=True)
    rs = [attempt("ok"), attempt("infra_error"), attempt("task_error"), attempt("infra_error")]
    assert pass_at_k(rs, 1) == pytest.approx(1 / 4)                  # c = 1 of n = 4
    assert pass_at_k(rs, 2) == pytest.approx(1 - 3 / 6)              # 1 - C(3,2)/C(4,2)
    assert pass_at_k([attempt("infra_error")] * 3, 3) == 0.0

# -- Ray -------------------------------------------------------------------------------------------
def most_at_once(spans) -> int:
    """The largest number of (start, end) spans live at one instant."""
    events = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])   # an end before a start
    live = peak = 0
    for _, step in events:
        live += step
        peak = max(peak, live)
    return peak


# A Ray cluster private to one test: a head that runs nothing (no CPU) and two worker nodes, each with
# two CPUs and one `fakegpu` standing in for a GPU. It binds to loopback only (tests never reach a host
# address: Ray's single-machine mode, which it names after Windows/macOS) and runs without Ray's token
# auth; the head and the driver share both settings. It prints the head's address, then lives until
# its stdin closes and shuts down the processes it started (and no other Ray on this host).
RAY_ENV = {"RAY_AUTH_MODE": "disabled", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
RAY_CLUSTER = """import sys
from ray.cluster_utils import Cluster
cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
for _ in range(2):
    cluster.add_node(num_cpus=2, resources={"fakegpu": 1})
cluster.wait_for_nodes()
print(cluster.address, flush=True)
sys.stdin.read()
cluster.shutdown()
"""


def test_ray_executor_on_a_local_cluster_of_a_head_and_two_workers(tasks_root, tmp_path):
    """Every attempt is a Ray task asking for one fakegpu: the head has no CPU, so the workers ran
    them all; two at once (one per worker) and never three, though the workers' CPUs would allow
    four; the results land in the one run dir."""
    pytest.importorskip("ray", reason="ray is an optional extra: pip install -e '.[ray]'")
    clone_tasks(tasks_root, ["scale_b", "scale_c"])
    spans = tmp_path / "spans"
    command = f"echo {{task_id}} $(date +%s.%N) >> {spans}; sleep 3"
    head = subprocess.Popen([sys.executable, "-c", RAY_CLUSTER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env={**os.environ, **RAY_ENV})
    address = head.stdout.readline().strip()
    assert address.startswith("127.0.0.1:"), f"the Ray cluster did not start on loopback: {address!r}"
    try:
        out = tmp_path / "run"
        proc = gauntlet(*run_argv(tasks_root, out, "--agent", "command", "--command", command, "--executor", "ray",
                                  "--ray-address", address, "--ray-resource", "fakegpu=1"), env=RAY_ENV, timeout=900)
        found = results(out)
        assert sorted(found) == ["triton2triton__scale", "triton2triton__scale_b", "triton2triton__scale_c"], proc.stdout
        assert all(r["status"] == "ok" and r["correct_seen"] for r in found.values())
        started = {line.split()[0]: float(line.split()[1]) for line in spans.read_text().splitlines()}
        attempts = [(started[r["task"]], r["eval_finished"]) for r in found.values()]
        assert most_at_once(attempts) == 2, attempts     # one per worker's fakegpu
        assert json.loads((out / "manifest.json").read_text())["finished"]
    finally:
        head.stdin.close()
        head.wait(timeout=120)


def test_a_ray_attempt_uses_the_gpu_ray_assigned_it(monkeypatch):
    """In the worker, the GPU Ray gave the task is the attempt's pool of one: the device its result
    records and its sandboxes get (docker would otherwise hand the evaluation every GPU of the node).
    Ray's assignment is faked here: this host has no GPU for a cluster to hand out."""
    ray = pytest.importorskip("ray", reason="ray is an optional extra: pip install -e '.[ray]'")
    from types import SimpleNamespace
    from runner.run.ray_executor import _remote_attempt
    monkeypatch.setattr(ray, "get_gpu_ids", lambda: [3])

    def fake_attempt(device):
        attempt = SimpleNamespace(options=SimpleNamespace(device=device), gpus=None)
        attempt.run = lambda: SimpleNamespace(to_dict=lambda: {"pool": attempt.gpus and attempt.gpus.names})
        return attempt
    assert _remote_attempt(fake_attempt("cuda")) == {"pool": ["3"]}
    assert _remote_attempt(fake_attempt("cpu")) == {"pool": None}

def test_ray_executor_names_an_unreachable_cluster_in_one_line(tasks_root, tmp_path):
    pytest.importorskip("ray", reason="ray is an optional extra: pip install -e '.[ray]'")
    proc = gauntlet(*run_argv(tasks_root, tmp_path / "run", "--agent", "noop", "--executor", "ray",
                              "--ray-address", "127.0.0.1:1"), check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "--ray-address: cannot join Ray at 127.0.0.1:1" in proc.stderr, proc.stderr


@pytest.mark.slow
def test_ray_executors_own_local_cluster_works_with_rays_default_token_auth(tasks_root, tmp_path):
    """Without --ray-address the run starts its own Ray. Ray 2.60 turns token authentication on for a
    new local cluster and, with no token in the environment, writes one to ~/.ray/auth_token (left
    there when the start failed): the run brings a token of its own and the home stays untouched."""
    pytest.importorskip("ray", reason="ray is an optional extra: pip install -e '.[ray]'")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update({"HOME": str(home), "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "COLUMNS": "200"})
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "runner.cli", *map(str, run_argv(tasks_root, out, "--agent", "noop",
                                                                                   "--executor", "ray"))],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert results(out)["triton2triton__scale"]["status"] == "ok"
    assert not (home / ".ray").exists(), sorted(p.name for p in (home / ".ray").iterdir())
