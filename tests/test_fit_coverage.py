"""The rate fit's statistics (verify.numerics.fit): the coverage of its interval when the seeds' slopes
differ and when they do not, the degrees of freedom and quantiles of its two t intervals (pooled and
seed slopes), the choice of the wider, the correction model's dof and collinearity guard, the size and
dof of the judged fit, and the default level (verify.numerics.stats.LEVEL, two-sided).

Every expected value is written out here from its formula (generic least squares with
``numpy.linalg.lstsq``, ``numpy.polyfit`` per seed, ``scipy.stats.t.ppf``), so changing one line of the
rule (a dof off by one, the level, the quantile 0.5 + level instead of 0.5 + level / 2, the narrower
interval chosen) fails a test here.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
from scipy import stats

from verify.numerics import fit as F
from verify.numerics.fit import fit_loglog, fit_rate
from verify.numerics.stats import LEVEL

#: The documented level, written out (a value read from the module would move with a mutation).
DOC_LEVEL = 0.95
Q975 = 0.975  # the two-sided quantile 0.5 + level / 2


# ---------------------------------------------------------------------------------------------------
# coverage of the true mean slope, by simulation
# ---------------------------------------------------------------------------------------------------

REPS = 4000  # Monte-Carlo sd of a coverage near 0.95: sqrt(0.95 * 0.05 / 4000) = 0.0034
P = -1.0


def _simulate(n_seeds: int, window: int, tau: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(log x, log y) of REPS runs: y[r, i, s] = exp(c_rs) x_i^(p + tau z_rs) exp(0.05 e_ris), x doubling
    from 16, seed levels c ~ N(0, 1), seed slopes N(p, tau^2), log-normal noise 0.05."""
    rng = np.random.default_rng(seed)
    tx = np.log(16.0 * 2.0 ** np.arange(window))
    slopes = P + tau * rng.standard_normal((REPS, 1, n_seeds))
    levels = rng.standard_normal((REPS, 1, n_seeds))
    ty = levels + slopes * tx[:, None] + 0.05 * rng.standard_normal((REPS, window, n_seeds))
    return tx, ty


def _coverage(tx: np.ndarray, ty: np.ndarray) -> tuple[float, float]:
    """(coverage of p by fit_rate's interval, by the pooled interval alone) over the REPS runs."""
    slope, pooled, seed = F._window_halves(tx, ty, DOC_LEVEL)
    half, _ = F._wider(pooled, seed)
    miss = np.abs(slope - P)
    return float(np.mean(miss <= half)), float(np.mean(miss <= pooled))


def test_the_simulation_measures_fit_rates_own_interval() -> None:
    """The vectorised helpers the simulation calls give fit_rate's interval, run by run."""
    tx, ty = _simulate(5, 4, 0.1, seed=7)
    slope, pooled, seed = F._window_halves(tx, ty[:20], DOC_LEVEL)
    half, _ = F._wider(pooled, seed)
    x = np.exp(np.concatenate([[np.log(8.0)], tx]))
    for r in range(20):
        y = np.exp(np.vstack([ty[r, :1] - np.log(2.0), ty[r]]))  # one earlier point the window drops
        fit = fit_rate(x, y, window=4)
        assert fit.slope == pytest.approx(slope[r], rel=1e-12, abs=1e-14)
        assert (fit.hi - fit.lo) / 2 == pytest.approx(half[r], rel=1e-9)


@pytest.mark.parametrize(("n_seeds", "window", "seed"), [(5, 3, 1), (5, 5, 2), (8, 4, 3), (10, 3, 4)])
def test_coverage_when_the_seeds_slopes_differ(n_seeds: int, window: int, seed: int) -> None:
    """Seed slopes ~ N(p, 0.1^2): the interval covers p in 93-97% of runs (measured 0.950-0.959 here);
    the pooled interval alone covers 0.675-0.876 (too narrow: the defect the wider rule mends)."""
    both, pooled = _coverage(*_simulate(n_seeds, window, 0.1, seed))
    assert 0.93 <= both <= 0.97
    assert pooled < 0.90


@pytest.mark.parametrize(("n_seeds", "window", "seed"), [(5, 3, 11), (5, 5, 12), (8, 4, 13), (10, 3, 14)])
def test_coverage_when_the_seeds_share_one_slope(n_seeds: int, window: int, seed: int) -> None:
    """One slope for every seed: the pooled interval is exact (0.95) and the wider of the two is
    conservative, never below 0.95 (measured 0.969 at 10 seeds to 0.979 at 5 seeds): the seed-slope
    interval's t quantile on n_seeds - 1 dof makes it the wider one in 65-75% of such runs. That is
    the price of never being narrower than either interval; it cannot fall below the level."""
    both, pooled = _coverage(*_simulate(n_seeds, window, 0.0, seed))
    assert 0.93 <= pooled <= 0.97
    assert 0.945 <= both <= 0.985


