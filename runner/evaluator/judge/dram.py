"""The L2 flush's witness: the device's DRAM counters, read from a process of the judge's.

The harness's cold-L2 flush (clock.GpuClock.flush: a 256 MB read) runs in the candidate's process.
The device trace names the kernel that ran before each call, its blocks and its time, never the
memory it read, so a flush pointed at memory the L2 already holds (the same reduction over one
physical chunk mapped 64 times: the red team's flush_aliased) is the real flush to the trace, and
the call after it finds its inputs in the L2. What no such form does is read its buffer from DRAM.

CUPTI's PM sampling reads the device's DRAM byte counters for the whole device at a fixed interval.
The judge runs it in a program of its own (dram_sampler.cpp), started once it holds the device and
before any candidate code is built, so nothing in the candidate's process hosts it and the candidate
cannot take the device's sampler first. Each timed batch of the candidate's (the baseline's runner
idle, the stand-in stopped, nothing else on the device: exclusive_device) must read from DRAM, per
call, at least FLUSH_SHARE of what its flush alone must (the flush's buffer less the whole L2); the
rule is applied only where the baseline's own batches, under the same witness, read that much
(flush_findings). The samples' clock (the device's globaltimer) is paired with the host's by the
sampler after each config's timing, while no runner works.

That floor says nothing where a call's own DRAM reads pass it. The differential (unflushed_findings;
policy.DRAM_UNFLUSHED, off until a GPU run) adds one batch a runner a config with no flush, its
outputs checked: every timed batch must read, a call, that much more than the call does with no
flush at all, whatever the call itself reads.
"""
from __future__ import annotations

import os
import select
import signal
import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from runner.evaluator import devtrace

SOURCE = Path(__file__).with_name("dram_sampler.cpp")
SWITCH = "GAUNTLET_DRAM_WITNESS"
METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum")
INTERVAL_NS = 100_000        # the decode costs ~11 us of host time a sample (an H200, session 22)
MIN_COVERAGE = 0.9           # of a batch's span the samples must cover for it to be judged
# Of each runner's timed batches in a config the samples must cover, else the flush was not witnessed
# there (the evaluation an infra_error, as for a sampler that ended): a note would let a candidate that
# can make the samples miss its batches (a gap, a decode starved of the host) pass unwitnessed. Honest
# batches on an H200: 1,830 of 1,830 covered (session 22)
MIN_SEEN = 0.5
FLUSH_SHARE = 0.5            # of (flush bytes - L2 bytes) a timed call must read from DRAM
# How long the judge waits for the samples to pass a config's last batch: the hardware keeps them
# until decoded (a full buffer ends the sampler: overflow), so a late decode is waited for, never
# read as a batch the samples missed (a batch not judged); it ends as soon as they arrive (0.02-0.08 s)
READY_S, WAIT_S = 60.0, 10.0
# A clock pair whose launch-to-return span is longer is not taken (the last one stands): work another
# context left queued delays the sampler's kernel, and a pair off by half its span would move every
# batch's window by that much, into its neighbour's flushes (an H200's pair: 9.7 us)
CLOCK_RTT_MAX_NS = 200_000


class Unavailable(Exception):
    """No witness here (no CUPTI, no compiler, PM sampling refused): a note, never a verdict."""


def wanted(device: str, regime: str) -> bool:
    return device == "cuda" and regime == "cold" and os.environ.get(SWITCH, "1") != "0"


def build(cache: Path) -> Path:
    try:
        return devtrace.build(cache, SOURCE, "dram_sampler", executable=True)
    except devtrace.Unavailable as exc:
        raise Unavailable(str(exc)) from None


def parse(lines: list[str]) -> tuple[list[tuple[int, int, float, float]], list[tuple[int, int, int]], list[str]]:
    """(samples (start_ns, end_ns, read_bytes, written_bytes), clock pairs (host_ns, gpu_ns, rtt_ns),
    other '#' lines) of the sampler's complete lines."""
    samples, clocks, other = [], [], []
    for line in lines:
        if line.startswith("# clock "):
            words = line.split()[2:]
            if len(words) == 3 and all(w.isdigit() for w in words):
                clocks.append(tuple(int(w) for w in words))
            else:
                other.append(line)
        elif line.startswith("#"):
            other.append(line)
        elif line.strip():
            words = line.split()
            samples.append((int(words[0]), int(words[1]), float(words[2]), float(words[3])))
    return samples, clocks, other


@dataclass(frozen=True)
class Reads:
    """One timed batch as the witness saw it."""
    calls: int
    read_bytes: float
    coverage: float          # the share of the batch's span the samples covered

    @property
    def per_call(self) -> float:
        return self.read_bytes / max(1, self.calls)


