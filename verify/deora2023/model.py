"""Reference model of Deora et al. (2023/24): a single-layer multi-head self-attention classifier.

Model (RECONSTRUCTED; derivatives DERIVED), for one input X (T, d) with rows x_t::

    A_h(X) = X W_h X^T,  S_h = softmax_row(A_h),  f_h(X) = <U_h, S_h X>_F,
    Phi(theta; X) = (1/sqrt(H)) sum_h f_h(X),     theta = (U in R^{H x T x d}, W in R^{H x d x d}).

Convention: row t of A is X W^T x_t, so dA_{ts}/dW = x_t x_s^T. Parameters are :class:`AttnParams`
(blocks ``U`` (H, T, d) and ``W`` (H, d, d)); every function also takes a plain mapping with these
two blocks. The packed vector is ``[vec U, vec W]`` (head-major, C order). :class:`MultiHeadAttention`
is the model object of :mod:`verify.numerics.model` over these functions.

Everything is float64 with hand-derived derivatives, vectorised over samples, heads and (for the
Hessian-vector products) over a batch of k directions. Internally the attention tensors use the
layout (n, t, h, s) = (sample, query row, head, key token), which turns the big contractions into
single GEMMs. :func:`loss`, :func:`loss_and_grad`, :func:`grad_norms` and :func:`loss_hvp` (without a
cache) run a fused hot path over chunks of samples (:func:`loss_and_grad_batched`, :func:`_fused_hvp`);
the :class:`Cache` route (:func:`forward` and the functions on a cache) is the reference it is tested
against. The ``*_batched`` functions take B parameter sets (and their samples) on a leading axis, one
stack of per-set GEMMs, so that a set's values do not depend on the others (batched claims, several
training sets at once); the unbatched functions are their batches of one.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from bounds.checks import check_array, check_choice, check_int, check_positive
from verify.numerics.buffers import WorkBuffers
from verify.numerics.model import ParamBlocks
from verify.numerics.softmax import SHIFT_FREE, softmax

Params = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class Batch:
    """A labelled sample, the model's data: X (n, T, d) token sequences and y (n,) labels in {-1, +1}
    (defined here, not in :mod:`verify.deora2023.data`, which imports this module for its planted teacher
    and re-exports it)."""

    X: np.ndarray
    y: np.ndarray


@dataclass(frozen=True, eq=False)
class AttnParams(ParamBlocks, Mapping):
    """theta = (U, W): value/readout blocks U (H, T, d) and attention blocks W (H, d, d), float64.

    Also a read-only mapping ``{"U": ..., "W": ...}``, so every function of this module takes it.
    """

    U: np.ndarray
    W: np.ndarray

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in ("U", "W"):
            raise KeyError(f"AttnParams has the blocks 'U' and 'W', not {key!r}")
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(("U", "W"))

    def __len__(self) -> int:
        return 2


def check_params(params: Params) -> tuple[int, int, int]:
    """Validate ``{"U": (H, T, d), "W": (H, d, d)}``; return (H, T, d)."""
    if not isinstance(params, Mapping) or set(params) != {"U", "W"}:
        raise ValueError("params must be a mapping with exactly the blocks 'U' and 'W'")
    U = check_array("params['U']", params["U"], ndim=3)
    H, T, d = U.shape
    check_array("params['W']", params["W"], shape=(H, d, d))
    return H, T, d


def n_params(H: int, T: int, d: int) -> int:
    """p = H (T d + d^2)."""
    return H * (T * d + d * d)


def pack(params: Params) -> np.ndarray:
    """theta as one vector [vec U, vec W] of length p."""
    return np.concatenate([np.ravel(params["U"]), np.ravel(params["W"])])


def unpack(theta: np.ndarray, H: int, T: int, d: int) -> dict[str, np.ndarray]:
    """Inverse of :func:`pack`; ``theta`` may carry leading batch axes (..., p)."""
    theta = np.asarray(theta, dtype=np.float64)
    nu = H * T * d
    if theta.shape[-1] != nu + H * d * d:
        raise ValueError(f"theta must have last axis p = {nu + H * d * d}, got {theta.shape}")
    lead = theta.shape[:-1]
    return {
        "U": theta[..., :nu].reshape(*lead, H, T, d),
        "W": theta[..., nu:].reshape(*lead, H, d, d),
    }


def init_params(
    rng: np.random.Generator,
    H: int,
    T: int,
    d: int,
    *,
    u_scale: float | None = None,
    w_scale: float = 0.0,
    paired: bool = True,
    shared: float = 0.0,
) -> AttnParams:
    """Initialisation I0 (derivation Sect. 1.5, RECONSTRUCTED).

    U_{h,0} has i.i.d. N(0, u_scale^2) entries (default 1/sqrt(T d), so ||U_h||_F ~ 1), W_{h,0} has
    i.i.d. N(0, w_scale^2) entries (default 0: uniform attention). ``paired`` (H even):
    U_{h+H/2} = -U_h and W_{h+H/2} = W_h, so Phi(theta_0; .) = 0 exactly. ``shared`` in [0, 1): the
    heads are correlated, sharing that fraction of their U variance (U_h = sqrt(shared) C +
    sqrt(1 - shared) Z_h, one common C; the same marginal law per head); 0 (default, I0): i.i.d. heads.
    """
    H, T, d = check_int("H", H), check_int("T", T), check_int("d", d)
    u_scale = 1.0 / np.sqrt(T * d) if u_scale is None else check_positive("u_scale", u_scale)
    if w_scale != 0.0:
        check_positive("w_scale", w_scale)
    if not 0.0 <= shared < 1.0:
        raise ValueError(f"shared must be in [0, 1), got {shared}")
    half = H // 2 if paired else H
    if paired and H % 2:
        raise ValueError(f"paired initialisation needs an even H, got H={H}")
    U = u_scale * rng.standard_normal((half, T, d))
    W = w_scale * rng.standard_normal((half, d, d))
    if shared:  # drawn after U and W, so shared = 0 draws exactly I0's stream
        U = np.sqrt(1.0 - shared) * U + np.sqrt(shared) * u_scale * rng.standard_normal((1, T, d))
    if paired:
        return AttnParams(U=np.concatenate([U, -U]), W=np.concatenate([W, W]))
    return AttnParams(U=U, W=W)


def logistic(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Logistic loss l(z) = log(1 + e^{-z}) with l'(z) = -1/(1+e^z), l''(z) = s(z)s(-z); stable."""
    z = np.asarray(z, dtype=np.float64)
    return np.logaddexp(0.0, -z), -expit(-z), expit(z) * expit(-z)


