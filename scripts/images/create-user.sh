#!/bin/sh
# Image build step: the non-root user every exec runs as (uid/gid 1000, name agent, home
# /home/agent). Upstream Ubuntu bases ship a user 'ubuntu' with uid 1000: it is removed first.
set -eu
uid="${AGENT_UID:-1000}"
other=$(getent passwd "$uid" | cut -d: -f1 || true)
if [ -n "$other" ] && [ "$other" != agent ]; then
    echo "create-user: removing $other (uid $uid)"
    userdel -r "$other" 2>/dev/null || userdel "$other"
fi
othergrp=$(getent group "$uid" | cut -d: -f1 || true)
if [ -n "$othergrp" ] && [ "$othergrp" != agent ]; then
    groupdel "$othergrp" 2>/dev/null || true
fi
getent group agent >/dev/null || groupadd -g "$uid" agent
getent passwd agent >/dev/null || useradd -u "$uid" -g "$uid" -m -d /home/agent -s /bin/bash agent
mkdir -p /workspace /eval /gauntlet /opt/gauntlet
chown agent:agent /workspace /eval
echo "create-user: $(id agent)"
