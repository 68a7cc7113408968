"""GPU plumbing of the docker backend, checked as the arguments it hands the engine (no GPU here)."""
from __future__ import annotations

from pathlib import Path

from runner.sandbox import SandboxSpec
from runner.sandbox import docker as backend


def spec(platform, ids=()):
    return SandboxSpec(role="agent", platform=platform, workdir=Path("/tmp"), gpu_ids=tuple(ids))


def test_nvidia_requests_exactly_the_attempts_gpus():
    kwargs, env = backend.gpu_options(spec("cuda", ["2", "3"]))
    (request,) = kwargs["device_requests"]
    assert request["DeviceIDs"] == ["2", "3"] and request["Capabilities"] == [["gpu"]]
    assert "Count" not in request or not request["Count"]
    assert env["NVIDIA_VISIBLE_DEVICES"] == "2,3"
    kwargs, env = backend.gpu_options(spec("cuda"))
    assert kwargs["device_requests"][0]["Count"] == -1 and env["NVIDIA_VISIBLE_DEVICES"] == "all"


def test_amd_maps_kfd_and_only_the_attempts_render_node(monkeypatch):
    monkeypatch.setattr(backend, "amd_render_nodes", lambda: ["/dev/dri/renderD128", "/dev/dri/renderD129"])
    monkeypatch.setattr(backend, "host_gpu_groups", lambda paths: ["44", "109"])
    kwargs, env = backend.gpu_options(spec("rocm", ["1"]))
    assert kwargs["devices"] == ["/dev/kfd:/dev/kfd:rwm", "/dev/dri/renderD129:/dev/dri/renderD129:rwm"]
    assert kwargs["group_add"] == ["44", "109"]
    assert kwargs["security_opt_extra"] == ["seccomp=unconfined"]
    assert env["HIP_VISIBLE_DEVICES"] == "0" and env["ROCR_VISIBLE_DEVICES"] == "0"
    kwargs, _ = backend.gpu_options(spec("rocm", ["renderD128"]))
    assert kwargs["devices"][1] == "/dev/dri/renderD128:/dev/dri/renderD128:rwm"


def test_cpu_gets_no_devices():
    assert backend.gpu_options(spec("cpu")) == ({}, {})


def test_host_gpu_groups_are_numeric(tmp_path):
    node = tmp_path / "node"
    node.write_text("")
    groups = backend.host_gpu_groups([str(node)])
    assert all(g.isdigit() for g in groups) and "0" not in groups
