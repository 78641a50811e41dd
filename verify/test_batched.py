"""Every batched claim gives each seed the evidence of its batch of one, bit for bit.

A batched claim (``@claim(..., seeds=SeedPlan(..., batched=True))``) runs its seed set as one computation
with a leading seed axis; a parallel run gives it one seed per task (a batch of one). Its verdict may not
depend on that: here every batched claim runs its quick seed set batched and each seed alone (from scratch:
a paper whose experiments keep runs per process empties them first, ``experiments.clear_runs()``), and
every value of the evidence (floats by their bits, arrays by dtype, shape and bytes) must agree.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
from typing import Any

import mpmath
import numpy as np
import pytest

from tests.support import builtin_registry
from verify.core.context import Ctx
from verify.core.papers import papers
from verify.core.registry import load_all, registry
from verify.core.seeds import _call_batch, claim_seeds

load_all()
BATCHED = sorted(cid for cid, c in builtin_registry().items() if c.record.batched)


def assert_bitwise(a: Any, b: Any, path: str = "evidence") -> None:
    """a and b are the same value bit for bit (floats by their IEEE bits, arrays by bytes)."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, f"{path}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        assert a.tobytes() == b.tobytes(), f"{path}: arrays differ"
    elif isinstance(a, float | np.floating):
        assert np.float64(a).tobytes() == np.float64(b).tobytes(), f"{path}: {a!r} != {b!r}"
    elif isinstance(a, mpmath.mpf):
        assert a == b or (mpmath.isnan(a) and mpmath.isnan(b)), f"{path}: {a} != {b}"
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            assert_bitwise(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_bitwise(x, y, f"{path}[{i}]")
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            assert_bitwise(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    else:
        assert a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)), f"{path}: {a!r} != {b!r}"


def test_bitwise_comparison_catches_a_last_bit_change() -> None:
    x = np.linspace(0, 1, 7)
    y = x.copy()
    y[3] = np.nextafter(y[3], 2.0)
    with pytest.raises(AssertionError, match="arrays differ"):
        assert_bitwise({"a": [x]}, {"a": [y]})
    with pytest.raises(AssertionError):
        assert_bitwise(0.1 + 0.2, 0.3)
    assert_bitwise({"a": [x, 0.5, "s"]}, {"a": [x.copy(), 0.5, "s"]})


@pytest.mark.parametrize("claim_id", BATCHED)
def test_each_seed_of_a_batch_is_its_batch_of_one(claim_id: str) -> None:
    c = registry()[claim_id]
    seeds = claim_seeds(c.record, "quick", 0)
    params = c.record.params_for("quick")
    rules = {k: r.value for k, r in c.record.rules}
    together = _call_batch(c, Ctx(seed=seeds[0], seed_set=tuple(seeds), rules=rules), params)
    for s, ev in zip(seeds, together, strict=True):
        _clear_runs(c)  # each seed alone from scratch, not read back from the batch's kept runs
        (alone,) = _call_batch(c, Ctx(seed=s, seed_set=(s,), rules=rules), params)
        assert_bitwise(ev, alone, f"{claim_id} seed {s}")


def _clear_runs(c: Any) -> None:
    """The claim's paper's ``experiments.clear_runs()``, where its experiments keep runs per process."""
    experiments = importlib.import_module(f"{papers()[c.record.paper].package.__name__}.experiments")
    getattr(experiments, "clear_runs", lambda: None)()
