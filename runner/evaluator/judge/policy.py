"""The numbers the judge decides by, each with the measurement that set it (docs/evaluation.md)."""
from __future__ import annotations

CORRECTNESS_SEEDS = {"gpu": (0, 1, 2, 3, 4), "cpu": (0, 1)}   # KernelBench uses 5 trials
OUTLIER_SEEDS = {"gpu": (100, 101), "cpu": (100,)}
WARMUP_SEED, TIMING_SEED = 900, 2000
OUTLIER_FRACTION, OUTLIER_SCALE = 0.001, 50.0                  # KernelBench-X: 0.1 % of entries x50
ESCAPED_MIN_MS, ESCAPED_REL = 0.02, 0.5                         # gap excess that flags escaped work
# The runners' stream watch (a CUPTI profiler session, ~0.8 s per runner and config for a native
# kernel on an H100) runs in this many timed configs per evaluation, chosen at random by the judge;
# the device-sync gap and the time bound still look at every config.
WATCHED_CONFIGS = 2
# The clean-room baseline: SIGSTOP halts the candidate's processes while the baseline is timed, but
# not GPU work they queued before (another CUDA context of theirs keeps running, time-sliced with
# the baseline's, and makes the baseline look slow). So, once every candidate process is gone, the
# baseline is timed again on this many timed configs chosen at random; its time beside the candidate
# may exceed that by at most REL (+ ABS ms) before the evaluation is flagged. On the CPU, where times
# are not meaningful and a shared machine's load varies, it is a note with a wide margin.
CLEAN_ROOM_CONFIGS = 2
CLEAN_ROOM_SLACK = {"gpu": (0.05, 0.002), "cpu": (0.5, 1.0)}     # (REL, ABS ms)
# ... plus CLEAN_ROOM_Z standard errors of the difference of the two figures, each a median of
# round figures, the rounds' spread read from the clean room's own (CLEAN_ROOM_ROUNDS on a GPU,
# each at a new placement, of a quarter of a timed round's calls; runners.interference):
# a baseline that syncs with the host and launches per group spreads widely call to call (cv
# 0.3-1.5 on an H200), and the noop of such a baseline's own code read its clean room 16 % slower
# on one config and 48-70 % faster on two others (results/gpu-2026-11-29b.md). One-kernel baselines'
# rounds agree to ~1 %: for them the slack is REL + ABS as before.
CLEAN_ROOM_ROUNDS, CLEAN_ROOM_Z = 8, 3.0
# Off on the CPU: there it could only add a note (no GPU work outlives a stopped process, and times
# are not meaningful), for two more baseline calls (seconds each in the Triton interpreter: 15 s
# of a softmax evaluation's 264 s at load 12, issue 31). `clean_room=True` turns it on there.
CLEAN_ROOM = {"gpu": True, "cpu": False}
# What a kernel allocates itself, cut from a region of each runner's at a new offset every batch
# (own_blocks.py; `--own-blocks`, `--no-own-blocks`). On an H200 such a block's place moved a 37 us
# scatter_add 34-38 us, and its noop read 1.094x then 1.002x as each runner's allocator kept one
# place (results/gpu-2026-11-30-s19.md); with each batch at its own place its configs read 0.15 %
# apart at the median, 0.70 % at worst, every interval holding 1.0 (results/gpu-2026-11-30-s20.md).
# Off on the CPU, where times are not meaningful (and OwnBlocks needs CUDA).
OWN_BLOCKS = {"gpu": True, "cpu": False}
# The DRAM witness's differential (judge/dram.py, unflushed_findings): one batch a runner a config with
# no flush, its outputs checked, whose DRAM reads a timed call must pass by what the flush alone
# reads. Built in session 22 and not yet run on a GPU: off until it is (GAUNTLET_DRAM_UNFLUSHED=1).
DRAM_UNFLUSHED = {"gpu": False, "cpu": False}
# Repetitions of the candidate's unflushed batch checked (each drawn after the batch): a kernel that
# skips work there to read less (so that its timed calls seem to read more) is wrong on the calls it
# skipped; skipping half of them goes unseen with probability 1/16
UNFLUSHED_CHECKS = 4
CHECK_PROBABILITY, CHECKS_PER_CONFIG = 0.5, 4   # timed batches of the candidate checked: this chance at most,
                                                # about this many per config, and the last always
