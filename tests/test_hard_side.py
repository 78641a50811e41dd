"""The hard-side rule of upper and lower bounds whose measured value carries an interval, at every branch
and boundary; the side, level and sidedness in the decision; the alternative world's tightening
direction; identity evidence given arrays; the shared-test-set standard error of the D-gen gap."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from tests.support import toy_claim, toy_cleanup  # noqa: F401 (toy_cleanup: autouse fixture)
from verify.core import Alternative, Ctx, Evidence, Interval, Kind, SeedPlan, Verdict, run_claim
from verify.core.judge import HARD_SIDE, decide
from verify.core.record import Seeds
from verify.deora2023.experiments import shared_test_se

IV = Interval(0.4, 0.6, 0.95, "two-sided")


def _ev(theory: float, iv: Interval = IV, measured: float = 0.5, **kw) -> Evidence:
    return Evidence(theory=theory, measured=measured, interval=iv, rtol=0.0, **kw)


# --- the rule at each branch and boundary (rtol 0: the boundaries are exact) ------------------------

UPPER_CASES = [
    (0.7, Verdict.HOLDS, "upper end", math.log10(0.7 / 0.6)),
    (0.6, Verdict.HOLDS, "upper end", 0.0),  # upper end == bound: holds (inclusive)
    (0.59999, Verdict.INCONCLUSIVE, "both ends", None),
    (0.5, Verdict.INCONCLUSIVE, "both ends", None),  # the point estimate on the bound decides nothing
    (0.4, Verdict.INCONCLUSIVE, "both ends", None),  # lower end == bound: not violated (exclusive)
    (0.39999, Verdict.VIOLATED, "lower end", math.log10(0.39999 / 0.4)),
    (0.3, Verdict.VIOLATED, "lower end", math.log10(0.3 / 0.4)),
]
LOWER_CASES = [
    (0.3, Verdict.HOLDS, "lower end", math.log10(0.4 / 0.3)),
    (0.4, Verdict.HOLDS, "lower end", 0.0),  # lower end == bound: holds (inclusive)
    (0.40001, Verdict.INCONCLUSIVE, "both ends", None),
    (0.5, Verdict.INCONCLUSIVE, "both ends", None),
    (0.6, Verdict.INCONCLUSIVE, "both ends", None),  # upper end == bound: not violated (exclusive)
    (0.60001, Verdict.VIOLATED, "upper end", math.log10(0.6 / 0.60001)),
    (0.7, Verdict.VIOLATED, "upper end", math.log10(0.6 / 0.7)),
]


@pytest.mark.parametrize(
    ("kind", "theory", "verdict", "side", "slack"),
    [(Kind.UPPER, *c) for c in UPPER_CASES] + [(Kind.LOWER, *c) for c in LOWER_CASES],
)
def test_the_hard_side_rule_at_every_branch(
    kind: Kind, theory: float, verdict: Verdict, side: str, slack: float | None
) -> None:
    j = decide(kind, _ev(theory))
    assert j.verdict == verdict
    assert (j.slack is None) if slack is None else j.slack == pytest.approx(slack, abs=1e-12)
    d = j.decision
    assert d["rule"] == str(kind) and d["side"] == side and d["hard_side"] == HARD_SIDE[kind]
    assert d["interval"] == [0.4, 0.6] and d["estimate"] == 0.5 and d["theory"] == theory
    assert d["level"] == 0.95 and d["sided"] == "two-sided"
    if verdict == Verdict.INCONCLUSIVE:
        assert d["branch"] == "the interval straddles the bound: more samples"
        assert any("straddles the bound: more samples" in n for n in j.notes)


def test_the_hard_sides_are_the_upper_end_of_an_upper_bound_and_the_lower_end_of_a_lower_one() -> None:
    assert HARD_SIDE == {Kind.UPPER: "upper end", Kind.LOWER: "lower end"}


@pytest.mark.parametrize("sided", ["one-sided", "two-sided"])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_the_decision_records_the_intervals_level_and_sidedness(sided: str, level: float) -> None:
    for kind in (Kind.UPPER, Kind.LOWER):
        d = decide(kind, _ev(0.5, Interval(0.4, 0.6, level, sided))).decision
        assert (d["level"], d["sided"]) == (level, sided)


def test_a_point_estimate_within_the_bound_does_not_hold_when_the_interval_crosses_it() -> None:
    """The old two-way rule read the point (or one end) alone; the interval's far end now decides."""
    upper = decide(Kind.UPPER, _ev(0.55))  # measured 0.5 <= 0.55, but the upper end 0.6 is above
    lower = decide(Kind.LOWER, _ev(0.45))  # measured 0.5 >= 0.45, but the lower end 0.4 is below
    assert upper.verdict == lower.verdict == Verdict.INCONCLUSIVE
    # an upper limit above the bound alone is no evidence against the bound
    assert decide(Kind.UPPER, _ev(0.45)).verdict == Verdict.INCONCLUSIVE


