"""Reference model of Zhang, Zhao, Gu, Cao (ICLR 2026): position-only attention, f*(X) = sigma(V* X S*).

Shapes (spec §1-§3): X (d, D) tokens as columns; V* (M, d); S* (D, D) with column i supported on G_i;
P (D, D) orthogonal; W_KQ (D, D); W_V (M, d). Logits ``Lam = P^T W_KQ P / sqrt(D)`` (key j, query i),
attention ``A = column-softmax(Lam)`` (every column sums to 1), student ``TF(X) = sigma(W_V X A)``.
Loss ``L = 1/2 E ||Y - TF||_F^2``; everything here is the *excess* loss (the noise floor removed).

Population losses with hand-derived gradients (never autodiff):

* :func:`linear_loss_grad` -- sigma = id, iid entries of mean ``mu`` and variance ``sx2`` (spec §4.1-4.2);
  only second moments enter, so Gaussian, t, Gumbel and exponential inputs give the same formula.
* :func:`dual_loss_grad` -- ReLU (``alpha = 0``) / leaky ReLU, Gaussian inputs, arc-cosine (dual-kernel)
  closed form of spec §4.3. It is not differentiable at ``W_V = 0``; there :func:`zero_init_grad_dual`
  gives the gradient with a stated convention sigma'(0) (Stein's lemma).
* :func:`scalar_run` -- the 2-scalar recursion (C1, g) of spec §4.4 for uniform-K teachers, simplified
  (derivation in the docstring), and its extension to leaky ReLU / ReLU through the dual kernel.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from bounds.checks import check_array, check_int, check_positive, check_real
from verify.numerics.gd import Trajectory, gradient_descent
from verify.numerics.softmax import softmax, softmax_vjp

Params = dict[str, np.ndarray]


# --------------------------------------------------------------------------------------- attention
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


# --------------------------------------------------------------------------------------- activations
@dataclass(frozen=True)
class Act:
    """Elementwise activation: ``name`` in {"linear", "relu", "leaky"}; ``alpha`` the leaky slope.

    sigma'(0) := ``dprime0`` (spec §3.4: with sigma'(0) = 0 a zero-initialised ReLU student never moves).
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


