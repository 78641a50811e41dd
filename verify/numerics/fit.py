"""Log-log slope fits with confidence intervals, for rate and order claims.

``fit_rate(x, y)`` is the measurement of every "X scales like n^p" claim: the last-range fit (or an
explicit correction model's exponent) whose interval the shared rate rule judges
(:mod:`verify.core.judge`), and the local slopes over successive ranges, shown as information.

``fit_loglog(x, y)`` fits ``log y = intercept + slope * log x`` by least squares. With ``y`` of shape
``(n_x,)`` the interval is Student-t; with ``y`` of shape ``(n_x, n_seeds)`` it is a seed bootstrap
(resample whole seeds, refit the slope of the mean log y) as the specs ask for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from bounds.checks import check_int, check_real


@dataclass(frozen=True)
class SlopeFit:
    """A fitted log-log slope with a ``level`` confidence interval ``[lo, hi]``."""

    slope: float
    intercept: float
    lo: float
    hi: float
    level: float
    n: int
    method: str

    def contains(self, exponent: float) -> bool:
        return self.lo <= exponent <= self.hi

    def as_dict(self) -> dict[str, float | int | str]:
        return {
            "slope": self.slope,
            "intercept": self.intercept,
            "lo": self.lo,
            "hi": self.hi,
            "level": self.level,
            "n": self.n,
            "method": self.method,
        }


def _ols(lx: np.ndarray, ly: np.ndarray) -> tuple[float, float]:
    slope, intercept = np.polyfit(lx, ly, 1)
    return float(slope), float(intercept)


def fit_loglog(
    x: np.ndarray,
    y: np.ndarray,
    *,
    level: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> SlopeFit:
    """Fit the log-log slope of ``y`` against ``x``.

    x: (n_x,) positive; y: (n_x,) or (n_x, n_seeds) positive. Needs n_x >= 3 (t interval) or
    n_seeds >= 2 (bootstrap).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    level = check_real("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
    if x.ndim != 1 or y.shape[:1] != x.shape or y.ndim not in (1, 2):
        raise ValueError(f"x must be (n_x,) and y (n_x,) or (n_x, n_seeds); got {x.shape}, {y.shape}")
    if not (np.all(np.isfinite(x)) and np.all(x > 0)):
        raise ValueError("x must be finite and > 0 for a log-log fit")
    if not (np.all(np.isfinite(y)) and np.all(y > 0)):
        raise ValueError("y must be finite and > 0 for a log-log fit")
    lx = np.log(x)
    ly = np.log(y)
    if y.ndim == 1:
        n = check_int("len(x)", x.size, low=3)
        res = stats.linregress(lx, ly)
        tq = stats.t.ppf(0.5 + level / 2, n - 2)
        half = tq * res.stderr
        return SlopeFit(
            float(res.slope),
            float(res.intercept),
            float(res.slope - half),
            float(res.slope + half),
            level,
            n,
            "t",
        )
    check_int("n_seeds", y.shape[1], low=2)
    check_int("len(x)", x.size, low=2)
    n_boot = check_int("n_boot", n_boot, low=100)
    slope, intercept = _ols(lx, ly.mean(axis=1))
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, y.shape[1], size=(n_boot, y.shape[1]))
    boot_means = ly[:, cols].mean(axis=2)  # (n_x, n_boot)
    lxc = lx - lx.mean()
    boots = lxc @ (boot_means - boot_means.mean(axis=0)) / (lxc @ lxc)
    lo, hi = np.quantile(boots, [0.5 - level / 2, 0.5 + level / 2])
    return SlopeFit(slope, intercept, float(lo), float(hi), level, int(x.size), "bootstrap")


@dataclass(frozen=True)
class RateFit(SlopeFit):
    """A rate measurement "y scales like x^p", judged by :func:`verify.core.judge.judge` (kind rate).

    slope / lo / hi: the fit over the last ``window`` points, pooled over seeds with one intercept per
    seed and a common slope (a t interval on the within-seed residuals of every (seed, point) pair, so
    it carries the seed-to-seed spread of the slope and the lack of fit, not the seeds' levels);
    local: the local slopes of mean log y over successive windows (first to last), shown as
    information (they decide nothing); x: the sizes. corrected: the exponent of an explicit
    pre-asymptotic correction model over every point (:class:`Corrected`), when the claim declares one;
    the rate rule then judges it instead of the last-range slope.
    """

    local: tuple[float, ...] = ()
    window: int = 3
    x: tuple[float, ...] = ()
    corrected: Corrected | None = None

    @property
    def estimate(self) -> tuple[float, float, float]:
        """(exponent, lo, hi) the rate rule judges: the corrected fit's when there is one."""
        c = self.corrected
        return (c.slope, c.lo, c.hi) if c is not None else (self.slope, self.lo, self.hi)

    def as_dict(self) -> dict[str, float | int | str]:
        extra = {} if self.corrected is None else {"corrected": self.corrected.as_dict()}
        return {
            **super().as_dict(),
            "local": list(self.local),
            "window": self.window,
            "x": list(self.x),
        } | extra


