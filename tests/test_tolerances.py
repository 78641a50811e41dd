"""Every tolerance that decides a verdict, tested just inside and just outside its boundary (issue 14,
item 7): a loosened (or tightened) tolerance fails here instead of leaving the suite green.

* the gradient checker's rule |analytic - numeric| <= atol + rtol |numeric| (``check_grad``,
  ``check_hvp``) and the tolerances the gradient-check claims pass to it (at most our pass criterion, 1e-6);
* the round-off margin :data:`verify.core.judge.ROUNDOFF_RTOL` of upper / lower / two-sided bounds,
  and an identity's stated rtol;
* the slope fits' t intervals (the degrees of freedom: n - 2 for ``fit_loglog``; for ``fit_rate``'s
  pooled interval on the common slope with one intercept per seed, n_seeds * window - n_seeds - 1)
  against a least-squares fit written out here with ``scipy.stats.t.ppf``, and the rate rule's band
  at the interval's edges (the seed-slope interval and the choice of the wider: tests/test_fit_coverage.py);
* the vacuous rule (an upper bound at or above its trivial value, a condition needing more than is
  reachable, an infinite bound);
* the probability rule's one-sided Clopper-Pearson level (:data:`verify.numerics.stats.LEVEL`) at
  the discrete boundary;
* the baseline gate: :data:`~verify.core.gate.TOLERANCE` just inside / outside and a measured value
  just above :data:`~verify.core.gate.ROUNDOFF_ULPS` eps. tests/test_baseline.py already covers the
  saturation edge (``test_saturated_slacks_compare_as_equal_but_falling_below_saturation_fails``),
  round-off values at the edge (``test_round_off_values_compare_in_eps_and_leaving_round_off_is_caught``)
  and ``VALUE_RTOL`` (``test_entries_without_slack_compare_theory_and_measured``); not repeated here.

Each boundary is approached by a factor of 1 -+ a small fraction, far above the round-off of the
quantities compared and far below the 10x a loosened tolerance would move it.
"""

from __future__ import annotations

import inspect
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
from scipy import stats

from verify.core import gate as BL
from verify.core import judge as J
from verify.core.record import Evidence, Kind, Provenance, Result, Verdict
from verify.core.registry import get_claim, load_all
from verify.numerics import gradcheck as GC
from verify.numerics.fit import RateFit, fit_loglog, fit_rate
from verify.numerics.stats import LEVEL

INSIDE, OUTSIDE = 0.97, 1.03  # fractions of a tolerance; round-off here is below 1e-3 of it
#: The documented values, written out (a boundary read from the module would move with a mutation).
ROUNDOFF_RTOL = 1e-10
CP_LEVEL = 0.95
GATE_TOLERANCE, GATE_ROUNDOFF_ULPS = 0.05, 2**14


def _verdict(kind: Kind, **ev) -> Verdict:
    return J.judge(kind, Evidence(**ev))[0]


# ---------------------------------------------------------------------------------------------------
# gradient checker
# ---------------------------------------------------------------------------------------------------


def _defaults(fn) -> dict[str, float]:
    return {k: p.default for k, p in inspect.signature(fn).parameters.items() if p.default is not p.empty}


def test_gradient_checker_defaults_are_pinned() -> None:
    assert {k: _defaults(GC.check_grad)[k] for k in ("eps", "rtol", "atol")} == {
        "eps": 1e-6,
        "rtol": 1e-6,
        "atol": 1e-8,
    }
    assert {k: _defaults(GC.check_hvp)[k] for k in ("eps", "rtol", "atol")} == {
        "eps": 1e-5,
        "rtol": 1e-5,
        "atol": 1e-7,
    }


def _grad_ok(w: float, analytic: float, **kw) -> bool:
    """check_grad on f(a) = w a (one coordinate: its joint direction is the same comparison), whose
    central differences are w to ~1e-10."""
    params = {"a": np.array([0.7])}
    return GC.check_grad(lambda p: w * float(p["a"][0]), params, {"a": np.array([analytic])}, **kw).ok


@pytest.mark.parametrize("w", [1.0, -3.0, 0.0])
def test_check_grad_rule_just_inside_and_outside(w: float) -> None:
    """|analytic - numeric| <= atol + rtol |numeric| with the defaults (w = 0: the atol floor alone)."""
    tol = 1e-8 + 1e-6 * abs(w)
    assert _grad_ok(w, w + INSIDE * tol) and _grad_ok(w, w - INSIDE * tol)
    assert not _grad_ok(w, w + OUTSIDE * tol) and not _grad_ok(w, w - OUTSIDE * tol)


