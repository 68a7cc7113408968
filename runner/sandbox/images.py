"""Images: which image each platform runs in, and how `gauntlet images build` makes them.

Image names are gauntlet-<platform>:<runner version> (gauntlet-cpu, gauntlet-cuda, gauntlet-rocm);
GAUNTLET_IMAGE_<PLATFORM> (e.g. GAUNTLET_IMAGE_CUDA=registry/x:y) or SandboxSpec.image overrides it.

A build stages a small context folder (the Dockerfile, scripts/images/, a wheelhouse and an agent-CLI
bundle), then builds it through the Docker engine. With a wheelhouse the build runs with
network none: everything it installs comes from the base image, the wheelhouse and the bundle.
Every image carries /etc/gauntlet-image.json (versions of what it holds), read by `gauntlet doctor`.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from runner import __version__
from runner.resources import suite_root

PLATFORMS = ("cpu", "cuda", "rocm")
REPO = suite_root()   # the checkout, or the copy a non-editable install carries (runner/resources.py)
MANIFEST_IN_IMAGE = "/etc/gauntlet-image.json"
LOCAL_BASE = "gauntlet-base:bookworm"

# Pinned upstream bases (build args; override with --base). Tags as published upstream; they cannot be
# pulled from the development machine (no Docker Hub), see docs/docker.md.
DEFAULT_BASES = {
    "cpu": LOCAL_BASE,
    "cuda": "nvidia/cuda:13.0.1-devel-ubuntu24.04",
    "rocm": "rocm/pytorch:rocm7.0_ubuntu24.04_py3.12_pytorch_release_2.7.1",
}
# Where pip finds torch when the build is online (no wheelhouse). rocm/pytorch ships torch already.
DEFAULT_TORCH = {
    "cpu": ("2.13.0", "https://download.pytorch.org/whl/cpu"),
    "cuda": ("2.13.0", "https://download.pytorch.org/whl/cu130"),
    "rocm": ("", ""),
}
LABEL = "gauntlet.image"


def image_name(platform: str) -> str:
    return f"gauntlet-{platform}"


def image_tag() -> str:
    return __version__


def image_ref(platform: str) -> str:
    """The image a sandbox of this platform runs: env override, else gauntlet-<platform>:<version>."""
    if platform not in PLATFORMS:
        raise ValueError(f"unknown platform {platform!r} (known: {', '.join(PLATFORMS)})")
    return os.environ.get(f"GAUNTLET_IMAGE_{platform.upper()}") or f"{image_name(platform)}:{image_tag()}"


def dockerfile(platform: str) -> Path:
    return REPO / f"Dockerfile.{platform}"


@dataclass
class BuildOptions:
    platform: str
    base: str | None = None
    wheelhouse: Path | None = None
    agent_clis: Path | None = None       # a folder holding node_modules/ (scripts/images/bundle-agent-clis.sh)
    network: str | None = None           # None: "none" when a wheelhouse is given, else the default
    tag: str | None = None
    build_args: dict = field(default_factory=dict)
    no_cache: bool = False


def _link_or_copy(src, dst) -> None:
    try:
        os.link(src, dst)                    # same filesystem: no copy of hundreds of MB
    except OSError:
        shutil.copy2(src, dst)


def _stage(opts: BuildOptions, into: Path) -> None:
    """The build context: only what the Dockerfile copies (keeps the upload small)."""
    shutil.copyfile(dockerfile(opts.platform), into / "Dockerfile")
    shutil.copytree(REPO / "scripts" / "images", into / "scripts" / "images")
    wheels = into / "wheels"
    wheels.mkdir()
    if opts.wheelhouse:
        found = sorted(Path(opts.wheelhouse).glob("*.whl"))
        if not found:
            raise FileNotFoundError(f"--wheelhouse {opts.wheelhouse}: no .whl files in it")
        for whl in found:
            _link_or_copy(whl, wheels / whl.name)
    (wheels / ".keep").write_text("")
    clis = into / "agent-clis"
    if opts.agent_clis and (Path(opts.agent_clis) / "node_modules").is_dir():
        shutil.copytree(Path(opts.agent_clis), clis, symlinks=True, copy_function=_link_or_copy)
    else:
        clis.mkdir()
        (clis / ".keep").write_text("")


def cache_dir() -> Path:
    """Where scripts/setup-docker.sh keeps the wheelhouse and the agent-CLI bundle."""
    return Path(os.environ.get("GAUNTLET_CACHE", "/var/tmp/gauntlet"))


def with_cached_inputs(opts: BuildOptions, log=print) -> BuildOptions:
    """A cpu build without --wheelhouse / --agent-clis uses what setup-docker.sh left in the cache,
    so `gauntlet images build cpu` alone builds offline after the setup script."""
    if opts.platform == "cpu" and opts.wheelhouse is None and any((cache_dir() / "wheelhouse").glob("torch-*.whl")):
        opts.wheelhouse = cache_dir() / "wheelhouse"
        log(f"using the wheelhouse {opts.wheelhouse}")
    if opts.agent_clis is None and (cache_dir() / "agent-clis" / "node_modules" / ".bin").is_dir():
        opts.agent_clis = cache_dir() / "agent-clis"
        log(f"using the agent-CLI bundle {opts.agent_clis}")
    return opts


def build(opts: BuildOptions, log=print) -> str:
    """Build one image; returns its reference. Raises RuntimeError with the build's last lines."""
    import docker
    opts = with_cached_inputs(opts, log)
    platform = opts.platform
    if platform not in PLATFORMS:
        raise ValueError(f"unknown platform {platform!r}")
    base = opts.base or DEFAULT_BASES[platform]
    tag = opts.tag or f"{image_name(platform)}:{image_tag()}"
    network = opts.network or ("none" if opts.wheelhouse else "default")
    torch_version, torch_index = DEFAULT_TORCH[platform]
    args = {"BASE": base, "GAUNTLET_VERSION": __version__, "GAUNTLET_PLATFORM": platform,
            "TORCH_VERSION": torch_version, "TORCH_INDEX_URL": torch_index, **opts.build_args}
    client = docker.from_env(timeout=600)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="gauntlet-build-", dir=_tmp_dir(opts)) as tmp:
        ctx = Path(tmp)
        _stage(opts, ctx)
        log(f"building {tag} from {base} (network {network}, wheelhouse "
            f"{opts.wheelhouse or '-'}, agent CLIs {'yes' if any((ctx / 'agent-clis').iterdir()) and (ctx / 'agent-clis' / 'node_modules').exists() else 'no'})")
        tail: list[str] = []
        error = None
        for chunk in client.api.build(path=str(ctx), tag=tag, buildargs=args, network_mode=network, rm=True,
                                      forcerm=True, nocache=opts.no_cache, pull=False, decode=True,
                                      labels={LABEL: platform, "gauntlet.version": __version__,
                                              "gauntlet.base": base}):
            if "stream" in chunk:
                for line in chunk["stream"].splitlines():
                    if line.strip():
                        tail = (tail + [line])[-40:]
                        log("  " + line)
            if "error" in chunk:
                error = chunk["error"]
        if error:
            raise RuntimeError(f"docker build of {tag} failed: {error}\n" + "\n".join(tail[-15:]))
    log(f"built {tag} in {time.monotonic() - started:.0f} s")
    return tag


