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

import math
import weakref
from dataclasses import dataclass, field

import numpy as np

from bounds import yang2024 as B
from bounds.checks import check_array, check_int, check_positive
from verify.numerics.buffers import WorkBuffers
from verify.numerics.model import ParamBlocks
from verify.numerics.softmax import SHIFT_FREE, softmax  # unshifted, w / z stays finite for |w| < 1e170
from verify.yang2024.data import Problem

#: scores per chunk of heads in the hot path (1 MB): a chunk's scores and its dU stay in a 2 MB L2 cache
CHUNK = 1 << 17
#: the hot path keeps S w in place of exp(U) when every |w_hk| is at least this: dL/dw is then recovered
#: from sum_n S w GR by a division by w, exact to rounding while S w stays far from underflow; smaller or
#: zero weights (GD starts at w = 0) take the unscaled route
W_SCALED = 2.0**-100

_WORK = WorkBuffers()
_TOKEN_NORMS: dict[int, tuple[weakref.ref, float]] = {}
_ONES: dict[tuple[int, ...], np.ndarray] = {}


def heads_per_chunk(H: int, N: int, K: int) -> int:
    """Heads per chunk of the hot path: the H heads split evenly into chunks of at most about
    :data:`CHUNK` scores (N K per head)."""
    return -(-H // -(-H * N * K // CHUNK))


def _max_token_norm(V_all: np.ndarray) -> float:
    """max_k ||v_k|| of the dictionary (d, K), cached per array while it is alive (a Problem's arrays are
    not modified after construction: G, A and the transposed copies are derived from them once)."""
    key = id(V_all)
    hit = _TOKEN_NORMS.get(key)
    if hit is None or hit[0]() is not V_all:
        norm = float(np.sqrt(np.max(np.einsum("ij,ij->j", V_all, V_all))))
        hit = (weakref.ref(V_all, lambda _, k=key: _TOKEN_NORMS.pop(k, None)), norm)
        _TOKEN_NORMS[key] = hit
    return hit[1]


def _scores_bounded(P: np.ndarray, token_norm: float) -> bool:
    """True when every score U_hnk = P_hn . v_k is known to lie in [-SHIFT_FREE, SHIFT_FREE]: |U_hnk| <=
    ||P_h||_F max_k ||v_k|| <= ||P||_F max_k ||v_k||. P: (H, N d). False for non-finite P."""
    bound = SHIFT_FREE / token_norm if token_norm > 0 else math.inf
    if float(np.vdot(P, P)) <= bound * bound:
        return True
    return bool(np.maximum.reduce(np.matmul(P[:, None, :], P[:, :, None]), axis=None) <= bound * bound)


@dataclass(frozen=True)
class Params(ParamBlocks):
    """theta = {Q_h, w_h}: ``Q`` (H, d, d) query matrices, ``w`` (H, K) output weights."""

    Q: np.ndarray
    w: np.ndarray


@dataclass(frozen=True)
class ProblemBatch:
    """S problems of one shape, their constants stacked on a leading axis for
    :meth:`Transformer.loss_grad_batched`: VT (S, N, d), V_all (S, d, K), V (S, d, N), G (S, N, N),
    A (S, N, K), Lstar (S,), token_norms (S,)."""

    problems: tuple[Problem, ...]
    VT: np.ndarray = field(init=False, repr=False)
    V_all: np.ndarray = field(init=False, repr=False)
    V: np.ndarray = field(init=False, repr=False)
    G: np.ndarray = field(init=False, repr=False)
    A: np.ndarray = field(init=False, repr=False)
    Lstar: np.ndarray = field(init=False, repr=False)
    token_norms: list[float] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        ps = self.problems
        if not ps or len({(p.N, p.K, p.d) for p in ps}) != 1:
            raise ValueError(f"problems must be one or more of one shape (N, K, d), got {len(ps)}")
        for name in ("VT", "V_all", "V", "G", "A"):
            object.__setattr__(self, name, np.stack([getattr(p, name) for p in ps]))
        object.__setattr__(self, "Lstar", np.array([p.Lstar for p in ps]))
        object.__setattr__(self, "token_norms", [_max_token_norm(p.V_all) for p in ps])

    @property
    def N(self) -> int:
        return self.problems[0].N

    @property
    def K(self) -> int:
        return self.problems[0].K


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
        """(L or Delta, Params(Q=dL/dQ (H, d, d), w=dL/dw (H, K))); inputs are not re-validated (hot
        path of GD). The arrays returned are new (the work buffers stay inside)."""
        value, grads, _ = self._evaluate(params, problem, want_S=False)
        return value, grads

    def loss_grad_attention(
        self, params: Params, problem: Problem, *, attention: bool = True
    ) -> tuple[float, Params, np.ndarray | None]:
        """(value, grads, S): :meth:`loss_and_grad` plus the attention S (H, N, K) at params (the
        per-step PL recorder of the GD runs reuses it); ``attention=False`` skips S (None), for the GD
        runs that do not record it. Inputs are not re-validated (hot path of GD)."""
        return self._evaluate(params, problem, want_S=attention)

    def loss_grad_batched(
        self, Q: np.ndarray, w: np.ndarray, problems: ProblemBatch
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """S runs at once (one per problem of ``problems``): Q (S, H, d, d), w (S, H, K) -> (values (S,),
        dL/dQ (S, H, d, d), dL/dw (S, H, K)), each run's slice bit-identical to :meth:`loss_and_grad` on its
        own problem: the same products and passes per slice, over a leading run axis. Runs whose heads
        need chunks, whose weights are below :data:`W_SCALED` or whose scores may need a shift (GD's first
        step from w = 0, mostly) take the unbatched path, all of them at that call."""
        S, H, d, _ = Q.shape
        N, K = problems.N, problems.K
        P = np.matmul(problems.VT[:, None], Q)  # (S, H, N, d)
        fast = heads_per_chunk(H, N, K) >= H and bool(np.abs(w).min() >= W_SCALED)
        fast = fast and all(
            _scores_bounded(P[s].reshape(H, N * d), problems.token_norms[s]) for s in range(S)
        )
        if not fast:
            out = [self.loss_and_grad(Params(Q[s], w[s]), p) for s, p in enumerate(problems.problems)]
            return (
                np.array([v for v, _ in out]),
                np.stack([g.Q for _, g in out]),
                np.stack([g.w for _, g in out]),
            )
        E = np.matmul(P.reshape(S, H * N, d), problems.V_all).reshape(S, H, N, K)
        np.exp(E, out=E)
        z3 = np.matmul(_ones((1, N)), E)  # (S, H, 1, K)
        wz = np.divide(w, z3[:, :, 0, :])
        E *= wz[:, :, None, :]  # F = S w, as in the scaled route of _forward
        R = -problems.A + np.matmul(_ones((H,)), E.reshape(S, H, N * K)).reshape(S, N, K)
        GR = np.matmul(problems.G, R)
        values = np.array([0.5 * float(np.vdot(R[s], GR[s])) for s in range(S)])
        if not self.excess:
            values += problems.Lstar
        dU = np.multiply(E, GR[:, None])
        gw = np.matmul(_ones((1, N)), dU)[:, :, 0, :]
        gw /= w
        E *= gw[:, :, None, :]
        dU -= E
        XT = np.matmul(problems.V_all, dU.reshape(S, H * N, K).transpose(0, 2, 1))  # (S, d, H N)
        gQ = np.matmul(problems.V[:, None], XT.reshape(S, d, H, N).transpose(0, 2, 3, 1))
        return values, gQ, gw

    def _evaluate(
        self, params: Params, problem: Problem, want_S: bool
    ) -> tuple[float, Params, np.ndarray | None]:
        """The hot path: the four products P_h = V^T Q_h (H N d^2), U_h = P_h V_all and X_h = dU_h V_all^T
        (H N d K each), dL/dQ_h = V X_h (H N d^2), with the elementwise work between them.

        Exact restructurings against the plain formula (same values to rounding, pinned by tests against
        a direct implementation): (i) the softmax is never normalised; with E = exp(U - shift) and
        z = sum_n E (GEMVs), S = E / z enters only through w / z (R = sum_h E_h diag(w_h / z_h) - A,
        dL/dw = sum_n E GR / z, dU = E (GR - dL/dw) diag(w / z)); (ii) the shift is the column max only
        when a score may leave [-SHIFT_FREE, SHIFT_FREE] (|U_hnk| <= ||P_h||_F max_k ||v_k||), and 0
        otherwise, which saves two passes over the scores; (iii) heads go in chunks of about
        :data:`CHUNK` scores, so a chunk's scores and its dU stay in cache from the product that writes
        them through the passes that read them; (iv) the intermediates live in per-thread work buffers
        (no fresh pages per call); (v) X is formed transposed, V_all (d, K) times dU^T, the faster
        orientation for OpenBLAS; (vi) when every |w_hk| >= :data:`W_SCALED`, the scores become
        F = E diag(w / z) = S diag(w) in place, so that R = sum_h F_h - A and w dL/dw = sum_n F GR are
        GEMVs and dU = F GR - F diag(dL/dw): one pass with a per-(head, token) factor fewer than the
        unscaled route, whose sums over heads and positions are einsum reductions. No fewer
        multiply-adds: the four products are the minimum for a dense Q (see
        tests/benchmarks/test_bench_yang2024.py).
        """
        Q, w = params.Q, params.w
        H, d, _ = Q.shape
        N, K = problem.N, problem.K
        hc = heads_per_chunk(H, N, K)
        scaled = bool(np.abs(w).min() >= W_SCALED)
        E = _WORK.get("E", (H, N, K))
        z3, wz, gw3, gQ = np.empty((H, 1, K)), np.empty((H, K)), np.empty((H, 1, K)), np.empty((H, d, d))
        S = np.empty((H, N, K)) if want_S else None
        # a chunk: its heads' (Q, w, E, z3, wz, gw3, gQ, S); one chunk of whole arrays when the heads fit
        whole = (Q, w, E, z3, wz, gw3, gQ, S)
        chunks = [whole] if hc >= H else [
            tuple(None if a is None else a[h0 : h0 + hc] for a in whole) for h0 in range(0, H, hc)
        ]  # fmt: skip
        P = _WORK.get("P", (hc, N, d))
        token_norm = _max_token_norm(problem.V_all)
        R = -problem.A
        for c in chunks:
            _forward(c, P, R, problem, token_norm, scaled)
        GR = problem.G @ R
        value = 0.5 * float(np.vdot(R, GR))
        dU = _WORK.get("dU", (hc, N, K))
        XT = _WORK.get("XT", (d, hc * N))
        for c in chunks:
            _backward(c, dU, XT, GR, problem, scaled)
        if not self.excess:
            value += problem.Lstar
        return value, Params(Q=gQ, w=gw3[:, 0, :]), S

    def lstsq_w(self, Q: np.ndarray, problem: Problem) -> np.ndarray:
        """w* solving min_w L(Q, w) at fixed Q: w*_{:,k} = C_k^+ A_{:,k} (exact when rank C_k = N). (H, K)."""
        C = self.attention(Q, problem).transpose(2, 1, 0)  # (K, N, H)
        # min_w ||Zbar (C w - A)|| = min ||C w - A|| when rank C = N; pinv gives the minimum-norm solution
        return np.einsum("khn,nk->hk", np.linalg.pinv(C), problem.A)


def _ones(shape: tuple[int, ...]) -> np.ndarray:
    """A read-only array of ones (the GEMV sums of the hot path), one per shape for the process."""
    hit = _ONES.get(shape)
    if hit is None:
        hit = _ONES[shape] = np.ones(shape)
        hit.flags.writeable = False
    return hit


def _forward(
    chunk: tuple, P: np.ndarray, R: np.ndarray, problem: Problem, token_norm: float, scaled: bool
) -> None:
    """The forward pass of one chunk of n heads (:meth:`Transformer._evaluate`): fills its E with exp(U -
    shift) (or F = S w when ``scaled``), z3 with the column sums, wz with w / z (and S) and adds the
    chunk's A-hat to R (N, K). P: a work array of at least n rows."""
    Q, w, E, z3, wz, _, _, S = chunk
    (n, N, K), d = E.shape, Q.shape[1]
    Pc = np.matmul(problem.VT, Q, out=P[:n])
    np.matmul(Pc.reshape(n * N, d), problem.V_all, out=E.reshape(n * N, K))
    if not _scores_bounded(Pc.reshape(n, N * d), token_norm):
        E -= np.maximum.reduce(E, axis=1, keepdims=True)
    np.exp(E, out=E)
    np.matmul(_ones((1, N)), E, out=z3)  # column sums as GEMVs (a middle-axis sum is slower)
    np.divide(w, z3[:, 0, :], out=wz)
    if S is not None:
        np.divide(E, z3, out=S)
    if scaled:  # E becomes F = E w / z = S w; R = sum_h F_h - A as a GEMV over the heads
        E *= wz[:, None, :]
        R += np.matmul(_ones((n,)), E.reshape(n, N * K)).reshape(N, K)
    else:
        R += np.einsum("hnk,hk->nk", E, wz)


def _backward(
    chunk: tuple, dU: np.ndarray, XT: np.ndarray, GR: np.ndarray, problem: Problem, scaled: bool
) -> None:
    """The backward pass of one chunk of n heads after :func:`_forward`: its dL/dw into gw3 and dL/dQ
    into gQ. dU, XT: work arrays of at least n heads."""
    _, w, E, z3, wz, gw3, gQ, _ = chunk
    (n, N, K), d = E.shape, gQ.shape[1]
    # softmax backward, using sum_n s_n GR_n = dL/dw:  dU = w s (GR - dL/dw)
    if scaled:  # F GR, its column sums w dL/dw (GEMVs), then dU = F GR - F dL/dw
        dUc = np.multiply(E, GR, out=dU[:n])
        gwc = np.matmul(_ones((1, N)), dUc, out=gw3)[:, 0, :]
        gwc /= w
        E *= gwc[:, None, :]
        dUc -= E
    else:
        gwc = np.einsum("hnk,nk->hk", E, GR, out=gw3[:, 0, :])
        gwc /= z3[:, 0, :]
        dUc = np.subtract(GR, gwc[:, None, :], out=dU[:n])
        dUc *= E
        dUc *= wz[:, None, :]
    XTc = np.matmul(problem.V_all, dUc.reshape(n * N, K).T, out=XT[:, : n * N])
    np.matmul(problem.V, XTc.reshape(d, n, N).transpose(1, 2, 0), out=gQ)  # V X_h
