#!/usr/bin/env python3
"""Is `baseline_interference` on a host-bound baseline the judge's own doing? (issue 30)

On an H200 (results/gpu-2026-11-29.md) honest oracles of torch2cuda/attention_prefill_gqa and
grouped_gemm_moe were flagged: their PyTorch baselines (a loop that reads its offsets back with
.tolist() and launches per group) read 10-84 % slower beside the candidate than in the clean room,
trace on or off. This bench removes the candidate from the question: it writes each such reference
as an X->X task whose shipped kernel.py *is* the reference loop, and submits the noop, so the
candidate runs the very code the baseline runs and can leave nothing running. A flag here is the
judge's, not a candidate's; the per-config figures (beside, clean room, the candidate's time)
show by how much.

    python3 bench/hostbound_probe.py --out DIR [--tasks torch2cuda/grouped_gemm_moe ...] [--repeats 2]
        [--references DIR]     # DIR/TASK/reference.py instead (the loops, now that both tasks have one-kernel references)
        [--taskset '' 0-7]     # also pinned to the GPU's NUMA-local CPUs (nvidia-smi topo -m)

The probe task's shipped code has no Triton kernel, so `no_custom_kernel` and `no_kernel_launch`
are expected on every evaluation; the question is the timing flags. Needs an NVIDIA GPU for
meaningful figures (`--device cpu` checks the plumbing only: on this 2-core host a run of
grouped_gemm_moe's probe took 91 s and raised only those two). Prints per
evaluation its flags and per config: baseline beside, baseline in the clean room (where re-timed),
candidate, speedup; writes DIR/hostbound.json.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tomllib
from pathlib import Path

import tomli_w

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from judge_gpu import evaluate  # noqa: E402

TASKS = ("torch2cuda/grouped_gemm_moe", "torch2cuda/attention_prefill_gqa")


def as_x_to_x(task: str, root: Path, references: Path | None = None) -> str:
    """A triton2triton task under `root` whose shipped kernel.py is `task`'s reference (forward =
    reference), with the same configs and tolerance: its noop runs the baseline's own code.
    `references`: a folder holding TASK/reference.py to use instead (the loops the two tasks had
    before their one-kernel references: `git show c07dbfa^1:tasks/TASK/reference.py`)."""
    src = ROOT / "tasks" / task
    name = task.split("/")[1] + "_loop"
    dst = root / "triton2triton" / name
    if dst.exists():
        shutil.rmtree(dst)
    (dst / "hidden").mkdir(parents=True)
    reference = ((references or ROOT / "tasks") / task / "reference.py").read_text()
    (dst / "reference.py").write_text(reference)
    (dst / "kernel.py").write_text(reference + "\n\nforward = reference\n")
    shutil.copy(src / "configs.toml", dst / "configs.toml")
    shutil.copy(src / "hidden" / "configs.toml", dst / "hidden" / "configs.toml")
    (dst / "README.md").write_text(f"{task}'s PyTorch reference as an X->X task (bench/hostbound_probe.py).\n")
    shipped = tomllib.loads((src / "task.toml").read_text())
    toml = {"id": f"triton2triton/{name}", "category": "triton2triton", "platforms": ["cuda", "cpu"],
            "description": f"{task}'s PyTorch reference as shipped code (bench/hostbound_probe.py).",
            "workspace": {"files": ["kernel.py", "reference.py", "configs.toml", "README.md"], "editable": ["kernel.py"]},
            "candidate": {"entry": "kernel.py", "symbol": "forward"}, "reference": {"module": "reference.py"},
            "configs": {"seen": "configs.toml", "hidden": "hidden/configs.toml"}}
    if "tolerance" in shipped:
        toml["tolerance"] = shipped["tolerance"]
    (dst / "task.toml").write_text(tomli_w.dumps(toml))
    return f"triton2triton/{name}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--tasks", nargs="*", default=list(TASKS))
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--references", type=Path, default=None,
                        help="a folder of TASK/reference.py to probe instead of the tasks' own")
    parser.add_argument("--eval-args", nargs="*", default=[])
    parser.add_argument("--taskset", nargs="*", default=[""],
                        help="CPU lists to pin each evaluation to (taskset -c), '' for none; each is run "
                             "--repeats times (a host-bound baseline's time moved 70 %% between two "
                             "processes of one evaluation on an H200: where the scheduler puts them?)")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    root = out / "tasks"
    rows = []
    for task in args.tasks:
        probe = as_x_to_x(task, root, args.references)
        for cpus, i in [(c, i) for c in args.taskset for i in range(args.repeats)]:
            folder = out / f"{probe.replace('/', '_')}-{cpus.replace(',', '_') or 'any'}-{i}"
            folder.mkdir(parents=True, exist_ok=True)
            data = evaluate(probe, None, folder / "result.json", str(ROOT), extra=args.eval_args,
                            tasks_root=root, device=args.device, prefix=("taskset", "-c", cpus) if cpus else ())
            configs = [{k: c.get(k) for k in ("config", "correct", "baseline_ms", "baseline_clean_ms",
                                              "baseline_offset_ms", "candidate_ms", "speedup", "baseline_cv")}
                       for c in data.get("configs", [])]
            rows.append({"task": task, "probe": probe, "taskset": cpus, "repeat": i, "wall_s": data.get("wall_s"),
                         "flags": data.get("flags"), "error": data.get("error"), "configs": configs})
            print(f"{probe} cpus={cpus or 'any'} #{i} {data.get('wall_s')}s error={(data.get('error') or '')[:200]}")
            for flag in data.get("flags") or []:
                print(f"    {flag[:240]}")
            for c in configs:
                print(f"    {c['config']:28s} ok={c['correct']} beside={c['baseline_ms']} clean={c['baseline_clean_ms']} "
                      f"cand={c['candidate_ms']} x={c['speedup'] and round(c['speedup'], 4)} cv={c['baseline_cv']}")
            (out / "hostbound.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
