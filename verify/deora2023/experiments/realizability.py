"""Experiments of ``claims/realizability.py`` (.real.*): the NTK set-up of a mixture problem, the Taylor
ratios along the NTK max-margin direction and their worst-case search, and the closed-form NTK at
W_0 = 0 (its Gram, margin and Phi along theta_* at any H).
"""

from __future__ import annotations

import math

import numpy as np

from bounds import deora2023 as B
from bounds.checks import check_array
from verify.deora2023 import data as D
from verify.deora2023 import model as M
from verify.deora2023.experiments.runs import (
    ONE_LABEL,
    Margin,
    _rng,
    make_problem,
    ntk_margins,
    polar_U,
    shift,
    split_z,
    svm_margin,
    unit_tokens,
    value_norm_max,
    worst_case_search,
)
from verify.deora2023.model import Params
from verify.numerics.worstcase import WorstCase


def taylor_ratios(
    params0: Params, X: np.ndarray, y: np.ndarray, directions: np.ndarray, lams: np.ndarray | list[float]
) -> np.ndarray:
    """(k, len(lams)): per direction theta_* (a row of ``directions`` (k, p), unit vectors, packed) and per
    lambda in ``lams``, the largest (over samples) Taylor deficit
    max(0, -(y Phi(theta_0 + lam theta_*) - y Phi(theta_0) - lam y <grad Phi(theta_0), theta_*>)) divided
    by lam^2 beta_3(lam) / (2 sqrt(H)), beta_3(lam) = sqrt(T) R^3 (1 + 2R^2 (ubar_0 + lam)), R the token
    radius of X."""
    H, T, _ = M.check_params(params0)
    directions = check_array("directions", directions, ndim=2)
    yphi0 = y * M.phi(params0, X)
    lin = (directions @ M.features(params0, X).T) * y  # (k, n)
    u0, R = value_norm_max(params0), D.token_radius(X)
    out = np.empty((directions.shape[0], len(lams)))
    for j, lam in enumerate(np.asarray(lams, dtype=np.float64)):
        bound = B.taylor_remainder_bound(float(lam), H, B.beta3(T, R, u0 + float(lam)))
        for i, v in enumerate(directions):
            yphi = y * M.phi(shift(params0, v, float(lam)), X)
            out[i, j] = max(0.0, float(np.max(-(yphi - yphi0 - lam * lin[i])))) / bound
    return out


def ntk_setup(seed: int, n: int, H: int, S: float, sigma: float) -> tuple[D.Problem, Margin, Margin, float]:
    """A mixture problem at theta_0, its (U-block, full) NTK margins and B0 = max_i |Phi(theta_0; X_i)|."""
    pr = make_problem(_rng(seed, 1), _rng(seed, 2), n=n, H=H, S=S, sigma=sigma)
    mU, mF = ntk_margins(pr.params0, pr.X, pr.y)
    B0 = float(np.max(np.abs(M.phi(pr.params0, pr.X))))
    return pr, mU, mF, B0


