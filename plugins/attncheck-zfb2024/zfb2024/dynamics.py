"""Training: gradient flow on the reduced dynamics (5.4) / (C.4) by ``scipy.integrate.solve_ivp``
(DOP853, tight tolerances), a heavy-ball flow (the momentum world), and gradient descent on the full
(d+1) x (d+1) parameters with the closed-form population gradient (:mod:`zfb2024.model`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from zfb2024 import model, theory

#: solve_ivp's tolerances: round-off level, so that 1e-10 statements are decided by the dynamics.
RTOL, ATOL = 1e-12, 1e-14


@dataclass(frozen=True)
class Flow:
    """A solved flow: times t (T,), U11(t) (T, d, d), u_{-1}(t) (T,)."""

    t: np.ndarray
    U: np.ndarray
    u: np.ndarray


def init(
    theta2: np.ndarray, sigma: float, *, sign: float = 1.0, unbalance: float = 0.0
) -> tuple[np.ndarray, float]:
    """Assumption 3.3 (3.10): U11(0) = sigma Theta Theta^T, u_{-1}(0) = sigma (||Theta Theta^T||_F = 1).
    ``sign`` = -1: the sign-flipped U11(0); ``unbalance``: u_{-1}(0) = sigma (1 + unbalance)."""
    if not sigma > 0:
        raise ValueError(f"sigma must be > 0, got {sigma}")
    return sign * sigma * theta2, sigma * (1.0 + unbalance)


def reduced_rhs(lam: np.ndarray, N: int) -> callable:
    """(5.4): dU11/dt = -u^2 Gamma Lambda U Lambda + u Lambda^2, du/dt = -tr[u Gamma Lambda U Lambda U^T
    - Lambda^2 U^T], as a function of the flat state (U11 row-major, u)."""
    g = theory.gamma(lam, N) @ lam
    l2, d = lam @ lam, lam.shape[0]

    def rhs(_t: float, z: np.ndarray) -> np.ndarray:
        U, u = z[:-1].reshape(d, d), z[-1]
        gul = g @ U @ lam
        dU = -u * u * gul + u * l2
        du = -u * np.sum(gul * U) + np.sum(l2 * U)
        return np.append(dU.ravel(), du)

    return rhs


def reduced_grad(lam: np.ndarray, N: int, U: np.ndarray, u: float) -> tuple[np.ndarray, float]:
    """The gradient of the reduced loss (5.5): (u^2 Gamma Lambda U Lambda - u Lambda^2,
    u tr(Gamma Lambda U Lambda U^T) - tr(Lambda^2 U^T))."""
    gul, l2 = theory.gamma(lam, N) @ lam @ U @ lam, lam @ lam
    return u * u * gul - u * l2, float(u * np.sum(gul * U) - np.sum(l2 * U))


def flow(rhs: callable, U0: np.ndarray, u0: float, t_end: float, n_eval: int = 400) -> Flow:
    """Integrate a reduced flow from (U0, u0) to ``t_end``; the state at ``n_eval`` times, geometric in t."""
    d = U0.shape[0]
    t_eval = np.concatenate([[0.0], np.geomspace(1e-3, t_end, n_eval - 1)])
    sol = solve_ivp(rhs, (0.0, t_end), np.append(U0.ravel(), u0), "DOP853", t_eval, rtol=RTOL, atol=ATOL)
    if not sol.success:
        raise RuntimeError(f"solve_ivp failed: {sol.message}")
    return Flow(sol.t, sol.y[:-1].T.reshape(-1, d, d), sol.y[-1])


def heavy_ball(lam: np.ndarray, N: int, U0: np.ndarray, u0: float, t_end: float, friction: float) -> Flow:
    """The momentum world: x'' + friction x' = -grad l(x) on the reduced loss, from rest."""
    d = U0.shape[0]
    first = reduced_rhs(lam, N)
    k = d * d + 1

    def rhs(t: float, z: np.ndarray) -> np.ndarray:
        return np.concatenate([z[k:], first(t, z[:k]) - friction * z[k:]])

    z0 = np.concatenate([U0.ravel(), [u0], np.zeros(k)])
    t_eval = np.linspace(0.0, t_end, 400)
    sol = solve_ivp(rhs, (0.0, t_end), z0, "DOP853", t_eval, rtol=RTOL, atol=ATOL)
    if not sol.success:
        raise RuntimeError(f"solve_ivp failed: {sol.message}")
    return Flow(sol.t, sol.y[: k - 1].T.reshape(-1, d, d), sol.y[k - 1])


def random_rhs(alpha: np.ndarray, beta: np.ndarray, gam: np.ndarray) -> callable:
    """(C.4): du_ii/dt = -alpha_i u^2 u_ii + beta_i u, du_ij/dt = -gamma_ij u^2 u_ij (i != j),
    du/dt = -sum_ij gamma_ij u u_ij^2 + sum_i beta_i u_ii, with gamma_ii := alpha_i."""
    d = beta.shape[0]

    def rhs(_t: float, z: np.ndarray) -> np.ndarray:
        U, u = z[:-1].reshape(d, d), z[-1]
        dU = -u * u * gam * U + u * np.diag(beta)
        du = -u * np.sum(gam * U * U) + float(beta @ np.diag(U))
        return np.append(dU.ravel(), du)

    return rhs


def full_gd(
    lam: np.ndarray, N: int, U0: np.ndarray, u0: float, eta: float, steps: int, scale: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GD with step ``eta`` on all entries of (W^PV, W^KQ) from (3.10), with the closed-form population
    gradient; returns the final (W^PV, W^KQ) and the loss at every step (steps + 1,)."""
    if not eta > 0:
        raise ValueError(f"eta must be > 0, got {eta}")
    steps = theory.check_count("steps", steps)
    d = U0.shape[0]
    Wpv, Wkq = np.zeros((d + 1, d + 1)), np.zeros((d + 1, d + 1))
    Wpv[d, d], Wkq[:d, :d] = u0, U0
    losses = np.empty(steps + 1)
    for k in range(steps + 1):
        losses[k], g_pv, g_kq = model.population_loss_and_grad(Wpv, Wkq, lam, N, scale)
        if k < steps:
            Wpv, Wkq = Wpv - eta * g_pv, Wkq - eta * g_kq
    return Wpv, Wkq, losses
