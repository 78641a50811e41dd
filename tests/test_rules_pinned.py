"""Every branch, side and threshold of the verdict rules, pinned on toy evidence.

Each test names the rule it pins; each fails when a comparison flips (``<=`` / ``<``), a side swaps, a
constant moves or a branch is dropped. The Monte-Carlo interval of an upper / lower bound and the
seed-to-seed slope interval of ``fit_rate`` are pinned by their own tests, not here.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from verify.core.judge import ROUNDOFF_RTOL, decide
from verify.core.record import Alternative, Evidence, Kind, Verdict
from verify.numerics.fit import RateFit, SlopeFit, fit_loglog, fit_rate
from verify.numerics.stats import LEVEL, clopper_pearson, trials_needed
from verify.numerics.worstcase import TIGHT_RTOL, WorstCase, worst_case


def _v(kind: Kind, **ev: object) -> Verdict:
    return decide(kind, Evidence(**ev)).verdict  # type: ignore[arg-type]


def _slack(kind: Kind, **ev: object) -> float | None:
    return decide(kind, Evidence(**ev)).slack  # type: ignore[arg-type]


# ---------------------------------------------------------------- upper / lower


def test_roundoff_margin_is_1e_10_relative() -> None:
    """ROUNDOFF_RTOL = 1e-10: 0.9e-10 over the bound holds, 1.1e-10 over it is violated."""
    assert ROUNDOFF_RTOL == 1e-10
    assert _v(Kind.UPPER, theory=1.0, measured=1.0 + 0.9e-10) == Verdict.HOLDS
    assert _v(Kind.UPPER, theory=1.0, measured=1.0 + 1.1e-10) == Verdict.VIOLATED
    assert _v(Kind.LOWER, theory=1.0, measured=1.0 - 0.9e-10) == Verdict.HOLDS
    assert _v(Kind.LOWER, theory=1.0, measured=1.0 - 1.1e-10) == Verdict.VIOLATED
    assert decide(Kind.UPPER, Evidence(theory=1.0, measured=0.5)).decision["rtol"] == ROUNDOFF_RTOL


def test_bounds_are_inclusive_and_a_stated_rtol_replaces_the_margin() -> None:
    """measured == theory holds for upper and lower even with rtol = 0; the claim's rtol is the one used."""
    assert _v(Kind.UPPER, theory=1.0, measured=1.0, rtol=0.0) == Verdict.HOLDS
    assert _v(Kind.LOWER, theory=1.0, measured=1.0, rtol=0.0) == Verdict.HOLDS
    assert _v(Kind.UPPER, theory=1.0, measured=1.0 + 1e-15, rtol=0.0) == Verdict.VIOLATED
    assert _v(Kind.LOWER, theory=1.0, measured=1.0 - 1e-15, rtol=0.0) == Verdict.VIOLATED
    assert decide(Kind.UPPER, Evidence(theory=1.0, measured=0.5, rtol=0.0)).decision["rtol"] == 0.0


def test_the_margin_is_relative_to_the_larger_magnitude() -> None:
    """margin = rtol * max(|theory|, |measured|), added on the lenient side of each bound."""
    assert _v(Kind.UPPER, theory=1.0, measured=1.9, rtol=0.5) == Verdict.HOLDS  # 1.9 <= 1 + 0.95
    assert _v(Kind.UPPER, theory=1.0, measured=2.1, rtol=0.5) == Verdict.VIOLATED  # 2.1 > 1 + 1.05
    assert _v(Kind.LOWER, theory=2.0, measured=1.1, rtol=0.5) == Verdict.HOLDS  # 1.1 >= 2 - 1.0
    assert _v(Kind.LOWER, theory=2.0, measured=0.9, rtol=0.5) == Verdict.VIOLATED


