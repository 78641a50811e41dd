"""The context a claim function receives: profile, seed, seeded generators and a map for sweeps."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import wraps
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


#: The sweep points computed in this scope (:func:`sweep_memo`): (worker, point) -> pickled result.
_MEMO: ContextVar[dict[tuple[str, str, Any], bytes] | None] = ContextVar("sweep_memo", default=None)


@contextmanager
def sweep_memo() -> Iterator[None]:
    """A scope in which :meth:`Ctx.map` computes each (worker, point) once: a claim judged again at
    its choice points (a rule moved, a grid with one point more) reads the points it ran already. A
    worker is a pure function of its point (what lets a pool or Dask run it bit-identically), so a
    point read back is the one computed; each read is a fresh copy (unpickled), as from a pool. Inside
    an open scope, a nested one is that scope."""
    if _MEMO.get() is not None:
        yield
        return
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def _key(fn: Callable[[Any], Any], item: Any) -> tuple[str, str, Any] | None:
    key = (fn.__module__, fn.__qualname__, item)
    try:
        hash(key)
    except TypeError:  # a point that is no frozen value: computed every time
        return None
    return key


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
        memo = _MEMO.get()
        if memo is None:
            count_points(total=len(items))
            return list(self.mapper(fn, items))
        keys = [_key(fn, x) for x in items]
        todo = [i for i, k in enumerate(keys) if k is None or k not in memo]
        count_points(total=len(todo))
        done = dict(zip(todo, self.mapper(fn, [items[i] for i in todo]) if todo else [], strict=True))
        for i, r in done.items():
            if keys[i] is not None:
                memo[keys[i]] = pickle.dumps(r, protocol=pickle.HIGHEST_PROTOCOL)
        return [done[i] if i in done else pickle.loads(memo[k]) for i, k in enumerate(keys)]


class _NoRules(Mapping[str, Any]):
    """The rules an experiment sees: none (reading one raises, naming it)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def __getitem__(self, name: str) -> Any:
        raise RuntimeError(
            f"experiment {self.fn.__qualname__} read the pass rule {name!r}: an experiment depends on "
            "its arguments only (a rule is a choice point: judge it in the claim, or pass its value)"
        )

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def _frozen(x: Any) -> Any:
    """``x`` as a hashable key: lists and dicts as tagged tuples (other values as they are)."""
    if isinstance(x, list | tuple):
        return (type(x).__name__, *map(_frozen, x))
    if isinstance(x, dict):
        return ("dict", *((k, _frozen(v)) for k, v in sorted(x.items(), key=lambda kv: repr(kv[0]))))
    return x


def experiment(fn: Callable[..., Any]) -> Callable[..., Any]:
    """An experiment ``fn(ctx, *args, **kwargs)``: its result depends on the context's profile, seed and
    seed set and on its arguments, never on a pass rule (reading one raises). Inside a
    :func:`sweep_memo` scope (a claim judged over its choices) each distinct call is computed once and
    read back as a fresh copy, as :meth:`Ctx.map`'s points are, so a choice point that moves only a
    rule, or a parameter the call does not take, reruns none of it; arguments that are no frozen value
    (an array) compute every time. Outside such a scope it is a plain call."""
    no_rules = _NoRules(fn)

    @wraps(fn)
    def kept(ctx: Ctx, /, *args: Any, **kwargs: Any) -> Any:
        ctx = replace(ctx, rules=no_rules)
        memo = _MEMO.get()
        key = (
            None if memo is None else _key(fn, (ctx.profile, ctx.seed, ctx.seed_set, _frozen((args, kwargs))))
        )
        if key is None:
            return fn(ctx, *args, **kwargs)
        if key not in memo:
            memo[key] = pickle.dumps(fn(ctx, *args, **kwargs), protocol=pickle.HIGHEST_PROTOCOL)
        return pickle.loads(memo[key])

    return kept
