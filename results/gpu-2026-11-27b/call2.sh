#!/usr/bin/env bash
# GPU call 2 of 2026-11-27 (session 11), issue 10: call 1's noops again with the rounds set per config
# (timing.rounds_for: up to 20 rounds of 25 repetitions, the offset's too, where call 1 had 5 of 100
# and the offset 3) and a second timing where a config's device-sync gap reads high (call 1 flagged an
# honest noop's 22.7 us config that way).
# The same command as call 1 (the code under it differed).
exec bash results/gpu-2026-11-27b/call1.sh
