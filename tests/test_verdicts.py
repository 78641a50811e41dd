"""The verdict rules at their boundaries: seeds, the rate rule, NaN, vacuity, attribution, expectations."""

from __future__ import annotations

import math
from collections.abc import Iterator

import mpmath
import numpy as np
import pytest

from verify.core import Ctx, Evidence, Kind, Provenance, Verdict, claim, run_claim
from verify.core.conditions import Conditions
from verify.core.judge import judge
from verify.core.record import Seeds
from verify.core.registry import _unregister
from verify.core.summary import summarise, summary_table
from verify.numerics.fit import fit_rate
from verify.numerics.gradcheck import check_grad

_TOYS: list[str] = []


@pytest.fixture(autouse=True)
def _cleanup() -> Iterator[None]:
    yield
    while _TOYS:
        _unregister(_TOYS.pop())


def _toy(cid: str, kind: Kind = Kind.UPPER, **kw):
    _TOYS.append(cid)
    kw.setdefault("provenance", Provenance.EXACT)
    return claim(cid, reference="toy", kind=kind, statement="toy", quick={}, **kw)


# --- seeds ------------------------------------------------------------------------------------------


def test_every_seed_must_hold_and_the_first_violating_seed_is_named() -> None:
    @_toy("toyv.every", seeds=Seeds.EVERY, n_seeds={"quick": 5})
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=1.5 if ctx.seed in (3, 4) else 0.5)

    r = run_claim("toyv.every", seed=0)
    assert r.verdict == Verdict.VIOLATED and r.seeds == [0, 1, 2, 3, 4]
    assert r.measured == 1.5 and "first violating seed (2 of 5 violate)" in r.notes[0]
    assert [row["verdict"] for row in r.per_seed] == ["holds"] * 3 + ["violated"] * 2
    assert r.slack == pytest.approx(math.log10(1 / 1.5))
    assert run_claim("toyv.every", seed_set=[0, 1, 2]).verdict == Verdict.HOLDS
    assert run_claim("toyv.every", seed_set=[0, 1, 2]).slack == pytest.approx(math.log10(2))


def test_a_finding_must_be_violated_at_every_seed() -> None:
    @_toy("toyv.finding", kind=Kind.UPPER, seeds=Seeds.EVERY, expect=Verdict.VIOLATED)
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=1.5 if ctx.seed != 1 else 0.5)

    r = run_claim("toyv.finding")
    assert r.verdict == Verdict.INCONCLUSIVE and "every seed" in r.notes[0]
    assert run_claim("toyv.finding", seed_set=[0, 2, 3]).verdict == Verdict.VIOLATED


def test_binomial_seeds_use_the_exact_test() -> None:
    @_toy("toyv.binom", kind=Kind.PROBABILITY, seeds=Seeds.BINOMIAL, n_seeds={"quick": 20})
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=0.9, measured=ctx.seed not in (1, 2, 3, 4, 5, 6, 7))

    r = run_claim("toyv.binom")
    assert r.measured == [13, 20] and r.verdict == Verdict.VIOLATED  # P(X <= 13 | n=20, p=0.9) = 0.0024
    edge = run_claim("toyv.binom", seed_set=[0, *range(2, 21)])  # 14/20: P(X <= 14) = 0.011 > alpha
    assert edge.measured == [14, 20] and edge.verdict == Verdict.HOLDS
    assert len(r.per_seed) == 20
    ok = run_claim("toyv.binom", seed_set=[0, *range(8, 27)])
    assert ok.measured == [20, 20] and ok.verdict == Verdict.HOLDS


def test_pooled_claims_see_the_seed_set_and_floors_are_enforced() -> None:
    @_toy("toyv.pooled", kind=Kind.LOWER, seeds=Seeds.POOLED)
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=3, measured=len(ctx.seed_set))

    assert run_claim("toyv.pooled").seeds == [0, 1, 2]
    with pytest.raises(ValueError, match="n_seeds"):
        _toy("toyv.few", seeds=Seeds.EVERY, n_seeds={"quick": 2})(f)


def test_a_seed_that_raises_is_an_error_naming_the_seed() -> None:
    @_toy("toyv.raise", seeds=Seeds.EVERY)
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        if ctx.seed == 2:
            raise ArithmeticError("boom")
        return Evidence(theory=1.0, measured=0.5)

    r = run_claim("toyv.raise")
    assert r.verdict == Verdict.ERROR and "seed 2" in r.notes[0]


# --- loopholes --------------------------------------------------------------------------------------