def test_the_round_off_margin_moves_the_bound_in_the_claims_favour() -> None:
    hi = 0.6
    just_above = Evidence(theory=hi * (1 - 1e-12), measured=0.5, interval=IV)  # default rtol 1e-10
    assert decide(Kind.UPPER, just_above).verdict == Verdict.HOLDS
    lo_below = Evidence(theory=0.4 * (1 - 1e-12), measured=0.5, interval=IV)
    assert decide(Kind.UPPER, lo_below).verdict == Verdict.INCONCLUSIVE  # not violated within round-off
    assert decide(Kind.UPPER, Evidence(theory=0.4 * (1 - 1e-8), measured=0.5, interval=IV)).verdict == (
        Verdict.VIOLATED
    )


def test_negative_bounds_keep_the_orientation() -> None:
    """A slope bound "slope <= -0.3" with a slope interval (wu2023.lazy)."""
    iv = Interval(-1.0, -0.5, 0.95, "two-sided")
    held = decide(Kind.UPPER, Evidence(theory=-0.3, measured=-0.8, interval=iv))
    assert held.verdict == Verdict.HOLDS and held.slack == pytest.approx(math.log10(0.5 / 0.3))
    assert decide(Kind.UPPER, Evidence(theory=-0.7, measured=-0.8, interval=iv)).verdict == (
        Verdict.INCONCLUSIVE
    )
    broken = decide(Kind.UPPER, Evidence(theory=-1.2, measured=-0.8, interval=iv))
    assert broken.verdict == Verdict.VIOLATED and broken.decision["side"] == "lower end"


def test_a_vacuous_upper_bound_keeps_the_interval_record_and_a_violation_stays_violated() -> None:
    j = decide(Kind.UPPER, _ev(0.7, trivial=0.65))
    assert j.verdict == Verdict.VACUOUS and j.decision["hard_side"] == "upper end"
    assert j.decision["level"] == 0.95 and j.decision["sided"] == "two-sided"
    assert decide(Kind.UPPER, _ev(0.3, trivial=0.2)).verdict == Verdict.VIOLATED
    assert decide(Kind.UPPER, _ev(0.5, trivial=0.2)).verdict == Verdict.INCONCLUSIVE


def test_an_mpf_bound_is_judged_in_mpmath() -> None:
    j = decide(Kind.UPPER, _ev(mpmath.mpf("0.6")))
    assert j.verdict == Verdict.HOLDS and j.decision["side"] == "upper end"


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "error", "match"),
    [
        (dict(lo=0.6, hi=0.4, level=0.95, sided="two-sided"), ValueError, "lo <= hi"),
        (dict(lo=0.4, hi=0.6, level=1.0, sided="two-sided"), ValueError, "level"),
        (dict(lo=0.4, hi=0.6, level=0.0, sided="two-sided"), ValueError, "level"),
        (dict(lo=0.4, hi=0.6, level=0.95, sided="both"), ValueError, "sided"),
        (dict(lo=float("nan"), hi=0.6, level=0.95, sided="two-sided"), ValueError, "Interval.lo"),
        (dict(lo=0.4, hi=float("inf"), level=0.95, sided="two-sided"), ValueError, "Interval.hi"),
        (dict(lo="0.4", hi=0.6, level=0.95, sided="two-sided"), TypeError, "Interval.lo"),
        (dict(lo=0.4, hi=True, level=0.95, sided="two-sided"), TypeError, "Interval.hi"),
    ],
)
def test_a_bad_interval_is_refused_naming_the_field(kw: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        Interval(**kw)


def test_measured_must_lie_inside_its_interval() -> None:
    with pytest.raises(ValueError, match="measured"):
        decide(Kind.UPPER, _ev(1.0, measured=0.7))
    with pytest.raises(ValueError, match="measured"):
        decide(Kind.LOWER, _ev(0.1, measured=0.3))


def test_an_interval_that_is_no_interval_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"Evidence\.interval"):
        decide(Kind.UPPER, Evidence(theory=1.0, measured=0.5, interval=(0.4, 0.6)))