def window_reads(samples, windows) -> list[tuple[float, float, float]]:
    """(read bytes, written bytes, coverage) inside each (start_ns, end_ns) window, both on the
    samples' clock: each sample's value spread evenly over its own span, so a window takes the share
    of every sample it overlaps. `samples`: rows (start, end, read, written), in time order."""
    import numpy as np
    rows = np.asarray(samples, dtype=np.float64).reshape(-1, 4)
    start, end = rows[:, 0], rows[:, 1]
    span = np.maximum(end - start, 1.0)
    out = []
    for a, b in windows:
        lo, hi = np.searchsorted(end, a), np.searchsorted(start, b)
        overlap = np.clip(np.minimum(end[lo:hi], b) - np.maximum(start[lo:hi], a), 0, None)
        share = overlap / span[lo:hi]
        out.append((float((rows[lo:hi, 2] * share).sum()), float((rows[lo:hi, 3] * share).sum()),
                    float(overlap.sum() / max(b - a, 1.0))))
    return out


def _must(flush_bytes: int, l2_bytes: int) -> float:
    """What a timed call must read from DRAM for its flush alone, by both rules."""
    return FLUSH_SHARE * (flush_bytes - l2_bytes)


def _covered(reads: list[Reads]) -> list[Reads]:
    """The batches the samples cover: the only ones judged."""
    return [r for r in reads if r.coverage >= MIN_COVERAGE]


def unseen(baseline: list[Reads], candidate: list[Reads], flush_bytes: int, l2_bytes: int,
           unflushed: list[Reads] = ()) -> str | None:
    """Why a config's flushes were not witnessed: the samples covered under MIN_SEEN of a runner's
    timed batches, or missed an unflushed batch, which the differential rests on alone (None: they
    covered enough to judge, or no rule asks here)."""
    if _must(flush_bytes, l2_bytes) <= 0:
        return None
    for whose, reads in (("baseline's", baseline), ("candidate's", candidate)):
        seen = len(_covered(reads))
        if reads and seen < MIN_SEEN * len(reads):
            return (f"the DRAM witness's samples covered {seen} of the {whose} {len(reads)} timed batches "
                    f"(at least {MIN_SEEN:.0%} must be covered {MIN_COVERAGE:.0%} of their span)")
    for whose, reads in zip(("baseline's", "candidate's"), unflushed):
        if reads.coverage < MIN_COVERAGE:
            return (f"the DRAM witness's samples covered {reads.coverage:.0%} of the {whose} unflushed batch "
                    f"(at least {MIN_COVERAGE:.0%} must be)")
    return None


def flush_findings(baseline: list[Reads], candidate: list[Reads], flush_bytes: int,
                   l2_bytes: int) -> tuple[list[str], list[str], dict]:
    """(findings, notes, record) of one config's timed batches. A real flush reads its whole buffer
    through an L2 it does not fit: at least flush_bytes - l2_bytes from DRAM, every call, whatever
    the call itself reads. A candidate batch under FLUSH_SHARE of that a call flushed from memory the
    L2 held (or did not flush). Applied only where the baseline's batches, under the same witness,
    read at least that much a call (a witness that cannot see the flush never speaks), and only on
    batches the samples cover (MIN_COVERAGE)."""
    must = _must(flush_bytes, l2_bytes)
    judged_base, judged = _covered(baseline), _covered(candidate)
    record = {"must_MB": must / 1e6, "baseline_MB": [round(r.per_call / 1e6, 1) for r in baseline],
              "candidate_MB": [round(r.per_call / 1e6, 1) for r in candidate],
              "coverage": {"baseline": [round(r.coverage, 3) for r in baseline],
                           "candidate": [round(r.coverage, 3) for r in candidate]}}
    if must <= 0:
        return [], [f"note: the DRAM witness was not applied (the flush's {flush_bytes / 1e6:.0f} MB fit "
                    f"the L2's {l2_bytes / 1e6:.0f} MB)"], record
    if not judged_base:
        return [], ["note: the DRAM witness was not applied: its samples covered none of the baseline's "
                    "timed batches"], record
    base_median = statistics.median(r.per_call for r in judged_base)
    record["baseline_median_MB"] = base_median / 1e6
    if base_median < must:
        return [], [f"note: the DRAM witness was not applied: the baseline's timed calls read "
                    f"{base_median / 1e6:.0f} MB each from DRAM, under the {must / 1e6:.0f} MB its flush "
                    "must (the counters do not see the flush here)"], record
    notes = []
    if len(judged) < len(candidate):
        notes.append(f"note: the DRAM witness's samples covered {len(judged)} of the candidate's "
                     f"{len(candidate)} timed batches (those were judged)")
    short = [r for r in judged if r.per_call < must]
    if not short:
        return [], notes, record
    least = min(r.per_call for r in short)
    return [f"l2_flush: the device's DRAM counters (read by the judge's own sampler) saw {len(short)} of "
            f"{len(judged)} timed batches of the candidate's runner read {least / 1e6:.1f} MB a call or less "
            f"from DRAM, under the {must / 1e6:.0f} MB its L2 flush alone must ({flush_bytes >> 20} MB through a "
            f"{l2_bytes / 1e6:.0f} MB L2; the baseline's calls read {base_median / 1e6:.0f} MB): "
            "the flush read memory the L2 held, or did not run"], notes, record