def test_vacuous_never_masks_violated() -> None:
    v, _, notes = judge(Kind.UPPER, Evidence(theory=1.0, measured=5.0, trivial=0.9))
    assert v == Verdict.VIOLATED and any("trivial" in n for n in notes)
    assert judge(Kind.UPPER, Evidence(theory=1.0, measured=0.5, trivial=0.9))[0] == Verdict.VACUOUS


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_evidence_is_an_error_naming_where(bad: float) -> None:
    for ev, where in [
        (Evidence(theory=1.0, measured=bad), "measured"),
        (Evidence(theory=[0.0, bad], measured=0.5), "theory[1]"),
        (Evidence(theory=1.0, measured=np.array([0.1, bad])), "measured[(1,)]"),
    ]:
        v, _, notes = judge(Kind.UPPER, ev)
        assert v == Verdict.ERROR and where in notes[0]


def test_an_infinite_mpmath_bound_is_vacuous_not_an_error() -> None:
    assert judge(Kind.UPPER, Evidence(theory=mpmath.inf, measured=3.0))[0] == Verdict.VACUOUS
    assert judge(Kind.CONDITION, Evidence(theory=mpmath.inf, measured=1e5))[0] == Verdict.VACUOUS
    assert judge(Kind.LOWER, Evidence(theory=mpmath.inf, measured=1.0))[0] == Verdict.ERROR


def test_a_nan_in_one_gradient_entry_is_refused() -> None:
    x = {"w": np.array([1.0, 2.0, 3.0])}
    good = {"w": 2 * x["w"]}
    f = lambda p: float(np.sum(p["w"] ** 2))  # noqa: E731
    assert check_grad(f, x, good).ok
    bad = {"w": np.array([2.0, math.nan, 6.0])}
    with pytest.raises(ValueError, match=r"non-finite analytic gradient in block 'w' at \(1,\)"):
        check_grad(f, x, bad)
    with pytest.raises(ValueError, match="non-finite numeric"):
        check_grad(lambda p: math.nan, x, good)


def test_conditions_propagate_nan_and_print_their_headline() -> None:
    c = Conditions()
    c.window("slope", -1.003, -1.05, -0.95)
    c.tol("constant error", math.nan, 0.02)
    assert judge(Kind.UPPER, c.evidence(headline="slope"))[0] == Verdict.ERROR
    c = Conditions()
    c.window("slope", -1.003, -1.05, -0.95)
    c.tol("constant error", 0.001, 0.02)
    ev = c.evidence(headline="slope")
    assert ev.headline == {"name": "slope", "theory": [-1.05, -0.95], "measured": -1.003}
    assert judge(Kind.UPPER, ev)[0] == Verdict.HOLDS
    with pytest.raises(ValueError, match="headline"):
        c.evidence(headline="nothing")


def test_any_verdict_other_than_expected_fails_the_run() -> None:
    @_toy("toyv.vac", kind=Kind.CONDITION)
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1e40, measured=1e5)

    r = run_claim("toyv.vac")
    assert r.verdict == Verdict.VACUOUS and r.unexpected_failure and not r.as_expected


# --- the rate rule ----------------------------------------------------------------------------------

X = np.logspace(2, 8, 7)


def _rate(y: np.ndarray, p: float = -1.0, tol: float = 0.1, x: np.ndarray = X) -> Verdict:
    return judge(Kind.RATE, Evidence(theory=p, measured=fit_rate(x, y), tol=tol))[0]


def test_rate_with_a_log_factor_converging_to_p_holds() -> None:
    assert _rate(X**-1.0 * np.log(X)) == Verdict.HOLDS  # local slopes -0.85 ... -0.94, toward -1


def test_rate_settling_at_p_plus_0_2_is_violated() -> None:
    assert _rate(X**-0.8 * (1 + 1 / X)) == Verdict.VIOLATED


def test_rate_settled_exactly_or_geometrically_away_from_p_is_violated() -> None:
    assert _rate(2 * X**3.0, p=2.0) == Verdict.VIOLATED  # constant local slopes 3 (round-off steps)
    y = X**-1.3 * np.exp(0.5 * np.log(X) * (X / 100) ** -0.3)  # local slopes settle fast toward -1.3
    assert _rate(y, p=-1.0) == Verdict.VIOLATED


def test_rate_settled_within_tol_of_p_holds_though_its_interval_misses_p() -> None:
    y = X[:, None] ** 2.01 * np.exp(1e-4 * np.array([[0.0, 1.0, -1.0]]) * np.log(X)[:, None] ** 0.5)
    fit = fit_rate(X, y)
    assert not fit.contains(2.0)  # a narrow interval just off p; the local slopes sit within tol of it
    assert judge(Kind.RATE, Evidence(theory=2.0, measured=fit, tol=0.2))[0] == Verdict.HOLDS