def test_bound_slack_orientation_and_undefined_slack() -> None:
    """upper: log10(theory/measured); lower: log10(measured/theory); negatives by magnitude; else None."""
    assert _slack(Kind.UPPER, theory=10.0, measured=1.0) == pytest.approx(1.0)
    assert _slack(Kind.LOWER, theory=1.0, measured=10.0) == pytest.approx(1.0)
    assert _slack(Kind.UPPER, theory=-1.0, measured=-10.0) == pytest.approx(1.0)
    assert _slack(Kind.LOWER, theory=-10.0, measured=-1.0) == pytest.approx(1.0)
    assert _slack(Kind.UPPER, theory=1.0, measured=0.0) is None
    assert _slack(Kind.UPPER, theory=-1.0, measured=0.5) is None
    assert _slack(Kind.LOWER, theory=1.0, measured=-0.5) is None


def test_trivial_value_makes_an_upper_bound_vacuous_at_equality() -> None:
    """theory >= trivial -> vacuous (inclusive); theory < trivial -> holds; violated stays violated;
    a lower bound ignores ``trivial``."""
    assert _v(Kind.UPPER, theory=1.0, measured=0.5, trivial=1.0) == Verdict.VACUOUS
    assert _v(Kind.UPPER, theory=1.0, measured=0.5, trivial=1.0 + 1e-9) == Verdict.HOLDS
    assert _v(Kind.UPPER, theory=1.0, measured=2.0, trivial=0.5) == Verdict.VIOLATED
    assert _v(Kind.LOWER, theory=5.0, measured=6.0, trivial=1.0) == Verdict.HOLDS
    j = decide(Kind.UPPER, Evidence(theory=2.0, measured=0.5, trivial=1.0))
    assert j.decision["branch"] == "bound at or above the trivial value"


# ---------------------------------------------------------------- non-finite values and infinite bounds


@pytest.mark.parametrize("kind", [Kind.UPPER, Kind.CONDITION])
def test_an_infinite_upper_bound_or_required_size_is_vacuous(kind: Kind) -> None:
    """+mpmath.inf theory of an upper bound or a condition: vacuous, slack None."""
    j = decide(kind, Evidence(theory=mpmath.inf, measured=1.0))
    assert j.verdict == Verdict.VACUOUS and j.slack is None and "infinite" in j.decision["branch"]


@pytest.mark.parametrize(
    ("kind", "theory"),
    [
        (Kind.LOWER, mpmath.inf),
        (Kind.UPPER, -mpmath.inf),
        (Kind.CONDITION, -mpmath.inf),
        (Kind.UPPER, math.inf),
    ],
)
def test_other_infinite_theories_are_errors(kind: Kind, theory: object) -> None:
    """Only +mpmath.inf of upper / condition is the documented infinity; the rest are errors."""
    j = decide(kind, Evidence(theory=theory, measured=1.0))
    assert j.verdict == Verdict.ERROR and "theory" in j.notes[0]


_NAN_CASES = {
    "theory float": (Kind.UPPER, {"theory": math.nan, "measured": 1.0}, "theory"),
    "theory mpf": (Kind.UPPER, {"theory": mpmath.mpf("nan"), "measured": 1.0}, "theory"),
    "theory list": (Kind.TWO_SIDED, {"theory": [0.0, math.nan], "measured": 1.0}, "theory[1]"),
    "measured float": (Kind.UPPER, {"theory": 1.0, "measured": math.inf}, "measured"),
    "measured array": (Kind.UPPER, {"theory": 1.0, "measured": np.array([1.0, math.nan])}, "measured[(1,)]"),
    "measured fit": (
        Kind.RATE,
        {"theory": -1.0, "measured": RateFit(-1.0, 0.0, math.nan, -0.9, 0.95, 5, "t"), "tol": 0.1},
        "measured['lo']",
    ),
    "measured slopefit": (
        Kind.UPPER,
        {"theory": 1.0, "measured": SlopeFit(-1.0, 0.0, -1.1, math.inf, 0.95, 5, "t")},
        "measured['hi']",
    ),
    "trivial": (Kind.UPPER, {"theory": 1.0, "measured": 0.5, "trivial": math.nan}, "trivial"),
    "headline": (
        Kind.UPPER,
        {"theory": 1.0, "measured": 0.5, "headline": {"theory": 1.0, "measured": math.nan}},
        "headline['measured']",
    ),
}