def test_check_grad_uses_the_tolerances_it_is_given() -> None:
    for rtol, atol in ((1e-4, 1e-9), (1e-7, 1e-5)):
        tol = atol + rtol * 2.0
        assert _grad_ok(2.0, 2.0 + INSIDE * tol, rtol=rtol, atol=atol)
        assert not _grad_ok(2.0, 2.0 + OUTSIDE * tol, rtol=rtol, atol=atol)


def _hvp_ok(factor: float) -> bool:
    """check_hvp on grad(x) = c x (HVP c v, exact differences): the HVP is off by ``factor`` times the
    default tolerance 1e-7 + 1e-5 |c v| of each entry."""
    c = 3.0
    x = {"a": np.array([0.4, -1.3])}

    def hvp(p, v):
        exact = c * v["a"]
        return {"a": exact + factor * (1e-7 + 1e-5 * np.abs(exact))}

    return GC.check_hvp(lambda p: {"a": c * p["a"]}, x, hvp).ok


def test_check_hvp_rule_just_inside_and_outside() -> None:
    assert _hvp_ok(INSIDE) and _hvp_ok(-INSIDE)
    assert not _hvp_ok(OUTSIDE) and not _hvp_ok(-OUTSIDE)


#: The gradient-check claims' tolerances against our pass criterion for gradient checks (relative error
#: <= 1e-6, or <= 1e-6 max(1, |g|)): a claim may be stricter, never looser.
GRAD_PASS_CRITERIA = [
    ("wu2023.grad", "fd_rtol", 1e-6),
    ("wu2023.grad", "fd_atol", 1e-6),
    ("yang2024.grad", "rtol", 1e-6),
    ("deora2023.grad", "tol", 1e-6),
    ("deora2023.hvp", "rtol", 1e-6),
    ("zhang2026.closedform", "grad_rtol", 1e-6),
]


@pytest.mark.parametrize(("claim_id", "rule", "criterion"), GRAD_PASS_CRITERIA)
def test_gradient_claims_are_no_looser_than_the_criterion(claim_id: str, rule: str, criterion: float) -> None:
    load_all()
    rules = dict(get_claim(claim_id).record.rules)
    assert rule in rules, f"{claim_id} has no rule {rule!r} (renamed? update GRAD_PASS_CRITERIA)"
    value = rules[rule].value
    assert 0 < value <= criterion, f"{claim_id}.{rule} = {value} is looser than {criterion}"


# ---------------------------------------------------------------------------------------------------
# round-off margin of bounds, two-sided windows, identities
# ---------------------------------------------------------------------------------------------------


def test_roundoff_margin_is_pinned() -> None:
    assert J.ROUNDOFF_RTOL == ROUNDOFF_RTOL


@pytest.mark.parametrize("scale", [1.0, 3.7e5, 2.0e-7])
def test_roundoff_margin_just_inside_and_outside(scale: float) -> None:
    """upper: measured <= theory + ROUNDOFF_RTOL max(|theory|, |measured|); lower the mirror image."""
    r = ROUNDOFF_RTOL
    assert _verdict(Kind.UPPER, theory=scale, measured=scale * (1 + INSIDE * r)) == Verdict.HOLDS
    assert _verdict(Kind.UPPER, theory=scale, measured=scale * (1 + OUTSIDE * r)) == Verdict.VIOLATED
    assert _verdict(Kind.LOWER, theory=scale, measured=scale * (1 - INSIDE * r)) == Verdict.HOLDS
    assert _verdict(Kind.LOWER, theory=scale, measured=scale * (1 - OUTSIDE * r)) == Verdict.VIOLATED
    # a negative bound: the margin is relative to the larger magnitude too
    assert _verdict(Kind.UPPER, theory=-scale, measured=-scale * (1 - INSIDE * r)) == Verdict.HOLDS
    assert _verdict(Kind.UPPER, theory=-scale, measured=-scale * (1 - OUTSIDE * r)) == Verdict.VIOLATED


def test_a_stated_rtol_replaces_the_roundoff_margin() -> None:
    assert _verdict(Kind.UPPER, theory=1.0, measured=1 + INSIDE * 1e-6, rtol=1e-6) == Verdict.HOLDS
    assert _verdict(Kind.UPPER, theory=1.0, measured=1 + OUTSIDE * 1e-6, rtol=1e-6) == Verdict.VIOLATED


