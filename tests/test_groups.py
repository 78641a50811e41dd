"""Claims that share an experiment run on one worker: a parallel run computes the experiment once,
and its results are the serial run's."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import without_times
from verify.core import Ctx, Evidence, Expect, Kind, Provenance, SeedPlan, Source, claim, run_claims
from verify.core.parallel import groups
from verify.core.registry import _unregister, get_claim, match_claims

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

        @claim(
            cid,
            Source("toy", Provenance.DERIVED),
            kind=Kind.UPPER,
            statement="toy",
            seeds=SeedPlan(experiment=exp),
            expect=Expect(consistency=True),
        )
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


#: the seed at which toys.every raises (a forked worker inherits it)
_FAIL_AT = {"seed": -1}


@pytest.fixture
def seeded() -> Iterator[list[str]]:
    """An every claim (three seeds), a binomial, a batched and a deterministic one."""
    from verify.core.record import Seeds

    def draw(ctx: Ctx) -> float:
        return float(ctx.rng(3).uniform())

    toy = dict(source=Source("toy", Provenance.DERIVED), statement="toy", expect=Expect(consistency=True))

    @claim("toys.every", kind=Kind.UPPER, seeds=SeedPlan(Seeds.EVERY), **toy)
    def every(ctx: Ctx) -> Evidence:
        """toy"""
        if ctx.seed == _FAIL_AT["seed"]:
            raise ValueError("a seed that fails")
        with _LOG.open("a") as f:
            f.write(f"{os.getpid()} seed {ctx.seed}\n")
        return Evidence(theory=1.0, measured=draw(ctx))

    @claim("toys.binomial", kind=Kind.PROBABILITY, seeds=SeedPlan(Seeds.BINOMIAL, quick=5), **toy)
    def binomial(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=0.5, measured=draw(ctx) < 0.9)

    @claim("toys.batched", kind=Kind.UPPER, seeds=SeedPlan(Seeds.EVERY, batched=True), **toy)
    def batched(ctx: Ctx) -> list[Evidence]:
        """toy"""
        return [Evidence(theory=1.0, measured=draw(ctx.for_seed(s))) for s in ctx.seed_set]

    @claim("toys.none", kind=Kind.UPPER, **toy)
    def none(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=0.5)

    ids = ["toys.every", "toys.binomial", "toys.batched", "toys.none"]
    _LOG.unlink(missing_ok=True)
    yield ids
    for cid in ids:
        _unregister(cid)
    _LOG.unlink(missing_ok=True)
    _FAIL_AT["seed"] = -1


def test_each_seed_of_an_every_or_binomial_claim_is_a_task_of_its_own(seeded: list[str]) -> None:
    from verify.core.parallel import _SeedTask, work_units

    claims = match_claims(seeded)
    units = work_units(groups(claims, {"toys.every": 9.0}), {"toys.every": 9.0}, "quick", 0, None)
    assert units[:3] == [_SeedTask("toys.every", i, 3) for i in range(3)]  # 3.0 each: first
    assert sorted(u for u in units if not isinstance(u, _SeedTask)) == [("toys.batched",), ("toys.none",)]
    binomial = [u.index for u in units if isinstance(u, _SeedTask) and u.claim_id == "toys.binomial"]
    assert binomial == [0, 1, 2, 3, 4]
    parallel = run_claims(claims, jobs=2)
    ran = sorted(ln.split(" ", 1)[1] for ln in _LOG.read_text().splitlines())
    assert ran == ["seed 0", "seed 1", "seed 2"]
    serial = run_claims(claims, jobs=1)
    assert [without_times(r) for r in parallel] == [without_times(r) for r in serial]
    assert all(r.cpu_time > 0 and r.wall_time > 0 for r in parallel)


def test_a_failing_seed_task_is_its_claims_error_naming_the_seed(seeded: list[str]) -> None:
    _FAIL_AT["seed"] = 1
    parallel = {r.claim_id: r for r in run_claims(match_claims(seeded), jobs=2)}
    serial = {r.claim_id: r for r in run_claims(match_claims(seeded), jobs=1)}
    assert parallel["toys.every"].verdict == serial["toys.every"].verdict == "error"
    assert parallel["toys.every"].notes == serial["toys.every"].notes
    assert "seed 1: ValueError: a seed that fails" in parallel["toys.every"].notes[-1]
    assert parallel["toys.none"].verdict == "holds"


def test_a_claim_expected_to_be_judged_over_its_choices_runs_whole() -> None:
    """A documented violation of the paper's own statement, whose seeds would split, is one task in the
    findings mode (its judgement reuses its runs in that worker) and splits when nothing is judged."""
    from verify.core.parallel import _SeedTask, work_units

    finding, other = get_claim("yang2024.heads.tuned"), get_claim("yang2024.heads.HltN")
    tasks = [[finding], [other]]
    whole = work_units(tasks, {}, "quick", 0, None, "findings")
    assert ("yang2024.heads.tuned",) in whole
    assert sum(isinstance(u, _SeedTask) and u.claim_id == other.id for u in whole) == 3
    split = work_units(tasks, {}, "quick", 0, None, False)
    assert sum(isinstance(u, _SeedTask) and u.claim_id == finding.id for u in split) == 3