def unflushed_findings(baseline: list[Reads], candidate: list[Reads], base_unflushed: Reads,
                       cand_unflushed: Reads, flush_bytes: int, l2_bytes: int) -> tuple[list[str], list[str], dict]:
    """(findings, notes, record) of the differential: flush_findings's floor says nothing where a
    call's own DRAM reads pass it (inputs, outputs and the refill over 103 MB a call on an H200). Each
    runner also ran one batch with no flush (its outputs checked), so what its calls read without
    one is measured: every timed batch must read, a call, at least FLUSH_SHARE * (flush_bytes -
    l2_bytes) more than that, whatever the call itself reads. A flush pointed at memory the L2 holds
    adds nothing; an honest one adds its buffer. Applied where the baseline's gain is that large, and
    on batches the samples cover."""
    must = _must(flush_bytes, l2_bytes)
    record = {"baseline_MB": round(base_unflushed.per_call / 1e6, 1), "candidate_MB": round(cand_unflushed.per_call / 1e6, 1),
              "coverage": [round(base_unflushed.coverage, 3), round(cand_unflushed.coverage, 3)]}
    judged_base, judged = _covered(baseline), _covered(candidate)
    if must <= 0 or not judged_base or not judged or min(base_unflushed.coverage, cand_unflushed.coverage) < MIN_COVERAGE:
        return [], ["note: the DRAM witness's differential was not applied (no flush past the L2, or batches "
                    "its samples did not cover)"], record
    base_gain = statistics.median(r.per_call for r in judged_base) - base_unflushed.per_call
    record["baseline_gain_MB"] = round(base_gain / 1e6, 1)
    if base_gain < must:
        return [], [f"note: the DRAM witness's differential was not applied: the baseline's timed calls read "
                    f"{base_gain / 1e6:.0f} MB a call more than its calls with no flush, under the {must / 1e6:.0f} "
                    "MB its flush must"], record
    # A candidate that reads more only in the batches it sees flushed pads its timed calls by `must`;
    # that costs more DRAM time than a warm L2 saves only while `must` exceeds the L2
    notes = [] if must > l2_bytes else [
        f"note: the DRAM witness's differential ({must / 1e6:.0f} MB a call) does not exceed this GPU's L2 "
        f"({l2_bytes / 1e6:.0f} MB): reads added to the flushed calls alone can cost less than the warm L2 they buy"]
    short = [r for r in judged if r.per_call - cand_unflushed.per_call < must]
    if not short:
        return [], notes, record
    least = min(r.per_call for r in short) - cand_unflushed.per_call
    return [f"l2_flush: the device's DRAM counters (read by the judge's own sampler) saw {len(short)} of "
            f"{len(judged)} timed batches of the candidate's runner read {least / 1e6:.1f} MB a call or less more "
            f"than its calls with no flush at all ({cand_unflushed.per_call / 1e6:.0f} MB), under the "
            f"{must / 1e6:.0f} MB its L2 flush alone must (the baseline's gained {base_gain / 1e6:.0f} MB): the "
            "flush read memory the L2 held"], notes, record


def _no_samples():
    import numpy as np
    return np.zeros((0, 4))