def exponential(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exponential loss e^{-z} (self-bounded but neither Lipschitz nor smooth: A1 fails)."""
    e = np.exp(-np.asarray(z, dtype=np.float64))
    return e, -e, e


LOSSES = {"logistic": logistic, "exponential": exponential}


@dataclass
class Cache:
    """Forward quantities at (theta, X). Shapes: X (n, T, d); S, V, G (n, T, H, T) in layout
    (sample, query t, head, key s); SV (n, T, H, 1) = sum_s S V; phi (n,)."""

    U: np.ndarray
    W: np.ndarray
    X: np.ndarray
    S: np.ndarray
    V: np.ndarray
    SV: np.ndarray
    G: np.ndarray
    phi: np.ndarray

    @property
    def dims(self) -> tuple[int, int, int, int]:
        n, T, d = self.X.shape
        return n, self.U.shape[0], T, d


def _logits(W: np.ndarray, X: np.ndarray) -> np.ndarray:
    """A[..., n, t, h, s] = x_t^T W_h x_s for W (..., H, d, d), X (n, T, d)."""
    n, T, d = X.shape
    H = W.shape[-3]
    lead = W.shape[:-3]
    # one GEMM: (n T, d) @ (d, H d) -> (n T, H d)
    Wcat = np.swapaxes(W, -3, -2).reshape(*lead, d, H * d)
    XW = (X.reshape(n * T, d) @ Wcat).reshape(*lead, n, T * H, d)
    return (XW @ np.swapaxes(X, 1, 2)).reshape(*lead, n, T, H, T)


def _values(U: np.ndarray, X: np.ndarray) -> np.ndarray:
    """V[..., n, t, h, s] = u_{h,t}^T x_s for U (..., H, T, d), X (n, T, d)."""
    n, T, d = X.shape
    H = U.shape[-3]
    lead = U.shape[:-3]
    Ucat = np.swapaxes(U, -3, -2).reshape(*lead, 1, T * H, d)
    return (Ucat @ np.swapaxes(X, 1, 2)).reshape(*lead, n, T, H, T)


def forward(params: Params, X: np.ndarray, *, validate: bool = True) -> Cache:
    """Phi(theta; X_i) for a batch X of shape (n, T, d) (or (T, d) for one sample)."""
    if validate:
        H, T, d = check_params(params)
        X = check_array("X", X)
        if X.ndim == 2:
            X = X[None]
        if X.shape[1:] != (T, d) or X.ndim != 3:  # checked above but for its shape: name the wrong one
            check_array("X", X, shape=(None, T, d))
    U = np.asarray(params["U"], dtype=np.float64)
    W = np.asarray(params["W"], dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 2:
        X = X[None]
    H = U.shape[0]
    S = softmax(_logits(W, X), axis=-1)
    V = _values(U, X)
    SV = np.sum(S * V, axis=-1, keepdims=True)
    G = S * (V - SV)
    phi = SV.sum(axis=(1, 2, 3)) / np.sqrt(H)
    return Cache(U, W, X, S, V, SV, G, phi)


def phi(params: Params, X: np.ndarray) -> np.ndarray:
    """Phi(theta; X_i), shape (n,)."""
    return forward(params, X).phi


def _weighted_grad(cache: Cache, c: np.ndarray) -> dict[str, np.ndarray]:
    """sum_i c[..., i] grad Phi(theta; X_i) for coefficients c of shape (..., n); blocks (..., H, T, d)
    and (..., H, d, d)."""
    n, H, T, d = cache.dims
    lead = c.shape[:-1]
    Xc = c[..., :, None, None] * cache.X  # (..., n, T, d)
    S2 = cache.S.reshape(n, T * H, T)
    # U: sum_i c_i S_i X_i  -- one GEMM over (i, s)
    gU = np.tensordot(Xc, S2, axes=([-3, -2], [0, 2]))  # (..., d, T H)
    gU = np.swapaxes(gU, -1, -2).reshape(*lead, T, H, d)
    gU = np.swapaxes(gU, -3, -2)
    # W: sum_i c_i X_i^T G_i X_i  -- batched (G X) then one GEMM over (i, t)
    GX = (cache.G.reshape(n, T * H, T) @ Xc).reshape(*lead, n * T, H * d)
    gW = np.swapaxes(cache.X.reshape(n * T, d), 0, 1) @ GX  # (..., d, H d)
    gW = np.swapaxes(gW.reshape(*lead, d, H, d), -3, -2)
    r = 1.0 / np.sqrt(H)
    return {"U": gU * r, "W": gW * r}


def per_sample_grads(params: Params, X: np.ndarray) -> dict[str, np.ndarray]:
    """grad_theta Phi(theta; X_i) for every sample: blocks (n, H, T, d) and (n, H, d, d)."""
    return _per_sample_grads(forward(params, X))


def _per_sample_grads(cache: Cache) -> dict[str, np.ndarray]:
    """:func:`per_sample_grads` from a forward pass."""
    n, H, T, d = cache.dims
    r = 1.0 / np.sqrt(H)
    SX = (cache.S.reshape(n, T * H, T) @ cache.X).reshape(n, T, H, d)
    GX = (cache.G.reshape(n, T * H, T) @ cache.X).reshape(n, T, H * d)
    gW = (np.swapaxes(cache.X, 1, 2) @ GX).reshape(n, d, H, d)
    return {"U": np.swapaxes(SX, 1, 2) * r, "W": np.swapaxes(gW, 1, 2) * r}


def features(params: Params, X: np.ndarray) -> np.ndarray:
    """NTK features: the (n, p) matrix whose rows are grad Phi(theta; X_i), packed like :func:`pack`."""
    return cache_features(forward(params, X))


def cache_features(cache: Cache) -> np.ndarray:
    """:func:`features` from a forward pass."""
    g = _per_sample_grads(cache)
    n = g["U"].shape[0]
    return np.concatenate([g["U"].reshape(n, -1), g["W"].reshape(n, -1)], axis=1)


def _check_data(params: Params, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    _H, T, d = check_params(params)
    X = check_array("X", X, shape=(None, T, d))
    y = check_array("y", y, shape=(X.shape[0],))
    if not np.all(np.abs(y) == 1):
        raise ValueError("labels y must be +-1")
    return X, y


#: attention entries (sample, query, head, key; times the k directions of an HVP) per chunk of samples in
#: the fused hot path: a chunk's (m, T, H, T) tensors (0.5 MB each) stay in a 2 MB L2 cache across the
#: passes over them
CHUNK = 1 << 16

_WORK = WorkBuffers()


def _shift_free(W: np.ndarray, X: np.ndarray) -> bool:
    """True when every logit is known to lie in [-SHIFT_FREE, SHIFT_FREE]: |x_t^T W_h x_s| <=
    ||x_t|| ||x_s|| ||W_h||_2 <= max_t ||x_t||^2 max_h ||W_h||_F. False for non-finite input. (The maxima
    are np.max's reduction, called directly.)"""
    x2 = float(np.maximum.reduce(np.einsum("ntd,ntd->nt", X, X), axis=None, initial=0.0))
    w2 = float(np.maximum.reduce(np.einsum("hde,hde->h", W, W), axis=None, initial=0.0))
    return bool(x2 * math.sqrt(w2) <= SHIFT_FREE)


def _attention(
    Xc: np.ndarray, XTc: np.ndarray, Wcat: np.ndarray, Ucat: np.ndarray, shift: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The forward pass of one chunk of m samples for B parameter sets, in work buffers: S (B, m, TH, T)
    (rows (t, h), the attention of query t in head h), V (B, m, TH, T), SX = S X (B, m, TH, d) and
    SV = sum_s S V (B, m, TH). Xc (B or 1, m, T, d), XTc = Xc^T (B or 1, m, d, T) contiguous, Wcat (B, d,
    H d) = [W_1 ... W_H], Ucat (B, TH, d) with row (t, h) = u_{h,t}; shift (B,): subtract the row max.
    Every product is a stack of per-set GEMMs, so set b's values do not depend on the others."""
    B, d, Hd = Wcat.shape
    m, T = Xc.shape[1], Xc.shape[2]
    TH = Ucat.shape[1]
    XW = np.matmul(Xc.reshape(-1, m * T, d), Wcat, out=_WORK.get("XW", (B, m * T, Hd)))
    S = np.matmul(XW.reshape(B, m, TH, d), XTc, out=_WORK.get("S", (B, m, TH, T)))  # logits A
    for b in np.flatnonzero(shift):
        S[b] -= np.max(S[b], axis=-1, keepdims=True)
    np.exp(S, out=S)
    z = np.matmul(
        S, np.ones(T), out=_WORK.get("z", (B, m, TH))
    )  # row sums as a GEMV (a short-axis sum is slow)
    S *= np.reciprocal(z, out=z)[..., None]
    SX = np.matmul(S, Xc, out=_WORK.get("SX", (B, m, TH, d)))
    V = np.matmul(Ucat[:, None], XTc, out=_WORK.get("V", (B, m, TH, T)))
    SV = np.vecdot(SX, Ucat[:, None])  # sum_s S_ts V_ts = u_{h,t} . (S X)_t
    return S, V, SX, SV


def _operands(U: np.ndarray, W: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, ...]:
    """For B parameter sets U (B, H, T, d), W (B, H, d, d) and samples X (B or 1, n, T, d) (1: shared):
    (X, X^T (., n, d, T) contiguous, Wcat (B, d, H d), Ucat (B, T H, d), shift (B,)) for :func:`_attention`,
    ``shift[b]`` False when every logit of set b is known to lie in [-SHIFT_FREE, SHIFT_FREE]
    (:func:`_shift_free`)."""
    U, W, X = (np.asarray(a, dtype=np.float64) for a in (U, W, X))
    B, H, T, d = U.shape
    Wcat = np.ascontiguousarray(np.swapaxes(W, 1, 2)).reshape(B, d, H * d)
    Ucat = np.ascontiguousarray(np.swapaxes(U, 1, 2)).reshape(B, T * H, d)
    shift = np.array([not _shift_free(W[b], X[b % X.shape[0]]) for b in range(B)])
    return X, np.ascontiguousarray(np.swapaxes(X, 2, 3)), Wcat, Ucat, shift


def _batch(params: Params, X: np.ndarray, *more: np.ndarray) -> tuple[np.ndarray, ...]:
    """One parameter set and its data as a batch of one: (U[None], W[None], X[None], *more[None])."""
    X = np.asarray(X, dtype=np.float64)
    X = X[None] if X.ndim == 2 else X
    return tuple(np.asarray(a, dtype=np.float64)[None] for a in (params["U"], params["W"], X, *more))


def _blocks(B: int, n: int, per_sample: int) -> Iterator[tuple[slice, slice]]:
    """(sets, samples) blocks of a batched fused pass: each set's samples go in the chunks of about
    :data:`CHUNK` attention entries (``per_sample`` each) that a batch of one uses, in the same order, so
    that its sums over chunks add in the same order; a chunk holds several sets only when a set's samples
    all fit into one chunk (small problems: one pass for the group instead of one per set)."""
    nc = max(1, CHUNK // per_sample)
    group = max(1, CHUNK // (min(n, nc) * per_sample))
    for b0 in range(0, B, group):
        for i0 in range(0, n, nc):
            yield slice(b0, min(B, b0 + group)), slice(i0, min(n, i0 + nc))


def grad_norms_batched(U: np.ndarray, W: np.ndarray, X: np.ndarray) -> np.ndarray:
    """||grad Phi(theta_b; X_{b,i})||_2 (B, n) for B parameter sets U (B, H, T, d), W (B, H, d, d) and
    samples X (B or 1, n, T, d) (inputs not validated): with SX = S X and GX = G X of the fused forward pass
    (chunks of samples, :func:`_attention`), ||grad Phi_i||^2 = (||S_i X_i||^2 + ||X_i^T G_i X_i||^2) / H
    (the :func:`per_sample_grads` route gives the same values to rounding). Set b's norms do not depend on
    the other sets (``verify/test_batched.py``)."""
    X, XT, Wcat, Ucat, shift = _operands(U, W, X)
    B, H, T, _ = np.shape(U)
    n = X.shape[1]
    out = np.empty((B, n))
    for bs, sl in _blocks(B, n, T * H * T):
        xs = bs if X.shape[0] > 1 else slice(0, 1)
        Xc = X[xs, sl]
        S, V, SX, SV = _attention(Xc, XT[xs, sl], Wcat[bs], Ucat[bs], shift[bs])
        V -= SV[..., None]
        GX = np.matmul(np.multiply(V, S, out=V), Xc)  # G = S (V - SV)
        out[bs, sl] = _sq_grad_norms(SX, XT[xs, sl], GX)
    return np.sqrt(out / H)


def _sq_grad_norms(SX: np.ndarray, XTc: np.ndarray, GX: np.ndarray) -> np.ndarray:
    """H ||grad Phi_i||^2 = ||S_i X_i||^2 + ||X_i^T G_i X_i||^2 for a chunk's samples (b, m), from SX = S X
    and GX = G X (b, m, TH, d) and XTc = X^T (b or 1, m, d, T)."""
    b, m, TH, d = GX.shape
    T = XTc.shape[-1]
    gW = np.matmul(XTc, GX.reshape(b, m, T, TH // T * d))  # X^T G X, (b, m, d, H d)
    return np.add.reduce(np.square(SX).reshape(b, m, -1), axis=-1) + np.add.reduce(
        np.square(gW).reshape(b, m, -1), axis=-1
    )


def grad_norms(params: Params, X: np.ndarray) -> np.ndarray:
    """||grad Phi(theta; X_i)||_2 for every sample, shape (n,) (:func:`grad_norms_batched`, batch of one)."""
    _, T, d = check_params(params)
    return grad_norms_batched(*_batch(params, check_array("X", X, shape=(None, T, d))))[0]


def loss_and_grad_batched(
    U: np.ndarray,
    W: np.ndarray,
    X: np.ndarray,
    y: np.ndarray,
    *,
    loss_name: str = "logistic",
    grad: bool = True,
    per_sample: bool = False,
    norms: bool = False,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The hot path of :func:`loss_and_grad` and :func:`loss` for B parameter sets U (B, H, T, d), W (B, H,
    d, d) on samples X (B or 1, n, T, d), labels y (B or 1, n) (1: shared by every set): (L (B,), grad L
    {"U": (B, H, T, d), "W": (B, H, d, d)}), or (L, {}) when ``grad`` is False; ``per_sample`` (with
    ``grad`` False): (L, {"losses": the per-sample losses (B, n)}), L their mean as always; ``norms`` (with
    ``grad``): the gradient also carries ``"norms"``, :func:`grad_norms_batched` on X from this pass (the
    same bits). Inputs are not validated.
    Set b's values do not depend on the other sets: every product is a stack of per-set GEMMs and every
    reduction runs over a trailing axis (``verify/test_batched.py``).

    Every quantity of sample i (logits, softmax, values, Phi_i, l'_i) depends on sample i only, so the
    samples go in chunks of about :data:`CHUNK` attention entries (per set), and the chunks add their terms
    into the gradient blocks. Exact restructurings against the :class:`Cache` route (same values to
    rounding, pinned by tests against it): (i) the chunks keep their attention tensors and their products
    with X in cache from the product that writes them through the passes that read them, in per-thread
    work buffers; (ii) the softmax shift is the row max only when a logit may leave [-SHIFT_FREE,
    SHIFT_FREE] (:func:`_shift_free`), and 0 otherwise; the row sums z come from a GEMV; (iii) sums over
    keys that are row dot products are taken after the product with X: with SX = S X (m, TH, d),
    sum_s S V = u . SX (so Phi_i = sum_{t,h} u_{h,t} . (S X)_{t,h} / sqrt(H) and grad_U L = sum_i c_i S_i
    X_i / sqrt(H) is a GEMV over the chunk's samples, c_i = l'_i y_i / n); (iv) per-sample factors c_i
    are applied to the (m T, d) token matrix of the final GEMM sum_i X_i^T (c_i G_i X_i) instead of to
    the (T, H, T) tensors. The multiply-adds are those of the Cache route (the GEMV for grad_U replaces a
    GEMM over the samples by the product S X, which the row sums need anyway).
    """
    X, XT, Wcat, Ucat, shift = _operands(U, W, X)
    y = np.asarray(y, dtype=np.float64)
    B, H, T, d = np.shape(U)
    n, TH = X.shape[1], T * H
    r = 1.0 / math.sqrt(H)
    ell = LOSSES[loss_name]
    losses = np.empty((B, n))
    gU, gW = np.zeros((B, 1, TH * d)), np.zeros((B, d, H * d))
    sq = np.empty((B, n)) if norms else None
    for bs, sl in _blocks(B, n, TH * T):
        xs = bs if X.shape[0] > 1 else slice(0, 1)
        Xc, yc = X[xs, sl], y[bs if y.shape[0] > 1 else slice(0, 1), sl]
        S, V, SX, SV = _attention(Xc, XT[xs, sl], Wcat[bs], Ucat[bs], shift[bs])
        b, m = S.shape[:2]
        l0, l1, _ = ell(yc * (np.add.reduce(SV, axis=-1) * r))
        losses[bs, sl] = l0
        if not grad:
            continue
        c = l1 * yc / n  # (b, m)
        V -= SV[..., None]
        G = np.multiply(V, S, out=V)  # S (V - SV)
        gU[bs] += np.matmul(c[:, None, :], SX.reshape(b, m, TH * d))
        QX = np.matmul(G, Xc, out=_WORK.get("QX", (b, m, TH, d)))
        if sq is not None:
            sq[bs, sl] = _sq_grad_norms(SX, XT[xs, sl], QX)
        Xw = (Xc * c[..., None, None]).reshape(b, m * T, d)
        gW[bs] += np.matmul(np.swapaxes(Xw, 1, 2), QX.reshape(b, m * T, H * d))
    L = np.add.reduce(losses, axis=-1) / n
    if not grad:
        return L, {"losses": losses} if per_sample else {}
    gU = np.swapaxes(gU.reshape(B, T, H, d), 1, 2) * r
    out = {"U": gU, "W": np.swapaxes(gW.reshape(B, d, H, d), 1, 2) * r}
    return L, out if sq is None else out | {"norms": np.sqrt(sq / H)}


def _fused_hvp(
    params: Params,
    X: np.ndarray,
    y: np.ndarray,
    loss_name: str,
    dU: np.ndarray,
    dW: np.ndarray,
    *,
    gauss_newton: bool = True,
) -> tuple[float, dict[str, np.ndarray]]:
    """The hot path of :func:`loss_hvp` without a cache: (L, grad^2 L v) for the k directions dU (k, H, T, d),
    dW (k, H, d, d), blocks (k, H, T, d), (k, H, d, d); ``gauss_newton`` False drops the l'' term. Inputs
    are not validated. The chunks and restructurings of :func:`loss_and_grad_batched` (one set), and
    likewise sum_s S dV = du . SX, sum_s S dA V = u . ((S * dA) X). With f = l''_i JVP_i / n - c_i sum_s S dA
    and b = sum_s (dS V + S dV), the two (T, H, T) tensors c dS + e S = S * (c dA + f) and
    c dG + e G = G * (c dA + f) + c S * (dV - b) (G = S (V - SV), dS = S (dA - sum_s S dA)) give both
    second-order and Gauss-Newton terms in one product each: the multiply-adds of the Cache route plus one
    S X product."""
    U1, W1, X1, y1 = _batch(params, X, y)
    X1, XT1, Wcat1, Ucat1, shift = _operands(U1, W1, X1)
    X, XT, Ucat, y = X1[0], XT1[0], Ucat1[0], y1[0]
    n, T, d = X.shape
    TH = Ucat.shape[0]
    H = TH // T
    r = 1.0 / math.sqrt(H)
    ell = LOSSES[loss_name]
    losses = np.empty(n)
    k = dU.shape[0]
    dWcat = np.ascontiguousarray(np.swapaxes(dW, 1, 2)).reshape(k, d, H * d)
    dUcat = np.ascontiguousarray(np.swapaxes(dU, 1, 2)).reshape(k, 1, TH, d)
    nc = max(1, CHUNK // (k * TH * T))
    ones = np.ones(T)
    gU = np.zeros((k, TH, d))
    gW = np.zeros((k, d, H * d))
    for i0 in range(0, n, nc):
        i1 = min(n, i0 + nc)
        m = i1 - i0
        Xc, XTc, yc = X[i0:i1], XT[i0:i1], y[i0:i1]
        S, V, SX, SV = (a[0] for a in _attention(Xc[None], XTc[None], Wcat1, Ucat1, shift))
        phi = np.add.reduce(SV, axis=1) * r
        l0, l1, l2 = ell(yc * phi)
        losses[i0:i1] = l0
        c = l1 * yc / n
        V -= SV[..., None]
        G = np.multiply(V, S, out=V)  # S (V - SV)
        dXW = np.matmul(Xc.reshape(m * T, d), dWcat, out=_WORK.get("dXW", (k, m * T, H * d)))
        dXW = dXW.reshape(k, m, TH, d)
        dA = np.matmul(dXW, XTc, out=_WORK.get("dA", (k, m, TH, T)))
        SdA = np.multiply(dA, S, out=_WORK.get("SdA", (k, m, TH, T)))
        a = np.matmul(SdA, ones)  # sum_s S dA, (k, m, TH)
        SdAX = np.matmul(SdA, Xc, out=_WORK.get("SdAX", (k, m, TH, d)))
        b = np.vecdot(SdAX, Ucat) - a * SV + np.vecdot(dUcat, SX)  # sum_s (dS V + S dV)
        f = -c[:, None] * a  # (k, m, TH)
        if gauss_newton:
            jvp = np.add.reduce(b, axis=2) * r  # (k, m)
            f += (l2 * jvp / n)[..., None]
        gU += np.matmul(c, SdAX.reshape(k, m, TH * d)).reshape(k, TH, d)
        gU += np.einsum("kij,ijd->kjd", f, SX)
        dA *= c[:, None, None]
        dA += f[..., None]
        dA *= G
        dV = np.matmul(dUcat, XTc * c[:, None, None], out=_WORK.get("dV", (k, m, TH, T)))  # c dV
        dV -= (b * c[:, None])[..., None]
        dV *= S
        dA += dV
        QX = np.matmul(dA, Xc, out=_WORK.get("QX", (k, m, TH, d)))
        gW += np.matmul(Xc.reshape(m * T, d).T, QX.reshape(k, m * T, H * d))
    gU = np.swapaxes(gU.reshape(k, T, H, d), 1, 2) * r
    gW = np.swapaxes(gW.reshape(k, d, H, d), 1, 2) * r
    return float(np.mean(losses)), {"U": gU, "W": gW}


def loss(params: Params, X: np.ndarray, y: np.ndarray, *, loss_name: str = "logistic") -> float:
    """Empirical risk L(theta) = (1/n) sum_i l(y_i Phi(theta; X_i)), by the fused hot path
    :func:`loss_and_grad_batched` (the :class:`Cache` route gives the same value to rounding)."""
    X, y = _check_data(params, X, y)
    name = check_choice("loss_name", loss_name, tuple(LOSSES))
    return float(loss_and_grad_batched(*_batch(params, X, y), loss_name=name, grad=False)[0][0])


def loss_and_grad(
    params: Params,
    X: np.ndarray,
    y: np.ndarray,
    *,
    loss_name: str = "logistic",
    validate: bool = True,
) -> tuple[float, dict[str, np.ndarray]]:
    """(L(theta), grad L(theta)); the gradient has the blocks of ``params``. Computed by the fused,
    sample-chunked hot path :func:`loss_and_grad_batched` (a batch of one; the :class:`Cache` route,
    ``forward`` then ``_weighted_grad``, gives the same values to rounding)."""
    if validate:
        X, y = _check_data(params, X, y)
        check_choice("loss_name", loss_name, tuple(LOSSES))
    L, g = loss_and_grad_batched(*_batch(params, X, y), loss_name=loss_name)
    return float(L[0]), {"U": g["U"][0], "W": g["W"][0]}


def _dir_tensors(cache: Cache, dU: np.ndarray, dW: np.ndarray):
    """For directions dU (k, H, T, d), dW (k, H, d, d): dA, dV, dS (k, n, T, H, T) and the JVP
    d Phi_i (k, n)."""
    H = cache.dims[1]
    dA = _logits(dW, cache.X)
    dV = _values(dU, cache.X)
    S = cache.S
    dS = S * (dA - np.sum(S * dA, axis=-1, keepdims=True))
    jvp = (np.sum(cache.G * dA, axis=(-3, -2, -1)) + np.sum(S * dV, axis=(-3, -2, -1))) / np.sqrt(H)
    return dA, dV, dS, jvp


def _second_order(
    cache: Cache, dV: np.ndarray, dS: np.ndarray, c: np.ndarray, e: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """sum_i c_i (grad^2 Phi_i) v for the k directions encoded by (dV, dS), plus sum_i e[k, i] grad Phi_i
    when ``e`` (k, n) is given (the Gauss-Newton term, fused into the same contractions)."""
    n, H, T, d = cache.dims
    k = dV.shape[0]
    S, V, SV = cache.S, cache.V, cache.SV
    # differential of G = S (V - SV): dG = dS (V - SV) + S (dV - sum_s(dS V + S dV))
    dG = dS * (V - SV) + S * (dV - np.sum(dS * V + S * dV, axis=-1, keepdims=True))
    r = 1.0 / np.sqrt(H)
    cb = c[:, None, None, None]
    dS = dS * cb
    dG *= cb
    if e is not None:  # grad Phi_i = (S_i X_i, X_i^T G_i X_i) / sqrt(H): add e_i S_i and e_i G_i
        eb = e[:, :, None, None, None]
        dS += eb * S
        dG += eb * cache.G
    hU = np.tensordot(dS.reshape(k, n, T * H, T), cache.X, axes=([1, 3], [0, 1]))  # (k, T H, d)
    hU = np.swapaxes(hU.reshape(k, T, H, d), 1, 2)
    dGX = (dG.reshape(k, n, T * H, T) @ cache.X).reshape(k, n * T, H * d)
    hW = np.swapaxes(cache.X.reshape(n * T, d), 0, 1) @ dGX  # (k, d, H d)
    hW = np.swapaxes(hW.reshape(k, d, H, d), 1, 2)
    return {"U": hU * r, "W": hW * r}


def _dirs(v: Params, H: int, T: int, d: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """(dU (k, H, T, d), dW (k, H, d, d), single): the blocks of ``v``, given a leading axis k = 1 when
    they have none (``single``)."""
    dU = np.asarray(v["U"], dtype=np.float64)
    dW = np.asarray(v["W"], dtype=np.float64)
    single = dU.ndim == 3
    if single:
        dU, dW = dU[None], dW[None]
    if dU.shape[1:] != (H, T, d) or dW.shape[1:] != (H, d, d) or dU.shape[0] != dW.shape[0]:
        raise ValueError(f"directions must be (k, H, T, d) and (k, H, d, d), got {dU.shape}, {dW.shape}")
    return dU, dW, single


def phi_hvp(params: Params, X: np.ndarray, v: Params, c: np.ndarray | None = None) -> dict:
    """sum_i c_i grad^2 Phi(theta; X_i) v (c defaults to all ones); v blocks may carry a leading
    direction axis k, and the result then does too."""
    cache = forward(params, X)
    n = cache.X.shape[0]
    c = np.ones(n) if c is None else check_array("c", c, shape=(n,))
    dU, dW, single = _dirs(v, *cache.dims[1:])
    _, dV, dS, _ = _dir_tensors(cache, dU, dW)
    out = _second_order(cache, dV, dS, c)
    return {k: o[0] for k, o in out.items()} if single else out


def loss_hvp(
    params: Params,
    X: np.ndarray,
    y: np.ndarray,
    v: Params,
    *,
    loss_name: str = "logistic",
    curvature_only: bool = False,
    cache: Cache | None = None,
) -> dict[str, np.ndarray]:
    """grad^2 L(theta) v = (1/n) sum_i [l''_i <grad Phi_i, v> grad Phi_i + l'_i y_i grad^2 Phi_i v].

    ``curvature_only`` drops the (PSD) Gauss-Newton term: the result is M v with
    M = (1/n) sum_i l'_i y_i grad^2 Phi_i, which is block-diagonal across heads. v may carry a
    leading direction axis k. Without ``cache``: the fused, sample-chunked hot path :func:`_fused_hvp`;
    with a ``cache`` (the Lanczos loop and the dense oracle, which reuse one forward pass): the
    :class:`Cache` route. The two agree to rounding.
    """
    if cache is None:
        X, y = _check_data(params, X, y)
        check_choice("loss_name", loss_name, tuple(LOSSES))
        dU, dW, single = _dirs(v, *np.shape(params["U"]))
        _, out = _fused_hvp(params, X, y, loss_name, dU, dW, gauss_newton=not curvature_only)
        return {k: o[0] for k, o in out.items()} if single else out
    _, l1, l2 = LOSSES[check_choice("loss_name", loss_name, tuple(LOSSES))](y * cache.phi)
    n = y.size
    dU, dW, single = _dirs(v, *cache.dims[1:])
    _, dV, dS, jvp = _dir_tensors(cache, dU, dW)
    out = _second_order(cache, dV, dS, l1 * y / n, None if curvature_only else jvp * (l2 / n))
    return {k: o[0] for k, o in out.items()} if single else out


def _basis(H: int, T: int, d: int, cols: np.ndarray) -> dict[str, np.ndarray]:
    """Unit vectors e_j (j in cols) of R^p as direction blocks (k, H, T, d), (k, H, d, d)."""
    p = n_params(H, T, d)
    E = np.zeros((cols.size, p))
    E[np.arange(cols.size), cols] = 1.0
    return unpack(E, H, T, d)


def _head_hessians(cache: Cache, w: np.ndarray) -> np.ndarray:
    """Per-head Hessian blocks (k, H, q, q) of sum_i w[k, i] Phi(theta; X_i) for weights w (k, n), q = T d +
    d^2 (rows and columns [vec U_h, vec W_h]), in closed form (derivation Sect. 1.3) from one forward pass.

    With f_h(X) = sum_t sum_s S_ts (u_t . x_s) and the attention moments of query t (head h)
    xbar_t = sum_s S_ts x_s, C_t = sum_s S_ts x_s x_s^T - xbar_t xbar_t^T, g_t = sum_s G_ts x_s and
    N_t = sum_s G_ts x_s x_s^T - g_t xbar_t^T - xbar_t g_t^T (G = S (V - sum_s S V) as in :class:`Cache`):
    d^2 f / du_{t,a} dW_{bc} = x_{t,b} C_t[a, c], d^2 f / dW_{bc} dW_{b'c'} = sum_t x_{t,b} x_{t,b'}
    N_t[c, c'] and the U-U block is 0; every block carries the factor 1/sqrt(H). The weighted sums over
    samples are GEMMs over (sample, query) pairs."""
    n, H, T, d = cache.dims
    k, d2, TH = w.shape[0], d * d, T * H
    X = cache.X
    S2, G2 = cache.S.reshape(n, TH, T), cache.G.reshape(n, TH, T)
    XX = (X[:, :, :, None] * X[:, :, None, :]).reshape(n, T, d2)  # x_s x_s^T
    xbar, g = S2 @ X, G2 @ X  # (n, TH, d)
    C = (S2 @ XX).reshape(n, TH, d, d) - xbar[..., :, None] * xbar[..., None, :]
    N = (
        (G2 @ XX).reshape(n, TH, d, d)
        - g[..., :, None] * xbar[..., None, :]
        - xbar[..., :, None] * g[..., None, :]
    )
    # U-W: (t, [k, b], i) @ (t, i, [h, a, c]) -> (k, h, (t, a), (b, c))
    Xw = (w[:, :, None, None] * X).transpose(2, 0, 3, 1).reshape(T, k * d, n)
    uw = np.matmul(Xw, C.reshape(n, T, H * d2).transpose(1, 0, 2)).reshape(T, k, d, H, d, d)
    uw = uw.transpose(1, 3, 0, 4, 2, 5).reshape(k, H, T * d, d2)
    # W-W: ([k, (b, b')], (i, t)) @ ((i, t), [h, (c, c')]) -> (k, h, (b, c), (b', c'))
    Pw = (w[:, :, None, None] * XX).reshape(k, n * T, d2).transpose(0, 2, 1).reshape(k * d2, n * T)
    ww = (Pw @ N.reshape(n * T, H * d2)).reshape(k, d, d, H, d, d)
    ww = ww.transpose(0, 3, 1, 4, 2, 5).reshape(k, H, d2, d2)
    r = 1.0 / math.sqrt(H)
    out = np.zeros((k, H, T * d + d2, T * d + d2))
    out[..., : T * d, T * d :] = uw * r
    out[..., T * d :, : T * d] = np.swapaxes(uw, -1, -2) * r
    out[..., T * d :, T * d :] = ww * r
    return out


def phi_head_blocks(params: Params, X: np.ndarray) -> np.ndarray:
    """Per-sample, per-head Hessian blocks of Phi: (n, H, q, q), q = T d + d^2, INCLUDING the
    1/sqrt(H) factor (closed form, :func:`_head_hessians`). The full Hessian of Phi(.; X_i) is
    block-diag(blocks[i, 0], ..., blocks[i, H-1])."""
    cache = forward(params, X)
    return _head_hessians(cache, np.eye(cache.X.shape[0]))


def single_query_params(params: Params) -> dict[str, np.ndarray]:
    """The parameters of the single-query variant V1 (derivation Sect. 1.2) embedded in the full model:
    Phi_V1(u, W; X) = (1/sqrt(H)) sum_h u_h^T X^T softmax(X W_h^T x_1) equals the full model with
    U_{h,0} = u_h and U_{h,t} = 0 for t >= 1, so V1 keeps row 0 of every U_h and zeroes the rest."""
    check_params(params)
    U = np.zeros_like(params["U"])
    U[:, 0] = params["U"][:, 0]
    return {"U": U, "W": np.array(params["W"], dtype=np.float64)}


def v1_head_blocks(params: Params, X: np.ndarray) -> np.ndarray:
    """Per-sample, per-head Hessian blocks (n, H, d + d^2, d + d^2) of the V1 model in its own
    parameters (u_h, W_h), at the V1 point of ``params`` (row 0 of each U_h). Exact: the V1 model is
    the full model restricted to the affine subspace {U_{h,t} = 0, t >= 1}, so its Hessian is the
    (u_{h,0}, W_h) sub-block of the full Hessian taken AT a point of that subspace."""
    _, T, d = check_params(params)
    blocks = phi_head_blocks(single_query_params(params), X)
    keep = np.concatenate([np.arange(d), T * d + np.arange(d * d)])
    return blocks[:, :, keep][:, :, :, keep]


def curvature_blocks(params: Params, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Blocks (H, q, q) of M = (1/n) sum_i l'_i y_i grad^2 Phi_i (logistic), the non-PSD part of
    grad^2 L. Since grad^2 L = M + PSD, lambda_min(grad^2 L) >= min_h lambda_min(M_h). Closed form
    (:func:`_head_hessians`) with the weights l'_i y_i / n."""
    X, y = _check_data(params, X, y)
    cache = forward(params, X, validate=False)
    _, l1, _ = logistic(y * cache.phi)
    return _head_hessians(cache, (l1 * y / y.size)[None])[0]


def hessian_phi(params: Params, x: np.ndarray) -> np.ndarray:
    """Dense p x p Hessian of Phi(.; x) for ONE sample x (T, d) (small p only)."""
    H, T, d = check_params(params)
    p = n_params(H, T, d)
    out = phi_hvp(params, np.asarray(x)[None], _basis(H, T, d, np.arange(p)))
    Hm = np.concatenate([out["U"].reshape(p, -1), out["W"].reshape(p, -1)], axis=1)
    return Hm.T


def hessian_loss_hvp(params: Params, X: np.ndarray, y: np.ndarray, *, chunk: int = 256) -> np.ndarray:
    """Dense p x p Hessian of L (logistic) by HVPs on the unit vectors, ``chunk`` at a time (the
    oracle for :func:`hessian_loss`)."""
    H, T, d = check_params(params)
    X, y = _check_data(params, X, y)
    cache = forward(params, X, validate=False)
    p = n_params(H, T, d)
    cols = []
    for j0 in range(0, p, chunk):
        idx = np.arange(j0, min(p, j0 + chunk))
        out = loss_hvp(params, X, y, _basis(H, T, d, idx), cache=cache)
        cols.append(np.concatenate([out["U"].reshape(idx.size, -1), out["W"].reshape(idx.size, -1)], 1))
    Hm = np.concatenate(cols, axis=0).T
    return (Hm + Hm.T) / 2


def hessian_loss(
    params: Params, X: np.ndarray, y: np.ndarray, blocks: np.ndarray | None = None
) -> np.ndarray:
    """Dense p x p Hessian of L (logistic) as block-diag_h(M_h) + F^T diag(l''/n) F, where M is the
    head-block-diagonal curvature part (:func:`curvature_blocks`, or ``blocks`` when already computed)
    and F the (n, p) NTK features."""
    X, y = _check_data(params, X, y)
    H, T, d = np.shape(params["U"])
    q = T * d + d * d
    Bk = curvature_blocks(params, X, y) if blocks is None else check_array("blocks", blocks, shape=(H, q, q))
    p = n_params(H, T, d)
    nu = H * T * d
    idx = np.concatenate([np.arange(nu).reshape(H, T * d), nu + np.arange(H * d * d).reshape(H, d * d)], 1)
    Hm = np.zeros((p, p))
    rows = idx[:, :, None]
    cols = idx[:, None, :]
    Hm[rows, cols] = Bk.reshape(H, q, q)
    cache = forward(params, X, validate=False)  # one forward pass for Phi and the features
    _, _, l2 = logistic(y * cache.phi)
    F = cache_features(cache)
    Hm += F.T @ (F * (l2 / y.size)[:, None])
    return (Hm + Hm.T) / 2


def phi_hessian_norms(params: Params, X: np.ndarray) -> np.ndarray:
    """||grad^2 Phi(theta; X_i)||_2 for every sample (n,), exact: the largest spectral norm of the
    per-head blocks."""
    blocks = phi_head_blocks(params, X)
    ev = np.linalg.eigvalsh((blocks + np.swapaxes(blocks, -1, -2)) / 2)  # (n, H, q)
    return np.max(np.abs(ev), axis=(1, 2))


def curvature_lambda_min(params: Params, X: np.ndarray, y: np.ndarray) -> float:
    """min_h lambda_min(M_h) <= lambda_min(grad^2 L(theta)) (a rigorous lower bound; see
    :func:`curvature_blocks`)."""
    B = curvature_blocks(params, X, y)
    return float(np.min(np.linalg.eigvalsh((B + np.swapaxes(B, -1, -2)) / 2)))


#: parameters above which the exact extremes of grad^2 L come from :func:`_structured_extremes` instead of a
#: dense eigh (measured at n = 30: equal at p = 448, 3.4x faster at 896, 80x at 3584)
STRUCTURED_P = 500
#: bracket width at which :func:`_structured_extremes` stops, relative to the spectrum's scale
BISECT_RTOL = 1e-14


def _structured_extremes(
    params: Params, X: np.ndarray, y: np.ndarray, blocks: np.ndarray | None = None
) -> tuple[float, float]:
    """(lambda_min, ||.||_2) of grad^2 L = blockdiag_h(M_h) + Z Z^T (Z = F^T diag(l''/n)^(1/2), rank <= n)
    by bisection on Sylvester's inertia, to :data:`BISECT_RTOL` of the scale s = max |Lambda| + ||Z||_F^2
    (the conservative end of each bracket: the lower one for lambda_min, the upper one for the norm).

    With M_h = Q_h Lambda_h Q_h^T (p x p: Lambda + Y Y^T, Y = Q^T Z) and T(x) = I_n + Y^T (Lambda - x)^(-1) Y,
    the inertia of [[Lambda - x, Y], [Y^T, -I]] taken by its two Schur complements (Haynsworth) gives the
    number of eigenvalues below x as #{Lambda_j < x} - #{eigenvalues of T(x) < 0}: an n x n eigen-solve
    per step instead of the dense p x p one. Brackets: lambda_min in [Lambda_min, Lambda_j + ||Y_j||^2]
    (j the index of Lambda_min; a Rayleigh quotient), lambda_max in [max_j (Lambda_j + ||Y_j||^2),
    Lambda_max + ||Y||_F^2]."""
    H, T, d = check_params(params)
    X, y = _check_data(params, X, y)
    q, nu = T * d + d * d, H * T * d
    Bk = curvature_blocks(params, X, y) if blocks is None else check_array("blocks", blocks, shape=(H, q, q))
    lam, Q = np.linalg.eigh((Bk + np.swapaxes(Bk, -1, -2)) / 2)  # (H, q), (H, q, q)
    cache = forward(params, X, validate=False)  # one forward pass for Phi and the features
    _, _, l2 = logistic(y * cache.phi)
    F = cache_features(cache) * np.sqrt(l2 / y.size)[:, None]  # (n, p), rows Z^T
    n = F.shape[0]
    Zh = np.concatenate([F[:, :nu].reshape(n, H, T * d), F[:, nu:].reshape(n, H, d * d)], axis=2)  # (n, H, q)
    Y = (np.swapaxes(Q, 1, 2) @ np.moveaxis(Zh, 0, 2)).reshape(H * q, n)
    lam = lam.ravel()
    rows = np.sum(Y * Y, axis=1)
    width = BISECT_RTOL * (float(np.max(np.abs(lam))) + float(rows.sum()))

    def below(x: float) -> int:
        T_x = np.eye(n) + (Y / (lam - x)[:, None]).T @ Y
        return int(np.sum(lam < x)) - int(np.sum(np.linalg.eigvalsh(T_x) < 0))

    def bisect(lo: float, hi: float, count: int) -> tuple[float, float]:
        """The bracket [lo, hi] of the count-th smallest eigenvalue narrowed to ``width``."""
        while hi - lo > width:
            mid = 0.5 * (lo + hi)
            mid = np.nextafter(mid, hi) if np.any(lam == mid) else mid  # T(x) needs x off the poles
            lo, hi = (lo, mid) if below(mid) >= count else (mid, hi)
        return lo, hi

    j = int(np.argmin(lam))
    lam_min = bisect(float(lam[j]), float(lam[j] + rows[j]), 1)[0]
    lam_max = bisect(float(np.max(lam + rows)), float(lam.max() + rows.sum()), lam.size)[1]
    return lam_min, max(abs(lam_min), abs(lam_max))


def loss_hessian_extremes(
    params: Params,
    X: np.ndarray,
    y: np.ndarray,
    *,
    dense_max: int = 1200,
    tol: float = 1e-8,
    blocks: np.ndarray | None = None,
) -> tuple[float, float]:
    """(lambda_min, ||.||_2) of grad^2 L: exact for p <= dense_max (``blocks``: precomputed
    :func:`curvature_blocks`): dense eigh up to :data:`STRUCTURED_P` parameters, the inertia bisection of
    :func:`_structured_extremes` above; Lanczos (eigsh on the exact HVP, tol 1e-8) for p > dense_max."""
    H, T, d = check_params(params)
    p = n_params(H, T, d)
    if STRUCTURED_P < p <= dense_max:
        return _structured_extremes(params, X, y, blocks)
    if p <= dense_max:
        ev = np.linalg.eigvalsh(hessian_loss(params, X, y, blocks))
        return float(ev[0]), float(np.max(np.abs(ev)))
    from scipy.sparse.linalg import LinearOperator, eigsh

    X, y = _check_data(params, X, y)
    cache = forward(params, X, validate=False)

    def mv(v: np.ndarray) -> np.ndarray:
        out = loss_hvp(params, X, y, unpack(np.ravel(v), H, T, d), cache=cache)
        return pack(out)

    op = LinearOperator((p, p), matvec=mv, dtype=np.float64)
    v0 = np.random.default_rng(0).standard_normal(p)
    lo = eigsh(op, k=1, which="SA", tol=tol, v0=v0, ncv=min(p, 40), return_eigenvectors=False)
    hi = eigsh(op, k=1, which="LA", tol=tol, v0=v0, ncv=min(p, 40), return_eigenvectors=False)
    return float(lo[0]), float(max(abs(lo[0]), abs(hi[0])))


def attention_mass(params: Params, X: np.ndarray, mask: np.ndarray) -> float:
    """Mean attention probability that rows put on the tokens flagged by ``mask`` (n, T) bool."""
    cache = forward(params, X)
    m = np.asarray(mask, dtype=np.float64)[:, None, None, :]
    return float(np.mean(np.sum(cache.S * m, axis=-1)))


def quadratic_form(params: Params, x: np.ndarray, v: np.ndarray) -> float:
    """D^2 Phi(theta; x)[v, v] for one sample x (T, d) and a packed direction v (p,), by the closed form
    (1/sqrt(H)) sum_h sum_t [2 Cov_{s_t}(dv_t, da_t) + k3_{s_t}(v_t, da_t, da_t)] with dv_t = X du_t,
    da_t = X dW_h^T x_t (derivation Sect. 1.3; written independently of the HVP code, as its check)."""
    H, T, d = check_params(params)
    dirs = unpack(v, H, T, d)
    c = forward(params, x[None])
    S = np.swapaxes(c.S[0], 0, 1)  # (H, t, s)
    Vv = np.swapaxes(c.V[0], 0, 1)
    dv = np.einsum("sd,htd->hts", x, dirs["U"])
    da = np.einsum("td,hde,se->hts", x, dirs["W"], x)  # row t: X dW^T x_t, i.e. x_t^T dW x_s

    def mean(a: np.ndarray) -> np.ndarray:
        return np.sum(S * a, axis=-1, keepdims=True)

    cov = mean(dv * da) - mean(dv) * mean(da)
    k3 = mean((Vv - mean(Vv)) * (da - mean(da)) ** 2)
    return float(np.sum(2 * cov + k3) / np.sqrt(H))


@dataclass(frozen=True)
class MultiHeadAttention:
    """The classifier Phi(theta; X) with the empirical risk L(theta) = (1/n) sum_i l(y_i Phi(theta; X_i))
    as a :class:`verify.numerics.model.Model` over :class:`AttnParams` and a :class:`Batch`. loss_name:
    ``"logistic"`` (the paper's loss) or ``"exponential"``. Shapes (H, T, d) come from the parameters."""

    loss_name: str = "logistic"

    def __post_init__(self) -> None:
        check_choice("loss_name", self.loss_name, tuple(LOSSES))

    def forward(self, params: Params, batch: Batch) -> np.ndarray:
        """Phi(theta; X_i), shape (n,)."""
        return phi(params, batch.X)

    def loss(self, params: Params, batch: Batch) -> float:
        return loss(params, batch.X, batch.y, loss_name=self.loss_name)

    def loss_and_grad(
        self, params: Params, batch: Batch, *, validate: bool = True
    ) -> tuple[float, AttnParams]:
        L, g = loss_and_grad(params, batch.X, batch.y, loss_name=self.loss_name, validate=validate)
        return L, AttnParams(**g)

    def hvp(self, params: Params, batch: Batch, v: Params) -> AttnParams:
        """grad^2 L(theta) v (see :func:`loss_hvp`)."""
        return AttnParams(**loss_hvp(params, batch.X, batch.y, v, loss_name=self.loss_name))
