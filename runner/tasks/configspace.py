"""Drawn configs: fresh unseen configs drawn from the [space] a task declares (`--unseen N --seed S`).

`draw(task, n, seed, device)` is pure Python (stdlib `random.Random`), deterministic for
(task id, seed, device): the first n of a longer draw are the same configs. Tags are assigned
round-robin, in TAGS order, so n >= 6 covers every tag:

  edge              one or more dimensions at their minimum (1-sized), the others small
  scale-up          a total size above the largest seen/hidden config (within the device's bound)
  scale-down        a total size below the smallest seen/hidden config
  alignment-stress  primes, 2^k +- small odd numbers, odd multiples of `multiple_of`: never
                    multiples of 8/16/32/128 beyond what the kernel contract requires
  skewed            one dimension as large as the bound allows, the others tiny (with one
                    dimension: a size within 8x of the bound)
  production        sizes from the `production` lists (shapes of real models)

Every drawn config respects min/max/multiple_of, the space's `constraints` (rejection sampling)
and the bound on the product of the shape parameters, and differs from every seen and hidden config
and from the other drawn ones. Where a
tag's exact shape is already taken (a hidden config of one element leaves no new `edge` at the
minimum, nor anything below it for `scale-down`), the tag gets the nearest untaken legal shape: a
few `multiple_of` steps up from it. Which drawn
configs an attempt is scored on is decided by the baseline filter in runner/run/run.py (a config is kept
only when the baseline passes on it); the kept ones are recorded in the run's manifest.
"""
from __future__ import annotations

import math
import random

from runner.tasks.task import Config, Dim, Space, Task

TAGS = ("edge", "scale-up", "scale-down", "alignment-stress", "skewed", "production")
SPLIT = "drawn"
_TRIES = 200  # per config: rejection sampling against duplicates and tag criteria
_NUDGE_STEPS = 64  # relaxed draws: how many legal steps up a taken shape may move


class SpaceError(ValueError):
    """The task declares no [space] (or one nothing can be drawn from)."""


# -- small integer helpers ------------------------------------------------------------------------
def _is_prime(v: int) -> bool:
    if v < 2:
        return False
    if v % 2 == 0:
        return v == 2
    f = 3
    while f * f <= v:
        if v % f == 0:
            return False
        f += 2
    return True


def _snap(d: Dim, v: float) -> int:
    """The legal value of d nearest to v."""
    lo, hi = d.legal()
    m = d.multiple_of
    v = min(max(v, lo), hi)
    return int(min(max(round(v / m) * m, lo), hi))


def _loguniform(rng: random.Random, lo: float, hi: float) -> float:
    lo, hi = max(lo, 1.0), max(hi, 1.0)
    if hi <= lo:
        return lo
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