@dataclass(frozen=True)
class Corrected:
    """The exponent p of ``log y = c_seed + p log x + a x^-q`` fitted over every point (one intercept per
    seed, common p and a), with a ``level`` t interval; q is the correction's order, stated by the
    derivation (e.g. q = 1 for a 1/n correction), never fitted."""

    slope: float
    lo: float
    hi: float
    q: float
    a: float
    level: float

    def as_dict(self) -> dict[str, float]:
        return {
            "slope": self.slope,
            "lo": self.lo,
            "hi": self.hi,
            "q": self.q,
            "a": self.a,
            "level": self.level,
        }


def fit_rate(
    x: np.ndarray, y: np.ndarray, *, window: int = 3, level: float = 0.95, correction: float | None = None
) -> RateFit:
    """Fit "y ~ x^p" for the shared rate rule.

    x: (n_x,) positive, increasing; y: (n_x,) or (n_x, n_seeds) positive. window: points per local fit
    (>= 2); the last-range interval needs ``n_seeds * (window - 1) >= 2``. correction: the order q > 0
    of an explicit pre-asymptotic correction ``a x^-q`` (stated by the derivation); the fit then also
    carries the corrected exponent over every point (:class:`Corrected`), which the rule judges.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    y = y[:, None] if y.ndim == 1 else y
    level = check_real("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
    window = check_int("window", window, low=2)
    if x.ndim != 1 or y.ndim != 2 or y.shape[0] != x.size:
        raise ValueError(f"x must be (n_x,) and y (n_x,) or (n_x, n_seeds); got {x.shape}, {y.shape}")
    if not (np.all(np.isfinite(x)) and np.all(x > 0) and np.all(np.diff(x) > 0)):
        raise ValueError("x must be finite, > 0 and increasing for a rate fit")
    if not (np.all(np.isfinite(y)) and np.all(y > 0)):
        raise ValueError("y must be finite and > 0 for a rate fit")
    check_int("len(x)", x.size, low=window)
    n_seeds = y.shape[1]
    dof = n_seeds * (window - 1) - 1  # one intercept per seed, one common slope
    if dof < 1:
        raise ValueError(
            f"the last-range interval needs n_seeds * (window - 1) >= 2, got {n_seeds}, {window}"
        )
    lx, ly = np.log(x), np.log(y)
    mean = ly.mean(axis=1)
    local = tuple(_ols(lx[i : i + window], mean[i : i + window])[0] for i in range(x.size - window + 1))
    tx, ty = lx[-window:], ly[-window:]
    txc, tyc = tx - tx.mean(), ty - ty.mean(axis=0)  # within-seed deviations
    sxx = n_seeds * float(txc @ txc)
    slope = float(txc @ tyc.sum(axis=1)) / sxx
    rss = float(np.sum((tyc - slope * txc[:, None]) ** 2))
    half = float(stats.t.ppf(0.5 + level / 2, dof)) * math.sqrt(rss / dof / sxx)
    intercept = float(ty.mean() - slope * tx.mean())
    method = f"t, last {window} points x {n_seeds} seeds, one intercept per seed"
    corrected = (
        None
        if correction is None
        else _corrected(lx, ly, check_real("correction", correction, low=0.0, low_open=True), level)
    )
    return RateFit(
        slope, intercept, slope - half, slope + half, level, n_seeds * window, method,
        local=local, window=window, x=tuple(float(v) for v in x), corrected=corrected,
    )  # fmt: skip


def _corrected(lx: np.ndarray, ly: np.ndarray, q: float, level: float) -> Corrected:
    """Least squares of ``ly[i, s] = c_s + p lx[i] + a exp(-q lx[i])`` with a t interval on p."""
    n_x, n_seeds = ly.shape
    dof = n_seeds * n_x - n_seeds - 2
    if dof < 1:
        raise ValueError(f"the correction model needs n_seeds * n_x > n_seeds + 2, got {n_seeds}, {n_x}")
    design = np.column_stack([lx, np.exp(-q * lx)])
    centred = design - design.mean(axis=0)  # the per-seed intercepts absorb each seed's mean
    yc = ly - ly.mean(axis=0)
    gram = n_seeds * (centred.T @ centred)
    if np.linalg.cond(gram) > 1e12:
        raise ValueError(f"the correction x^-{q:g} is collinear with log x over these sizes")
    coef = np.linalg.solve(gram, centred.T @ yc.sum(axis=1))
    rss = float(np.sum((yc - (centred @ coef)[:, None]) ** 2))
    se = math.sqrt(rss / dof * float(np.linalg.inv(gram)[0, 0]))
    half = float(stats.t.ppf(0.5 + level / 2, dof)) * se
    p, a = float(coef[0]), float(coef[1])
    return Corrected(p, p - half, p + half, q, a, level)
