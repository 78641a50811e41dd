"""NTK margins: the bias-free hard-margin SVM on the features Z_i = y_i grad Phi(theta_0; X_i)
(spec section 11, implementation notes; A4 of section 2)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from bounds.checks import check_array


@dataclass(frozen=True)
class Margin:
    """gamma = min_i <Z_i, theta_star> with ||theta_star|| = 1 (gamma <= 0: not separable)."""

    gamma: float
    theta_star: np.ndarray
    separable: bool


def svm_margin(Z: np.ndarray, *, max_alpha: float = 1e8) -> Margin:
    """Max-margin unit direction for the rows of Z (n, p): solve min_{alpha >= 0} a^T G a / 2 - 1^T a
    (G = Z Z^T) with L-BFGS-B, then polish on the support set by the KKT system G_SS a_S = 1."""
    Z = check_array("Z", Z, ndim=2)
    n = Z.shape[0]
    G = Z @ Z.T
    scale = max(float(np.max(np.diag(G))), 1e-300)
    Gs = G / scale  # the dual of Z / sqrt(scale)

    def fg(a: np.ndarray) -> tuple[float, np.ndarray]:
        Ga = Gs @ a
        return 0.5 * float(a @ Ga) - float(a.sum()), Ga - 1.0

    res = minimize(
        fg,
        np.full(n, 1.0 / n),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, max_alpha)] * n,
        options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 5000},
    )
    a = res.x
    if np.max(a) >= 0.99 * max_alpha:
        return Margin(0.0, np.zeros(Z.shape[1]), False)
    best = _direction(Z, a)
    # polish: exact KKT solve on the support set, kept only if it is feasible and better
    sup = a > 1e-8 * max(1.0, float(np.max(a)))
    if sup.any():
        try:
            aS = np.linalg.lstsq(Gs[np.ix_(sup, sup)], np.ones(int(sup.sum())), rcond=None)[0]
            if np.all(aS >= 0):
                a2 = np.zeros(n)
                a2[sup] = aS
                cand = _direction(Z, a2)
                if cand.gamma > best.gamma:
                    best = cand
        except np.linalg.LinAlgError:
            pass
    return best


def _direction(Z: np.ndarray, a: np.ndarray) -> Margin:
    w = Z.T @ a
    nw = float(np.linalg.norm(w))
    if nw == 0:
        return Margin(0.0, np.zeros(Z.shape[1]), False)
    theta = w / nw
    gamma = float(np.min(Z @ theta))
    return Margin(gamma, theta, gamma > 0)
