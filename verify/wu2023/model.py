"""Reference model of Wu et al. 2023 (arXiv 2311.01575), Eq. (1.2): a shallow encoder-only transformer.

For one sequence X (d_s x d), with the optional input scale s (NTK init, ``ntk_input_scale``)::

    Q, K, V = s X W_Q^T, s X W_K^T, s X W_V^T        (d_s x d_m)
    L = tau0 Q K^T,  S = softmax_rows(L)               (d_s x d_s)   [S = 11^T/d_s if ``pooling``]
    A = S V,  H = relu(A W_H^T)                        (d_s x d_m)   [W_H = I, fixed, if ``use_WH``]
    h = (1/d_s) H^T 1,  f = tau1 w_O^T h               (d_m,), scalar

Everything is batched over the N examples of a :class:`~verify.wu2023.data.Batch` (X: (N, d_s, d)).
Trained blocks (:class:`Params`): ``W_Q, W_K, W_V`` (d_m x d) and ``w_O`` (d_m,). Gradients are
hand-derived and checked against finite differences in ``tests/test_wu2023_model.py``; the
per-example Jacobian and the empirical NTK ``K = J J^T`` are computed two independent ways
(per-block Gram contraction and explicit Jacobian).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property
from typing import NamedTuple

import numpy as np

from bounds import wu2023 as B
from bounds.checks import check_array, check_choice, check_int, check_positive
from verify.numerics.buffers import WorkBuffers
from verify.numerics.model import ParamBlocks
from verify.numerics.softmax import softmax, softmax_vjp
from verify.wu2023 import data as D

BLOCKS = ("W_Q", "W_K", "W_V", "w_O")
#: work arrays of the temporaries of a forward / backward pass that never leave it (no fresh pages per call)
_WORK = WorkBuffers()


@dataclass(frozen=True)
class Params(ParamBlocks):
    """The trained blocks: W_Q, W_K, W_V (d_m, d) and w_O (d_m,), float64."""

    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    w_O: np.ndarray

    def flat(self) -> np.ndarray:
        """All blocks as one vector (P = 3 d_m d + d_m), in the order W_Q, W_K, W_V, w_O (row-major)."""
        return np.concatenate([getattr(self, b).ravel() for b in BLOCKS])


class Cache(NamedTuple):
    """Forward intermediates (N = examples). Xs: (N, d_s, d) scaled input; V, A: (N, d_s, d_m);
    S: (N, d_s, d_s); D: (N, d_s, d_m) boolean ReLU mask 1[A W_H^T > 0]; h: (N, d_m); f: (N,).
    Q and K are not formed (see :meth:`ShallowTransformer.forward`)."""

    Xs: np.ndarray
    V: np.ndarray
    S: np.ndarray
    A: np.ndarray
    D: np.ndarray
    h: np.ndarray
    f: np.ndarray


@dataclass(frozen=True)
class ShallowTransformer:
    """The model at a fixed configuration; implements :class:`verify.numerics.model.Model`.

    d: token dimension; d_s: tokens per sequence; d_m: width (rows of W_Q, W_K, W_V);
    tau0_power: 0.5 (tau0 = d_m^-1/2, Thm 1) or 1.0 (tau0 = d_m^-1, Thm 2); init: "lecun" | "he" |
    "ntk" | "mf" (mean field, not one of the paper's; fixes the variances and tau1,
    ``bounds.wu2023.init_variances``); loss_norm: "sum"
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
        check_choice("init", self.init, (*B.INITS, B.MEAN_FIELD))
        check_choice("loss_norm", self.loss_norm, ("sum", "mean"))
        check_positive("tau0_mult", self.tau0_mult)

    # tau0 and tau1 are read at every forward and backward pass; the configuration is frozen, so each is
    # computed once per instance (the checked bounds functions cost more than a small model's pass)
    @cached_property
    def tau0(self) -> float:
        return self.tau0_mult * B.tau0(self.d_m, self.tau0_power)

    @cached_property
    def tau1(self) -> float:
        return B.init_variances(self.init, self.d, self.d_m).tau1

    @property
    def input_scale(self) -> float:
        return 1.0 / math.sqrt(self.d) if (self.init == "ntk" and self.ntk_input_scale) else 1.0

    def with_(self, **kw: object) -> ShallowTransformer:
        return replace(self, **kw)

    def check_inputs(self, batch: D.Batch) -> D.Batch:
        """``batch`` if its tokens have this model's shape (N, d_s, d); ValueError otherwise."""
        check_array("X", batch.X, shape=(None, self.d_s, self.d))
        return batch

    def init_params(self, rng: np.random.Generator) -> Params:
        """Gaussian initialisation of ``init`` (variances: ``bounds.wu2023.init_variances``)."""
        v = B.init_variances(self.init, self.d, self.d_m)
        return Params(
            W_Q=rng.standard_normal((self.d_m, self.d)) * math.sqrt(v.eta_Q),
            W_K=rng.standard_normal((self.d_m, self.d)) * math.sqrt(v.eta_K),
            W_V=rng.standard_normal((self.d_m, self.d)) * math.sqrt(v.eta_V),
            w_O=rng.standard_normal(self.d_m) * math.sqrt(v.eta_O),
        )

    def _WH(self) -> np.ndarray:
        return np.eye(self.d_m)

    def forward(self, params: Params, batch: D.Batch) -> Cache:
        """Batched forward pass over batch.X (N, d_s, d). Returns the :class:`Cache` (f: (N,)).

        The logits use L_n = tau0 X_n (W_Q^T W_K) X_n^T (a d x d product instead of the two
        d_s x d_m projections Q, K; equal to tau0 Q_n K_n^T in exact arithmetic), so Q and K are
        built only where per-example Q/K gradients are needed (:meth:`jacobian_blocks`, :meth:`ntk_blocks`).

        Runs on a leading axis (S runs, e.g. one per seed: X (S, N, d_s, d), blocks (S, d_m, d) and
        (S, d_m), y (S, N)) by the same code: every product is ``np.matmul`` of stacked arrays (one BLAS
        call per run) and every reduction runs over trailing axes, so each run's slice is computed by
        exactly the floating-point operations of its own unbatched call (``verify/test_batched.py``).
        """
        Xs = batch.X * self.input_scale if self.input_scale != 1.0 else batch.X
        *lead, N, d_s, d = Xs.shape
        flat = Xs.reshape(*lead, N * d_s, d)
        V = (flat @ _T(params.W_V)).reshape(*lead, N, d_s, self.d_m)
        if self.pooling:
            S = np.full((*lead, N, d_s, d_s), 1.0 / d_s)
            A = np.broadcast_to(V.mean(axis=-2, keepdims=True), V.shape).copy()
        else:
            XM = (flat @ (_T(params.W_Q) @ params.W_K)).reshape(*lead, N, d_s, d)
            S = softmax(self.tau0 * (XM @ _T(Xs)), axis=-1)
            A = S @ V
        pre = A @ _T(self._WH()) if self.use_WH else A
        mask = pre > 0
        h = np.maximum(pre, 0.0, out=_WORK.get("relu", pre.shape)).mean(axis=-2)
        f = self.tau1 * (h @ params.w_O[..., None])[..., 0]
        return Cache(Xs, V, S, A, mask, h, f)

    def _upstream(self, params: Params, c: Cache, coef: np.ndarray) -> np.ndarray:
        """G = d(sum_n coef_n f_n)/dA: ([S,] N, d_s, d_m) = (tau1/d_s) coef_n w_O * 1[pre > 0] (W_H)."""
        G = np.multiply(
            c.D,
            ((self.tau1 / self.d_s) * coef[..., :, None] * params.w_O[..., None, :])[..., None, :],
            out=_WORK.get("G", c.D.shape),
        )
        return G @ self._WH() if self.use_WH else G

    def _per_example_backward(
        self, params: Params, c: Cache, coef: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """dQ, dK, dV (each (N, d_s, d_m)): derivatives of sum_n coef_n f_n w.r.t. Q_n, K_n, V_n
        (with Q and K formed explicitly)."""
        G = self._upstream(params, c, coef)
        dV = _T(c.S) @ G
        if self.pooling:
            z = np.zeros_like(dV)
            return z, z, dV
        *lead, N, d_s, d = c.Xs.shape
        flat = c.Xs.reshape(*lead, N * d_s, d)
        Q = (flat @ _T(params.W_Q)).reshape(*lead, N, d_s, self.d_m)
        K = (flat @ _T(params.W_K)).reshape(*lead, N, d_s, self.d_m)
        G_L = softmax_vjp(c.S, G @ _T(c.V), axis=-1)
        dQ = self.tau0 * (G_L @ K)
        dK = self.tau0 * (_T(G_L) @ Q)
        return dQ, dK, dV

    def dloss_df(self, f: np.ndarray, y: np.ndarray) -> np.ndarray:
        r = f - y
        return r / y.shape[-1] if self.loss_norm == "mean" else r

    def loss_value(self, f: np.ndarray, y: np.ndarray) -> float | np.ndarray:
        """The loss of outputs f against targets y (N,); with a leading run axis (S, N) one loss per run."""
        s = 0.5 * np.sum((f - y) ** 2, axis=-1)
        s = s / y.shape[-1] if self.loss_norm == "mean" else s
        return float(s) if s.ndim == 0 else s

    def loss(self, params: Params, batch: D.Batch) -> float | np.ndarray:
        return self.loss_value(self.forward(params, batch).f, batch.y)

    def loss_and_grad(
        self, params: Params, batch: D.Batch, cache: Cache | None = None
    ) -> tuple[float | np.ndarray, Params]:
        """Squared loss (``loss_norm``) and its gradient (a :class:`Params`); ``cache``: this
        batch's forward pass when the caller has it. On a leading run axis (:meth:`forward`): the
        loss per run (S,) and gradient blocks (S, ...)."""
        c = self.forward(params, batch) if cache is None else cache
        g = self.dloss_df(c.f, batch.y)
        G = self._upstream(params, c, g)
        # dW_V = sum_n G_n^T S_n X_n; dW_Q = tau0 W_K sum_n X_n^T G_L,n^T X_n; dW_K = tau0 W_Q (...)^T
        W_V, w_O = _contract(G, c.S @ c.Xs), self.tau1 * (_T(c.h) @ g[..., None])[..., 0]
        if self.pooling:
            W_Q, W_K = np.zeros_like(params.W_Q), np.zeros_like(params.W_K)
        else:
            G_L = softmax_vjp(c.S, G @ _T(c.V), axis=-1)
            M_Q = _T(_contract(_T(G_L) @ c.Xs, c.Xs))  # sum_n X_n^T G_L,n^T X_n  (d x d)
            W_Q, W_K = self.tau0 * (params.W_K @ M_Q), self.tau0 * (params.W_Q @ _T(M_Q))
        return self.loss_value(c.f, batch.y), Params(W_Q=W_Q, W_K=W_K, W_V=W_V, w_O=w_O)

    def jacobian_blocks(self, params: Params, batch: D.Batch) -> dict[str, np.ndarray]:
        """Per-example gradients of f: W_Q, W_K, W_V -> (N, d_m, d); w_O -> (N, d_m)."""
        c = self.forward(params, batch)
        dQ, dK, dV = self._per_example_backward(params, c, np.ones(batch.N))
        out = {b: np.einsum("nsm,nsd->nmd", dB, c.Xs) for b, dB in zip(BLOCKS[:3], (dQ, dK, dV), strict=True)}
        out["w_O"] = self.tau1 * c.h
        return out

    def jacobian(self, params: Params, batch: D.Batch) -> np.ndarray:
        """J: (N, P), P = 3 d_m d + d_m, columns in the order of :meth:`Params.flat`."""
        jb = self.jacobian_blocks(params, batch)
        return np.concatenate([jb[b].reshape(batch.N, -1) for b in BLOCKS], axis=1)

    def ntk_blocks(self, params: Params, batch: D.Batch) -> dict[str, np.ndarray]:
        """Per-block empirical NTK (each (N, N)) by Gram contraction, without forming J:
        K_b[n, m] = sum_{s,t} (dB_n dB_m^T)[s, t] (X_n X_m^T)[s, t] and K_O = tau1^2 h h^T."""
        c = self.forward(params, batch)
        N, d_s = batch.N, self.d_s
        dQ, dK, dV = self._per_example_backward(params, c, np.ones(N))
        flatX = c.Xs.reshape(N * d_s, self.d)
        XX = (flatX @ flatX.T).reshape(N, d_s, N, d_s)
        out = {}
        for b, dB in zip(BLOCKS[:3], (dQ, dK, dV), strict=True):
            fl = dB.reshape(N * d_s, self.d_m)
            out[b] = np.einsum("nsmt,nsmt->nm", (fl @ fl.T).reshape(N, d_s, N, d_s), XX)
        out["w_O"] = self.tau1**2 * (c.h @ c.h.T)
        return out

    def ntk(self, params: Params, batch: D.Batch, method: str = "contract") -> np.ndarray:
        """Empirical NTK K = J J^T (N, N); ``method`` "contract" (per-block Gram) or "jacobian"."""
        check_choice("method", method, ("contract", "jacobian"))
        if method == "jacobian":
            J = self.jacobian(params, batch)
            return J @ J.T
        return sum(self.ntk_blocks(params, batch).values())

    def features(self, params: Params, batch: D.Batch) -> np.ndarray:
        """F_pre: (N, d_m), row n = h(X_n) (without tau1)."""
        return self.forward(params, batch).h


def _T(a: np.ndarray) -> np.ndarray:
    """The transpose of the last two axes (of each run's matrix on a leading run axis)."""
    return np.swapaxes(a, -1, -2)


def _contract(dB: np.ndarray, Xs: np.ndarray) -> np.ndarray:
    """sum_n dB_n^T X_n: ([S,] N, d_s, m), ([S,] N, d_s, d) -> ([S,] m, d), one BLAS product per run."""
    *lead, N, d_s, m = dB.shape
    return _T(dB.reshape(*lead, N * d_s, m)) @ Xs.reshape(*lead, N * d_s, Xs.shape[-1])


def sigma_min_sq(F: np.ndarray) -> float | np.ndarray:
    """sigma_min(F)^2 for F (N, P) with P >= N, from eigvalsh of the N x N Gram; per run for F (S, N, P)."""
    s = np.maximum(np.linalg.eigvalsh(F @ _T(F))[..., 0], 0.0)
    return float(s) if s.ndim == 0 else s
