"""Log-log slope fits with confidence intervals, for rate and order claims.

``fit_loglog(x, y)`` fits ``log y = intercept + slope * log x`` by least squares. With ``y`` of shape
``(n_x,)`` the interval is Student-t; with ``y`` of shape ``(n_x, n_seeds)`` it is a seed bootstrap
(resample whole seeds, refit the slope of the mean log y) as the specs ask for.
"""

from __future__ import annotations

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
