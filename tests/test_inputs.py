"""Bad inputs get one clear line (exit != 0, no traceback) before any agent runs: real CLI
subprocesses, real engines and files (issue 11)."""
import shutil
from pathlib import Path

import pytest

from .conftest import gauntlet

SCALE = "triton2triton/scale"


def one_line_error(proc, *words):
    """The CLI refused: exit != 0, no traceback, and the last stderr line names every word."""
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    for word in words:
        assert word in line, line
    return line


def no_attempt_started(out: Path):
    assert not (out / "attempts").exists(), list(out.rglob("*"))


# -- 1. preflight -------------------------------------------------------------------------------
@pytest.mark.parametrize("device", ["cuda", "rocm"])
def test_a_device_this_host_lacks_is_one_line_before_any_agent(tasks_root, tmp_path, device):
    from runner.preflight import device_present
    if device_present(device):
        pytest.skip(f"this host has a {device} device")
    out = tmp_path / "run"
    proc = gauntlet("run", "--agent", "oracle", "--tasks", SCALE, "--tasks-root", tasks_root,
                    "--device", device, "--out", out, check=False)
    one_line_error(proc, f"--device {device}", "no {device} device".format(device=device))
    no_attempt_started(out)


def test_eval_checks_the_device_too(tasks_root, tmp_path):
    from runner.preflight import device_present
    if device_present("cuda"):
        pytest.skip("this host has a cuda device")
    out = tmp_path / "run"
    gauntlet("run", "--agent", "noop", "--tasks", SCALE, "--tasks-root", tasks_root, "--device", "cpu",
             "--out", out, "--budget", "60")
    proc = gauntlet("eval", out, "--tasks-root", tasks_root, "--device", "cuda", check=False)
    one_line_error(proc, "--device cuda")


def test_docker_without_an_engine_is_one_line(tasks_root, tmp_path):
    out = tmp_path / "run"
    proc = gauntlet("run", "--agent", "oracle", "--tasks", SCALE, "--tasks-root", tasks_root, "--device", "cpu",
                    "--backend", "docker", "--out", out, check=False,
                    env={"DOCKER_HOST": f"unix://{tmp_path}/no-engine.sock"})
    one_line_error(proc, "--backend docker", "no docker engine", "no-engine.sock")
    no_attempt_started(out)


def test_docker_without_the_image_is_one_line(tasks_root, tmp_path):
    import docker
    try:
        docker.from_env(timeout=10).ping()
    except Exception:
        pytest.skip("no docker engine on this host")
    out = tmp_path / "run"
    proc = gauntlet("run", "--agent", "oracle", "--tasks", SCALE, "--tasks-root", tasks_root, "--device", "cpu",
                    "--backend", "docker", "--out", out, check=False,
                    env={"GAUNTLET_IMAGE_CPU": "gauntlet-no-such-image:0"})
    one_line_error(proc, "--backend docker", "gauntlet-no-such-image:0", "missing", "images build cpu")
    no_attempt_started(out)
