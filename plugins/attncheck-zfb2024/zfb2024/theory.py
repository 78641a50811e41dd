"""The paper's closed forms (arXiv v3), as pure functions of the covariance Lambda and the prompt
lengths; every input is validated (ValueError naming the parameter and its range).

Gamma := (1 + 1/N) Lambda + tr(Lambda) I / N (Thm 4.1); the limit (4.1) / (5.9); the minimum loss
(Cor. A.2 plus the constant tr(Lambda) / 2 of Lemma A.1); the lower bound (A.14) of u_{-1}; the PL
constant (5.7); the risk identity (4.6); Corollary 4.3's exact noiseless risk and its bound; the
covariate-shift slope (ours, from (4.7)); the random-covariance moments (C.3) and the limit (4.12).
"""

from __future__ import annotations

import numpy as np


def check_spd(name: str, lam: np.ndarray) -> np.ndarray:
    """``lam`` as a float64 symmetric positive definite (d, d) matrix, else ValueError naming ``name``."""
    lam = np.asarray(lam, dtype=np.float64)
    if lam.ndim != 2 or lam.shape[0] != lam.shape[1] or lam.shape[0] < 1:
        raise ValueError(f"{name} must be a square (d, d) matrix with d >= 1, got shape {lam.shape}")
    if not np.all(np.isfinite(lam)) or not np.allclose(lam, lam.T, rtol=0.0, atol=1e-12 * np.abs(lam).max()):
        raise ValueError(f"{name} must be finite and symmetric")
    if np.linalg.eigvalsh(lam)[0] <= 0.0:
        raise ValueError(f"{name} must be positive definite (smallest eigenvalue > 0)")
    return lam