class _Drawer:
    def __init__(self, task: Task, space: Space, device: str, rng: random.Random):
        self.task, self.space, self.rng = task, space, rng
        self.names = list(space.shape)
        self.dims = [space.shape[n] for n in self.names]
        self.bound = space.bound(device)
        self.known = [c.params for c in (*task.configs("seen"), *task.configs("unseen"))]
        sizes = [math.prod(int(p[n]) for n in self.names) for p in self.known
                 if all(isinstance(p.get(n), int) for n in self.names)]
        self.known_max = max(sizes) if sizes else 1
        self.known_min = min(sizes) if sizes else 1
        self.smallest = math.prod(d.legal()[0] for d in self.dims)

    # -- shapes with a given total size --------------------------------------------------------
    def split(self, total: float, spread: float = 1.0) -> list[int]:
        """Legal values whose product is about `total`, spread over the dims at random."""
        order = list(range(len(self.dims)))
        self.rng.shuffle(order)
        values = [0] * len(self.dims)
        remaining = float(total)
        for pos, i in enumerate(order):
            rest = order[pos + 1:]
            lo, hi = self.dims[i].legal()
            rest_lo = math.prod(self.dims[j].legal()[0] for j in rest)
            rest_hi = math.prod(self.dims[j].legal()[1] for j in rest)
            if not rest:
                v = remaining
            else:
                v_lo, v_hi = max(lo, remaining / rest_hi), min(hi, remaining / rest_lo)
                center = remaining ** (1.0 / (len(rest) + 1))
                v = math.exp(math.log(max(center, 1.0)) + self.rng.gauss(0.0, spread))
                v = min(max(v, v_lo), max(v_lo, v_hi))
            values[i] = _snap(self.dims[i], v)
            remaining = max(remaining / values[i], 1.0)
        return self.fit(values)

    def fit(self, values: list[int]) -> list[int]:
        """Shrink the largest dims (by legal steps) until the product is within the bound."""
        values = list(values)
        while math.prod(values) > self.bound:
            order = sorted(range(len(values)), key=lambda i: values[i], reverse=True)
            for i in order:
                lo, _ = self.dims[i].legal()
                if values[i] > lo:
                    target = values[i] * self.bound / math.prod(values)
                    smaller = _snap(self.dims[i], target)
                    if smaller >= values[i]:
                        smaller = values[i] - self.dims[i].multiple_of
                    values[i] = max(lo, smaller)
                    break
            else:
                break  # everything at its minimum: the loader guarantees that fits
        return values

    # -- one shape per tag ---------------------------------------------------------------------
    def edge(self) -> list[int]:
        k = self.rng.randint(1, len(self.dims))
        at_min = set(self.rng.sample(range(len(self.dims)), k))
        values = []
        for i, d in enumerate(self.dims):
            lo, hi = d.legal()
            if i in at_min:
                values.append(lo)
            else:  # small: up to a few hundred times the minimum step
                values.append(_snap(d, _loguniform(self.rng, lo, min(hi, max(lo, d.multiple_of) * 512))))
        return self.fit(values)

    def scale_up(self) -> list[int]:
        top = self.bound
        low = self.known_max * 1.25
        if low >= top:  # the bound leaves no room above the known sizes: as large as allowed
            low = top / 2
        return self.split(_loguniform(self.rng, low, top))

    def scale_down(self) -> list[int]:
        high = self.known_min / 2
        low = max(self.smallest, self.known_min / 256)
        if high <= low:
            high = max(low, self.known_min / 2)
        return self.split(_loguniform(self.rng, low, high))

    def alignment_stress(self) -> list[int]:
        total = _loguniform(self.rng, max(self.smallest, self.known_min / 4), min(self.bound, self.known_max))
        values = [self._misaligned(d, v) for d, v in zip(self.dims, self.split(total))]
        while math.prod(values) > self.bound:  # shrink the largest dim to a smaller odd multiple
            i = max(range(len(values)), key=lambda j: values[j] // self.dims[j].multiple_of)
            if values[i] <= self.dims[i].legal()[0]:
                break
            smaller = self._misaligned(self.dims[i], int(values[i] * self.bound / math.prod(values)), down=True)
            values[i] = min(smaller, values[i] - 2 * self.dims[i].multiple_of) if smaller >= values[i] else smaller
            values[i] = max(values[i], self.dims[i].legal()[0])
        return values

    def _misaligned(self, d: Dim, v: int, down: bool = False) -> int:
        """A legal value near v that is an odd multiple of d.multiple_of (so a multiple of no larger
        power of two): often a prime (times multiple_of) or 2^k +- a small odd number."""
        m = d.multiple_of
        lo, hi = d.legal()
        q = max(1, v // m)
        kind = self.rng.choice(("prime", "pow2", "odd"))
        if kind == "pow2" and q > 8 and not down:
            k = max(3, round(math.log2(q)))
            q = 2 ** k + self.rng.choice((-3, -1, 1, 3, 5))
        elif kind == "prime" and q > 2:
            step = -1 if down else 1
            while not _is_prime(q) and 2 < q < 10 ** 9:
                q += step
        if q % 2 == 0:
            q += -1 if down else 1
        q = max(q, 1)
        if q * m < lo:  # the smallest odd multiple in range
            q = -(-lo // m)
            q += 0 if q % 2 else 1
        if q * m > hi:  # the largest odd multiple in range (or the largest legal value)
            q = hi // m
            q -= 0 if q % 2 or q * m - m < lo else 1
        return max(q * m, lo)

    def skewed(self) -> list[int]:
        big = self.rng.randrange(len(self.dims))
        values = []
        for i, d in enumerate(self.dims):
            lo, hi = d.legal()
            values.append(lo if i == big else _snap(d, _loguniform(self.rng, lo, min(hi, max(lo, d.multiple_of) * 16))))
        others = math.prod(v for i, v in enumerate(values) if i != big)
        lo, hi = self.dims[big].legal()
        top = min(hi, self.bound // max(others, 1))
        values[big] = _snap(self.dims[big], _loguniform(self.rng, max(lo, top / 8), top))
        return self.fit(values)

    def production(self) -> list[int]:
        values = []
        for name, d in zip(self.names, self.dims):
            choices = list(d.production) or sorted({int(p[name]) for p in self.known if isinstance(p.get(name), int)})
            values.append(_snap(d, self.rng.choice(choices)) if choices else self._misaligned(d, d.legal()[0]))
        return values  # over the bound: other combinations are tried first, then it is shrunk

    def shape(self, tag: str) -> list[int]:
        return getattr(self, tag.replace("-", "_"))()

    def accepts(self, tag: str, values: list[int]) -> bool:
        size = math.prod(values)
        if size > self.bound:
            return False
        if tag == "scale-up":
            return size > self.known_max or size >= self.bound / 2
        if tag == "scale-down":
            return size < self.known_min or size <= self.smallest
        if tag == "skewed" and len(values) > 1:
            return max(values) >= 64 * min(values)
        return True

    def nudge(self, values: list[int], taken: list[dict], fixed: dict) -> dict | None:
        """The nearest untaken params a few legal steps above `values` (one dim moved), or None."""
        for step in range(1, _NUDGE_STEPS + 1):
            for i in self.rng.sample(range(len(values)), len(values)):
                moved = list(values)
                moved[i] += step * self.dims[i].multiple_of
                if moved[i] > self.dims[i].legal()[1] or math.prod(moved) > self.bound:
                    continue
                params = {**dict(zip(self.names, moved)), **fixed}
                if params not in taken and not self.space.violated(params):
                    return params
        return None

    def fixed(self) -> dict:
        return {name: self.rng.choice(choices) for name, choices in self.space.fixed.items()}


def draw(task: Task, n: int, seed: int, device: str = "cuda") -> list[Config]:
    """n configs drawn from task.space, named drawn-<tag>-<k>, split "drawn", tags round-robin.

    A tag with nothing new left in the space (the few production sizes under a small bound) hands
    its turn to the next tag, so the config keeps an honest tag; fewer than n come back only when
    the whole space is exhausted, never a duplicate."""
    if task.space is None:
        raise SpaceError(f"{task.id}: declares no [space] to draw configs from (docs/task-format.md)")
    rng = random.Random(f"gauntlet-draw:{task.id}:{seed}:{task.space.bound(device)}")
    drawer = _Drawer(task, task.space, device, rng)
    taken = [dict(p) for p in drawer.known]
    counts = {t: 0 for t in TAGS}
    configs = []
    for i in range(n):
        for turn in range(len(TAGS)):
            tag = TAGS[(i + turn) % len(TAGS)]
            params = _draw_one(drawer, tag, taken)
            if params is not None:
                break
        else:
            continue
        taken.append(params)
        configs.append(Config(name=f"drawn-{tag}-{counts[tag]}", split=SPLIT, params=params, tag=tag))
        counts[tag] += 1
    return configs


def _draw_one(drawer: _Drawer, tag: str, taken: list[dict]) -> dict | None:
    """New params for one tag, or None. The second half of the tries relaxes the tag's size
    criterion (it may be unreachable in this space) and nudges a taken shape to the nearest untaken
    one; production shapes are never relaxed (a shrunk one would not be a production shape)."""
    for attempt in range(_TRIES):
        values = drawer.shape(tag)
        relaxed = attempt >= _TRIES // 2 and tag != "production"
        if relaxed:
            values = drawer.fit(values)
        elif not drawer.accepts(tag, values):
            continue
        if math.prod(values) > drawer.bound:
            continue
        fixed = drawer.fixed()
        params = {**dict(zip(drawer.names, values)), **fixed}
        if params in taken and relaxed:
            params = drawer.nudge(values, taken, fixed) or params
        if params not in taken and not drawer.space.violated(params):
            return params
    return None


def select(candidates: list[Config], passed: dict[str, bool], n: int) -> list[Config]:
    """The first n candidates the baseline passed, taken round-robin over the tags (so a tag whose
    candidates all fail loses its turn, and the others keep theirs)."""
    queues = {t: [c for c in candidates if c.tag == t and passed.get(c.name)] for t in TAGS}
    chosen = []
    while len(chosen) < n and any(queues.values()):
        for tag in TAGS:
            if queues[tag] and len(chosen) < n:
                chosen.append(queues[tag].pop(0))
    order = {c.name: i for i, c in enumerate(candidates)}
    return sorted(chosen, key=lambda c: order[c.name])


# -- the forms they are kept in: the manifest (JSON) and the evaluator's --configs file (TOML) ------
def to_record(config: Config) -> dict:
    return {"name": config.name, "tag": config.tag, "params": dict(config.params)}


def from_record(record: dict) -> Config:
    return Config(name=record["name"], split=SPLIT, params=dict(record["params"]), tag=record.get("tag", ""))


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"{v!r} cannot be written as a TOML config value")
        return repr(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_toml(configs: list[Config]) -> str:
    """A configs.toml (read back by runner.tasks.task.load_configs)."""
    lines = []
    for c in configs:
        lines += ["[[config]]", f"name = {_toml_value(c.name)}"]
        lines += [f"{k} = {_toml_value(v)}" for k, v in c.params.items()]
        lines.append("")
    return "\n".join(lines)