@pytest.mark.parametrize("case", sorted(_NAN_CASES))
def test_a_non_finite_value_anywhere_is_an_error_naming_where(case: str) -> None:
    """NaN / inf in theory, measured, trivial or headline (floats, mpf, lists, arrays, dicts, fits)."""
    kind, ev, where = _NAN_CASES[case]
    j = decide(kind, Evidence(**ev))  # type: ignore[arg-type]
    assert j.verdict == Verdict.ERROR and j.slack is None
    assert j.notes == [f"non-finite value (NaN or inf) in the evidence: {where}"]


def test_non_finite_comes_before_failed_and_failed_before_inconclusive() -> None:
    """Order of the early branches: error, then out_of_regime, then inconclusive, then the rule."""
    ev = {"theory": 1.0, "measured": 2.0}
    assert _v(Kind.UPPER, **ev | {"measured": math.nan}, failed=["p"]) == Verdict.ERROR
    j = decide(Kind.UPPER, Evidence(**ev, failed=["N <= d"], inconclusive="why"))  # type: ignore[arg-type]
    assert j.verdict == Verdict.OUT_OF_REGIME and j.notes == ["assumption failed: N <= d"]
    j = decide(Kind.UPPER, Evidence(**ev, inconclusive="why"))  # type: ignore[arg-type]
    assert j.verdict == Verdict.INCONCLUSIVE and j.notes == ["inconclusive: why"]


# ---------------------------------------------------------------- two-sided


def test_two_sided_window_is_inclusive_with_the_roundoff_margin() -> None:
    """lo <= measured <= hi inclusive, widened by ROUNDOFF_RTOL * |edge| and no more."""
    band = [1.0, 3.0]
    assert _v(Kind.TWO_SIDED, theory=band, measured=1.0) == Verdict.HOLDS
    assert _v(Kind.TWO_SIDED, theory=band, measured=3.0) == Verdict.HOLDS
    assert _v(Kind.TWO_SIDED, theory=band, measured=3.0 * (1 + 0.5e-10)) == Verdict.HOLDS
    assert _v(Kind.TWO_SIDED, theory=band, measured=1.0 * (1 - 0.5e-10)) == Verdict.HOLDS
    assert _v(Kind.TWO_SIDED, theory=band, measured=3.0 * (1 + 2e-10)) == Verdict.VIOLATED
    assert _v(Kind.TWO_SIDED, theory=band, measured=1.0 * (1 - 2e-10)) == Verdict.VIOLATED
    assert _v(Kind.TWO_SIDED, theory=band, measured=1.0, rtol=0.0) == Verdict.HOLDS  # edges inclusive
    assert _v(Kind.TWO_SIDED, theory=band, measured=3.0, rtol=0.0) == Verdict.HOLDS
    assert _v(Kind.TWO_SIDED, theory=band, measured=3.3, rtol=0.1) == Verdict.HOLDS  # a stated rtol


def test_two_sided_slack_is_half_width_over_distance_from_centre() -> None:
    """slack log10(half / |m - centre|): 0 on an edge, log10 2 halfway, None at the centre or lo == hi."""
    assert _slack(Kind.TWO_SIDED, theory=[1.0, 3.0], measured=3.0) == pytest.approx(0.0)
    assert _slack(Kind.TWO_SIDED, theory=[1.0, 3.0], measured=2.5) == pytest.approx(math.log10(2))
    assert _slack(Kind.TWO_SIDED, theory=[1.0, 3.0], measured=5.0) == pytest.approx(-math.log10(3))
    assert _slack(Kind.TWO_SIDED, theory=[1.0, 3.0], measured=2.0) is None
    j = decide(Kind.TWO_SIDED, Evidence(theory=[2.0, 2.0], measured=2.0))
    assert j.verdict == Verdict.HOLDS and j.slack is None
    with pytest.raises(ValueError, match="lo <= hi"):
        decide(Kind.TWO_SIDED, Evidence(theory=[3.0, 1.0], measured=2.0))


# ---------------------------------------------------------------- rate