def test_two_sided_window_just_inside_and_outside() -> None:
    r, lo, hi = ROUNDOFF_RTOL, 1.9, 2.1
    assert _verdict(Kind.TWO_SIDED, theory=[lo, hi], measured=hi * (1 + INSIDE * r)) == Verdict.HOLDS
    assert _verdict(Kind.TWO_SIDED, theory=[lo, hi], measured=hi * (1 + OUTSIDE * r)) == Verdict.VIOLATED
    assert _verdict(Kind.TWO_SIDED, theory=[lo, hi], measured=lo * (1 - INSIDE * r)) == Verdict.HOLDS
    assert _verdict(Kind.TWO_SIDED, theory=[lo, hi], measured=lo * (1 - OUTSIDE * r)) == Verdict.VIOLATED


@pytest.mark.parametrize("rtol", [1e-10, 1e-6])
def test_identity_rtol_just_inside_and_outside(rtol: float) -> None:
    t = 0.3
    assert _verdict(Kind.IDENTITY, theory=t, measured=t * (1 + INSIDE * rtol), rtol=rtol) == Verdict.HOLDS
    assert _verdict(Kind.IDENTITY, theory=t, measured=t * (1 + OUTSIDE * rtol), rtol=rtol) == Verdict.VIOLATED


# ---------------------------------------------------------------------------------------------------
# slope fits: t intervals with the right degrees of freedom, and the rate rule at the interval's edge
# ---------------------------------------------------------------------------------------------------


def _ols_t_interval(lx: np.ndarray, ly: np.ndarray, level: float) -> tuple[float, float, float]:
    """(slope, lo, hi) written out: OLS slope, stderr = sqrt(SSE / (n - 2) / Sxx), t quantile at n - 2."""
    n = lx.size
    xm, ym = lx.mean(), ly.mean()
    sxx = float(np.sum((lx - xm) ** 2))
    slope = float(np.sum((lx - xm) * (ly - ym)) / sxx)
    resid = ly - (ym + slope * (lx - xm))
    se = math.sqrt(float(np.sum(resid**2)) / (n - 2) / sxx)
    half = float(stats.t.ppf(0.5 + level / 2, n - 2)) * se
    return slope, slope - half, slope + half


X5 = np.array([16.0, 32.0, 64.0, 128.0, 256.0])
Y5 = X5**-0.5 * np.exp(np.array([0.02, -0.03, 0.01, 0.04, -0.02]))


@pytest.mark.parametrize("level", [0.95, 0.99])
def test_fit_loglog_t_interval_has_n_minus_2_dof(level: float) -> None:
    fit = fit_loglog(X5, Y5, level=level)
    slope, lo, hi = _ols_t_interval(np.log(X5), np.log(Y5), level)
    assert fit.method == "t" and fit.n == 5
    assert fit.slope == pytest.approx(slope, rel=1e-12)
    assert (fit.lo, fit.hi) == pytest.approx((lo, hi), rel=1e-10)
    # the quantile is that of n - 2 = 3 dof, not 2 or 4 (which move the edge by > 10%)
    for dof in (2, 4):
        wrong = float(stats.t.ppf(0.5 + level / 2, dof)) / float(stats.t.ppf(0.5 + level / 2, 3))
        assert abs(wrong - 1) > 0.1


def _seeds(x: np.ndarray, p: float, offsets: list[float], wiggle: float) -> np.ndarray:
    """y[i, s] = x_i^p exp(offset_s + wiggle * (-1)^(i+s)): a seed-to-seed spread and a lack of fit."""
    i, s = np.meshgrid(np.arange(x.size), np.arange(len(offsets)), indexing="ij")
    return x[:, None] ** p * np.exp(np.asarray(offsets)[None, :] + wiggle * (-1.0) ** (i + s))


def _fixed_effects_interval(lx: np.ndarray, ly: np.ndarray, level: float) -> tuple[float, float, float]:
    """(slope, lo, hi) of log y = a_s + p log x over seeds s (columns of ly), by generic least squares:
    design [one indicator per seed, log x], dof = observations - parameters, stderr from (D^T D)^-1."""
    n_x, n_s = ly.shape
    D = np.zeros((n_x * n_s, n_s + 1))
    for s in range(n_s):
        D[s * n_x : (s + 1) * n_x, s] = 1.0
        D[s * n_x : (s + 1) * n_x, n_s] = lx
    obs = ly.T.reshape(-1)
    coef, *_ = np.linalg.lstsq(D, obs, rcond=None)
    dof = obs.size - (n_s + 1)
    sigma2 = float(np.sum((obs - D @ coef) ** 2)) / dof
    se = math.sqrt(sigma2 * float(np.linalg.inv(D.T @ D)[n_s, n_s]))
    half = float(stats.t.ppf(0.5 + level / 2, dof)) * se
    return float(coef[n_s]), float(coef[n_s]) - half, float(coef[n_s]) + half