@pytest.mark.parametrize("kind", [Kind.RATE, Kind.IDENTITY, Kind.TWO_SIDED, Kind.PROBABILITY])
def test_an_interval_belongs_to_upper_and_lower_bounds_only(kind: Kind) -> None:
    with pytest.raises(ValueError, match=r"Evidence\.interval applies to upper / lower"):
        decide(kind, Evidence(theory=1.0, measured=0.5, interval=IV, rtol=1e-3))


# --- the alternative world: factor tightens ---------------------------------------------------------


def test_the_factor_tightens_an_upper_bound_and_is_judged_on_the_hard_side() -> None:
    ev = _ev(1.0)
    assert decide(Kind.UPPER, ev).verdict == Verdict.HOLDS
    for factor, verdict in ((1.5, Verdict.HOLDS), (2.0, Verdict.INCONCLUSIVE), (3.0, Verdict.VIOLATED)):
        alt = Alternative("a smaller bound", factor=factor).apply(Kind.UPPER, ev)
        assert alt.theory == pytest.approx(1.0 / factor)  # a loosening (x factor) would hold every time
        assert alt.interval == ev.interval and alt.measured == ev.measured
        assert decide(Kind.UPPER, alt).verdict == verdict
    assert decide(Kind.UPPER, Alternative("w", factor=3.0).apply(Kind.UPPER, ev)).decision["side"] == (
        "lower end"
    )


def test_the_factor_tightens_a_lower_bound_and_is_judged_on_the_hard_side() -> None:
    ev = _ev(0.2)
    assert decide(Kind.LOWER, ev).verdict == Verdict.HOLDS
    for factor, verdict in ((2.0, Verdict.HOLDS), (2.5, Verdict.INCONCLUSIVE), (4.0, Verdict.VIOLATED)):
        alt = Alternative("a larger bound", factor=factor).apply(Kind.LOWER, ev)
        assert alt.theory == pytest.approx(0.2 * factor)  # a loosening (/ factor) would hold every time
        assert decide(Kind.LOWER, alt).verdict == verdict
    assert decide(Kind.LOWER, Alternative("w", factor=4.0).apply(Kind.LOWER, ev)).decision["side"] == (
        "upper end"
    )


# --- through the runner: every seed, the per-seed rows, the re-judged and the run alternative ------


def test_an_every_claim_with_intervals_names_the_hard_side_per_seed_and_in_the_alternative() -> None:
    @toy_claim(
        "toyh.every",
        seeds=SeedPlan(Seeds.EVERY, quick=3),
        alternative=Alternative("the bound 3-fold smaller", factor=3.0),
    )
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        lo, hi = (0.4, 0.6) if ctx.seed != 2 else (0.45, 0.9)
        return Evidence(theory=1.0, measured=0.5, interval=Interval(lo, hi, 0.9, "one-sided"))

    r = run_claim("toyh.every", seed=0)
    assert r.verdict == Verdict.HOLDS and r.slack == pytest.approx(math.log10(1 / 0.9))
    assert r.decision["hard_side"] == r.decision["side"] == "upper end"
    assert (r.decision["level"], r.decision["sided"]) == (0.9, "one-sided")
    assert [row["interval"] for row in r.per_seed] == [[0.4, 0.6], [0.4, 0.6], [0.45, 0.9]]
    assert r.alternative["verdict"] == "violated"  # every lower end (>= 0.4) above 1/3
    fal = run_claim("toyh.every", seed=0, world="alternative")
    assert fal.verdict == Verdict.VIOLATED and fal.decision["side"] == "lower end"

    # one seed whose interval straddles the bound makes the set inconclusive, not holds
    @toy_claim("toyh.straddle", seeds=SeedPlan(Seeds.EVERY, quick=3))
    def g(ctx: Ctx) -> Evidence:
        """toy"""
        hi = 1.2 if ctx.seed == 1 else 0.6
        return Evidence(theory=1.0, measured=0.5, interval=Interval(0.4, hi, 0.95, "two-sided"))

    s = run_claim("toyh.straddle", seed=0)
    assert s.verdict == Verdict.INCONCLUSIVE and s.decision["side"] == "both ends"
    assert [row["verdict"] for row in s.per_seed] == ["holds", "inconclusive", "holds"]