def _fit(lo: float, hi: float) -> RateFit:
    return RateFit((lo + hi) / 2, 0.0, lo, hi, 0.95, 6, "t", local=(-1.0,), window=3)


def _rate(lo: float, hi: float, p: float = -1.0, tol: float = 0.25):
    return decide(Kind.RATE, Evidence(theory=p, measured=_fit(lo, hi), tol=tol))


@pytest.mark.parametrize(
    ("lo", "hi", "verdict", "branch"),
    [
        (-1.25, -0.9, Verdict.HOLDS, "interval inside the band"),  # lo on the lower edge
        (-1.1, -0.75, Verdict.HOLDS, "interval inside the band"),  # hi on the upper edge
        (-1.3, -0.9, Verdict.INCONCLUSIVE, "interval straddles the band edge"),  # lo just out
        (-1.1, -0.7, Verdict.INCONCLUSIVE, "interval straddles the band edge"),  # hi just out
        (-1.5, -1.25, Verdict.INCONCLUSIVE, "interval straddles the band edge"),  # hi on the lower edge
        (-0.75, -0.5, Verdict.INCONCLUSIVE, "interval straddles the band edge"),  # lo on the upper edge
        (-1.5, -1.3, Verdict.VIOLATED, "interval outside the band"),  # below
        (-0.7, -0.5, Verdict.VIOLATED, "interval outside the band"),  # above
        (-1.125, -0.625, Verdict.INCONCLUSIVE, "interval straddles the band edge"),  # width == 2 tol
        (-0.9, -0.6, Verdict.INCONCLUSIVE, "interval straddles the band edge"),  # width in (tol, 2 tol)
        (-1.4, -0.6, Verdict.INCONCLUSIVE, "interval too wide: more seeds or sizes"),  # width > 2 tol
    ],
)
def test_rate_rule_branches_and_band_edges(lo: float, hi: float, verdict: Verdict, branch: str) -> None:
    """band [p - tol, p + tol] inclusive; outside strictly; too wide iff width > 2 tol."""
    j = _rate(lo, hi)
    assert (j.verdict, j.decision["branch"]) == (verdict, branch)
    assert j.decision["band"] == [-1.25, -0.75] and j.decision["interval"] == [lo, hi]


def test_rate_slack_uses_the_farthest_end_when_inside_and_the_nearest_when_outside() -> None:
    """holds: log10(tol / max distance); violated: log10(tol / min distance); inconclusive: None."""
    assert _rate(-1.2, -0.9).slack == pytest.approx(math.log10(0.25 / 0.2))
    assert _rate(-0.6, -0.5).slack == pytest.approx(math.log10(0.25 / 0.4))
    assert _rate(-1.5, -1.3).slack == pytest.approx(math.log10(0.25 / 0.3))
    assert _rate(-1.0, -1.0).slack is None
    assert _rate(-1.3, -0.9).slack is None


@pytest.mark.parametrize("tol", [None, 0.0, -0.1])
def test_rate_needs_a_positive_tolerance(tol: float | None) -> None:
    """tol must be stated and > 0."""
    with pytest.raises(ValueError, match="tol > 0"):
        _rate(-1.1, -0.9, tol=tol)  # type: ignore[arg-type]


# ---------------------------------------------------------------- condition, identity, qualitative


def test_condition_holds_at_equality_and_is_vacuous_beyond() -> None:
    """required <= reachable holds (inclusive); else vacuous; slack log10(reachable / required)."""
    j = decide(Kind.CONDITION, Evidence(theory=100.0, measured=100.0))
    assert j.verdict == Verdict.HOLDS and j.slack == pytest.approx(0.0)
    j = decide(Kind.CONDITION, Evidence(theory=1000.0, measured=100.0))
    assert j.verdict == Verdict.VACUOUS and j.slack == pytest.approx(-1.0)
    assert _slack(Kind.CONDITION, theory=10.0, measured=100.0) == pytest.approx(1.0)


