#!/bin/sh
# Image build step: login shells get the image's environment back. Codex runs every command with
# `bash -lc`; Debian's /etc/profile resets PATH and then sources /etc/profile.d/*.sh, so without
# this file the prompt's check command would find a python without torch. PROFILE_D: tests only.
set -eu
dir="${PROFILE_D:-/etc/profile.d}"
mkdir -p "$dir"
{
    echo "# written at image build (scripts/images/write-profile.sh): the image's ENV for login shells"
    printf "export PATH='%s'\n" "$PATH"
    printf "export PYTHONPATH='%s'\n" "${PYTHONPATH:-}"
} > "$dir/gauntlet.sh"
