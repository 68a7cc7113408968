#!/bin/bash
# Prepare this machine for the docker backend and its tests (CI runs it before the suite).
# Idempotent: each step is skipped when its result is already there. Prints what it does and
# how long each step took.
#
#   1. apt-get install docker.io debootstrap          (skipped when dockerd and debootstrap exist)
#   2. start dockerd in the background                (skipped when the engine answers)
#   3. gauntlet-base:bookworm: debootstrap minbase + apt-get install in the chroot, docker import
#   4. a wheelhouse: pip download torch==$TORCH_VERSION triton numpy (cp311, the base's python)
#   5. the agent CLIs bundle: npm install into a folder  (GAUNTLET_NO_AGENT_CLIS=1 skips it)
#   6. gauntlet-cpu:<version>, built offline (--network none) from 3 + 4 + 5
#   7. Dockerfile.cuda and Dockerfile.rocm built the same way on the local base, smoke-tested and
#      kept under a tag keyed by the hash of their inputs, so a re-run with nothing changed skips them
#      (their upstream bases are not reachable here; GAUNTLET_SKIP_GPU_DOCKERFILES=1 skips)
#
# Environment: GAUNTLET_CACHE (/var/tmp/gauntlet) holds the rootfs, wheelhouse and bundle;
# DOCKERD_LOG (/var/log/gauntlet-dockerd.log); DEBIAN_MIRROR (default: the first Debian URI in
# this machine's apt sources); TORCH_VERSION (2.13.0).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# the project venv (scripts/install.sh): a stock python3 has neither pip nor the docker SDK
VPY="${GAUNTLET_VENV:-$REPO/.venv}/bin/python"; [ -x "$VPY" ] || VPY=python3
CACHE="${GAUNTLET_CACHE:-/var/tmp/gauntlet}"
DOCKERD_LOG="${DOCKERD_LOG:-/var/log/gauntlet-dockerd.log}"
BASE_IMAGE="gauntlet-base:bookworm"
TORCH_VERSION="${TORCH_VERSION:-2.13.0}"
WHEELHOUSE="$CACHE/wheelhouse"
CLIS="$CACHE/agent-clis"
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
mkdir -p "$CACHE"
# One run at a time per cache: two at once deleted each other's rootfs and base image build. A
# second run waits for the first and then finds its results (every step is skipped when done).
exec 9>"$CACHE/setup-docker.lock"
if ! flock -n 9; then
    echo "setup-docker: another run holds $CACHE/setup-docker.lock; waiting for it to finish"
    flock 9
fi
T0=$(date +%s)
TIMES=()

step() { STEP_NAME="$1"; STEP_T=$(date +%s); echo "== $1"; }
done_step() { local s=$(( $(date +%s) - STEP_T )); echo "   ($STEP_NAME: ${s} s${1:+, $1})"; TIMES+=("$(printf '%-34s %5s s %s' "$STEP_NAME" "$s" "${1:-}")"); }
say() { echo "   $*"; }

engine_up() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

# 1 -------------------------------------------------------------------------------------------
step "packages (docker.io, debootstrap)"
if command -v dockerd >/dev/null && command -v debootstrap >/dev/null; then
    done_step "present"
else
    say "apt-get install -y docker.io debootstrap"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends docker.io debootstrap >/dev/null
    done_step "installed"
fi

# 2 -------------------------------------------------------------------------------------------
step "docker engine"
if engine_up; then
    done_step "already running ($(docker version --format '{{.Server.Version}}'))"
else
    say "dockerd in the background, log: $DOCKERD_LOG"
    # 9>&-: the engine must not inherit this script's lock, or the next run waits for ever
    $SUDO sh -c "nohup dockerd >'$DOCKERD_LOG' 2>&1 9>&- &" 9>&-
    for _ in $(seq 1 60); do
        [ -S /var/run/docker.sock ] && engine_up && break
        sleep 1
    done
    if ! engine_up; then
        echo "dockerd did not come up; last lines of $DOCKERD_LOG:" >&2
        tail -20 "$DOCKERD_LOG" >&2
        exit 1
    fi
    done_step "started ($(docker version --format '{{.Server.Version}}'))"