class Witness:
    """The sampler running for one evaluation: started, then ready() (raises Unavailable), reads(),
    stop(). Started before the judge's own set-up and waited for after it (CUPTI's start takes
    0.6-0.9 s on an H200); ready() before any candidate code is built."""

    def __init__(self, exe: Path, device_index: int, path: Path, flush_bytes: int, l2_bytes: int,
                 interval_ns: int = INTERVAL_NS, metrics=METRICS, prefix: tuple[str, ...] = ()):
        """`path`: the sampler's lines (in the judge's own folder); `interval_ns` and `metrics`: the
        benches' (bench/dram_probe.py, busy_probe.py: the first two metrics are read as samples);
        `prefix`: argv it runs under (isolation.on_cores: the judge's cores, where no runner runs, so
        no candidate can starve its decoding of the host's cores)."""
        self.flush_bytes, self.l2_bytes = flush_bytes, l2_bytes
        self.path = path
        self.samples = _no_samples()        # rows (start ns, end ns, read, written), the device's clock
        self.clocks: list[tuple[int, int, int]] = []
        self.other: list[str] = []
        self._pos, self._partial = 0, ""
        self.proc = subprocess.Popen([*prefix, str(exe), str(device_index), str(interval_ns), str(self.path), *metrics],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, start_new_session=True,
                                     env={**os.environ, "GAUNTLET_SAMPLER_PARENT": str(os.getpid())})

    def ready(self) -> "Witness":
        ready, _, _ = select.select([self.proc.stdout], [], [], READY_S)
        if (self.proc.stdout.readline().strip() if ready else "") != "ready":
            self.proc.kill()
            self.proc.wait(timeout=30)
            raise Unavailable(f"the DRAM sampler did not start (rc={self.proc.returncode}: "
                              f"{self.proc.stderr.read()[-300:].strip()})")
        deadline = time.monotonic() + READY_S
        self._read()
        while not len(self.samples) and self.alive() and time.monotonic() < deadline:
            time.sleep(0.01)          # the first decode pass: 10 ms
            self._read()
        if not self.clocks:
            self.stop()
            raise Unavailable("the DRAM sampler could not pair the device's clock with the host's: "
                              + "; ".join(self.other)[-200:])
        if not len(self.samples):     # known now, before any candidate code: a note, not a lost witness later
            self.stop()
            raise Unavailable(f"the DRAM sampler gave no sample in {READY_S:.0f} s")
        return self

    def alive(self) -> bool:
        return self.proc.poll() is None

    def _read(self) -> None:
        with open(self.path, encoding="utf-8", errors="replace") as fh:
            fh.seek(self._pos)
            text = fh.read()
            self._pos = fh.tell()
        complete, _, self._partial = (self._partial + text).rpartition("\n")
        samples, clocks, other = parse(complete.split("\n"))
        if samples:       # as an array: 10,000 rows a second for a whole evaluation
            import numpy as np
            self.samples = np.concatenate([self.samples, np.asarray(samples, dtype=np.float64)])
        self.clocks += [c for c in clocks if c[2] <= CLOCK_RTT_MAX_NS]
        self.other += other + [f"# clock {h} {g} {rtt} (not taken: its span over {CLOCK_RTT_MAX_NS} ns)"
                               for h, g, rtt in clocks if rtt > CLOCK_RTT_MAX_NS]

    def reads(self, batches: list[tuple[int, int, int]]) -> list[Reads] | None:
        """Each (host start ns, host end ns, calls) batch as read from DRAM; None when the sampler
        has ended. Asks for a fresh clock pair first (call it while no runner works), waits until the
        samples reach past the last batch, then drops what it read."""
        if not self.alive():
            return None
        known = len(self.clocks) + len(self.other)      # a pair, or the line saying it could not make one
        self.proc.send_signal(signal.SIGUSR1)
        last = max((b for _, b, _ in batches), default=0)
        # WAIT_S from the last progress, READY_S at most: a decode slowed (a host busy) is waited for
        # as long as its samples keep coming, never read as batches the samples missed
        start = progress = time.monotonic()
        seen = len(self.samples)
        while time.monotonic() - progress < WAIT_S and time.monotonic() - start < READY_S:
            self._read()
            if (len(self.clocks) + len(self.other) > known and len(self.samples)
                    and self.samples[-1, 1] - self._offset() >= last):
                break
            if len(self.samples) > seen:
                seen, progress = len(self.samples), time.monotonic()
            time.sleep(0.01)
        offset = self._offset()
        sums = window_reads(self.samples, [(a + offset, b + offset) for a, b, _ in batches])
        self.samples = self.samples[self.samples[:, 1] - offset > last]
        return [Reads(n, read, coverage) for (_, _, n), (read, _, coverage) in zip(batches, sums)]

    def _offset(self) -> int:
        """The device's clock less the host's, from the latest pair."""
        host, gpu, _ = self.clocks[-1]
        return gpu - host

    def stop(self) -> dict:
        """Ends the sampler; its exit code and closing line (for the record)."""
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        try:
            self._read()
        except OSError:
            pass
        return {"rc": self.proc.returncode, "lines": self.other[-3:], "clock_pairs": len(self.clocks),
                "stderr": (self.proc.stderr.read() or "")[-300:]}
