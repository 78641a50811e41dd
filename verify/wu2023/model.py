"""Reference model of Wu et al. 2023 (arXiv 2311.01575), Eq. (1.2): a shallow encoder-only transformer.

For one sequence X (d_s x d), with the optional input scale s (NTK init, ``ntk_input_scale``)::

    Q, K, V = s X W_Q^T, s X W_K^T, s X W_V^T        (d_s x d_m)
    L = tau0 Q K^T,  S = softmax_rows(L)               (d_s x d_s)   [S = 11^T/d_s if ``pooling``]
    A = S V,  H = relu(A W_H^T)                        (d_s x d_m)   [W_H = I, fixed, if ``use_WH``]
    h = (1/d_s) H^T 1,  f = tau1 w_O^T h               (d_m,), scalar

Everything is batched over N examples: X has shape (N, d_s, d). Trained blocks: ``W_Q, W_K, W_V``
(d_m x d) and ``w_O`` (d_m,). Gradients are hand-derived (spec Sect. 1.3) and checked against finite
differences in ``tests/test_wu2023_model.py``; the per-example Jacobian and the empirical NTK
``K = J J^T`` are computed two independent ways (per-block Gram contraction and explicit Jacobian).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from bounds import wu2023 as B
from bounds.checks import check_array, check_choice, check_int, check_positive
from verify.numerics.softmax import softmax, softmax_vjp

BLOCKS = ("W_Q", "W_K", "W_V", "w_O")
Params = dict[str, np.ndarray]


@dataclass(frozen=True)
class Config:
    """Model configuration (spec Sect. 8, implementation notes).

    d: token dimension; d_s: tokens per sequence; d_m: width (rows of W_Q, W_K, W_V);
    tau0_power: 0.5 (tau0 = d_m^-1/2, Thm 1) or 1.0 (tau0 = d_m^-1, Thm 2); init: "lecun" | "he" |
    "ntk" (fixes the variances and tau1, ``bounds.wu2023.init_variances``); loss_norm: "sum"
    (1/2 sum_n r_n^2) or "mean" (1/(2N) sum_n r_n^2); ntk_input_scale: multiply X by d^-1/2 under NTK
    init (NOT RECOVERED in the paper, a flag); use_WH: insert the fixed identity W_H after attention
    (the paper's formulation, equivalent in value); pooling: replace S by (1/d_s) 11^T (reviewer
    question; the Q/K gradients are then zero); tau0_mult: multiplies tau0 (1 in every claim; the
    invariance tests rescale tau0 against W_Q with it).
    """

    d: int
    d_s: int
    d_m: int
    tau0_power: float = 0.5
    init: str = "lecun"
    loss_norm: str = "sum"
    ntk_input_scale: bool = False
    use_WH: bool = False
    pooling: bool = False
    tau0_mult: float = 1.0

    def __post_init__(self) -> None:
        check_int("d", self.d)
        check_int("d_s", self.d_s)
        check_int("d_m", self.d_m)
        check_choice("tau0_power", self.tau0_power, (0.5, 1.0, 1))
        check_choice("init", self.init, B.INITS)
        check_choice("loss_norm", self.loss_norm, ("sum", "mean"))
        check_positive("tau0_mult", self.tau0_mult)

    @property
    def tau0(self) -> float:
        return self.tau0_mult * B.tau0(self.d_m, self.tau0_power)

    @property
    def tau1(self) -> float:
        return B.init_variances(self.init, self.d, self.d_m).tau1

    @property
    def input_scale(self) -> float:
        return 1.0 / math.sqrt(self.d) if (self.init == "ntk" and self.ntk_input_scale) else 1.0

    def with_(self, **kw: object) -> Config:
        return replace(self, **kw)


class Cache(NamedTuple):
    """Forward intermediates (N = examples). Xs: (N, d_s, d) scaled input; Q, K: None (see
    :func:`forward`); V, A: (N, d_s, d_m); S: (N, d_s, d_s); D: (N, d_s, d_m) boolean ReLU mask
    1[A W_H^T > 0]; h: (N, d_m); f: (N,)."""

    Xs: np.ndarray
    Q: np.ndarray | None
    K: np.ndarray | None
    V: np.ndarray
    S: np.ndarray
    A: np.ndarray
    D: np.ndarray
    h: np.ndarray
    f: np.ndarray


def check_inputs(cfg: Config, X: np.ndarray, y: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    X = check_array("X", X, ndim=3, shape=(None, cfg.d_s, cfg.d))
    if y is None:
        return (X,)
    y = check_array("y", y, ndim=1, shape=(X.shape[0],))
    return X, y


def init_params(cfg: Config, rng: np.random.Generator) -> Params:
    """Gaussian initialisation of ``cfg.init`` (variances: ``bounds.wu2023.init_variances``)."""
    v = B.init_variances(cfg.init, cfg.d, cfg.d_m)
    return {
        "W_Q": rng.standard_normal((cfg.d_m, cfg.d)) * math.sqrt(v.eta_Q),
        "W_K": rng.standard_normal((cfg.d_m, cfg.d)) * math.sqrt(v.eta_K),
        "W_V": rng.standard_normal((cfg.d_m, cfg.d)) * math.sqrt(v.eta_V),
        "w_O": rng.standard_normal(cfg.d_m) * math.sqrt(v.eta_O),
    }


def _WH(cfg: Config) -> np.ndarray:
    return np.eye(cfg.d_m)


def forward(cfg: Config, params: Params, X: np.ndarray) -> Cache:
    """Batched forward pass; X: (N, d_s, d). Returns the :class:`Cache` (f: (N,)).

    The logits use L_n = tau0 X_n (W_Q^T W_K) X_n^T (a d x d product instead of the two d_s x d_m
    projections Q, K; equal to tau0 Q_n K_n^T in exact arithmetic), so Q and K are left as None and
    built only where per-example Q/K gradients are needed (:func:`jacobian_blocks`, :func:`ntk_blocks`).
    """
    N = X.shape[0]
    Xs = X * cfg.input_scale if cfg.input_scale != 1.0 else X
    flat = Xs.reshape(N * cfg.d_s, cfg.d)
    V = (flat @ params["W_V"].T).reshape(N, cfg.d_s, cfg.d_m)
    if cfg.pooling:
        S = np.full((N, cfg.d_s, cfg.d_s), 1.0 / cfg.d_s)
        A = np.broadcast_to(V.mean(axis=1, keepdims=True), V.shape).copy()
    else:
        XM = (flat @ (params["W_Q"].T @ params["W_K"])).reshape(N, cfg.d_s, cfg.d)
        S = softmax(cfg.tau0 * (XM @ Xs.transpose(0, 2, 1)), axis=-1)
        A = S @ V
    pre = A @ _WH(cfg).T if cfg.use_WH else A
    D = pre > 0
    h = np.maximum(pre, 0.0).mean(axis=1)
    f = cfg.tau1 * (h @ params["w_O"])
    return Cache(Xs, None, None, V, S, A, D, h, f)


def _upstream(cfg: Config, params: Params, c: Cache, coef: np.ndarray) -> np.ndarray:
    """G = d(sum_n coef_n f_n)/dA: (N, d_s, d_m) = (tau1/d_s) coef_n w_O * 1[pre > 0] (W_H)."""
    G = c.D * ((cfg.tau1 / cfg.d_s) * coef[:, None] * params["w_O"][None, :])[:, None, :]
    return G @ _WH(cfg) if cfg.use_WH else G


def _per_example_backward(
    cfg: Config, params: Params, c: Cache, coef: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dQ, dK, dV (each (N, d_s, d_m)): derivatives of sum_n coef_n f_n w.r.t. Q_n, K_n, V_n
    (spec Sect. 1.3, with Q and K formed explicitly)."""
    G = _upstream(cfg, params, c, coef)
    dV = c.S.transpose(0, 2, 1) @ G
    if cfg.pooling:
        z = np.zeros_like(dV)
        return z, z, dV
    N = c.Xs.shape[0]
    flat = c.Xs.reshape(N * cfg.d_s, cfg.d)
    Q = (flat @ params["W_Q"].T).reshape(N, cfg.d_s, cfg.d_m)
    K = (flat @ params["W_K"].T).reshape(N, cfg.d_s, cfg.d_m)
    G_L = softmax_vjp(c.S, G @ c.V.transpose(0, 2, 1), axis=-1)
    dQ = cfg.tau0 * (G_L @ K)
    dK = cfg.tau0 * (G_L.transpose(0, 2, 1) @ Q)
    return dQ, dK, dV


