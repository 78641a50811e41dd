"""The worst-case search finds a planted violation, calls an attained bound tight, is deterministic."""

from __future__ import annotations

import math

import numpy as np
import pytest

from verify.core import Profiles, SeedPlan, Source
from verify.numerics.worstcase import TIGHT_RTOL, worst_case

A = np.diag([10.0, 1.0, 0.5, 0.1, 0.1, 0.05])  # |A x| / |x| is at most 10, attained only along e_1


def _ratio(bound: float):
    return lambda z: float(np.linalg.norm(A @ z) / np.linalg.norm(z)) / bound


def _search(bound: float, seed: int = 0, **kw):
    kw = {"starts": 4, "maxiter": 50} | kw
    return worst_case(_ratio(bound), lambda rng: rng.standard_normal(6), np.random.default_rng(seed), **kw)


def test_a_bound_one_percent_too_small_is_found_violated() -> None:
    w = _search(0.99 * 10.0)
    assert w.violated and w.ratio == pytest.approx(1 / 0.99, rel=1e-6)
    assert "counterexample" in w.verdict_note()


def test_the_exact_operator_norm_is_tight_and_random_draws_are_not() -> None:
    w = _search(10.0)
    assert w.tight and not w.violated and w.ratio >= 1 - TIGHT_RTOL
    assert w.typical < w.ratio  # random draws alone say less than the search
    replay = _ratio(10.0)(np.array(w.z))
    assert replay == w.ratio  # the saved argument replays the worst ratio


def test_a_loose_bound_states_its_remaining_gap() -> None:
    w = _search(30.0)
    assert not w.tight and "at least 3-fold loose" in w.verdict_note()


def test_a_zero_worst_ratio_is_stated_without_dividing_by_it() -> None:
    w = worst_case(
        lambda z: 0.0, lambda rng: rng.standard_normal(2), np.random.default_rng(0), starts=2, maxiter=0
    )
    assert w.ratio == 0.0 and "measured side is 0" in w.verdict_note()


def test_the_search_is_deterministic_for_a_seed_and_budgeted() -> None:
    a, b = _search(10.0, seed=3), _search(10.0, seed=3)
    assert a == b
    none = _search(10.0, maxiter=0)
    assert none.ratio == none.typical and none.evaluations == 4


def test_a_non_finite_ratio_is_refused() -> None:
    with pytest.raises(ValueError, match="ratio is nan"):
        worst_case(
            lambda z: math.nan,
            lambda rng: rng.standard_normal(2),
            np.random.default_rng(0),
            starts=1,
            maxiter=1,
        )


def test_a_claim_reports_its_worst_case_and_it_round_trips(tmp_path) -> None:
    from verify.cli import read_results, write_results
    from verify.core import Ctx, Evidence, Kind, Provenance, Search, claim, run_claim
    from verify.core.record import Seeds
    from verify.core.registry import _unregister

    search = Search(ratio="|A x| / (10 |x|)", space="x in R^6", budget="budget")

    @claim(
        "toyw.opnorm",
        Source("toy", Provenance.EXACT),
        kind=Kind.UPPER,
        statement="toy",
        profiles=Profiles(quick={"budget": (2, 30)}),
        seeds=SeedPlan(Seeds.EVERY),
        search=search,
    )
    def opnorm(ctx: Ctx, *, budget: tuple[int, int]) -> Evidence:
        """toy"""
        w = worst_case(_ratio(10.0), lambda rng: rng.standard_normal(6), ctx.rng(0), starts=budget[0],
                       maxiter=budget[1])  # fmt: skip
        return Evidence(theory=10.0, measured=10.0 * w.ratio, worst=w)

    try:
        r = run_claim("toyw.opnorm")
        missing = run_claim("toyw.opnorm", budget=(0, 0))  # a search that cannot even start
    finally:
        _unregister("toyw.opnorm")
    assert missing.verdict == "error" and "starts" in missing.notes[0]
    assert r.worst["ratio"] >= 1 - TIGHT_RTOL and any("tight" in n for n in r.notes)
    assert all("worst_ratio" in row for row in r.per_seed)
    write_results(tmp_path / "r.json", [r], "quick", 0)
    assert read_results(tmp_path / "r.json")[0].worst == r.worst


def test_a_declared_search_and_the_evidence_must_agree() -> None:
    from verify.core import Ctx, Evidence, Kind, Provenance, Search, claim, run_claim
    from verify.core.registry import _unregister

    search = Search(ratio="r", space="s", budget="budget")

    @claim(
        "toyw.nosearch",
        Source("toy", Provenance.EXACT),
        kind=Kind.UPPER,
        statement="toy",
        profiles=Profiles(quick={"budget": 1}),
        search=search,
    )
    def nosearch(ctx: Ctx, *, budget: int) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=0.5)

    try:
        r = run_claim("toyw.nosearch")
    finally:
        _unregister("toyw.nosearch")
    assert r.verdict == "error" and "declares a worst-case search" in r.notes[0]
    with pytest.raises(ValueError, match="search budget 'nope' is not a parameter"):
        claim(
            "toyw.bad",
            Source("t", Provenance.EXACT),
            kind=Kind.UPPER,
            statement="t",
            profiles=Profiles(quick={"budget": 1}),
            search=Search(ratio="r", space="s", budget="nope"),
        )(nosearch)
    with pytest.raises(ValueError, match=r"Search\.space must be a non-empty string"):
        Search(ratio="r", space=" ", budget="b")