def ntk_gram_w0(U: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The NTK Gram G_ij = y_i y_j <grad Phi(theta_0; X_i), grad Phi(theta_0; X_j)> at W_0 = 0 in closed
    form, at a cost independent of H: with uniform attention the U-features of head h are
    1 xbar^T / sqrt(H) and its W-features X^T U_h C / (T sqrt(H)), C = X^T (I - 11^T/T) X, so the Gram
    depends on the heads only through Q = (1/H) sum_h vec(U_h) vec(U_h)^T. Returns (G, xbar (n, d),
    C (n, d, d))."""
    _, T, d = X.shape
    H = U.shape[0]
    xbar = X.mean(axis=1)
    C = np.einsum("itd,ite->ide", X, X) - T * np.einsum("id,ie->ide", xbar, xbar)
    Uf = U.reshape(H, T * d)
    Q = (Uf.T @ Uf / H).reshape(T, d, T, d)
    P = np.einsum("itd,jsd->ijts", X, X)
    CC = np.einsum("jbc,ica->ijba", C, C)
    G = T * xbar @ xbar.T + np.einsum("ijts,tasb,ijba->ij", P, Q, CC) / T**2
    return G * np.outer(y, y), xbar, C


def ntk_margin_w0(U: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """(full NTK margin gamma, dual coefficients a with theta_* = Z^T a, ||theta_*|| = 1) at W_0 = 0 from
    the closed-form Gram (:func:`ntk_gram_w0`): the SVM of :func:`svm_margin` on a Cholesky factor."""
    G = ntk_gram_w0(U, X, y)[0]
    n = G.shape[0]
    Lc = np.linalg.cholesky(G + 1e-14 * np.trace(G) * np.eye(n))
    m = svm_margin(Lc)  # rows of Lc have the Gram G
    a = np.linalg.solve(Lc.T, m.theta_star)
    a = a / math.sqrt(float(a @ G @ a))
    return float(np.min(G @ a)), a


def phi_along_theta_star_w0(params0: Params, X: np.ndarray, y: np.ndarray, a: np.ndarray, lam: float,
                            chunk: int = 4096) -> np.ndarray:  # fmt: skip
    """Phi(theta_0 + lam theta_*; X_i) for theta_* = Z^T a (W_0 = 0), heads in chunks, so H can be
    ~1e5 with O(chunk) memory: theta_*'s U-block of every head is 1 (sum_i c_i xbar_i)^T / sqrt(H) and
    its W-block X-weighted U_h (sum_i c_i X_i^T U_h C_i / (T sqrt(H))), c = a y."""
    U = np.asarray(params0["U"])
    H, T, d = U.shape
    _, xbar, C = ntk_gram_w0(U[:1], X, y)
    c = a * y
    th_u = np.tile((c @ xbar) / math.sqrt(H), (T, 1))
    w_map = np.einsum("i,itd,ief->tedf", c, X, C).reshape(T * d, d * d) / (T * math.sqrt(H))
    phi = np.zeros(X.shape[0])
    for h0 in range(0, H, chunk):
        Uc = U[h0 : h0 + chunk]
        Wc = lam * (Uc.reshape(Uc.shape[0], -1) @ w_map).reshape(-1, d, d)
        phi += M.phi({"U": Uc + lam * th_u, "W": Wc}, X) * math.sqrt(Uc.shape[0] / H)
    return phi


#: Smallest step lambda of the Taylor search (R = 1): smaller steps add round-off, not new cases.
TAYLOR_LAM_MIN = 1e-3


def taylor_ratio_search(rng: np.random.Generator, T: int, d: int, starts: int, maxiter: int) -> WorstCase:
    """Worst case of the Taylor ratio (:func:`taylor_ratios`) over every theta_0, every lambda >=
    :data:`TAYLOR_LAM_MIN` and one sample X (T, d) at H = 1, along theta_* = +-(the eigenvector of the most
    negative eigenvalue of grad^2 Phi(theta_0; X)), the direction of the largest second-order deficit (the
    larger ratio of the two signs): z = (U_0 polar as in :func:`polar_U`, W_0, X, z_lam) with
    lambda = lambda_min + (z_lam / 10)^2, X scaled to R = 1 (the ratio is invariant under
    (X, U_0, W_0, lambda) -> (c X, U_0/c^2, W_0/c^2, lambda/c^2)). H = 1 loses nothing: the Hessian is
    block-diagonal over heads and the step's norm splits over them."""
    sizes = (T * d, 1, d * d, T * d, 1)

    def lam(z_lam: float) -> float:
        return TAYLOR_LAM_MIN + (z_lam / 10) ** 2

    def ratio(z: np.ndarray) -> float:
        u, root, W, x, z_lam = split_z(z, sizes)
        params0 = {"U": polar_U(u, float(root[0]), T, d), "W": W.reshape(1, d, d)}
        X = unit_tokens(x, T, d)
        v = np.linalg.eigh(M.hessian_phi(params0, X[0]))[1][:, 0]
        return float(np.max(taylor_ratios(params0, X, ONE_LABEL, np.stack([v, -v]), [lam(z_lam[0])])))

    return worst_case_search(
        ratio, sum(sizes), rng, starts, maxiter, {"H": 1, "T": T, "d": d, "lam_min": TAYLOR_LAM_MIN}
    )
