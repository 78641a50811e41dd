"""The context a claim function receives: profile, seed, seeded generators and a map for sweeps."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from bounds.checks import check_choice, check_int
from verify.core.progress import count_points

PROFILES = ("quick", "paper")
#: The environment variable naming the profile, under pytest and as ``attncheck``'s default.
PROFILE_ENV = "ATTNCHECK_PROFILE"
#: The smallest seed set of a claim with random draws, per profile (a claim may ask for more).
SEED_COUNTS = {"quick": 3, "paper": 10}

Mapper = Callable[[Callable[[Any], Any], list[Any]], list[Any]]


def serial_map(fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    out = []
    for x in items:
        out.append(fn(x))
        count_points(done=1)
    return out


@dataclass
class Ctx:
    """profile: "quick" or "paper"; seed: the base seed; map: runs sweep points (serial by default,
    a process pool or Dask under ``attncheck run --jobs/--dask``). ``fn`` given to :meth:`map` must be
    a module-level function (picklable) and results come back in input order, so a parallel run is
    bit-identical to the serial one. seed_set: the run's whole seed set (a ``pooled`` claim draws one
    replicate per seed from it, a ``batched`` claim runs each of its seeds (:meth:`for_seed`); other
    claims see their own seed in ``seed``). rules: the claim's pass
    rules by name (values of its record's :class:`~verify.core.record.Rule` s), read with :meth:`rule`."""

    profile: str = "quick"
    seed: int = 0
    mapper: Mapper = field(default=serial_map, repr=False)
    rules: Mapping[str, Any] = field(default_factory=dict)
    seed_set: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        check_choice("profile", self.profile, PROFILES)
        self.seed = check_int("seed", self.seed, low=0)
        self.seed_set = tuple(check_int("seed", s, low=0) for s in self.seed_set) or (self.seed,)

    def for_seed(self, seed: int) -> Ctx:
        """This context at one seed of its set (a batched claim's view of each seed it runs)."""
        if seed not in self.seed_set:
            raise ValueError(f"seed {seed} is not in the seed set {list(self.seed_set)}")
        return replace(self, seed=seed, seed_set=(seed,))

    def rng(self, *keys: int) -> np.random.Generator:
        """A generator determined by (seed, *keys): the same keys always give the same stream."""
        return np.random.default_rng([self.seed, *(check_int("key", k, low=0) for k in keys)])

    def seeds(self, n: int) -> list[int]:
        """``n`` consecutive seeds starting at the base seed (for seed sweeps and binomial tests)."""
        return list(range(self.seed, self.seed + check_int("n", n, low=1)))

    def rule(self, name: str) -> Any:
        """The value of the claim's pass rule ``name`` (declared in its ``@claim(rules=...)``)."""
        try:
            return self.rules[name]
        except KeyError:
            raise KeyError(f"no pass rule {name!r}; the claim declares {sorted(self.rules)}") from None

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        items = list(items)
        count_points(total=len(items))
        return list(self.mapper(fn, items))
