"""Experiments of ``claims/generalization_rates.py`` (.gen.rate, .gen.gap*): the test loss with K
proportional to n, and the gap sweep in n.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from verify.core.context import Mapper, serial_map
from verify.deora2023 import data as D
from verify.deora2023 import model as M
from verify.deora2023.experiments.runs import run_gd


@dataclass(frozen=True)
class GenRatePoint:
    seed: int
    n: int
    H: int
    eta: float
    K_per_n: int
    test_size: int


def gen_rate_point(p: GenRatePoint) -> float:
    """Test loss L(theta_K) after K = K_per_n * n GD steps on one training set of size n."""
    mix = D.Mixture()
    X, y, _ = mix.sample(np.random.default_rng([p.seed, 41, p.n]), p.n)
    Xt, yt, _ = mix.sample(np.random.default_rng([p.seed, 42]), p.test_size)
    params0 = M.init_params(np.random.default_rng([p.seed, 43]), p.H, mix.T, mix.d)
    traj, _ = run_gd(params0, X, y, p.eta, p.K_per_n * p.n)
    return M.loss(traj.params, Xt, yt)


@dataclass(frozen=True)
class GapPoint:
    """Training set ``index`` of size n for the base seed ``seed``: GD at eta from the seed's
    data-independent theta_0 (H heads) until step K_fixed AND until L_hat <= target (at most K_max)."""

    seed: int
    index: int
    n: int
    H: int
    eta: float
    K_fixed: int
    target: float
    K_max: int
    test_size: int
    test_flip: float = 0.0


def gap_point(p: GapPoint) -> tuple[float, float, float, float, int]:
    """(gap at K_fixed, L_hat at K_fixed, gap at the first k with L_hat <= target, that L_hat, that k):
    gap = L(theta_k) - L_hat(theta_k), L on an independent test set of ``test_size`` samples per
    training set (so the test-set errors average out over the training sets instead of shifting every
    n of a seed alike). ``test_flip``: the test labels flipped with this probability (a test law
    shifted from the training law; 0: the same law)."""
    mix = D.Mixture()
    Xt, yt, _ = mix.sample(np.random.default_rng([p.seed, p.index, 52, p.n]), p.test_size)
    if p.test_flip:
        flip = np.random.default_rng([p.seed, p.index, 54, p.n]).random(p.test_size) < p.test_flip
        yt = np.where(flip, -yt, yt)
    theta = M.init_params(np.random.default_rng([p.seed, 53]), p.H, mix.T, mix.d)
    X, y, _ = mix.sample(np.random.default_rng([p.seed, p.index, 51, p.n]), p.n)
    fixed = None
    for k in range(p.K_max + 1):
        L, g = M.loss_and_grad(theta, X, y, validate=False)
        if k == p.K_fixed:
            fixed = (M.loss(theta, Xt, yt) - L, L)
        if fixed is not None and L <= p.target:  # at k = K_fixed the gap just measured
            return (*fixed, fixed[0] if k == p.K_fixed else M.loss(theta, Xt, yt) - L, L, k)
        theta = {key: theta[key] - p.eta * g[key] for key in theta}
    raise RuntimeError(f"GD did not reach L_hat <= {p.target} within {p.K_max} steps (n={p.n})")


@dataclass(frozen=True)
class GapSweep:
    seed: int
    ns: tuple[int, ...]
    H: int
    eta: float
    K_fixed: int
    target: float
    K_max: int
    datasets: int
    test_size: int
    test_flip: float = 0.0
    mapper: Mapper = field(default=serial_map, compare=False, repr=False)


@functools.cache
def gap_sweep(s: GapSweep) -> np.ndarray:
    """(len(ns), 5): the mean over ``datasets`` training sets of :func:`gap_point` at every n."""
    items = [GapPoint(s.seed, j, n, s.H, s.eta, s.K_fixed, s.target, s.K_max, s.test_size, s.test_flip)
             for n in s.ns for j in range(s.datasets)]  # fmt: skip
    out = np.array(s.mapper(gap_point, items), dtype=float)
    return out.reshape(len(s.ns), s.datasets, 5).mean(axis=1)
