"""Where an evaluation's wall time goes, from a py-spy profile of it (issue 10's overhead).

    py-spy record --subprocesses --idle --threads --format raw -r RATE -o PROF -- python -m runner.evaluator ...
    python3 bench/profile_phases.py PROF --rate RATE [--top N]

Reads py-spy's raw (collapsed) stacks of one evaluation: the judge and its kernel runners, or the
in-process evaluator of an older commit. Per process (judge / baseline runner / candidate runner /
in-process) and thread, each sample goes to a phase, named by the frames on its stack whose
function is one of PHASES, from the top down ("time/_batch"), and within it to an activity: the
first of ACTIVITIES that matches a frame, from the leaf up (waiting on the other process, a lock
or the GPU; a Triton or native compile; an import; copying across the process boundary).
Seconds are samples / rate: wall time per thread, idle included (--idle).
"""
from __future__ import annotations

import argparse
import collections
import re

# judge.py, kernel_runner.py and the in-process harness (c6a5871)'s steps, by function name
PHASES = {
    # the judge
    "import_reference", "_warm_up", "choose", "static_flags", "kernel_tree", "_build", "smallest", "quickest",
    "process_offset", "correctness", "_baseline_stage", "make", "time", "clean_room", "_check_repetition",
    "_batch", "_time_message", "close_all", "wait_gone", "retire", "settle", "spin_rate",
    # a kernel runner
    "build", "_compile", "_load", "_forget_probe", "inputs", "call", "capture", "export", "release", "serve",
    # the in-process evaluator
    "import_module", "build_kernel", "check_baseline", "check", "native_launch_check", "clock",
    # both
    "main", "evaluate", "config_result", "write_result",
}
# on every stack of their process: left out of the phase's path
FRAMING = {"main", "evaluate", "config_result"}
# (activity, pattern over one frame "function (file:line)"): the first that matches the deepest
# frame it can, searched from the leaf up
ACTIVITIES = [
    ("wait: the other process", re.compile(r"^receive \(.*protocol\.py")),
    ("wait: socket", re.compile(r"^(recv|recvmsg|recv_into|_recv|accept|select|poll)\b|socket\.py")),
    ("wait: thread/lock", re.compile(r"^(wait|acquire|result|join|_wait_for_tstate_lock)\b.*threading|concurrent")),
    ("wait: subprocess", re.compile(r"^(communicate|_communicate|wait|_try_wait)\b.*subprocess")),
    ("wait: sleep", re.compile(r"^sleep\b")),
    ("gpu sync", re.compile(r"^synchronize\b|elapsed_time")),
    ("triton compile", re.compile(r"triton/(compiler|backends|runtime/build)")),
    ("triton launch/jit", re.compile(r"triton/runtime")),
    ("native compile", re.compile(r"compile_native|nvcc|hipcc")),
    ("import", re.compile(r"^(<module>|_find_and_load|_load_unlocked|exec_module|import_module)\b")),
    ("ipc copy", re.compile(r"^(tensor|received|describe_args|_write|out_buffers|Shared)\b.*protocol|received|out_buffers")),
    ("compare", re.compile(r"^(compare|_fast_close|_canonical|freeze|freeze_reference)\b")),
    ("reference/inputs", re.compile(r"^(make_inputs|run_reference|reference|expected|add_outliers)\b")),
    ("cuda init", re.compile(r"_lazy_init|init_cuda|cuda/__init__")),
]


def _function(frame: str) -> str:
    """A frame's function without its class ("Judge.time (judge.py:877)" -> "time")."""
    return frame.split(" (", 1)[0].rsplit(".", 1)[-1]


def _role(cmd: str) -> str:
    if "kernel_runner" in cmd:
        m = re.search(r"--role (\w+)", cmd)
        return f"{m.group(1) if m else '?'} runner"
    return "evaluator"


def parse(path: str):
    """(role, thread, phase, activity) -> samples."""
    counts = collections.Counter()
    pids: dict[str, dict[str, str]] = collections.defaultdict(dict)
    for line in open(path):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, n = line.rsplit(" ", 1)
        frames = stack.split(";")
        procs = [i for i, f in enumerate(frames) if f.startswith("process ")]
        last = procs[-1] if procs else -1
        head = frames[last] if procs else "process ?"
        pid, cmd = re.match(r'process (\d+|\?):?"?(.*)"?$', head).groups()
        role = _role(cmd)
        rest = frames[last + 1:]
        thread = "main"
        if rest and rest[0].startswith("thread "):
            name = rest[0].split(": ", 1)[-1]
            thread = "main" if name == "MainThread" else name
            rest = rest[1:]
        marks = [_function(f) for f in rest if _function(f) in PHASES and _function(f) not in FRAMING]
        phase = "/".join(dict.fromkeys(marks)) or "(startup/other)"
        activity = "busy"
        for f in reversed(rest):
            bare = _function(f) + f[len(f.split(" (", 1)[0]):]
            hit = next((name for name, pat in ACTIVITIES if pat.search(bare)), None)
            if hit:
                activity = hit
                break
        pids[role][pid] = cmd
        counts[(role, thread, phase, activity)] += int(n)
    return counts, pids


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profile")
    ap.add_argument("--rate", type=float, required=True, help="py-spy's -r (samples per second)")
    ap.add_argument("--top", type=int, default=12, help="activities shown per phase")
    ap.add_argument("--min-s", type=float, default=0.05, help="rows under this many seconds are left out")
    a = ap.parse_args(argv)
    counts, pids = parse(a.profile)
    by_thread = collections.Counter()
    by_phase = collections.Counter()
    for (role, thread, phase, activity), n in counts.items():
        by_thread[(role, thread)] += n
        by_phase[(role, thread, phase)] += n
    for role in sorted(pids):
        print(f"== {role}: {len(pids[role])} process(es)")
        for (r, thread), total in sorted(by_thread.items(), key=lambda kv: -kv[1]):
            if r != role or total / a.rate < a.min_s:
                continue
            print(f"  thread {thread}: {total / a.rate:.2f} s")
            phases = [(p, n) for (r2, t2, p), n in by_phase.items() if (r2, t2) == (role, thread)]
            for phase, n in sorted(phases, key=lambda kv: -kv[1]):
                if n / a.rate < a.min_s:
                    continue
                acts = sorted(((act, m) for (r3, t3, p3, act), m in counts.items()
                               if (r3, t3, p3) == (role, thread, phase)), key=lambda kv: -kv[1])[:a.top]
                detail = ", ".join(f"{act} {m / a.rate:.2f}" for act, m in acts if m / a.rate >= a.min_s)
                print(f"    {phase:24s} {n / a.rate:7.2f} s   {detail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
