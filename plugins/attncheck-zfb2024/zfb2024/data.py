"""Draws: the covariance Lambda, the initialisation direction Theta Theta^T (Assumption 3.3), and
prompts of in-context linear regression (Sec. 3.3) in the paper's law or an alternative one."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zfb2024.theory import check_count, check_spd

#: Covariate laws: x = Lambda^(1/2) z with z iid N(0, 1) (the paper's), Rademacher, or Uniform
#: (-sqrt 3, sqrt 3); all three have covariance Lambda.
LAWS = ("gaussian", "rademacher", "uniform")


def random_lambda(rng: np.random.Generator, d: int, lo: float = 0.5, hi: float = 2.0) -> np.ndarray:
    """Lambda = Q diag(l) Q^T, Q Haar-orthogonal, l iid Uniform(lo, hi): condition number <= hi / lo."""
    d = check_count("d", d)
    if not 0 < lo < hi:
        raise ValueError(f"need 0 < lo < hi, got lo={lo}, hi={hi}")
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    q = q * np.sign(np.diag(r))
    return (q * rng.uniform(lo, hi, d)) @ q.T


def random_theta2(rng: np.random.Generator, d: int) -> np.ndarray:
    """Assumption 3.3's random version: Theta Theta^T = M M^T / ||M M^T||_F, M iid N(0, 1)."""
    m = rng.standard_normal((check_count("d", d), d))
    t = m @ m.T
    return t / np.linalg.norm(t)


def covariates(
    rng: np.random.Generator, lam: np.ndarray, shape: tuple[int, ...], law: str = "gaussian"
) -> np.ndarray:
    """Draws x = Lambda^(1/2) z of shape (*shape, d), z iid with mean 0, variance 1 from ``law``."""
    lam = check_spd("lam", lam)
    d = lam.shape[0]
    if law == "gaussian":
        z = rng.standard_normal((*shape, d))
    elif law == "rademacher":
        z = rng.choice(np.array([-1.0, 1.0]), size=(*shape, d))
    elif law == "uniform":
        z = rng.uniform(-np.sqrt(3.0), np.sqrt(3.0), (*shape, d))
    else:
        raise ValueError(f"law must be one of {LAWS}, got {law!r}")
    ev, vec = np.linalg.eigh(lam)
    return z @ (vec * np.sqrt(ev)).T


@dataclass(frozen=True)
class Prompts:
    """B prompts: covariates X (B, n, d), labels y (B, n), query xq (B, d), its label yq (B,), task w
    (B, d)."""

    X: np.ndarray
    y: np.ndarray
    xq: np.ndarray
    yq: np.ndarray
    w: np.ndarray


def prompts(
    rng: np.random.Generator,
    lam: np.ndarray,
    B: int,
    n: int,
    *,
    law: str = "gaussian",
    w_mean: float = 0.0,
    noise: float = 0.0,
) -> Prompts:
    """B noiseless (or noisy: + noise * N(0, 1)) linear-regression prompts of length n (Sec. 3.3):
    w ~ N(w_mean 1, I_d), x_i, x_q iid from ``law`` with covariance Lambda, y = <w, x> (+ noise)."""
    B, n = check_count("B", B), check_count("n", n)
    d = lam.shape[0]
    w = w_mean + rng.standard_normal((B, d))
    X = covariates(rng, lam, (B, n), law)
    xq = covariates(rng, lam, (B,), law)
    y = np.einsum("bnd,bd->bn", X, w) + noise * rng.standard_normal((B, n))
    yq = np.einsum("bd,bd->b", xq, w) + noise * rng.standard_normal(B)
    return Prompts(X, y, xq, yq, w)
