"""The evaluation of one candidate, read top to bottom: task files hashed, reference imported and
warmed up, static checks, the runners built, then every config judged (config_judge.py), and the
verdict written."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tempfile
import time
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from pathlib import Path

from runner.candidate import kernel_tree
from runner.evaluator import arena, devtrace, protocol, timing
from runner.evaluator.build import LAUNCHING_LANGUAGES
from runner.evaluator.gpulock import exclusive_device
from runner.evaluator.isolation import Isolation, IsolationError, choose, hiding_the_temp_folder, on_cores
from runner.evaluator.judge import dram, policy, roofline, static_checks
from runner.evaluator.judge.config_judge import Judge, Phases
from runner.evaluator.judge.rounds import offset_applies, trace_record
from runner.evaluator.judge.runners import RunnerClient, RunnerFailed, close_all, wait_gone
from runner.evaluator.judge.values import (Mismatch, TaskBroken, as_tuple, clone_args, config_seed, device_kind,
                                           short_of_device_memory)
from runner.results.result import MAX_SPEEDUP, ConfigResult, Evaluation
from runner.tasks.task import Config, Task
from runner.sandbox.hostfs import remove_tree


# -- the evaluation ----------------------------------------------------------------------------------
def task_digest(folders) -> dict[str, str]:
    """sha256 of every file under the task's folders (its own and the ones it extends)."""
    import hashlib
    digest = {}
    for folder in folders:
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                try:
                    digest[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
                except OSError:
                    digest[str(path)] = "unreadable"
    return digest


def _warm_up(reference, task: Task, device: str) -> bool:
    """Run the reference once; returns whether the task is float32-only."""
    import torch
    torch_device = "cpu" if device == "cpu" else "cuda"
    configs = task.configs("seen")
    gen = torch.Generator().manual_seed(config_seed(configs[0], policy.WARMUP_SEED))
    try:
        args = list(reference.make_inputs(dict(configs[0].params), gen, torch_device))
        outs = as_tuple(reference.reference(*clone_args(args)))
    except Exception as exc:
        raise TaskBroken(f"the reference failed on {configs[0].name}: {type(exc).__name__}: {str(exc)[:200]}") from None
    floats = {str(t.dtype).removeprefix("torch.") for t in (*args, *outs)
              if isinstance(t, torch.Tensor) and t.is_floating_point()}
    return bool(floats) and floats <= {"float32", "float64"}


def import_reference(path: Path):
    """The task's reference module (trusted task code, from the pristine task folder)."""
    import importlib.util
    if not path.is_file():
        raise TaskBroken(f"{path.name}: file not found")
    spec = importlib.util.spec_from_file_location("gauntlet_reference", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001 -- a broken task may raise anything
        raise TaskBroken(f"importing {path.name} failed: {type(exc).__name__}: {str(exc)[:200]}") from None
    for name in ("make_inputs", "reference"):
        if not callable(getattr(module, name, None)):
            raise TaskBroken(f"{path.name} defines no callable {name}()")
    return module


def static_flags(task: Task, tree: Path, fp32_task: bool, shipped: Path | None = None) -> list[str]:
    """The static checks' flags over the editable files in `tree`. `shipped`: an X->X task's files
    as shipped (the baseline), whose own PyTorch glue is allowed: a torch_fallback flag is dropped
    when what it names (file and line aside) is at no more places in `tree` than in `shipped`."""
    flags, sites = _static_findings(task, tree, fp32_task)
    if shipped is not None:
        allowed = _static_findings(task, shipped, fp32_task)[1]
        flags = [f for f in flags if (key := f.rsplit(" (", 1)[0]) not in sites or sites[key] > allowed[key]]
    return flags


NATIVE_SUFFIXES = (".cu", ".hip", ".cuh", ".h", ".hpp", ".cpp", ".cc")


def _declared_kernels(task: Task, language: str, tree: Path) -> static_checks.DeclaredKernels | None:
    """What the native sources in `tree` (the judge's copy, before any runner started) declare."""
    if language not in LAUNCHING_LANGUAGES:
        return None
    sources = {rel: (tree / rel).read_bytes().decode(errors="replace")
               for rel in dict.fromkeys((*task.files, *task.editable))
               if Path(rel).suffix in NATIVE_SUFFIXES and (tree / rel).is_file()}
    return static_checks.declared_kernels(sources) if sources else None


def _static_findings(task: Task, tree: Path, fp32_task: bool) -> tuple[list[str], Counter]:
    """(flags, how many places of the editable Python files each torch_fallback `kind: detail` is at)."""
    flags, sites = [], Counter()
    python_kernel = []          # per editable Python file: did it define a kernel (no no_custom_kernel)
    for rel in task.editable:
        path = tree / rel
        if not path.is_file():
            continue
        raw = path.read_bytes()
        if path.suffix == ".py":
            # Decoded as the importer decodes it (its coding declaration, a BOM): read as UTF-8, a
            # latin-1 or UTF-7 file was another text to the checks than to Python (a syntax error:
            # no flags at all). What the importer cannot decode does not import either.
            try:
                text = importlib.util.decode_source(raw)
            except (SyntaxError, UnicodeDecodeError, LookupError, ValueError):
                continue
            found, places = static_checks.python_findings(text, custom_kernel=True, fp32_task=fp32_task, filename=rel)
            python_kernel.append(not any(f.startswith("no_custom_kernel") for f in found))
            flags += found
            sites += places
            continue
        text = raw.decode(errors="replace")
        if path.suffix in NATIVE_SUFFIXES:
            found = static_checks.check_native(text, fp32_task=fp32_task, filename=rel,
                                               torch_task=task.baseline_is_reference)
            if rel != task.entry:  # only the entry must hold the kernel itself
                found = [f for f in found if not f.startswith("no_custom_kernel")]
            flags += found
    if any(python_kernel):      # a task of several Python files (an imported entry that calls the kernel's
        flags = [f for f in flags if not f.startswith("no_custom_kernel")]    # module): one must hold it
    return flags, sites


def _cpu_model() -> str | None:
    """The CPU's model name (Linux /proc/cpuinfo; platform.processor() elsewhere)."""
    import platform
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def environment(device: str, isolation: Isolation | None) -> dict:
    """What the numbers were measured on: the judge's own torch, triton, the CUDA/ROCm torch was built
    for, the vendor compilers, driver, GPU (or CPU) and OS; copied into result.json."""
    import platform
    import torch
    from runner.evaluator.build import compiler_versions
    env = {"python": platform.python_version(), "torch": torch.__version__,
           "cuda": torch.version.cuda, "hip": getattr(torch.version, "hip", None),
           "os": platform.platform(), "cpu": _cpu_model(), "device": device,
           "runner_isolation": isolation.mode if isolation else None,
           # the cores no runner may run on (isolation.judge_cores); []: none kept
           "judge_cores": list(isolation.judge_cores) if isolation else [], **compiler_versions()}
    try:
        import triton
        env["triton"] = triton.__version__
    except Exception:
        pass
    if device != "cpu":
        props = torch.cuda.get_device_properties(0)
        env.update({"gpu": props.name,
                    "arch": getattr(props, "gcnArchName", None) or f"sm_{props.major}{props.minor}"})
        tool = ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"] if device == "cuda" else \
            ["rocm-smi", "--showdriverversion"]
        try:
            out = subprocess.run(tool, capture_output=True, text=True, timeout=30)
            if out.returncode == 0:
                env["driver"] = out.stdout.strip().splitlines()[0][-60:]
        except (OSError, subprocess.TimeoutExpired, IndexError):
            pass
    return env


def _build(runner: RunnerClient, probe: bool = False) -> dict:
    """The runner's build reply (with `probe`, of the baseline's copy in a candidate's runner); a
    runner that died building (an import that exits) did not build."""
    try:
        with runner.watch.building() if runner.watch is not None else nullcontext():
            reply = runner.request({"op": "build", "probe": True} if probe else {"op": "build"})
        runner.loaded = runner.loaded or (not probe and reply.get("compiled") is True)
        return reply
    except RunnerFailed as exc:
        return {"ok": False, "compiled": False, "log": str(exc)}


# What a clean room without its stand-in leaves out, said in each note that it ran without one.
_NO_PAIR = ", and no interval is widened by how far two runner processes read apart"


def _build_stand_in(runner: RunnerClient, common: dict) -> dict:
    """The clean room's stand-in built, and its clock made now, beside the other runners' builds:
    made at its first batch, in the clean room, a clock (its flush buffer, the launch gate's
    kernels and self-test, the empty pair's calibration) sat on the evaluation's path, where the
    stand-in's warm-up took 1.0-1.5 s (H200, results/gpu-2026-11-30-s15.md). The same message
    as the baseline's first batch (Judge.quickest) makes the same clock."""
    reply = _build(runner)
    if reply.get("compiled") is True:
        try:
            made = runner.request({"op": "clock", **common})
        except RunnerFailed as exc:
            return {"ok": False, "compiled": False, "log": f"its clock: {exc}"}
        if not made.get("ok"):
            return {"ok": False, "compiled": False, "log": f"its clock: {str(made.get('error'))[:300]}"}
    return reply


def _ended(runner: RunnerClient, wait_s: float = 2.0) -> bool:
    """Whether the runner's process has ended (given `wait_s` to finish dying: a broken socket can
    come before the exit status)."""
    try:
        runner.proc.wait(timeout=wait_s)
        return True
    except subprocess.TimeoutExpired:
        return False


def _start_witness(program: Path, scratch: Path, cores: tuple[int, ...]) -> dram.Witness | str:
    """The DRAM witness on the judge's device, started on the judge's own cores (isolation.judge_cores),
    or the note that says why there is none."""
    import torch
    index = torch.cuda.current_device()
    l2_bytes = torch.cuda.get_device_properties(index).L2_cache_size
    try:
        return dram.Witness(program, index, scratch / "dram_samples.txt", timing.L2_FLUSH_BYTES, l2_bytes,
                            prefix=tuple(on_cores(cores)))
    except OSError as exc:
        return f"note: no DRAM witness ({str(exc)[:240]})"


def _witness_ready(witness: dram.Witness | str) -> dram.Witness | str:
    if isinstance(witness, str):
        return witness
    try:
        return witness.ready()
    except dram.Unavailable as exc:
        return f"note: no DRAM witness ({str(exc)[:240]})"


class _Beside(Exception):
    """A step of the judge's own failed beside a live candidate's runner (the failure: __cause__)."""


def release_device_cache(device: str) -> None:
    """What the judge's own caching allocator holds and no tensor uses, given back to the device."""
    if device != "cpu":
        import torch
        torch.cuda.empty_cache()


def device_memory_held(pids, listing: str | None = None) -> str:
    """What the driver says the processes `pids` hold of the device's memory, as a clause for an
    error ("" where it cannot say: no nvidia-smi, another pid namespace, no such process). `listing`:
    nvidia-smi's `--query-compute-apps=pid,used_memory` CSV, read here when not given. Evidence for
    the reader, never what a verdict rests on (the check alone decides)."""
    if listing is None:
        try:
            listing = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory",
                                      "--format=csv,noheader,nounits"], capture_output=True, text=True,
                                     timeout=20).stdout
        except (OSError, subprocess.SubprocessError):
            return ""
    wanted, held = set(pids), 0
    for line in listing.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) == 2 and fields[0].isdigit() and int(fields[0]) in wanted:
            try:
                held += int(float(fields[1]))
            except ValueError:
                pass
    return f"; the driver listed {held} MiB of the device's memory held by the candidate's processes" if held else ""


