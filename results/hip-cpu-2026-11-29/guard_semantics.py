"""The guard's semantics test: guard_semantics.hip built by bench/hip_cpu_check.py's hipcc wrapper
with the guard and without it (--no-guard, HIP-CPU's own semantics), each kernel called once.

    HIP_CPU_ROOT=... python results/hip-cpu-2026-11-29/guard_semantics.py [--no-guard]

(one mode per process: without the guard a kernel can corrupt the process's heap)
"""
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "bench"))
import hip_cpu_check as h  # noqa: E402

for guard in ([False] if "--no-guard" in sys.argv else [True]):
    toolchain = h.make_toolchain(Path(os.environ["HIP_CPU_ROOT"]), "e112c93", guard=guard)
    out = Path(tempfile.mkdtemp(prefix="gauntlet-hipcpu-sem-"))
    try:
        subprocess.run([str(toolchain / "bin" / "hipcc"), "-O3", "-std=c++17", "-shared", "-fPIC",
                        "--offload-arch=native", "-o", str(out / "k.so"), str(HERE / "guard_semantics.hip")],
                       check=True, capture_output=True)
        lib = ctypes.CDLL(str(out / "k.so"))
        f = lib.launch
        f.restype = ctypes.c_int
        cnt, iout, fout = (ctypes.c_int * 1)(0), (ctypes.c_int * 1024)(), (ctypes.c_float * 1024)()
        print(f"--- {'with the guard' if guard else 'HIP-CPU alone (--no-guard)'}", flush=True)
        rc = f(ctypes.c_int64(0), cnt, iout, fout, None)
        print(f"early: rc {rc}, atomicAdds {cnt[0]} (HIP: 3 blocks x 32 returning threads = 96)", flush=True)
        rc = f(ctypes.c_int64(1), cnt, iout, fout, None)
        print(f"divergent: rc {rc}, block sums {[fout[i] for i in (0, 255, 256, 767)]} (HIP: 32640 each)", flush=True)
        for i in range(64):
            iout[i] = -1
        rc = f(ctypes.c_int64(2), cnt, iout, fout, None)
        print(f"zero_leaves: rc {rc}, out[0], out[1], out[63] = {iout[0]}, {iout[1]}, {iout[63]} (HIP: -1, 63, 1)",
              flush=True)
        rc = f(ctypes.c_int64(3), cnt, iout, fout, None)
        ok = all([iout[4 * t + k] for k in range(4)] == [(t // 16) * 16 + 5, t - 3 if t % 32 >= 3 else t,
                                                         t + 3 if t % 64 < 61 else t, t ^ 1] for t in range(128))
        print(f"shuffles (__shfl w16, __shfl_up w32, __shfl_down w64, __shfl_xor): rc {rc}, as HIP says: {ok}",
              flush=True)
    finally:
        shutil.rmtree(toolchain, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
