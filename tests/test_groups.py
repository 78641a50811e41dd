"""Claims that share an experiment run on one worker: a parallel run computes the experiment once,
and its results are the serial run's."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import without_times
from verify.core import Ctx, Evidence, Kind, Provenance, claim, run_claims
from verify.core.parallel import groups
from verify.core.registry import _unregister, match_claims

_LOG = Path(os.environ.get("TMPDIR", "/tmp")) / f"attncheck-groups-{os.getpid()}.log"


@functools.cache
def _experiment(key: str) -> float:
    """An experiment cached per process; each computation leaves a line ``pid key`` in the log."""
    with _LOG.open("a") as f:
        f.write(f"{os.getpid()} {key}\n")
    return float(len(key))


@pytest.fixture
def shared() -> Iterator[list[str]]:
    ids = ["toyg.a", "toyg.b", "toyg.c", "toyg.d"]
    for cid in ids:
        exp = "" if cid in ("toyg.c", "toyg.d") else "shared run"

        @claim(cid, reference="toy", kind=Kind.UPPER, provenance=Provenance.DERIVED, statement="toy",
               quick={}, consistency=True, experiment=exp)  # fmt: skip
        def f(ctx: Ctx, key: str = exp or cid) -> Evidence:
            """toy"""
            return Evidence(theory=100.0, measured=_experiment(key))

    _LOG.unlink(missing_ok=True)
    yield ids
    for cid in ids:
        _unregister(cid)
    _LOG.unlink(missing_ok=True)


def test_claims_sharing_an_experiment_form_one_task(shared: list[str]) -> None:
    tasks = groups(match_claims(shared), {"toyg.c": 5.0})
    assert [[c.id for c in g] for g in tasks] == [["toyg.c"], ["toyg.a", "toyg.b"], ["toyg.d"]]


def test_a_parallel_run_computes_a_shared_experiment_once(shared: list[str]) -> None:
    parallel = run_claims(match_claims(shared), jobs=2)
    keys = [ln.split(" ", 1)[1] for ln in _LOG.read_text().splitlines()]
    assert sorted(keys) == ["shared run", "toyg.c", "toyg.d"]  # a and b's experiment: once, on one worker
    _LOG.unlink()
    serial = run_claims(match_claims(shared), jobs=1)
    assert [without_times(r) for r in parallel] == [without_times(r) for r in serial]