# ---------------------------------------------------------------------------------------------------
# the two intervals, their dof and quantiles, and the choice of the wider
# ---------------------------------------------------------------------------------------------------

X6 = np.array([10.0, 20.0, 40.0, 80.0, 160.0, 320.0])


def _pooled_half(lx: np.ndarray, ly: np.ndarray) -> tuple[float, int]:
    """(half-width, dof) of the common slope with one intercept per seed by generic least squares:
    design [seed indicators, log x], dof = observations - parameters, stderr from (D^T D)^-1."""
    n_x, n_s = ly.shape
    design = np.zeros((n_x * n_s, n_s + 1))
    for s in range(n_s):
        design[s * n_x : (s + 1) * n_x, s] = 1.0
        design[s * n_x : (s + 1) * n_x, n_s] = lx
    obs = ly.T.reshape(-1)
    coef, *_ = np.linalg.lstsq(design, obs, rcond=None)
    dof = obs.size - (n_s + 1)
    se = math.sqrt(float(np.sum((obs - design @ coef) ** 2)) / dof * np.linalg.inv(design.T @ design)[-1, -1])
    return float(stats.t.ppf(Q975, dof)) * se, dof


def _seed_half(lx: np.ndarray, ly: np.ndarray) -> tuple[float, float, int]:
    """(mean, half-width, dof) of the per-seed least-squares slopes: t on n_seeds - 1 dof."""
    slopes = np.array([np.polyfit(lx, ly[:, s], 1)[0] for s in range(ly.shape[1])])
    dof = slopes.size - 1
    return (
        float(slopes.mean()),
        float(stats.t.ppf(Q975, dof)) * float(slopes.std(ddof=1)) / math.sqrt(slopes.size),
        dof,
    )


def _y(slopes: list[float], curve: float = 0.0, wiggle: float = 0.0) -> np.ndarray:
    """y[i, s] = X6_i^slope_s exp(s / 10 + curve (log X6_i)^2 + wiggle (-1)^(i + s))."""
    lx = np.log(X6)
    i, s = np.meshgrid(np.arange(X6.size), np.arange(len(slopes)), indexing="ij")
    return np.exp(
        np.asarray(slopes) * lx[:, None] + s / 10 + curve * lx[:, None] ** 2 + wiggle * (-1.0) ** (i + s)
    )


@pytest.mark.parametrize("window", [3, 4])
def test_seed_slopes_that_differ_choose_the_seed_slope_interval(window: int) -> None:
    y = _y([-0.9, -1.0, -1.1, -0.95], wiggle=0.01)
    lx, ly = np.log(X6[-window:]), np.log(y[-window:])
    fit = fit_rate(X6, y, window=window)
    pooled, pooled_dof = _pooled_half(lx, ly)
    mean, seed, seed_dof = _seed_half(lx, ly)
    assert pooled_dof == 4 * (window - 1) - 1 and seed_dof == 3
    assert fit.pooled_half == pytest.approx(pooled, rel=1e-9)
    assert fit.seed_half == pytest.approx(seed, rel=1e-9)
    assert seed > 1.5 * pooled  # the wider by far
    assert fit.interval == "seed slopes" and fit.dof == seed_dof
    assert fit.slope == pytest.approx(mean, rel=1e-12)
    assert (fit.lo, fit.hi) == pytest.approx((mean - seed, mean + seed), rel=1e-9)
    assert fit.spread_p is not None and fit.spread_p < 0.01  # information only
    assert "seed slopes" in fit.method and fit.as_dict()["interval"] == "seed slopes"


def test_a_common_lack_of_fit_keeps_the_pooled_interval() -> None:
    """Every seed bends alike (a log^2 term): their slopes agree, the pooled residuals carry the bend."""
    y = _y([-1.0, -1.0, -1.0, -1.0], curve=0.05, wiggle=0.001)
    lx, ly = np.log(X6[-3:]), np.log(y[-3:])
    fit = fit_rate(X6, y)
    pooled, pooled_dof = _pooled_half(lx, ly)
    _, seed, _ = _seed_half(lx, ly)
    assert pooled > 1.5 * seed
    assert fit.interval == "pooled" and fit.dof == pooled_dof == 4 * 2 - 1
    assert (fit.hi - fit.lo) / 2 == pytest.approx(pooled, rel=1e-9)
    assert fit.seed_half == pytest.approx(seed, rel=1e-9)


