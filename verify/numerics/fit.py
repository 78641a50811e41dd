"""Log-log slope fits with confidence intervals, for rate and order claims.

``fit_rate(x, y)`` is the measurement of every "X scales like n^p" claim: the last-range fit (or an
explicit correction model's exponent) whose interval the shared rate rule judges
(:mod:`verify.core.judge`), and the local slopes over successive ranges, shown as information. Its
interval is the wider of two t intervals around the same slope: the pooled one (one intercept per
seed, a common slope, within-seed residuals) and the seed-slope one (the mean of the per-seed slopes
with the standard error of their spread, n_seeds - 1 dof), so seeds whose slopes differ widen it.

Every interval is two-sided at :data:`verify.numerics.stats.LEVEL` unless a caller passes ``level``.

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
from verify.numerics.stats import LEVEL

#: Every interval here is two-sided: ``[lo, hi]`` leaves (1 - level) / 2 outside on each side.
SIDED = 2


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

    @property
    def sided(self) -> int:
        """2: ``[lo, hi]`` is a two-sided ``level`` interval (quantiles 0.5 -+ level / 2)."""
        return SIDED

    def contains(self, exponent: float) -> bool:
        return self.lo <= exponent <= self.hi

    def as_dict(self) -> dict[str, float | int | str]:
        return {
            "slope": self.slope,
            "intercept": self.intercept,
            "lo": self.lo,
            "hi": self.hi,
            "level": self.level,
            "sided": self.sided,
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
    level: float = LEVEL,
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

    slope / lo / hi: the fit over the last ``window`` points (``n`` = window * n_seeds observations).
    The slope is the common slope with one intercept per seed (the mean of the per-seed slopes); its
    interval is the wider of two t intervals around it (``interval`` says which, ``dof`` its degrees
    of freedom, ``pooled_half`` / ``seed_half`` both half-widths):

    * "pooled": the t interval on the within-seed residuals of every (seed, point) pair,
      n_seeds * (window - 1) - 1 dof; it carries the lack of fit and is exact when the seeds share
      one slope, but too narrow when their slopes differ;
    * "seed slopes": the mean of the per-seed least-squares slopes with a t interval on the standard
      error of their spread, n_seeds - 1 dof; exact (normal errors, the same sizes for every seed)
      whether or not the seeds' slopes differ. Computed when window >= 3 and n_seeds >= 2 (at two
      points it is the pooled interval itself).

    spread_p: the p-value of the F test of seed-to-seed slope differences (seed x log x interaction),
    information only (the wider interval is taken whatever it says). local: the local slopes of mean
    log y over successive windows (first to last), shown as information (they decide nothing); x: the
    sizes. corrected: the exponent of an explicit pre-asymptotic correction model over every point
    (:class:`Corrected`), when the claim declares one; the rate rule then judges it instead of the
    last-range slope (``n_judged`` / ``dof_judged`` are the judged fit's size and dof).
    """

    local: tuple[float, ...] = ()
    window: int = 3
    x: tuple[float, ...] = ()
    corrected: Corrected | None = None
    dof: int = 0
    interval: str = "pooled"
    pooled_half: float | None = None
    seed_half: float | None = None
    spread_p: float | None = None

    @property
    def estimate(self) -> tuple[float, float, float]:
        """(exponent, lo, hi) the rate rule judges: the corrected fit's when there is one."""
        c = self.corrected
        return (c.slope, c.lo, c.hi) if c is not None else (self.slope, self.lo, self.hi)

    @property
    def n_judged(self) -> int:
        """Observations of the judged fit: the corrected fit's (every point) when there is one."""
        return self.corrected.n if self.corrected is not None else self.n

    @property
    def dof_judged(self) -> int:
        """Degrees of freedom of the judged interval's t quantile."""
        return self.corrected.dof if self.corrected is not None else self.dof

    def as_dict(self) -> dict[str, float | int | str]:
        extra = {} if self.corrected is None else {"corrected": self.corrected.as_dict()}
        return {
            **super().as_dict(),
            "dof": self.dof,
            "interval": self.interval,
            "pooled_half": self.pooled_half,
            "seed_half": self.seed_half,
            "spread_p": self.spread_p,
            "n_judged": self.n_judged,
            "dof_judged": self.dof_judged,
            "local": list(self.local),
            "window": self.window,
            "x": list(self.x),
        } | extra