def _runner_spec(task: Task, language: str, role: str) -> dict:
    if role == "baseline" and task.baseline_is_reference:
        return {"language": "python", "entry": task.reference.name, "symbol": "reference", "flags": ()}
    return {"language": language, "entry": task.entry, "symbol": task.symbol, "flags": task.compile_flags}


def evaluate(task: Task, candidate_dir: Path | None, device: str, splits=("seen", "unseen"),
             measure: bool = True, regime: str = "cold", graph: bool = False,
             max_speedup: float = MAX_SPEEDUP, drawn: list[Config] = (),
             baseline_only: bool = False, language: str | None = None, hide=(), out_dir: Path | None = None,
             workspace: bool = False, process_offset: bool | None = None, use_arena: bool | None = None,
             clean_room: bool | None = None, own_blocks: bool | None = None) -> Evaluation:
    """Evaluate the candidate whose editable files are in `candidate_dir` (None: the task as shipped).
    `hide`: more paths no runner may see (the run dir); `out_dir`: where the verdict goes (no runner
    may write it); `workspace`: an agent's self-check in its own workspace (nothing hidden there);
    `process_offset`: measure the candidate's process offset (Judge.process_offset; default
    policy.PROCESS_OFFSET for the device); `use_arena`: time both kernels on buffers in a judge-owned arena
    (arena.py; default: where the device is CUDA and the driver has the VMM API); `clean_room`: time
    the baseline again once the candidate is gone (Judge.clean_room; default policy.CLEAN_ROOM for the device);
    `own_blocks`: what each kernel allocates itself cut from a region of its runner's at a new offset every
    batch (own_blocks.py; default policy.OWN_BLOCKS for the device, CUDA only)."""
    language = language or task.language
    max_speedup = task.speedup_limit(max_speedup)
    evaluation = Evaluation(device=device, compiled=False, timing_meaningful=device != "cpu",
                            timing_method=timing.method(device, regime, graph) + ", judge's clock bounds each batch",
                            timing_regime=regime, max_speedup=max_speedup)
    folders = (task.root, *task.bases)
    digest_before = task_digest(folders)
    configs = {split: list(drawn) if split == "drawn" else task.configs(split) for split in splits}
    flags: list[str] = []
    runners: list[RunnerClient] = []
    started_runners: list[RunnerClient] = []     # every runner ever started, for what was seen of it from outside
    judge: Judge | None = None
    witness: dram.Witness | str | None = None     # the DRAM witness, or the note why there is none
    scratch = Path(tempfile.mkdtemp(prefix="gauntlet-judge-"))
    phases = Phases()
    started = time.perf_counter()
    try:
        hidden = {*folders, scratch, *(Path(h) for h in hide)}
        if candidate_dir is not None:
            hidden.add(Path(candidate_dir))
        if out_dir is not None:
            hidden.add(Path(out_dir))
        holding = hiding_the_temp_folder(h for h in hidden if h != scratch)
        if holding:
            # the judge refuses before loading any candidate code: the harness's failure (infra_error)
            evaluation.error = evaluation.harness_error = (
                f"{holding[0]} holds {holding[1]}, where the kernel runners work, and no runner may see it "
                "(the verdict's folder and the task's are hidden from them): write the verdict into a "
                "folder of its own")
            return evaluation
        try:
            with phases("isolation probe"):
                isolation = choose(hidden, device, forbidden_write=(out_dir,) if out_dir else ())
        except IsolationError as exc:
            if not workspace:     # no candidate code loaded: the harness's failure (infra_error)
                evaluation.error = evaluation.harness_error = str(exc)
                return evaluation
            # an agent's self-check in its own workspace: nothing there is hidden
            isolation = choose(hidden, device, allow_unisolated=True)
        flags += isolation.notes
        trace_library = None
        if devtrace.wanted(device) and measure:
            try:
                trace_library = devtrace.build(devtrace.cache_dir())
                isolation.extra_readable.append(trace_library.parent)
            except devtrace.Unavailable as exc:
                flags.append(f"note: no device trace ({str(exc)[:200]})")
        sampler_program = None        # the L2 flush's witness (dram.py): built now, started once the device is held
        if dram.wanted(device, regime) and measure and not baseline_only:
            try:
                sampler_program = dram.build(devtrace.cache_dir())
            except dram.Unavailable as exc:
                flags.append(f"note: no DRAM witness ({str(exc)[:200]})")
        every = [c for split in splits for c in configs[split]]
        offset_pass = (measure and not baseline_only and bool(every)
                       and (policy.PROCESS_OFFSET[device_kind(device)] if process_offset is None else process_offset))
        first = None          # where the offset is measured (Judge.quickest), found while the candidate builds
        wants_clean_room = measure and not baseline_only and (policy.CLEAN_ROOM[device_kind(device)]
                                                              if clean_room is None else clean_room)
        moves_own_blocks = device == "cuda" and not graph and (policy.OWN_BLOCKS[device_kind(device)]
                                                               if own_blocks is None else own_blocks)
        if moves_own_blocks:
            flags.append("note: what each kernel allocated itself was asked to come from a region of its runner's at "
                         "a new offset every batch (own_blocks.py; a runner that could not says so)")

        def start(role: str, source: Path | None, stand_in: bool = False) -> RunnerClient:
            tree = kernel_tree(task.files, task.editable, source, scratch / ("stand-in" if stand_in else role))
            if role == "baseline" and task.baseline_is_reference:
                shutil.copyfile(task.reference, tree / task.reference.name)
            probe = None
            if offset_pass and not stand_in:      # the baseline's files, built there first (in both runners: settle)
                probe = {"tree": scratch / "baseline", **_runner_spec(task, language, "baseline")}
            # An X->X baseline is watched where a baseline is not (the CPU): its glue is what the
            # candidate may compute. Every one: AKA's fused_moe_gptq_awq builds its routing where the
            # static checks do not see a PyTorch call, and an unwatched baseline allows nothing.
            runner = RunnerClient(isolation, tree, device=device, role=role, probe=probe, trace_library=trace_library,
                                  report_ops=role == "baseline" and not task.baseline_is_reference, stand_in=stand_in,
                                  own_blocks=moves_own_blocks,
                                  **_runner_spec(task, language, role))
            runners.append(runner)
            started_runners.append(runner)
            return runner

        def retire(runner: RunnerClient) -> None:
            """A runner ended, and every process of its sandbox waited out (with them its GPU
            contexts and the work queued there) before anything else is timed."""
            if runner not in runners:        # retired already (a path that retires before its caller does)
                return
            with phases("runner retire"):
                if runner.stand_in:
                    runner.thaw()        # a stopped runner could not answer its exit
                members = runner.members()
                runners.remove(runner)
                runner.close()
                wait_gone(members)

        def settle(runner: RunnerClient, probe_reply: dict, baseline_too: bool = True) -> dict:
            """The candidate's runner after its probe build: its process offset measured, then
            the candidate built in it (replacing the baseline). The candidate's build reply.

            `baseline_too`: the baseline's runner, which built a probe copy of its own first, loads
            its own copy at the same moment, so both processes go through the same loads between
            the offset and the timing: on an H100 the second native module a runner loaded moved
            its launches by +0.04 to +0.08 us, every time, the offset's whole error on a 2.6 us call
            (results/gpu-2026-11-27d.md). A candidate's runner started again after a crash
            comes without it: the baseline's own copy is loaded by then."""
            if probe_reply.get("compiled") is True:
                try:
                    with phases("timing: process offset"):
                        if os.environ.get("GAUNTLET_JUDGE_OFFSET_ALL"):   # bench: every config's offset in the trace, not applied
                            for config in every:
                                if config is not first:
                                    judge.time(baseline, runner, config, probe=True)
                        offset = judge.process_offset(baseline, runner, first)
                    fraction = policy.PROCESS_OFFSET_LIMIT[device_kind(device)]
                    share = abs(offset) / max(judge.offset_record["baseline_ms"], 1e-9)   # of the call it was measured on
                    applies = offset_applies(judge.offset_record, offset, fraction)
                    judge.baseline_offset_ms = offset if applies else None
                    if not applies:
                        judge.process_spread = share
                        flags.append(f"note: the process offset ({offset * 1000:.2f} us on {first.name}) was not "
                                     f"applied: more than {fraction:.0%} of the baseline's time there, and the "
                                     "two processes' plain medians did not read the same shift (or it is over "
                                     f"{policy.PROCESS_OFFSET_MAX_MS * 1000:g} us): no per-launch cost (a call whose "
                                     "level changes between rounds); baseline times are from the baseline's own "
                                     f"process, and every interval is widened by {judge.process_spread:.1%} on each "
                                     "side (the same code read that far apart in two processes)")
                except (RunnerFailed, Mismatch) as exc:
                    judge.baseline_offset_ms = None
                    flags.append(f"note: the process offset was not measured ({str(exc)[:200]}); "
                                 "baseline times are from the baseline's own process")
            else:
                flags.append("note: the baseline did not build in the candidate's runner; baseline "
                             "times are from the baseline's own process")
            with phases("candidate build"):
                if not baseline_too:
                    return _build(runner)
                with ThreadPoolExecutor(max_workers=1) as pool:
                    own = pool.submit(_build, baseline)
                    reply = _build(runner)
                    own = own.result()
                if not own.get("compiled") and baseline.proc.poll() is None:
                    own = _build(baseline)        # once more beside the candidate: a passing fault is no one's
                if not own.get("compiled"):
                    raise TaskBroken("the baseline did not build its own copy after its probe copy: "
                                     + str(own.get("log", ""))[-1500:])
                return reply

        def built_alone(beside: str) -> str | None:
            """The baseline did not build beside the candidate's code, twice (`beside`: why). Built
            again with every process of the candidate's gone: building alone, the candidate kept it from building
            (the device's memory taken at its import: a native module's load needs some), and the
            returned log says so: the candidate's failure, not compiled, never the task's (a
            task_error is never scored: a failing candidate's way out). None: it does not build alone
            either, the task's failure as before."""
            nonlocal baseline
            retire(candidate)
            if baseline.proc.poll() is not None:      # its runner died of it: a fresh one
                retire(baseline)
                baseline = start("baseline", None)
            with phases("baseline alone"):
                if _build(baseline).get("compiled") is not True:
                    return None
            return (f"the baseline did not build beside the candidate's code ({beside[-600:]}) and built with the "
                    "candidate gone: the candidate kept it from building (the device's memory or queue, taken by "
                    "its code): not compiled")

        def restarted() -> RunnerClient | None:
            """A fresh runner of the candidate's, built (None: it did not build again)."""
            runner = start("candidate", candidate_dir)
            reply = _build(runner, offset_pass)
            return runner if (settle(runner, reply, False) if offset_pass else reply).get("compiled") is True else None

        def baseline_alone(config) -> tuple[str | None, str, str | None]:
            """The baseline's check of `config` again with every process of the candidate's gone: its
            error (None: it passed), what the driver listed the candidate holding of the device's
            memory before it went, and the judge's own failure alone (None: none), which is recorded
            here as the task's (its reference or make_inputs raised) or the harness's."""
            held = device_memory_held(candidate.members()) if device == "cuda" else ""
            retire(candidate)
            try:
                release_device_cache(device)
                with phases("baseline alone"):
                    alone, _, _ = judge.correctness(baseline, None, config, symmetric=False)
                return alone, held, None
            except TaskBroken as broken:          # the task's own failure, alone: as before
                evaluation.task_error = evaluation.task_error or str(broken)
                return None, held, f"task: {broken}"
            except (RunnerFailed, Mismatch) as exc:   # the baseline's runner, alone: the harness's (it died)
                fault = f"the baseline runner failed alone: {exc}"[:500]
            except Exception as exc:              # the judge itself, alone: the harness's failure
                traceback.print_exc()
                fault = f"evaluator: {type(exc).__name__}: {exc}"[:500]
            evaluation.harness_error = evaluation.harness_error or f"the judge failed on {config.name}: {fault}"[:500]
            return None, held, fault

        def check_alone(config, row: ConfigResult) -> RunnerClient | None:
            """The baseline failed this config beside the candidate's runner: it is checked again
            with every process of the candidate's gone. A baseline that passes alone was kept from
            passing by what the candidate took of the device or the host (its memory, its queue):
            the config is the candidate's failure, never the task's, and the quadrant and the
            generalisation figures keep it as a baseline pass (a candidate's way to drop a config
            it fails from them). One that fails alone too stays as it was. The candidate's successor."""
            alone, held, fault = baseline_alone(config)
            if fault is not None:
                row.error = f"{row.error} (checked alone: {fault})"[:800]
            elif alone is None:
                why = f"the candidate kept it from running (device or host memory, the device's queue){held}"
                if row.correct:      # the row's error is the baseline's (the candidate's own check passed)
                    beside = (row.error or "").removeprefix("baseline: ")
                    row.error = f"the baseline failed beside the candidate's runner ({beside[:300]}) and passed alone: {why}"
                else:
                    row.error = f"{row.error} (and the baseline, which failed beside it, passed alone: {why})"
                row.baseline_correct, row.correct = True, False
            return restarted()

        def judge_alone(config, split: str, failed: Exception) -> tuple[ConfigResult, RunnerClient | None]:
            """A step of the judge's own (its inputs, its reference's outputs, its comparison) failed
            beside the candidate's runner: ran out of the device's memory, or the task's reference or
            make_inputs raised (they run in the judge's process, on the device the candidate shares).
            Were that the harness's failure or the task's, the evaluation would never be scored and
            would be redone: a candidate could take the device's memory whenever a config goes
            against it. Failing twice beside the candidate (judge_config's caller), the judge's side
            of the config is done again with every process of the candidate's gone: succeeding alone, the candidate kept the judge from it and the config is
            the candidate's failure; failing alone too, the task's or the harness's, as before.
            (The config's row, the candidate's successor.)"""
            row = ConfigResult(config=config.name, split=split, params=dict(config.params), correct=False)
            alone, held, fault = baseline_alone(config)
            if fault is not None:
                row.error = fault
                return row, restarted()
            row.baseline_correct = alone is None
            what = "ran out of the device's memory" if short_of_device_memory(failed) else "failed"
            row.error = (f"the judge's own step {what} beside the candidate's runner ({str(failed)[:200]}){held}, "
                         "and succeeded with the candidate gone: the candidate kept the judge from it")
            return row, restarted()

        # The runners start first: each imports torch and what its guards need (seconds) while the
        # judge starts up and waits for the device. Nothing touches the GPU before their build,
        # which comes once the device is held.
        with phases("runner spawn"):
            baseline = start("baseline", None)
            candidate = None if baseline_only else start("candidate", candidate_dir)
            # The clean room's stand-in for the candidate (Judge.clean_room): the baseline's own code
            # in a third runner, built beside the others and stopped until the candidate is gone.
            stand_in = start("baseline", None, stand_in=True) if wants_clean_room else None
        with exclusive_device(device) as held:
            if sampler_program is not None:     # CUPTI's start (0.6-0.9 s) beside the judge's own set-up
                with phases("dram witness start"):
                    witness = _start_witness(sampler_program, scratch, isolation.judge_cores)
            try:
                with phases("reference import+warm-up"):
                    protocol.strict_float32()
                    reference = import_reference(task.reference)
                    fp32_task = _warm_up(reference, task, device)
            except TaskBroken as exc:
                evaluation.task_error = str(exc)
                evaluation.error = f"task: {exc}"
                return evaluation
            evaluation.environment = environment(device, isolation)
            if candidate is not None and candidate.group is not None:   # what holds the candidate's runner
                evaluation.environment["candidate_runner_limits"] = candidate.group.enforced
            if witness is not None:     # before any candidate code is built: none can take the device's sampler first
                with phases("dram witness ready"):
                    witness = _witness_ready(witness)
                if isinstance(witness, str):
                    flags.append(witness)
                    witness = None
            judge = Judge(task, device, reference, fp32_task=fp32_task, regime=regime, graph=graph,
                          max_speedup=max_speedup, phases=phases,
                          use_arena=(policy.ARENA[device_kind(device)] if use_arena is None else use_arena)
                          and arena.available(device))
            judge.dram = witness
            if use_arena and not judge.use_arena:
                flags.append(f"note: no arena on {device} here (NVIDIA's VMM API): each runner placed its own buffers")
            if baseline_only:
                evaluation.compile_log = "baseline only: no candidate was evaluated"
            else:
                tree = kernel_tree(task.files, task.editable, candidate_dir, scratch / "candidate-source")
                # a fresh copy from the task, not the baseline runner's tree (the candidate's runner
                # reads that one for the offset pass): the allowance must come from files it never had
                shipped = None if task.baseline_is_reference else kernel_tree(task.files, task.editable, None,
                                                                             scratch / "baseline-source")
                flags += static_flags(task, tree, fp32_task, shipped)
                judge.declared = {"candidate": _declared_kernels(task, language, tree),
                                  "baseline": _declared_kernels(task, language, shipped) if shipped else None}
            # Both runners build at once (nvcc takes seconds each); neither sees the other. With the
            # offset pass the candidate's runner builds the baseline first, and its own kernel after.
            with phases("runner start+build"), ThreadPoolExecutor(max_workers=len(runners)) as pool:
                builds = {runner: pool.submit(_build_stand_in, runner, judge._common(False)) if runner.stand_in
                          else pool.submit(_build, runner, offset_pass) for runner in runners}
                if offset_pass and builds[baseline].result().get("compiled"):
                    first = judge.quickest(baseline, every)
                builds = {runner: future.result() for runner, future in builds.items()}
            built = builds[baseline]
            if stand_in is not None:
                if not builds[stand_in].get("compiled"):
                    flags.append("note: the clean room's stand-in (the baseline's code in a third runner) did not "
                                 "build (or make its clock): the clean room times the baseline alone" + _NO_PAIR)
                    retire(stand_in)
                    stand_in = None
                else:
                    stand_in.freeze()
            built_beside = candidate is not None and not offset_pass   # the candidate's code built beside it
            if not built.get("compiled") and built_beside and baseline.proc.poll() is None:
                built = _build(baseline)          # once more beside the candidate: a passing fault is no one's
            if not built.get("compiled"):
                # (with the offset pass the candidate's runner built the baseline's own files: the task's)
                alone_log = built_alone(str(built.get("log", ""))) if built_beside else None
                if alone_log is None:
                    evaluation.task_error = "the baseline did not build: " + str(built.get("log", ""))[-1500:]
                    evaluation.error = f"task: {evaluation.task_error}"
                    return evaluation
                evaluation.compile_log, candidate = alone_log, None
            if candidate is not None:
                try:
                    reply = settle(candidate, builds[candidate]) if offset_pass else builds[candidate]
                except TaskBroken as exc:        # the baseline's own copy did not build beside the candidate's code
                    alone_log = built_alone(str(exc))
                    if alone_log is None:
                        evaluation.task_error = str(exc)
                        evaluation.error = f"task: {exc}"
                        return evaluation
                    reply = {"compiled": False, "log": alone_log}
                evaluation.compile_log = str(reply.get("log", ""))[-8000:]
                if reply.get("compiled") is True:
                    evaluation.compiled = True
                else:
                    retire(candidate)
                    candidate = None
            if judge.baseline_offset_ms is not None:
                evaluation.timing_method += ("; each baseline time moved to the candidate's runner process by "
                                             f"its offset, measured on {first.name} before the candidate was loaded, "
                                             "each interval widened by the offset's share of its call")
            if measure and candidate is not None:
                timed = [(c.split, c.name) for split in splits for c in configs[split]]
                judge.watched = set(judge.rng.sample(timed, min(policy.WATCHED_CONFIGS, len(timed))))
            launch_checked = False

            def judge_config(config, split: str) -> ConfigResult:
                """The config's row; a candidate's runner that crashed replaced. A step of the judge's
                own that failed beside a live candidate (out of the device's memory, the task's
                reference or make_inputs raising) is raised as _Beside, for the caller to do again."""
                nonlocal candidate, launch_checked
                try:
                    row = judge.config_result(baseline, candidate, config, measure)
                    # With the device trace the runner leaves this check to the trace (every timed
                    # call's kernels are read), and the call would be a correctness call no
                    # baseline call mirrors (the X->X allowance is per config: Judge._read_trace).
                    # A torch extension's forward is checked too (build.LAUNCHING_LANGUAGES:
                    # the call needs no `extern "C"` launch). The device trace itself is wanted by
                    # device alone (devtrace.wanted): it reads an extension's calls as any kernel's.
                    if row.correct and not launch_checked and device != "cpu" and language in LAUNCHING_LANGUAGES \
                            and trace_library is None:
                        launch_checked = True
                        args = judge.inputs(config, policy.WARMUP_SEED)
                        judge.call(candidate, args, judge.expected(args), launch_check=True)
                except TaskBroken as exc:
                    if candidate is not None and candidate.proc.poll() is None:
                        raise _Beside() from exc
                    evaluation.task_error = evaluation.task_error or str(exc)
                    row = ConfigResult(config=config.name, split=split, params=dict(config.params),
                                       correct=False, error=f"task: {exc}")
                except (RunnerFailed, Mismatch) as exc:
                    row = ConfigResult(config=config.name, split=split, params=dict(config.params),
                                       correct=False, error=str(exc)[:500])
                    if candidate is not None and candidate.proc.poll() is not None:
                        retire(candidate)    # what it left running is gone before its successor is timed
                        candidate = restarted()                            # a crash fails this config only
                    if baseline.proc.poll() is not None:
                        evaluation.error = f"the baseline runner died: {exc}"[:500]
                        evaluation.harness_error = evaluation.harness_error or evaluation.error
                except Exception as exc:  # the judge itself must not lose the other configs
                    if candidate is not None and candidate.proc.poll() is None and short_of_device_memory(exc):
                        raise _Beside() from exc
                    traceback.print_exc()
                    row = ConfigResult(config=config.name, split=split, params=dict(config.params),
                                       correct=False, error=f"evaluator: {type(exc).__name__}: {exc}")
                    evaluation.harness_error = (evaluation.harness_error
                                                or f"the judge failed on {config.name}: {row.error}"[:500])
                return row

            for split in splits:
                for config in configs[split]:
                    try:
                        try:
                            row = judge_config(config, split)
                        except _Beside:
                            # Once more beside the candidate, the judge's own allocator's cache given
                            # back first: what that cache held (fragments) or a passing fault is no
                            # one's doing, and a config judged whole the second time stands.
                            release_device_cache(device)
                            row = judge_config(config, split)
                    except _Beside as beside:
                        row, candidate = judge_alone(config, split, beside.__cause__)
                        evaluation.configs.append(row)
                        continue
                    if candidate is not None and row.baseline_correct is False and baseline.proc.poll() is None:
                        candidate = check_alone(config, row)
                    evaluation.configs.append(row)
            if wants_clean_room and candidate is not None:
                # Every process of the candidate, and with them its GPU contexts and their queued
                # work, ends before the baseline's clean-room batches.
                retire(candidate)
                candidate = None
                with phases("timing: clean-room baseline"):
                    try:
                        chosen = {(c.split, c.name): c for split in splits for c in configs[split]}
                        if stand_in is not None:
                            with phases("(clean room: the stand-in's cache)"):
                                stand_in.take_compiled(baseline)
                            stand_in.thaw()
                        try:
                            judge.clean_room(baseline, evaluation.configs, chosen, stand_in)
                            judge.widen_for_pairs(evaluation.configs)
                            if stand_in is not None:
                                evaluation.timing_method += ("; clean room: the baseline's batches alternate with a "
                                                             "stand-in of its own code in a runner of the judge's")
                        except (RunnerFailed, Mismatch) as exc:
                            if stand_in is None or baseline.proc.poll() is not None or not _ended(stand_in):
                                raise
                            # the stand-in (trusted code) died: a harness fault, not the candidate's
                            flags.append(f"note: the clean room's stand-in failed ({str(exc)[:600]}); the clean "
                                         "room timed the baseline alone" + _NO_PAIR)
                            judge.clean_room(baseline, evaluation.configs, chosen)
                    except (RunnerFailed, Mismatch) as exc:
                        evaluation.error = evaluation.error or f"the baseline failed its clean-room batches: {exc}"[:500]
                        evaluation.harness_error = evaluation.harness_error or evaluation.error
            flags += judge.flags
            if judge.dram_lost:     # a check that did not run is no pass (nor the candidate's failure): redone
                evaluation.error = evaluation.error or judge.dram_lost[:500]
                evaluation.harness_error = evaluation.harness_error or judge.dram_lost[:500]
            if measure:   # graded against this GPU's measured ceilings, on the judge's own figures
                flags += roofline.annotate(evaluation, task, device)
            if judge.arena_configs:
                evaluation.timing_method += ("; each round's inputs and harness-made outputs at one place in one "
                                             "judge-owned arena for both kernels")
            if judge.arena_failures:
                flags.append(f"note: {len(judge.arena_failures)} timed config(s) without the arena, each runner placing "
                             f"its own buffers ({judge.arena_failures[0]})")
            if judge.dram is not None:
                evaluation.timing_method += ("; the L2 flush witnessed by the device's DRAM counters (CUPTI's PM "
                                             "sampling, in a process of the judge's): each timed batch held to reading from "
                                             "DRAM what its flushes must")
            if trace_library is not None:   # CUPTI records every timed call of both runners (devtrace.py)
                evaluation.timing_method += ("; every call of both runners under the device trace (CUPTI; "
                                             "GAUNTLET_DEVICE_TRACE=0 times without it, docs/evaluation.md), each "
                                             "sample at least the call's device time less the baseline's gap and "
                                             f"{devtrace.FLOOR_SLACK_MS * 1000:.1f} us")
            covers = judge.launch_covers["baseline"] | judge.launch_covers["candidate"]
            if covers:
                evaluation.timing_method += f"; launches covered by {' / '.join(sorted(covers))}"
            if judge.launch_covers["baseline"] != judge.launch_covers["candidate"]:
                why = f"; the baseline's runner had no gate: {'; '.join(sorted(judge.gate_errors))}" if judge.gate_errors else ""
                flags.append("note: the two runners' clocks covered launches differently "
                             f"({', '.join(sorted(covers))}): their times are less comparable{why}")
            for role, count in judge.gate_gave_up.items():
                if count:
                    flags.append(f"note: the launch gate ran out on, or was told not to wait for, {count} timed "
                                 f"call(s) of the {role} (a call that blocks the host before its launches are "
                                 "queued): their samples hold host time")
            for role, count in judge.own_blocks_missed.items():
                if count:
                    flags.append(f"note: {count} timed batch(es) of the {role}'s runner ran with its kernel's own "
                                 "blocks where its allocator put them, not moved (own_blocks.py could not be used "
                                 "there): the two kernels' places were not drawn alike")
            if held:
                flags.append(held)
    finally:
        for runner in runners:
            if runner.stand_in:
                runner.thaw()            # stopped since its build when no clean room came
            for op, seconds in runner.op_seconds.items():
                phases.seconds[f"({'stand-in' if runner.stand_in else runner.role} runner: {op})"] += seconds
        with phases("runner exit"):
            close_all(runners)
        if judge is not None:
            judge.close_arena()
        if isinstance(witness, dram.Witness):     # (a note where it never became one)
            ended = witness.stop()
            trace_record(lambda: {"task": task.id, "dram_witness": ended})
        remove_tree(scratch, ignore_errors=True)
        phases.seconds["total"] = time.perf_counter() - started
        trace_record(lambda: {"task": task.id, "phases_s": dict(phases.seconds),
                              "process_offset": judge.offset_record if judge else {},
                              "baseline_offset_ms": judge.baseline_offset_ms if judge else None})
    # The correctness calls each runner's trace was left with (configs after the last timed one,
    # where both runners went through the same calls), the candidate's against the baseline's
    baseline_left = [call for r in started_runners if r.role == "baseline" for call in r.calls_left]
    foreign = judge.foreign("candidate", baseline_left) if judge is not None else devtrace.Foreign()
    glue = None
    if not task.baseline_is_reference:
        glue = devtrace.Glue.of(baseline_left, judge.foreign("baseline") if judge is not None else devtrace.Foreign())
    for runner in started_runners:
        flags += runner.outside_findings
        if runner.role == "candidate":
            flags += devtrace.call_findings(runner.calls_left, glue, foreign)
    changed = [p for p, h in task_digest(folders).items() if digest_before.get(p) != h]
    changed += [p for p in digest_before if not Path(p).exists()]
    if changed:
        flags.append("tampered_task_files: " + ", ".join(sorted({Path(p).name for p in changed})[:5]))
    for row in evaluation.configs:
        flags += row.flags
    evaluation.flags, evaluation.notes, evaluation.in_process_flags = split_flags(
        flags, judge.in_process_flags if judge is not None else [])
    return evaluation


def split_flags(raised: list[str], said: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(flags, notes, in-process flags) of a verdict, each once: `raised` every line's, `said` those of
    them the candidate's process reported (each time it did). A wording the candidate copied from a
    flag another line raised stays that line's: a runner cannot relabel the judge's evidence as its
    own."""
    flags = list(dict.fromkeys(f for f in raised if not f.startswith("note:")))
    notes = list(dict.fromkeys(f for f in raised if f.startswith("note:")))
    others = Counter(raised) - Counter(said)          # what some other line raised too
    return flags, notes, [f for f in flags if f in said and not others[f]]