def _contract(dB: np.ndarray, Xs: np.ndarray) -> np.ndarray:
    """sum_n dB_n^T X_n: (N, d_s, m), (N, d_s, d) -> (m, d), as one BLAS product."""
    N, d_s, m = dB.shape
    return dB.reshape(N * d_s, m).T @ Xs.reshape(N * d_s, -1)


def dloss_df(cfg: Config, f: np.ndarray, y: np.ndarray) -> np.ndarray:
    r = f - y
    return r / y.shape[0] if cfg.loss_norm == "mean" else r


def loss_value(cfg: Config, f: np.ndarray, y: np.ndarray) -> float:
    s = 0.5 * float(np.sum((f - y) ** 2))
    return s / y.shape[0] if cfg.loss_norm == "mean" else s


def loss(cfg: Config, params: Params, X: np.ndarray, y: np.ndarray) -> float:
    return loss_value(cfg, forward(cfg, params, X).f, y)


def loss_and_grad(
    cfg: Config, params: Params, X: np.ndarray, y: np.ndarray, cache: Cache | None = None
) -> tuple[float, Params]:
    """Squared loss (``cfg.loss_norm``) and its gradient per block (same shapes as params)."""
    c = forward(cfg, params, X) if cache is None else cache
    g = dloss_df(cfg, c.f, y)
    G = _upstream(cfg, params, c, g)
    # dW_V = sum_n G_n^T S_n X_n; dW_Q = tau0 W_K sum_n X_n^T G_L,n^T X_n; dW_K = tau0 W_Q (...)^T
    grads = {"W_V": _contract(G, c.S @ c.Xs), "w_O": cfg.tau1 * (c.h.T @ g)}
    if cfg.pooling:
        grads["W_Q"] = np.zeros_like(params["W_Q"])
        grads["W_K"] = np.zeros_like(params["W_K"])
    else:
        G_L = softmax_vjp(c.S, G @ c.V.transpose(0, 2, 1), axis=-1)
        M_Q = _contract(G_L.transpose(0, 2, 1) @ c.Xs, c.Xs).T  # sum_n X_n^T G_L,n^T X_n  (d x d)
        grads["W_Q"] = cfg.tau0 * (params["W_K"] @ M_Q)
        grads["W_K"] = cfg.tau0 * (params["W_Q"] @ M_Q.T)
    return loss_value(cfg, c.f, y), {b: grads[b] for b in BLOCKS}