@dataclass(frozen=True)
class Corrected:
    """The exponent p of ``log y = c_seed + p log x + a x^-q`` fitted over every point (one intercept per
    seed, common p and a), with a ``level`` two-sided t interval; q is the correction's order, stated
    by the derivation (e.g. q = 1 for a 1/n correction), never fitted. As for the last range the
    interval is the wider of the pooled one (n * n_seeds - n_seeds - 2 dof over n = n_x * n_seeds
    observations) and the seed-slope one (the spread of the per-seed fits' p, n_seeds - 1 dof);
    ``interval`` says which, ``dof`` its degrees of freedom."""

    slope: float
    lo: float
    hi: float
    q: float
    a: float
    level: float
    n: int = 0
    dof: int = 0
    interval: str = "pooled"
    pooled_half: float | None = None
    seed_half: float | None = None

    @property
    def sided(self) -> int:
        """2: ``[lo, hi]`` is a two-sided ``level`` interval."""
        return SIDED

    def as_dict(self) -> dict[str, float | int | str | None]:
        return {
            "slope": self.slope,
            "lo": self.lo,
            "hi": self.hi,
            "q": self.q,
            "a": self.a,
            "level": self.level,
            "sided": self.sided,
            "n": self.n,
            "dof": self.dof,
            "interval": self.interval,
            "pooled_half": self.pooled_half,
            "seed_half": self.seed_half,
        }


def _tq(level: float, dof: int) -> float:
    """The two-sided t quantile: 0.5 + level / 2 of Student t with ``dof`` degrees of freedom."""
    return float(stats.t.ppf(0.5 + level / 2, dof))


