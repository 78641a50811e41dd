"""The reference model: position-only attention, student ``TF(X) = sigma(W_V X A)``, teacher sigma(V* X S*).

Shapes: X (d, D) tokens as columns; V* (M, d); S* (D, D) with column i supported on G_i; P (D, D)
orthogonal; W_KQ (D, D); W_V (M, d). Logits ``Lam = P^T W_KQ P / sqrt(D)`` (key j, query i), attention
``A = column-softmax(Lam)`` (every column sums to 1). Loss ``L = 1/2 E ||Y - TF||_F^2``; everything here
is the *excess* loss (the noise floor removed). Gradients are hand-derived (never autodiff).

* :class:`PositionAttention` -- the :class:`~verify.numerics.model.Model`: the closed-form population
  loss on a :class:`~verify.zhang2026.data.Population`, the empirical loss on a
  :class:`~verify.zhang2026.data.Sample`; parameters :class:`Params` (``W_V``, ``W_KQ``).
* :func:`linear_loss_grad` -- sigma = id, iid entries of mean ``mu`` and variance ``sx2``; only second
  moments enter, so Gaussian, t, Gumbel and exponential inputs give the same formula.
* :func:`dual_loss_grad` -- ReLU (``alpha = 0``) / leaky ReLU, Gaussian inputs, arc-cosine (dual-kernel)
  closed form. It is not differentiable at ``W_V = 0``; there :func:`zero_init_grad_dual` gives the
  gradient with a stated convention sigma'(0) (Stein's lemma).
* :class:`FullTF` -- the full one-layer transformer on Z = [X; P] (the paper's ablation).
* :func:`scalar_excess` and friends -- the excess in the 2-scalar (C1, g) coordinates of uniform-K
  teachers (the recursions themselves run in :mod:`verify.zhang2026.experiments`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from bounds.checks import check_int, check_real
from verify.numerics.model import ParamBlocks
from verify.numerics.softmax import softmax, softmax_vjp
from verify.zhang2026.data import Population, Sample, tokens_first

Grads = dict[str, np.ndarray]


@dataclass(frozen=True)
class Params(ParamBlocks):
    """The student's parameters: W_V (M, d) value matrix, W_KQ (D, D) key-query matrix."""

    W_V: np.ndarray
    W_KQ: np.ndarray

    @classmethod
    def zeros(cls, M: int, d: int, D: int) -> Params:
        """The paper's zero initialisation."""
        return cls(np.zeros((M, d)), np.zeros((D, D)))