@pytest.mark.parametrize("n_seeds", [2, 5])
def test_at_two_points_the_pooled_interval_is_the_seed_slope_one(n_seeds: int) -> None:
    y = _y([-1.0 + 0.03 * k for k in range(n_seeds)])
    fit = fit_rate(X6, y, window=2)
    mean, seed, dof = _seed_half(np.log(X6[-2:]), np.log(y[-2:]))
    assert fit.interval == "pooled" and fit.seed_half is None and fit.spread_p is None
    assert fit.dof == dof == n_seeds - 1  # n_seeds * (2 - 1) - 1
    assert (fit.lo, fit.hi) == pytest.approx((mean - seed, mean + seed), rel=1e-9)


def test_one_seed_has_the_pooled_interval_only() -> None:
    y = _y([-1.0], wiggle=0.02)
    fit = fit_rate(X6, y, window=4)
    pooled, dof = _pooled_half(np.log(X6[-4:]), np.log(y[-4:]))
    assert fit.interval == "pooled" and fit.seed_half is None and fit.dof == dof == 2
    assert (fit.hi - fit.lo) / 2 == pytest.approx(pooled, rel=1e-9)


# ---------------------------------------------------------------------------------------------------
# the correction model
# ---------------------------------------------------------------------------------------------------


def _corrected_by_lstsq(x: np.ndarray, ly: np.ndarray, q: float) -> tuple[float, float, int, float, float]:
    """(p, pooled half, pooled dof, per-seed half, a) of log y = c_s + p log x + a x^-q by generic
    least squares over every point (seed indicators, log x, x^-q), and per seed."""
    n_x, n_s = ly.shape
    design = np.zeros((n_x * n_s, n_s + 2))
    for s in range(n_s):
        design[s * n_x : (s + 1) * n_x, s] = 1.0
        design[s * n_x : (s + 1) * n_x, n_s] = np.log(x)
        design[s * n_x : (s + 1) * n_x, n_s + 1] = x**-q
    obs = ly.T.reshape(-1)
    coef, *_ = np.linalg.lstsq(design, obs, rcond=None)
    dof = obs.size - (n_s + 2)
    pinv = np.linalg.pinv(design)  # (D^T D)^-1 = D^+ D^+^T, from the SVD of D (not of D^T D)
    cov = float(np.sum((obs - design @ coef) ** 2)) / dof * (pinv @ pinv.T)
    pooled = float(stats.t.ppf(Q975, dof)) * math.sqrt(cov[n_s, n_s])
    one = np.column_stack([np.ones(n_x), np.log(x), x**-q])
    ps = np.array([np.linalg.lstsq(one, ly[:, s], rcond=None)[0][1] for s in range(n_s)])
    seed = float(stats.t.ppf(Q975, n_s - 1)) * float(ps.std(ddof=1)) / math.sqrt(n_s)
    return float(coef[n_s]), pooled, dof, seed, float(coef[n_s + 1])


XC = np.array([1e3, 2e3, 4e3, 8e3, 1.6e4])


def test_a_well_posed_correction_at_large_sizes_is_accepted() -> None:
    """x from 1e3 to 1.6e4 with q = 2: the x^-2 column is 1e-6..4e-9, so the unscaled Gram matrix has
    condition > 1e12, but the fit is well posed; the guard reads the column-scaled condition."""
    rng = np.random.default_rng(3)
    ly = 0.2 * rng.standard_normal(4) - np.log(XC)[:, None] + 4e5 * XC[:, None] ** -2.0
    ly = ly + 0.01 * rng.standard_normal(ly.shape)
    design = np.column_stack([np.log(XC), XC**-2.0])
    centred = design - design.mean(axis=0)
    assert np.linalg.cond(4 * centred.T @ centred) > 1e12  # the unscaled check refused this fit
    fit = fit_rate(XC, np.exp(ly), correction=2.0)
    c = fit.corrected
    p, pooled, dof, seed, a = _corrected_by_lstsq(XC, ly, 2.0)
    assert c is not None and dof == 4 * 5 - 4 - 2
    assert c.slope == pytest.approx(p, rel=1e-8) and c.a == pytest.approx(a, rel=1e-6)
    assert c.pooled_half == pytest.approx(pooled, rel=1e-6)
    assert c.seed_half == pytest.approx(seed, rel=1e-6)
    half = max(pooled, seed)
    assert (c.hi - c.lo) / 2 == pytest.approx(half, rel=1e-6)
    assert c.interval == ("seed slopes" if seed > pooled else "pooled")
    assert c.dof == (3 if seed > pooled else dof)


