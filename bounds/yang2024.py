"""Theory side of Yang, Huang, Liang, Chi (NeurIPS 2024, arXiv 2408.10147): "In-Context Learning with
Representations: Contextual Generalization of Trained Transformers".

Pure functions of the problem data (tokens' representations ``Z`` (m x N), ``Z_Q`` (m x (K-N)), the
noise level ``tau``) and of measured scalars. Provenance per function:

* DERIVED (checked numerically): :func:`gram`, :func:`zbar`, :func:`target_matrix` (A), :func:`loss_floor`
  (L*, including the "+ m tau" the extraction lost), :func:`closed_form_loss` (Lemma 5), the ridge
  estimators, :func:`limit_predictor` (A^T y), :func:`inference_bound`, :func:`copy_bound`,
  :func:`lemma4_objective`, :func:`fig3_gap`, :func:`expected_error`, :func:`orthant_floor`.
* RECONSTRUCTED (the paper's displayed formula was not recoverable): :func:`rate_factor`
  (rho = 1 - eta_Q gamma^2 zeta_0 / 2), :func:`rate_bound`, :func:`prob_bound` (Y_delta),
  :func:`iterations_needed` (a sufficient T, eq. 21 re-derived, not the paper's own constants).
* NOT RECOVERED (not implemented, never guessed): the smoothness constant L, the bound alpha-bar and the
  gamma threshold of eq. (15).

Magnitudes that can leave float64 (rho = 1 - 1e-17, T = 1e20) are mpmath ``mpf``. The derivations behind
the DERIVED and RECONSTRUCTED formulas are in ``verify/yang2024/derivations.md``.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
from scipy.optimize import nnls

from bounds.checks import (
    check_array,
    check_int,
    check_positive,
    check_prob,
    check_real,
    check_real_mp,
    check_steps,
    finite_result,
)
from bounds.mp import DPS, mp

EPS = float(np.finfo(np.float64).eps)

# ----------------------------------------------------------------------------- Lemma 5 (DERIVED)


def _zpair(Z: np.ndarray, Z_Q: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    Z = check_array("Z", Z, ndim=2, nonempty=True)
    if Z_Q is None:
        return Z, np.zeros((Z.shape[0], 0))
    Z_Q = check_array("Z_Q", Z_Q, shape=(Z.shape[0], None), nonempty=True, match="Z")
    return Z, Z_Q


@finite_result
def gram(Z: np.ndarray, tau: float) -> np.ndarray:
    """G = Z^T Z + m tau I_N (N x N), Z: (m, N). Invertible for tau > 0."""
    Z, _ = _zpair(Z)
    tau = check_positive("tau", tau)
    m, n = Z.shape
    return Z.T @ Z + m * tau * np.eye(n)


@finite_result
def zbar(G: np.ndarray) -> np.ndarray:
    """Z-bar = G^{1/2} (symmetric PSD square root, by eigendecomposition), G: (N, N) SPD."""
    G = check_array("G", G, ndim=2, nonempty=True)
    if G.shape[0] != G.shape[1]:
        raise ValueError(f"G must be square, got shape {G.shape}")
    lam, U = np.linalg.eigh((G + G.T) / 2)
    if lam[0] <= 0:
        raise ValueError(f"G must be positive definite, smallest eigenvalue {lam[0]:g}")
    return (U * np.sqrt(lam)) @ U.T


@finite_result
def target_matrix(Z: np.ndarray, Z_Q: np.ndarray, tau: float) -> np.ndarray:
    """A = G^{-1}(Z^T Z-tilde + m tau [I_N, 0]) = [I_N, G^{-1} Z^T Z_Q] (N x K), from its definition."""
    Z, Z_Q = _zpair(Z, Z_Q)
    tau = check_positive("tau", tau)
    G = gram(Z, tau)
    m, n = Z.shape
    Zt = np.concatenate([Z, Z_Q], axis=1)
    rhs = Z.T @ Zt
    rhs[:, :n] += m * tau * np.eye(n)
    return np.linalg.solve(G, rhs)


@finite_result
def const_terms(Z: np.ndarray, Z_Q: np.ndarray, tau: float) -> np.ndarray:
    """The paper's constants c_k (k <= N, which vanish) and c'_k + m tau (k > N), shape (K,).

    c_k = -(Z^T z_k + m tau e_k)^T G^{-1} (Z^T z_k + m tau e_k) + ||z_k||^2 + m tau;
    c'_k = ||z_k||^2 + m tau - z_k^T Z G^{-1} Z^T z_k (fresh target noise adds the m tau).
    """
    Z, Z_Q = _zpair(Z, Z_Q)
    tau = check_positive("tau", tau)
    G = gram(Z, tau)
    m, n = Z.shape
    Zt = np.concatenate([Z, Z_Q], axis=1)
    P = Z.T @ Zt
    P[:, :n] += m * tau * np.eye(n)
    quad = np.sum(P * np.linalg.solve(G, P), axis=0)
    return np.sum(Zt * Zt, axis=0) + m * tau - quad


@finite_result
def loss_floor(Z: np.ndarray, Z_Q: np.ndarray, tau: float) -> float:
    """L* = 1/2 sum_{k>N} (||z_k||^2 + m tau - z_k^T Z G^{-1} Z^T z_k) (Lemma 5, DERIVED)."""
    Z, Z_Q = _zpair(Z, Z_Q)
    tau = check_positive("tau", tau)
    G = gram(Z, tau)
    m = Z.shape[0]
    P = Z.T @ Z_Q
    quad = np.sum(P * np.linalg.solve(G, P), axis=0)
    return float(0.5 * np.sum(np.sum(Z_Q * Z_Q, axis=0) + m * tau - quad))


@finite_result
def closed_form_loss(Ahat: np.ndarray, A: np.ndarray, G: np.ndarray, Lstar: float) -> float:
    """L = 1/2 sum_k ||Z-bar (a-hat_k - A_k)||^2 + L* = 1/2 tr(R^T G R) + L*, R = Ahat - A (N x K)."""
    A = check_array("A", A, ndim=2, nonempty=True)
    Ahat = check_array("Ahat", Ahat, shape=A.shape, match="A")
    G = check_array("G", G, shape=(A.shape[0], A.shape[0]), match="A")
    R = Ahat - A
    return float(0.5 * np.sum(R * (G @ R)) + check_real("Lstar", Lstar, low=0.0))


# -------------------------------------------------------- Assumption 2 / Theorem 1 (RECONSTRUCTED)


@finite_result
def zeta0(B: np.ndarray) -> float:
    """zeta_0 = min_k lambda_min(B_k B_k^T) for B: (K, N, H), B_k = Z-bar C_k.

    Eigenvalues of B_k B_k^T when they are resolved (lambda_min > 1e8 eps lambda_max: relative error
    <= 1e-8); otherwise min_k sigma_min(B_k)^2 by SVD, accurate to eps sigma_max in sigma, so the tiny
    zeta_0 near H = N is still resolved. H < N gives 0 (rank B_k <= H < N).
    """
    B = check_array("B", B, ndim=3, nonempty=True)
    n, h = B.shape[1], B.shape[2]
    if h < n:
        return 0.0
    lam = np.linalg.eigvalsh(B @ B.transpose(0, 2, 1))
    if np.all(lam[:, 0] > 1e8 * EPS * lam[:, -1]):
        return float(np.min(lam[:, 0]))
    s = np.linalg.svd(B, compute_uv=False)
    return float(np.min(s[:, n - 1]) ** 2)


@finite_result
def rate_factor(eta_Q: float, gamma: float, zeta_0: float) -> mpmath.mpf:
    """rho = 1 - eta_Q gamma^2 zeta_0 / 2 (Theorem 1, eq. 18; RECONSTRUCTED form), as mpf."""
    eta_Q, gamma = check_positive("eta_Q", eta_Q), check_positive("gamma", gamma)
    zeta_0 = check_real("zeta_0", zeta_0, low=0.0)
    with mpmath.workdps(DPS):
        rho = 1 - mp(eta_Q) * mp(gamma) ** 2 * mp(zeta_0) / 2
    if rho < 0:
        raise ValueError(f"eta_Q gamma^2 zeta_0 / 2 = {float(1 - rho):g} > 1: step too large")
    return rho


@finite_result
def rate_bound(delta0: float, rho: mpmath.mpf, t: np.ndarray) -> list[mpmath.mpf]:
    """Delta(t) <= rho^t Delta(0) (Theorem 1, RECONSTRUCTED), one mpf per entry of t.

    rho in [0, 1] (checked exactly, as mpf); t: a 1-d array of whole step counts >= 0 (a fractional
    step is refused, not truncated)."""
    delta0 = check_real("delta0", delta0, low=0.0)
    check_real_mp("rho", rho, low=0, high=1)
    check_steps("t", t, ndim=1)
    with mpmath.workdps(DPS):
        r, d0 = mp(rho), mp(delta0)
        return [d0 * r ** int(s) for s in np.asarray(t)]


# --------------------------------------------------------------- Theorem 2: ridge limit (DERIVED)


@finite_result
def ridge(Z: np.ndarray, y: np.ndarray, penalty: float) -> np.ndarray:
    """(Z Z^T + penalty I_m)^{-1} Z y for Z: (m, N), y: (N,) or (n, N) -> (m,) or (n, m)."""
    Z, _ = _zpair(Z)
    y = check_array("y", y, nonempty=True)
    if y.ndim not in (1, 2) or y.shape[-1] != Z.shape[1]:
        raise ValueError(f"y must have shape (N,) or (n, N), N = {Z.shape[1]} columns of Z, got {y.shape}")
    penalty = check_positive("penalty", penalty)
    M = np.linalg.solve(Z @ Z.T + penalty * np.eye(Z.shape[0]), Z)  # (m, N)
    return y @ M.T


@finite_result
def transformer_ridge(Z: np.ndarray, y: np.ndarray, tau: float) -> np.ndarray:
    """lambda-hat = (Z Z^T + m tau I)^{-1} Z y: the ridge the trained transformer performs (eq. 20)."""
    Z, _ = _zpair(Z)
    penalty = Z.shape[0] * check_positive("tau", tau)
    if not math.isfinite(penalty):
        raise OverflowError("the penalty overflows float64")
    return ridge(Z, y, penalty)


@finite_result
def best_ridge(Z: np.ndarray, y: np.ndarray, tau: float) -> np.ndarray:
    """lambda-hat_tau = (Z Z^T + N tau I)^{-1} Z y: the paper's "best" ridge (eqs. 24-25, Lemma 4)."""
    Z, _ = _zpair(Z)
    penalty = Z.shape[1] * check_positive("tau", tau)
    if not math.isfinite(penalty):
        raise OverflowError("the penalty overflows float64")
    return ridge(Z, y, penalty)