@pytest.mark.parametrize(("window", "n_seeds"), [(3, 2), (4, 3), (3, 1)])
def test_fit_rate_interval_has_observations_minus_parameters_dof(window: int, n_seeds: int) -> None:
    x = np.array([10.0, 20.0, 40.0, 80.0, 160.0, 320.0])
    y = _seeds(x, -1.0, [0.05 * k for k in range(n_seeds)], 0.03)
    fit = fit_rate(x, y, window=window)
    slope, lo, hi = _fixed_effects_interval(np.log(x[-window:]), np.log(y[-window:]), 0.95)
    assert fit.slope == pytest.approx(slope, rel=1e-12)
    assert fit.pooled_half == pytest.approx((hi - lo) / 2, rel=1e-10)
    if fit.interval == "pooled":  # else the seed-slope interval is wider (tests/test_fit_coverage.py)
        assert (fit.lo, fit.hi) == pytest.approx((lo, hi), rel=1e-10)
        assert fit.dof == n_seeds * window - n_seeds - 1
    else:
        assert fit.hi - fit.lo > hi - lo


def test_rate_verdict_at_the_edge_of_the_band() -> None:
    """A rate claim holds iff its interval lies inside [p - tol, p + tol]: a band 1e-6 narrower on
    either side leaves it inconclusive; an interval that ends 1e-6 beyond the band is violated."""
    x = np.array([10.0, 20.0, 40.0, 80.0, 160.0])
    y = _seeds(x, -1.0, [0.0, 0.1, -0.05], 0.02)
    rfit = fit_rate(x, y)
    _, rlo, rhi = _fixed_effects_interval(np.log(x[-3:]), np.log(y[-3:]), 0.95)
    assert isinstance(rfit, RateFit) and (rfit.lo, rfit.hi) == pytest.approx((rlo, rhi), rel=1e-10)
    half, centre = (rhi - rlo) / 2, (rhi + rlo) / 2
    eps = 1e-6 * half
    assert _verdict(Kind.RATE, theory=centre, measured=rfit, tol=half + eps) == Verdict.HOLDS
    assert _verdict(Kind.RATE, theory=centre, measured=rfit, tol=half - eps) == Verdict.INCONCLUSIVE
    for p in (centre + eps, centre - eps):  # off-centre: one end pokes out of a band of the same width
        assert _verdict(Kind.RATE, theory=p, measured=rfit, tol=half + eps / 2) == Verdict.INCONCLUSIVE
    tol = 0.01 * half
    assert _verdict(Kind.RATE, theory=rlo - tol - eps, measured=rfit, tol=tol) == Verdict.VIOLATED
    assert _verdict(Kind.RATE, theory=rlo - tol + eps, measured=rfit, tol=tol) == Verdict.INCONCLUSIVE
    assert _verdict(Kind.RATE, theory=rhi + tol + eps, measured=rfit, tol=tol) == Verdict.VIOLATED


# ---------------------------------------------------------------------------------------------------
# the vacuous rule
# ---------------------------------------------------------------------------------------------------


def test_upper_bound_at_or_above_its_trivial_value_is_vacuous() -> None:
    triv = 5.0
    below = triv * (1 - 1e-9)
    assert _verdict(Kind.UPPER, theory=below, measured=1.0, trivial=triv) == Verdict.HOLDS
    assert _verdict(Kind.UPPER, theory=triv, measured=1.0, trivial=triv) == Verdict.VACUOUS  # "at"
    assert _verdict(Kind.UPPER, theory=triv * (1 + 1e-9), measured=1.0, trivial=triv) == Verdict.VACUOUS
    # violation is checked first: a violated bound is violated even when it is also vacuous
    assert _verdict(Kind.UPPER, theory=triv, measured=triv * 1.01, trivial=triv) == Verdict.VIOLATED
    # an infinite bound (the one documented infinity) is vacuous, not an error
    assert _verdict(Kind.UPPER, theory=mpmath.inf, measured=1.0) == Verdict.VACUOUS
    assert _verdict(Kind.UPPER, theory=math.inf, measured=1.0) == Verdict.ERROR  # a float inf is not


