"""The correctness stages of one config: seeds of fresh inputs, then outliers; the candidate twice per
seed on fresh copies, each output poisoned differently; every result checked by the judge alone."""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor, wait

from runner.evaluator import devtrace, protocol
from runner.evaluator.judge.runners import RunnerClient, RunnerFailed
from runner.evaluator.judge.values import (Frozen, Mismatch, SentInputs, add_outliers, canonical_for, compare,
                                           config_seed, make_inputs, out_buffers, received, run_reference)
from runner.tasks.task import Config


class Correctness:
    """Judge's correctness half (runner/evaluator/judge/config_judge.py holds the state)."""

    # -- inputs and the reference ----------------------------------------------------------------
    def inputs(self, config: Config, seed: int, outliers: bool = False) -> list:
        import torch
        gen = torch.Generator().manual_seed(config_seed(config, seed))
        args = make_inputs(self.ref, config, gen, self.torch_device)
        return add_outliers(args, gen) if outliers else args

    def expected(self, args) -> Frozen:
        return run_reference(self.ref, args)

    def load(self, runner: RunnerClient, args, expected: Frozen, sent: "SentInputs | None" = None) -> None:
        """`args` onto the runner as its base inputs; `sent`: them already in sealed memfds (one
        set for both runners), else made here for this runner alone."""
        own = sent is None
        sent = sent or SentInputs(args)
        spec = [{"dtype": protocol.dtype_name(t), "shape": list(t.shape), "strides": list(st)}
                for t, st in zip(expected.tensors, expected.strides)]
        try:
            reply = runner.request({"op": "inputs", "args": sent.described, "spec": spec}, sent.fds)
        finally:
            if own:
                sent.close()
        if not reply["ok"]:
            raise Mismatch(str(reply.get("error"))[:300])

    def call(self, runner: RunnerClient, args, expected: Frozen, patterns=(0,), launch_check=False,
             evidence: bool = True, sent: "SentInputs | None" = None) -> list:
        """The runner's outputs for each poison pattern, each call on fresh copies of `args`."""
        self.load(runner, args, expected, sent)
        buffers = [out_buffers(expected, p) for p in patterns]
        out, fds = [], []
        for bufs in buffers:
            out.append([{"dtype": b.dtype, "shape": list(b.shape), "fd": len(fds) + j} for j, b in enumerate(bufs)])
            fds += [b.fd for b in bufs]
        reply = runner.request({"op": "call", "patterns": list(patterns), "out": out, "fp32_task": self.fp32_task,
                                "launch_check": launch_check}, fds)
        if evidence:
            self._findings(reply)
        self._note_torch_ops(runner.role, reply.get("torch_ops"))
        if not reply["ok"]:
            for bufs in buffers:
                for b in bufs:
                    b.close()
            raise Mismatch(str(reply.get("error"))[:300])
        calls = reply.get("calls")
        if not isinstance(calls, list) or len(calls) != len(patterns) or not all(isinstance(c, dict) for c in calls):
            for bufs in buffers:
                for b in bufs:
                    b.close()
            raise RunnerFailed("malformed call reply")
        results = []
        for bufs, info in zip(buffers, calls):
            frozen = received(bufs, info.get("outputs"), self.torch_device)
            if info.get("inputs_changed") is True:
                raise Mismatch("modified its inputs")
            results.append(frozen)
        return results

    def _findings(self, reply: dict) -> None:
        """A runner's findings incriminate its kernel; they are never needed to pass."""
        found = reply.get("findings")
        if isinstance(found, list):
            said = [str(f)[:300] for f in found if isinstance(f, str)]
            self.flags += said
            self.in_process_flags += said

    def _note_torch_ops(self, role: str, ops) -> None:
        """What the runner's PyTorch op watch saw this config: per op, the most runs and elements of
        one call (TorchOpWatch). A reply of another shape is dropped: the candidate's is evidence
        only (the device trace and the static checks judge without it)."""
        if not isinstance(ops, dict):
            return
        for name, most in list(ops.items())[:1000]:
            if isinstance(name, str) and isinstance(most, list) and len(most) == 2 and \
                    all(type(v) is int and v >= 0 for v in most):
                seen = self.torch_ops[role].setdefault(name[:80], [0, 0])
                seen[:] = max(seen[0], most[0]), max(seen[1], most[1])

    def torch_ops_findings(self, config: Config) -> None:
        """torch_fallback from the candidate's op watch on this config. On an X->X task (the judge's
        own reading of the task's category) the baseline's runner ran the task's shipped code on the
        same inputs under the same watch: the ops it computed with PyTorch are allowed, each up to
        its runs in one call, and its elements read and written in one call times devtrace.GLUE_REL
        (what glue computes can follow the data: a routing's nonzero). Anything else PyTorch
        computed is a finding. A PyTorch->X task's baseline is PyTorch: nothing is allowed there."""
        allowed = self.torch_ops["baseline"] if self.baseline_glue else {}
        over = []
        for name, (runs, elements) in sorted(self.torch_ops["candidate"].items()):
            base_runs, base_elements = allowed.get(name, (0, 0))
            if runs > base_runs or elements > devtrace.GLUE_REL * base_elements:
                over.append(f"{name} x{runs} on {elements} elements (shipped: x{base_runs} on {base_elements})"
                            if name in allowed else name)
        if over:
            what = "more than the task's shipped code does per call: " if allowed else ""
            self.flags.append(f"torch_fallback: PyTorch computed {what}{', '.join(over[:6])} ({config.name})")
            self.in_process_flags.append(self.flags[-1])       # the counts are the candidate's runner's

    # -- correctness -----------------------------------------------------------------------------
    def correctness(self, baseline: RunnerClient, candidate: RunnerClient | None, config: Config,
                    symmetric: bool) -> tuple[str | None, float | None, str | None]:
        """(baseline error, candidate's worst error, candidate error) over the stages: fresh inputs
        per seed, then outlier inputs; the candidate runs twice per stage on fresh copies, outputs
        poisoned differently each time, and both results must match the reference and each other.
        Each stage's inputs and expected outputs are made once and serve both kernels. With
        `symmetric` (the config will be timed) the baseline goes through the very calls the
        candidate does: both runner processes must reach the timing in the same state (an H100 run
        showed the candidate's process alone, after its correctness calls, timing some configs 2-7x
        slower than the same kernel in the baseline's). Otherwise one baseline call suffices."""
        stages = [(s, False) for s in self.seeds] + [(s, True) for s in self.outlier_seeds]
        if not (symmetric or candidate is not None):
            stages = stages[:1]
        self.torch_ops = {"baseline": {}, "candidate": {}}
        try:
            with ThreadPoolExecutor(max_workers=1) as pool:
                return self._correctness_stages(baseline, candidate, stages, config, symmetric, pool)
        finally:
            self.torch_ops_findings(config)

    def _baseline_stage(self, baseline: RunnerClient, args, expected: Frozen, sent: "SentInputs", symmetric: bool,
                        atol_scale: float, what: str) -> str | None:
        """The baseline's calls of one correctness stage; its error, or None."""
        with self.phases("baseline calls"):
            try:
                got = self.call(baseline, args, expected, patterns=(0, 1) if symmetric else (0,), evidence=False,
                                sent=sent)
                compare(self.task, got[0], expected, atol_scale, what, canonical_for(self.ref, args))
            except Mismatch as exc:
                return f"baseline: {exc}"
        return None

    def _correctness_stages(self, baseline, candidate, stages, config: Config, symmetric: bool, pool):
        base_error = cand_error = None
        worst, scale_ref = 0.0, 0.0
        for index, ((seed, outliers), (args, expected, sent)) in enumerate(self._stage_data(config, stages)):
            # An X->X baseline whose first stage computed with PyTorch goes through every stage the
            # candidate does: glue can follow the data (an expert loop runs as many GEMMs as experts
            # got tokens), and the candidate's calls are allowed what the baseline's did on the same
            # inputs, not on the first stage's (a CPU noop was flagged: aten.mm x33, shipped x28).
            glue_seen = self.baseline_glue and bool(self.torch_ops["baseline"])
            base_due = base_error is None and (symmetric or index == 0 or glue_seen)
            cand_due = candidate is not None and cand_error is None
            if not (base_due or cand_due):
                break
            what = f" (outlier inputs, seed {seed})" if outliers else f" (seed {seed})"
            amax = expected.amax()
            if not outliers:
                scale_ref = max(scale_ref, amax)
            # An outlier's x50 propagates into outputs: absolute tolerance scales with the output's
            # magnitude relative to the standard stage, never below the task's own.
            atol_scale = max(1.0, amax / scale_ref) if outliers and scale_ref > 0 else 1.0
            # The two runners are separate processes: the baseline's calls run in a thread while the
            # candidate's run here (sequential, they were most of a Triton task's evaluation time:
            # each process compiles its kernels on its first call of a shape).
            base_job = pool.submit(self._baseline_stage, baseline, args, expected, sent, symmetric, atol_scale,
                                   what) if base_due else None
            try:
                if cand_due:
                    with self.phases("candidate calls"):
                        try:
                            first, second = self.call(candidate, args, expected, patterns=(0, 1), sent=sent)
                            canon = canonical_for(self.ref, args)
                            worst = max(worst, compare(self.task, first, expected, atol_scale, what, canon))
                            compare(self.task, second, expected, atol_scale, f" on the second run{what}", canon)
                            try:
                                compare(self.task, second, first, atol_scale, canon=canon)
                            except Mismatch as exc:
                                raise Mismatch(f"two runs on the same inputs disagree{what}: {exc}") from None
                        except Mismatch as exc:
                            cand_error = str(exc)
            except BaseException:
                if base_job is not None:
                    wait([base_job])       # the candidate's failure is the one reported
                raise
            if base_job is not None:
                base_error = base_job.result()
            if cand_error is not None:
                break                  # nothing will be timed: the baseline's state no longer matters
        return base_error, (None if candidate is None or cand_error else worst), cand_error

    def _stage_data(self, config: Config, stages):
        """(stage, (inputs, expected outputs, the inputs in sealed memfds)) per stage; the next
        stage's are made in a thread while the runners work on the current one (make_inputs, the
        reference and the copy out of the device would otherwise add their time to every stage).
        A stage's memfds are closed once the caller comes back for the next."""
        def make(stage):
            started = time.perf_counter()
            args = self.inputs(config, *stage)
            expected = self.expected(args)
            sent = SentInputs(args)
            self.phases.seconds["inputs+reference (overlapped)"] += time.perf_counter() - started
            return args, expected, sent

        pool = ThreadPoolExecutor(max_workers=1)
        pending = data = None
        try:
            pending = pool.submit(make, stages[0])
            for i, stage in enumerate(stages):
                with self.phases("inputs+reference wait"):
                    data = pending.result()
                pending = pool.submit(make, stages[i + 1]) if i + 1 < len(stages) else None
                yield stage, data
                data[2].close()
                data = None
        finally:
            if data is not None:
                data[2].close()
            pool.shutdown(wait=True, cancel_futures=True)
            if pending is not None and pending.done() and not pending.cancelled() and pending.exception() is None:
                pending.result()[2].close()
