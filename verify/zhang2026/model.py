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
from dataclasses import dataclass

import numpy as np

from bounds.checks import check_int, check_real
from verify.numerics.model import ParamBlocks
from verify.numerics.softmax import softmax, softmax_vjp
from verify.zhang2026.data import Population, Sample

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
    """Lam = P^T W_KQ P / sqrt(D), shape (D, D); entry (j, i) = key j, query i."""
    D = P.shape[0]
    return P.T @ W_KQ @ P / math.sqrt(D)


def attention(W_KQ: np.ndarray, P: np.ndarray) -> np.ndarray:
    """A = S(W_KQ) = column-softmax of the logits, shape (D, D), columns sum to 1."""
    return softmax(logits(W_KQ, P), axis=-2)


def kq_backward(A: np.ndarray, G_A: np.ndarray, P: np.ndarray) -> np.ndarray:
    """dL/dW_KQ = P (dL/dLam) P^T / sqrt(D) from dL/dA = G_A (column-softmax backprop)."""
    D = P.shape[0]
    return P @ softmax_vjp(A, G_A, axis=-2) @ P.T / math.sqrt(D)


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


def linear_loss_grad(
    W_V: np.ndarray,
    W_KQ: np.ndarray,
    P: np.ndarray,
    V: np.ndarray,
    S: np.ndarray,
    sx2: float = 1.0,
    mu: float = 0.0,
) -> tuple[float, Grads]:
    """Excess population loss and its gradients for sigma = id (derived closed form).

    Entries of X iid with mean ``mu`` and variance ``sx2``: with E[X B X^T] = sx2 tr(B) I for the centred
    part, ``excess = sx2/2 [||V||^2 ||S||^2 - 2 <V,W_V><S,A> + ||W_V||^2 ||A||^2]
    + mu^2/2 ||V 1_d (1^T S) - W_V 1_d 1^T||^2``. Returns (excess, {"W_V": (M, d), "W_KQ": (D, D)}).
    """
    A = attention(W_KQ, P)
    vw, sa = float(np.vdot(V, W_V)), float(np.vdot(S, A))
    vv, ww = float(np.vdot(V, V)), float(np.vdot(W_V, W_V))
    ss, aa = float(np.vdot(S, S)), float(np.vdot(A, A))
    loss = 0.5 * sx2 * (vv * ss - 2.0 * vw * sa + ww * aa)
    g_v = sx2 * (aa * W_V - sa * V)
    g_a = sx2 * (ww * A - vw * S)
    if mu != 0.0:
        u_star, w = V.sum(axis=1), W_V.sum(axis=1)  # (M,)
        colsum = S.sum(axis=0)  # (D,)
        R = np.outer(u_star, colsum) - np.outer(w, A.sum(axis=0))  # mean residual / mu, (M, D)
        loss += 0.5 * mu * mu * float(np.sum(R * R))
        g_v = g_v - mu * mu * np.outer(R.sum(axis=1), np.ones(W_V.shape[1]))
        g_a = g_a - mu * mu * np.outer(np.ones(A.shape[0]), w @ R)
    return loss, {"W_V": g_v, "W_KQ": kq_backward(A, g_a, P)}


def second_moments(X: np.ndarray) -> np.ndarray:
    """The empirical second-moment tensor of inputs X (N, d, D) as a (d*d, D*D) matrix:
    T[(a, b), (j, k)] = mean_n X_n[a, j] X_n[b, k] (no centring: the raw moments of the data)."""
    N, d, D = X.shape
    Xf = X.reshape(N, d * D)
    return (Xf.T @ Xf / N).reshape(d, D, d, D).transpose(0, 2, 1, 3).reshape(d * d, D * D)


