"""The one-layer multi-head softmax transformer of Yang et al. 2024 (Sec. 2.2, eq. 8), float64.

Parameters :class:`Params`: ``Q`` (H, d, d), ``w`` (H, K). For head h and token k,
``s_k^h = softmax(V^T Q_h v_k)`` (N,), ``a-hat_k = sum_h w_{h,k} s_k^h``, ``y-hat_k = y^T a-hat_k``.
In matrix form ``S`` (H, N, K) with ``S[h, :, k] = s_k^h``, ``Ahat = sum_h S[h] * w[h]`` (N, K),
``C_k = S[:, :, k]^T`` (N, H), ``B_k = Zbar C_k``.

Loss: the closed form of Lemma 5, ``L = 1/2 tr(R^T G R) + L*`` with ``R = Ahat - A``. Gradients are
hand-derived (DERIVED, checked by finite differences): with ``GR = G R``,
``dL/dw_{h,k} = s_k^h . GR_k`` and ``dL/dQ_h = V dU_h V_all^T`` where
``dU_h[:, k] = w_{h,k} (diag(s) - s s^T) GR_k = w_{h,k} s * (GR_k - dL/dw_{h,k})``.
The hot path is vectorised over heads and tokens: four large GEMMs and elementwise work.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bounds import yang2024 as B
from bounds.checks import check_array, check_int, check_positive
from verify.numerics.model import ParamBlocks
from verify.numerics.softmax import softmax
from verify.yang2024.data import Problem


@dataclass(frozen=True)
class Params(ParamBlocks):
    """theta = {Q_h, w_h}: ``Q`` (H, d, d) query matrices, ``w`` (H, K) output weights."""

    Q: np.ndarray
    w: np.ndarray


def scores(Q: np.ndarray, problem: Problem) -> np.ndarray:
    """U[h] = V^T Q_h V_all, (H, N, K)."""
    H, d, _ = Q.shape
    P = np.matmul(problem.VT, Q)  # (H, N, d)
    return (P.reshape(H * problem.N, d) @ problem.V_all).reshape(H, problem.N, problem.K)


@dataclass(frozen=True)
class Transformer:
    """The H-head model of eq. (8) on a :class:`~verify.yang2024.data.Problem` (the paper's batch).

    H: number of heads; excess: the loss value is Delta = L - L* (computed directly, no cancellation
    against L*) instead of L. ``forward`` gives A-hat (N, K), the in-context map y-hat = A-hat^T y.
    """

    H: int
    excess: bool = False

    def __post_init__(self) -> None:
        check_int("H", self.H)

    def init(self, problem: Problem, beta: float, rng: np.random.Generator) -> Params:
        """Q_h(i, j) ~ N(0, beta^2) iid, w = 0 (Sec. 2.3)."""
        beta = check_positive("beta", beta)
        d, K = problem.d, problem.K
        return Params(Q=beta * rng.standard_normal((self.H, d, d)), w=np.zeros((self.H, K)))

    def _check(self, params: Params, problem: Problem) -> Params:
        Q = check_array("Q", params.Q, shape=(self.H, problem.d, problem.d))
        w = check_array("w", params.w, shape=(self.H, problem.K))
        return Params(Q, w)

    def attention(self, Q: np.ndarray, problem: Problem) -> np.ndarray:
        """S (H, N, K): column-wise softmax over the N prompt positions of the scores of Q (H', d, d)."""
        return softmax(scores(Q, problem), axis=1)

    def forward(self, params: Params, problem: Problem) -> np.ndarray:
        """A-hat(theta) = (a-hat_1, ..., a-hat_K), (N, K)."""
        th = self._check(params, problem)
        return np.einsum("hnk,hk->nk", self.attention(th.Q, problem), th.w)

    def predict(self, params: Params, problem: Problem, y_prompt: np.ndarray) -> np.ndarray:
        """y-hat = A-hat^T y for prompt labels y_prompt (n, N) -> (n, K)."""
        y = check_array("y_prompt", y_prompt, shape=(None, problem.N))
        return y @ self.forward(params, problem)

    def C_matrices(self, params: Params, problem: Problem) -> np.ndarray:
        """C_k = softmax(D_k) = (s_k^1, ..., s_k^H), stacked (K, N, H)."""
        return self.attention(self._check(params, problem).Q, problem).transpose(2, 1, 0)

    def B_matrices(self, params: Params, problem: Problem) -> np.ndarray:
        """B_k = Zbar C_k, stacked (K, N, H)."""
        return np.matmul(problem.Zbar, self.C_matrices(params, problem))

    def zeta(self, params: Params, problem: Problem) -> float:
        """min_k lambda_min(B_k B_k^T) at theta (zeta_0 at initialisation), via bounds.yang2024.zeta0."""
        return B.zeta0(self.B_matrices(params, problem))

    def excess_loss(self, params: Params, problem: Problem) -> float:
        """Delta = L - L* = 1/2 tr(R^T G R), computed directly (no cancellation against L*)."""
        R = self.forward(params, problem) - problem.A
        return float(0.5 * np.sum(R * (problem.G @ R)))

    def loss(self, params: Params, problem: Problem) -> float:
        """Closed-form population loss L(theta) (Lemma 5), or Delta when ``excess``; checked inputs."""
        if self.excess:
            return self.excess_loss(params, problem)
        return B.closed_form_loss(self.forward(params, problem), problem.A, problem.G, problem.Lstar)

    def loss_and_grad(self, params: Params, problem: Problem) -> tuple[float, Params]:
        """(L or Delta, Params(Q=dL/dQ (H, d, d), w=dL/dw (H, K))); see :meth:`loss_grad_attention`."""
        value, grads, _ = self.loss_grad_attention(params, problem)
        return value, grads

    def loss_grad_attention(self, params: Params, problem: Problem) -> tuple[float, Params, np.ndarray]:
        """(value, grads, S): :meth:`loss_and_grad` plus the attention S (H, N, K) at params (the
        per-step PL recorder of the GD runs reuses it). Inputs are not re-validated (hot path of GD)."""
        Q, w = params.Q, params.w
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
        if not self.excess:
            value += problem.Lstar
        return value, Params(Q=gQ, w=gw), S

    def lstsq_w(self, Q: np.ndarray, problem: Problem) -> np.ndarray:
        """w* solving min_w L(Q, w) at fixed Q: w*_{:,k} = C_k^+ A_{:,k} (exact when rank C_k = N). (H, K)."""
        C = self.attention(Q, problem).transpose(2, 1, 0)  # (K, N, H)
        # min_w ||Zbar (C w - A)|| = min ||C w - A|| when rank C = N; pinv gives the minimum-norm solution
        return np.einsum("khn,nk->hk", np.linalg.pinv(C), problem.A)