def logits(W_KQ: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Lam = P^T W_KQ P / sqrt(D), shape (..., D, D) (any leading run axes); entry (j, i) = key j,
    query i."""
    D = P.shape[-1]
    return P.swapaxes(-1, -2) @ W_KQ @ P / math.sqrt(D)


def attention(W_KQ: np.ndarray, P: np.ndarray) -> np.ndarray:
    """A = S(W_KQ) = column-softmax of the logits, shape (..., D, D), columns sum to 1."""
    return softmax(logits(W_KQ, P), axis=-2)


def kq_backward(A: np.ndarray, G_A: np.ndarray, P: np.ndarray) -> np.ndarray:
    """dL/dW_KQ = P (dL/dLam) P^T / sqrt(D) from dL/dA = G_A (column-softmax backprop), (..., D, D)."""
    D = P.shape[-1]
    return P @ softmax_vjp(A, G_A, axis=-2) @ P.swapaxes(-1, -2) / math.sqrt(D)


def inner(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """<a_s, b_s> of each run s over all its other axes: (n, ...) x (n, ...) -> (n,). Each run's sum is a
    pairwise sum of its own entries only, so it does not depend on the other runs of the batch."""
    p = a * b
    return np.add.reduce(p.reshape(p.shape[0], -1), axis=1)


def grams(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(<x_s, x_s>, <x_s, y_s>, <y_s, y_s>) of each run s (n,) by one Gram product per run (one call for
    three inner products of small blocks; each run's values from its own slices only)."""
    n = x.shape[0]
    F = np.concatenate((x.reshape(n, 1, -1), y.reshape(n, 1, -1)), axis=1)  # (n, 2, k)
    G = F @ F.swapaxes(1, 2)
    return G[:, 0, 0], G[:, 0, 1], G[:, 1, 1]


def _runs(x: np.ndarray) -> np.ndarray:
    """(n,) -> (n, 1, 1): a per-run scalar against (n, ., .) blocks."""
    return x[:, None, None]


def one(
    batched: Callable[..., tuple[np.ndarray, Grads]], *arrays: np.ndarray, **kw: Any
) -> tuple[float, Grads]:
    """A batched loss-and-gradient function on one problem: each array gains a leading run axis of
    length one, and the loss and the gradient blocks lose it (the unbatched model is a batch of one)."""
    loss, g = batched(*(np.asarray(a)[None] for a in arrays), **kw)
    return float(loss[0]), {k: v[0] for k, v in g.items()}


def random_orthogonal(D: int, rng: np.random.Generator) -> np.ndarray:
    """A Haar-random orthogonal (D, D) matrix (QR of a Gaussian matrix with sign fix)."""
    D = check_int("D", D)
    q, r = np.linalg.qr(rng.standard_normal((D, D)))
    return q * np.sign(np.diag(r))


@dataclass(frozen=True)
class Act:
    """Elementwise activation: ``name`` in {"linear", "relu", "leaky"}; ``alpha`` the leaky slope.

    sigma'(0) := ``dprime0`` (with sigma'(0) = 0 a zero-initialised ReLU student never moves).
    """

    name: str = "linear"
    alpha: float = 0.1
    dprime0: float = 1.0

    def __post_init__(self) -> None:
        if self.name not in ("linear", "relu", "leaky"):
            raise ValueError(f"activation name must be one of ('linear', 'relu', 'leaky'), got {self.name!r}")
        check_real("alpha", self.alpha, low=0.0, high=1.0)
        check_real("dprime0", self.dprime0, low=0.0)

    @property
    def slope(self) -> float:
        """Negative-side slope: 1 (linear), 0 (ReLU), alpha (leaky)."""
        return {"linear": 1.0, "relu": 0.0, "leaky": self.alpha}[self.name]

    def __call__(self, z: np.ndarray) -> np.ndarray:
        return np.where(z >= 0, z, self.slope * z)

    def prime(self, z: np.ndarray) -> np.ndarray:
        return np.where(z > 0, 1.0, np.where(z < 0, self.slope, self.dprime0))

    def times_prime(self, r: np.ndarray, z: np.ndarray) -> np.ndarray:
        """r * sigma'(z), the same numbers as ``r * self.prime(z)`` without the array of derivatives."""
        out = np.where(z > 0, r, self.slope * r)
        zero = z == 0
        if zero.any():
            out[zero] = self.dprime0 * r[zero]
        return out


def linear_loss_grad_batched(
    W_V: np.ndarray,
    W_KQ: np.ndarray,
    P: np.ndarray,
    V: np.ndarray,
    S: np.ndarray,
    sx2: float = 1.0,
    mu: float = 0.0,
) -> tuple[np.ndarray, Grads]:
    """Excess population loss and its gradients for sigma = id (derived closed form), for n problems at
    once: W_V, V (n, M, d); W_KQ, P, S (n, D, D).

    Entries of X iid with mean ``mu`` and variance ``sx2``: with E[X B X^T] = sx2 tr(B) I for the centred
    part, ``excess = sx2/2 [||V||^2 ||S||^2 - 2 <V,W_V><S,A> + ||W_V||^2 ||A||^2]
    + mu^2/2 ||V 1_d (1^T S) - W_V 1_d 1^T||^2``. Returns (excess (n,), {"W_V": (n, M, d), "W_KQ":
    (n, D, D)}); every run's values are computed from its own slices only.
    """
    A = attention(W_KQ, P)
    vv, vw, ww = grams(V, W_V)
    ss, sa, aa = grams(S, A)
    loss = 0.5 * sx2 * (vv * ss - 2.0 * vw * sa + ww * aa)
    g_v = sx2 * (_runs(aa) * W_V - _runs(sa) * V)
    g_a = sx2 * (_runs(ww) * A - _runs(vw) * S)
    if mu != 0.0:
        w = W_V.sum(axis=-1)  # (n, M)
        # the mean residual / mu, (n, M, D): V 1_d (1^T S) - W_V 1_d (1^T A)
        R = (
            V.sum(axis=-1)[:, :, None] * S.sum(axis=-2)[:, None, :]
            - w[:, :, None] * A.sum(axis=-2)[:, None, :]
        )
        loss = loss + 0.5 * mu * mu * inner(R, R)
        g_v = g_v - mu * mu * R.sum(axis=-1)[:, :, None]
        g_a = g_a - mu * mu * (w[:, None, :] @ R)
    return loss, {"W_V": g_v, "W_KQ": kq_backward(A, g_a, P)}


def linear_loss_grad(
    W_V: np.ndarray,
    W_KQ: np.ndarray,
    P: np.ndarray,
    V: np.ndarray,
    S: np.ndarray,
    sx2: float = 1.0,
    mu: float = 0.0,
) -> tuple[float, Grads]:
    """:func:`linear_loss_grad_batched` on one problem (W_V (M, d), W_KQ (D, D), ...): (excess, {"W_V":
    (M, d), "W_KQ": (D, D)})."""
    return one(linear_loss_grad_batched, W_V, W_KQ, P, V, S, sx2=sx2, mu=mu)


def second_moments(X: np.ndarray) -> np.ndarray:
    """The empirical second-moment tensor of inputs X (N, d, D) as a (d*d, D*D) matrix:
    T[(a, b), (j, k)] = mean_n X_n[a, j] X_n[b, k] (no centring: the raw moments of the data)."""
    N, d, D = X.shape
    Xf = X.reshape(N, d * D)
    return (Xf.T @ Xf / N).reshape(d, D, d, D).transpose(0, 2, 1, 3).reshape(d * d, D * D)


def moment_loss_const(V: np.ndarray, S: np.ndarray, T: np.ndarray) -> float:
    """The constant term 1/2 <T, V*^T V* (x) S* S*^T> of :func:`moment_loss_grad`'s loss."""
    return 0.5 * float((V.T @ V).ravel() @ (T @ (S @ S.T).ravel()))


def moment_loss_grad(
    W_V: np.ndarray,
    W_KQ: np.ndarray,
    P: np.ndarray,
    V: np.ndarray,
    S: np.ndarray,
    T: np.ndarray,
    const: float | None = None,
) -> tuple[float, Grads]:
    """Linear sigma, any input law given by its second-moment tensor T (:func:`second_moments`): the
    loss 1/2 E ||V* X S* - W_V X A||_F^2 and its gradients, exactly (full-batch GD on a data set costs
    O(d^2 D^2) per step, independent of its size). With Q = V*^T W_V, R = S* A^T and
    <T, Q (x) R> = sum T[(a,b),(j,k)] Q[a,b] R[j,k]:
    loss = 1/2 <T, V*^T V* (x) S* S*^T> - <T, Q (x) R> + 1/2 <T, W_V^T W_V (x) A A^T>; ``const``: the first
    term, :func:`moment_loss_const` (V, S, T), when a GD run computed it once for all its steps."""
    A = attention(W_KQ, P)
    d, D = V.shape[1], S.shape[0]
    qc, qq = (V.T @ W_V).ravel(), (W_V.T @ W_V).ravel()
    rc, rq = (S @ A.T).ravel(), (A @ A.T).ravel()
    Gq, Gc = (T @ rq).reshape(d, d), (T @ rc).reshape(d, d)
    const = moment_loss_const(V, S, T) if const is None else const
    loss = const - float(qc @ Gc.ravel()) + 0.5 * float(qq @ Gq.ravel())
    Hq, Hc = (qq @ T).reshape(D, D), (qc @ T).reshape(D, D)
    g_v = W_V @ Gq - V @ Gc
    g_a = Hq @ A - Hc.T @ S
    return loss, {"W_V": g_v, "W_KQ": kq_backward(A, g_a, P)}


def linear_excess_residual(
    W_V: np.ndarray, A: np.ndarray, V: np.ndarray, S: np.ndarray, sx2: float = 1.0
) -> float:
    """Cancellation-free linear excess 1/2 sx2 ||V* (x) S* - W_V (x) A||_F^2 (Kronecker form; small sizes).

    Equal to the closed form of :func:`linear_loss_grad` (mu = 0) but accurate to relative round-off
    even when the excess is 1e-20 of the loss scale.
    """
    return 0.5 * sx2 * float(np.sum((np.kron(V, S) - np.kron(W_V, A)) ** 2))


def _dual_terms(
    W_V: np.ndarray, A: np.ndarray, V: np.ndarray, S: np.ndarray, sx2: float
) -> tuple[np.ndarray, ...]:
    """Per run (leading axis n) and entry (m, i): Var h_mi, Var y_mi, Cov(h_mi, y_mi), sqrt(ab - c^2)
    and arcsin(c / sqrt(ab)), each (n, M, D)."""

    def outer(x: np.ndarray, y: np.ndarray) -> np.ndarray:  # row norms of (n, M, .) x column norms
        return sx2 * (np.sum(x, axis=-1)[:, :, None] * np.sum(y, axis=-2)[:, None, :])

    a, b, c = outer(W_V * W_V, A * A), outer(V * V, S * S), outer(W_V * V, A * S)
    root = np.sqrt(np.maximum(a * b - c * c, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where(a * b > 0, c / np.sqrt(a * b), 0.0)
    return a, b, c, root, np.arcsin(np.clip(rho, -1.0, 1.0))


def _dual_coefs(alpha: float) -> tuple[float, float, float]:
    """(b1^2, b2^2, gamma) of sigma(z) = b1 z + b2 |z|, b1 = (1+alpha)/2, b2 = (1-alpha)/2."""
    return (1 + alpha) ** 2 / 4, (1 - alpha) ** 2 / 4, (1 + alpha * alpha) / 2


def _dual_value(terms: tuple[np.ndarray, ...], alpha: float) -> np.ndarray:
    """The dual-kernel excess of each run (n,) from :func:`_dual_terms`."""
    b1, b2, gam = _dual_coefs(alpha)
    a, b, c, root, asin = terms
    v = 0.5 * gam * (a + b) - b1 * c - b2 * (2 / np.pi) * (root + c * asin)
    return np.add.reduce(v.reshape(v.shape[0], -1), axis=1)


def dual_loss_grad_batched(
    W_V: np.ndarray,
    W_KQ: np.ndarray,
    P: np.ndarray,
    V: np.ndarray,
    S: np.ndarray,
    alpha: float,
    sx2: float = 1.0,
) -> tuple[np.ndarray, Grads]:
    """Excess population loss of sigma = leaky ReLU with slope ``alpha`` (ReLU: 0), Gaussian inputs, for
    n problems at once (shapes as :func:`linear_loss_grad_batched`).

    Per entry (m, i) the pair (h, y) = (w_m^T X a_i, v_m^T X s_i) is bivariate Gaussian with variances
    a, b and covariance c. Writing sigma(z) = b1 z + b2 |z| (b1 = (1+alpha)/2, b2 = (1-alpha)/2):
    E sigma(h)^2 = g a with g = (1+alpha^2)/2, and E sigma(h) sigma(y) = b1^2 c + b2^2 (2/pi) J with
    J = sqrt(ab - c^2) + c arcsin(c / sqrt(ab)); dJ/dc = arcsin(rho), dJ/da = sqrt(ab - c^2)/(2a).
    Needs every row of W_V nonzero (the closed form is not differentiable at W_V = 0).
    """
    if np.any(np.sum(W_V * W_V, axis=-1) == 0.0):
        raise ValueError(
            "W_V has a zero row: the dual-kernel loss is not differentiable there; "
            "use zero_init_grad_dual_batched at W_V = 0"
        )
    A = attention(W_KQ, P)
    b1, b2, gam = _dual_coefs(alpha)
    terms = _dual_terms(W_V, A, V, S, sx2)
    a, _, _, root, asin = terms
    L_a = 0.5 * gam - b2 * (2 / np.pi) * root / (2 * a)  # (n, M, D)
    L_c = -b1 - b2 * (2 / np.pi) * asin
    na2, as_ = np.sum(A * A, axis=-2), np.sum(A * S, axis=-2)  # (n, D)
    nw2, wv = np.sum(W_V * W_V, axis=-1), np.sum(W_V * V, axis=-1)  # (n, M)
    g_v = 2 * sx2 * (L_a @ na2[:, :, None]) * W_V + sx2 * (L_c @ as_[:, :, None]) * V
    g_a = 2 * sx2 * A * (nw2[:, None, :] @ L_a) + sx2 * S * (wv[:, None, :] @ L_c)
    return _dual_value(terms, alpha), {"W_V": g_v, "W_KQ": kq_backward(A, g_a, P)}


def dual_loss_grad(
    W_V: np.ndarray,
    W_KQ: np.ndarray,
    P: np.ndarray,
    V: np.ndarray,
    S: np.ndarray,
    alpha: float,
    sx2: float = 1.0,
) -> tuple[float, Grads]:
    """:func:`dual_loss_grad_batched` on one problem."""
    return one(dual_loss_grad_batched, W_V, W_KQ, P, V, S, alpha=alpha, sx2=sx2)


def dual_loss_batched(
    W_V: np.ndarray, A: np.ndarray, V: np.ndarray, S: np.ndarray, alpha: float, sx2: float = 1.0
) -> np.ndarray:
    """The dual-kernel excess loss (n,) of n problems at given attention matrices A (n, D, D) (also valid
    at W_V = 0)."""
    return _dual_value(_dual_terms(W_V, A, V, S, sx2), alpha)


def dual_loss(
    W_V: np.ndarray, A: np.ndarray, V: np.ndarray, S: np.ndarray, alpha: float, sx2: float = 1.0
) -> float:
    """:func:`dual_loss_batched` on one problem."""
    return float(dual_loss_batched(W_V[None], A[None], V[None], S[None], alpha, sx2)[0])


def zero_init_grad_dual_batched(
    W_KQ: np.ndarray, P: np.ndarray, V: np.ndarray, S: np.ndarray, act: Act, sx2: float = 1.0
) -> Grads:
    """Population gradient at W_V = 0 (any W_KQ) with the convention sigma'(0) := ``act.dprime0``, for n
    problems at once (W_KQ, P, S (n, D, D); V (n, M, d)).

    H = 0, so grad_{W_V} = -sigma'(0) E[sigma(V X S) A^T X^T] = -sigma'(0) E[sigma'(y)] sx2 <S, A> V*
    (Stein's lemma; E sigma'(y) = (1 + slope)/2) and grad_{W_KQ} = 0 (it carries a factor W_V).
    """
    A = attention(W_KQ, P)
    e_prime = 1.0 if act.name == "linear" else (1.0 + act.slope) / 2
    g_v = -act.dprime0 * e_prime * sx2 * _runs(inner(S, A)) * V
    return {"W_V": g_v, "W_KQ": np.zeros_like(W_KQ)}


def mc_excess(
    W_V: np.ndarray, A: np.ndarray, V: np.ndarray, S: np.ndarray, act: Act, X: np.ndarray
) -> tuple[float, float]:
    """Monte Carlo excess loss and its standard error over samples X (N, d, D), noise-free labels."""
    Y = act(np.matmul(V, X) @ S)
    H = act(np.matmul(W_V, X) @ A)
    per = 0.5 * np.sum((Y - H) ** 2, axis=(1, 2))
    return float(per.mean()), float(per.std(ddof=1) / math.sqrt(per.size))


def _tokens_flat(X: np.ndarray) -> np.ndarray:
    """Inputs (n, N, p, D) -> (n, p, N D): each run's N samples side by side (one GEMM per run)."""
    n, N, p, D = X.shape
    return X.transpose(0, 2, 1, 3).reshape(n, p, N * D)


def _sample_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """sum over samples and tokens of a (n, N, p, D) against b (n, N, q, D): (n, p, q), one GEMM per run."""
    return _tokens_flat(a) @ np.swapaxes(_tokens_flat(b), 1, 2)


def mc_loss_grad_batched(
    W_V: np.ndarray, W_KQ: np.ndarray, P: np.ndarray, X: np.ndarray, Y: np.ndarray, act: Act
) -> tuple[np.ndarray, Grads]:
    """Empirical loss 1/(2N) sum ||Y_k - sigma(W_V X_k A)||^2 and its hand gradients, for n runs at once:
    W_V (n, M, d), W_KQ and P (n, D, D), X (n, N, d, D), Y (n, N, M, D); returns (loss (n,), blocks).

    grad_{W_V} = -mean (R * sigma'(H)) A^T X^T, grad_A = -mean X^T W_V^T (R * sigma'(H)).
    """
    return mc_loss_grad_tokens(W_V, W_KQ, P, *tokens_first(X, Y), act)


def mc_loss_grad_tokens(
    W_V: np.ndarray, W_KQ: np.ndarray, P: np.ndarray, Xt: np.ndarray, Yt: np.ndarray, act: Act
) -> tuple[np.ndarray, Grads]:
    """:func:`mc_loss_grad_batched` on a sample laid out by ``data.tokens_first`` (a fixed sample is laid
    out once, not at every step: :attr:`Sample.tokens`): Xt (n, d, N, D), Yt (n, M, N, D)."""
    A = attention(W_KQ, P)
    n, d, N, D = Xt.shape
    M = W_V.shape[1]
    X_flat = Xt.reshape(n, d, N * D)  # each run's N samples side by side (one GEMM per run)
    XA = (Xt.reshape(n, d * N, D) @ A).reshape(n, d, N * D)
    H = (W_V @ XA).reshape(n, M, N, D)
    R = Yt - act(H)  # (n, M, N, D)
    loss = 0.5 * inner(R, R) / N
    Rp = act.times_prime(R, H).reshape(n, M, N * D)
    g_v = -(Rp @ np.swapaxes(XA, 1, 2)) / N  # (n, M, d)
    WX = (W_V @ X_flat).reshape(n, M * N, D)
    g_a = -(np.swapaxes(WX, 1, 2) @ Rp.reshape(n, M * N, D)) / N  # (n, D, D)
    return loss, {"W_V": g_v, "W_KQ": kq_backward(A, g_a, P)}


def mc_loss_grad(
    W_V: np.ndarray, W_KQ: np.ndarray, P: np.ndarray, X: np.ndarray, Y: np.ndarray, act: Act
) -> tuple[float, Grads]:
    """:func:`mc_loss_grad_batched` on one sample X (N, d, D), Y (N, M, D)."""
    return one(mc_loss_grad_batched, W_V, W_KQ, P, X, Y, act=act)


def full_tf_loss_grad_batched(
    W_V: np.ndarray, W_KQ: np.ndarray, P: np.ndarray, X: np.ndarray, Y: np.ndarray, act: Act
) -> tuple[np.ndarray, Grads]:
    """Full one-layer TF on Z = [X; P] (the paper's ablation): empirical loss and hand gradients, for n
    runs at once: X (n, N, d, D), Y (n, N, M, D), P (n, D, D), W_V (n, M, d+D), W_KQ (n, d+D, d+D).

    Per sample Lam_k = Z_k^T W_KQ Z_k / sqrt(D), A_k = column-softmax(Lam_k) (input-dependent),
    H_k = W_V Z_k A_k; grad_{W_V} = -mean Rp_k (Z_k A_k)^T, grad_{A_k} = -(W_V Z_k)^T Rp_k,
    grad_{W_KQ} = mean Z_k grad_{Lam_k} Z_k^T / sqrt(D), Rp = R * sigma'(H).
    """
    n, N, _, D = X.shape
    Z = np.concatenate([X, np.broadcast_to(P[:, None], (n, N, D, D))], axis=2)  # (n, N, d+D, D)
    A = softmax(np.swapaxes(Z, 2, 3) @ W_KQ[:, None] @ Z / math.sqrt(D), axis=-2)  # (n, N, D, D)
    ZA = Z @ A
    H = np.matmul(W_V[:, None], ZA)  # (n, N, M, D)
    R = Y - act(H)
    loss = 0.5 * inner(R, R) / N
    Rp = R * act.prime(H)
    g_v = -_sample_sum(Rp, ZA) / N
    G_A = -np.swapaxes(np.matmul(W_V[:, None], Z), 2, 3) @ Rp
    G_L = softmax_vjp(A, G_A, axis=-2)
    g_w = _sample_sum(Z @ G_L, Z) / (N * math.sqrt(D))
    return loss, {"W_V": g_v, "W_KQ": g_w}


def full_tf_loss_grad(
    W_V: np.ndarray, W_KQ: np.ndarray, P: np.ndarray, X: np.ndarray, Y: np.ndarray, act: Act
) -> tuple[float, Grads]:
    """:func:`full_tf_loss_grad_batched` on one sample X (N, d, D), Y (N, M, D)."""
    return one(full_tf_loss_grad_batched, W_V, W_KQ, P, X, Y, act=act)


def scalar_state(g: float, D: int, K: int) -> tuple[float, float]:
    """(a_on, a_off) attention entries on / off the support for logit gap g."""
    e = math.exp(g)
    den = K * e + (D - K)
    return e / den, 1.0 / den


def kernel_coefs(act: Act) -> tuple[float, float, float]:
    """(gamma, beta1, beta2) with E sigma(h)^2 = gamma Var h and E sigma(h) sigma(y) = beta1 c +
    beta2 (2/pi) J (dual kernel); linear: (1, 1, 0)."""
    if act.name == "linear":
        return 1.0, 1.0, 0.0
    al = act.slope
    return (1 + al * al) / 2, (1 + al) ** 2 / 4, (1 - al) ** 2 / 4


def scalar_excess(
    C1: float, g: float, D: int, K: int, sx2: float, v2: float, act: Act | None = None
) -> float:
    """Excess loss at W_V = C1 V*, two-level attention with gap g (uniform-K S*):
    D ||V*||^2 sx2 [gamma/2 (C1^2 |a|^2 + 1/K) - beta1 C1 u - beta2 (2/pi) C1 J(|a|^2, 1/K, u)]."""
    gam, b1, b2 = kernel_coefs(act or Act("linear"))
    u, v = scalar_state(g, D, K)
    na2 = K * u * u + (D - K) * v * v
    f = 0.5 * gam * (C1 * C1 * na2 + 1.0 / K) - b1 * C1 * u
    if b2:
        r = math.sqrt(max(na2 / K - u * u, 0.0))
        f -= b2 * (2 / math.pi) * C1 * (r + u * math.asin(min(u * math.sqrt(K / na2), 1.0)))
    return D * v2 * sx2 * f


def two_level_attention(g: float, S: np.ndarray) -> np.ndarray:
    """The attention of the scalar reduction mapped onto S*'s support: a_on on supp(S*), a_off elsewhere."""
    D = S.shape[0]
    K = int(np.count_nonzero(S[:, 0]))
    u, v = scalar_state(g, D, K)
    return np.where(S > 0, u, v)


def scalar_from_matrix(W_KQ: np.ndarray, P: np.ndarray, S: np.ndarray) -> tuple[float, float, float]:
    """(C2, C3, g) read off a full-matrix W_KQ: mean on-support logit * sqrt(D) = C2, minus the mean
    off-support logit * sqrt(D) = C3, and the gap g = (C2 + C3)/sqrt(D)."""
    D = P.shape[0]
    lam = logits(W_KQ, P) * math.sqrt(D)
    on = S > 0
    C2, C3 = float(lam[on].mean()), float(-lam[~on].mean())
    return C2, C3, (C2 + C3) / math.sqrt(D)


@dataclass(frozen=True)
class PositionAttention:
    """The position-only student ``sigma(W_V X A)``, A = column-softmax(P^T W_KQ P / sqrt(D)).

    act: the activation (fixed configuration). On a :class:`Population` the loss is the closed-form
    excess (linear: any iid entries; leaky ReLU / ReLU: centred Gaussian entries, with the sigma'(0)
    convention at W_V = 0); on a :class:`Sample` it is 1/(2N) sum ||Y_n - sigma(W_V X_n A)||^2.
    :meth:`loss_and_grad_batched` runs n problems at once (a leading run axis on every array);
    :meth:`loss_and_grad` is its batch of one.
    """

    act: Act = Act("linear")

    def forward(self, params: Params, batch: Sample) -> np.ndarray:
        """The student's outputs (N, M, D) on the inputs of ``batch``."""
        return self.act(np.matmul(params.W_V, batch.X) @ attention(params.W_KQ, batch.P))

    def loss(self, params: Params, batch: Population | Sample) -> float:
        return self.loss_and_grad(params, batch)[0]

    def loss_and_grad(self, params: Params, batch: Population | Sample) -> tuple[float, Params]:
        if not isinstance(batch, Population | Sample):
            raise TypeError(f"batch must be a Population or a Sample, got {type(batch).__name__}")
        loss, g = self.loss_and_grad_batched(
            {"W_V": params.W_V[None], "W_KQ": params.W_KQ[None]}, batch.one()
        )
        return float(loss[0]), Params(g["W_V"][0], g["W_KQ"][0])

    def loss_and_grad_batched(
        self, theta: Mapping[str, np.ndarray], batch: Population | Sample
    ) -> tuple[np.ndarray, Grads]:
        """Losses (n,) and gradient blocks (n, ...) of n runs: ``theta`` W_V (n, M, d), W_KQ (n, D, D);
        ``batch`` a Population or Sample whose arrays carry the same leading run axis. A leaky ReLU /
        ReLU run at W_V = 0 takes the sigma'(0) convention, the others the closed form."""
        W_V, W_KQ = theta["W_V"], theta["W_KQ"]
        if isinstance(batch, Sample):
            return mc_loss_grad_tokens(W_V, W_KQ, batch.P, *batch.tokens, self.act)
        if not isinstance(batch, Population):
            raise TypeError(f"batch must be a Population or a Sample, got {type(batch).__name__}")
        args = (W_V, W_KQ, batch.P, batch.V, batch.S)
        if self.act.name == "linear":
            return linear_loss_grad_batched(*args, batch.sx2, batch.mu)
        if batch.mu != 0.0:
            raise ValueError("the dual-kernel closed form needs centred Gaussian inputs (mu = 0)")
        zero = ~np.any(W_V.reshape(W_V.shape[0], -1) != 0.0, axis=1)  # the runs at the zero init
        if not zero.any():
            return dual_loss_grad_batched(*args, self.act.slope, batch.sx2)
        if zero.all():
            return self._at_zero(*args, batch.sx2)
        loss, g = np.empty(W_V.shape[0]), {"W_V": np.empty_like(W_V), "W_KQ": np.empty_like(W_KQ)}
        for runs, part in ((zero, self._at_zero), (~zero, self._dual)):
            idx = np.flatnonzero(runs)
            loss[idx], gp = part(*(x[idx] for x in args), batch.sx2)
            for k, v in gp.items():
                g[k][idx] = v
        return loss, g

    def _at_zero(self, W_V: np.ndarray, W_KQ: np.ndarray, P: np.ndarray, V: np.ndarray, S: np.ndarray,
                 sx2: float) -> tuple[np.ndarray, Grads]:  # fmt: skip
        """Runs at W_V = 0 (leaky ReLU / ReLU): the dual-kernel loss and the sigma'(0) gradient."""
        loss = dual_loss_batched(W_V, attention(W_KQ, P), V, S, self.act.slope, sx2)
        return loss, zero_init_grad_dual_batched(W_KQ, P, V, S, self.act, sx2)

    def _dual(self, W_V: np.ndarray, W_KQ: np.ndarray, P: np.ndarray, V: np.ndarray, S: np.ndarray,
              sx2: float) -> tuple[np.ndarray, Grads]:  # fmt: skip
        """Runs off W_V = 0 (leaky ReLU / ReLU): the dual-kernel closed form."""
        return dual_loss_grad_batched(W_V, W_KQ, P, V, S, self.act.slope, sx2)


@dataclass(frozen=True)
class FullTF:
    """The full one-layer transformer on Z = [X; P] (input-dependent attention): W_V (M, d+D),
    W_KQ (d+D, d+D) in :class:`Params`; the loss is empirical on a :class:`Sample`
    (:meth:`loss_and_grad_batched`: n runs at once; :meth:`loss_and_grad`: its batch of one)."""

    act: Act = Act("linear")

    def forward(self, params: Params, batch: Sample) -> np.ndarray:
        """The outputs (N, M, D): sigma(W_V Z_n A_n)."""
        N, _, D = batch.X.shape
        Z = np.concatenate([batch.X, np.broadcast_to(batch.P, (N, D, D))], axis=1)
        A = softmax(np.swapaxes(Z, 1, 2) @ params.W_KQ @ Z / math.sqrt(D), axis=-2)
        return self.act(np.matmul(params.W_V, Z @ A))

    def loss(self, params: Params, batch: Sample) -> float:
        return self.loss_and_grad(params, batch)[0]

    def loss_and_grad(self, params: Params, batch: Sample) -> tuple[float, Params]:
        loss, g = self.loss_and_grad_batched(
            {"W_V": params.W_V[None], "W_KQ": params.W_KQ[None]}, batch.one()
        )
        return float(loss[0]), Params(g["W_V"][0], g["W_KQ"][0])

    def loss_and_grad_batched(
        self, theta: Mapping[str, np.ndarray], batch: Sample
    ) -> tuple[np.ndarray, Grads]:
        """Losses (n,) and gradient blocks of n runs (``theta`` and ``batch`` with a leading run axis)."""
        return full_tf_loss_grad_batched(theta["W_V"], theta["W_KQ"], batch.P, batch.X, batch.Y, self.act)