def test_identity_tolerance_is_inclusive_and_relative_to_theory() -> None:
    """|m - t| <= rtol |t| (inclusive, relative to theory; absolute rtol when t == 0);
    slack log10(allowed / err)."""
    assert _v(Kind.IDENTITY, theory=2.0, measured=3.0, rtol=0.5) == Verdict.HOLDS  # err == allowed
    assert _v(Kind.IDENTITY, theory=2.0, measured=3.4, rtol=0.5) == Verdict.VIOLATED  # 1.4 > 0.5 * 2
    assert _v(Kind.IDENTITY, theory=2.0, measured=1.2, rtol=0.5) == Verdict.HOLDS  # 0.8 <= 0.5 * 2
    assert _v(Kind.IDENTITY, theory=0.0, measured=1e-13, rtol=1e-12) == Verdict.HOLDS
    assert _v(Kind.IDENTITY, theory=0.0, measured=1e-11, rtol=1e-12) == Verdict.VIOLATED
    assert _slack(Kind.IDENTITY, theory=2.0, measured=2.1, rtol=0.5) == pytest.approx(1.0)
    assert _slack(Kind.IDENTITY, theory=2.0, measured=2.0, rtol=0.5) is None


def test_qualitative_is_the_bool() -> None:
    """measured True -> holds, False -> violated, slack None, a non-bool refused."""
    assert decide(Kind.QUALITATIVE, Evidence(theory="x", measured=True))[:2] == (Verdict.HOLDS, None)
    assert decide(Kind.QUALITATIVE, Evidence(theory="x", measured=False))[:2] == (Verdict.VIOLATED, None)
    with pytest.raises(TypeError, match="bool"):
        decide(Kind.QUALITATIVE, Evidence(theory="x", measured=1))


# ---------------------------------------------------------------- probability and Clopper-Pearson


def test_the_confidence_level_is_one_sided_95_percent() -> None:
    """LEVEL = 0.95; bounds are one-sided: beta.ppf(0.05, ...) and beta.ppf(0.95, ...)."""
    assert LEVEL == 0.95
    for k, n in [(1, 10), (9, 10), (13, 20), (5, 5), (0, 5)]:
        cp = clopper_pearson(k, n)
        assert cp.level == 0.95 and (cp.k, cp.n) == (k, n)
        lo = 0.0 if k == 0 else stats.beta.ppf(0.05, k, n - k + 1)
        hi = 1.0 if k == n else stats.beta.ppf(0.95, k + 1, n - k)
        assert (cp.lo, cp.hi) == (pytest.approx(lo, rel=1e-12), pytest.approx(hi, rel=1e-12))
        if 0 < k:  # P(X >= k | lo) = 5 %
            assert stats.binom.sf(k - 1, n, cp.lo) == pytest.approx(0.05, rel=1e-8)
        if k < n:  # P(X <= k | hi) = 5 %
            assert stats.binom.cdf(k, n, cp.hi) == pytest.approx(0.05, rel=1e-8)
    assert clopper_pearson(1, 10).lo > 0 and clopper_pearson(9, 10).hi < 1
    assert clopper_pearson(10, 10).lo == pytest.approx(0.05 ** (1 / 10))


def test_trials_needed_is_the_fewest_all_success_trials() -> None:
    """trials_needed(p0) = ceil(log(0.05) / log(p0)): n all-successes reach p0, n - 1 do not."""
    assert trials_needed(0.9) == 29 and trials_needed(0.9, level=0.9) == 22
    for p0 in (0.5, 0.8, 0.9, 0.95, 0.99):
        n = trials_needed(p0)
        assert clopper_pearson(n, n).lo >= p0 > clopper_pearson(n - 1, n - 1).lo


