"""Experiments of :mod:`verify.wu2023.claims.assumptions`: Assumption 3 in our pooled-input reading
and in the reviews' covariance tail form."""

from __future__ import annotations

import math

import numpy as np

from bounds import wu2023 as B
from verify.wu2023 import data as D
from verify.wu2023 import model as M
from verify.wu2023.experiments.runs import rng_for


def assumption3(batch: D.Batch, d_m: int, seed: int, key: int) -> tuple[float, float]:
    """(N sigma_min(Zbar)^2 / |Zbar|_F^2, N lambda_min(G) / tr G) of ``batch`` at LeCun init, tau0 =
    d_m^-1/2, weights from stream (seed, key, 9, d_m)."""
    N, d_s, d = batch.X.shape
    model = M.ShallowTransformer(d=d, d_s=d_s, d_m=d_m)
    th = model.init_params(rng_for(seed, key, 9, d_m))
    c = model.forward(th, batch)
    Z = c.S @ batch.X
    G = B.expected_gram(Z, 1.0)
    return B.assumption3_pooled(Z.mean(axis=1)), N * float(np.linalg.eigvalsh(G)[0] / np.trace(G))


def tail_constant(u: np.ndarray, power: float = 1.0) -> float:
    """The largest c with P(u >= t) <= 2 exp(-c t^power) at every t > 0 under the empirical law of the
    values ``u`` (the tail form of Assumption 3 as we reconstruct it; the prefactor 2 is the textbook
    sub-exponential / sub-Gaussian form). The empirical tail is a step function, so the bound binds at
    the sample points: c = min over the positive sorted values u_(k) of ln(2 n / (n - k + 1)) /
    u_(k)^power (values <= 0 never bind). inf when no value is positive."""
    u = np.sort(np.asarray(u, dtype=np.float64).ravel())
    if u.size == 0:
        raise ValueError("u must hold at least one value")
    tail = (u.size - np.arange(u.size)) / u.size  # P(u >= u_(k)) at the first index of a tie
    pos = u > 0
    if not np.any(pos):
        return math.inf
    return float(np.min(np.log(2.0 / tail[pos]) / u[pos] ** power))


def covariance_tails(X: np.ndarray, power: float) -> dict[str, float]:
    """The covariance cosines u_ij = <C_i, C_j>_F / (|C_i|_F |C_j|_F), C_i = X_i^T X_i, i < j
    (``bounds.wu2023.assumption3_covariance``) of the tokens X (N, d_s, d): their tail constant at
    ``power`` and at power 2 (the sub-Gaussian form, reported), mean, 90% quantile, max and the share of
    pairs above 0.9."""
    u = B.assumption3_covariance(X)
    return {
        "c": tail_constant(u, power),
        "c2": tail_constant(u, 2.0),
        "mean": float(u.mean()),
        "q90": float(np.quantile(u, 0.9)),
        "max": float(u.max()),
        "above_0.9": float(np.mean(u > 0.9)),
    }