# --------------------------------------------------------------------------------------- linear sigma
def linear_loss_grad(
    W_V: np.ndarray,
    W_KQ: np.ndarray,
    P: np.ndarray,
    V: np.ndarray,
    S: np.ndarray,
    sx2: float = 1.0,
    mu: float = 0.0,
) -> tuple[float, Params]:
    """Excess population loss and its gradients for sigma = id (spec §4.1-4.2).

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


def linear_excess_residual(
    W_V: np.ndarray, A: np.ndarray, V: np.ndarray, S: np.ndarray, sx2: float = 1.0
) -> float:
    """Cancellation-free linear excess 1/2 sx2 ||V* (x) S* - W_V (x) A||_F^2 (Kronecker form; small sizes).

    Equal to the closed form of :func:`linear_loss_grad` (mu = 0) but accurate to relative round-off
    even when the excess is 1e-20 of the loss scale.
    """
    return 0.5 * sx2 * float(np.sum((np.kron(V, S) - np.kron(W_V, A)) ** 2))


# --------------------------------------------------------------------------------------- (leaky) ReLU
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
) -> tuple[float, Params]:
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
) -> Params:
    """Population gradient at W_V = 0 (any W_KQ) with the convention sigma'(0) := ``act.dprime0``.

    H = 0, so grad_{W_V} = -sigma'(0) E[sigma(V X S) A^T X^T] = -sigma'(0) E[sigma'(y)] sx2 <S, A> V*
    (Stein's lemma; E sigma'(y) = (1 + slope)/2) and grad_{W_KQ} = 0 (it carries a factor W_V).
    """
    A = attention(W_KQ, P)
    e_prime = 1.0 if act.name == "linear" else (1.0 + act.slope) / 2
    g_v = -act.dprime0 * e_prime * sx2 * float(np.vdot(S, A)) * V
    return {"W_V": g_v, "W_KQ": np.zeros_like(W_KQ)}


# --------------------------------------------------------------------------------------- Monte Carlo
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
) -> tuple[float, Params]:
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
) -> tuple[float, Params]:
    """Full one-layer TF on Z = [X; P] (spec §7 ablation): empirical loss and hand gradients.

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


# --------------------------------------------------------------------------------------- population GD
LossGrad = Callable[[Params], tuple[float, Params]]


def population_loss_grad(
    V: np.ndarray, S: np.ndarray, P: np.ndarray, act: Act, sx2: float = 1.0, mu: float = 0.0
) -> LossGrad:
    """theta -> (excess, grads) of the population loss for the activation ``act``."""
    if act.name == "linear":
        return lambda th: linear_loss_grad(th["W_V"], th["W_KQ"], P, V, S, sx2, mu)
    if mu != 0.0:
        raise ValueError("the dual-kernel closed form needs centred Gaussian inputs (mu = 0)")

    def lg(th: Params) -> tuple[float, Params]:
        if not np.any(th["W_V"]):  # the zero init: gradient by the sigma'(0) convention
            loss = dual_loss(th["W_V"], attention(th["W_KQ"], P), V, S, act.slope, sx2)
            return loss, zero_init_grad_dual(th["W_KQ"], P, V, S, act, sx2)
        return dual_loss_grad(th["W_V"], th["W_KQ"], P, V, S, act.slope, sx2)

    return lg


@dataclass
class Run:
    """Population GD from zero init, sampled at ``times`` (t = number of steps taken).

    excess (n_t,), W_V (n_t, M, d), W_KQ (n_t, D, D), A (n_t, D, D); ``traj`` the shared-GD trajectory
    pieces' per-step losses concatenated (length steps + 1); stopped: why GD ended early, or None.
    """

    times: np.ndarray
    excess: np.ndarray
    W_V: np.ndarray
    W_KQ: np.ndarray
    A: np.ndarray
    loss: np.ndarray
    stopped: str | None


def population_gd(
    V: np.ndarray,
    S: np.ndarray,
    P: np.ndarray,
    eta: float,
    times: Sequence[int],
    act: Act | None = None,
    sx2: float = 1.0,
    mu: float = 0.0,
) -> Run:
    """Full-matrix GD on the population loss from W_V = 0, W_KQ = 0 (both blocks step ``eta``).

    times: increasing step counts >= 0 at which to store the parameters. For a nonlinear ``act`` the
    step from W_V = 0 uses :func:`zero_init_grad_dual` (sigma'(0) convention), later steps the closed form.
    """
    act = act or Act("linear")
    eta = check_positive("eta", eta)
    V = check_array("V", V, ndim=2)
    S = check_array("S", S, ndim=2)
    D = check_int("D", S.shape[0])
    if S.shape != (D, D) or P.shape != (D, D):
        raise ValueError(f"S and P must be (D, D) with D = {D}, got {S.shape}, {P.shape}")
    ts = [check_int("time", int(t), low=0) for t in times]
    if any(b <= a for a, b in itertools.pairwise(ts)):
        raise ValueError("times must be strictly increasing")
    lg = population_loss_grad(V, S, P, act, sx2, mu)
    theta: Params = {"W_V": np.zeros_like(V), "W_KQ": np.zeros((D, D))}
    t_now, losses, stopped = 0, [], None
    out_wv, out_kq, out_ex = [], [], []
    for t in ts:
        ex = float("nan")
        if stopped is None:
            tr: Trajectory = gradient_descent(theta, lg, eta, t - t_now)
            theta = tr.params
            if tr.stopped is not None:
                stopped = f"{tr.stopped} (segment starting at t = {t_now})"
                losses.extend(tr.loss.tolist())
            else:
                losses.extend(tr.loss[:-1].tolist())
                ex = float(tr.loss[-1])
            t_now = t
        out_wv.append(theta["W_V"].copy())
        out_kq.append(theta["W_KQ"].copy())
        out_ex.append(ex)
    if stopped is None and out_ex:
        losses.append(out_ex[-1])
    W_KQ = np.array(out_kq)
    A = softmax(np.einsum("ji,tjk,kl->til", P, W_KQ, P) / math.sqrt(D), axis=-2)
    return Run(np.array(ts), np.array(out_ex), np.array(out_wv), W_KQ, A, np.array(losses), stopped)


# --------------------------------------------------------------------------------------- scalar reduction
@dataclass
class ScalarRun:
    """The (C1, g) recursion sampled at ``times``: C1 value scale, g = logit gap (on minus off support),
    eps = off-support attention mass per column, excess = the population excess loss."""

    times: np.ndarray
    C1: np.ndarray
    g: np.ndarray
    eps: np.ndarray
    excess: np.ndarray


def scalar_state(g: float, D: int, K: int) -> tuple[float, float]:
    """(a_on, a_off) attention entries on / off the support for logit gap g."""
    e = math.exp(g)
    den = K * e + (D - K)
    return e / den, 1.0 / den


def kernel_coefs(act: Act) -> tuple[float, float, float]:
    """(gamma, beta1, beta2) with E sigma(h)^2 = gamma Var h and E sigma(h) sigma(y) = beta1 c +
    beta2 (2/pi) J (dual kernel, spec §4.3); linear: (1, 1, 0)."""
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


def scalar_run(
    D: int,
    K: int,
    eta: float,
    times: Sequence[int],
    sx2: float = 1.0,
    v2: float = 1.0,
    act: Act | None = None,
) -> ScalarRun:
    """Uniform-K S*, Gaussian inputs: iterate (C1, g) from zero init, sampling at ``times``.

    Spec §4.4 with u = a_on, v = a_off, q = K u, eps = (D-K) v: G_on - m = eps (G_on - G_off) and
    G_off - m = -q (G_on - G_off), so a_on (G_on - m) - a_off (G_off - m) = D u v (G_on - G_off) and
    ``g <- g - eta u v (G_on - G_off)``. Linear: G_on - G_off = sx2 v2 (C1^2 (u - v) - C1/K) and
    ``C1 <- C1 + eta sx2 D (u - |a|^2 C1)``. Leaky ReLU / ReLU (dual kernel, all rows share the multiple
    because sigma is positively homogeneous): C1 <- C1 - eta D sx2 df/dC1 with
    f = gamma/2 (C1^2 |a|^2 + 1/K) - beta1 C1 u - beta2 (2/pi) C1 J, and
    G_on - G_off = sx2 v2 (2 C1^2 L_a (u - v) + C1 L_c / K); the first step uses sigma'(0) := act.dprime0,
    giving C1(1) = eta sigma'(0) (1 + slope)/2 sx2. v2 = ||V*||_F^2. Pure-Python floats (~0.3-0.8 us/step).
    """
    D, K = check_int("D", D, low=2), check_int("K", K, low=1)
    if K >= D:
        raise ValueError(f"K must lie in [1, D-1] for the gap recursion, got K={K}, D={D}")
    eta, sx2, v2 = check_positive("eta", eta), check_positive("sx2", sx2), check_positive("v2", v2)
    act = act or Act("linear")
    ts = [check_int("time", int(t), low=0) for t in times]
    if any(b <= a for a, b in itertools.pairwise(ts)):
        raise ValueError("times must be strictly increasing")
    gam, b1, b2 = kernel_coefs(act)
    b2p = b2 * 2 / math.pi
    DmK, c, es, invK = float(D - K), sx2 * v2, eta * sx2, 1.0 / K
    exp, sqrt, asin = math.exp, math.sqrt, math.asin
    C1 = g = 0.0
    t_now = 0
    out = []
    for t in ts:
        n = t - t_now
        if act.name == "linear":
            for _ in range(n):
                e = exp(g)
                den = K * e + DmK
                u = e / den
                v = 1.0 / den
                gd = c * (C1 * C1 * (u - v) - C1 * invK)
                C1 = C1 + es * D * (u - (K * u * u + DmK * v * v) * C1)
                g = g - eta * u * v * gd
        else:
            if t_now == 0 and n > 0:
                C1, n = eta * act.dprime0 * (1 + act.slope) / 2 * sx2, n - 1
            for _ in range(n):
                e = exp(g)
                den = K * e + DmK
                u = e / den
                v = 1.0 / den
                na2 = K * u * u + DmK * v * v
                r = sqrt(max(na2 * invK - u * u, 0.0))
                asr = asin(min(u * sqrt(K / na2), 1.0))
                L_a = 0.5 * gam - b2p * r / (2.0 * C1 * na2)
                L_c = -b1 - b2p * asr
                gd = c * (2.0 * C1 * C1 * L_a * (u - v) + C1 * L_c * invK)
                C1 = C1 - es * D * (gam * C1 * na2 - b1 * u - b2p * (r + u * asr))
                g = g - eta * u * v * gd
        t_now = t
        u, v = scalar_state(g, D, K)
        out.append((C1, g, (D - K) * v, scalar_excess(C1, g, D, K, sx2, v2, act)))
    arr = np.array(out, dtype=np.float64).reshape(-1, 4)
    return ScalarRun(np.array(ts, dtype=np.float64), arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3])