def test_rate_scattering_around_p_within_tol_holds() -> None:
    y = X**-1.0 * np.exp(np.array([0, 0.3, 0, 0, 0.3, 0, 0]))  # local slopes -1.00, -1.07, -0.94, ...
    fit = fit_rate(X, y)
    assert np.all(np.abs(np.array(fit.local) + 1) <= 0.1) and abs(fit.local[-1] - fit.local[-2]) > 0.05
    assert _rate(y, p=-1.0, tol=0.1) == Verdict.HOLDS


def test_a_wide_interval_alone_never_confirms_a_rate() -> None:
    floor = X**-1.0 + 1e-6  # a loss flattening onto a floor: local slopes -1.00, ..., -0.15
    assert _rate(floor, p=-1.0, tol=0.1) == Verdict.VIOLATED
    wide = fit_rate(X[2:5], np.array([1.0, 0.3, 0.02]))  # one curve, 3 points: interval [-3.2, 1.5]
    assert wide.contains(-1.0) and (wide.hi - wide.lo) / 2 > 0.1
    assert judge(Kind.RATE, Evidence(theory=-1.0, measured=wide, tol=0.1))[0] == Verdict.INCONCLUSIVE


def test_rate_moving_away_from_p_is_violated() -> None:
    assert _rate(X**2.0 * np.exp(0.01 * np.log(X) ** 2), p=2.0, tol=0.2) == Verdict.VIOLATED  # 2 + 0.02 ln x


def test_rate_too_short_or_not_yet_asymptotic_is_inconclusive() -> None:
    assert _rate(X[:3] ** -0.8, x=X[:3]) == Verdict.INCONCLUSIVE
    # moving toward p but still more than tol away: not yet asymptotic
    assert _rate(X**-1.0 * np.log(X) ** 3) == Verdict.INCONCLUSIVE


def test_rate_interval_carries_the_seed_spread() -> None:
    rng = np.random.default_rng(0)
    y = X[:, None] ** -1.0 * np.exp(0.05 * rng.standard_normal((X.size, 8)))
    fit = fit_rate(X, y)
    assert fit.lo < -1.0 < fit.hi and fit.n == 3 * 8
    assert judge(Kind.RATE, Evidence(theory=-1.0, measured=fit, tol=0.05))[0] == Verdict.HOLDS
    assert judge(Kind.RATE, Evidence(theory=-0.5, measured=fit, tol=0.05))[0] == Verdict.VIOLATED


# --- attribution ------------------------------------------------------------------------------------


def test_summary_separates_findings_mismatches_and_consistency_checks() -> None:
    def ev(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=2.0)

    _toy("toyv.own", provenance=Provenance.EXACT, expect=Verdict.VIOLATED)(ev)
    _toy("toyv.recon", provenance=Provenance.RECONSTRUCTED, expect=Verdict.VIOLATED)(ev)
    _toy("toyv.cons", provenance=Provenance.DERIVED, consistency=True, expect=Verdict.VIOLATED)(ev)
    results = [run_claim(c) for c in ("toyv.own", "toyv.recon", "toyv.cons")]
    (s,) = summarise(results)
    assert s.findings == ["toyv.own"] and s.mismatches == ["toyv.recon"]
    assert s.claims == 2 and sum(s.consistency.values()) == 1
    assert "recon. mismatches" in summary_table(results)


def test_tables_print_the_headline_quantity_not_the_normalised_violation() -> None:
    from verify.cli import results_table

    @_toy("toyv.head")
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        c = Conditions()
        c.window("slope", -1.003, -1.05, -0.95)
        c.tol("constant error", 0.001, 0.02)
        return c.evidence(headline="slope")

    r = run_claim("toyv.head")
    assert r.verdict == Verdict.HOLDS and r.headline["measured"] == -1.003
    row = results_table([r]).splitlines()[-1]
    assert "-1.00e+00" in row and "[-1.05e+00, -9.50e-01]" in row and "6.00e-02" not in row


def test_the_rate_interval_ignores_the_seeds_levels_but_not_their_slopes() -> None:
    levels = np.exp(np.array([[0.0, 1.0, 2.0]]))  # three seeds at very different levels, same law
    same = fit_rate(X, X[:, None] ** -1.0 * levels)
    assert same.hi - same.lo < 1e-9 and same.slope == pytest.approx(-1.0)
    spread = fit_rate(X, X[:, None] ** np.array([[-0.9, -1.0, -1.1]]))  # seeds with different slopes
    assert spread.lo < -1.05 and spread.hi > -0.95 and spread.slope == pytest.approx(-1.0)