def _tmp_dir(opts: BuildOptions) -> str | None:
    """Stage next to the wheelhouse (or the CLI bundle) so files are hard-linked, not copied."""
    for folder in (opts.wheelhouse, opts.agent_clis):
        if folder:
            return str(Path(folder).resolve().parent)
    return None


def manifest(client, ref: str) -> dict | None:
    """/etc/gauntlet-image.json of an image, read from a created (never started) container."""
    import io
    import tarfile
    container = client.containers.create(ref, command=["true"], network_mode="none",
                                         labels={"gauntlet.managed": "true", "gauntlet.role": "probe"})
    try:
        stream, _ = container.get_archive(MANIFEST_IN_IMAGE)
        data = io.BytesIO(b"".join(stream))
        with tarfile.open(fileobj=data) as tar:
            member = tar.extractfile(tar.getmembers()[0])
            return json.loads(member.read().decode())
    except Exception:
        return None
    finally:
        container.remove(force=True)


def image_identity(platform: str) -> dict:
    """What a docker-backend run records in manifest.json: the image reference its sandboxes use, the
    image id (a content hash: the same id is the same image), its registry digests, and the versions
    the image says it holds (agent CLIs included). Raises LookupError (one line) if it is missing."""
    import docker
    ref = image_ref(platform)
    client = docker.from_env(timeout=30)
    try:
        image = client.images.get(ref)
    except docker.errors.ImageNotFound:
        raise LookupError(f"--backend docker: image {ref} is not built (gauntlet images build {platform}, "
                          "or scripts/setup-docker.sh for cpu)") from None
    return {"ref": ref, "id": image.id, "digests": image.attrs.get("RepoDigests") or [],
            "created": image.attrs.get("Created"), "contents": manifest(client, ref)}