def scalar_run_mean(
    V: np.ndarray, D: int, K: int, eta: float, times: Sequence[int], sx2: float = 1.0, mu: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Linear sigma, uniform-K S*, iid entries of mean ``mu`` and variance ``sx2`` (raw Gumbel, Exp(1)):
    W_V = alpha V* + beta V* 1 1^T stays in this 2-dimensional span (the mean term of
    :func:`linear_loss_grad` is -mu^2 D (V* - W_V) 1 1^T) and the attention keeps two levels with gap g:

        alpha <- alpha - eta sx2 D (|a|^2 alpha - u),
        beta  <- beta - eta (sx2 D |a|^2 beta - mu^2 D (1 - alpha - beta d)),
        g     <- g - eta u v sx2 (|W_V|^2 (u - v) - <V*, W_V> / K).

    Returns (excess, alpha, beta, g) at ``times``; the Lemma C.2 residual is |beta| ||V* 1 1^T|| / ||W_V||."""
    V = check_array("V", V, ndim=2)
    D, K = check_int("D", D, low=2), check_int("K", K, low=1)
    if K >= D:
        raise ValueError(f"K must lie in [1, D-1], got K={K}, D={D}")
    eta, sx2, mu = check_positive("eta", eta), check_positive("sx2", sx2), check_real("mu", mu)
    ts = [check_int("time", int(t), low=0) for t in times]
    if any(b <= a for a, b in itertools.pairwise(ts)):
        raise ValueError("times must be strictly increasing")
    d = V.shape[1]
    vv, w1 = float(np.vdot(V, V)), float(np.sum(V.sum(axis=1) ** 2))
    DmK, invK, m2D, exp = float(D - K), 1.0 / K, mu * mu * D, math.exp
    al = be = g = 0.0
    t_now, out = 0, []
    for t in ts:
        for _ in range(t - t_now):
            e = exp(g)
            den = K * e + DmK
            u = e / den
            v = 1.0 / den
            na2 = K * u * u + DmK * v * v
            ww = al * al * vv + 2.0 * al * be * w1 + be * be * d * w1
            vw = al * vv + be * w1
            gd = sx2 * (ww * (u - v) - vw * invK)
            al, be = (
                al - eta * sx2 * D * (na2 * al - u),
                be - eta * (sx2 * D * na2 * be - m2D * (1.0 - al - be * d)),
            )
            g = g - eta * u * v * gd
        t_now = t
        u, v = scalar_state(g, D, K)
        na2 = K * u * u + DmK * v * v
        ww = al * al * vv + 2.0 * al * be * w1 + be * be * d * w1
        vw = al * vv + be * w1
        ex = 0.5 * sx2 * D * (vv * invK - 2.0 * vw * u + ww * na2)
        ex += 0.5 * m2D * (1.0 - al - be * d) ** 2 * w1
        out.append((ex, al, be, g))
    arr = np.array(out, dtype=np.float64).reshape(-1, 4)
    return arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3]


def two_level_attention(g: float, S: np.ndarray) -> np.ndarray:
    """The attention of the scalar reduction mapped onto S*'s support: a_on on supp(S*), a_off elsewhere."""
    D = S.shape[0]
    K = int(np.count_nonzero(S[:, 0]))
    u, v = scalar_state(g, D, K)
    return np.where(S > 0, u, v)


def circulant_run(
    s_col: np.ndarray, V: np.ndarray, eta: float, times: Sequence[int], sx2: float = 1.0, mu: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Linear sigma, circulant column-stochastic S* (column i = column 0 shifted by i), iid entries of mean
    ``mu`` and variance ``sx2``: every column of A stays the shift of one column a = softmax(lam). Iterates
    (W_V (M, d), lam (D,)) from zero init with the gradients of :func:`linear_loss_grad` restricted to
    this symmetric set: grad W_V = sx2 D (|a|^2 W_V - <s, a> V*) - mu^2 D (V* - W_V) 1 1^T,
    lam <- lam - (eta/D) a * (G - <a, G>), G = sx2 (|W_V|^2 a - <V*, W_V> s) (the mean term's
    attention gradient is constant in each column and cancels in the softmax).
    Returns (excess (n_t,), W_V (n_t, M, d), a (n_t, D)) at ``times``."""
    s = check_array("s_col", s_col, ndim=1)
    V = check_array("V", V, ndim=2)
    if not abs(s.sum() - 1.0) < 1e-12:
        raise ValueError(f"s_col must sum to 1 (column-stochastic S*), got {s.sum()}")
    D = s.size
    eta, sx2 = check_positive("eta", eta), check_positive("sx2", sx2)
    mu = check_real("mu", mu)
    ts = [check_int("time", int(t), low=0) for t in times]
    if any(b <= a for a, b in itertools.pairwise(ts)):
        raise ValueError("times must be strictly increasing")
    W, lam, t_now = np.zeros_like(V), np.zeros(D), 0
    vv, ss, ones_d = float(np.vdot(V, V)), float(s @ s), np.ones(V.shape[1])
    out_e, out_w, out_a = [], [], []
    es, el, em = eta * sx2 * D, eta * sx2 / D, eta * mu * mu * D
    for t in ts:
        for _ in range(t - t_now):
            z = np.exp(lam - lam.max())
            a = z / z.sum()
            G = float(np.vdot(W, W)) * a - float(np.vdot(V, W)) * s
            gl = a * (G - a @ G)
            step = es * ((a @ a) * W - (s @ a) * V)
            if mu:
                step = step - em * (V - W).sum(axis=1, keepdims=True)
            W = W - step
            lam = lam - el * gl
        t_now = t
        z = np.exp(lam - lam.max())
        a = z / z.sum()
        vw, ww = float(np.sum(V * W)), float(np.sum(W * W))
        ex = 0.5 * sx2 * D * (vv * ss - 2 * vw * float(s @ a) + ww * float(a @ a))
        ex += 0.5 * mu * mu * D * float(np.sum(((V - W) @ ones_d) ** 2))
        out_e.append(ex)
        out_w.append(W.copy())
        out_a.append(a)
    return np.array(out_e), np.array(out_w), np.array(out_a)


def scalar_from_matrix(W_KQ: np.ndarray, P: np.ndarray, S: np.ndarray) -> tuple[float, float, float]:
    """(C2, C3, g) read off a full-matrix W_KQ: mean on-support logit * sqrt(D) = C2, minus the mean
    off-support logit * sqrt(D) = C3, and the gap g = (C2 + C3)/sqrt(D)."""
    D = P.shape[0]
    lam = logits(W_KQ, P) * math.sqrt(D)
    on = S > 0
    C2, C3 = float(lam[on].mean()), float(-lam[~on].mean())
    return C2, C3, (C2 + C3) / math.sqrt(D)