@pytest.mark.parametrize("spread", [0.0, 0.05])
def test_the_correction_models_interval_is_the_wider_of_pooled_and_seed_slopes(spread: float) -> None:
    rng = np.random.default_rng(4)
    x = np.geomspace(4.0, 256.0, 7)
    slopes = -1.0 + spread * np.array([-1.0, 0.0, 1.0, 0.5, -0.5])
    bend = 0.02 * (-1.0) ** np.arange(x.size)[:, None]  # a lack of fit every seed shares
    ly = slopes * np.log(x)[:, None] + 2.0 / x[:, None] + bend + 0.002 * rng.standard_normal((x.size, 5))
    fit = fit_rate(x, np.exp(ly), correction=1.0)
    c = fit.corrected
    p, pooled, dof, seed, _ = _corrected_by_lstsq(x, ly, 1.0)
    assert c is not None and dof == 5 * 7 - 5 - 2
    assert c.slope == pytest.approx(p, rel=1e-9)
    assert (c.pooled_half, c.seed_half) == pytest.approx((pooled, seed), rel=1e-7)
    wider = "seed slopes" if spread else "pooled"
    assert (seed > pooled) == bool(spread) and c.interval == wider
    assert c.dof == (5 - 1 if spread else dof)
    assert (c.lo, c.hi) == pytest.approx((p - max(pooled, seed), p + max(pooled, seed)), rel=1e-7)


@pytest.mark.parametrize(
    ("x", "q"),
    [(np.array([10.0, 100.0]), 1.0), (XC, 1e-9), (XC, 1e4)],  # two sizes; x^-q = 1 - q log x; x^-q = 0
)
def test_a_collinear_correction_is_refused(x: np.ndarray, q: float) -> None:
    y = np.exp(-np.log(x)[:, None] + np.array([[0.0, 0.1, 0.2, 0.3]]))
    with pytest.raises(ValueError, match="collinear"):
        fit_rate(x, y, window=2, correction=q)


def test_the_judged_fit_reports_its_size_and_dof() -> None:
    rng = np.random.default_rng(5)
    x = np.geomspace(4.0, 256.0, 7)
    y = np.exp(-np.log(x)[:, None] + 1.0 / x[:, None] + 0.01 * rng.standard_normal((7, 5)))
    raw, fit = fit_rate(x, y), fit_rate(x, y, correction=1.0)
    assert raw.n == raw.n_judged == 3 * 5 and raw.dof_judged == raw.dof
    assert fit.n == 3 * 5 and fit.corrected is not None and fit.corrected.n == 7 * 5
    assert fit.n_judged == 7 * 5 and fit.dof_judged == fit.corrected.dof
    d = fit.as_dict()
    assert d["n_judged"] == 35 and d["dof_judged"] == fit.corrected.dof and d["corrected"]["n"] == 35


# ---------------------------------------------------------------------------------------------------
# the level and its sidedness
# ---------------------------------------------------------------------------------------------------


def test_every_interval_defaults_to_the_shared_level() -> None:
    assert LEVEL == DOC_LEVEL
    for fn in (fit_rate, fit_loglog, F._corrected):
        assert inspect.signature(fn).parameters["level"].default == DOC_LEVEL
    y = _y([-0.9, -1.0, -1.1], wiggle=0.01)
    fit = fit_rate(X6, y, correction=1.0)
    assert fit.level == DOC_LEVEL and fit.corrected is not None and fit.corrected.level == DOC_LEVEL
    assert fit_loglog(X6, y[:, 0]).level == DOC_LEVEL


def test_every_interval_is_two_sided_and_says_so() -> None:
    y = _y([-0.9, -1.0, -1.1], wiggle=0.01)
    fit = fit_rate(X6, y, correction=1.0)
    assert fit.corrected is not None
    assert fit.sided == fit.corrected.sided == 2
    assert fit.as_dict()["sided"] == fit.as_dict()["corrected"]["sided"] == 2
    assert fit_loglog(X6, y[:, 0]).as_dict()["sided"] == 2
    # two-sided at 0.95: the 0.975 quantile, not 0.95 (one-sided) nor 0.5 + level (beyond 1)
    _, seed, dof = _seed_half(np.log(X6[-3:]), np.log(y[-3:]))
    assert fit.interval == "seed slopes" and dof == 2
    assert (fit.hi - fit.lo) / 2 == pytest.approx(seed, rel=1e-9)
    assert fit_rate(X6, y, level=0.9).seed_half == pytest.approx(
        seed * stats.t.ppf(0.95, 2) / stats.t.ppf(Q975, 2), rel=1e-9
    )
