"""Experiments of :mod:`verify.wu2023.claims.alpha_gram`: the worst-case ratio of the Hermite floor of
lambda_min(G)."""

from __future__ import annotations

import numpy as np

from bounds import wu2023 as B


def hermite_gap(Z: np.ndarray, tol: float) -> tuple[float, float]:
    """(eta_V/4 sigma_min(Zbar)^2 / (lambda_min(G) + tol |G|_2), (lambda_min(G) - eta_V/4 sigma_min(Zbar)^2)
    / |G|_2) at eta_V = 1 for the attention-weighted tokens Z (N, d_s, d): the consequence of the Hermite
    floor as a ratio (with the claim's round-off margin ``tol`` relative to |G|_2) and as a relative gap.
    Any tokens and any row-stochastic S give any Z, and eta_V cancels."""
    G = B.expected_gram(Z, 1.0)
    lam, scale = float(np.linalg.eigvalsh(G)[0]), float(np.linalg.norm(G, 2))
    bound = B.alpha_sq_floor(Z.mean(axis=1), 1.0, 1)
    return bound / (lam + tol * scale), (lam - bound) / scale