@finite_result
def ridge_predictions(Z: np.ndarray, Z_Q: np.ndarray, y: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """(y_1..y_N, Z_Q^T lambda) for prompts y: (n, N) and estimates lam: (n, m) -> (n, K)."""
    Z, Z_Q = _zpair(Z, Z_Q)
    y = check_array("y", y, shape=(None, Z.shape[1]), nonempty=True, match="Z")
    lam = check_array("lam", lam, shape=(y.shape[0], Z.shape[0]), match="y and Z")
    return np.concatenate([y, lam @ Z_Q], axis=1)


@finite_result
def limit_predictor(A: np.ndarray, y: np.ndarray) -> np.ndarray:
    """y-hat* = A^T y (eq. 8 at A-hat = A), A: (N, K), y: (n, N) -> (n, K)."""
    A = check_array("A", A, ndim=2, nonempty=True)
    y = check_array("y", y, shape=(None, A.shape[0]), nonempty=True, match="A")
    return y @ A


@finite_result
def inference_bound(delta: float, y_norm2: np.ndarray, K: int, lam_min_G: float) -> np.ndarray:
    """Delta ||y||^2 / (K lambda_min(G)) >= (1/(2K)) ||y-hat - y-hat*||^2 (Thm 2, deterministic step).

    delta: the function gap Delta >= 0; y_norm2: squared prompt norms >= 0 (any shape)."""
    delta = check_real("delta", delta, low=0.0)
    K = check_int("K", K)
    lam_min_G = check_positive("lam_min_G", lam_min_G)
    return delta * check_array("y_norm2", y_norm2, low=0.0) / (K * lam_min_G)


@finite_result
def copy_bound(delta: float, y_norm2: np.ndarray, lam_min_G: float) -> np.ndarray:
    """max_{k<=N} |y-hat_k - y_k| <= sqrt(2 Delta ||y||^2 / lambda_min(G)) (DERIVED)."""
    delta = check_real("delta", delta, low=0.0)
    lam_min_G = check_positive("lam_min_G", lam_min_G)
    return np.sqrt(2 * delta * check_array("y_norm2", y_norm2, low=0.0) / lam_min_G)


@finite_result
def prob_bound(B: float, Z_norm2: float, tau: float, N: int, delta: float) -> float:
    """Y_delta = 2 B^2 (||Z||_2^2 + tau (N + 2 sqrt(N ln(1/delta)) + 2 ln(1/delta))).

    ||y||^2 <= Y_delta w.p. >= 1 - delta when ||lambda|| <= B (Laurent-Massart; RECONSTRUCTED).
    """
    B, tau = check_positive("B", B), check_positive("tau", tau)
    Z_norm2 = check_real("Z_norm2", Z_norm2, low=0.0)
    N, delta = check_int("N", N), check_prob("delta", delta)
    x = math.log(1 / delta)
    return 2 * B**2 * (Z_norm2 + tau * (N + 2 * math.sqrt(N * x) + 2 * x))


@finite_result(may_be_inf=True)
def iterations_needed(
    delta0: float, Y: float, K: int, lam_min_G: float, eps: float, rho: mpmath.mpf
) -> mpmath.mpf:
    """T >= ln(Delta(0) Y / (K lambda_min(G) eps)) / ln(1/rho): sufficient for (1/(2K))||y-hat - y-hat*||^2
    <= eps (eq. 21 re-derived; RECONSTRUCTED). Infinite (``mpmath.inf``) for rho = 1; 0 if already below."""
    delta0, Y = check_positive("delta0", delta0), check_positive("Y", Y)
    K, eps = check_int("K", K), check_positive("eps", eps)
    lam_min_G = check_positive("lam_min_G", lam_min_G)
    check_real_mp("rho", rho, low=0, high=1)
    with mpmath.workdps(DPS):
        num = mpmath.log(mp(delta0) * mp(Y) / (K * mp(lam_min_G) * mp(eps)))
        if num <= 0:
            return mp(0)
        r = mp(rho)
        if r >= 1:
            return mpmath.inf
        return num / -mpmath.log(r)


# ------------------------------------------------------------- Lemma 4, Fig. 3, LMMSE (DERIVED)


@finite_result
def lemma4_objective(Z: np.ndarray, y: np.ndarray, lam: np.ndarray, tau: float) -> np.ndarray:
    """(1/(2N)) ||y - Z^T lambda||^2 + (tau/2) ||lambda||^2 for lam: (g, m) -> (g,) (eq. 25)."""
    Z, _ = _zpair(Z)
    y = check_array("y", y, shape=(Z.shape[1],), match="Z")
    lam = check_array("lam", lam, shape=(None, Z.shape[0]), nonempty=True, match="Z")
    tau = check_positive("tau", tau)
    r = y[None, :] - lam @ Z
    return 0.5 * np.sum(r * r, axis=1) / Z.shape[1] + 0.5 * tau * np.sum(lam * lam, axis=1)


def _ridge_map(Z: np.ndarray, penalty: float) -> np.ndarray:
    return np.linalg.solve(Z @ Z.T + penalty * np.eye(Z.shape[0]), Z)


@finite_result
def fig3_gap(Z: np.ndarray, Z_Q: np.ndarray, tau: float) -> float:
    """(1/K) E ||y-hat* - y-hat_best||^2 = (1/K) tr(D G D^T), D = Z_Q^T (M_{m tau} - M_{N tau}),
    M_c = (Z Z^T + c I)^{-1} Z, under E[lambda lambda^T] = I (so E[y y^T] = G)."""
    Z, Z_Q = _zpair(Z, Z_Q)
    tau = check_positive("tau", tau)
    m, n = Z.shape
    K = n + Z_Q.shape[1]
    D = Z_Q.T @ (_ridge_map(Z, m * tau) - _ridge_map(Z, n * tau))
    return float(np.sum(D * (D @ gram(Z, tau))) / K)


@finite_result
def expected_error(Z: np.ndarray, Z_Q: np.ndarray, tau: float, penalty: float) -> float:
    """(1/K) E ||Z_Q^T (M y - lambda)||^2 = (1/K) tr(Z_Q^T [(M Z^T - I)(M Z^T - I)^T + m tau M M^T] Z_Q)
    for the ridge map M = (Z Z^T + penalty I)^{-1} Z under E[lambda lambda^T] = I."""
    Z, Z_Q = _zpair(Z, Z_Q)
    tau = check_positive("tau", tau)
    m, n = Z.shape
    K = n + Z_Q.shape[1]
    M = _ridge_map(Z, check_positive("penalty", penalty))
    E = M @ Z.T - np.eye(m)
    S = E @ E.T + m * tau * (M @ M.T)
    return float(np.sum(Z_Q * (S @ Z_Q)) / K)


# ---------------------------------------------------------- multi-head necessity (DERIVED, H = 1)


@finite_result
def orthant_floor(Zbar: np.ndarray, A: np.ndarray) -> float:
    """Lower bound on Delta for H = 1: a-hat_k = w_k s_k with s_k in the simplex lies in the closed
    nonnegative or nonpositive orthant, so Delta >= 1/2 sum_k min(NNLS(Zbar, Zbar A_k)^2,
    NNLS(Zbar, -Zbar A_k)^2). Positive whenever some A_k has entries of both signs."""
    Zbar = check_array("Zbar", Zbar, ndim=2, nonempty=True)
    A = check_array("A", A, shape=(Zbar.shape[1], None), nonempty=True, match="Zbar")
    total = 0.0
    for k in range(A.shape[1]):  # NNLS per column; not a training hot path
        b = Zbar @ A[:, k]
        if not np.all(np.isfinite(b)):
            raise OverflowError("Zbar A overflows float64")
        r_plus = nnls(Zbar, b)[1]
        r_minus = nnls(Zbar, -b)[1]
        total += min(r_plus, r_minus) ** 2
    return 0.5 * total
