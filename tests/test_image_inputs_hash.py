"""scripts/images/inputs-hash.sh keys the GPU images scripts/setup-docker.sh keeps: the same inputs
give the same hash (the built image is reused), any changed input a new one (it is rebuilt)."""
import shutil
import subprocess
from pathlib import Path

from .conftest import REPO


def test_hash_is_stable_and_follows_every_input(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "scripts" / "images", repo / "scripts" / "images")
    shutil.copy(REPO / "Dockerfile.cuda", repo / "Dockerfile.cuda")
    wheels, clis = tmp_path / "wheels", tmp_path / "clis"
    wheels.mkdir()
    (wheels / "torch-2.13.0-cp311.whl").write_text("")
    clis.mkdir()
    (clis / "versions.txt").write_text("@openai/codex@0.169.0\n")

    def key() -> str:
        return subprocess.run(["sh", str(repo / "scripts" / "images" / "inputs-hash.sh"), "cuda",
                               "no-such-base:gauntlet-test", str(wheels), str(clis)],
                              capture_output=True, text=True, check=True).stdout.strip()
    first = key()
    assert len(first) == 12 and key() == first
    seen = {first}
    for change in (lambda: (repo / "Dockerfile.cuda").write_text("FROM scratch\n"),
                   lambda: (repo / "scripts" / "images" / "install-python.sh").write_text("#!/bin/sh\n"),
                   lambda: (wheels / "triton-3.9.0-cp311.whl").write_text(""),
                   lambda: (clis / "versions.txt").write_text("@openai/codex@0.170.0\n")):
        change()
        assert key() not in seen
        seen.add(key())
