#!/usr/bin/env python3
"""What can a judge see, from outside a process, of host memory the GPU can read? (issue 30)

The open form of the device-trace attack (docs/evaluation.md, "Evidence from outside the
candidate's process"): the CPU computes the result and writes it into host memory the device can
address (pinned memory under UVA, `cudaHostRegister`, managed memory, or, with HMM, any `malloc`),
and a kernel of the candidate's copies it out. No host<->device copy shows in the trace, and a
kernel of its own ran. Before a rule can be written, this probe measures what /proc shows of each
such allocation, read by a parent process as the judge's process watch reads the runner's:

    python3 bench/mapped_memory_probe.py [--mib 256] [--json OUT]

Each scenario runs in a fresh child (CUDA initialised, a PyTorch op run: an honest runner's state),
which stops before and after its step while the parent reads /proc/<pid>/status (VmPin, VmLck,
VmRSS) and /proc/<pid>/smaps (mapping sizes by backing file, and those the kernel marks VM_IO or
VM_PFNMAP: `io`/`pf` in VmFlags, how device drivers map memory). Scenarios: `honest` (nothing more),
`pinned` (torch's pin_memory: cudaHostAlloc), `host_register` (cudaHostRegister of numpy memory),
`managed` (cudaMallocManaged, written by the CPU), and `zero_copy` (pinned memory read by a Triton
kernel straight from its host address, the attack's copy-out). It also reports the device's HMM
attributes (pageable memory access), under which plain malloc'd memory needs no registration at all.
Needs an NVIDIA GPU; prints one line per scenario and the deltas.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r'''
import ctypes, sys
import numpy as np
import torch

def pause(tag):
    print(tag, flush=True)
    sys.stdin.readline()

scenario, mib = sys.argv[1], int(sys.argv[2])
n = mib << 20
x = torch.randn(1 << 20, device="cuda"); (x * 2).sum().item()
torch.cuda.synchronize()
pause("before")
keep = []
if scenario == "pinned":
    t = torch.empty(n, dtype=torch.uint8, pin_memory=True); t.fill_(1); keep.append(t)
elif scenario == "host_register":
    a = np.ones(n, dtype=np.uint8); keep.append(a)
    err = torch.cuda.cudart().cudaHostRegister(a.ctypes.data, n, 0)
    print("cudaHostRegister", err, flush=True)
elif scenario == "managed":
    rt = ctypes.CDLL(sys.argv[3])
    p = ctypes.c_void_p()
    print("cudaMallocManaged", rt.cudaMallocManaged(ctypes.byref(p), ctypes.c_size_t(n), 1), flush=True)
    ctypes.memset(p, 1, n); keep.append(p)
elif scenario == "zero_copy":
    import triton, triton.language as tl
    @triton.jit
    def copy(src, dst, size, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(dst + i, tl.load(src + i, mask=i < size), mask=i < size)
    host = torch.full((n // 4,), 3.0, pin_memory=True)
    out = torch.empty(n // 4, device="cuda")
    class HostPointer:   # pinned memory handed to the kernel by its host address (UVA)
        dtype = torch.float32
        def data_ptr(self): return host.data_ptr()
    try:
        copy[(triton.cdiv(n // 4, 1024),)](HostPointer(), out, n // 4, BLOCK=1024)
        torch.cuda.synchronize()
        print("zero_copy read", bool((out == 3.0).all().item()), flush=True)
    except Exception as exc:
        print("zero_copy refused", type(exc).__name__, str(exc)[:200], flush=True)
    keep += [host, out]
pause("after")
'''

STATUS_FIELDS = ("VmPin", "VmLck", "VmRSS")


def read_proc(pid: int) -> dict:
    """What a judge reads of another process: status fields (KiB) and smaps sizes (KiB) by backing
    path, and the total of mappings flagged io or pf."""
    status = Path(f"/proc/{pid}/status").read_text()
    out = {f: int(re.search(rf"^{f}:\s+(\d+)", status, re.M).group(1)) for f in STATUS_FIELDS}
    by_path, io_pf, current, size = {}, 0, "", 0
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = re.match(r"^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$", line)
        if head:
            current = head.group(1) or "[anon]"
            if current.startswith("/dev/"):
                current = re.sub(r"\d+$", "N", current)
            elif not current.startswith("["):
                current = "(files)"
        elif line.startswith("Size:"):
            size = int(line.split()[1])
            by_path[current] = by_path.get(current, 0) + size
        elif line.startswith("VmFlags:") and ({"io", "pf"} & set(line.split()[1:])):
            io_pf += size
    out["maps_kib"] = by_path
    out["io_pf_kib"] = io_pf
    return out


def delta(before: dict, after: dict) -> dict:
    d = {f: after[f] - before[f] for f in (*STATUS_FIELDS, "io_pf_kib")}
    paths = set(before["maps_kib"]) | set(after["maps_kib"])
    d["maps_kib"] = {p: after["maps_kib"].get(p, 0) - before["maps_kib"].get(p, 0) for p in sorted(paths)
                     if after["maps_kib"].get(p, 0) != before["maps_kib"].get(p, 0)}
    return d


def run(scenario: str, mib: int, cudart: str) -> dict:
    # from a file: Triton's @jit reads its function's source (a `-c` script has none to read)
    script = Path(tempfile.gettempdir()) / "gauntlet_mapped_memory_child.py"
    script.write_text(CHILD)
    proc = subprocess.Popen([sys.executable, str(script), scenario, str(mib), cudart], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    notes, readings = [], {}
    for tag in ("before", "after"):
        while True:
            line = proc.stdout.readline()
            if not line:
                return {"scenario": scenario, "error": proc.stderr.read()[-2000:]}
            if line.strip() == tag:
                break
            notes.append(line.strip())
        readings[tag] = read_proc(proc.pid)
        proc.stdin.write("\n"); proc.stdin.flush()
    proc.wait(timeout=60)
    return {"scenario": scenario, "notes": notes, **readings, "delta": delta(readings["before"], readings["after"])}


def hmm_attributes(cudart: str) -> dict:
    import ctypes

    import torch
    rt = ctypes.CDLL(cudart)
    got = {}
    for name, attr in (("pageableMemoryAccess", 88), ("pageableMemoryAccessUsesHostPageTables", 100),
                       ("concurrentManagedAccess", 89), ("canUseHostPointerForRegisteredMem", 91)):
        v = ctypes.c_int()
        rt.cudaDeviceGetAttribute(ctypes.byref(v), attr, torch.cuda.current_device())
        got[name] = v.value
    return got


def cudart_path() -> str:
    """The CUDA runtime torch loaded (the host may have no libcudart.so on its search path)."""
    import torch
    torch.cuda.init()
    for line in Path("/proc/self/maps").read_text().splitlines():
        if "libcudart" in line:
            return line.split()[-1]
    return "libcudart.so"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    cudart = cudart_path()
    report = {"hmm": hmm_attributes(cudart), "mib": args.mib, "scenarios": []}
    print("device attributes:", report["hmm"])
    for scenario in ("honest", "pinned", "host_register", "managed", "zero_copy"):
        r = run(scenario, args.mib, cudart)
        report["scenarios"].append(r)
        if "error" in r:
            print(f"{scenario:14s} ERROR {r['error'][-300:]}")
            continue
        d = r["delta"]
        print(f"{scenario:14s} dVmPin {d['VmPin']:>8} KiB  dVmLck {d['VmLck']:>8}  dRSS {d['VmRSS']:>8}  "
              f"d(io|pf) {d['io_pf_kib']:>8}  maps {d['maps_kib']}  {' '.join(r['notes'])}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
