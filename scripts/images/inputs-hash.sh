#!/bin/sh
# A short content hash of everything an image is built from: its Dockerfile, scripts/images/, the
# base image's id, the wheelhouse's file names and the agent-CLI bundle's versions. The same hash means
# the same image, so scripts/setup-docker.sh keeps a built image tagged with it instead of rebuilding.
#   scripts/images/inputs-hash.sh PLATFORM BASE_IMAGE [WHEELHOUSE] [AGENT_CLIS]
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
platform="${1:?usage: inputs-hash.sh PLATFORM BASE_IMAGE [WHEELHOUSE] [AGENT_CLIS]}"
base="${2:?usage: inputs-hash.sh PLATFORM BASE_IMAGE [WHEELHOUSE] [AGENT_CLIS]}"
{
    cat "$repo/Dockerfile.$platform"
    for f in "$here"/*; do echo "== $(basename "$f")"; cat "$f"; done
    echo "== base"; docker image inspect "$base" --format '{{.Id}}' 2>/dev/null || echo "$base (not present)"
    echo "== wheelhouse"; [ -n "${3:-}" ] && ls "$3" 2>/dev/null || true
    echo "== agent clis"; [ -n "${4:-}" ] && cat "$4/versions.txt" 2>/dev/null || true
} | sha256sum | cut -c1-12
