"""Experiments of ``claims/mixture.py`` (.mixture.margin.noisy; .mixture.margin and .onestep need only
the NTK margins of ``runs``): one draw of the noisy mixture's margins against their lower bound.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bounds import deora2023 as B
from verify.deora2023 import data as D
from verify.deora2023 import model as M
from verify.deora2023.experiments.runs import ntk_margins


@dataclass(frozen=True)
class NoisyMarginPoint:
    seed: int
    n: int
    H: int
    S: float
    sigma: float
    delta: float
    noise: str = "iid"


def noisy_margin_trial(p: NoisyMarginPoint) -> tuple[float, float, float]:
    """One seed of the noisy mixture: (gamma_U, gamma_full, lower bound) at W_0 = 0."""
    mix = D.Mixture(S=p.S, sigma=p.sigma, variant="O", noise=p.noise)
    X, y, _ = mix.sample(np.random.default_rng([p.seed, 1]), p.n)
    params = M.init_params(np.random.default_rng([p.seed, 2]), p.H, mix.T, mix.d)
    mU, mF = ntk_margins(params, X, y)
    lb = B.mixture_margin_noisy_lower(mix.zeta_eff, p.S, mix.T, p.sigma, p.n, p.delta)
    return mU.gamma, mF.gamma, lb
