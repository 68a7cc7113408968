#!/usr/bin/env bash
# GPU call 3 of 2026-11-27 (session 11), issue 10: call 2 again with the paired figure (timing.stats/paired:
# the baseline's mean of round medians, the candidate's = that + the median of round differences).
# The same command as call 1 (the code under it differed).
exec bash results/gpu-2026-11-27b/call1.sh