def _window_halves(tx: np.ndarray, ty: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(slope, pooled half-width, seed-slope half-width) of the last-range fit, vectorised.

    tx: (window,) log sizes; ty: (..., window, n_seeds) log values. The seed-slope half-width is NaN
    when window < 3 or n_seeds < 2 (not computed: at two points it equals the pooled one).
    """
    window, n_seeds = ty.shape[-2:]
    txc = tx - tx.mean()
    tyc = ty - ty.mean(axis=-2, keepdims=True)  # within-seed deviations
    sxx1 = float(txc @ txc)
    slope = (tyc.sum(axis=-1) @ txc) / (n_seeds * sxx1)
    rss = np.sum((tyc - slope[..., None, None] * txc[:, None]) ** 2, axis=(-2, -1))
    dof = n_seeds * (window - 1) - 1  # one intercept per seed, one common slope
    pooled = _tq(level, dof) * np.sqrt(rss / dof / (n_seeds * sxx1))
    if window < 3 or n_seeds < 2:
        return slope, pooled, np.full_like(pooled, np.nan)
    seed_slopes = np.einsum("...ws,w->...s", tyc, txc) / sxx1
    spread = np.sum((seed_slopes - slope[..., None]) ** 2, axis=-1) / (n_seeds - 1)
    seed = _tq(level, n_seeds - 1) * np.sqrt(spread / n_seeds)
    return slope, pooled, seed


def _wider(pooled: np.ndarray, seed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(half-width, True where the seed-slope one) of the wider interval; pooled on ties and NaN."""
    use_seed = seed > pooled
    return np.where(use_seed, seed, pooled), use_seed


def _spread_p(tx: np.ndarray, ty: np.ndarray) -> float | None:
    """p-value of the F test of the seed x log x interaction (the seeds' slopes differ), or None when
    it has no dof or the data fit without residual."""
    window, n_seeds = ty.shape
    if window < 3 or n_seeds < 2:
        return None
    txc = tx - tx.mean()
    tyc = ty - ty.mean(axis=0)
    sxx1 = float(txc @ txc)
    seed_slopes = (txc @ tyc) / sxx1
    between = sxx1 * float(np.sum((seed_slopes - seed_slopes.mean()) ** 2)) / (n_seeds - 1)
    within = float(np.sum((tyc - txc[:, None] * seed_slopes) ** 2)) / (n_seeds * (window - 2))
    if within == 0:
        return 0.0 if between > 0 else None
    return float(stats.f.sf(between / within, n_seeds - 1, n_seeds * (window - 2)))


def fit_rate(
    x: np.ndarray,
    y: np.ndarray,
    *,
    window: int = 3,
    level: float = LEVEL,
    correction: float | None = None,
) -> RateFit:
    """Fit "y ~ x^p" for the shared rate rule.

    x: (n_x,) positive, increasing; y: (n_x,) or (n_x, n_seeds) positive. window: points per local fit
    (>= 2); the last-range interval needs ``n_seeds * (window - 1) >= 2``. level: of the two-sided
    interval (default :data:`verify.numerics.stats.LEVEL`). correction: the order q > 0 of an explicit
    pre-asymptotic correction ``a x^-q`` (stated by the derivation); the fit then also carries the
    corrected exponent over every point (:class:`Corrected`), which the rule judges.
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
    pooled_dof = n_seeds * (window - 1) - 1  # one intercept per seed, one common slope
    if pooled_dof < 1:
        raise ValueError(
            f"the last-range interval needs n_seeds * (window - 1) >= 2, got {n_seeds}, {window}"
        )
    lx, ly = np.log(x), np.log(y)
    mean = ly.mean(axis=1)
    local = tuple(_ols(lx[i : i + window], mean[i : i + window])[0] for i in range(x.size - window + 1))
    tx, ty = lx[-window:], ly[-window:]
    slope_a, pooled_a, seed_a = _window_halves(tx, ty, level)
    half_a, use_seed = _wider(pooled_a, seed_a)
    slope, pooled, half = float(slope_a), float(pooled_a), float(half_a)
    seed = None if np.isnan(seed_a) else float(seed_a)
    interval, dof = ("seed slopes", n_seeds - 1) if bool(use_seed) else ("pooled", pooled_dof)
    spread_p = _spread_p(tx, ty)
    intercept = float(ty.mean() - slope * tx.mean())
    method = f"t, last {window} points x {n_seeds} seeds, one intercept per seed"
    if seed is not None:
        method += (
            f"; the wider of pooled (+-{pooled:.4f}, {pooled_dof} dof) and seed slopes (+-{seed:.4f}, "
            f"{n_seeds - 1} dof): {interval}"
            + ("" if spread_p is None else f"; F test of seed-slope differences p = {spread_p:.2g}")
        )
    corrected = (
        None
        if correction is None
        else _corrected(lx, ly, check_real("correction", correction, low=0.0, low_open=True), level)
    )
    return RateFit(
        slope, intercept, slope - half, slope + half, level, n_seeds * window, method,
        local=local, window=window, x=tuple(float(v) for v in x), corrected=corrected, dof=dof,
        interval=interval, pooled_half=pooled, seed_half=seed, spread_p=spread_p,
    )  # fmt: skip


#: Largest condition number of the correction model's column-scaled Gram matrix it accepts.
MAX_COND = 1e12


def _corrected(lx: np.ndarray, ly: np.ndarray, q: float, level: float = LEVEL) -> Corrected:
    """Least squares of ``ly[i, s] = c_s + p lx[i] + a exp(-q lx[i])`` with a t interval on p (the
    wider of the pooled and the seed-slope one, as for the last range)."""
    n_x, n_seeds = ly.shape
    dof = n_seeds * n_x - n_seeds - 2
    if dof < 1:
        raise ValueError(f"the correction model needs n_seeds * n_x > n_seeds + 2, got {n_seeds}, {n_x}")
    design = np.column_stack([lx, np.exp(-q * lx)])
    centred = design - design.mean(axis=0)  # the per-seed intercepts absorb each seed's mean
    norms = np.sqrt(np.sum(centred**2, axis=0))
    scaled = centred / np.where(norms > 0, norms, 1.0)  # unit columns: the condition is scale-free
    gram1 = scaled.T @ scaled  # one seed's Gram matrix
    if not np.all(norms > 0) or np.linalg.cond(gram1) > MAX_COND:
        raise ValueError(f"the correction x^-{q:g} is collinear with log x over these sizes")
    yc = ly - ly.mean(axis=0)
    coef = np.linalg.solve(n_seeds * gram1, scaled.T @ yc.sum(axis=1)) / norms
    rss = float(np.sum((yc - (centred @ coef)[:, None]) ** 2))
    pooled = (
        _tq(level, dof) * math.sqrt(rss / dof * float(np.linalg.inv(n_seeds * gram1)[0, 0])) / float(norms[0])
    )
    p, a = float(coef[0]), float(coef[1])
    seed = None
    if n_seeds >= 2:  # n_x >= 3 here: two points are collinear
        per_seed = np.linalg.solve(gram1, scaled.T @ yc)[0] / float(norms[0])
        seed = _tq(level, n_seeds - 1) * math.sqrt(
            float(np.sum((per_seed - p) ** 2)) / (n_seeds - 1) / n_seeds
        )
    use_seed = seed is not None and seed > pooled
    half, interval, used_dof = (seed, "seed slopes", n_seeds - 1) if use_seed else (pooled, "pooled", dof)
    return Corrected(
        p, p - half, p + half, q, a, level, n=n_x * n_seeds, dof=used_dof, interval=interval,
        pooled_half=pooled, seed_half=seed,
    )  # fmt: skip
