#!/bin/sh
# Image build step: the agent CLIs, bundled on the host by scripts/images/bundle-agent-clis.sh
# (npm install into a folder; the build itself runs with network none) and copied by the
# Dockerfile to /opt/agent-clis. Their bin links go to /opt/agent-clis/bin (on PATH).
set -eu
mkdir -p /opt/agent-clis/bin
if [ -d /opt/agent-clis/node_modules/.bin ]; then
    for bin in /opt/agent-clis/node_modules/.bin/*; do
        [ -e "$bin" ] || continue
        ln -sf "../node_modules/.bin/$(basename "$bin")" "/opt/agent-clis/bin/$(basename "$bin")"
    done
    echo "install-agent-clis: $(ls /opt/agent-clis/bin | tr '\n' ' ')"
else
    echo "install-agent-clis: no bundle given; image has no agent CLIs"
fi
