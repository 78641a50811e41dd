"""SGD with small steps on all entries of (W^PV, W^KQ), with the hand-derived empirical gradient (3.7)
on fresh batches: a third, stochastic route to Theorem 4.1's limit (the paper names finite-step SGD as
future work, Sec. 6). Information, not a claim: the product w^PV_22 W^KQ_11 reaches Gamma^-1 only up to
the SGD noise, and the balance random-walks along the flat gauge direction (measured: product within
0.0066 of Gamma^-1, off blocks <= 0.016, u^2 - ||U11||_F^2 = -0.93 at the end; 17 s of CPU)."""

from __future__ import annotations

import numpy as np
import pytest

from zfb2024 import data, model, theory
from zfb2024.claims.common import setup


@pytest.mark.slow
def test_sgd_on_the_full_parameters_reaches_gamma_inverse_up_to_its_noise() -> None:
    d, N, batch, eta, steps = 2, 5, 4096, 0.05, 3000
    s = setup(0, d, N, 0.5)
    Wpv, Wkq = np.zeros((d + 1, d + 1)), np.zeros((d + 1, d + 1))
    Wpv[d, d], Wkq[:d, :d] = s.sigma, s.sigma * s.theta2
    rng = np.random.default_rng(7)
    for _ in range(steps):
        p = data.prompts(rng, s.lam, batch, N)
        _, g_pv, g_kq = model.loss_and_grad(Wpv, Wkq, model.embed(p.X, p.y, p.xq), p.yq, N)
        Wpv, Wkq = Wpv - eta * g_pv, Wkq - eta * g_kq
    product = Wpv[d, d] * Wkq[:d, :d]
    err = np.abs(product - np.linalg.inv(theory.gamma(s.lam, N))).max()
    assert err < 0.05, f"SGD product {product} is {err:.3g} from Gamma^-1"
    assert np.abs(Wpv[d, :d]).max() < 0.05 and np.abs(Wkq[d, :d]).max() < 0.05  # off blocks near 0