def test_probability_rule_edges_are_inclusive_for_holds_and_strict_for_violated() -> None:
    """holds iff CP lower bound >= p0 (p0 == lo holds); violated iff upper bound < p0 (p0 == hi is
    inconclusive); slack log10(delta / (1 - lo)) / log10(delta / (1 - hi))."""
    cp = clopper_pearson(18, 20)
    assert _v(Kind.PROBABILITY, theory=cp.lo, measured=[18, 20]) == Verdict.HOLDS
    assert _v(Kind.PROBABILITY, theory=cp.hi, measured=[18, 20]) == Verdict.INCONCLUSIVE
    assert _v(Kind.PROBABILITY, theory=cp.hi + 1e-9, measured=[18, 20]) == Verdict.VIOLATED
    j = decide(Kind.PROBABILITY, Evidence(theory=0.5, measured=[18, 20]))
    assert j.verdict == Verdict.HOLDS and j.slack == pytest.approx(math.log10(0.5 / (1 - cp.lo)))
    assert j.decision["k"] == 18 and j.decision["n"] == 20 and j.decision["level"] == 0.95
    j = decide(Kind.PROBABILITY, Evidence(theory=0.99, measured=[18, 20]))
    assert j.verdict == Verdict.VIOLATED and j.slack == pytest.approx(math.log10(0.01 / (1 - cp.hi)))


# ---------------------------------------------------------------- log-log fits: t interval dof


