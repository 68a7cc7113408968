#!/usr/bin/env python3
"""Execute the HIP tasks' kernels on the CPU with HIP-CPU, through the judge's own correctness path.

No AMD GPU is at hand, so the HIP tasks (tasks/hip2hip/*, tasks/torch2hip/*) were only ever
compiled (hipcc offline; bench/hip_shim/hipcc on an NVIDIA GPU). HIP-CPU (github.com/ROCm/HIP-CPU,
header-only, not on any package registry, so never installed by this repo's scripts: pass its
checkout as --hip-cpu DIR or HIP_CPU_ROOT) runs HIP kernels as plain C++ on the CPU, where a
"device pointer" is a host pointer. This tool builds each kernel with g++ against HIP-CPU and lets
the judge check it as it checks any candidate:

  * Tasks come from the repo's loader (runner.tasks.task.select: `extends`, [candidate], [solution],
    seen and hidden configs, [tolerance]).
  * Each kernel is judged by runner.evaluator.judge.evaluation.evaluate(device="cpu",
    measure=False, language="hip"): the judge's inputs (config_seed; seeds 0 and 1, then outlier
    seed 100, policy.CORRECTNESS_SEEDS/OUTLIER_SEEDS["cpu"]), the task's reference.py run by the
    judge, the kernel in a sandboxed kernel_runner built by build.compile_native("hip") and called
    by build.Kernel.prepare/run (to_c marshals the inputs, poisoned harness-allocated outputs, a
    null stream since torch has no CUDA here), twice per input set with different poison, and the
    judge's values.compare with the task's tolerance (its max abs error is the one reported).
  * The compiler is the judge's own hook for a compiler outside PATH, GAUNTLET_HIPCC: here a
    wrapper (this file, run as `--as-hipcc`) that takes hipcc's command line, rewrites the source
    (below) and compiles it with
        g++ -std=c++17 -O2 -fPIC -shared -I$HIP_CPU/include ... -ltbb -lpthread
    one build at a time (a lock), in a private copy of HIP-CPU's headers the runner's sandbox can read.
  * The shipped kernel is judged as the candidate of the task with its baseline set to the PyTorch
    reference (the task's category read as torch2hip: Task.baseline_is_reference), so a hip2hip
    baseline gets exactly the checks a solution gets and its own max error. For torch2hip the
    shipped kernel is a stub: only the solution is run. A hip2hip task whose solution is the same
    file as its torch2hip twin's, with the same reference, configs and tolerance, reuses that result.

Source rewrites (spellings, not changes of what the kernel computes), in the file the wrapper compiles:
  * `k<<<g, b, s, st>>>(args)` -> `GAUNTLET_HIPCPU_LAUNCH((k), dim3(g), dim3(b), s, st, args)`, HIP-CPU's
    hipLaunchKernelGGL through the guard below (HIP-CPU is plain C++; comments and strings are left alone);
  * `extern __shared__ T name[];` -> `HIP_DYNAMIC_SHARED(T, name)` (HIP-CPU's spelling of dynamic
    shared memory; `__shared__` is `thread_local` there, and an extern one would be undefined);
  * the task's `extern "C" int launch(...)` renamed, and a `launch` of the same parameters that calls
    it and then hipDeviceSynchronize(): HIP-CPU runs kernels asynchronously on a processor thread, and
    on device cpu the judge does not synchronise after a call (its CPU kernels are synchronous) where
    on a GPU it does (torch.cuda.synchronize). It returns the guard's code, else the kernel's, else 1
    if the synchronisation failed.
Build additions (force-included after hip/hip_runtime.h):
  * the guard (GUARD_HEADER; its comment has the measurements): HIP-CPU's fibers keep running the
    threads, but with HIP's semantics where HIP-CPU's differ: each thread runs once (HIP-CPU re-ran a
    thread that had returned, repeating its atomics), __syncthreads is a counting barrier of the live
    threads, a shuffle syncs only its width-segment of the 64-lane warp (HIP-CPU makes each shuffle a
    barrier of the whole block, so a reduction whose last step shuffles in warp 0 only fell out of
    step and wrote into other blocks' and launches' memory), and a block ends when all its threads
    have returned. A wait that never ends marks the call "out of step on HIP-CPU" (launch returns
    OUT_OF_STEP), which is reported as such, never as the kernel's failure or pass. --no-guard
    leaves it out (HIP-CPU's own semantics), for comparison;
  * a header of HIP names HIP-CPU (e112c93) does not declare (COMPAT_HEADER: __align__, rsqrtf,
    __expf and the other fast intrinsics as the exact functions, __float_as_uint and the other bit
    casts, __fdiv_rn, __umulhi, the global min/max overloads, hipDeviceGetAttribute,
    hipFuncSetAttribute); each verdict lists which of them its source calls. --no-compat leaves it
    out: such a kernel then does not build and is reported not runnable;
  * -DYieldProcessor(): HIP-CPU's idle processor thread polls with a pause loop, a whole core for as
    long as a runner lives; its own hook in pause_or_yield makes each poll a 20 us sleep.

Configs: a config is run as given when it is within the task's CPU bound (the product of its [space]
shape parameters <= space.cpu_max_elements, the bound drawn configs have on device cpu; the space's
constraints) and the budget (the task's [work] per call, runner/tasks/work.py: --max-bytes,
--max-flops); otherwise a copy scaled into them, named `<name>@cpu`: every shape parameter above 256
shrunk by one factor, the largest that fits, so the short side of a few-long-rows or many-short-rows
shape stays as it is and an m x n x k keeps its aspect; each shrunk value kept in its alignment
class (odd stays odd, a power of two stays one, 3000 = 8 x 375 stays 8 mod 16) and legal
(min, multiple_of). A lower threshold, or one parameter left unscaled (Hq % Hkv), only where nothing
else fits. (configspace._Drawer.fit, the draw's own shrinking, was not reused: it shrinks the largest
dimension alone to the bound, and turned GEMMs into GEMVs and scatter_add's n into 1.)

What a pass proves: the HIP source computes the reference's answer, within the task's tolerance and
under the judge's poison/two-run/outlier checks, when its threads run as HIP's execution model says
(blocks, __syncthreads, shared memory, atomics, 64-lane warps and their shuffles: warpSize is 64
here, as on AMD GPUs), on the configs run (scaled ones named as such). What it does not prove:
anything about time (the seconds printed are the check's wall time on a shared CPU); AMD-specific
behaviour (wavefront scheduling and real lockstep execution, LDS banks, cache and memory-ordering
effects); what hipcc/clang compiles differently from g++ (fast-math, FMA contraction, the fast
intrinsics' AMD precision, which the header replaces by exact functions); races or missing barriers
that the CPU's scheduling hides: a block's threads are fibers on one core that switch only at
barriers and shuffles, so a race within a block that a GPU would expose can pass, and blocks run on
at most as many cores as there are; and a kernel whose correctness needs more than this (lanes of a
warp in lockstep without a shuffle, a thread's stack beyond HIP-CPU's 7 KB fiber stacks, blocks
that wait on each other) may fail here for HIP-CPU's reasons. A kernel that uses what HIP-CPU lacks
(its build fails) is reported not runnable, never as a pass or a kernel failure.

    HIP_CPU_ROOT=/path/to/HIP-CPU .venv/bin/python bench/hip_cpu_check.py [--only hip2hip/softmax,...]
        [--json OUT.json] [--max-bytes B] [--max-flops F] [--no-compat] [--no-guard] [--gxx-flag F]
        [--control]   (--markdown-from OUT.json prints a record's tables)

--control also judges two broken copies of hip2hip/softmax's kernel (negative controls: a wrong
sum, and an output element left unwritten; each must fail). Exit status 1 if a runnable kernel
failed or errored, or a control passed.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import fcntl
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# per call, by the task's [work] (runner/tasks/work.py): a few seconds a config here (threads are fibers)
DEFAULT_MAX_BYTES = 8_000_000
DEFAULT_MAX_FLOPS = 250_000_000
POLL_SLEEP_US = 20


# ---- the source rewrite ---------------------------------------------------------------------------
def code_mask(src: str) -> str:
    """`src` with the insides of comments, string and character literals replaced by spaces (same
    length, newlines kept): what the rewrites search, so nothing in a comment is rewritten."""
    out = list(src)
    i, n = 0, len(src)
    while i < n:
        two = src[i:i + 2]
        if two == "//":
            j = src.find("\n", i)
            j = n if j < 0 else j
        elif two == "/*":
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif src[i] in "\"'":
            quote, j = src[i], i + 1
            while j < n and src[j] != quote and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            for k in range(i + 1, j - 1):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def _split_top(text: str) -> list[str]:
    """`text` split at the commas outside (), [] and {}."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _closing(mask: str, open_at: int) -> int:
    """The index of the parenthesis that closes the one at `open_at`."""
    depth = 0
    for i in range(open_at, len(mask)):
        if mask[i] == "(":
            depth += 1
        elif mask[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError(f"unbalanced parenthesis at offset {open_at}")


def _callee_start(mask: str, end: int) -> int:
    """Where the kernel expression that ends just before `end` (`name`, `ns::name`, `name<T, 4>`) starts."""
    i = end
    while i > 0 and mask[i - 1].isspace():
        i -= 1
    if i > 0 and mask[i - 1] == ">":           # template arguments
        depth = 0
        while i > 0:
            i -= 1
            if mask[i] == ">":
                depth += 1
            elif mask[i] == "<":
                depth -= 1
                if depth == 0:
                    break
        while i > 0 and mask[i - 1].isspace():
            i -= 1
    while i > 0 and (mask[i - 1].isalnum() or mask[i - 1] in "_:"):
        i -= 1
    return i


def rewrite_launches(src: str) -> tuple[str, int]:
    """Triple-chevron launches as GAUNTLET_HIPCPU_LAUNCH (GUARD_HEADER: hipLaunchKernelGGL through the
    guard); (source, how many)."""
    mask = code_mask(src)
    out, at, count = [], 0, 0
    while True:
        open_cfg = mask.find("<<<", at)
        if open_cfg < 0:
            break
        close_cfg = mask.find(">>>", open_cfg + 3)
        paren = close_cfg + 3
        while paren < len(mask) and mask[paren].isspace():
            paren += 1
        if close_cfg < 0 or paren >= len(mask) or mask[paren] != "(":
            raise ValueError(f"a launch at offset {open_cfg} has no (arguments) after its >>>")
        end = _closing(mask, paren)
        start = _callee_start(mask, open_cfg)
        callee = src[start:open_cfg].strip()
        cfg = [c.strip() for c in _split_top(src[open_cfg + 3:close_cfg])]
        if not 2 <= len(cfg) <= 4:
            raise ValueError(f"launch of {callee}: {len(cfg)} launch parameters")
        cfg += ["0"] * (4 - len(cfg))
        args = src[paren + 1:end]
        has_args = bool(mask[paren + 1:end].strip())
        # newlines of the config kept, so the source's line numbers stay the compiler's
        pad = "\n" * src[open_cfg:paren].count("\n")
        out.append(src[at:start])
        out.append(f"GAUNTLET_HIPCPU_LAUNCH{'' if has_args else '0'}(({callee}), dim3({cfg[0]}), dim3({cfg[1]}), "
                   f"{cfg[2]}, {cfg[3]}{', ' + args if has_args else ''}){pad}")
        at = end + 1
        count += 1
    out.append(src[at:])
    return "".join(out), count


_EXTERN_SHARED = re.compile(r"extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s+)?"
                            r"([A-Za-z_][\w:<>\s*]*?)\s*\b(\w+)\s*\[\s*\]\s*;")


def rewrite_dynamic_shared(src: str) -> tuple[str, int]:
    """`extern __shared__ T name[];` as HIP-CPU's HIP_DYNAMIC_SHARED(T, name); (source, how many)."""
    mask = code_mask(src)
    out, at, count = [], 0, 0
    for m in _EXTERN_SHARED.finditer(mask):
        out.append(src[at:m.start()])
        out.append(f"HIP_DYNAMIC_SHARED({src[m.start(1):m.end(1)].strip()}, {m.group(2)})")
        at = m.end()
        count += 1
    out.append(src[at:])
    return "".join(out), count


TASK_LAUNCH = "gauntlet_hipcpu_task_launch"


def wrap_launch(src: str, symbol: str = "launch") -> str:
    """The task's `extern "C" int launch(...)` renamed, and a `launch` of the same parameters that
    calls it and then waits for the device (hipDeviceSynchronize), as the judge does after a call on
    a GPU. Both spellings of the source are kept out of comments (code_mask)."""
    # in the mask the literal "C" reads as " ": found there, checked in the source
    pattern = re.compile(r'extern\s+"\s"\s+int\s+' + re.escape(symbol) + r'\s*\(')
    mask = code_mask(src)
    found = [m for m in pattern.finditer(mask) if '"C"' in src[m.start():m.end()]]
    if not found:
        raise ValueError(f'no `extern "C" int {symbol}(` definition found')
    if len(found) > 1:
        raise ValueError(f'more than one `extern "C" int {symbol}(`')
    m = found[0]
    paren = m.end() - 1
    end = _closing(mask, paren)
    params = [p.strip() for p in _split_top(mask[paren + 1:end]) if p.strip()]
    if params == ["void"]:
        params = []
    names = []
    for p in params:
        found = re.findall(r"[A-Za-z_]\w*", p)
        if not found:
            raise ValueError(f"cannot name the parameter {p!r} of {symbol}")
        names.append(found[-1])
    wrapper = (f'\nextern "C" int {symbol}({", ".join(params)}) {{\n'
               f"    const int rc = {TASK_LAUNCH}({', '.join(names)});\n"
               "    const hipError_t synced = hipDeviceSynchronize();   // the judge syncs after a call on a GPU\n"
               "    const int guard = ::gauntlet_hipcpu::check_after_launch();\n"
               "    return guard != 0 ? guard : rc != 0 ? rc : (synced != hipSuccess ? 1 : 0);\n"
               "}\n")
    renamed = src[:m.start()] + f"static int {TASK_LAUNCH}(" + src[m.end():]
    return renamed + wrapper


def rewrite(src: str, symbol: str = "launch") -> tuple[str, str]:
    """The source HIP-CPU compiles, and a line saying what was rewritten."""
    src, launches = rewrite_launches(src)
    src, shared = rewrite_dynamic_shared(src)
    src = wrap_launch(src, symbol)
    return src, (f"hip-cpu rewrite: {launches} launch(es) -> GAUNTLET_HIPCPU_LAUNCH, {shared} extern __shared__ -> "
                 f"HIP_DYNAMIC_SHARED, {symbol}() wrapped with hipDeviceSynchronize()")


# ---- running a block's threads as HIP says ---------------------------------------------------------------
# HIP-CPU runs a block's threads as fibers on one core, and its barrier (__syncthreads, and each
# warp shuffle, which it implements as a barrier of the whole block) is "yield to the next fiber":
# right only while every live thread passes the same sequence of barriers. Measured on e112c93 with
# two small kernels (a warp returning early before two __syncthreads; a block reduction whose last
# step shuffles in warp 0 only, then __syncthreads):
#   * a thread that returned is run again from its start each time the others pass a barrier: its
#     side effects repeat (an atomicAdd before the return counted 3x);
#   * threads that reach different barriers fall out of step: the shuffles of warp 0 release the
#     other warps' __syncthreads, and fibers left half-way resume in later blocks and launches
#     (without the guard five solutions failed, two of them corrupting the heap:
#     results/hip-cpu-2026-11-29.md, which also has the test kernels).
# GUARD_HEADER (always force-included; the rewrite launches every kernel through
# GAUNTLET_HIPCPU_LAUNCH) keeps HIP-CPU's fibers and replaces those semantics by HIP's:
#   * each thread of a block runs once; one that returned counts as arrived at every later barrier
#     (as an exited GPU thread does);
#   * __syncthreads is a counting barrier of the block's live threads (as AMD's s_barrier: it does
#     not know which __syncthreads each thread is at);
#   * a shuffle exchanges values among the lanes of its width-segment only (of 64-lane warps,
#     HIP-CPU's warpSize and AMD's), each waiting until every lane of the segment has arrived at it,
#     returned, or waits at a __syncthreads; out-of-segment sources return the caller's own value;
#   * a block ends only when all its threads have returned.
# Waiting is yielding to the next fiber. A wait that lasts 2^22 turns (a deadlock) marks the launch,
# and the task's launch (after its hipDeviceSynchronize) returns OUT_OF_STEP: the judge fails that
# call, and this tool reports the config "out of step on HIP-CPU", never as the kernel's failure or
# pass. Not replaced: __ballot, __any, __all (HIP-CPU's own, barriers of the whole block; no task
# uses them).
OUT_OF_STEP = 86
GUARD_HEADER = r"""// Generated by bench/hip_cpu_check.py: HIP's barrier, shuffle and exit semantics on HIP-CPU's fibers.
#pragma once
#include <hip/hip_runtime.h>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace gauntlet_hipcpu {
enum : unsigned char { NOT_STARTED, RUNNING, AT_BARRIER, AT_SHUFFLE, EXITED };
constexpr std::uint32_t MAX_THREADS = 1024, SLOT_BYTES = 16, WAIT_LIMIT = 1u << 22;
struct Block {                                  // the block this OS thread runs now (one at a time)
    std::uint32_t threads = 0, done = 0;        // threads of the block, threads returned
    bool barriers = false;                      // a barrier or shuffle ran in this block
    std::uint32_t bar_arrived = 0, bar_gen = 0;
    unsigned char state[MAX_THREADS];
    std::uint32_t waits_in[MAX_THREADS];        // the barrier generation a thread AT_BARRIER waits in
    std::uint32_t shuffles[MAX_THREADS];        // shuffles each thread has arrived at
    std::uint32_t seg_done[MAX_THREADS];        // per segment start: its lanes all arrived at shuffles < this
    std::uint32_t seg_width[MAX_THREADS];       // ... for segments of this width
    unsigned char slot[2][MAX_THREADS][SLOT_BYTES];
};
inline thread_local Block block;
inline std::atomic<int> out_of_step{0};         // why: -1 a wait that never ended
inline std::atomic<unsigned long long> reruns{0};

inline std::uint32_t thread_id() noexcept { return hip::detail::Fiber::this_fiber().id(); }
inline bool on_main_fiber() noexcept {          // the OS thread's own fiber: the one that ends a block
    return hip::detail::Fiber::this_fiber().native_handle() == hip::detail::Fiber::main().native_handle();
}
inline void mark(int why) noexcept { int zero = 0; out_of_step.compare_exchange_strong(zero, why); }
inline void turn() noexcept { hip::detail::Tile::this_tile().barrier(); }   // to the next fiber
inline void wait_all() noexcept {               // the block ends when every thread has returned
    Block& block = gauntlet_hipcpu::block;      // one TLS lookup (the fiber stays on this OS thread)
    if (!block.barriers) return;                // no barrier: HIP-CPU runs the threads one by one
    for (std::uint32_t n = 0; block.done < block.threads; ++n) {
        if (n > WAIT_LIMIT) { mark(-1); return; }
        turn();
    }
}
inline void release_if_all_arrived() noexcept {
    Block& block = gauntlet_hipcpu::block;
    if (block.bar_arrived > 0 && block.bar_arrived >= block.threads - block.done) {
        block.bar_arrived = 0;
        ++block.bar_gen;
    }
}
inline bool enter() noexcept {                  // false: this thread has run in this block already
    Block& block = gauntlet_hipcpu::block;
    const std::uint32_t t = thread_id();
    if (t == 0 && on_main_fiber()) {            // thread 0 starts every block, on the main fiber
        block.threads = std::min<std::uint32_t>(blockDim.x * blockDim.y * blockDim.z, MAX_THREADS);
        block.done = block.bar_arrived = block.bar_gen = 0;
        block.barriers = false;
        std::fill(block.state, block.state + block.threads, NOT_STARTED);
        std::fill(block.shuffles, block.shuffles + block.threads, 0u);
        std::fill(block.seg_done, block.seg_done + block.threads, 0u);
    }
    if (t >= block.threads || block.state[t] != NOT_STARTED) {
        reruns.fetch_add(1, std::memory_order_relaxed);
        if (on_main_fiber()) wait_all();
        return false;
    }
    block.state[t] = RUNNING;
    return true;
}
inline void leave() noexcept {
    Block& block = gauntlet_hipcpu::block;
    block.state[thread_id()] = EXITED;
    ++block.done;
    release_if_all_arrived();
    if (on_main_fiber()) wait_all();
}
inline void syncthreads() noexcept {
    Block& block = gauntlet_hipcpu::block;
    const std::uint32_t t = thread_id();
    block.barriers = true;
    block.state[t] = AT_BARRIER;
    const std::uint32_t gen = block.bar_gen;
    block.waits_in[t] = gen;
    ++block.bar_arrived;
    release_if_all_arrived();
    for (std::uint32_t n = 0; block.bar_gen == gen; ++n) {
        if (n > WAIT_LIMIT) { mark(-1); break; }
        turn();
    }
    block.state[t] = RUNNING;
}
// src_of(lane in segment, own lane in segment, width) -> the source lane in the segment, or -1: own value
template <typename T, typename F> inline T exchange(T v, std::int32_t width, F src_of) noexcept {
    static_assert(sizeof(T) <= SLOT_BYTES, "shuffle of a type wider than 16 bytes");
    Block& block = gauntlet_hipcpu::block;
    const std::uint32_t t = thread_id();
    const std::uint32_t w = (width > 0 && width <= warpSize) ? (std::uint32_t)width : (std::uint32_t)warpSize;
    const std::uint32_t seg = t / w * w, end = std::min(seg + w, block.threads);
    block.barriers = true;
    const std::uint32_t g = block.shuffles[t];
    std::memcpy(block.slot[g & 1][t], &v, sizeof(T));
    block.shuffles[t] = g + 1;
    block.state[t] = AT_SHUFFLE;
    for (std::uint32_t n = 0;; ++n) {           // every lane of the segment here, past it, returned, or
        bool ready = block.seg_width[seg] == w && block.seg_done[seg] > g;   // waiting at a barrier
        for (std::uint32_t l = seg; l < end && !ready; ++l) {                 // (not one released)
            if (!(l == t || block.state[l] == EXITED || block.shuffles[l] > g ||
                  (block.state[l] == AT_BARRIER && block.waits_in[l] == block.bar_gen)))
                break;
            if (l + 1 == end) {                 // the whole segment: the others here need not look again
                ready = true;
                block.seg_done[seg] = g + 1;
                block.seg_width[seg] = w;
            }
        }
        if (ready) break;
        if (n > WAIT_LIMIT) { mark(-1); break; }
        turn();
    }
    block.state[t] = RUNNING;
    const std::int32_t src = src_of((std::int32_t)(t - seg), (std::int32_t)w);
    if (src < 0 || src >= (std::int32_t)w || seg + (std::uint32_t)src >= end) return v;
    T r;
    std::memcpy(&r, block.slot[g & 1][seg + (std::uint32_t)src], sizeof(T));
    return r;
}
inline int check_after_launch() noexcept {      // the task's launch calls it after synchronising
    const int why = out_of_step.exchange(0);
    if (why == 0) return 0;
    std::fprintf(stderr, "hip-cpu guard: a barrier or shuffle wait never ended (%d)\n", why);
    return OUT_OF_STEP_CODE;
}
}  // namespace gauntlet_hipcpu

template <typename T> inline T gauntlet_hipcpu_shfl(T v, std::int32_t src, std::int32_t w = warpSize) noexcept {
    return ::gauntlet_hipcpu::exchange(v, w, [src](std::int32_t, std::int32_t width) { return ((src % width) + width) % width; });
}
template <typename T> inline T gauntlet_hipcpu_shfl_xor(T v, std::int32_t m, std::int32_t w = warpSize) noexcept {
    return ::gauntlet_hipcpu::exchange(v, w, [m](std::int32_t lane, std::int32_t) { return lane ^ m; });
}
template <typename T> inline T gauntlet_hipcpu_shfl_up(T v, std::uint32_t d, std::int32_t w = warpSize) noexcept {
    return ::gauntlet_hipcpu::exchange(v, w, [d](std::int32_t lane, std::int32_t) { return lane - (std::int32_t)d; });
}
template <typename T> inline T gauntlet_hipcpu_shfl_down(T v, std::uint32_t d, std::int32_t w = warpSize) noexcept {
    return ::gauntlet_hipcpu::exchange(v, w, [d](std::int32_t lane, std::int32_t) { return lane + (std::int32_t)d; });
}
#define __syncthreads() ::gauntlet_hipcpu::syncthreads()
#define __shfl gauntlet_hipcpu_shfl
#define __shfl_xor gauntlet_hipcpu_shfl_xor
#define __shfl_up gauntlet_hipcpu_shfl_up
#define __shfl_down gauntlet_hipcpu_shfl_down

// every launch of the rewritten source: each thread once; a block ends when all its threads have
#define GAUNTLET_HIPCPU_LAUNCH(K, G, B, S, ST, ...) \
    hipLaunchKernelGGL(([=](auto&&... gauntlet_a) { \
        if (::gauntlet_hipcpu::enter()) { K(static_cast<decltype(gauntlet_a)&&>(gauntlet_a)...); ::gauntlet_hipcpu::leave(); } \
    }), G, B, S, ST, __VA_ARGS__)
#define GAUNTLET_HIPCPU_LAUNCH0(K, G, B, S, ST) \
    hipLaunchKernelGGL(([=]() { \
        if (::gauntlet_hipcpu::enter()) { K(); ::gauntlet_hipcpu::leave(); } \
    }), G, B, S, ST)
""".replace("OUT_OF_STEP_CODE", str(OUT_OF_STEP))
# --no-guard: HIP-CPU's own semantics, for comparison (the same rewrite, no guard)
UNGUARDED_HEADER = r"""// Generated by bench/hip_cpu_check.py --no-guard: HIP-CPU's own barrier and shuffle semantics.
#pragma once
#include <hip/hip_runtime.h>
namespace gauntlet_hipcpu { inline int check_after_launch() noexcept { return 0; } }
#define GAUNTLET_HIPCPU_LAUNCH(K, G, B, S, ST, ...) hipLaunchKernelGGL(K, G, B, S, ST, __VA_ARGS__)
#define GAUNTLET_HIPCPU_LAUNCH0(K, G, B, S, ST) hipLaunchKernelGGL(K, G, B, S, ST)
"""


# ---- what HIP declares and HIP-CPU does not -----------------------------------------------------------
# Each as HIP (ROCm's headers) defines it, on the host: bit casts and integer helpers exactly; the
# fast float intrinsics (__expf, ...) as the correctly rounded functions, as AMD's are not (a kernel's
# error against the reference can only be smaller here); hipDeviceGetAttribute from HIP-CPU's own
# device properties. Force-included after hip/hip_runtime.h; --no-compat leaves it out (a kernel
# that needs it then fails to build and is reported not runnable).
COMPAT_HEADER = r"""// Generated by bench/hip_cpu_check.py: HIP API that HIP-CPU does not declare.
#pragma once
#include <hip/hip_runtime.h>
#include <cmath>
#include <cstdint>
#include <cstring>

#define __align__(n) __attribute__((aligned(n)))

inline float rsqrtf(float x) noexcept { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) noexcept { return 1.0 / std::sqrt(x); }
inline float __fdiv_rn(float a, float b) noexcept { return a / b; }
inline float __fadd_rn(float a, float b) noexcept { return a + b; }
inline float __fmul_rn(float a, float b) noexcept { return a * b; }
inline float __frcp_rn(float x) noexcept { return 1.0f / x; }
inline float __fsqrt_rn(float x) noexcept { return std::sqrt(x); }
inline float __saturatef(float x) noexcept { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float __fdividef(float a, float b) noexcept { return a / b; }
// glibc declares some of these names itself: macros onto functions of our own
inline float gauntlet_hipcpu_expf(float x) noexcept { return std::exp(x); }
inline float gauntlet_hipcpu_exp10f(float x) noexcept { return std::pow(10.0f, x); }
inline float gauntlet_hipcpu_logf(float x) noexcept { return std::log(x); }
inline float gauntlet_hipcpu_log2f(float x) noexcept { return std::log2(x); }
inline float gauntlet_hipcpu_log10f(float x) noexcept { return std::log10(x); }
inline float gauntlet_hipcpu_sinf(float x) noexcept { return std::sin(x); }
inline float gauntlet_hipcpu_cosf(float x) noexcept { return std::cos(x); }
inline float gauntlet_hipcpu_tanf(float x) noexcept { return std::tan(x); }
#define __expf gauntlet_hipcpu_expf
#define __exp10f gauntlet_hipcpu_exp10f
#define __logf gauntlet_hipcpu_logf
#define __log2f gauntlet_hipcpu_log2f
#define __log10f gauntlet_hipcpu_log10f
#define __sinf gauntlet_hipcpu_sinf
#define __cosf gauntlet_hipcpu_cosf
#define __tanf gauntlet_hipcpu_tanf

inline unsigned int __float_as_uint(float x) noexcept { unsigned int r; std::memcpy(&r, &x, 4); return r; }
inline float __uint_as_float(unsigned int x) noexcept { float r; std::memcpy(&r, &x, 4); return r; }
inline int __float_as_int(float x) noexcept { int r; std::memcpy(&r, &x, 4); return r; }
inline float __int_as_float(int x) noexcept { float r; std::memcpy(&r, &x, 4); return r; }
inline long long __double_as_longlong(double x) noexcept { long long r; std::memcpy(&r, &x, 8); return r; }
inline double __longlong_as_double(long long x) noexcept { double r; std::memcpy(&r, &x, 8); return r; }
inline unsigned int __umulhi(unsigned int a, unsigned int b) noexcept {
    return (unsigned int)(((unsigned long long)a * b) >> 32);
}
inline int __mulhi(int a, int b) noexcept { return (int)(((long long)a * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) noexcept {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}

#define GAUNTLET_HIPCPU_MINMAX(T) \
    inline T min(T a, T b) noexcept { return b < a ? b : a; } \
    inline T max(T a, T b) noexcept { return a < b ? b : a; }
GAUNTLET_HIPCPU_MINMAX(int)
GAUNTLET_HIPCPU_MINMAX(unsigned int)
GAUNTLET_HIPCPU_MINMAX(long)
GAUNTLET_HIPCPU_MINMAX(unsigned long)
GAUNTLET_HIPCPU_MINMAX(long long)
GAUNTLET_HIPCPU_MINMAX(unsigned long long)
#undef GAUNTLET_HIPCPU_MINMAX
inline float min(float a, float b) noexcept { return std::fmin(a, b); }
inline float max(float a, float b) noexcept { return std::fmax(a, b); }
inline double min(double a, double b) noexcept { return std::fmin(a, b); }
inline double max(double a, double b) noexcept { return std::fmax(a, b); }

enum hipDeviceAttribute_t {
    hipDeviceAttributeMaxThreadsPerBlock = 56,
    hipDeviceAttributeMultiprocessorCount = 63,
    hipDeviceAttributeWarpSize = 87,
};
inline hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attr, int device) {
    hipDeviceProp_t p;
    const hipError_t e = hipGetDeviceProperties(&p, device);
    if (e != hipSuccess) return e;
    switch (attr) {
    case hipDeviceAttributeMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; return hipSuccess;
    case hipDeviceAttributeMultiprocessorCount: *value = p.multiProcessorCount; return hipSuccess;
    case hipDeviceAttributeWarpSize: *value = p.warpSize; return hipSuccess;
    }
    return hipErrorInvalidValue;
}
// HIP-CPU's dynamic shared memory is a vector sized at each launch: no limit to raise
enum hipFuncAttribute {
    hipFuncAttributeMaxDynamicSharedMemorySize = 8,
    hipFuncAttributePreferredSharedMemoryCarveout = 9,
};
inline hipError_t hipFuncSetAttribute(const void*, hipFuncAttribute, int) { return hipSuccess; }
"""
COMPAT_NAMES = ("__align__", "rsqrtf", "rsqrt", "__fdiv_rn", "__fadd_rn", "__fmul_rn", "__frcp_rn", "__fsqrt_rn",
                "__saturatef", "__fdividef", "__expf", "__exp10f", "__logf", "__log2f", "__log10f", "__sinf",
                "__cosf", "__tanf", "__float_as_uint", "__uint_as_float", "__float_as_int", "__int_as_float",
                "__double_as_longlong", "__longlong_as_double", "__umulhi", "__mulhi", "__umul64hi", "min", "max",
                "hipDeviceGetAttribute", "hipFuncSetAttribute")


def compat_used(src: str) -> list[str]:
    """The names of the compat header a source calls (min/max unqualified: not std::min, not x.max)."""
    mask = code_mask(src)
    return [n for n in COMPAT_NAMES if re.search(r"(?<![\w:.>])" + re.escape(n) + r"\s*\(", mask)]


# ---- the compiler: hipcc's command line, compiled by g++ against HIP-CPU ---------------------------------
def gxx_version() -> str:
    try:
        return subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        return "g++ not found"


def as_hipcc(hip_cpu: Path, commit: str, compat: bool, argv: list[str], guard: bool = True,
             gxx_flags: tuple[str, ...] = ()) -> int:
    """Compile the command build.compile_command("hip", ...) gives hipcc (GAUNTLET_HIPCC): the source
    rewritten (rewrite) beside the output, then g++ against HIP-CPU. Only the task's own -D/-I/-U flags
    are kept; hipcc's -O3/--offload-arch are hipcc's. One build at a time (a lock in the toolchain)."""
    if argv == ["--version"]:
        print(f"HIP version: HIP-CPU-{commit} ({gxx_version()})")
        return 0
    if "-x" in argv:
        print("hip-cpu hipcc: a torch extension's build (-x hip) is not supported", file=sys.stderr)
        return 2
    out, sources, keep = None, [], []
    it = iter(argv)
    for arg in it:
        if arg == "-o":
            out = Path(next(it))
        elif arg.endswith((".hip", ".cu", ".cpp", ".cc")) and not arg.startswith("-"):
            sources.append(Path(arg))
        elif arg.startswith(("-D", "-U", "-I")):
            keep.append(arg)
    if out is None or len(sources) != 1:
        print(f"hip-cpu hipcc: expected one source and -o OUT, got {argv}", file=sys.stderr)
        return 2
    source = sources[0]
    try:
        text, said = rewrite(source.read_text())
    except (OSError, ValueError) as exc:
        print(f"hip-cpu rewrite failed: {exc}", file=sys.stderr)
        return 1
    rewritten = out.parent / f"{source.stem}.hipcpu.cpp"
    rewritten.write_text(f'#line 1 "{source.name}"\n' + text)
    toolchain = Path(__file__).resolve().parent.parent
    header = "gauntlet_hip_cpu_guard.h" if guard else "gauntlet_hip_cpu_unguarded.h"
    include = ["-include", "hip/hip_runtime.h", "-include", str(toolchain / "compat" / header)]
    if compat:
        include += ["-include", str(toolchain / "compat" / "gauntlet_hip_cpu_compat.h")]
    cmd = ["g++", "-std=c++17", "-O2", "-fPIC", "-shared", f"-I{hip_cpu / 'include'}",
           f"-DYieldProcessor()=std::this_thread::sleep_for(std::chrono::microseconds({POLL_SLEEP_US}))",
           *include, *gxx_flags, *keep, str(rewritten), "-o", str(out), "-Wl,--no-undefined",
           "-ltbb", "-lpthread"]
    print(said)
    if compat:
        print(f"hip-cpu compat header: {', '.join(compat_used(source.read_text())) or 'nothing of it named'}")
    print(" ".join(shlex.quote(c) for c in cmd), flush=True)
    with open(Path(__file__).resolve().parent / "build.lock") as lock:   # read-only is enough for flock
        fcntl.flock(lock, fcntl.LOCK_EX)
        proc = subprocess.run(cmd)
    return proc.returncode


def make_toolchain(hip_cpu: Path, commit: str, compat: bool = True, guard: bool = True,
                   gxx_flags: tuple[str, ...] = ()) -> Path:
    """A folder the kernel runners' sandbox can read (isolation.py makes GAUNTLET_HIPCC's grandparent
    readable): bin/hipcc (a wrapper around this file's --as-hipcc), a copy of this file, and a copy of
    HIP-CPU's include/, src/ and external/ (the runner cannot read the checkout itself)."""
    root = Path(tempfile.mkdtemp(prefix="gauntlet-hipcpu-"))
    bin_dir = root / "bin"
    bin_dir.mkdir()
    shutil.copy2(__file__, bin_dir / "hip_cpu_check.py")
    (bin_dir / "build.lock").touch()
    (bin_dir / "build.lock").chmod(0o644)
    for part in ("include", "src", "external"):
        if (hip_cpu / part).is_dir():
            shutil.copytree(hip_cpu / part, root / "hip-cpu" / part)
    (root / "compat").mkdir()
    (root / "compat" / "gauntlet_hip_cpu_compat.h").write_text(COMPAT_HEADER)
    (root / "compat" / "gauntlet_hip_cpu_guard.h").write_text(GUARD_HEADER)
    (root / "compat" / "gauntlet_hip_cpu_unguarded.h").write_text(UNGUARDED_HEADER)
    wrapper = bin_dir / "hipcc"
    wrapper.write_text("#!/bin/sh\n"
                       f"exec {shlex.quote(sys.executable)} -I {shlex.quote(str(bin_dir / 'hip_cpu_check.py'))} "
                       f"--as-hipcc {shlex.quote(str(root / 'hip-cpu'))} --hip-cpu-commit {shlex.quote(commit)} "
                       f"--compat {int(compat)} --guard {int(guard)} "
                       + "".join(f"--gxx-flag={shlex.quote(f)} " for f in gxx_flags) + "-- \"$@\"\n")
    wrapper.chmod(0o755)
    for path in [root, *root.rglob("*")]:     # the runners run as another uid
        path.chmod(path.stat().st_mode | 0o044 | (0o011 if path.is_dir() else 0))
    return root


# ---- configs ---------------------------------------------------------------------------------------
PROTECT = 256          # shape parameters up to this are kept as they are (the short side of a shape)


def _same_class(v: int, target: float, dim, floor: int) -> int:
    """A legal value in v's alignment class, the largest <= target (never above v, nor below `floor`
    where v is above it): a power of two stays one; otherwise the same power of two (up to 128)
    divides it and the next does not (odd stays odd; 3000 = 8 * 375 stays 8 mod 16); a multiple of
    dim.multiple_of. v itself where nothing fits."""
    lo = max(dim.legal()[0], min(v, floor))
    m = dim.multiple_of
    t = int(min(v, max(lo, target)))
    if v & (v - 1) == 0:                       # powers of two, downwards, then upwards
        ladder = [1 << e for e in range(v.bit_length())]
        fits = [x for x in ladder if x % m == 0 and lo <= x]
        down = [x for x in fits if x <= t]
        return down[-1] if down else (fits[0] if fits else v)
    a = min((v & -v).bit_length() - 1, 7)
    step = 1 << (a + 1) if a < 7 else 128
    base = (1 << a) if a < 7 else 0            # the class: x % step == base
    x = (t - base) // step * step + base
    for candidates in (range(x, lo - 1, -step), range(x + step, v + 1, step)):
        # among m members of the class one is a multiple of m, if any is
        found = next((y for y in candidates[:m] if y % m == 0), None)
        if found is not None:
            return found
    return v


def _scaled(config, space, fits):
    """A smaller copy of `config` that fits: the shape parameters above a threshold shrunk by one
    factor, the largest factor that fits (the short sides, up to the threshold, kept; a lower
    threshold, or some parameter left as it is, only where nothing fits otherwise); None if none does."""
    from itertools import combinations
    for protect in (PROTECT, 64, 16, 1):
        big = [n for n in space.shape if int(config.params[n]) > protect]
        for kept in range(len(big)):              # parameters left as they are (a constraint: Hq % Hkv)
            for keep in combinations(big, kept):
                shrink = [n for n in big if n not in keep]
                for k in range(1, 700):
                    f = 0.97 ** k
                    params = {**config.params,
                              **{n: _same_class(int(config.params[n]), config.params[n] * f, space.shape[n], protect)
                                 for n in shrink}}
                    if fits(params):
                        return params
    return None


def cpu_configs(task, max_bytes: float, max_flops: float):
    """[(config as given, config run)] for every seen and hidden config (module docstring, Configs)."""
    import math
    from runner.tasks.task import Config
    from runner.tasks.work import evaluate
    space, work = task.space, task.work

    def fits(params: dict) -> bool:
        if space is not None:
            if math.prod(int(params[n]) for n in space.shape) > space.bound("cpu") or space.violated(params):
                return False
        if work is not None:
            return evaluate(work.bytes, params) <= max_bytes and evaluate(work.flops, params) <= max_flops
        return True

    out = []
    for config in (*task.configs("seen"), *task.configs("unseen")):
        scaled = None if fits(config.params) or space is None else _scaled(config, space, fits)
        if scaled is None:        # within the budget, or nothing smaller fits: as given
            out.append((config, config))
        else:
            out.append((config, Config(name=f"{config.name}@cpu", split=config.split, params=scaled)))
    return out


# ---- judging one kernel ----------------------------------------------------------------------------
NOT_RUNNABLE = [   # (pattern in g++'s log, what HIP-CPU lacks)
    (r"__hip_bfloat16|hip_bf16\.h|bfloat16", "bfloat16 types/intrinsics (hip_bf16.h)"),
    (r"__half2?\b.*(not declared|no match|has no member|undefined)|hip_fp16|__h(add|mul|sub|fma|2float|alf2)|"
     r"__float2half|__half2float|half2", "__half/__half2 intrinsics"),
    (r"fp8|__hip_fp8", "fp8 types"),
    (r"__shfl\w*_sync|__syncwarp|__ballot|__activemask", "warp-level sync intrinsics"),
    (r"\basm\b|__asm__", "inline asm"),
    (r"hipcub|rocprim", "hipcub/rocprim"),
    (r"undefined reference", "a symbol HIP-CPU does not define"),
]


def not_runnable_reason(log: str) -> str:
    """What HIP-CPU lacks, read from a failed build's log: the first g++ error, classified."""
    missing = sorted(set(re.findall(r"undefined reference to `([^']+)'", log)))
    if missing:
        return f"HIP-CPU does not define {', '.join(missing[:6])}"
    errors = [line for line in log.splitlines() if "error" in line.lower()]
    lines = log.strip().splitlines()
    first = errors[0].strip() if errors else lines[-1] if lines else "no compiler output"
    for pattern, what in NOT_RUNNABLE:
        if any(re.search(pattern, line) for line in errors):
            return f"{what} ({first[:200]})"
    return f"build failed under HIP-CPU ({first[:200]})"


def judge_kernel(task, candidate_dir: Path | None, configs, work: Path) -> dict:
    """The judge's verdict on one kernel (candidate_dir None: the task's shipped editable files) against
    the task's reference, on `configs` [(as given, run)], correctness only, on the CPU."""
    from unittest import mock

    from runner.evaluator.judge import evaluation as judge_eval
    from runner.tasks.configspace import to_toml
    work.mkdir(parents=True, exist_ok=True)
    seen = [run for given, run in configs if given.split == "seen"]
    hidden = [run for given, run in configs if given.split == "unseen"]
    (work / "seen.toml").write_text(to_toml(seen))
    (work / "hidden.toml").write_text(to_toml(hidden))
    # the shipped kernel (or the solution) as a candidate, the PyTorch reference as the baseline
    view = dataclasses.replace(task, category="torch2hip", seen_file=work / "seen.toml",
                               hidden_file=work / "hidden.toml" if hidden else None)
    seconds: dict[str, float] = {}

    # each config's seconds: the judge's own config_result, timed (its phases have no per-config figure)
    class TimedJudge(judge_eval.Judge):
        def config_result(self, baseline, candidate, config, measure):
            started = time.perf_counter()
            try:
                return super().config_result(baseline, candidate, config, measure)
            finally:
                seconds[config.name] = time.perf_counter() - started

    with mock.patch.object(judge_eval, "Judge", TimedJudge):
        result = judge_eval.evaluate(view, candidate_dir, "cpu", splits=("seen", "unseen") if hidden else ("seen",),
                                     measure=False, language="hip")
    given = {run.name: g for g, run in configs}
    rows = []
    for row in result.configs:
        g = given.get(row.config)
        rows.append({"config": g.name if g else row.config, "split": row.split, "run_as": row.config,
                     "params": row.params, "scaled": bool(g and g.name != row.config),
                     "correct": row.correct, "max_abs_err": row.max_abs_err, "error": row.error,
                     "out_of_step": f"launch returned {OUT_OF_STEP}" in (row.error or ""),
                     "seconds": round(seconds.get(row.config, 0.0), 2)})
    log = result.compile_log or ""
    # a build's own lines (what was rewritten, the compat names); the compiler's tail where it failed
    said = [line for line in log.splitlines() if line.startswith("hip-cpu")]
    verdict = {"compiled": result.compiled, "error": result.error, "task_error": result.task_error,
               "flags": result.flags, "notes": result.notes, "configs": rows,
               "build": "\n".join(said) if result.compiled else log[-3000:]}
    if not result.compiled and not result.error:
        verdict["status"] = "not runnable"
        verdict["reason"] = not_runnable_reason(log)
    elif result.error or not rows:
        verdict["status"] = "error"
        verdict["reason"] = result.error or "no config was judged"
    elif any(not r["correct"] and not r["out_of_step"] for r in rows):
        verdict["status"] = "fail"
    elif any(r["out_of_step"] for r in rows):      # no failure, but some configs not evidence
        verdict["status"] = "out of step"
        verdict["reason"] = (f"{sum(r['out_of_step'] for r in rows)} of {len(rows)} configs out of step on "
                             "HIP-CPU (a barrier or shuffle wait never ended); the others passed")
    else:
        verdict["status"] = "pass"
    return verdict


def tolerance_text(task) -> str:
    return ", ".join(f"{k} atol={t.atol:g} rtol={t.rtol:g}" for k, t in sorted(task.tolerances.items())) or "defaults"


def source_key(task, path: Path) -> str:
    """What makes two verdicts the same: the kernel's bytes, the reference, configs and tolerance."""
    h = hashlib.sha256(path.read_bytes())
    for f in (task.reference, task.seen_file, task.hidden_file):
        h.update(f.read_bytes() if f else b"")
    h.update(repr(sorted(task.tolerances.items())).encode())
    return h.hexdigest()


def print_verdict(label: str, verdict: dict) -> None:
    built = "built" if verdict.get("compiled") else "not built"
    print(f"  {label} [{built}]: {verdict['status'].upper()}"
          + (f" -- {verdict['reason']}" if verdict.get("reason") else "")
          + (f" (same file and task data as {verdict['same_as']})" if verdict.get("same_as") else ""), flush=True)
    if verdict.get("same_as") or verdict["status"] == "not runnable":
        return
    for r in verdict["configs"]:
        err = "-" if r["max_abs_err"] is None else f"{r['max_abs_err']:.3g}"
        run = f" as {r['params']}" if r["scaled"] else ""
        mark = "ok  " if r["correct"] else "STEP" if r["out_of_step"] else "FAIL"
        print(f"    {mark} {r['split']:6} {r['config']}{run}: max abs err {err}, "
              f"{r['seconds']:.1f} s" + (f" -- {r['error']}" if r["error"] else ""), flush=True)


# ---- the negative controls ------------------------------------------------------------------------------
CONTROL_TASK = "hip2hip/softmax"
CONTROLS = (   # (what is broken, a line of the shipped kernel, the line broken)
    # the short-row path's sum short by its last element: wrong values on every row of <= 1024 columns
    ("wrong sum", "for (int64_t j = lane; j < cols; j += 32) s += expf(xr[j] - m);",
     "for (int64_t j = lane; j < cols - 1; j += 32) s += expf(xr[j] - m);"),
    # the long-row path leaves each row's last output unwritten: the harness's poison must show
    ("unwritten output", "for (int64_t j = threadIdx.x; j < cols; j += BLOCK) yr[j] = expf(xr[j] - m) * inv;",
     "for (int64_t j = threadIdx.x; j < cols - 1; j += BLOCK) yr[j] = expf(xr[j] - m) * inv;"),
)


def controls(task, configs, work: Path) -> list[dict]:
    """The judge's verdict on each broken copy of the task's shipped kernel: each must fail."""
    src = task.files[task.entry].read_text()
    out = []
    for i, (what, line, broken_line) in enumerate(CONTROLS):
        if src.count(line) != 1:
            out.append({"control": what, "status": "error", "caught": False,
                        "reason": f"the control's line is not once in {task.id}'s {task.entry}"})
            continue
        broken = work / f"broken-{i}"
        broken.mkdir(parents=True, exist_ok=True)
        (broken / task.entry).write_text(src.replace(line, broken_line))
        verdict = judge_kernel(task, broken, configs, work / f"judge-{i}")
        verdict.update({"control": what, "break": f"{line!r} -> {broken_line!r}",
                        "caught": verdict["status"] == "fail"})
        out.append(verdict)
    return out


# ---- the record as markdown -------------------------------------------------------------------------------
def _cell(verdict: dict | None) -> str:
    if verdict is None:
        return "-"
    status = verdict["status"]
    if verdict.get("same_as"):
        return f"{status} (= {verdict['same_as'].split()[0]})"
    errs = [r["max_abs_err"] for r in verdict["configs"] if r["max_abs_err"] is not None]
    bad = [r for r in verdict["configs"] if not r["correct"]]
    text = status
    if status == "pass" and errs:
        text += f", max err {max(errs):.2g}"
    elif status in ("fail", "out of step"):
        text += f" on {len(bad)}/{len(verdict['configs'])}"
    elif status in ("not runnable", "error"):
        text += f": {verdict.get('reason', '')[:90]}"
    if verdict.get("compat_used"):
        text += f" [compat: {', '.join(verdict['compat_used'])}]"
    return text


def markdown(record: dict) -> str:
    """The per-task table and the scaled configs of a --json record."""
    lines = ["| task | baseline (shipped kernel) | solution | configs run (scaled) |", "|---|---|---|---|"]
    for task_id, entry in sorted(record["tasks"].items()):
        scaled = sum(c["scaled"] for c in entry["configs"])
        lines.append(f"| {task_id} | {_cell(entry.get('baseline')) if task_id.startswith('hip2hip') else 'stub (not run)'} "
                     f"| {_cell(entry.get('solution'))} | {len(entry['configs'])} ({scaled}) |")
    lines += ["", "Scaled configs (each kernel family's torch2hip and hip2hip tasks share them):", "",
              "| kernel | config as given | run as |", "|---|---|---|"]
    seen = set()
    for task_id, entry in sorted(record["tasks"].items(), key=lambda kv: kv[0].split("/")[1]):
        kernel = task_id.split("/")[1]
        for c in entry["configs"]:
            key = (kernel, c["name"], repr(c["run_as"]))
            if c["scaled"] and key not in seen:
                seen.add(key)
                changed = ", ".join(f"{k} {v}" for k, v in c["run_as"].items() if c["params"].get(k) != v)
                lines.append(f"| {kernel} | {c['name']} | {changed} |")
    return "\n".join(lines) + "\n"


# ---- main --------------------------------------------------------------------------------------------
def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--as-hipcc"]:          # the compiler wrapper (make_toolchain): stdlib only
        split = argv.index("--")
        ap = argparse.ArgumentParser(prog="hipcc (bench/hip_cpu_check.py --as-hipcc)")
        ap.add_argument("--as-hipcc", type=Path, required=True)
        ap.add_argument("--hip-cpu-commit", default="unknown")
        ap.add_argument("--compat", type=int, default=1)
        ap.add_argument("--guard", type=int, default=1)
        ap.add_argument("--gxx-flag", action="append", default=[])
        own = ap.parse_args(argv[:split])
        return as_hipcc(own.as_hipcc, own.hip_cpu_commit, bool(own.compat), argv[split + 1:], bool(own.guard),
                        tuple(own.gxx_flag))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hip-cpu", default=os.environ.get("HIP_CPU_ROOT"),
                    help="the HIP-CPU checkout (include/, src/, external/); default $HIP_CPU_ROOT")
    ap.add_argument("--hip-cpu-commit", default=None, help="recorded with the results (default: git, else unknown)")
    ap.add_argument("--only", action="append", default=[],
                    help="task ids (comma-separated, repeatable; a category selects all of it)")
    ap.add_argument("--json", type=Path, default=None, help="write every verdict here")
    ap.add_argument("--max-bytes", type=float, default=DEFAULT_MAX_BYTES,
                    help=f"a config's [work] bytes per call, at most (default {DEFAULT_MAX_BYTES:,})")
    ap.add_argument("--max-flops", type=float, default=DEFAULT_MAX_FLOPS,
                    help=f"a config's [work] flops per call, at most (default {DEFAULT_MAX_FLOPS:,})")
    ap.add_argument("--no-compat", action="store_true",
                    help="leave out the header of HIP names HIP-CPU lacks (COMPAT_HEADER): strict HIP-CPU")
    ap.add_argument("--no-guard", action="store_true",
                    help="HIP-CPU's own barrier/shuffle semantics, without the guard (GUARD_HEADER): for comparison")
    ap.add_argument("--gxx-flag", action="append", default=[],
                    help="one more g++ flag for every build (a diagnosis: --gxx-flag=-fno-strict-aliasing)")
    ap.add_argument("--markdown-from", type=Path, default=None,
                    help="print the tables of a --json record as markdown, and run nothing")
    ap.add_argument("--control", action="store_true", help=f"also judge a broken copy of {CONTROL_TASK}")
    args = ap.parse_args(argv)
    if args.markdown_from:
        print(markdown(json.loads(args.markdown_from.read_text())), end="")
        return 0
    if not args.hip_cpu or not (Path(args.hip_cpu) / "include" / "hip" / "hip_runtime.h").is_file():
        ap.error("--hip-cpu DIR (or HIP_CPU_ROOT) must name a HIP-CPU checkout (include/hip/hip_runtime.h)")
    hip_cpu = Path(args.hip_cpu).resolve()
    commit = args.hip_cpu_commit or subprocess.run(["git", "-C", str(hip_cpu), "rev-parse", "--short", "HEAD"],
                                                   capture_output=True, text=True).stdout.strip() or "unknown"
    sys.path.insert(0, str(ROOT))
    from runner.tasks.task import select
    selectors = [s for group in args.only for s in group.split(",") if s] or ["hip2hip", "torch2hip"]
    # torch2hip first: a hip2hip task's solution is usually its torch2hip twin's, judged once
    tasks = sorted((t for t in select(selectors) if t.category in ("hip2hip", "torch2hip")),
                   key=lambda t: (t.category != "torch2hip", t.id))
    toolchain = make_toolchain(hip_cpu, commit, compat=not args.no_compat, guard=not args.no_guard,
                               gxx_flags=tuple(args.gxx_flag))
    os.environ["GAUNTLET_HIPCC"] = str(toolchain / "bin" / "hipcc")
    work = Path(tempfile.mkdtemp(prefix="gauntlet-hipcpu-work-"))
    record = {"date": datetime.date.today().isoformat(), "machine": f"{platform.platform()}, {os.cpu_count()} CPUs",
              "hip_cpu": str(hip_cpu), "hip_cpu_commit": commit, "gxx": gxx_version(),
              "command": " ".join(shlex.quote(a) for a in ["bench/hip_cpu_check.py", *argv]),
              "compat_header": not args.no_compat, "guard": not args.no_guard, "gxx_flags": args.gxx_flag, "max_bytes": args.max_bytes, "max_flops": args.max_flops, "tasks": {}}
    judged: dict[str, tuple[str, dict]] = {}
    failed = False
    started = time.perf_counter()
    try:
        for n, task in enumerate(tasks):
            print(f"[{n + 1}/{len(tasks)}] {task.id}  (tolerance: {tolerance_text(task)})", flush=True)
            configs = cpu_configs(task, args.max_bytes, args.max_flops)
            entry = {"configs": [{"name": g.name, "split": g.split, "params": g.params, "run_as": r.params,
                                  "scaled": g is not r} for g, r in configs],
                     "tolerance": tolerance_text(task)}
            kernels = []
            if task.category == "hip2hip":
                kernels.append(("baseline", None, task.files[task.entry]))
            if task.solution_dir is not None and (task.solution_dir / task.entry).is_file():
                kernels.append(("solution", task.solution_dir, task.solution_dir / task.entry))
            for role, candidate_dir, source in kernels:
                key = source_key(task, source)
                if key in judged:
                    verdict = {**judged[key][1], "same_as": judged[key][0]}
                else:
                    verdict = judge_kernel(task, candidate_dir, configs, work / task.id / role)
                    verdict["compat_used"] = compat_used(source.read_text()) if not args.no_compat else []
                    judged[key] = (f"{task.id} {role}", verdict)
                entry[role] = verdict
                print_verdict(role, verdict)
                failed |= verdict["status"] in ("fail", "error")
            record["tasks"][task.id] = entry
        if args.control:
            task = next(iter(select([CONTROL_TASK])))
            print(f"[controls] broken copies of {task.id}'s kernel", flush=True)
            record["controls"] = controls(task, cpu_configs(task, args.max_bytes, args.max_flops), work / "control")
            for verdict in record["controls"]:
                print_verdict(f"control ({verdict['control']})", verdict)
                print(f"  {'CAUGHT' if verdict['caught'] else 'NOT CAUGHT'}", flush=True)
                failed |= not verdict["caught"]
    finally:
        record["seconds"] = round(time.perf_counter() - started, 1)
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(record, indent=1) + "\n")
        shutil.rmtree(toolchain, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    counts: dict[str, dict[str, int]] = {}
    for entry in record["tasks"].values():
        for role in ("baseline", "solution"):
            if role in entry:
                counts.setdefault(role, {}).setdefault(entry[role]["status"], 0)
                counts[role][entry[role]["status"]] += 1
    print(f"done in {record['seconds']:.0f} s: " + "; ".join(
        f"{role}s " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())) for role, c in counts.items()))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
