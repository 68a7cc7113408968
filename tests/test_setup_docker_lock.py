"""scripts/setup-docker.sh runs one at a time per cache folder (issue 31: two at once deleted each
other's base image build). The engine's commands are stubs here that hang: nothing real is set up."""
import fcntl
import os
import signal
import subprocess
import time

from .conftest import REPO


def test_a_second_setup_waits_for_the_first(tmp_path):
    stubs = tmp_path / "bin"
    stubs.mkdir()
    for name in ("docker", "dockerd", "debootstrap", "sudo", "apt-get"):
        (stubs / name).write_text("#!/bin/sh\nsleep 60\n")
        (stubs / name).chmod(0o755)
    cache = tmp_path / "cache"
    cache.mkdir()
    with open(cache / "setup-docker.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)          # the first run, still going
        proc = subprocess.Popen(["bash", str(REPO / "scripts" / "setup-docker.sh")], cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True,
                                env={**os.environ, "PATH": f"{stubs}:{os.environ['PATH']}",
                                     "GAUNTLET_CACHE": str(cache), "DOCKERD_LOG": str(tmp_path / "d.log")})
        try:
            time.sleep(3)
            assert proc.poll() is None
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
        out = proc.communicate()[0]
    assert "waiting for it to finish" in out, out
    assert "== " not in out, out                   # no step started while the first run held the lock