def _noisy(n: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.geomspace(4, 4096, n)
    return x, x**-0.5 * np.exp(0.05 * np.sin(np.arange(n) * 1.7))


def test_fit_loglog_t_interval_has_n_minus_2_dof_and_two_sided_level() -> None:
    """fit_loglog (one y per x): slope +- t(0.5 + level/2, n - 2) * stderr; at least 3 points; level 0.95."""
    x, y = _noisy(6)
    res = stats.linregress(np.log(x), np.log(y))
    half = stats.t.ppf(0.975, 4) * res.stderr
    f = fit_loglog(x, y)
    assert f.level == 0.95 and f.method == "t" and f.n == 6
    assert (f.lo, f.hi) == (
        pytest.approx(res.slope - half, rel=1e-9),
        pytest.approx(res.slope + half, rel=1e-9),
    )
    f80 = fit_loglog(x, y, level=0.8)
    assert f80.hi - f80.slope == pytest.approx(stats.t.ppf(0.9, 4) * res.stderr, rel=1e-9)
    with pytest.raises(ValueError, match="len"):
        fit_loglog(x[:2], y[:2])


def test_fit_loglog_bootstrap_interval_is_central() -> None:
    """The seed bootstrap interval is the central ``level`` quantile range (a 50 % interval is not a point
    and lies inside the 95 % one)."""
    x = np.geomspace(4, 4096, 5)
    y = x[:, None] ** -0.5 * np.exp(0.1 * np.cos(np.arange(5)[:, None] * np.arange(1, 5)[None, :]))
    f50, f95 = fit_loglog(x, y, level=0.5), fit_loglog(x, y)
    assert f95.level == 0.95 and f95.method == "bootstrap"
    assert f95.lo < f50.lo < f50.hi < f95.hi


def test_single_seed_fit_rate_is_the_ols_t_interval_of_the_last_window() -> None:
    """fit_rate with one seed: the last ``window`` points' OLS slope with a t(0.975, window - 2) interval,
    and the correction model's t interval has n_x - 3 dof (one seed: no seed-to-seed spread at all)."""
    x, y = _noisy(8)
    f = fit_rate(x, y, window=5)
    res = stats.linregress(np.log(x[-5:]), np.log(y[-5:]))
    half = stats.t.ppf(0.975, 3) * res.stderr
    assert f.level == 0.95 and f.slope == pytest.approx(res.slope, rel=1e-9)
    assert (f.lo, f.hi) == (
        pytest.approx(res.slope - half, rel=1e-9),
        pytest.approx(res.slope + half, rel=1e-9),
    )
    c = fit_rate(x, y, window=5, correction=1.0).corrected
    assert c is not None
    design = np.column_stack([np.ones(8), np.log(x), x**-1.0])
    coef, rss, *_ = np.linalg.lstsq(design, np.log(y), rcond=None)
    se = math.sqrt(rss[0] / 5 * np.linalg.inv(design.T @ design)[1, 1])
    assert c.slope == pytest.approx(coef[1], rel=1e-8)
    assert c.hi - c.slope == pytest.approx(stats.t.ppf(0.975, 5) * se, rel=1e-6)


# ---------------------------------------------------------------- the alternative world


def test_a_factor_tightens_an_upper_bound_by_division_and_a_lower_bound_by_multiplication() -> None:
    """Alternative.factor: upper theory / factor, lower theory * factor (both tighter); the headline goes."""
    alt = Alternative("tighter", factor=4.0)
    up = alt.apply(Kind.UPPER, Evidence(theory=2.0, measured=1.0, headline={"theory": 2.0, "measured": 1.0}))
    lo = alt.apply(Kind.LOWER, Evidence(theory=2.0, measured=3.0, headline={"theory": 2.0, "measured": 3.0}))
    assert up.theory == 0.5 and lo.theory == 8.0
    assert up.headline is None and lo.headline is None
    assert decide(Kind.UPPER, up).verdict == Verdict.VIOLATED  # 1.0 > 0.5
    assert decide(Kind.LOWER, lo).verdict == Verdict.VIOLATED  # 3.0 < 8.0
    assert (
        decide(Kind.UPPER, alt.apply(Kind.UPPER, Evidence(theory=2.0, measured=0.4))).verdict == Verdict.HOLDS
    )


def test_a_factor_must_exceed_one_and_applies_to_bounds_only() -> None:
    """factor > 1 strictly; factor only for upper / lower; exponent only for rate."""
    for bad in (1.0, 0.5, 0, -2.0):
        with pytest.raises(ValueError, match="> 1"):
            Alternative("x", factor=bad)
    Alternative("x", factor=1.0 + 1e-9)
    with pytest.raises(ValueError, match="upper / lower"):
        Alternative("x", factor=2.0).apply(Kind.IDENTITY, Evidence(theory=1.0, measured=1.0, rtol=0.1))
    with pytest.raises(ValueError, match="rate claims"):
        Alternative("x", exponent=1.0).apply(Kind.UPPER, Evidence(theory=1.0, measured=1.0))


def test_an_exponent_replaces_the_rate_and_overrides_are_not_a_rejudgement() -> None:
    """Alternative.exponent: the same fit judged against q; an overrides-only world keeps the evidence."""
    ev = Evidence(theory=-1.0, measured=_fit(-1.05, -0.95), tol=0.25, headline={"theory": 1, "measured": 1})
    alt = Alternative("the other rate", exponent=-0.5)
    assert alt.rejudged and alt.apply(Kind.RATE, ev).theory == -0.5
    assert alt.apply(Kind.RATE, ev).headline is None
    assert decide(Kind.RATE, alt.apply(Kind.RATE, ev)).verdict == Verdict.VIOLATED
    world = Alternative("heavy tails", overrides={"law": "heavy"})
    assert not world.rejudged and world.apply(Kind.UPPER, ev).headline == ev.headline


# ---------------------------------------------------------------- worst-case TIGHT_RTOL


def _wc(ratio: float) -> WorstCase:
    return WorstCase(ratio, 0.5, (0.0,), 1, 1, "L-BFGS-B")


def test_tight_means_within_one_percent_of_one_inclusive() -> None:
    """TIGHT_RTOL = 0.01: ratio in [0.99, 1] is tight; above 1 is a counterexample, not tight."""
    assert TIGHT_RTOL == 0.01
    assert _wc(1.0 - TIGHT_RTOL).tight and _wc(0.995).tight and _wc(1.0).tight
    assert not _wc(0.9899).tight and not _wc(0.95).tight
    assert not _wc(1.0).violated and _wc(1.0 + 1e-12).violated and not _wc(1.0 + 1e-12).tight
    assert "tight" in _wc(0.995).verdict_note() and "loose" in _wc(0.95).verdict_note()


def test_typical_is_the_largest_starting_ratio() -> None:
    """WorstCase.typical: the max over the random starts (not the last one); ratio the best found."""
    draws = iter([np.array([0.9]), np.array([0.3]), np.array([0.5])])
    w = worst_case(
        lambda z: float(z[0]), lambda rng: next(draws), np.random.default_rng(0), starts=3, maxiter=0
    )
    assert w.typical == 0.9 and w.ratio == 0.9 and w.z == (0.9,)
