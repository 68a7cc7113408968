"""Measure and print this GPU's ceilings as the judge does (runner/evaluator/judge/roofline.py): device
copy bandwidth and the vendor GEMM peak per dtype, three times over (the spread is how much the
measurement itself moves), then the cached figures the judge would use.

    . bench/gpu_env.sh && python3 bench/ceilings.py [--repeat 3] [--json OUT]

Nothing is asserted: compare the figures with the datasheet (H100 SXM: 3.35 TB/s HBM3, 989 TFLOP/s
dense bf16/fp16, 1979 fp8, 67 fp32 non-tensor) and with each other across repeats.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="independent measurements (default 3)")
    parser.add_argument("--json", type=Path, default=None, help="write every measurement here")
    args = parser.parse_args()
    import torch

    from runner.evaluator import protocol
    from runner.evaluator.judge import roofline
    if not torch.cuda.is_available():
        print("no GPU visible: the ceilings are measured on a GPU only", file=sys.stderr)
        return 2
    protocol.strict_float32()             # as in the judge: measure() switches TF32 on for tfloat32 only
    gpu = torch.cuda.get_device_properties(0).name
    try:
        driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        driver = "unknown-driver"
    runs = [roofline.measure(gpu, driver) for _ in range(args.repeat)]
    dtypes = list(runs[0].tflops)
    print(f"GPU: {gpu}   driver: {driver}   torch {torch.__version__}   CUDA {torch.version.cuda}")
    print(f"method: {runs[0].method}")
    print(f"{'ceiling':24s}" + "".join(f"{'run ' + str(i + 1):>12s}" for i in range(len(runs))))
    print(f"{'bandwidth GB/s':24s}" + "".join(f"{r.bandwidth_gbps or float('nan'):12.1f}" for r in runs))
    for dtype in dtypes:
        print(f"{dtype + ' TFLOP/s':24s}" + "".join(f"{(r.tflops.get(dtype) or float('nan')):12.1f}" for r in runs))
    for note in sorted({n for r in runs for n in r.notes}):
        print(f"note: {note}")
    cached = roofline.ceilings(gpu, driver)
    print(f"cached for the judge: {roofline.cache_path(gpu, driver)} (measured {cached.measured})")
    if args.json:
        args.json.write_text(json.dumps({"runs": [r.to_dict() for r in runs], "cached": cached.to_dict()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