fi

# 3 -------------------------------------------------------------------------------------------
step "base image $BASE_IMAGE"
if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
    done_step "present"
else
    mirror="${DEBIAN_MIRROR:-}"
    if [ -z "$mirror" ]; then
        # the first Debian main archive this machine's apt uses (deb822 .sources or one-line lists)
        mirror=$( { grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}';
                    grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{print $2}'; } \
                  | grep -v -- '-security' | grep -m1 'debian' || true)
        mirror="${mirror:-http://deb.debian.org/debian}"
    fi
    rootfs="$CACHE/rootfs-bookworm"
    $SUDO rm -rf "$rootfs"
    say "debootstrap --variant=minbase bookworm $rootfs $mirror"
    $SUDO debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$CACHE/debootstrap.log" 2>&1 \
        || { tail -20 "$CACHE/debootstrap.log" >&2; exit 1; }
    pkgs="python3 python3-venv git ca-certificates procps nodejs npm"
    say "chroot apt-get install --no-install-recommends $pkgs"
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$rootfs/usr/sbin/policy-rc.d" >/dev/null
    $SUDO chmod +x "$rootfs/usr/sbin/policy-rc.d"
    $SUDO cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
    $SUDO chroot "$rootfs" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs" \
        >"$CACHE/chroot-apt.log" 2>&1 || { tail -20 "$CACHE/chroot-apt.log" >&2; exit 1; }
    $SUDO chroot "$rootfs" apt-get clean
    $SUDO rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs/etc/resolv.conf" "$rootfs/usr/sbin/policy-rc.d"
    say "tar -C $rootfs -c . | docker import - $BASE_IMAGE"
    $SUDO tar -C "$rootfs" -c . | docker import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' --change 'CMD ["/bin/bash"]' \
        --message "gauntlet local base: debootstrap minbase bookworm + $pkgs" - "$BASE_IMAGE" >/dev/null
    $SUDO rm -rf "$rootfs"
    done_step "$(docker image inspect "$BASE_IMAGE" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}')"
fi

# 4 -------------------------------------------------------------------------------------------
step "wheelhouse $WHEELHOUSE"
if ls "$WHEELHOUSE"/torch-"$TORCH_VERSION"*.whl >/dev/null 2>&1 && ls "$WHEELHOUSE"/triton-*.whl >/dev/null 2>&1; then
    done_step "present"
else
    # The base's python is Debian bookworm's 3.11: download cp311 manylinux wheels whatever this
    # host's python is. pip's own configuration applies (on the dev machine /etc/xdg/pip adds a
    # find-links folder holding torch-2.13.0+cpu; elsewhere use the CPU index below).
    mkdir -p "$WHEELHOUSE"
    extra=()
    pipconf="$("$VPY" -m pip config list 2>/dev/null || true)"
    case "$pipconf" in
        *find-links*|*index-url*) say "pip configuration: $(echo "$pipconf" | tr '\n' ' ')" ;;
        *) extra=(--extra-index-url https://download.pytorch.org/whl/cpu) ;;
    esac
    say "pip download torch==$TORCH_VERSION triton numpy (cp311, manylinux x86_64) -> $WHEELHOUSE"
    "$VPY" -m pip download --quiet --dest "$WHEELHOUSE" --only-binary=:all: --implementation cp \
        --python-version 3.11 --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 "${extra[@]}" \
        "torch==$TORCH_VERSION" triton numpy
    done_step "$(du -sh "$WHEELHOUSE" | cut -f1), $(ls "$WHEELHOUSE" | wc -l) wheels"
fi

# 5 -------------------------------------------------------------------------------------------
step "agent CLIs bundle $CLIS"
. "$REPO/scripts/agent-cli-versions.sh"
pinned_bundle() {   # the bundle holds exactly the pinned versions (else it is rebuilt)
    grep -q "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION\$" "$1/versions.txt" 2>/dev/null \
        && grep -q "@openai/codex@$CODEX_VERSION\$" "$1/versions.txt" 2>/dev/null \
        || { say "bundle in $1 is not the pinned claude-code $CLAUDE_CODE_VERSION / codex $CODEX_VERSION: rebuilding"; rm -rf "$1"; false; }
}
CLI_ARGS=()
if [ "${GAUNTLET_NO_AGENT_CLIS:-0}" = 1 ]; then
    done_step "skipped (GAUNTLET_NO_AGENT_CLIS=1)"
elif [ -d "$CLIS/node_modules/.bin" ] && pinned_bundle "$CLIS"; then
    CLI_ARGS=(--agent-clis "$CLIS"); done_step "present"
elif "$REPO/scripts/images/bundle-agent-clis.sh" "$CLIS"; then
    CLI_ARGS=(--agent-clis "$CLIS"); done_step "$(du -sh "$CLIS" | cut -f1)"
else
    say "npm install failed: the image is built without agent CLIs"
    rm -rf "$CLIS"; done_step "FAILED (continuing without)"
fi

# 6 -------------------------------------------------------------------------------------------
step "image gauntlet-cpu (offline build)"
say "gauntlet images build cpu --base $BASE_IMAGE --wheelhouse $WHEELHOUSE ${CLI_ARGS[*]}"
(cd "$REPO" && "$VPY" -m runner.cli images build cpu --base "$BASE_IMAGE" --wheelhouse "$WHEELHOUSE" \
    "${CLI_ARGS[@]}" --quiet)
done_step "$(docker image inspect "gauntlet-cpu:$(cd "$REPO" && "$VPY" -c 'import runner; print(runner.__version__)')" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}')"

# 7 -------------------------------------------------------------------------------------------
# The CUDA and ROCm Dockerfiles' steps on the local base (their upstream bases cannot be pulled
# here): same scripts, their own build args, smoke-tested. Built once and kept, tagged
# :local-test-<hash of their inputs> (scripts/images/inputs-hash.sh): a re-run with the same
# inputs finds the tag and skips the build; a changed input builds a new tag and drops the old ones.
if [ "${GAUNTLET_SKIP_GPU_DOCKERFILES:-0}" != 1 ]; then
    for platform in cuda rocm; do
        step "Dockerfile.$platform on the local base (offline)"
        clis_dir=""; [ ${#CLI_ARGS[@]} -gt 0 ] && clis_dir="$CLIS"
        tag="gauntlet-$platform:local-test-$("$REPO/scripts/images/inputs-hash.sh" "$platform" "$BASE_IMAGE" "$WHEELHOUSE" $clis_dir)"
        if docker image inspect "$tag" >/dev/null 2>&1; then
            done_step "$tag present (same inputs)"; continue
        fi
        (cd "$REPO" && "$VPY" -m runner.cli images build "$platform" --base "$BASE_IMAGE" --wheelhouse "$WHEELHOUSE" \
            "${CLI_ARGS[@]}" --tag "$tag" --quiet)
        docker run --rm --network none --user 1000:1000 "$tag" sh -c \
            'python3 -c "import torch, triton, numpy" && git --version >/dev/null && node --version >/dev/null && cat /etc/gauntlet-image.json' \
            | tr -d '\n' | cut -c1-200; echo
        for old in $(docker image ls "gauntlet-$platform" --format '{{.Repository}}:{{.Tag}}' | grep ':local-test' | grep -vx "$tag"); do
            docker rmi "$old" >/dev/null || true
        done
        done_step "$tag built, smoke-tested, kept"
    done
fi

echo "== timings"
printf '   %s\n' "${TIMES[@]}"
echo "   total: $(( $(date +%s) - T0 )) s"