def jacobian_blocks(cfg: Config, params: Params, X: np.ndarray) -> dict[str, np.ndarray]:
    """Per-example gradients of f: W_Q, W_K, W_V -> (N, d_m, d); w_O -> (N, d_m)."""
    c = forward(cfg, params, X)
    dQ, dK, dV = _per_example_backward(cfg, params, c, np.ones(X.shape[0]))
    out = {b: np.einsum("nsm,nsd->nmd", dB, c.Xs) for b, dB in zip(BLOCKS[:3], (dQ, dK, dV), strict=True)}
    out["w_O"] = cfg.tau1 * c.h
    return out


def jacobian(cfg: Config, params: Params, X: np.ndarray) -> np.ndarray:
    """J: (N, P), P = 3 d_m d + d_m, columns in the order W_Q, W_K, W_V, w_O (row-major)."""
    jb = jacobian_blocks(cfg, params, X)
    N = X.shape[0]
    return np.concatenate([jb[b].reshape(N, -1) for b in BLOCKS], axis=1)


def ntk_blocks(cfg: Config, params: Params, X: np.ndarray) -> dict[str, np.ndarray]:
    """Per-block empirical NTK (each (N, N)) by Gram contraction, without forming J:
    K_b[n, m] = sum_{s,t} (dB_n dB_m^T)[s, t] (X_n X_m^T)[s, t] and K_O = tau1^2 h h^T."""
    c = forward(cfg, params, X)
    N, d_s = X.shape[0], cfg.d_s
    dQ, dK, dV = _per_example_backward(cfg, params, c, np.ones(N))
    flatX = c.Xs.reshape(N * d_s, cfg.d)
    XX = (flatX @ flatX.T).reshape(N, d_s, N, d_s)
    out = {}
    for b, dB in zip(BLOCKS[:3], (dQ, dK, dV), strict=True):
        fl = dB.reshape(N * d_s, cfg.d_m)
        out[b] = np.einsum("nsmt,nsmt->nm", (fl @ fl.T).reshape(N, d_s, N, d_s), XX)
    out["w_O"] = cfg.tau1**2 * (c.h @ c.h.T)
    return out


def ntk(cfg: Config, params: Params, X: np.ndarray, method: str = "contract") -> np.ndarray:
    """Empirical NTK K = J J^T (N, N); ``method`` "contract" (per-block Gram) or "jacobian"."""
    check_choice("method", method, ("contract", "jacobian"))
    if method == "jacobian":
        J = jacobian(cfg, params, X)
        return J @ J.T
    return sum(ntk_blocks(cfg, params, X).values())


def features(cfg: Config, params: Params, X: np.ndarray) -> np.ndarray:
    """F_pre: (N, d_m), row n = h(X_n) (without tau1)."""
    return forward(cfg, params, X).h


def sigma_min_sq(F: np.ndarray) -> float:
    """sigma_min(F)^2 for F (N, P) with P >= N, from eigvalsh of the N x N Gram (spec Sect. 8)."""
    return float(max(np.linalg.eigvalsh(F @ F.T)[0], 0.0))


def flat(params: Params) -> np.ndarray:
    return np.concatenate([params[b].ravel() for b in BLOCKS])