# --- rate and probability decisions record level and sidedness --------------------------------------


def test_rate_and_probability_decisions_record_level_and_sidedness() -> None:
    from verify.numerics.fit import fit_rate

    x = np.array([10.0, 20.0, 40.0, 80.0])
    y = x[:, None] ** -1.0 * np.exp(np.random.default_rng(0).normal(0, 0.01, (4, 3)))
    d = decide(Kind.RATE, Evidence(theory=-1.0, measured=fit_rate(x, y), tol=0.2)).decision
    assert d["sided"] == "two-sided" and d["level"] == 0.95
    cases = [
        (100, 100, Verdict.HOLDS, "lower end"),
        (50, 100, Verdict.VIOLATED, "upper end"),
        (88, 100, Verdict.INCONCLUSIVE, "both ends"),
    ]
    for k, n, verdict, side in cases:
        j = decide(Kind.PROBABILITY, Evidence(theory=0.9, measured=[k, n]))
        assert j.verdict == verdict, (k, n)
        assert j.decision["sided"] == "one-sided" and j.decision["hard_side"] == "lower end"
        assert j.decision["side"] == side and 0 < j.decision["level"] < 1


# --- identity evidence takes scalars ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("theory", "measured", "name"),
    [
        (np.ones(3), 1.0, "theory"),
        (1.0, np.ones((2, 2)), "measured"),
        ([1.0, 2.0], [1.0, 2.0], "theory"),
        (1.0, (1.0,), "measured"),
    ],
)
def test_identity_evidence_given_arrays_is_a_type_error_naming_the_parameter(
    theory: object, measured: object, name: str
) -> None:
    with pytest.raises(TypeError, match=f"identity evidence takes scalars: {name} .*relative norm error"):
        decide(Kind.IDENTITY, Evidence(theory=theory, measured=measured, rtol=1e-6))


def test_identity_evidence_takes_numpy_scalars() -> None:
    j = decide(Kind.IDENTITY, Evidence(theory=np.float64(2.0), measured=np.array(2.0), rtol=1e-6))
    assert j.verdict == Verdict.HOLDS


# --- the D-gen gap's standard error with one shared test set ----------------------------------------


def _crossed(rng: np.random.Generator, reps: int, m: int, T: int, s_r: float, s_c: float, s_e: float):
    """reps tables A (m, T) = r_j + c_t + e_jt and training losses b = 0.5 r_j (correlated with r)."""
    r = rng.normal(0, s_r, (reps, m, 1))
    c = rng.normal(0, s_c, (reps, 1, T))
    A = 1.0 + r + c + rng.normal(0, s_e, (reps, m, T))
    return A, 0.5 * r[:, :, 0]


@pytest.mark.parametrize(("s_r", "s_c"), [(0.02, 0.5), (0.05, 0.2), (0.1, 0.0)])
def test_the_shared_test_set_se_matches_the_spread_of_the_mean_gap(s_r: float, s_c: float) -> None:
    m, T, s_e, reps = 12, 200, 0.3, 3000
    A, b = _crossed(np.random.default_rng(7), reps, m, T, s_r, s_c, s_e)
    gaps = A.mean(axis=2) - b
    true_sd = float(gaps.mean(axis=1).std(ddof=1))
    exact = math.sqrt((0.5 * s_r) ** 2 / m + s_c**2 / T + s_e**2 / (m * T))
    assert true_sd == pytest.approx(exact, rel=0.05)
    est = np.array([shared_test_se(A[i], b[i]) for i in range(reps)])
    var_mean = float(np.mean(est[:, 0] ** 2))
    indep = float(np.mean(est[:, 2] ** 2))
    assert var_mean == pytest.approx(exact**2, rel=0.06)  # the independent reading misses s_c^2 / T
    if s_c > 0.1:
        assert indep < 0.8 * exact**2  # ... by a lot when the test set's share is large
    assert np.all(est[:, 0] >= est[:, 2])  # never narrower than the independent reading
    assert np.all(np.isfinite(est[:, 1]) & (est[:, 1] > 1))


def test_the_shared_test_se_refuses_bad_shapes() -> None:
    with pytest.raises(ValueError, match="test_losses"):
        shared_test_se(np.ones((1, 5)), np.ones(1))
    with pytest.raises(ValueError, match="train_losses"):
        shared_test_se(np.ones((3, 5)), np.ones(4))
