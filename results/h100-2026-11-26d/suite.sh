#!/usr/bin/env bash
# GPU calls 1-2 of 2026-11-26 (session 4): the suite's validation through the judge, resumed from
# .gpu/suite/suite.jsonl (carried): the third session's call-3 script, run again (SUITE_S, JOBS).
exec bash results/h100-2026-11-26c/call3.sh
