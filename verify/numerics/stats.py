"""Confidence bounds for probability claims ("with probability >= 1 - delta") and for means.

A probability claim is judged by the one-sided Clopper-Pearson bounds of its success rate
(:mod:`verify.core.judge`): holds when the lower bound is at least the claimed probability (evidence
for the statement), violated when the upper bound is below it (evidence against), else inconclusive.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from bounds.checks import check_int, check_prob

#: Confidence level of every interval a verdict rests on (rates, probabilities, Monte-Carlo means).
LEVEL = 0.95


@dataclass(frozen=True)
class Proportion:
    """``k`` successes in ``n`` trials with one-sided ``level`` Clopper-Pearson bounds ``lo`` / ``hi``
    (P(rate >= lo) >= level and P(rate <= hi) >= level under the binomial law)."""

    k: int
    n: int
    lo: float
    hi: float
    level: float


def clopper_pearson(k: int, n: int, level: float = LEVEL) -> Proportion:
    """One-sided exact (Clopper-Pearson) bounds of a success rate from ``k`` successes in ``n`` trials."""
    n = check_int("n", n, low=1)
    k = check_int("k", k, low=0, high=n)
    level = check_prob("level", level)
    lo = 0.0 if k == 0 else float(stats.beta.ppf(1 - level, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(level, k + 1, n - k))
    return Proportion(k=k, n=n, lo=lo, hi=hi, level=level)


def trials_needed(p0: float, level: float = LEVEL) -> int:
    """The fewest trials whose all-success lower bound reaches ``p0``: (1 - level)^(1/n) >= p0."""
    p0 = check_prob("p0", p0)
    return math.ceil(math.log(1 - level) / math.log(p0))


def mean_half_width(x: np.ndarray, q: float) -> float:
    """Half-width of the t interval of the mean of the independent draws ``x`` (n,), n >= 2: the ``q``
    quantile of Student t with n - 1 degrees of freedom times the sample standard deviation over
    sqrt(n). ``q`` = level for a one-sided ``level`` limit, 0.5 + level / 2 for a two-sided interval."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1 or x.size < 2:
        raise ValueError(f"x must be (n,) with n >= 2 draws, got shape {x.shape}")
    if not 0.5 < q < 1:
        raise ValueError(f"q must be a quantile in (0.5, 1), got {q!r}")
    return float(stats.t.ppf(q, x.size - 1)) * float(x.std(ddof=1)) / math.sqrt(x.size)


def paired_change_limits(y: np.ndarray, q: float) -> np.ndarray:
    """One-sided ``q`` limits of the mean change between consecutive rows of ``y`` (K, n), over its n
    paired draws (the columns: one seed each): a (K - 1, 2) array of (lower, upper) t limits
    (:func:`mean_half_width`) of ``mean(y[k + 1] - y[k])``."""
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 2 or y.shape[0] < 2 or y.shape[1] < 2:
        raise ValueError(f"y must be (K, n) with K >= 2 rows and n >= 2 paired draws, got shape {y.shape}")
    d = np.diff(y, axis=0)
    mean = d.mean(axis=1)
    half = np.array([mean_half_width(row, q) for row in d])
    return np.stack([mean - half, mean + half], axis=1)


def difference_limits(x: np.ndarray, y: np.ndarray, q: float) -> tuple[float, float]:
    """One-sided ``q`` (lower, upper) limits of mean(x) - mean(y) from independent draws ``x`` (n,) and
    ``y`` (m,), n, m >= 2: Welch's t with Welch-Satterthwaite degrees of freedom."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or y.ndim != 1 or x.size < 2 or y.size < 2:
        raise ValueError(f"x and y must be (n,) with n >= 2 draws each, got shapes {x.shape} and {y.shape}")
    if not 0.5 < q < 1:
        raise ValueError(f"q must be a quantile in (0.5, 1), got {q!r}")
    vx, vy = float(x.var(ddof=1)) / x.size, float(y.var(ddof=1)) / y.size
    diff = float(x.mean() - y.mean())
    if vx + vy == 0:
        return diff, diff
    dof = (vx + vy) ** 2 / (vx**2 / (x.size - 1) + vy**2 / (y.size - 1))
    half = float(stats.t.ppf(q, dof)) * math.sqrt(vx + vy)
    return diff - half, diff + half


#: A Monte Carlo z-score above its allowance is measured again on this many times the draws.
RECHECK = 10


def rechecked_z(z_of: Callable[[int, int], tuple[float, str]], n: int, allowed: float) -> tuple[float, str]:
    """A Monte Carlo z-score |estimate - closed form| / s.e. in two stages: ``z_of(n, 0)`` over n draws
    and, only when that z exceeds ``allowed``, ``z_of(RECHECK n, 1)`` over fresh draws (stage 1: streams
    of its own), which decides. ``z_of(draws, stage)`` returns (z, what it measured). Returns (the
    deciding z, its description, naming the first stage's z when the second decided).

    For heavy-tailed draws (products of several Gaussian factors): a sample that misses the tail
    understates the mean and its s.e. together, so a z of 4 to 5 from a right closed form is more
    frequent than the normal law says; a real discrepancy grows by sqrt(RECHECK) on the larger sample."""
    z, what = z_of(n, 0)
    if z <= allowed:
        return z, what
    z2, what2 = z_of(RECHECK * n, 1)
    return z2, f"{what2}; z {z:.2f} at {n} draws ({what}), so measured again at {RECHECK * n}"
