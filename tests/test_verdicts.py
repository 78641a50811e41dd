"""The verdict rules at their boundaries: seeds, the rate rule, NaN, vacuity, attribution, expectations."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from tests.support import toy_claim, toy_cleanup  # noqa: F401 (toy_cleanup: autouse fixture)
from verify.core import (
    Alternative,
    Ctx,
    Evidence,
    Expect,
    Kind,
    Profiles,
    Provenance,
    SeedPlan,
    Source,
    Verdict,
    run_claim,
)
from verify.core.conditions import Conditions
from verify.core.judge import decide, judge
from verify.core.record import Seeds
from verify.core.summary import summarise, summary_table
from verify.numerics.fit import Corrected, RateFit, fit_rate
from verify.numerics.gradcheck import check_grad
from verify.numerics.stats import clopper_pearson, trials_needed

# --- seeds ------------------------------------------------------------------------------------------


def test_every_seed_must_hold_and_the_first_violating_seed_is_named() -> None:
    @toy_claim("toyv.every", seeds=SeedPlan(Seeds.EVERY, quick=5))
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
    @toy_claim("toyv.finding", kind=Kind.UPPER, seeds=SeedPlan(Seeds.EVERY), expect=Expect(Verdict.VIOLATED))
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=1.5 if ctx.seed != 1 else 0.5)

    r = run_claim("toyv.finding")
    assert r.verdict == Verdict.INCONCLUSIVE and "every seed" in r.notes[0]
    assert run_claim("toyv.finding", seed_set=[0, 2, 3]).verdict == Verdict.VIOLATED


def test_binomial_seeds_use_clopper_pearson_bounds() -> None:
    @toy_claim("toyv.binom", kind=Kind.PROBABILITY, seeds=SeedPlan(Seeds.BINOMIAL, quick=20))
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=0.9, measured=ctx.seed not in (1, 2, 3, 4, 5, 6, 7))

    r = run_claim("toyv.binom")
    assert r.measured == [13, 20] and r.verdict == Verdict.VIOLATED  # upper bound 0.83 < 0.9
    edge = run_claim("toyv.binom", seed_set=[0, *range(2, 21)])  # 14/20: upper bound 0.87 < 0.9
    assert edge.measured == [14, 20] and edge.verdict == Verdict.VIOLATED
    assert len(r.per_seed) == 20
    few = run_claim("toyv.binom", seed_set=[0, *range(8, 27)])  # 20/20: lower bound 0.861 < 0.9
    assert few.measured == [20, 20] and few.verdict == Verdict.INCONCLUSIVE
    ok = run_claim("toyv.binom", seed_set=[0, *range(8, 36)])  # 29/29: lower bound 0.902
    assert ok.measured == [29, 29] and ok.verdict == Verdict.HOLDS
    assert ok.decision["rule"] == "probability" and ok.decision["k"] == 29


def test_pooled_claims_see_the_seed_set_and_floors_are_enforced() -> None:
    @toy_claim("toyv.pooled", kind=Kind.LOWER, seeds=SeedPlan(Seeds.POOLED))
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=3, measured=len(ctx.seed_set))

    assert run_claim("toyv.pooled").seeds == [0, 1, 2]
    with pytest.raises(ValueError, match=r"SeedPlan\.quick must be an int >= 3, got 2"):
        toy_claim("toyv.few", seeds=SeedPlan(Seeds.EVERY, quick=2))(f)


def test_a_seed_that_raises_is_an_error_naming_the_seed() -> None:
    @toy_claim("toyv.raise", seeds=SeedPlan(Seeds.EVERY))
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
    @toy_claim("toyv.vac", kind=Kind.CONDITION)
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1e40, measured=1e5)

    r = run_claim("toyv.vac")
    assert r.verdict == Verdict.VACUOUS and r.unexpected_failure and not r.as_expected


# --- the rate rule ----------------------------------------------------------------------------------

X = np.logspace(2, 8, 7)


def _fit(lo: float, hi: float, *, corrected: Corrected | None = None) -> RateFit:
    return RateFit((lo + hi) / 2, 0.0, lo, hi, 0.95, 9, "t", local=(5.0, -5.0), window=3, corrected=corrected)


def _decide(fit: RateFit, p: float = -1.0, tol: float = 0.1):
    return decide(Kind.RATE, Evidence(theory=p, measured=fit, tol=tol))


@pytest.mark.parametrize(
    ("lo", "hi", "verdict", "branch"),
    [
        (-1.05, -0.95, Verdict.HOLDS, "interval inside the band"),
        (-1.1, -0.9, Verdict.HOLDS, "interval inside the band"),  # the band's edges belong to it
        (-1.3, -1.11, Verdict.VIOLATED, "interval outside the band"),
        (-0.89, -0.5, Verdict.VIOLATED, "interval outside the band"),
        (-1.2, -0.95, Verdict.INCONCLUSIVE, "interval too wide: more seeds or sizes"),
        (-1.3, -0.8, Verdict.INCONCLUSIVE, "interval too wide: more seeds or sizes"),
        (-1.15, -1.0, Verdict.INCONCLUSIVE, "interval straddles the band edge"),
        (-0.95, -0.85, Verdict.INCONCLUSIVE, "interval straddles the band edge"),
    ],
)
def test_rate_rule_is_an_equivalence_test_on_the_interval(lo, hi, verdict, branch) -> None:
    j = _decide(_fit(lo, hi))
    assert (j.verdict, j.decision["branch"]) == (verdict, branch)
    assert j.decision["band"] == pytest.approx([-1.1, -0.9]) and j.decision["interval"] == [lo, hi]
    if verdict == Verdict.HOLDS:
        assert j.slack == pytest.approx(math.log10(0.1 / max(abs(lo + 1), abs(hi + 1))))
    elif verdict == Verdict.VIOLATED:
        assert j.slack == pytest.approx(math.log10(0.1 / min(abs(lo + 1), abs(hi + 1)))) and j.slack < 0
    else:
        assert j.slack is None


def test_the_local_slopes_decide_nothing() -> None:
    a, b = _fit(-1.05, -0.95), _fit(-1.05, -0.95)
    object.__setattr__(b, "local", (-1.0, -1.0, -1.0))
    assert _decide(a).verdict == _decide(b).verdict == Verdict.HOLDS
    floor = fit_rate(X, X**-1.0 + 1e-6)  # local slopes drift from -1 to -0.15: the interval decides
    assert _decide(floor).decision["interval"] == [floor.lo, floor.hi]


def test_a_correction_model_is_judged_instead_of_the_last_range() -> None:
    rng = np.random.default_rng(1)
    y = X[:, None] ** -1.0 * np.exp(20 * X[:, None] ** -0.25 + 0.01 * rng.standard_normal((X.size, 4)))
    raw = fit_rate(X, y)
    assert _decide(raw, tol=0.05).verdict != Verdict.HOLDS  # the last range still bends (about -1.1)
    fit = fit_rate(X, y, correction=0.25)
    j = _decide(fit, tol=0.05)
    assert fit.corrected is not None and fit.corrected.lo <= -1.0 <= fit.corrected.hi
    assert j.verdict == Verdict.HOLDS and j.decision["corrected"] and j.decision["raw_slope"] == raw.slope
    assert _decide(fit, p=-0.9, tol=0.05).verdict == Verdict.VIOLATED


def test_the_correction_order_is_stated_and_checked() -> None:
    with pytest.raises(ValueError, match="correction"):
        fit_rate(X, X**-1.0, correction=0.0)
    with pytest.raises(ValueError, match="needs n_seeds"):
        fit_rate(X[:3], X[:3] ** -1.0, correction=1.0)


def test_rate_interval_carries_the_seed_spread() -> None:
    rng = np.random.default_rng(0)
    y = X[:, None] ** -1.0 * np.exp(0.05 * rng.standard_normal((X.size, 8)))
    fit = fit_rate(X, y)
    assert fit.lo < -1.0 < fit.hi and fit.n == 3 * 8
    assert judge(Kind.RATE, Evidence(theory=-1.0, measured=fit, tol=0.05))[0] == Verdict.HOLDS
    assert judge(Kind.RATE, Evidence(theory=-0.5, measured=fit, tol=0.05))[0] == Verdict.VIOLATED


def test_a_rate_tolerance_must_separate_p_from_the_competing_exponent() -> None:
    for tol, verdict in ((0.25, Verdict.HOLDS), (0.26, Verdict.ERROR)):
        cid = f"toyv.tol{int(tol * 100)}"

        @toy_claim(
            cid,
            kind=Kind.RATE,
            profiles=Profiles(quick={"tol": tol}),
            alternative=Alternative("a T^-1/2 law", exponent=-0.5),
        )
        def f(ctx: Ctx, *, tol: float) -> Evidence:
            """toy"""
            return Evidence(theory=-1.0, measured=_fit(-1.05, -0.95), tol=tol)

        r = run_claim(cid)
        assert r.verdict == verdict, r.notes
        if verdict == Verdict.ERROR:
            assert "half the distance" in r.notes[0]
        else:
            assert {k: r.alternative[k] for k in ("world", "verdict")} == {
                "world": "a T^-1/2 law; competing exponent -0.5",
                "verdict": "violated",
            }
            assert 0.3 < r.alternative["resolution"]["value"] <= 0.305  # the band's edge: 0.05 + 0.25
            assert r.decision["branch"] == "interval inside the band"


# --- probabilities and alternatives -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "n", "verdict"),
    [
        (29, 29, Verdict.HOLDS),  # one-sided 95% lower bound 0.05^(1/29) = 0.902
        (28, 28, Verdict.INCONCLUSIVE),  # 0.05^(1/28) = 0.899
        (19, 20, Verdict.INCONCLUSIVE),  # [0.784, 0.997]
        (13, 20, Verdict.VIOLATED),  # upper bound 0.83
        (15, 20, Verdict.VIOLATED),  # upper bound 0.896
        (16, 20, Verdict.INCONCLUSIVE),  # upper bound 0.929
    ],
)
def test_probability_rule_uses_clopper_pearson_bounds(k: int, n: int, verdict: Verdict) -> None:
    j = decide(Kind.PROBABILITY, Evidence(theory=0.9, measured=[k, n]))
    cp = clopper_pearson(k, n)
    assert j.verdict == verdict and j.decision["interval"] == [cp.lo, cp.hi]
    assert (cp.lo >= 0.9) == (verdict == Verdict.HOLDS) and (cp.hi < 0.9) == (verdict == Verdict.VIOLATED)
    assert trials_needed(0.9) == 29


def test_clopper_pearson_bounds_are_exact() -> None:
    cp = clopper_pearson(19, 20)
    assert stats.binom.sf(18, 20, cp.lo) == pytest.approx(0.05, rel=1e-8)  # P(X >= 19 | lo) = 5%
    assert stats.binom.cdf(19, 20, cp.hi) == pytest.approx(0.05, rel=1e-8)  # P(X <= 19 | hi) = 5%
    assert clopper_pearson(0, 5).lo == 0.0 and clopper_pearson(5, 5).hi == 1.0


def test_the_alternative_world_runs_its_overrides_and_must_be_violated() -> None:
    @toy_claim(
        "toyv.alt",
        kind=Kind.UPPER,
        profiles=Profiles(quick={"law": "gauss"}),
        seeds=SeedPlan(Seeds.EVERY),
        alternative=Alternative("a heavier-tailed law", overrides={"law": "heavy"}),
    )
    def f(ctx: Ctx, *, law: str) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=0.5 if law == "gauss" else 2.0)

    assert run_claim("toyv.alt").verdict == Verdict.HOLDS and run_claim("toyv.alt").alternative is None
    alt = run_claim("toyv.alt", world="alternative")
    assert alt.verdict == Verdict.VIOLATED and alt.params["law"] == "heavy"


def test_a_tightened_bound_is_judged_alongside() -> None:
    @toy_claim("toyv.factor", kind=Kind.UPPER, alternative=Alternative("the bound 2.5x tighter", factor=2.5))
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=0.5)

    r = run_claim("toyv.factor")
    assert r.verdict == Verdict.HOLDS and r.alternative["verdict"] == "violated"
    assert run_claim("toyv.factor", world="alternative").verdict == Verdict.VIOLATED


def test_a_condition_is_falsified_by_the_world_that_flips_it() -> None:
    @toy_claim(
        "toyv.cond",
        kind=Kind.CONDITION,
        profiles=Profiles(quick={"scale": 1.0}),
        expect=Expect(Verdict.VACUOUS),
        alternative=Alternative("tokens 10x smaller", overrides={"scale": 0.1}, expect=Verdict.HOLDS),
    )
    def f(ctx: Ctx, *, scale: float) -> Evidence:
        """toy"""
        return Evidence(theory=1e6 * scale**6, measured=1e3)

    assert run_claim("toyv.cond").verdict == Verdict.VACUOUS
    alt = run_claim("toyv.cond", world="alternative")
    assert alt.verdict == alt.expected == Verdict.HOLDS
    same = Alternative("x", overrides={"scale": 0.5}, expect=Verdict.VACUOUS)
    with pytest.raises(ValueError, match="flips holds and vacuous"):
        toy_claim(
            "toyv.cond2",
            kind=Kind.CONDITION,
            profiles=Profiles(quick={"scale": 1.0}),
            expect=Expect(Verdict.VACUOUS),
            alternative=same,
        )(f)
    with pytest.raises(ValueError, match="must violate it"):
        toy_claim(
            "toyv.cond3",
            profiles=Profiles(quick={"scale": 1.0}),
            alternative=Alternative("x", factor=2.0, expect=Verdict.HOLDS),
        )(f)


def test_alternatives_are_checked_when_declared() -> None:
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=0.5)

    with pytest.raises(ValueError, match="not parameters"):
        toy_claim("toyv.bad1", alternative=Alternative("x", overrides={"nope": 1}))(f)
    with pytest.raises(ValueError, match="rate claims"):
        toy_claim("toyv.bad2", alternative=Alternative("x", exponent=1.0))(f)
    with pytest.raises(ValueError, match="another world"):
        toy_claim("toyv.bad3", kind=Kind.PROBABILITY, alternative=Alternative("x", exponent=1.0))(f)
    with pytest.raises(ValueError, match="consistency"):
        toy_claim("toyv.bad4", expect=Expect(consistency=True), alternative=Alternative("x", factor=2.0))
    with pytest.raises(ValueError, match="> 1"):
        Alternative("x", factor=0.5)
    with pytest.raises(ValueError, match="overrides, an exponent or a factor"):
        Alternative("x")


# --- attribution ------------------------------------------------------------------------------------


def test_summary_separates_findings_mismatches_and_consistency_checks() -> None:
    def ev(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=2.0)

    toy_claim("toyv.own", source=Source("toy", Provenance.EXACT), expect=Expect(Verdict.VIOLATED))(ev)
    toy_claim("toyv.recon", source=Source("toy", Provenance.RECONSTRUCTED), expect=Expect(Verdict.VIOLATED))(
        ev
    )
    toy_claim("toyv.quest", source=Source("toy", Provenance.QUESTION), expect=Expect(Verdict.VIOLATED))(ev)
    toy_claim(
        "toyv.cons",
        source=Source("toy", Provenance.DERIVED),
        expect=Expect(Verdict.VIOLATED, consistency=True),
    )(ev)
    results = [run_claim(c) for c in ("toyv.own", "toyv.recon", "toyv.quest", "toyv.cons")]
    (s,) = summarise(results)
    assert s.mismatches == ["toyv.recon"] and s.answers == ["toyv.quest"]
    assert s.findings == [] and s.unsettled == ["toyv.own"]  # no robustness judged: not a finding
    assert s.claims == 3 and sum(s.consistency.values()) == 1
    table = summary_table(results)
    assert "recon. mismatches" in table and "answers to referee questions" in table


def test_tables_print_the_headline_quantity_not_the_normalised_violation() -> None:
    from verify.cli import results_table

    @toy_claim("toyv.head")
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
