#!/bin/sh
# Image build step (all Dockerfiles): make sure the system tools the sandbox needs are present.
# On the local debootstrap base they already are, so nothing is fetched (the build runs with
# network none); on an upstream base (nvidia/cuda, rocm/pytorch) the missing ones come from apt.
set -eu
need="python3 python3-venv git ca-certificates procps coreutils util-linux nodejs npm"
missing=""
for pkg in $need; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
    echo "ensure-system: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends $missing
    rm -rf /var/lib/apt/lists/*
else
    echo "ensure-system: all present ($need)"
fi
# What the sandbox relies on, whatever the base: fail the build here rather than at trial time.
for tool in python3 git node setsid timeout sleep kill; do
    command -v "$tool" >/dev/null 2>&1 || { echo "ensure-system: $tool missing" >&2; exit 1; }
done
setsid --help 2>&1 | grep -q -- --wait || { echo "ensure-system: setsid lacks --wait" >&2; exit 1; }
