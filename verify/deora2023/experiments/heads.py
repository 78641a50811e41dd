"""Experiments of ``claims/heads.py`` (.heads.loss, .heads.loss.planted): one trial of the head-count study
at the paper's protocol, by the exact one-head reduction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verify.deora2023 import data as D
from verify.deora2023 import model as M


@dataclass(frozen=True)
class HeadsPoint:
    """One trial of the head-count study at the paper's protocol (theta(0) = 0, full-batch GD at eta;
    the trial's data are keyed by ``seed`` alone, so every H of a seed sees the same training and test
    sets). ``attn_step``: the attention block W moves by ``attn_step`` x eta x its gradient (1: plain
    GD; 0: frozen attention; H: the mean-field step of the alternative world). ``full``: run the H heads
    themselves (the reference of the exact one-head reduction, :func:`heads_point`)."""

    seed: int
    H: int
    n: int
    n_test: int
    K: int
    eta: float
    attn_step: float
    data: str = "mixture"
    full: bool = False


def heads_point(p: HeadsPoint) -> tuple[float, float, float]:
    """(training loss L_hat(theta_K), test loss L(theta_K), the heads' spread max_h ||theta_h - theta_1||)
    after K GD steps of the H-head model from theta(0) = 0 on the mixture or, with ``data`` = "planted", the
    planted model (:class:`verify.deora2023.data.Planted`).

    From theta(0) = 0 every head gets the same update (the model is symmetric in its heads), so the heads
    stay equal and the run is exactly (derivation Sect. 10.1) the one-head run on (sqrt(H) u, w) with step
    eta on the value block and attn_step eta / H on the attention block: Phi = sqrt(H) f(u, w) = f(sqrt(H)
    u, w) (f is linear in u), each head's U-gradient is 1/sqrt(H) and its W-gradient 1/H of the one-head
    gradients. That run is what this computes (spread 0), at a cost independent of H; ``full`` runs the H
    heads instead and measures their spread (the reference: the same losses to rounding, spread 0)."""
    if p.data == "planted":
        law, teacher = D.Planted(), [p.seed, 63]  # one teacher per trial, for training and test
        X, y = law.sample(np.random.default_rng(teacher), np.random.default_rng([p.seed, 61]), p.n)
        Xt, yt = law.sample(np.random.default_rng(teacher), np.random.default_rng([p.seed, 62]), p.n_test)
    else:
        law = D.Mixture()
        X, y, _ = law.sample(np.random.default_rng([p.seed, 61]), p.n)
        Xt, yt, _ = law.sample(np.random.default_rng([p.seed, 62]), p.n_test)
    heads = p.H if p.full else 1
    theta = {"U": np.zeros((heads, law.T, law.d)), "W": np.zeros((heads, law.d, law.d))}
    step = {"U": p.eta, "W": p.attn_step * p.eta / (1 if p.full else p.H)}
    for _ in range(p.K):
        _, g = M.loss_and_grad(theta, X, y, validate=False)
        theta = {k: theta[k] - step[k] * g[k] for k in theta}
    spread = max(float(np.max(np.abs(theta[k] - theta[k][:1]))) for k in theta)
    return M.loss(theta, X, y), M.loss(theta, Xt, yt), spread
