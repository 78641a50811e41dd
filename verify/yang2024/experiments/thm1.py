"""Experiments of claims/thm1.py (yang2024.thm1.monotone, thm1.rate): the Hessian's largest Ritz
value, the round-off floor of Delta, its monotonicity, the PL regime and the empirical rate."""

from __future__ import annotations

import math

import numpy as np
from scipy.sparse.linalg import LinearOperator, eigsh

from verify.yang2024 import data as D
from verify.yang2024 import model as M
from verify.yang2024.experiments.runs import EPS


def hessian_lmax(params: M.Params, problem: D.Problem, gamma: float, h: float = 1e-6) -> float:
    """Largest Ritz value (Lanczos, scipy eigsh) of the Hessian of L at params in the coordinates
    (Q, alpha = w / gamma) in which Theorem 1's GD has the single step eta_Q; Hessian-vector products
    by central differences of the hand gradients at step h. A Ritz value is at most lambda_max of the
    Hessian, which is at most the smoothness constant L of the theorem (NOT RECOVERED): eta_Q times it
    above 1 proves that eta_Q <= 1/L fails."""
    model = M.Transformer(params.Q.shape[0], excess=True)
    nQ = params.Q.size

    def grad(x: np.ndarray) -> np.ndarray:
        th = M.Params(Q=x[:nQ].reshape(params.Q.shape), w=gamma * x[nQ:].reshape(params.w.shape))
        g = model.loss_and_grad(th, problem)[1]
        return np.concatenate([g.Q.ravel(), gamma * g.w.ravel()])

    x0 = np.concatenate([params.Q.ravel(), params.w.ravel() / gamma])

    def hvp(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype=np.float64).ravel()
        return (grad(x0 + h * v) - grad(x0 - h * v)) / (2 * h)

    op = LinearOperator((x0.size, x0.size), matvec=hvp, dtype=np.float64)
    v0 = np.ones(x0.size) / math.sqrt(x0.size)  # deterministic start
    return float(eigsh(op, k=1, which="LA", v0=v0, tol=1e-6, return_eigenvectors=False)[0])


def roundoff(loss: np.ndarray, problem: D.Problem, H: int) -> np.ndarray:
    """First-order round-off of Delta = 1/2 tr(R^T G R) per step: R = A-hat - A carries an absolute
    error ||dR||_F <= u = 4 eps sqrt(H) ||A||_F, so |dDelta| <= ||G||_2 (||R||_F u + u^2 / 2) with
    ||R||_F <= sqrt(2 Delta / lambda_min(G))."""
    g = float(np.linalg.eigvalsh(problem.G)[-1])
    u = 4 * EPS * math.sqrt(H) * float(np.linalg.norm(problem.A))
    return g * (np.sqrt(2 * np.maximum(loss, 0) / problem.lam_min_G) * u + u * u / 2)


def monotone_violation(loss: np.ndarray, floor: np.ndarray) -> tuple[float, int]:
    """(max_t (Delta(t+1) - Delta(t) - floor_t) / Delta(t) over steps with Delta(t) > 0, number of
    steps whose change is below the round-off floor). Negative: decreasing everywhere."""
    d0, d1, fl = loss[:-1], loss[1:], floor[:-1]
    mask = d0 > 0
    under = int(np.sum(np.abs(d1 - d0) <= fl))
    if not np.any(mask):
        return 0.0, under
    return float(np.max((d1[mask] - d0[mask] - fl[mask]) / d0[mask])), under


def regime_end(lam_min: np.ndarray, floor: float) -> int:
    """First t at which the PL premise lambda_min(B^(t) B^(t)T) >= floor fails (len if never)."""
    bad = np.nonzero(lam_min < floor)[0]
    return int(bad[0]) if bad.size else len(lam_min)


def empirical_rate(L: np.ndarray) -> float:
    """Per-step geometric rate of L over the second half of its positive prefix."""
    T = len(L) - 1
    pos = np.nonzero(L > 0)[0]
    T = int(min(T, pos[-1]))
    h = T // 2
    return float((L[T] / L[h]) ** (1.0 / (T - h))) if T - h > 0 else float("nan")