KEPT_BYTES = {"gpu": 4 << 30, "cpu": 256 << 20}                 # outputs a runner keeps per batch
# The time bound: the candidate's per-call wall time not explained by its samples, less the
# baseline's, must stay within max(ABS, REL x the candidate's median wall time a call, the judge's
# clock). Set from honest runs: on an H100 (73 configs, oracle and noop) |excess| had median
# 0.04 ms, p95 0.16 ms, max 0.23 ms, whole batches of either runner now and then running 0.06-0.12 ms
# per call slow, and the baseline's side as noisy as 4.7 % of a long call (BOUND_BASE_REL). REL is
# of the judge's own clock, never of the candidate's samples: a runner that shaves its samples
# (until session 23, REL 1.0 of the candidate's median sample) raised its own allowance with them,
# and a 45 % shave passed. CPU: a shared 2-core machine, where times are not meaningful anyway.
BOUND_ABS_MS = {"gpu": 0.5, "cpu": 25.0}
BOUND_REL = 0.2
FLOOR_CALLS = 100           # the empty calls whose unexplained time floors "steps skipped" (ConfigJudge._harness_floor)
BOUND_BASE_REL = 0.10      # the negative side's limit, as a share of the baseline's median (_bound)
TIMEOUTS_S = {"build": 900.0, "inputs": 300.0, "call": 300.0, "capture": 300.0, "time": 600.0,
              "export": 300.0, "release": 60.0, "exit": 10.0}
MAGNITUDE_FLOOR = 1e-3        # atol scales with an output's RMS down to this (docs/task-format.md, tolerances)
MAX_DIMS, MAX_EXTENT = 16, 1 << 40   # an output description beyond these is a broken (or hostile) reply
LOG_TAIL_BYTES = 600         # of a runner's log, quoted when it dies
FREEZE_S = 2.0               # how long the judge tries to see every process of the candidate's sandbox stopped
# The process offset (Judge.process_offset): on an H100 every process pays a cost per kernel launch
# of its own, fixed when it starts, so one kernel reads 0-4 % apart in two processes (30 us, three
# launches: results/h100-2026-11-26e.md, -26g.md). Before the candidate is loaded its runner
# builds the baseline, and the baseline is timed in both runners on the config of its quickest call;
# the difference is added to every baseline time, so each speedup is that of two kernels in the
# candidate's process.
# Off on the CPU, where times are not meaningful (`process_offset=True` turns it on there).
PROCESS_OFFSET = {"gpu": True, "cpu": False}
# An offset beyond this fraction of the baseline's time on the config it is measured on is not a
# per-launch process cost, and is not applied (a note says so): on an H200 35 of 37 offsets were
# 0.02-5.0 % of the call (median 1.6 %) and agreed with the two processes' plain medians within 2 points; the two
# beyond, 13.5 % and 22 %, were AKA's fused_moe tasks, whose calls sync the host and change level
# between rounds, and their plain medians were 0.6 % and 6 % apart (results/gpu-2026-11-29e.md).
# Applied there, the noop read 0.73x with an interval that excluded 1.0. No limit on the CPU, whose
# times mean nothing (the tests run the offset's mechanics there).
PROCESS_OFFSET_LIMIT = {"gpu": 0.10, "cpu": float("inf")}
# Beyond that limit an offset still applies when the two processes' plain medians read the same
# shift within this share of the call, and it is at most this many ms and this share of the call
# (rounds.offset_applies): the largest per-launch offsets read are 0.5-0.9 us, 10.6-13 % of their
# calls (triton2triton/cumsum on an H200, AKA's ep_scatter_1).
PROCESS_OFFSET_AGREE = 0.02
PROCESS_OFFSET_MAX_MS = 0.002
PROCESS_OFFSET_AGREED_LIMIT = 0.20
# The arena (arena.py): each round's timed inputs and harness-made outputs at one place in one
# judge-owned allocation for both kernels. On a GPU where it can be made; on the CPU only when asked
# (times mean nothing there; the test suite runs the mechanism).
ARENA = {"gpu": True, "cpu": False}
