"""The one-layer multi-head softmax transformer of Yang et al. 2024 (Sec. 2.2, eq. 8), float64.

Parameters theta = {"Q": (H, d, d), "w": (H, K)}. For head h and token k,
``s_k^h = softmax(V^T Q_h v_k)`` (N,), ``a-hat_k = sum_h w_{h,k} s_k^h``, ``y-hat_k = y^T a-hat_k``.
In matrix form ``S`` (H, N, K) with ``S[h, :, k] = s_k^h``, ``Ahat = sum_h S[h] * w[h]`` (N, K),
``C_k = S[:, :, k]^T`` (N, H), ``B_k = Zbar C_k``.

Loss: the closed form of Lemma 5, ``L = 1/2 tr(R^T G R) + L*`` with ``R = Ahat - A``. Gradients are
hand-derived (spec Sec. 3.2): with ``GR = G R``,
``dL/dw_{h,k} = s_k^h . GR_k`` and ``dL/dQ_h = V dU_h V_all^T`` where
``dU_h[:, k] = w_{h,k} (diag(s) - s s^T) GR_k = w_{h,k} s * (GR_k - dL/dw_{h,k})``.
The hot path is vectorised over heads and tokens: four large GEMMs and elementwise work.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from bounds import yang2024 as B
from bounds.checks import check_array, check_int, check_positive
from verify.numerics.softmax import softmax
from verify.yang2024.data import Problem

Params = Mapping[str, np.ndarray]


def init_params(H: int, problem: Problem, beta: float, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Q_h(i, j) ~ N(0, beta^2) iid, w = 0 (Sec. 2.3)."""
    H = check_int("H", H)
    beta = check_positive("beta", beta)
    d, K = problem.d, problem.K
    return {"Q": beta * rng.standard_normal((H, d, d)), "w": np.zeros((H, K))}


def _check(params: Params, problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    Q = check_array("Q", params["Q"], shape=(None, problem.d, problem.d))
    w = check_array("w", params["w"], shape=(Q.shape[0], problem.K))
    return Q, w


def scores(Q: np.ndarray, problem: Problem) -> np.ndarray:
    """U[h] = V^T Q_h V_all, (H, N, K)."""
    H, d, _ = Q.shape
    P = np.matmul(problem.VT, Q)  # (H, N, d)
    return (P.reshape(H * problem.N, d) @ problem.V_all).reshape(H, problem.N, problem.K)


def attention(Q: np.ndarray, problem: Problem) -> np.ndarray:
    """S (H, N, K): column-wise softmax over the N prompt positions."""
    return softmax(scores(Q, problem), axis=1)


def ahat(params: Params, problem: Problem) -> np.ndarray:
    """A-hat(theta) = (a-hat_1, ..., a-hat_K), (N, K)."""
    Q, w = _check(params, problem)
    return np.einsum("hnk,hk->nk", attention(Q, problem), w)


def predict(params: Params, problem: Problem, y_prompt: np.ndarray) -> np.ndarray:
    """y-hat = A-hat^T y for prompt labels y_prompt (n, N) -> (n, K)."""
    y = check_array("y_prompt", y_prompt, shape=(None, problem.N))
    return y @ ahat(params, problem)


def C_matrices(params: Params, problem: Problem) -> np.ndarray:
    """C_k = softmax(D_k) = (s_k^1, ..., s_k^H), stacked (K, N, H)."""
    Q, _ = _check(params, problem)
    return attention(Q, problem).transpose(2, 1, 0)


def B_matrices(params: Params, problem: Problem) -> np.ndarray:
    """B_k = Zbar C_k, stacked (K, N, H)."""
    return np.matmul(problem.Zbar, C_matrices(params, problem))


def zeta(params: Params, problem: Problem) -> float:
    """min_k lambda_min(B_k B_k^T) at theta (zeta_0 at initialisation), via bounds.yang2024.zeta0."""
    return B.zeta0(B_matrices(params, problem))


def excess_loss(params: Params, problem: Problem) -> float:
    """Delta = L - L* = 1/2 tr(R^T G R), computed directly (no cancellation against L*)."""
    R = ahat(params, problem) - problem.A
    return float(0.5 * np.sum(R * (problem.G @ R)))


def loss(params: Params, problem: Problem) -> float:
    """Closed-form population loss L(theta) (Lemma 5)."""
    return B.closed_form_loss(ahat(params, problem), problem.A, problem.G, problem.Lstar)


def loss_and_grad(
    params: Params, problem: Problem, *, excess: bool = False, cache: dict | None = None
) -> tuple[float, dict[str, np.ndarray]]:
    """(L, {"Q": dL/dQ (H, d, d), "w": dL/dw (H, K)}); with excess=True the value is Delta = L - L*.

    cache: if given, receives cache["S"] = S (H, N K) at params (reused by per-step recorders).
    Inputs are not re-validated here (hot path of GD); use :func:`loss` for a checked evaluation.
    """
    Q, w = params["Q"], params["w"]
    H, d, _ = Q.shape
    N, K = problem.N, problem.K
    S = softmax(scores(Q, problem), axis=1, overwrite=True)  # (H, N, K)
    R = np.einsum("hnk,hk->nk", S, w) - problem.A
    GR = problem.G @ R
    value = 0.5 * float(np.vdot(R, GR))
    gw = np.einsum("hnk,nk->hk", S, GR)
    # softmax backward, using sum_n s_n (w GR_n) = w * gw:  dU = w s (GR - gw)
    dU = S * (GR[None, :, :] - gw[:, None, :])
    dU *= w[:, None, :]
    X = dU.reshape(H * N, K) @ problem.V_allT  # (H*N, d) = dU_h V_all^T
    gQ = np.matmul(problem.V, X.reshape(H, N, d))  # (H, d, d)
    if not excess:
        value += problem.Lstar
    if cache is not None:
        cache["S"] = S
    return value, {"Q": gQ, "w": gw}


def lstsq_w(Q: np.ndarray, problem: Problem) -> np.ndarray:
    """w* solving min_w L(Q, w) at fixed Q: w*_{:,k} = C_k^+ A_{:,k} (exact when rank C_k = N). (H, K)."""
    C = attention(Q, problem).transpose(2, 1, 0)  # (K, N, H)
    # min_w ||Zbar (C w - A)|| = min ||C w - A|| when rank C = N; pinv gives the minimum-norm solution
    return np.einsum("khn,nk->hk", np.linalg.pinv(C), problem.A)