def moment_loss_grad(
    W_V: np.ndarray, W_KQ: np.ndarray, P: np.ndarray, V: np.ndarray, S: np.ndarray, T: np.ndarray
) -> tuple[float, Grads]:
    """Linear sigma, any input law given by its second-moment tensor T (:func:`second_moments`): the
    loss 1/2 E ||V* X S* - W_V X A||_F^2 and its gradients, exactly (full-batch GD on a data set costs
    O(d^2 D^2) per step, independent of its size). With Q = V*^T W_V, R = S* A^T and
    <T, Q (x) R> = sum T[(a,b),(j,k)] Q[a,b] R[j,k]:
    loss = 1/2 <T, V*^T V* (x) S* S*^T> - <T, Q (x) R> + 1/2 <T, W_V^T W_V (x) A A^T>."""
    A = attention(W_KQ, P)
    d, D = V.shape[1], S.shape[0]
    q0, qc, qq = (V.T @ V).ravel(), (V.T @ W_V).ravel(), (W_V.T @ W_V).ravel()
    r0, rc, rq = (S @ S.T).ravel(), (S @ A.T).ravel(), (A @ A.T).ravel()
    Gq, Gc = (T @ rq).reshape(d, d), (T @ rc).reshape(d, d)
    loss = 0.5 * float(q0 @ (T @ r0)) - float(qc @ Gc.ravel()) + 0.5 * float(qq @ Gq.ravel())
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
    a = sx2 * np.outer(np.sum(W_V * W_V, axis=1), np.sum(A * A, axis=0))  # Var h_mi, (M, D)
    b = sx2 * np.outer(np.sum(V * V, axis=1), np.sum(S * S, axis=0))  # Var y_mi
    c = sx2 * np.outer(np.sum(W_V * V, axis=1), np.sum(A * S, axis=0))  # Cov(h_mi, y_mi)
    root = np.sqrt(np.maximum(a * b - c * c, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where(a * b > 0, c / np.sqrt(a * b), 0.0)
    return a, b, c, root, np.arcsin(np.clip(rho, -1.0, 1.0))


def dual_loss_grad(
    W_V: np.ndarray,
    W_KQ: np.ndarray,
    P: np.ndarray,
    V: np.ndarray,
    S: np.ndarray,
    alpha: float,
    sx2: float = 1.0,
) -> tuple[float, Grads]:
    """Excess population loss of sigma = leaky ReLU with slope ``alpha`` (ReLU: 0), Gaussian inputs.

    Per entry (m, i) the pair (h, y) = (w_m^T X a_i, v_m^T X s_i) is bivariate Gaussian with variances
    a, b and covariance c. Writing sigma(z) = b1 z + b2 |z| (b1 = (1+alpha)/2, b2 = (1-alpha)/2):
    E sigma(h)^2 = g a with g = (1+alpha^2)/2, and E sigma(h) sigma(y) = b1^2 c + b2^2 (2/pi) J with
    J = sqrt(ab - c^2) + c arcsin(c / sqrt(ab)); dJ/dc = arcsin(rho), dJ/da = sqrt(ab - c^2)/(2a).
    Needs every row of W_V nonzero (the closed form is not differentiable at W_V = 0).
    """
    if np.any(np.sum(W_V * W_V, axis=1) == 0.0):
        raise ValueError(
            "W_V has a zero row: the dual-kernel loss is not differentiable there; "
            "use zero_init_grad_dual at W_V = 0"
        )
    A = attention(W_KQ, P)
    b1, b2, gam = (1 + alpha) ** 2 / 4, (1 - alpha) ** 2 / 4, (1 + alpha * alpha) / 2
    a, b, c, root, asin = _dual_terms(W_V, A, V, S, sx2)
    J = root + c * asin
    loss = float(np.sum(0.5 * gam * (a + b) - b1 * c - b2 * (2 / np.pi) * J))
    L_a = 0.5 * gam - b2 * (2 / np.pi) * root / (2 * a)  # (M, D)
    L_c = -b1 - b2 * (2 / np.pi) * asin
    na2, as_ = np.sum(A * A, axis=0), np.sum(A * S, axis=0)  # (D,)
    nw2, wv = np.sum(W_V * W_V, axis=1), np.sum(W_V * V, axis=1)  # (M,)
    g_v = 2 * sx2 * (L_a @ na2)[:, None] * W_V + sx2 * (L_c @ as_)[:, None] * V
    g_a = 2 * sx2 * A * (nw2 @ L_a)[None, :] + sx2 * S * (wv @ L_c)[None, :]
    return loss, {"W_V": g_v, "W_KQ": kq_backward(A, g_a, P)}


def dual_loss(
    W_V: np.ndarray, A: np.ndarray, V: np.ndarray, S: np.ndarray, alpha: float, sx2: float = 1.0
) -> float:
    """The dual-kernel excess loss at a given attention matrix A (also valid at W_V = 0)."""
    b1, b2, gam = (1 + alpha) ** 2 / 4, (1 - alpha) ** 2 / 4, (1 + alpha * alpha) / 2
    a, b, c, root, asin = _dual_terms(W_V, A, V, S, sx2)
    return float(np.sum(0.5 * gam * (a + b) - b1 * c - b2 * (2 / np.pi) * (root + c * asin)))


def zero_init_grad_dual(
    W_KQ: np.ndarray, P: np.ndarray, V: np.ndarray, S: np.ndarray, act: Act, sx2: float = 1.0
) -> Grads:
    """Population gradient at W_V = 0 (any W_KQ) with the convention sigma'(0) := ``act.dprime0``.

    H = 0, so grad_{W_V} = -sigma'(0) E[sigma(V X S) A^T X^T] = -sigma'(0) E[sigma'(y)] sx2 <S, A> V*
    (Stein's lemma; E sigma'(y) = (1 + slope)/2) and grad_{W_KQ} = 0 (it carries a factor W_V).
    """
    A = attention(W_KQ, P)
    e_prime = 1.0 if act.name == "linear" else (1.0 + act.slope) / 2
    g_v = -act.dprime0 * e_prime * sx2 * float(np.vdot(S, A)) * V
    return {"W_V": g_v, "W_KQ": np.zeros_like(W_KQ)}


def mc_excess(
    W_V: np.ndarray, A: np.ndarray, V: np.ndarray, S: np.ndarray, act: Act, X: np.ndarray
) -> tuple[float, float]:
    """Monte Carlo excess loss and its standard error over samples X (N, d, D), noise-free labels."""
    Y = act(np.matmul(V, X) @ S)
    H = act(np.matmul(W_V, X) @ A)
    per = 0.5 * np.sum((Y - H) ** 2, axis=(1, 2))
    return float(per.mean()), float(per.std(ddof=1) / math.sqrt(per.size))


def mc_loss_grad(
    W_V: np.ndarray, W_KQ: np.ndarray, P: np.ndarray, X: np.ndarray, Y: np.ndarray, act: Act
) -> tuple[float, Grads]:
    """Empirical loss 1/(2N) sum ||Y_n - sigma(W_V X_n A)||^2 and its hand gradients.

    X (N, d, D), Y (N, M, D). grad_{W_V} = -mean (R * sigma'(H)) A^T X^T,
    grad_A = -mean X^T W_V^T (R * sigma'(H)).
    """
    A = attention(W_KQ, P)
    N, d, D = X.shape
    XA = (X.reshape(N * d, D) @ A).reshape(N, d, D)  # one GEMM
    H = np.tensordot(W_V, XA, axes=(1, 1))  # (M, N, D)
    R = np.swapaxes(Y, 0, 1) - act(H)
    loss = 0.5 * float(np.vdot(R, R)) / N
    Rp = R * act.prime(H)
    g_v = -np.tensordot(Rp, XA, axes=([1, 2], [0, 2])) / N  # (M, d)
    WX = np.tensordot(W_V, X, axes=(1, 1))  # (M, N, D)
    g_a = -np.tensordot(WX, Rp, axes=([0, 1], [0, 1])) / N  # (D, D)
    return loss, {"W_V": g_v, "W_KQ": kq_backward(A, g_a, P)}


def full_tf_loss_grad(
    W_V: np.ndarray, W_KQ: np.ndarray, P: np.ndarray, X: np.ndarray, Y: np.ndarray, act: Act
) -> tuple[float, Grads]:
    """Full one-layer TF on Z = [X; P] (the paper's ablation): empirical loss and hand gradients.

    X (N, d, D), Y (N, M, D), W_V (M, d+D), W_KQ (d+D, d+D). Per sample Lam_n = Z_n^T W_KQ Z_n / sqrt(D),
    A_n = column-softmax(Lam_n) (input-dependent), H_n = W_V Z_n A_n; grad_{W_V} = -mean Rp_n (Z_n A_n)^T,
    grad_{A_n} = -(W_V Z_n)^T Rp_n, grad_{W_KQ} = mean Z_n grad_{Lam_n} Z_n^T / sqrt(D), Rp = R * sigma'(H).
    """
    N, _, D = X.shape
    Z = np.concatenate([X, np.broadcast_to(P, (N, D, D))], axis=1)  # (N, d+D, D)
    Zt = np.swapaxes(Z, 1, 2)
    A = softmax(Zt @ W_KQ @ Z / math.sqrt(D), axis=-2)  # (N, D, D)
    ZA = Z @ A
    H = np.matmul(W_V, ZA)  # (N, M, D)
    R = Y - act(H)
    loss = 0.5 * float(np.vdot(R, R)) / N
    Rp = R * act.prime(H)
    g_v = -np.tensordot(Rp, ZA, axes=([0, 2], [0, 2])) / N
    G_A = -np.swapaxes(np.matmul(W_V, Z), 1, 2) @ Rp
    G_L = softmax_vjp(A, G_A, axis=-2)
    g_w = np.tensordot(Z @ G_L, Z, axes=([0, 2], [0, 2])) / (N * math.sqrt(D))
    return loss, {"W_V": g_v, "W_KQ": g_w}


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
    """

    act: Act = Act("linear")

    def forward(self, params: Params, batch: Sample) -> np.ndarray:
        """The student's outputs (N, M, D) on the inputs of ``batch``."""
        return self.act(np.matmul(params.W_V, batch.X) @ attention(params.W_KQ, batch.P))

    def loss(self, params: Params, batch: Population | Sample) -> float:
        return self.loss_and_grad(params, batch)[0]

    def loss_and_grad(self, params: Params, batch: Population | Sample) -> tuple[float, Params]:
        if isinstance(batch, Sample):
            loss, g = mc_loss_grad(params.W_V, params.W_KQ, batch.P, batch.X, batch.Y, self.act)
        elif not isinstance(batch, Population):
            raise TypeError(f"batch must be a Population or a Sample, got {type(batch).__name__}")
        elif self.act.name == "linear":
            loss, g = linear_loss_grad(
                params.W_V, params.W_KQ, batch.P, batch.V, batch.S, batch.sx2, batch.mu
            )
        elif batch.mu != 0.0:
            raise ValueError("the dual-kernel closed form needs centred Gaussian inputs (mu = 0)")
        elif not np.any(params.W_V):  # the zero init: gradient by the sigma'(0) convention
            A = attention(params.W_KQ, batch.P)
            loss = dual_loss(params.W_V, A, batch.V, batch.S, self.act.slope, batch.sx2)
            g = zero_init_grad_dual(params.W_KQ, batch.P, batch.V, batch.S, self.act, batch.sx2)
        else:
            loss, g = dual_loss_grad(
                params.W_V, params.W_KQ, batch.P, batch.V, batch.S, self.act.slope, batch.sx2
            )
        return loss, Params(**g)


@dataclass(frozen=True)
class FullTF:
    """The full one-layer transformer on Z = [X; P] (input-dependent attention): W_V (M, d+D),
    W_KQ (d+D, d+D) in :class:`Params`; the loss is empirical on a :class:`Sample`."""

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
        loss, g = full_tf_loss_grad(params.W_V, params.W_KQ, batch.P, batch.X, batch.Y, self.act)
        return loss, Params(**g)