def test_condition_needing_more_than_reachable_is_vacuous() -> None:
    reach = 16384.0
    assert _verdict(Kind.CONDITION, theory=reach, measured=reach) == Verdict.HOLDS  # required = reachable
    assert _verdict(Kind.CONDITION, theory=reach * (1 + 1e-9), measured=reach) == Verdict.VACUOUS
    assert _verdict(Kind.CONDITION, theory=mpmath.mpf(10) ** 40, measured=reach) == Verdict.VACUOUS
    assert _verdict(Kind.CONDITION, theory=mpmath.inf, measured=reach) == Verdict.VACUOUS


# ---------------------------------------------------------------------------------------------------
# the probability rule's confidence level
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "p0"), [(1000, 0.99), (200, 0.9), (29, 0.9)])
def test_clopper_pearson_level_at_the_discrete_boundary(n: int, p0: float) -> None:
    """holds iff the one-sided 95% lower bound of k/n is >= p0, i.e. P(X >= k | n, p0) <= 5%. k* is
    the fewest successes that hold; k* - 1 does not. P(X >= k* | p0) > 0.5%, so a 10x looser level
    would change k* (this test would then fail)."""
    assert LEVEL == CP_LEVEL
    sf = stats.binom.sf(np.arange(n + 1) - 1, n, p0)  # sf[k] = P(X >= k)
    k_star = int(np.argmax(sf <= 1 - CP_LEVEL))
    assert sf[k_star] <= 1 - CP_LEVEL < sf[k_star - 1]
    assert sf[k_star] > (1 - CP_LEVEL) / 10 or k_star == n
    assert _verdict(Kind.PROBABILITY, theory=p0, measured=[k_star, n]) == Verdict.HOLDS
    assert _verdict(Kind.PROBABILITY, theory=p0, measured=[k_star - 1, n]) != Verdict.HOLDS
    cdf = stats.binom.cdf(np.arange(n + 1), n, p0)  # violated iff P(X <= k | p0) < 5%
    k_v = int(np.argmax(cdf >= 1 - CP_LEVEL)) - 1
    assert _verdict(Kind.PROBABILITY, theory=p0, measured=[k_v, n]) == Verdict.VIOLATED
    assert _verdict(Kind.PROBABILITY, theory=p0, measured=[k_v + 1, n]) != Verdict.VIOLATED


# ---------------------------------------------------------------------------------------------------
# the baseline gate
# ---------------------------------------------------------------------------------------------------


def _result(measured: float, slack: float | None) -> Result:
    return Result(
        claim_id="toy.x",
        paper="toy",
        reference="",
        kind=Kind.UPPER,
        provenance=Provenance.DERIVED,
        statement="",
        profile="quick",
        params={},
        seeds=[0],
        theory=1.0,
        measured=measured,
        slack=slack,
        verdict=Verdict.HOLDS,
        expected=Verdict.HOLDS,
    )


def _gate(tmp_path: Path, old: Result, new: Result) -> bool:
    path = tmp_path / "baseline.json"
    BL.update_baseline([old], path)
    return BL.check_baseline([new], path).ok


def test_baseline_tolerance_just_inside_and_outside(tmp_path: Path) -> None:
    assert BL.TOLERANCE == GATE_TOLERANCE
    old, tol = 1.2, GATE_TOLERANCE
    assert _gate(tmp_path, _result(0.1, old), _result(0.1, old - tol * (1 - 1e-6)))
    assert not _gate(tmp_path, _result(0.1, old), _result(0.1, old - tol * (1 + 1e-6)))


def test_baseline_round_off_level_ends_at_roundoff_ulps_eps(tmp_path: Path) -> None:
    """At ROUNDOFF_ULPS eps two measured values compare in eps whatever their slacks; just above, the
    slack rule applies (and a slack 1 dex smaller fails). The edge itself: tests/test_baseline.py."""
    edge = GATE_ROUNDOFF_ULPS * 2.0**-52
    assert BL.ROUNDOFF_ULPS == GATE_ROUNDOFF_ULPS and BL.EPS == 2.0**-52
    assert _gate(tmp_path, _result(edge / 3, 2.0), _result(edge, 1.0))
    assert not _gate(tmp_path, _result(edge / 3, 2.0), _result(edge * (1 + 1e-9), 1.0))
