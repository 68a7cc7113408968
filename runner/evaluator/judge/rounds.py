"""The timing of one config: alternating rounds of baseline and candidate batches on the judge's clock,
the repetitions it checks, the time bound, the process offset and the clean room."""
from __future__ import annotations

import json
import math
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from runner.evaluator import arena, devtrace, protocol, timing
from runner.evaluator.judge import dram, policy
from runner.evaluator.judge.runners import RunnerClient, RunnerFailed, interference, placement_for
from runner.evaluator.judge.values import (Frozen, Mismatch, SentInputs, canonical_for, compare, out_buffers,
                                           received)
from runner.results.result import ConfigResult
from runner.tasks.task import Config


def trace_record(make) -> None:
    """One line of the judge's own record for the benches (GAUNTLET_JUDGE_TRACE: bench/judge_gpu.py),
    `make()` building it only when it is asked for."""
    trace = os.environ.get("GAUNTLET_JUDGE_TRACE")
    if trace:
        with open(trace, "a") as fh:
            fh.write(json.dumps(make()) + "\n")


class Rounds:
    """Judge's timing half (runner/evaluator/judge/config_judge.py holds the state)."""

    # -- performance -----------------------------------------------------------------------------
    def share_arena(self, runners, args, expected: Frozen) -> "arena.Layout | None":
        """A new arena for one timed config (arena.py), mapped by every runner in `runners`, and its
        layout; None where there is none (the CPU, no VMM API, a driver or runner that refused it):
        each runner then places its own buffers, as the other does too. The last arena goes."""
        if not self.use_arena:
            return None
        layout = arena.Layout(arena.span(arena.sizes(args)), arena.span(arena.sizes(expected.tensors)))
        self.close_arena()
        try:
            self.arena = arena.Arena.create(layout.nbytes, self.torch_device)
            for runner in runners:
                reply = runner.request({"op": "arena", "nbytes": self.arena.nbytes, "address": self.arena.address},
                                       [self.arena.fd])
                if not reply["ok"]:
                    raise arena.ArenaError(f"the {runner.role} runner: {str(reply.get('error'))[:160]}")
        except (arena.ArenaError, OSError) as exc:
            self.arena_failures.append(str(exc)[:200])
            self.close_arena()
            return None
        self.arena_configs += 1
        return layout

    def close_arena(self) -> None:
        if self.arena is not None:
            self.arena.close()
            self.arena = None

    def time(self, baseline: RunnerClient, candidate: RunnerClient, config: Config, probe: bool = False):
        """(baseline Timed, candidate Timed, bound) for one config; raises Mismatch when a checked
        repetition is wrong or its outputs are not the ones the runner committed to. `probe`: the
        candidate's runner holds the baseline (process_offset): no watch, no evidence, no checks."""
        with self.phases("inputs+reference"):
            args = self.inputs(config, policy.TIMING_SEED)
            expected = self.expected(args)
        runners = {"baseline": baseline, "candidate": candidate}
        for runner in runners.values():
            runner.trace_batches.clear()
        with self.phases("timing: load"):
            sent = SentInputs(args)
            try:
                for runner in runners.values():
                    self.load(runner, args, expected, sent)
            finally:
                sent.close()
        graph = self.graph and self.device != "cpu"
        if graph:
            failed = {name: r.request({"op": "capture", "regime": self.regime, "graph": True})
                      for name, r in runners.items()}
            failed = {name: rep for name, rep in failed.items() if not rep["ok"]}
            if failed:
                name, reply = next(iter(failed.items()))
                self.row_notes.append(f"note: CUDA-graph capture of the {name} failed ({str(reply.get('error'))[:120]}); "
                                      "both timed with eager calls")
                graph = False
                for runner in runners.values():      # drop any replay that was made
                    self.load(runner, args, expected)
        common = self._common(graph)
        # Each round's buffers at one place in one arena for both kernels (a replay keeps its own)
        layout = None if graph else self.share_arena(runners.values(), args, expected)
        common.update(placement_for(layout, self.rng))
        host, estimate, unheld = [], {}, {}
        cpu = self.device == "cpu"
        if probe:       # both runners' first calls compile the same JIT kernels (seconds, CPU): at once
            with ThreadPoolExecutor(max_workers=2) as threads:
                list(threads.map(lambda r: r.request(self._time_message(r, timing.WARMUP_CALLS, common, keep=False)),
                                 runners.values()))
        for name, runner in runners.items():
            if cpu:            # no warm-up on the CPU (timing.CPU_REPS): no estimate, pad or watch is used there
                continue
            # Both runners start the stream watch's profiler once: an activated profiler slows
            # every later launch in its process, so it must be the same in both (its findings
            # count against the candidate only).
            watch = not probe and (self.watched is None or (config.split, config.name) in self.watched)
            # The baseline's warm-up decides its launch pad, whether its gate waits, and its
            # estimate: the candidate is stopped as for the baseline's timed batches (a candidate
            # loading the host could otherwise make the baseline's launches run the gate out).
            with self._stopped(runners["candidate"] if name == "baseline" and not probe else None):
                with self.phases("timing: warm-up" + (" (watched)" if watch else "")):
                    warm = self._batch(runner, timing.WARMUP_CALLS, common, keep=False, watch=watch,
                                       evidence=name == "candidate" and not probe)
                unheld[name] = timing.gate_wait(warm.get("gate_gave_up"), timing.WARMUP_CALLS)
                host += warm["host_ms"]
                with self.phases("timing: estimate"):
                    estimate[name] = max(self._batch(runner, 3, {**common, **unheld.get(name, {})}, keep=False)["samples"])
        with self.phases("timing: spin rate"):
            pad = timing.launch_pad_ms(host) if self.device != "cpu" else None
            if pad is not None:
                import torch
                common["cycles_per_ms"] = timing.spin_rate(torch)      # one figure for both runners
        out_bytes = sum(t.numel() * t.element_size() for t in expected.tensors)
        capacity = max(1, min(timing.MAX_REPS, policy.KEPT_BYTES[self.kind] // max(1, 2 * out_bytes)))
        # The offset's rounds are as many as a timed config's: its error moves every config's speedup.
        rounds = timing.CPU_REPS if cpu else timing.rounds_for(min(estimate.values()))
        per_round = 1 if cpu else timing.reps_per_round(estimate["candidate"], rounds)
        # Which batches of the candidate are checked: about policy.CHECKS_PER_CONFIG of them at random, and
        # always the last (a kernel moves its figure, a median of round differences, only by being
        # wrong in most rounds, and each check names one repetition at random after the batch).
        batches = rounds * -(-per_round // capacity)
        check_probability = min(policy.CHECK_PROBABILITY, policy.CHECKS_PER_CONFIG / batches)
        by_round = {name: [] for name in runners}   # each round's samples (timing.stats)
        gaps = {name: [] for name in runners}
        walls = {name: [] for name in runners}     # (judge's ms, n, sum of samples ms) per batch
        spans = {name: [] for name in runners}     # (host ns at its request, at its reply, n) per batch: dram.py
        traced_at = []      # (runner, round, first sample's index there, its trace batch's index) per timed batch
        orders = []
        planned, round_index = rounds, 0
        while round_index < rounds:
            last_round = round_index == rounds - 1
            # Which runner goes first is drawn per round: a fixed order gives one of them the same
            # neighbour every round (what ran just before, the judge's check and freeze between), and
            # a bias that holds in every round is one no number of rounds averages out.
            order = list(runners.items())
            if self.rng.random() < 0.5:
                order.reverse()
            orders.append(order[0][0])
            common.update(placement_for(layout, self.rng))
            for name, runner in order:
                by_round[name].append([])
                left = 1 if cpu else timing.reps_per_round(estimate[name], planned)
                while left:
                    n = min(left, capacity)
                    left -= n
                    seed = self.rng.getrandbits(62)
                    traced = len(runner.trace_batches)
                    with self._stopped(candidate if name == "baseline" else None):
                        started, host_ns = time.perf_counter(), time.time_ns()
                        reply = self._batch(runner, n, {**common, "pad_ms": pad, **unheld.get(name, {})}, keep=True, seed=seed,
                                            evidence=name == "candidate" and not probe)
                        wall_ms = (time.perf_counter() - started) * 1000.0
                        spans[name].append((host_ns, time.time_ns(), n))
                    self.phases.seconds[f"timing: {name} batches"] += wall_ms / 1000.0
                    walls[name].append((wall_ms, n, sum(reply["samples"])))
                    if len(runner.trace_batches) == traced + 1:
                        traced_at.append((name, len(by_round[name]) - 1, len(by_round[name][-1]), traced))
                    by_round[name][-1] += reply["samples"]
                    gaps[name] += reply["gaps"]
                    if name == "candidate" and not probe and (
                            (last_round and not left) or self.rng.random() < check_probability):
                        with self.phases("timing: repetition checks"):
                            self._check_repetition(runner, args, expected, seed, reply["digests"])
                    runner.request({"op": "release"})
            round_index += 1
            if round_index == rounds:     # a config whose rounds spread widely (the CPU: a cheap one): more of them
                rounds += timing.more_rounds(by_round["baseline"], by_round["candidate"], planned)
        unflushed = {}
        if not probe and self._unflushed_wanted(graph):
            with self.phases("timing: unflushed batches"):
                unflushed = self._unflushed(runners, args, expected, {**common, "pad_ms": pad},
                                            unheld, min(per_round, capacity))
        segments = self._segments(runners)
        if segments is not None:
            self._floor_at_device_time(runners, segments, by_round, traced_at)
        timed = {name: timing.stats([x for r in by_round[name] for x in r], 0, gaps[name], by_round[name])
                 for name in runners}
        timed["candidate"] = timing.paired(timed["baseline"], timed["candidate"])
        floor = None
        bound = self._bound(walls, timed["baseline"])
        if not probe and bound["short_ms"] < -bound["low_limit_ms"]:
            # "steps skipped" would be said against the baseline's own batches: read it against the
            # harness floor as well (measured only here: 100 calls a config took 0.13-0.27 s on an H200, and it can
            # only lower the figure a candidate is compared with)
            with self.phases("timing: harness floor"):
                floor = self._harness_floor(baseline, candidate, min(per_round, capacity, policy.FLOOR_CALLS),
                                            {**common, "pad_ms": pad, **unheld.get("candidate", {})})
            bound = self._bound(walls, timed["baseline"], floor)
        if not probe:
            self.timing_setup[(config.split, config.name)] = {
                "common": {**common, "pad_ms": pad, **unheld.get("baseline", {})}, "graph": graph, "capacity": capacity, "arena": layout is not None,
                "batches": rounds if cpu else policy.CLEAN_ROOM_ROUNDS, "rounds": len(timed["baseline"].round_ms),
                # the clean room's rounds hold a quarter of a timed round's calls each (8 of them: two
                # rounds' worth), at least a round's figure's worth (timing.MIN_ROUND_SAMPLES)
                "n": 1 if cpu else max(timing.MIN_ROUND_SAMPLES,
                                       -(-timing.reps_per_round(estimate["baseline"], timing.ROUNDS) // 4))}
        trace_record(lambda: {      # every batch, for the record
            "config": config.name, "probe": probe, "walls": walls, "first": orders, "pad_ms": pad, "floor_ms": floor,
            "cycles_per_ms": common.get("cycles_per_ms"),
            "time_ms": {k: v.time_ms for k, v in timed.items()},
            "gap_ms": {k: v.gap_ms for k, v in timed.items()}, "rounds": rounds, "planned": planned,
            # other statistics of the same samples (bench: the A/B of timing.stats)
            "plain_median_ms": {k: statistics.median(v.all_ms) for k, v in timed.items()},
            "round_samples": by_round if os.environ.get("GAUNTLET_JUDGE_TRACE_SAMPLES") else None})
        if not probe:
            self._read_trace(config, baseline, candidate, segments)
            self._read_dram(config, spans, unflushed)
        return timed["baseline"], timed["candidate"], bound

    def _unflushed_wanted(self, graph: bool) -> bool:
        return (self.dram is not None and self.regime == "cold" and not graph
                and (policy.DRAM_UNFLUSHED[self.kind] or os.environ.get("GAUNTLET_DRAM_UNFLUSHED") == "1"))

    def _unflushed(self, runners: dict, args, expected: Frozen, common: dict, unheld: dict, n: int) -> dict:
        """The DRAM witness's differential (dram.unflushed_findings): one batch of n calls a runner with
        no flush (the warm regime for that batch alone), each (host ns at its request, at its reply, n);
        the candidate's outputs checked as a timed batch's, at policy.UNFLUSHED_CHECKS repetitions (its
        DRAM reads there must be a correct kernel's), its records no timed batch's (RunnerClient:
        `unflushed`)."""
        out = {}
        for name, runner in runners.items():
            seed = self.rng.getrandbits(62)
            with self._stopped(runners["candidate"] if name == "baseline" else None):
                host_ns = time.time_ns()
                reply = self._batch(runner, n, {**common, **unheld.get(name, {}), "regime": "warm", "unflushed": True},
                                    keep=True, seed=seed, evidence=name == "candidate")
                out[name] = (host_ns, time.time_ns(), n)
            if name == "candidate":
                with self.phases("timing: repetition checks"):
                    for _ in range(policy.UNFLUSHED_CHECKS):
                        self._check_repetition(runner, args, expected, seed, reply["digests"])
            runner.request({"op": "release"})
        return out

    def _read_dram(self, config: Config, spans: dict, unflushed: dict | None = None) -> None:
        """The DRAM witness (dram.py) over this config's timed batches, and its unflushed ones where
        the judge ran them, where the judge runs a witness."""
        if self.dram is None or self.regime != "cold":
            return
        extra = [unflushed["baseline"], unflushed["candidate"]] if unflushed else []
        with self.phases("timing: dram witness"):     # one read of all: the rounds interleave them
            every = self.dram.reads(spans["baseline"] + spans["candidate"] + extra)
        if every is None:
            ended = self.dram.stop()
            self._dram_lost(config, f"the judge's DRAM witness ended while the candidate's code was loaded (on "
                                    f"{config.name}, rc={ended['rc']}: {ended['stderr'][-120:].strip()})")
            return
        split, timed = len(spans["baseline"]), len(spans["baseline"]) + len(spans["candidate"])
        unseen = dram.unseen(every[:split], every[split:timed], self.dram.flush_bytes, self.dram.l2_bytes,
                             every[timed:])
        if unseen:
            trace_record(lambda: {"config": config.name, "dram": {"unseen": unseen, "coverage": [
                round(r.coverage, 3) for r in every]}})
            self.dram.stop()
            self._dram_lost(config, f"{unseen} on {config.name}")
            return
        found, notes, record = dram.flush_findings(every[:split], every[split:timed], self.dram.flush_bytes,
                                                   self.dram.l2_bytes)
        if extra:
            more, more_notes, record["unflushed"] = dram.unflushed_findings(
                every[:split], every[split:timed], *every[timed:], self.dram.flush_bytes, self.dram.l2_bytes)
            found, notes = found + more, notes + more_notes
        trace_record(lambda: {"config": config.name, "dram": record})
        self.row_notes += notes
        self.flags += [f"{finding} ({config.name})" for finding in found]

    def _dram_lost(self, config: Config, why: str) -> None:
        """The flush was not witnessed: no pass and no failure (the evaluation: infra_error, redone by
        --resume); the witness read no more."""
        self.dram_lost = f"{why}: the L2 flush was not witnessed"
        self.row_notes.append(f"note: no DRAM witness on {config.name} and after ({self.dram_lost})")
        self.dram = None

    @staticmethod
    def _segments(runners: dict) -> dict | None:
        """Each runner's batches of this config as the device trace saw them (devtrace.segment), read
        once for the floor and the rules; None where a runner has no trace."""
        if any(r.trace is None for r in runners.values()):
            return None
        return {name: [devtrace.segment(ops, n) for ops, n, _ in r.trace_batches] for name, r in runners.items()}

    @staticmethod
    def _floor_at_device_time(runners: dict, segments: dict, by_round: dict, traced_at: list) -> None:
        """Every timed call's sample, in both runners, at least its device time less the baseline's
        gap (devtrace.floored): the figure rests on the device's clock, read outside the candidate's
        process, to within FLOOR_SLACK_MS. Not where the baseline's own trace did not read whole
        (there is no gap to take off: _read_trace notes it)."""
        baseline = runners["baseline"]
        paired = [(b, samples) for b, (_, _, samples) in zip(segments["baseline"], baseline.trace_batches)]
        if not paired or any(b.problems for b, _ in paired) or baseline.trace.problems:
            return
        offset_ms = devtrace.clock_offset(paired, baseline.empty_ms)
        for name, round_index, first, index in traced_at:
            samples = by_round[name][round_index]
            n = runners[name].trace_batches[index][1]
            samples[first:first + n] = devtrace.floored(samples[first:first + n], segments[name][index], offset_ms)

    def _harness_floor(self, baseline: RunnerClient, candidate: RunnerClient, n: int, common: dict) -> float:
        """Per call, the judge's wall time that the samples do not explain for a call that launches
        nothing, in the baseline's runner (trusted code; every step of a timed call: flush, gate,
        sync, perturbation, digest, the runner's loop): what a candidate's runner that skipped none
        of them cannot go below. The baseline's own batches are no such floor: a baseline of many
        launches spends time beside its samples that a one-kernel candidate does not (an H200 read
        1.5-4.9 ms a call beside a PyTorch loop over 40-60 experts, and an honest oracle "skipped
        steps")."""
        with self._stopped(candidate):
            started = time.perf_counter()
            reply = self._batch(baseline, n, {**common, "empty": True}, keep=True, evidence=False)
            wall_ms = (time.perf_counter() - started) * 1000.0
        baseline.request({"op": "release"})
        return (wall_ms - sum(reply["samples"])) / n

    def foreign(self, role: str, baseline_calls: list | None = None) -> devtrace.Foreign:
        """What the device trace reads as not written by `role`'s code (devtrace.Foreign): in a
        Triton task any C++ kernel; in a native one what its sources do not declare; for the
        candidate of a PyTorch->X task, the kernels the baseline (PyTorch itself) ran in
        `baseline_calls`."""
        reference = frozenset()
        if role == "candidate" and not self.baseline_glue and baseline_calls:
            reference = devtrace.reference_kernels(baseline_calls)
        return devtrace.Foreign(reference, cxx=self.task.language == "triton", declared=self.declared[role])

    def _read_trace(self, config: Config, baseline: RunnerClient, candidate: RunnerClient,
                    segments: dict | None = None) -> None:
        """The device trace of this config's timed batches (devtrace.py), the candidate's read
        against the baseline's, and of its correctness calls (each runner's trace kept them at its
        first batch here: this config's, and those of an untimed config before it) against the
        baseline's. A trace the baseline's runner did not deliver either is this machine's (a note),
        never the candidate's doing; nothing is allowed then."""
        if candidate.trace is None or baseline.trace is None:
            return
        base_calls, cand_calls = baseline.trace.take_kept(), candidate.trace.take_kept()
        segments = segments or self._segments({"baseline": baseline, "candidate": candidate})
        paired = [(b, samples) for b, (_, _, samples) in zip(segments["baseline"], baseline.trace_batches)]
        base = [b for b, _ in paired]
        cand = [(b, samples) for b, (_, _, samples) in zip(segments["candidate"], candidate.trace_batches)]
        if not base or any(b.problems for b in base) or baseline.trace.problems:
            problems = [p for b in base for p in b.problems] + baseline.trace.problems
            self.row_notes.append("note: no device trace read on this config (the baseline's runner: "
                                  + ("; ".join(dict.fromkeys(problems))[:200] or "no batches") + ")")
            self.flags += [f"{finding} ({config.name})" for finding in devtrace.call_findings(cand_calls)]
            return
        # X->X: the PyTorch kernels the task's shipped code runs itself on this config, in the same
        # kind of call (timed, correctness: the baseline's runner went through the very same calls)
        base_inside = [call for b in base for call in b.inside]
        glue = call_glue = None
        if self.baseline_glue:     # read against what the shipped code's own sources declare
            glue = devtrace.Glue.of(base_inside, self.foreign("baseline"))
            call_glue = devtrace.Glue.of(base_calls, self.foreign("baseline"))
        foreign = self.foreign("candidate", base_inside + base_calls)
        offset_ms = devtrace.clock_offset(paired, baseline.empty_ms)
        found = devtrace.findings(cand, base, own_kernel_required=True, glue=glue, foreign=foreign, offset_ms=offset_ms,
                                  cold=self.regime == "cold")
        found += devtrace.call_findings(cand_calls, call_glue, foreign)
        trace_record(lambda: {"config": config.name, "devtrace": {     # what each rule read
            "baseline": [devtrace.summary(b, s) for b, s in paired], "offset_ms": offset_ms,
            "flush": devtrace.flush_of(base) if self.regime == "cold" else None,
            "empty_ms": baseline.empty_ms,
            "candidate": [devtrace.summary(b, s) for b, s in cand], "findings": found}})
        found += [f"device_trace: {p}" for p in candidate.trace.problems]
        foreign = candidate.trace.foreign()
        if foreign:
            found.append(f"foreign_process: the device trace saw {len(foreign)} operation(s) from another process")
        for finding in dict.fromkeys(found):
            self.flags.append(f"{finding} ({config.name})")

    def quickest(self, baseline: RunnerClient, configs: list[Config]) -> Config:
        """The config of the baseline's quickest call, where the offset is measured (two calls of
        each in the baseline's runner, while the candidate's runner still builds): a per-launch cost
        weighs most there, and the few rounds of the offset carry that call's noise into every
        config. Chosen by fewest input bytes it was a 3 ms single-row call on an H100, whose +0.4 us of
        noise made a 10 us config read 4 % apart (results/gpu-2026-11-27.md); a 130 us one
        carried 1.4 us of placement into a 36 us config (3.8 %). A baseline that fails here fails
        in its correctness calls; the first config is taken."""
        if len(configs) < 2:
            return configs[0]
        common = self._common(False)
        estimates = {}
        try:
            for config in configs:
                args = self.inputs(config, policy.TIMING_SEED)
                self.load(baseline, args, self.expected(args))
                # the first call compiles what a JIT kernel needs for this shape
                estimates[config.name] = self._batch(baseline, 2, common, keep=False, evidence=False)["samples"][-1]
        except (RunnerFailed, Mismatch):
            return configs[0]
        return min(configs, key=lambda c: estimates[c.name])

    def process_offset(self, baseline: RunnerClient, probe: RunnerClient, config: Config) -> float:
        """What the candidate's runner process adds to the baseline's time on `config` (ms; below zero
        when it runs faster), `probe` being that process with the baseline built in it and the
        candidate not yet loaded.

        Why: each process pays a cost of its own per kernel launch, fixed when it starts, so the
        same code reads up to a few per cent apart in two processes, and a noop's self-speedup was
        the difference of two such draws. Added to each baseline time it makes every speedup one of
        two kernels in one process (the candidate's). The candidate cannot move it: none of its code
        exists in the process yet, and its runner's build replaces the baseline afterwards. It is
        one figure for every config: the cost is per launch, and a baseline launches alike on each
        (it is measured on the config of the quickest call: Judge.quickest)."""
        base, other, _ = self.time(baseline, probe, config, probe=True)
        self.offset_record = {"config": config.name, "baseline_ms": base.time_ms, "probe_ms": other.time_ms,
                              "plain_ms": [statistics.median(base.all_ms), statistics.median(other.all_ms)]}
        # its rounds, so that each interval carries the offset's own uncertainty (row_interval)
        self.offset_rounds = list(zip(base.round_ms, other.round_ms)) if len(base.round_ms) == len(other.round_ms) else []
        return other.time_ms - base.time_ms

    def _common(self, graph: bool) -> dict:
        """What every timed batch of both kernels is told alike."""
        return {"regime": self.regime, "graph": graph, "delta": protocol.PERTURBATION}

    @contextmanager
    def _stopped(self, runner: RunnerClient | None):
        """While the baseline is timed every process of the candidate's sandbox is stopped: nothing
        it left running can load the machine or the GPU against the baseline."""
        if runner is None:
            yield
            return
        with self.phases("(stop/resume)"):
            runner.freeze()
        try:
            yield
        finally:
            with self.phases("(stop/resume)"):
                runner.thaw()

    def _time_message(self, runner: RunnerClient, n: int, common: dict, *, keep: bool, watch: bool = False,
                      seed: int | None = None) -> dict:
        """A batch of n timed calls; its input and digest seeds drawn now (the digest's kept on the runner)."""
        seed = self.rng.getrandbits(62) if seed is None else seed
        runner.last_digest_seed = self.rng.getrandbits(62)
        return {"op": "time", "n": n, "seed": seed, "digest_seed": runner.last_digest_seed,
                "keep": keep, "watch": watch, **common}

    def _batch(self, runner: RunnerClient, n: int, common: dict, *, keep: bool, watch: bool = False,
               seed: int | None = None, evidence: bool = True) -> dict:
        reply = runner.request(self._time_message(runner, n, common, keep=keep, watch=watch, seed=seed))
        if evidence:
            self._findings(reply)
        if not reply["ok"]:
            raise Mismatch(f"timed call: {str(reply.get('error'))[:300]}")
        for key in ("samples", "gaps", "host_ms", "digests"):
            value = reply.get(key)
            if not isinstance(value, list) or len(value) != n:
                raise RunnerFailed(f"malformed timing reply ({key})")
        if reply.get("launch_cover") in timing.LAUNCH_COVER_KINDS:     # any other word is not written into the verdict
            self.launch_covers[runner.role].add(reply["launch_cover"])
        if runner.role == "baseline" and isinstance(reply.get("gate_error"), str):   # trusted code's word only
            self.gate_errors.add(reply["gate_error"][:200])
        gave_up = reply.get("gate_gave_up")
        if type(gave_up) is int and 0 < gave_up <= n:
            self.gate_gave_up[runner.role] += gave_up
        if reply.get("own_blocks") is False:
            self.own_blocks_missed[runner.role] += 1
        for key in ("samples", "gaps", "host_ms"):
            if not all(isinstance(v, (int, float)) and math.isfinite(v) and v >= 0 for v in reply[key]):
                raise RunnerFailed(f"malformed timing reply ({key})")
        return reply

    def _check_repetition(self, runner: RunnerClient, args, expected: Frozen, seed: int, digests: list) -> None:
        """One repetition of a timed batch, named only now: its outputs must be the ones the runner
        committed to, and correct for that repetition's inputs."""
        index = self.rng.randrange(len(digests))
        buffers = out_buffers(expected, index)
        reply = runner.request({"op": "export", "index": index,
                                "out": [{"dtype": b.dtype, "shape": list(b.shape), "fd": j} for j, b in enumerate(buffers)]},
                               [b.fd for b in buffers])
        if not reply["ok"]:
            raise Mismatch(f"timed call: {str(reply.get('error'))[:200]}")
        got = received(buffers, reply.get("outputs"), self.torch_device)
        rep_args = protocol.perturbed(args, protocol.repetition_seed(seed, index))
        want = self.expected(rep_args)
        committed = digests[index]
        device_outs = got.tensors
        canon = canonical_for(self.ref, rep_args)
        if any(t.device.type == "meta" for t in device_outs):      # not the expected outputs at all
            compare(self.task, got, want, what=f" (timed repetition {index}, checked after the batch)", canon=canon)
        actual = protocol.digest(device_outs, protocol.digest_weights(device_outs, runner.last_digest_seed))
        if not isinstance(committed, list) or len(committed) != len(actual) or not all(
                type(c) is int and a is not None and c == a for c, a in zip(committed, actual)):
            raise Mismatch(f"timed repetition {index}: the outputs exported afterwards are not the ones "
                           "the runner committed to when the batch ended")
        del device_outs
        compare(self.task, got, want, what=f" (timed repetition {index}, checked after the batch)", canon=canon)

    def _bound(self, walls: dict, base, floor: float | None = None) -> dict:
        """The judge's clock against the samples: per call, the wall time the samples do not explain
        (flush, spin, sync, perturbation, digest, the runner's own loop), candidate less baseline."""
        def unexplained(batches):
            return [(wall - total) / n for wall, n, total in batches]
        base_batches = unexplained(walls["baseline"])
        base_over = statistics.median(base_batches)
        cand_over = statistics.median(unexplained(walls["candidate"]))
        excess = cand_over - base_over
        cand_wall = statistics.median(wall / n for wall, n, _ in walls["candidate"])
        limit = max(policy.BOUND_ABS_MS[self.kind], policy.BOUND_REL * cand_wall)
        # Below zero the figure subtracts the baseline's own unexplained time, as noisy as the
        # baseline's calls are long (an H100 read -0.85 and -0.87 ms on an honest kernel beside an
        # 18.7 ms naive baseline, 4.7 %): that side's limit grows with the baseline too, with 2x room.
        low_limit = max(limit, policy.BOUND_BASE_REL * base.time_ms)
        # ... and "steps skipped" is said only when the candidate's calls take less wall time than
        # the baseline's in every one of its batches: a baseline slowed in most of its few batches
        # (an H100 read +0.78 ms a call on 5 batches of an 8 us kernel) must not make an honest
        # candidate look as if it skipped the harness's steps.
        over_clock = [(wall, total) for wall, _, total in walls["candidate"] if total > wall * 1.001 + 0.01]
        return {"baseline_overhead_ms": base_over, "excess_ms": excess, "limit_ms": limit, "low_limit_ms": low_limit,
                "short_ms": cand_over - min(base_batches + ([floor] if floor is not None else [])),
                "over_clock": len(over_clock)}

    def clean_room(self, baseline: RunnerClient, rows: list, configs: dict,
                   stand_in: RunnerClient | None = None) -> None:
        """Time the baseline again, on a few timed configs chosen now, after every process of the
        candidate is gone: the baseline's time beside the candidate must not exceed it by more than
        CLEAN_ROOM_SLACK (what a candidate that leaves work running against the baseline gains).

        Beside the candidate the baseline's batches alternate with another process's, which is
        stopped while the baseline runs; a host-bound baseline reads slower so, whatever that
        process is (an AKA noop, 0.16 ms calls: 0.19-0.25 ms beside its own code, 0.158 ms alone;
        results/gpu-2026-11-30.md). So the clean room keeps the schedule and changes only who
        alternates with the baseline: `stand_in`, the baseline's own code in a runner of the
        judge's, runs a batch of the same size in each round, in a drawn order, and is stopped while
        the baseline's batch runs. Without one (it did not build) the baseline runs alone."""
        timed = [r for r in rows if r.baseline_ms is not None and (r.split, r.config) in self.timing_setup]
        for row in self.rng.sample(timed, min(policy.CLEAN_ROOM_CONFIGS, len(timed))):
            config = configs[(row.split, row.config)]
            setup = self.timing_setup[(row.split, row.config)]
            args = self.inputs(config, policy.TIMING_SEED)
            expected = self.expected(args)
            pair = [baseline] if stand_in is None else [baseline, stand_in]
            with self.phases("(clean room: load)"):
                for runner in pair:
                    self.load(runner, args, expected)
            common = {k: v for k, v in setup["common"].items() if k != "placement"}
            if setup["graph"]:
                if not all(r.request({"op": "capture", "regime": self.regime, "graph": True})["ok"] for r in pair):
                    continue
            # placed as beside the candidate: both runners in one arena, at new places each round
            with self.phases("(clean room: arena)"):
                layout = self.share_arena(pair, args, expected) if setup["arena"] else None
            if self.kind != "cpu":          # the CPU: no warm-up (timing.CPU_REPS); both at once: nothing is timed yet
                warm = {**common, **placement_for(layout, self.rng)}
                with self.phases("(clean room: warm-up)"), ThreadPoolExecutor(max_workers=len(pair)) as pool:
                    list(pool.map(lambda r: self._batch(r, timing.WARMUP_CALLS, warm, keep=False, evidence=False), pair))

            stand_in_rounds: list[list[float]] = []     # the stand-in's, round for round (pair_spread)

            def measure() -> list[list[float]]:
                by_round = []       # rounds as beside the candidate: each at a new placement, the same figure
                for _ in range(setup["batches"]):
                    by_round.append([])
                    stand_in_rounds.append([])
                    placement = placement_for(layout, self.rng)
                    order = list(pair)
                    if self.rng.random() < 0.5:
                        order.reverse()
                    for runner in order:
                        left = setup["n"]
                        while left:
                            n = min(left, setup["capacity"])
                            left -= n
                            with self._stopped(stand_in if runner is baseline else None), \
                                    self.phases("(clean room: " + ("baseline" if runner is baseline else "stand-in")
                                                + " batches)"):
                                samples = self._batch(runner, n, {**common, **placement}, keep=False,
                                                      evidence=False)["samples"]
                            (by_round if runner is baseline else stand_in_rounds)[-1].extend(samples)
                            runner.request({"op": "release"})
                return by_round

            def judged(by_round):
                clean = timing.stats([x for r in by_round for x in r], rounds=by_round)
                return clean.time_ms, interference(row.baseline_ms - (row.baseline_offset_ms or 0.0), clean.time_ms,
                                                   self.kind, clean.round_ms, setup["rounds"])

            by_round = measure()
            row.baseline_clean_ms, finding = judged(by_round)
            if finding:
                # A trip is confirmed by as many rounds again, the two pooled: the clean figure is the
                # candidate-free truth, so more of it can only sharpen the reading. A host-bound
                # baseline's clean rounds (cv ~1 a call) once read 26 % fast by chance on a noop
                # (results/gpu-2026-11-29f.md); work left running slows every round it overlaps.
                first = row.baseline_clean_ms
                by_round += measure()
                row.baseline_clean_ms, finding = judged(by_round)
                row.flags.append(f"note: the clean room of {row.config} was timed twice (the first "
                                 f"{first:.4g} ms, pooled {row.baseline_clean_ms:.4g} ms)")
            if finding:
                self.flags.append(f"{finding} ({row.config})")
            if stand_in is not None:
                self.pair_spreads.append((row.config, pair_spread(by_round, stand_in_rounds)))
            trace_record(lambda: {"config": row.config, "clean_room": {     # the pair, round by round
                "baseline_round_ms": [statistics.median(r) for r in by_round if r],
                "stand_in_round_ms": [statistics.median(r) for r in stand_in_rounds if r],
                "beside_ms": row.baseline_ms, "clean_ms": row.baseline_clean_ms}})

    def widen_for_pairs(self, rows: list) -> None:
        """The clean room's stand-in and the baseline ran the same code in two processes at the end of
        the evaluation: where they read apart by more than their rounds' noise, every row's interval
        is widened by that share on each side (as by an offset too large to apply, row_interval). The
        intervals are of the rounds; a host-bound call's level can differ between two runner processes
        for a whole evaluation (an AKA noop read 0.92-1.51x with 8 of 9 intervals excluding 1.0 on an
        H200, results/gpu-2026-11-30.md), which no round resamples. On a GPU only (the CPU's times are
        not meaningful)."""
        config, spread = max(self.pair_spreads, key=lambda p: p[1], default=(None, 0.0))
        if self.kind == "cpu" or not spread > self.process_spread:
            return
        for row in rows:
            if row.speedup_ci95:
                offset = row.baseline_offset_ms or 0.0
                own = offset_share(offset, (row.baseline_ms or 0.0) - offset)   # as row_interval widened it
                scale = (1.0 + max(spread, own)) / (1.0 + max(self.process_spread, own))
                row.speedup_ci95 = [round(row.speedup_ci95[0] / scale, 4), round(row.speedup_ci95[1] * scale, 4)]
        self.process_spread = spread
        self.flags.append(f"note: the baseline's code read {spread:.1%} apart in two runner processes at the end of "
                          f"the evaluation (the baseline and the clean room's stand-in, {config}): every interval "
                          "is widened by that share on each side")

    def _gap_escapes(self, base, cand) -> bool:
        """The candidate's device-sync gap exceeds the baseline's by more than a kernel's honest
        spread: work left outside the timed stream (timing.py)."""
        return self.device != "cpu" and cand.gap_ms - base.gap_ms > max(policy.ESCAPED_MIN_MS, policy.ESCAPED_REL * cand.time_ms)



def pair_spread(base_rounds: list[list[float]], other_rounds: list[list[float]]) -> float:
    """How far apart one code read in two runner processes, |other / base - 1| of the paired figures
    (the median of the round differences, as a candidate's), where that difference exceeds
    policy.CLEAN_ROOM_Z standard errors of the round differences; else 0 (the rounds' own noise,
    which the intervals already hold)."""
    base = timing.stats([x for r in base_rounds for x in r], rounds=base_rounds)
    other = timing.stats([x for r in other_rounds for x in r], rounds=other_rounds)
    if len(base.round_ms) < 2 or len(base.round_ms) != len(other.round_ms) or not base.time_ms > 0:
        return 0.0
    differences = [o - b for b, o in zip(base.round_ms, other.round_ms)]
    difference = timing.paired(base, other).time_ms - base.time_ms
    if abs(difference) <= policy.CLEAN_ROOM_Z * timing.median_standard_error(differences):
        return 0.0
    return abs(difference) / base.time_ms


def offset_applies(record: dict, offset_ms: float, limit: float) -> bool:
    """Whether a measured process offset is a per-launch cost of the candidate's process, to be
    added to every baseline time: within `limit` of the baseline's call where it was measured; or,
    beyond it, when the two processes' plain medians read the same shift (within
    policy.PROCESS_OFFSET_AGREE of that call), and it is at most policy.PROCESS_OFFSET_MAX_MS and
    policy.PROCESS_OFFSET_AGREED_LIMIT of the call (both figures come from the same samples: their
    agreement rules out a level that changes between rounds, not every error).
    AKA's fused_moe offsets (13.5 % and 22 % of 0.6-2.2 ms calls that sync the host) were 0.6 % and
    6 % in the plain medians: the level of a call that changes between rounds, not a process's
    cost. triton2triton/cumsum's 0.54 us on its 5.1 us call (10.6 %) was 0.56 us in the plain
    medians too, and its noop read 0.90-0.99x on every config by that same 0.5-0.6 us a call when it
    was left off (results/gpu-2026-11-30-s18.md)."""
    baseline_ms = record.get("baseline_ms") or 0.0
    share = offset_ms / max(baseline_ms, 1e-9)
    if abs(share) <= limit:
        return True
    plain = record.get("plain_ms") or []
    if (baseline_ms <= 0 or len(plain) != 2 or abs(offset_ms) > policy.PROCESS_OFFSET_MAX_MS
            or abs(share) > policy.PROCESS_OFFSET_AGREED_LIMIT):
        return False
    return abs(share - (plain[1] - plain[0]) / baseline_ms) <= policy.PROCESS_OFFSET_AGREE


def offset_share(offset_ms: float, baseline_own_ms: float) -> float:
    """An applied process offset's share of the baseline's call in its own process (row_interval)."""
    return abs(offset_ms) / baseline_own_ms if offset_ms and baseline_own_ms > 0 else 0.0


def row_interval(row: ConfigResult, base, cand, offset_rounds=(), process_spread: float = 0.0) -> list[float] | None:
    """The 95 % interval of the row's speedup from its rounds, moved with any correction the judge
    made to the candidate's figure (its own clock, the sync gap): the interval is of the samples'
    ratio, scaled onto the speedup that stands. With a process offset applied, the offset's own
    rounds (`offset_rounds`, its baseline and probe round pairs) are resampled too: it is a
    measurement, and its noise is the speedup's. An offset too large to apply (`process_spread`,
    its share of the call) says the same code runs that far apart in two processes, which no
    round resamples: the interval is widened by that share on each side (an AKA noop whose calls
    sync the host read 0.84x and 1.29x with intervals excluding 1.0; results/gpu-2026-11-29f.md).
    An offset applied is widened by too, by its share of this row's call: measured before the
    candidate was loaded, it did not hold into the timing on H200 noops of 2-3 us calls (gelu:
    +0.183 us measured, +0.076 us in the timing on the same config, 1.047x read; 15 of 32 small
    calls' intervals held 1.0, 28 of 32 so widened; results/gpu-2026-11-30-s17.md), so the interval
    reaches the speedup read without it."""
    offset = row.baseline_offset_ms or 0.0
    interval = timing.speedup_interval(base, cand, offset, offset_rounds=offset_rounds if offset else ())
    point = (base.time_ms + offset) / max(cand.time_ms, timing.EVENT_RESOLUTION_MS)
    if interval is None or not point > 0:
        return None
    scale = row.speedup / point
    widen = 1.0 + max(0.0, process_spread, offset_share(offset, base.time_ms))
    return [round(interval[0] * scale / widen, 4), round(interval[1] * scale * widen, 4)]