def check_count(name: str, n: int, low: int = 1) -> int:
    """``n`` as an int >= ``low``, else TypeError / ValueError naming ``name``."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise TypeError(f"{name} must be an int, got {type(n).__name__}")
    if n < low:
        raise ValueError(f"{name} must be >= {low}, got {n}")
    return int(n)


def gamma(lam: np.ndarray, N: int) -> np.ndarray:
    """Gamma = (1 + 1/N) Lambda + tr(Lambda) I_d / N (Thm 4.1, Lemma 5.2, (A.7))."""
    lam, N = check_spd("lam", lam), check_count("N", N)
    return (1.0 + 1.0 / N) * lam + np.trace(lam) / N * np.eye(lam.shape[0])


def limit(lam: np.ndarray, N: int) -> tuple[np.ndarray, float]:
    """(4.1) / (5.9): W^{KQ}_11 -> tr(Gamma^-2)^(-1/4) Gamma^-1 and w^{PV}_22 -> tr(Gamma^-2)^(1/4)."""
    gi = np.linalg.inv(gamma(lam, N))
    scale = float(np.trace(gi @ gi)) ** 0.25
    return gi / scale, scale


def min_loss(lam: np.ndarray, N: int) -> float:
    """L* = tr(Lambda) / 2 - tr(Lambda^2 Gamma^-1) / 2 (Cor. A.2 plus Lemma A.1's constant)."""
    g = gamma(lam, N)
    return 0.5 * float(np.trace(lam)) - 0.5 * float(np.trace(lam @ lam @ np.linalg.inv(g)))


def reduced_loss(lam: np.ndarray, N: int, U: np.ndarray, u: float) -> float:
    """(5.5): l(U11, u_{-1}) = tr[u^2 Gamma Lambda U Lambda U^T / 2 - u Lambda^2 U^T]."""
    g = gamma(lam, N)
    return float(0.5 * u * u * np.trace(g @ lam @ U @ lam @ U.T) - u * np.trace(lam @ lam @ U.T))


def sigma2_max(lam: np.ndarray, N: int) -> float:
    """Theorem 4.1's condition sigma^2 ||Gamma||_op sqrt(d) < 2, solved for sigma^2."""
    g = gamma(lam, N)
    return 2.0 / (np.sqrt(g.shape[0]) * float(np.linalg.norm(g, 2)))


def u_lower(lam: np.ndarray, N: int, theta2: np.ndarray, sigma: float) -> float:
    """(A.14): u_{-1}(t) >= sqrt(sigma^2 ||Lambda Theta||_F^2 [2 - sqrt(d) sigma^2 ||Gamma||_op]
    / (2 sqrt(d) ||Lambda||_op^2)); ``theta2`` = Theta Theta^T, so that
    ||Lambda Theta||_F^2 = tr(Lambda^2 Theta Theta^T)."""
    g, d = gamma(lam, N), lam.shape[0]
    margin = 2.0 - np.sqrt(d) * sigma**2 * float(np.linalg.norm(g, 2))
    if margin <= 0.0:
        raise ValueError(
            f"sigma must satisfy sigma^2 < {sigma2_max(lam, N):.6g}, got sigma^2 = {sigma**2:.6g}"
        )
    top = sigma**2 * float(np.trace(lam @ lam @ theta2)) * margin
    return float(np.sqrt(top / (2.0 * np.sqrt(d) * float(np.linalg.norm(lam, 2)) ** 2)))


def pl_mu(lam: np.ndarray, N: int, theta2: np.ndarray, sigma: float) -> float:
    """(5.7): mu = sigma^2 ||Lambda Theta||_F^2 [2 - sqrt(d) sigma^2 ||Gamma||_op]
    / (sqrt(d) ||Lambda||_op^2 tr(Gamma^-1 Lambda^-1) tr(Lambda^-1))."""
    g, d = gamma(lam, N), lam.shape[0]
    margin = 2.0 - np.sqrt(d) * sigma**2 * float(np.linalg.norm(g, 2))
    if margin <= 0.0:
        raise ValueError(
            f"sigma must satisfy sigma^2 < {sigma2_max(lam, N):.6g}, got sigma^2 = {sigma**2:.6g}"
        )
    li = np.linalg.inv(lam)
    den = np.sqrt(d) * float(np.linalg.norm(lam, 2)) ** 2 * float(np.trace(np.linalg.inv(g) @ li))
    return float(sigma**2 * np.trace(lam @ lam @ theta2) * margin / (den * float(np.trace(li))))


def risk_46(lam: np.ndarray, N: int, M: int, a: np.ndarray, sigma_xy: np.ndarray, best: float) -> float:
    """(4.6): best + tr(Sigma Gamma^-2 Lambda) / M + [||a||^2_{G Lambda^3} + 2 tr(Lambda) ||a||^2_{G Lambda^2}
    + tr(Lambda)^2 ||a||^2_{G Lambda}] / N^2 with G = Gamma^-2; ``sigma_xy`` is Sigma of (4.5)."""
    M = check_count("M", M)
    gi = np.linalg.inv(gamma(lam, N))
    g2, t = gi @ gi, float(np.trace(lam))
    floor = a @ (g2 @ lam @ lam @ lam) @ a + 2 * t * a @ (g2 @ lam @ lam) @ a + t * t * a @ (g2 @ lam) @ a
    return float(best + np.trace(sigma_xy @ g2 @ lam) / M + floor / N**2)


def cor43_risk(lam: np.ndarray, N: int, M: int) -> float:
    """Corollary 4.3's exact noiseless risk (the display before it) averaged over w ~ N(0, I_d)."""
    M = check_count("M", M)
    gi = np.linalg.inv(gamma(lam, N))
    g2, t = gi @ gi, float(np.trace(lam))
    l2, l3 = lam @ lam, lam @ lam @ lam
    var = (t * np.trace(g2 @ l2) + np.trace(g2 @ l3)) / M
    return float(var + (np.trace(g2 @ l3) + 2 * t * np.trace(g2 @ l2) + t * t * np.trace(g2 @ lam)) / N**2)


def cor43_bound(lam: np.ndarray, N: int, M: int) -> float:
    """Corollary 4.3: (d + 1) tr(Lambda) / M + (1 + 2 d + d^2 kappa) tr(Lambda) / N^2."""
    lam, N, M = check_spd("lam", lam), check_count("N", N), check_count("M", M)
    ev, d = np.linalg.eigvalsh(lam), lam.shape[0]
    t = float(np.trace(lam))
    return (d + 1) * t / M + (1 + 2 * d + d * d * ev[-1] / ev[0]) * t / N**2


def cor43_floor(lam: np.ndarray, N: int) -> float:
    """The M -> infinity limit of :func:`cor43_risk`: its 1/N^2 term (the error floor)."""
    gi = np.linalg.inv(gamma(lam, N))
    g2, t = gi @ gi, float(np.trace(lam))
    return float(
        (np.trace(g2 @ lam @ lam @ lam) + 2 * t * np.trace(g2 @ lam @ lam) + t * t * np.trace(g2 @ lam))
        / N**2
    )


def shift_slope(lam: np.ndarray, N: int, c: float) -> float:
    """Covariate shift x ~ N(0, c^2 Lambda) at test (ours, the exact form of Sec. 4.2's c^2 from (4.7)):
    the population slope of y_hat on <w, x_q> through the origin, c^2 tr(Lambda^2 Gamma^-1) / tr(Lambda)."""
    if not (isinstance(c, int | float) and np.isfinite(c) and c > 0):
        raise ValueError(f"c must be a finite number > 0, got {c!r}")
    gi = np.linalg.inv(gamma(lam, N))
    return float(c * c * np.trace(lam @ lam @ gi) / np.trace(lam))


def exp1_moments(d: int, N: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(C.3) for lambda_i iid Exponential(1) (E l = 1, E l^2 = 2, E l^3 = 6; ours, worked out):
    alpha_i = 6 + (2 d + 10) / N, beta_i = 2, gamma_ij = 2 + (d + 4) / N (i != j)."""
    d, N = check_count("d", d), check_count("N", N)
    alpha = np.full(d, 6.0 + (2 * d + 10) / N)
    beta = np.full(d, 2.0)
    gam = np.full((d, d), 2.0 + (d + 4) / N)
    np.fill_diagonal(gam, alpha)
    return alpha, beta, gam


def limit_random(alpha: np.ndarray, beta: np.ndarray) -> tuple[np.ndarray, float]:
    """(4.12) / (C.15): K = diag(beta / alpha); W^{KQ}_11 -> K / ||K||_F^(1/2), w^{PV}_22 -> ||K||_F^(1/2)."""
    k = np.asarray(beta, float) / np.asarray(alpha, float)
    if k.ndim != 1 or not np.all(np.isfinite(k)) or np.any(k <= 0):
        raise ValueError("alpha and beta must be finite positive (d,) vectors")
    scale = float(np.linalg.norm(k)) ** 0.5
    return np.diag(k) / scale, scale


def quadratic_task(
    lam: np.ndarray, w0: np.ndarray, c: float, s: float
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Theorem 4.2's quantities for y = <w0, x> + c (x_1^2 - Lambda_11) + s xi, x ~ N(0, Lambda), xi ~ N(0, 1)
    (ours, by Isserlis): a = w0 (the odd moments vanish), Sigma = (||w0||^2_Lambda + 2 c^2 Lambda_11^2 + s^2)
    Lambda + Lambda w0 w0^T Lambda + 8 c^2 Lambda_11 u u^T with u = Lambda e_1, the best linear error
    2 c^2 Lambda_11^2 + s^2 and E[y^2] = ||w0||^2_Lambda + that error."""
    lam = check_spd("lam", lam)
    l11, u, lw = float(lam[0, 0]), lam[:, 0], lam @ w0
    best = 2 * c * c * l11 * l11 + s * s
    sigma = (float(w0 @ lw) + best) * lam + np.outer(lw, lw) + 8 * c * c * l11 * np.outer(u, u)
    return np.asarray(w0, float), sigma, best, float(w0 @ lw) + best


def query_shift_risk(lam: np.ndarray, N: int, M: int, w: np.ndarray, xq: np.ndarray) -> float:
    """Sec. 4.2's query shift, exact (ours, from (4.7)): for a fixed query x_q and task w, prompt covariates
    from N(0, Lambda), noiseless labels, E (y_hat - <w, x_q>)^2 = (x_q^T (Gamma^-1 Lambda - I) w)^2
    + q^T (||w||^2_Lambda Lambda + Lambda w w^T Lambda) q / M with q = Gamma^-1 x_q."""
    M = check_count("M", M)
    gi = np.linalg.inv(gamma(lam, N))
    bias = float(xq @ (gi @ lam - np.eye(lam.shape[0])) @ w)
    q, lw = gi @ xq, lam @ w
    return bias * bias + float(q @ (float(w @ lw) * lam + np.outer(lw, lw)) @ q) / M
