"""Experiments of the deora2023 claims: problem setup, GD runs with snapshots, NTK margins (the SVM of
derivation Sect. 11), the typed sweep points with their module-level workers (``ctx.map`` may send them to a
process pool), and the sweeps that several claims share, cached per process with ``functools.cache``.

A cached sweep takes a frozen ``*Sweep`` dataclass whose ``mapper`` (the claim's ``ctx.map``) is left
out of its hash: a parallel map returns the serial result, so the mapper never changes the value.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import stats
from scipy.optimize import minimize
from scipy.special import expit

from bounds import deora2023 as B
from bounds.checks import check_array, check_choice, check_int
from verify.core.context import Mapper, serial_map
from verify.deora2023 import data as D
from verify.deora2023 import model as M
from verify.numerics.gd import Trajectory, gradient_descent
from verify.numerics.softmax import softmax
from verify.numerics.worstcase import WorstCase, worst_case

Params = Mapping[str, np.ndarray]
MODEL = M.MultiHeadAttention()


def _rng(seed: int, *keys: int) -> np.random.Generator:
    """The stream ``Ctx(seed=seed).rng(*keys)`` gives."""
    return np.random.default_rng([seed, *keys])


def make_problem(
    data_rng: np.random.Generator,
    init_rng: np.random.Generator,
    *,
    n: int,
    H: int,
    T: int = 6,
    d: int = 8,
    S: float = 1.0,
    sigma: float = 0.05,
    M_irr: int = 4,
    variant: str = "O",
    zeta: float = 1 / 3,
    w_scale: float = 0.0,
) -> D.Problem:
    """Tokenized mixture (derivation Sect. 9.1) with the paired initialisation I0 (derivation Sect. 1.5)."""
    mix = D.Mixture(T=T, d=d, zeta=zeta, S=S, sigma=sigma, M=M_irr, variant=variant)
    X, y, rel = mix.sample(data_rng, n)
    return D.Problem(X, y, rel, M.init_params(init_rng, H, T, d, w_scale=w_scale), mix)


def run_gd(
    params0: Params,
    X: np.ndarray,
    y: np.ndarray,
    eta: float | Mapping[str, float],
    K: int,
    snapshots: tuple[int, ...] | list[int] = (),
    every: int | None = None,
) -> tuple[Trajectory, dict[int, M.AttnParams]]:
    """Full-batch GD on the logistic empirical risk (``eta``: one step, or one per block "U", "W");
    returns the trajectory and copies of theta_k at the steps in ``snapshots`` (and every ``every``
    steps)."""
    want = set(snapshots) | ({k for k in range(0, K + 1, every)} if every else set())
    snaps: dict[int, M.AttnParams] = {}
    batch = D.Batch(X, y)

    def keep(theta, grads, loss, t):
        if t in want:
            snaps[t] = M.AttnParams(**{k: np.array(v, copy=True) for k, v in theta.items()})
        return 0.0

    def lg(theta):
        return MODEL.loss_and_grad(theta, batch, validate=False)

    traj = gradient_descent(params0, lg, eta, K, record={"snap": keep})
    return traj, snaps


def decaying_gd_losses(
    params0: Params, X: np.ndarray, y: np.ndarray, eta: float, K: int, power: float
) -> np.ndarray:
    """L(theta_k), k = 0..K, of full-batch GD at the decaying step eta_k = eta (k + 1)^(-power) (the
    classical step of online and subgradient analyses for power 1/2)."""
    theta = {k: np.array(v, dtype=np.float64, copy=True) for k, v in params0.items()}
    batch, losses = D.Batch(X, y), np.empty(check_int("K", K, low=0) + 1)
    for k in range(K + 1):
        losses[k], g = MODEL.loss_and_grad(theta, batch, validate=False)
        step = eta * (k + 1) ** (-power)
        theta = {b: theta[b] - step * g[b] for b in theta}
    return losses


def value_norm_max(params: Params) -> float:
    """u = max_h ||U_h||_F."""
    return float(np.max(np.linalg.norm(params["U"].reshape(params["U"].shape[0], -1), axis=1)))


def value_norm_mean_sq(params: Params) -> float:
    """(1/H) sum_h ||U_h||_F^2."""
    return float(np.mean(np.sum(params["U"] ** 2, axis=(1, 2))))


def dist(a: Params, b: Params) -> float:
    return float(np.sqrt(sum(np.sum((a[k] - b[k]) ** 2) for k in a)))


def lerp(a: Params, b: Params, s: float) -> dict[str, np.ndarray]:
    return {k: (1.0 - s) * a[k] + s * b[k] for k in a}


def shift(params: Params, direction: np.ndarray, lam: float) -> dict[str, np.ndarray]:
    """theta + lam * direction, ``direction`` a leading part of the packed vector (e.g. the U block)."""
    H, T, d = M.check_params(params)
    full = np.zeros(M.n_params(H, T, d))
    full[: direction.size] = direction
    return M.unpack(M.pack(params) + lam * full, H, T, d)


def taylor_ratios(
    params0: Params, X: np.ndarray, y: np.ndarray, directions: np.ndarray, lams: np.ndarray | list[float]
) -> np.ndarray:
    """(k, len(lams)): per direction theta_* (a row of ``directions`` (k, p), unit vectors, packed) and per
    lambda in ``lams``, the largest (over samples) Taylor deficit
    max(0, -(y Phi(theta_0 + lam theta_*) - y Phi(theta_0) - lam y <grad Phi(theta_0), theta_*>)) divided
    by lam^2 beta_3(lam) / (2 sqrt(H)), beta_3(lam) = sqrt(T) R^3 (1 + 2R^2 (ubar_0 + lam)), R the token
    radius of X."""
    H, T, _ = M.check_params(params0)
    directions = check_array("directions", directions, ndim=2)
    yphi0 = y * M.phi(params0, X)
    lin = (directions @ M.features(params0, X).T) * y  # (k, n)
    u0, R = value_norm_max(params0), D.token_radius(X)
    out = np.empty((directions.shape[0], len(lams)))
    for j, lam in enumerate(np.asarray(lams, dtype=np.float64)):
        bound = B.taylor_remainder_bound(float(lam), H, B.beta3(T, R, u0 + float(lam)))
        for i, v in enumerate(directions):
            yphi = y * M.phi(shift(params0, v, float(lam)), X)
            out[i, j] = max(0.0, float(np.max(-(yphi - yphi0 - lam * lin[i])))) / bound
    return out


@dataclass(frozen=True)
class Margin:
    """gamma = min_i <Z_i, theta_star> with ||theta_star|| = 1 (gamma <= 0: not separable)."""

    gamma: float
    theta_star: np.ndarray
    separable: bool


def svm_margin(Z: np.ndarray, *, max_alpha: float = 1e8) -> Margin:
    """Bias-free hard-margin SVM on the rows of Z (n, p): solve min_{alpha >= 0} a^T G a / 2 - 1^T a
    (G = Z Z^T) with L-BFGS-B, then polish on the support set by the KKT system G_SS a_S = 1."""
    Z = check_array("Z", Z, ndim=2)
    n = Z.shape[0]
    G = Z @ Z.T
    scale = max(float(np.max(np.diag(G))), 1e-300)
    Gs = G / scale  # the dual of Z / sqrt(scale)

    def fg(a: np.ndarray) -> tuple[float, np.ndarray]:
        Ga = Gs @ a
        return 0.5 * float(a @ Ga) - float(a.sum()), Ga - 1.0

    res = minimize(
        fg,
        np.full(n, 1.0 / n),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, max_alpha)] * n,
        options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 5000},
    )
    a = res.x
    if np.max(a) >= 0.99 * max_alpha:
        return Margin(0.0, np.zeros(Z.shape[1]), False)
    best = _direction(Z, a)
    # polish: exact KKT solve on the support set, kept only if it is feasible and better
    sup = a > 1e-8 * max(1.0, float(np.max(a)))
    if sup.any():
        try:
            aS = np.linalg.lstsq(Gs[np.ix_(sup, sup)], np.ones(int(sup.sum())), rcond=None)[0]
            if np.all(aS >= 0):
                a2 = np.zeros(n)
                a2[sup] = aS
                cand = _direction(Z, a2)
                if cand.gamma > best.gamma:
                    best = cand
        except np.linalg.LinAlgError:
            pass
    return best


def _direction(Z: np.ndarray, a: np.ndarray) -> Margin:
    w = Z.T @ a
    nw = float(np.linalg.norm(w))
    if nw == 0:
        return Margin(0.0, np.zeros(Z.shape[1]), False)
    theta = w / nw
    gamma = float(np.min(Z @ theta))
    return Margin(gamma, theta, gamma > 0)


def ntk_margins(params: Params, X: np.ndarray, y: np.ndarray) -> tuple[Margin, Margin]:
    """(U-block margin, full margin) of the NTK features y_i grad Phi(theta; X_i)."""
    F = M.features(params, X) * y[:, None]
    H, T, d = M.check_params(params)
    return svm_margin(F[:, : H * T * d]), svm_margin(F)


def ntk_setup(seed: int, n: int, H: int, S: float, sigma: float) -> tuple[D.Problem, Margin, Margin, float]:
    """A mixture problem at theta_0, its (U-block, full) NTK margins and B0 = max_i |Phi(theta_0; X_i)|."""
    pr = make_problem(_rng(seed, 1), _rng(seed, 2), n=n, H=H, S=S, sigma=sigma)
    mU, mF = ntk_margins(pr.params0, pr.X, pr.y)
    B0 = float(np.max(np.abs(M.phi(pr.params0, pr.X))))
    return pr, mU, mF, B0


def ntk_gram_w0(U: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The NTK Gram G_ij = y_i y_j <grad Phi(theta_0; X_i), grad Phi(theta_0; X_j)> at W_0 = 0 in closed
    form, at a cost independent of H: with uniform attention the U-features of head h are
    1 xbar^T / sqrt(H) and its W-features X^T U_h C / (T sqrt(H)), C = X^T (I - 11^T/T) X, so the Gram
    depends on the heads only through Q = (1/H) sum_h vec(U_h) vec(U_h)^T. Returns (G, xbar (n, d),
    C (n, d, d))."""
    _, T, d = X.shape
    H = U.shape[0]
    xbar = X.mean(axis=1)
    C = np.einsum("itd,ite->ide", X, X) - T * np.einsum("id,ie->ide", xbar, xbar)
    Uf = U.reshape(H, T * d)
    Q = (Uf.T @ Uf / H).reshape(T, d, T, d)
    P = np.einsum("itd,jsd->ijts", X, X)
    CC = np.einsum("jbc,ica->ijba", C, C)
    G = T * xbar @ xbar.T + np.einsum("ijts,tasb,ijba->ij", P, Q, CC) / T**2
    return G * np.outer(y, y), xbar, C


def ntk_margin_w0(U: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """(full NTK margin gamma, dual coefficients a with theta_* = Z^T a, ||theta_*|| = 1) at W_0 = 0 from
    the closed-form Gram (:func:`ntk_gram_w0`): the SVM of :func:`svm_margin` on a Cholesky factor."""
    G = ntk_gram_w0(U, X, y)[0]
    n = G.shape[0]
    Lc = np.linalg.cholesky(G + 1e-14 * np.trace(G) * np.eye(n))
    m = svm_margin(Lc)  # rows of Lc have the Gram G
    a = np.linalg.solve(Lc.T, m.theta_star)
    a = a / math.sqrt(float(a @ G @ a))
    return float(np.min(G @ a)), a


def phi_along_theta_star_w0(params0: Params, X: np.ndarray, y: np.ndarray, a: np.ndarray, lam: float,
                            chunk: int = 4096) -> np.ndarray:  # fmt: skip
    """Phi(theta_0 + lam theta_*; X_i) for theta_* = Z^T a (W_0 = 0), heads in chunks, so H can be
    ~1e5 with O(chunk) memory: theta_*'s U-block of every head is 1 (sum_i c_i xbar_i)^T / sqrt(H) and
    its W-block X-weighted U_h (sum_i c_i X_i^T U_h C_i / (T sqrt(H))), c = a y."""
    U = np.asarray(params0["U"])
    H, T, d = U.shape
    _, xbar, C = ntk_gram_w0(U[:1], X, y)
    c = a * y
    th_u = np.tile((c @ xbar) / math.sqrt(H), (T, 1))
    w_map = np.einsum("i,itd,ief->tedf", c, X, C).reshape(T * d, d * d) / (T * math.sqrt(H))
    phi = np.zeros(X.shape[0])
    for h0 in range(0, H, chunk):
        Uc = U[h0 : h0 + chunk]
        Wc = lam * (Uc.reshape(Uc.shape[0], -1) @ w_map).reshape(-1, d, d)
        phi += M.phi({"U": Uc + lam * th_u, "W": Wc}, X) * math.sqrt(Uc.shape[0] / H)
    return phi


def curvature_kappa(params: Params, X: np.ndarray, y: np.ndarray) -> float:
    """max(0, -lambda_min(M)) / L(theta): a rigorous upper bound on the self-bounded weak-convexity
    ratio max(0, -lambda_min(grad^2 L)) / L at theta (M = non-PSD, head-block-diagonal part)."""
    lam = M.curvature_lambda_min(params, X, y)
    return max(0.0, -lam) / M.loss(params, X, y)


def random_case(
    rng: np.random.Generator, H: int, T: int, d: int, s: float, x_scale: float, n: int
) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """theta with N(0, s^2) entries, Gaussian tokens X (n, T, d) of scale x_scale, random labels."""
    params = {"U": s * rng.standard_normal((H, T, d)), "W": s * rng.standard_normal((H, d, d))}
    X = D.random_tokens(rng, n, T, d, x_scale)
    y = rng.choice(np.array([-1.0, 1.0]), size=n)
    return params, X, y


def cases(rng: np.random.Generator, count: int) -> Iterator[tuple[int, int, int, float, float]]:
    """Random (H, T, d, s, x_scale) from the ranges of derivations.md Sect. 11 (claim .grad)."""
    for _ in range(check_int("cases", count)):
        yield (
            int(rng.integers(1, 5)),
            int(rng.integers(2, 6)),
            int(rng.integers(2, 5)),
            float(rng.choice([0.1, 1.0, 3.0])),
            float(rng.choice([0.5, 1.0, 2.0])),
        )


def trained_problem(seed: int, H: int, steps: int) -> tuple[D.Problem, M.AttnParams]:
    """A mixture problem (n = 20) and theta_K after ``steps`` GD steps at eta = 1."""
    pr = make_problem(_rng(seed, 10), _rng(seed, 11), n=20, H=H)
    traj, _ = run_gd(pr.params0, pr.X, pr.y, 1.0, steps)
    return pr, traj.params


def grad_ratio(params: Params, X: np.ndarray) -> np.ndarray:
    """||grad Phi_i||^2 / beta_2(theta)^2 with the per-sample R_i = max_t ||x_{i,t}||."""
    _H, T, _ = M.check_params(params)
    g2 = M.grad_norms(params, X) ** 2
    m = value_norm_mean_sq(params)
    return np.array([g / B.grad_bound_sq(T, D.token_radius(x[None]), m) for g, x in zip(g2, X, strict=True)])


def _sym_norms(blocks: np.ndarray) -> np.ndarray:
    """Spectral norm of the symmetrised per-head blocks (n, H, q, q), max over heads: (n,)."""
    blocks = (blocks + np.swapaxes(blocks, -1, -2)) / 2
    return np.max(np.abs(np.linalg.eigvalsh(blocks)), axis=(1, 2))


def _per_sample_radius(X: np.ndarray) -> np.ndarray:
    return np.array([D.token_radius(x[None]) for x in X])


def hess_ratio_full(params: Params, X: np.ndarray) -> np.ndarray:
    """||grad^2 Phi_i|| / (beta_3/sqrt H) for every sample (exact, by the per-head blocks)."""
    H, T, _ = M.check_params(params)
    u = value_norm_max(params)
    bounds = np.array([B.hess_bound(T, r, u, H) for r in _per_sample_radius(X)])
    return _sym_norms(M.phi_head_blocks(params, X)) / bounds


def hess_ratio_v1(params: Params, X: np.ndarray) -> np.ndarray:
    """The same for the single-query variant V1 (query row 0, sqrt(T) -> 1) at the V1 point u_h = U_{h,0},
    with the V1 model's own Hessian (:func:`verify.deora2023.model.v1_head_blocks`; rows t >= 1 of U
    absent)."""
    H, _, _ = M.check_params(params)
    u1 = float(np.max(np.linalg.norm(params["U"][:, 0, :], axis=1)))
    bounds = np.array([B.hess_bound(1, r, u1, H) for r in _per_sample_radius(X)])
    return _sym_norms(M.v1_head_blocks(params, X)) / bounds


def hess_ratio(params: Params, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(:func:`hess_ratio_full`, :func:`hess_ratio_v1`) for every sample."""
    return hess_ratio_full(params, X), hess_ratio_v1(params, X)


def _jacobian_ratios(s: np.ndarray) -> np.ndarray:
    """||diag(s) - s s^T|| / (1/2) for every row of s (m, T)."""
    J = np.einsum("mi,ij->mij", s, np.eye(s.shape[1])) - s[:, :, None] * s[:, None, :]
    return np.linalg.eigvalsh(J)[:, -1] / B.SOFTMAX_JACOBIAN_NORM


def _variance_ratios(s: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Var_s(a) / (range(a)^2 / 4) for every row."""
    var = np.sum(s * a**2, 1) - np.sum(s * a, 1) ** 2
    return var / np.vectorize(B.variance_bound)(np.ptp(a, axis=1))


def _kappa3_ratios(s: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|k3_s(a, b, b)| / (range(a) range(b)^2 / 4) for every row."""
    k3 = np.sum(s * (a - np.sum(s * a, 1, keepdims=True)) * (b - np.sum(s * b, 1, keepdims=True)) ** 2, 1)
    return np.abs(k3) / np.vectorize(B.kappa3_bound)(np.ptp(a, axis=1), np.ptp(b, axis=1))


#: The softmax facts: name -> (how many length-T vectors the inequality takes, logits first; row ratios).
SOFTMAX_FACTS = {"jacobian": (1, _jacobian_ratios), "variance": (2, _variance_ratios),
                 "kappa3": (3, _kappa3_ratios)}  # fmt: skip


def softmax_ratios(rng: np.random.Generator, draws: int) -> dict[str, float]:
    """Largest ratio to its bound of ||diag(s) - s s^T||, Var_s(a) and |k3_s(a, b, b)| over random softmax
    vectors (T in [2, 50], logit scale up to 50) plus the extremal two-point s = (1/2, 1/2, 0, ...)."""
    worst = dict.fromkeys(SOFTMAX_FACTS, 0.0)
    for T in range(2, 51, 8):
        m = max(1, draws // 7)
        z = rng.standard_normal((m, T)) * rng.uniform(0, 50, size=(m, 1))
        s = softmax(z)  # the softmax the model uses
        s = np.concatenate([s, np.pad([[0.5, 0.5]], ((0, 0), (0, T - 2)))])
        a = rng.standard_normal((s.shape[0], T)) * rng.uniform(0.1, 10, size=(s.shape[0], 1))
        b = rng.standard_normal(a.shape)
        for name, (k, fn) in SOFTMAX_FACTS.items():
            worst[name] = max(worst[name], float(np.max(fn(s, *(a, b)[: k - 1]))))
    return worst


def sbgrad_ratio(
    params: Params, X: np.ndarray, y: np.ndarray, L: float | None = None, grads: Params | None = None
) -> float:
    """||grad L(theta)|| / (beta_2 L(theta)), beta_2 = max_i ||grad Phi_i|| (L and its gradient are
    computed unless given)."""
    if grads is None or L is None:
        L, grads = M.loss_and_grad(params, X, y)
    gnorm = math.sqrt(sum(float(np.sum(g**2)) for g in grads.values()))
    return gnorm / B.sb_grad_bound(float(np.max(M.grad_norms(params, X))), L)


def sbgrad_ratios(
    seed: int, H: int, n: int, steps: int, random_points: int
) -> tuple[np.ndarray, list[float]]:
    """:func:`sbgrad_ratio` at every GD iterate (eta = 1) from theta_0 and at ``random_points`` random
    theta (entries N(0, 1))."""
    pr = make_problem(_rng(seed, 1), _rng(seed, 2), n=n, H=H)
    X, y = pr.X, pr.y
    traj = gradient_descent(
        pr.params0,
        lambda th: M.loss_and_grad(th, X, y, validate=False),
        1.0,
        steps,
        record={"ratio": lambda th, grads, L, t: sbgrad_ratio(th, X, y, L, grads)},
    )
    rng = _rng(seed, 3)
    rand = [
        sbgrad_ratio({k: rng.standard_normal(v.shape) for k, v in pr.params0.items()}, X, y)
        for _ in range(random_points)
    ]
    return traj.extras["ratio"], rand


@dataclass(frozen=True)
class QuasiconvexPairs:
    """Per used pair (c < c_max) the ratios of the inner-product inequality (r1) and of the segment
    maximum (r2) to their bounds; ``used`` of ``pairs`` drawn."""

    r1: list[float]
    r2: list[float]
    used: int


def qc_c(th: Params, th2: Params, R: float) -> float:
    """c = kappa D^2 with D = ||theta - theta'|| and kappa = beta_3(R, larger endpoint value norm)/sqrt(H)
    (max_h ||U_h|| on the segment is at most its value at an endpoint)."""
    H, T, _ = M.check_params(th)
    kappa = B.weak_convexity_modulus(B.beta3(T, R, max(value_norm_max(th), value_norm_max(th2))), H)
    return kappa * dist(th, th2) ** 2


def qc_inner_ratio(th: Params, th2: Params, X: np.ndarray, y: np.ndarray, c: float) -> float:
    """(1-a) L(t) / (<grad L(t), t-t'> + (1+a) L(t')): above 1 iff the inner-product inequality fails
    (inf when the denominator is not positive)."""
    L1, g1 = M.loss_and_grad(th, X, y)
    L2 = M.loss(th2, X, y)
    inner = sum(float(np.sum(g1[k] * (th[k] - th2[k]))) for k in th)
    a = B.qc_a(c)
    den = inner + (1 + a) * L2
    return (B.qc_inner_lower(L1, L2, c) + (1 + a) * L2) / den if den > 0 else math.inf


def qc_segment_ratio(
    th: Params, th2: Params, X: np.ndarray, y: np.ndarray, c: float, seg_points: int
) -> float:
    """max_seg L (1 - c/2) / max(L(t), L(t')), the segment maximum on ``seg_points`` points (their losses in
    one batched pass, each point's the bits of :func:`verify.deora2023.model.loss` at it)."""
    s = np.linspace(0, 1, seg_points)[:, None, None, None]
    U, W = ((1.0 - s) * th[k] + s * th2[k] for k in ("U", "W"))  # lerp at every point
    seg = float(np.max(M.loss_and_grad_batched(U, W, X[None], y[None], grad=False)[0]))
    return seg / B.qc_segment_max(max(M.loss(th, X, y), M.loss(th2, X, y)), c)


def quasiconvex_pairs(
    seed: int, H: int, n: int, pairs: int, seg_points: int, c_max: float
) -> QuasiconvexPairs:
    """Pairs theta = theta_0 + N(0, 0.1^2), theta' = theta + D u (u a unit direction, D log-uniform in
    [0.01, 2]); c = :func:`qc_c`; pairs with c >= c_max are skipped (the inequalities assume c < 1)."""
    pr = make_problem(_rng(seed, 1), _rng(seed, 2), n=n, H=H)
    X, y, R = pr.X, pr.y, pr.R
    rng = _rng(seed, 3)
    used, r1s, r2s = 0, [], []
    for _ in range(check_int("pairs", pairs)):
        th = {k: v + 0.1 * rng.standard_normal(v.shape) for k, v in pr.params0.items()}
        u = {k: rng.standard_normal(v.shape) for k, v in th.items()}
        nu = math.sqrt(sum(float(np.sum(v**2)) for v in u.values()))
        Dist = float(np.exp(rng.uniform(np.log(0.01), np.log(2.0))))
        th2 = {k: th[k] + Dist * u[k] / nu for k in th}
        c = qc_c(th, th2, R)
        if c >= c_max:
            continue
        used += 1
        r1s.append(qc_inner_ratio(th, th2, X, y, c))
        r2s.append(qc_segment_ratio(th, th2, X, y, c, seg_points))
    return QuasiconvexPairs(r1s, r2s, used)


@dataclass(frozen=True)
class ScalingPoint:
    """One init draw of the H-scaling sweep: paired init with W_0 ~ N(0, w_scale^2), n_inputs inputs."""

    seed: int
    H: int
    n_inputs: int
    key: int
    w_scale: float


def scaling_point(p: ScalingPoint) -> tuple[float, float]:
    """(median_i ||grad Phi_i||, median_i ||grad^2 Phi_i||) at a paired init with W_0 ~ N(0, w^2)."""
    rng = np.random.default_rng([p.seed, p.key])
    mix = D.Mixture()
    X, _, _ = mix.sample(np.random.default_rng([p.seed, p.key, 1]), p.n_inputs)
    params = M.init_params(rng, p.H, mix.T, mix.d, w_scale=p.w_scale)
    return float(np.median(M.grad_norms(params, X))), float(np.median(M.phi_hessian_norms(params, X)))


@dataclass(frozen=True)
class ScalingSweep:
    """One init draw per seed of ``seeds`` at every H of ``Hs``, ``n_inputs`` mixture inputs each."""

    seeds: tuple[int, ...]
    Hs: tuple[int, ...]
    n_inputs: int
    mapper: Mapper = field(default=serial_map, compare=False, repr=False)


@functools.cache
def scaling_sweep(s: ScalingSweep) -> np.ndarray:
    """(len(Hs), len(seeds), 2): :func:`scaling_point` for every H and seed (W_0 entries N(0, 0.09))."""
    items = [ScalingPoint(seed, H, s.n_inputs, H, 0.3) for H in s.Hs for seed in s.seeds]
    return np.array(s.mapper(scaling_point, items)).reshape(len(s.Hs), len(s.seeds), 2)


@dataclass(frozen=True)
class WcPoint:
    """A point theta (with the training set) at which the Hessian of L is examined."""

    params: Params
    X: np.ndarray
    y: np.ndarray
    dense_max: int


def wc_point(p: WcPoint) -> dict[str, float]:
    """lambda_min / ||.|| of grad^2 L at one point: exact when p <= dense_max
    (:func:`verify.deora2023.model.loss_hessian_extremes`), else the rigorous one-sided bounds
    lambda_min >= min_h lambda_min(M_h) and ||grad^2 L|| <= ||GN|| + max_h ||M_h||. Also the block kappa and
    beta_2, beta_3, L."""
    params, X, y, dense_max = p.params, p.X, p.y, p.dense_max
    H, T, d = M.check_params(params)
    L = M.loss(params, X, y)
    Bk = M.curvature_blocks(params, X, y)
    ev = np.linalg.eigvalsh((Bk + np.swapaxes(Bk, -1, -2)) / 2)
    lam_block = float(ev.min())
    if M.n_params(H, T, d) <= dense_max:
        lam_min, norm = M.loss_hessian_extremes(params, X, y, dense_max=dense_max, blocks=Bk)
        method = 1.0
    else:
        cache = M.forward(params, X)
        _, _, l2 = M.logistic(y * cache.phi)
        F = M.features(params, X)
        Fs = F * np.sqrt(l2 / y.size)[:, None]
        gn = float(np.linalg.eigvalsh(Fs @ Fs.T)[-1])
        lam_min, norm, method = lam_block, gn + float(np.max(np.abs(ev))), 0.0
    return {
        "L": L,
        "lam_min": lam_min,
        "norm": norm,
        "lam_block": lam_block,
        "dense": method,
        "beta2": float(np.max(M.grad_norms(params, X))),
        "beta3": B.beta3(T, D.token_radius(X), value_norm_max(params)),
        "H": H,
    }


def sbwc_ratio(q: Mapping[str, float]) -> float:
    """max(0, -lambda_min(grad^2 L)) / ((beta_3/sqrt(H)) L) at a :func:`wc_point`."""
    return max(0.0, -q["lam_min"]) / (B.weak_convexity_modulus(q["beta3"], int(q["H"])) * q["L"])


def smooth_ratios(q: Mapping[str, float]) -> tuple[float, float]:
    """||grad^2 L|| divided by the (self-bounded, global) smoothness bounds at a :func:`wc_point`."""
    sb, glob = B.smoothness_bounds(q["beta2"], q["beta3"], int(q["H"]), q["L"])
    return q["norm"] / sb, q["norm"] / glob


@dataclass(frozen=True)
class WcSweep:
    seed: int
    Hs: tuple[int, ...]
    n: int
    ks: tuple[int, ...]
    random_points: int
    dense_max: int
    mapper: Mapper = field(default=serial_map, compare=False, repr=False)


@functools.cache
def wc_sweep(s: WcSweep) -> list[dict[str, float]]:
    """:func:`wc_point` at the GD iterates k in ks (eta = 1) and at ``random_points`` random theta
    (entries N(0, 0.25)) for every H; each result carries its k (-1 for a random theta)."""
    items = []
    for H in s.Hs:
        pr = make_problem(_rng(s.seed, 1), _rng(s.seed, 2, H), n=s.n, H=H)
        _, snaps = run_gd(pr.params0, pr.X, pr.y, 1.0, max(s.ks), snapshots=s.ks)
        items += [WcPoint(snaps[k], pr.X, pr.y, s.dense_max) for k in s.ks]
        rng = _rng(s.seed, 3, H)
        items += [
            WcPoint(
                {k: 0.5 * rng.standard_normal(v.shape) for k, v in pr.params0.items()},
                pr.X,
                pr.y,
                s.dense_max,
            )
            for _ in range(s.random_points)
        ]
    out = s.mapper(wc_point, items)
    per = len(s.ks) + s.random_points
    for j, o in enumerate(out):
        o["k"] = float(s.ks[j % per]) if j % per < len(s.ks) else -1.0
    return out


@dataclass(frozen=True)
class NoisyMarginPoint:
    seed: int
    n: int
    H: int
    S: float
    sigma: float
    delta: float
    noise: str = "iid"


def noisy_margin_trial(p: NoisyMarginPoint) -> tuple[float, float, float]:
    """One seed of the noisy mixture: (gamma_U, gamma_full, lower bound) at W_0 = 0."""
    mix = D.Mixture(S=p.S, sigma=p.sigma, variant="O", noise=p.noise)
    X, y, _ = mix.sample(np.random.default_rng([p.seed, 1]), p.n)
    params = M.init_params(np.random.default_rng([p.seed, 2]), p.H, mix.T, mix.d)
    mU, mF = ntk_margins(params, X, y)
    lb = B.mixture_margin_noisy_lower(mix.zeta_eff, p.S, mix.T, p.sigma, p.n, p.delta)
    return mU.gamma, mF.gamma, lb


@dataclass(frozen=True)
class NtkGramPoint:
    """Init draw ``init`` at H heads on the data set of ``data_seed``."""

    data_seed: int
    init: int
    H: int
    shared: float = 0.0


def ntk_gram_point(p: NtkGramPoint) -> tuple[np.ndarray, float]:
    """(NTK Gram K_H at theta_0 on a fixed dataset (n = 40), full NTK margin) for one init draw (heads
    sharing the fraction ``shared`` of their U variance: :func:`verify.deora2023.model.init_params`)."""
    mix = D.Mixture()
    X, y, _ = mix.sample(np.random.default_rng([p.data_seed, 7]), 40)
    rng = np.random.default_rng([p.data_seed, 8, p.H, p.init])
    params = M.init_params(rng, p.H, mix.T, mix.d, shared=p.shared)
    F = M.features(params, X)
    return F @ F.T, svm_margin(F * y[:, None]).gamma


@dataclass(frozen=True)
class NtkSweep:
    """One data set (``seed``) and ``inits`` init draws at every H of ``Hs``."""

    seed: int
    Hs: tuple[int, ...]
    inits: int
    shared: float = 0.0
    mapper: Mapper = field(default=serial_map, compare=False, repr=False)


@functools.cache
def ntk_sweep(s: NtkSweep) -> tuple[np.ndarray, np.ndarray]:
    """Per H: (||std_inits K_H||_F / ||mean_inits K_H||_F, coefficient of variation of the margin)."""
    items = [NtkGramPoint(s.seed, j, H, s.shared) for H in s.Hs for j in range(s.inits)]
    out = s.mapper(ntk_gram_point, items)
    spread, cv = [], []
    for j, _ in enumerate(s.Hs):
        grams = np.array([g for g, _ in out[j * s.inits : (j + 1) * s.inits]])
        margins = np.array([m for _, m in out[j * s.inits : (j + 1) * s.inits]])
        spread.append(float(np.linalg.norm(grams.std(axis=0)) / np.linalg.norm(grams.mean(axis=0))))
        cv.append(float(margins.std() / margins.mean()))
    return np.array(spread), np.array(cv)


#: Output scalings of the lazy claim: "ntk" our model, Phi = (1/sqrt(H)) sum_h f_h; "mean-field"
#: Phi = (1/H) sum_h f_h trained by GD at step eta H (the feature-learning scaling).
PARAMETRIZATIONS = ("ntk", "mean-field")


@dataclass(frozen=True)
class LazyPoint:
    seed: int
    H: int
    n: int
    eta: float
    K: int
    parametrization: str = "ntk"


def lazy_point(p: LazyPoint) -> tuple[float, float, float, float]:
    """(||theta_K - theta_0||, ||theta_0||, L(theta_K), mean_k L(theta_k)) for one H.

    ``parametrization`` "mean-field" (:data:`PARAMETRIZATIONS`): Phi = (1/H) sum_h f_h(U_h, W_h) from the
    same theta_0, GD at step eta H on every block. As f_h is linear in U_h, that model is ours at
    U' = U / sqrt(H), and its GD is ours at step eta on U' and eta H on W: it runs so, and theta is
    measured in the mean-field coordinates (U = sqrt(H) U')."""
    check_choice("parametrization", p.parametrization, PARAMETRIZATIONS)
    pr = make_problem(
        np.random.default_rng([p.seed, 1]), np.random.default_rng([p.seed, 2, p.H]), n=p.n, H=p.H
    )
    norm0 = float(np.sqrt(sum(np.sum(v**2) for v in pr.params0.values())))
    if p.parametrization == "ntk":
        traj, _ = run_gd(pr.params0, pr.X, pr.y, p.eta, p.K)
        moved = float(traj.drift[-1])
    else:
        root = math.sqrt(p.H)
        params0 = M.AttnParams(U=pr.params0["U"] / root, W=pr.params0["W"])
        traj, _ = run_gd(params0, pr.X, pr.y, {"U": p.eta, "W": p.eta * p.H}, p.K)
        moved = float(np.hypot(root * traj.drift_blocks["U"][-1], traj.drift_blocks["W"][-1]))
    return moved, norm0, float(traj.loss[-1]), float(np.mean(traj.loss))


@dataclass(frozen=True)
class LazySweep:
    seed: int
    Hs: tuple[int, ...]
    n: int
    eta: float
    K: int
    parametrization: str = "ntk"
    mapper: Mapper = field(default=serial_map, compare=False, repr=False)


@functools.cache
def lazy_sweep(s: LazySweep) -> np.ndarray:
    """(len(Hs), 4): :func:`lazy_point` for every H."""
    items = [LazyPoint(s.seed, H, s.n, s.eta, s.K, s.parametrization) for H in s.Hs]
    return np.array(s.mapper(lazy_point, items))


@dataclass(frozen=True)
class TrainConfig:
    """The D-train experiment: n samples of the mixture (T, d, M_irr), H heads, K steps at eta,
    curvature checked every ``every`` steps on ``seg_points`` points of each segment, reference points
    at the losses ``eps`` and the late iterate theta_{late_factor K}."""

    n: int
    H: int
    T: int
    d: int
    M_irr: int
    K: int
    eta: float
    every: int
    seg_points: int
    eps: tuple[float, ...]
    late_factor: int
    token_scale: float = 1.0


@functools.cache
def train_experiment(seed: int, cfg: TrainConfig) -> dict:
    """One GD run of late_factor * K steps and, for each reference point theta_ref (U-only
    realizability points theta_0 + lam_eps theta_*, and the late iterate theta_{late_factor K}), the
    quantities of Theorem D-train over the first K steps: L_ref, D_k = ||theta_k - theta_ref||, the
    measured modulus kappa, c = kappa max_k D_k^2, ||theta_ref - theta_0||."""
    K = cfg.K
    pr = make_problem(_rng(seed, 1), _rng(seed, 2), n=cfg.n, H=cfg.H, T=cfg.T, d=cfg.d, M_irr=cfg.M_irr,
                      S=cfg.token_scale, sigma=0.05 * cfg.token_scale)  # fmt: skip
    X, y = pr.X, pr.y
    late = cfg.late_factor * K
    traj, snaps = run_gd(pr.params0, X, y, cfg.eta, late, snapshots=[*range(K + 1), late])
    mU, _ = ntk_margins(pr.params0, X, y)
    B0 = float(np.max(np.abs(M.phi(pr.params0, X))))
    refs = {f"eps={e:g}": shift(pr.params0, mU.theta_star, B.g_eps_U(B0, e, mU.gamma)) for e in cfg.eps}
    refs[f"theta_{late}"] = snaps[late]
    # lerp(a, b, 0) = a and lerp(a, b, 1) = b exactly: the segments' endpoints (a checkpoint, shared by every
    # reference point; a reference point, shared by its segments) are evaluated once
    memo: dict[tuple, float] = {}

    def kappa(k: int, name: str, s: float) -> float:
        key = ("k", k) if s == 0 else ("ref", name) if s == 1 else (k, name, s)
        if key not in memo:
            memo[key] = curvature_kappa(lerp(snaps[k], refs[name], s), X, y)
        return memo[key]

    cfgs = {}
    for name, ref in refs.items():
        Dk = np.array([dist(snaps[k], ref) for k in range(K + 1)])
        kap = max(
            kappa(k, name, s) for k in range(0, K, cfg.every) for s in np.linspace(0, 1, cfg.seg_points)
        )
        cfgs[name] = {
            "L_ref": M.loss(ref, X, y),
            "D": Dk,
            "kappa": kap,
            "c": kap * float(np.max(Dk**2)),
            "dist0": dist(ref, pr.params0),
        }
    return {
        "loss": traj.loss[: K + 1],
        "grad_norm": traj.grad_norm[: K + 1],
        "cfgs": cfgs,
        "R": pr.R,
        "u0": value_norm_max(pr.params0),
        "gamma_U": mU.gamma,
    }


@dataclass(frozen=True)
class GenDatasets:
    """Training sets 0..datasets-1 of the base seed ``seed``, of size n, each trained K steps at eta from the
    shared theta_0 and tested on (X_test, y_test); ``gamma_datasets``: the first that many also measure
    the expansiveness along their run. Data sets of different base seeds are independent (their streams
    are keyed by both)."""

    seed: int
    n: int
    K: int
    eta: float
    params0: Params
    X_test: np.ndarray
    y_test: np.ndarray
    datasets: int
    gamma_datasets: int


def gen_datasets(p: GenDatasets) -> list[dict[str, object]]:
    """GD on the training sets of the mixture from the shared data-independent theta_0, all at once
    (:func:`verify.deora2023.model.loss_and_grad_batched`; each set's values are the bits of its batch of
    one). Per set: the losses L_hat(theta_k) (k <= K), the test loss L(theta_K), beta_2 along the run
    (train + spare samples), the per-sample test losses l(theta_K; z_t) on the shared test set
    (``test_losses``, whose mean is ``test``) and, for the first ``gamma_datasets``, Gamma = prod_{k<K} of the
    expansiveness max(1 + eta kappa_k, eta lambda_max_k - 1) (:func:`expansiveness`)."""
    n, K, eta, mix = p.n, p.K, p.eta, D.Mixture()
    data = []
    for j in range(p.datasets):
        rng = np.random.default_rng([p.seed, j, 31, n])
        data.append((*mix.sample(rng, n)[:2], mix.sample(rng, n)[0]))  # X, y and replacements z'_i for beta_2
    X, y, Xs = (np.stack(a) for a in zip(*data, strict=True))
    U, W = (np.repeat(np.asarray(p.params0[k])[None], p.datasets, axis=0) for k in ("U", "W"))
    losses, beta2, expans = [], np.zeros(p.datasets), [[] for _ in range(p.gamma_datasets)]
    for k in range(K + 1):
        L, g = M.loss_and_grad_batched(U, W, X, y)
        losses.append(L)
        gn = M.grad_norms_batched(U, W, X)
        beta2 = np.maximum(beta2, np.maximum(gn.max(axis=1), M.grad_norms_batched(U, W, Xs).max(axis=1)))
        if k == K:
            break
        for j, ex in enumerate(expans):
            ex.append(expansiveness({"U": U[j], "W": W[j]}, X[j], y[j], eta, gn[j]))
        U, W = U - eta * g["U"], W - eta * g["W"]
    test, per = M.loss_and_grad_batched(U, W, p.X_test[None], p.y_test[None], grad=False, per_sample=True)
    losses = np.array(losses).T
    return [
        {"losses": losses[j], "test": float(test[j]), "test_losses": per["losses"][j],
         "beta2": float(beta2[j]), "Gamma": float(np.prod(expans[j])) if j < p.gamma_datasets else None}
        for j in range(p.datasets)
    ]  # fmt: skip


def expansiveness(theta: Params, X: np.ndarray, y: np.ndarray, eta: float, gn: np.ndarray) -> float:
    """max(1 + eta kappa, eta lambda_max - 1) at theta with kappa = max(0, -lambda_min(M)) and lambda_max <=
    ||GN|| + ||M|| (M the curvature blocks, GN = F^T diag(l''/n) F); gn: ||grad Phi_i|| (n,). ||GN|| (an
    eigen-solve of the n x n Gram) is computed only when its upper bound tr GN = sum_i l''_i ||grad Phi_i||^2
    / n could make the second term the larger: otherwise the first is the max, the same value exactly."""
    Bk = M.curvature_blocks(theta, X, y)
    ev = np.linalg.eigvalsh((Bk + np.swapaxes(Bk, -1, -2)) / 2)
    low, norm_M = 1.0 + eta * max(0.0, -float(ev.min())), float(np.max(np.abs(ev)))
    _, _, l2 = M.logistic(y * M.phi(theta, X))
    if eta * (float(l2 @ gn**2) / y.size + norm_M) - 1.0 <= low:
        return low
    Fs = M.features(theta, X) * np.sqrt(l2 / y.size)[:, None]
    return max(low, eta * (float(np.linalg.eigvalsh(Fs @ Fs.T)[-1]) + norm_M) - 1.0)


@dataclass(frozen=True)
class GenGap:
    """At one n: K, the mean gap L(theta_K) - L_hat(theta_K) over the training sets, the ends ``lo``, ``hi``
    of its two-sided t interval (each a one-sided ``ci_quantile`` limit; :func:`gen_gap`), its standard
    error ``se`` and degrees of freedom ``dof``, the standard error ``se_indep`` the gaps would have
    if they were independent (information), beta_2, Gamma, the Theorem D-gen bound ``theory`` and whether
    its premise holds."""

    K: int
    gap: float
    lo: float
    hi: float
    se: float
    dof: float
    se_indep: float
    beta2: float
    Gamma: float
    theory: float
    premise: bool


def shared_test_se(test_losses: np.ndarray, train_losses: np.ndarray) -> tuple[float, float, float]:
    """(se, dof, se_indep) of the mean gap mean_j (mean_t A[j, t] - b[j]) of m training sets j evaluated
    on ONE shared test set of T samples t: A (m, T) the per-sample test losses l(theta_j; z_t), b (m,)
    the training losses L_hat_j(theta_j).

    The gaps are not independent: the test set is common to all of them, so its sampling error shifts
    every gap alike and does not average out over j. With the crossed (Hoeffding / two-way random
    effects) decomposition A[j, t] - b[j] = mu + r_j + c_t + e_jt (r: the training set's effect, b
    included; c: the test sample's; e: the interaction; uncorrelated, j and t independent draws),

        Var(mean gap) = s_r^2 / m + s_c^2 / T + s_e^2 / (m T),

    estimated without bias by v = S_row / m + S_col / T - MS_E / (m T): S_row the sample variance of
    the m gaps (the row means), S_col that of the T column means mean_j A[j, t], MS_E the residual mean
    square of the two-way table (degrees of freedom (m - 1)(T - 1)); E S_row = s_r^2 + s_e^2 / T,
    E S_col = s_c^2 + s_e^2 / m, E MS_E = s_e^2. S_row / m alone (``se_indep``^2, the gaps treated as
    independent) misses s_c^2 / T. v is floored at S_row / m (never narrower than the independent
    reading), and its degrees of freedom are Welch-Satterthwaite's over the three mean squares."""
    A = np.asarray(test_losses, dtype=np.float64)
    b = np.asarray(train_losses, dtype=np.float64)
    m, T = A.shape
    if m < 2 or T < 2 or b.shape != (m,):
        raise ValueError(
            f"test_losses must be (m, T) with m, T >= 2 and train_losses (m,), got {A.shape}, {b.shape}"
        )
    rows, cols = A.mean(axis=1) - b, A.mean(axis=0)
    resid = A - A.mean(axis=1, keepdims=True) - cols[None, :] + A.mean()
    s_row, s_col = float(rows.var(ddof=1)), float(cols.var(ddof=1))
    ms_e = float(np.sum(resid**2)) / ((m - 1) * (T - 1))
    parts = (s_row / m, s_col / T, -ms_e / (m * T))
    dofs = (m - 1, T - 1, (m - 1) * (T - 1))
    v = sum(parts)
    if v <= parts[0]:
        return math.sqrt(parts[0]), float(m - 1), math.sqrt(parts[0])
    dof = v**2 / sum(p**2 / f for p, f in zip(parts, dofs, strict=True))
    return math.sqrt(v), float(dof), math.sqrt(parts[0])


def gen_gap(out: list[dict[str, object]], n: int, K: int, eta: float, ci_quantile: float) -> GenGap:
    """Summarise the :func:`gen_datasets` results of one n against Theorem D-gen: the mean gap and its t
    interval gap -+ t_{ci_quantile, dof} se, se and dof from :func:`shared_test_se` (the training sets
    share one test set)."""
    test = np.stack([o["test_losses"] for o in out])
    train = np.array([o["losses"][K] for o in out])
    gaps = np.array([o["test"] - o["losses"][K] for o in out])
    beta2 = max(o["beta2"] for o in out)
    Gamma = max(o["Gamma"] for o in out if o["Gamma"] is not None)
    mean_losses = np.mean([o["losses"][:K] for o in out], axis=0)
    theory = B.gen_bound(Gamma, beta2, eta, n, float(mean_losses.sum()))
    se, dof, se_indep = shared_test_se(test, train)
    half = float(stats.t.ppf(ci_quantile, dof)) * se
    gap = float(gaps.mean())
    return GenGap(
        K, gap, gap - half, gap + half, se, dof, se_indep, beta2, Gamma, theory,
        bool(B.gen_premise(Gamma, beta2, eta, K, n)),
    )  # fmt: skip


@dataclass(frozen=True)
class GenRatePoint:
    seed: int
    n: int
    H: int
    eta: float
    K_per_n: int
    test_size: int


def gen_rate_point(p: GenRatePoint) -> float:
    """Test loss L(theta_K) after K = K_per_n * n GD steps on one training set of size n."""
    mix = D.Mixture()
    X, y, _ = mix.sample(np.random.default_rng([p.seed, 41, p.n]), p.n)
    Xt, yt, _ = mix.sample(np.random.default_rng([p.seed, 42]), p.test_size)
    params0 = M.init_params(np.random.default_rng([p.seed, 43]), p.H, mix.T, mix.d)
    traj, _ = run_gd(params0, X, y, p.eta, p.K_per_n * p.n)
    return M.loss(traj.params, Xt, yt)


@dataclass(frozen=True)
class GapPoint:
    """Training set ``index`` of size n for the base seed ``seed``: GD at eta from the seed's
    data-independent theta_0 (H heads) until step K_fixed AND until L_hat <= target (at most K_max)."""

    seed: int
    index: int
    n: int
    H: int
    eta: float
    K_fixed: int
    target: float
    K_max: int
    test_size: int
    test_flip: float = 0.0


def gap_point(p: GapPoint) -> tuple[float, float, float, float, int]:
    """(gap at K_fixed, L_hat at K_fixed, gap at the first k with L_hat <= target, that L_hat, that k):
    gap = L(theta_k) - L_hat(theta_k), L on an independent test set of ``test_size`` samples per
    training set (so the test-set errors average out over the training sets instead of shifting every
    n of a seed alike). ``test_flip``: the test labels flipped with this probability (a test law
    shifted from the training law; 0: the same law)."""
    mix = D.Mixture()
    Xt, yt, _ = mix.sample(np.random.default_rng([p.seed, p.index, 52, p.n]), p.test_size)
    if p.test_flip:
        flip = np.random.default_rng([p.seed, p.index, 54, p.n]).random(p.test_size) < p.test_flip
        yt = np.where(flip, -yt, yt)
    theta = M.init_params(np.random.default_rng([p.seed, 53]), p.H, mix.T, mix.d)
    X, y, _ = mix.sample(np.random.default_rng([p.seed, p.index, 51, p.n]), p.n)
    fixed = None
    for k in range(p.K_max + 1):
        L, g = M.loss_and_grad(theta, X, y, validate=False)
        if k == p.K_fixed:
            fixed = (M.loss(theta, Xt, yt) - L, L)
        if fixed is not None and L <= p.target:
            return (*fixed, M.loss(theta, Xt, yt) - L, L, k)
        theta = {key: theta[key] - p.eta * g[key] for key in theta}
    raise RuntimeError(f"GD did not reach L_hat <= {p.target} within {p.K_max} steps (n={p.n})")


@dataclass(frozen=True)
class GapSweep:
    seed: int
    ns: tuple[int, ...]
    H: int
    eta: float
    K_fixed: int
    target: float
    K_max: int
    datasets: int
    test_size: int
    test_flip: float = 0.0
    mapper: Mapper = field(default=serial_map, compare=False, repr=False)


@functools.cache
def gap_sweep(s: GapSweep) -> np.ndarray:
    """(len(ns), 5): the mean over ``datasets`` training sets of :func:`gap_point` at every n."""
    items = [GapPoint(s.seed, j, n, s.H, s.eta, s.K_fixed, s.target, s.K_max, s.test_size, s.test_flip)
             for n in s.ns for j in range(s.datasets)]  # fmt: skip
    out = np.array(s.mapper(gap_point, items), dtype=float)
    return out.reshape(len(s.ns), s.datasets, 5).mean(axis=1)


@dataclass(frozen=True)
class HeadsPoint:
    """One trial of the head-count study at the paper's protocol (theta(0) = 0, full-batch GD at eta;
    the trial's data are keyed by ``seed`` alone, so every H of a seed sees the same training and test
    sets). ``attn_step``: the attention block W moves by ``attn_step`` x eta x its gradient (1: plain
    GD; 0: frozen attention; H: the mean-field step of the alternative world). ``full``: run the H heads
    themselves (the reference of the exact one-head reduction, :func:`heads_point`)."""

    seed: int
    H: int
    n: int
    n_test: int
    K: int
    eta: float
    attn_step: float
    data: str = "mixture"
    full: bool = False


def heads_point(p: HeadsPoint) -> tuple[float, float, float]:
    """(training loss L_hat(theta_K), test loss L(theta_K), the heads' spread max_h ||theta_h - theta_1||)
    after K GD steps of the H-head model from theta(0) = 0 on the mixture or, with ``data`` = "planted", the
    planted model (:class:`verify.deora2023.data.Planted`).

    From theta(0) = 0 every head gets the same update (the model is symmetric in its heads), so the heads
    stay equal and the run is exactly (derivation Sect. 10.1) the one-head run on (sqrt(H) u, w) with step
    eta on the value block and attn_step eta / H on the attention block: Phi = sqrt(H) f(u, w) = f(sqrt(H)
    u, w) (f is linear in u), each head's U-gradient is 1/sqrt(H) and its W-gradient 1/H of the one-head
    gradients. That run is what this computes (spread 0), at a cost independent of H; ``full`` runs the H
    heads instead and measures their spread (the reference: the same losses to rounding, spread 0)."""
    if p.data == "planted":
        law, teacher = D.Planted(), [p.seed, 63]  # one teacher per trial, for training and test
        X, y = law.sample(np.random.default_rng(teacher), np.random.default_rng([p.seed, 61]), p.n)
        Xt, yt = law.sample(np.random.default_rng(teacher), np.random.default_rng([p.seed, 62]), p.n_test)
    else:
        law = D.Mixture()
        X, y, _ = law.sample(np.random.default_rng([p.seed, 61]), p.n)
        Xt, yt, _ = law.sample(np.random.default_rng([p.seed, 62]), p.n_test)
    heads = p.H if p.full else 1
    theta = {"U": np.zeros((heads, law.T, law.d)), "W": np.zeros((heads, law.d, law.d))}
    step = {"U": p.eta, "W": p.attn_step * p.eta / (1 if p.full else p.H)}
    for _ in range(p.K):
        _, g = M.loss_and_grad(theta, X, y, validate=False)
        theta = {k: theta[k] - step[k] * g[k] for k in theta}
    spread = max(float(np.max(np.abs(theta[k] - theta[k][:1]))) for k in theta)
    return M.loss(theta, X, y), M.loss(theta, Xt, yt), spread


_CACHED = (scaling_sweep, wc_sweep, ntk_sweep, lazy_sweep, train_experiment, gap_sweep)


def clear_caches() -> None:
    """Forget the cached sweeps (a test that perturbs the model must not see earlier results)."""
    for fn in _CACHED:
        fn.cache_clear()


# ---- worst-case searches (verify/numerics/worstcase.py) ------------------------------------------------

#: Box of the loss-level searches: U entries (polar: ||U||_F) and R below LOSS_BOX, so that |y Phi| stays
#: far below the ~745 where the logistic loss underflows to 0.
LOSS_BOX = 10.0
#: Smallest token radius of the loss-level searches (R -> 0 is a limit of some of their worst cases).
LOSS_R_MIN = 1e-6
#: Smallest step lambda of the Taylor search (R = 1): smaller steps add round-off, not new cases.
TAYLOR_LAM_MIN = 1e-3
ONE_LABEL = np.ones(1)


def _search(
    ratio: Callable[[np.ndarray], float],
    dim: int,
    rng: np.random.Generator,
    starts: int,
    maxiter: int,
    argument: dict[str, object],
) -> WorstCase:
    """:func:`worst_case` from N(0, 1) starts in R^dim, recording ``argument`` (what replays z)."""
    w = worst_case(ratio, lambda g: g.standard_normal(dim), rng, starts=starts, maxiter=maxiter)
    return replace(w, argument=argument)


def _split(z: np.ndarray, sizes: tuple[int, ...]) -> list[np.ndarray]:
    return np.split(z, np.cumsum(sizes)[:-1])


def _unit_tokens(x: np.ndarray, T: int, d: int) -> np.ndarray:
    """One sample (1, T, d) scaled to token radius R = 1."""
    X = x.reshape(1, T, d)
    return X / D.token_radius(X)


def grad_ratio_search(
    rng: np.random.Generator, H: int, T: int, d: int, starts: int, maxiter: int
) -> WorstCase:
    """Worst case of ||grad Phi(theta; X)||^2 / beta_2^2 over every theta = (U, W) and one sample X (T, d):
    the search variable z is (U, W, X) flattened; starts are N(0, 1) draws."""
    sizes = (H * T * d, H * d * d, T * d)

    def ratio(z: np.ndarray) -> float:
        U, W, X = _split(z, sizes)
        params = {"U": U.reshape(H, T, d), "W": W.reshape(H, d, d)}
        return float(grad_ratio(params, X.reshape(1, T, d))[0])

    return _search(ratio, sum(sizes), rng, starts, maxiter, {"H": H, "T": T, "d": d})


def _polar_U(u: np.ndarray, root: float, T: int, d: int) -> np.ndarray:
    """U (1, T, d) with its first u.size / d rows along u, the others 0, and ||U||_F = (root / 2)^2: the polar
    form reaches U = 0, where beta_3 has a kink and the Hessian bound is attained, at a smooth maximum (the
    1/2 starts ||U||_F near 1/4, away from the basin of the weaker maximum at ||U|| R^2 -> infinity)."""
    U = np.zeros((1, T, d))
    U[0, : u.size // d] = (root / 2) ** 2 * (u / np.linalg.norm(u)).reshape(-1, d)
    return U


def hess_ratio_search(
    rng: np.random.Generator, variant: str, T: int, d: int, starts: int, maxiter: int
) -> WorstCase:
    """Worst case of ||grad^2 Phi|| / (beta_3/sqrt H) over every theta and one sample X (T, d) at H = 1, for
    the full model (``variant`` "full") or V1 ("V1": U holds only the query row u). z = (direction of U,
    l, W, X): U in polar form (:func:`_polar_U`; the bound has a kink at U = 0, where it can be attained),
    X scaled to R = 1 (the ratio is invariant under (X, U, W) -> (c X, U/c^2, W/c^2)). H = 1 loses nothing:
    the Hessian is block-diagonal over heads and beta_3 uses max_h ||U_h||, so the ratio at H heads is at
    most that of its worst head alone."""
    rows = {"full": T, "V1": 1}[variant]
    sizes = (rows * d, 1, d * d, T * d)
    measure = hess_ratio_full if variant == "full" else hess_ratio_v1

    def ratio(z: np.ndarray) -> float:
        u, root, W, x = _split(z, sizes)
        params = {"U": _polar_U(u, float(root[0]), T, d), "W": W.reshape(1, d, d)}
        return float(measure(params, _unit_tokens(x, T, d))[0])

    return _search(ratio, sum(sizes), rng, starts, maxiter, {"variant": variant, "H": 1, "T": T, "d": d})


def softmax_ratio_search(
    rng: np.random.Generator, T: int, starts: int, maxiter: int, rtol: float
) -> dict[str, WorstCase]:
    """Worst case of each softmax fact (:data:`SOFTMAX_FACTS`) over the logits and the vectors it takes:
    z = (logits, a, b)[:k T]. The ratio is divided by 1 + rtol (the claim's round-off margin: the
    Jacobian and Popoviciu bounds are attained exactly, where float64 lands on either side of 1)."""
    out = {}
    for name, (k, fn) in SOFTMAX_FACTS.items():

        def ratio(z: np.ndarray, k: int = k, fn: Callable[..., np.ndarray] = fn) -> float:
            rows = z.reshape(k, 1, T)
            return float(fn(softmax(rows[0]), *rows[1:])[0]) / (1 + rtol)

        out[name] = _search(ratio, k * T, rng, starts, maxiter, {"fact": name, "T": T, "rtol": rtol})
    return out


def _soft_clamp(v: float, lo: float, hi: float) -> float:
    """lo + softplus(v - lo) - softplus(v - hi): about v between lo and hi, smoothly into (lo, hi)."""
    return lo + float(np.logaddexp(0.0, v - lo) - np.logaddexp(0.0, v - hi))


def _bounded_point(
    z: np.ndarray, H: int, T: int, d: int, polar: bool
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """theta and one sample X from z = (U, W, x, r) (``polar``: (u, l, W, x, r)), of size
    :func:`_bounded_dim`: U = b tanh(z_U / b) entrywise (``polar``: U = ||U||_F u/||u|| with ||U||_F =
    b tanh(l^2 / b), so that U = 0, a kink of beta_3, is a smooth point), W = z_W / R^2 (attention logits of
    order z_W at any R), X = R x / max_t ||x_t|| with log R = r smoothly clamped (:func:`_soft_clamp`) to
    (log R_min, log b); b = :data:`LOSS_BOX`, R_min = :data:`LOSS_R_MIN`."""
    u, root, W, x, r = _split(z, (H * T * d, int(polar), H * d * d, T * d, 1))
    R = math.exp(_soft_clamp(float(r[0]), math.log(LOSS_R_MIN), math.log(LOSS_BOX)))
    if polar:
        U = LOSS_BOX * math.tanh(float(root[0]) ** 2 / LOSS_BOX) * u / np.linalg.norm(u)
    else:
        U = LOSS_BOX * np.tanh(u / LOSS_BOX)
    return {"U": U.reshape(H, T, d), "W": W.reshape(H, d, d) / R**2}, R * _unit_tokens(x, T, d)


def _bounded_dim(H: int, T: int, d: int, polar: bool) -> int:
    return H * T * d + int(polar) + H * d * d + T * d + 1


def _curvature(params: dict[str, np.ndarray], X: np.ndarray) -> dict[str, float]:
    """:func:`wc_point` of one sample with label +1, exact (dense eigh)."""
    H, T, d = M.check_params(params)
    return wc_point(WcPoint(params, X, ONE_LABEL, M.n_params(H, T, d)))


#: The loss-level searches: name -> (ratio at (theta, X) given rtol, polar U (:func:`_bounded_point`)).
#: sbwc is attained at U = 0 (polar); the others lie where U is not small.
LOSS_RATIOS: dict[str, tuple[Callable[..., float], bool]] = {
    "sbwc": (lambda p, X, rtol: sbwc_ratio(_curvature(p, X)), True),
    "smooth": (lambda p, X, rtol: max(smooth_ratios(_curvature(p, X))), False),
    "sbgrad": (lambda p, X, rtol: sbgrad_ratio(p, X, ONE_LABEL) / (1 + rtol), False),
}


def loss_point(w: WorstCase) -> dict[str, float]:
    """The :func:`wc_point` at the argument of a :func:`loss_ratio_search` result (replays its z)."""
    a = w.argument
    params, X = _bounded_point(np.array(w.z), int(a["H"]), int(a["T"]), int(a["d"]), bool(a["polar"]))
    return _curvature(params, X)


def loss_ratio_search(
    rng: np.random.Generator,
    which: str,
    H: int,
    T: int,
    d: int,
    starts: int,
    maxiter: int,
    rtol: float = 0.0,
) -> WorstCase:
    """Worst case of a loss-level ratio (:data:`LOSS_RATIOS`) over every theta and a one-sample data set
    (X, y = +1) in the box of :func:`_bounded_point`: ``which`` is "sbwc" (:func:`sbwc_ratio`), "smooth"
    (the larger of the two :func:`smooth_ratios`; both from the exact dense Hessian of L, :func:`wc_point`)
    or "sbgrad" (:func:`sbgrad_ratio`, divided by 1 + rtol: it is attained as y Phi -> infinity, where
    float64 lands on either side of 1). One sample loses nothing: each bound is a sum over samples of
    per-sample terms that the per-sample bound dominates, with beta_2, beta_3 the largest over samples;
    y = +1 loses nothing: y Phi(theta; X) = Phi(theta; y X)."""
    measure, polar = LOSS_RATIOS[which]

    def ratio(z: np.ndarray) -> float:
        return float(measure(*_bounded_point(z, H, T, d, polar), rtol))

    arg = {"ratio": which, "H": H, "T": T, "d": d, "polar": polar, "box": LOSS_BOX, "rtol": rtol}
    return _search(ratio, _bounded_dim(H, T, d, polar), rng, starts, maxiter, arg)


def taylor_ratio_search(rng: np.random.Generator, T: int, d: int, starts: int, maxiter: int) -> WorstCase:
    """Worst case of the Taylor ratio (:func:`taylor_ratios`) over every theta_0, every lambda >=
    :data:`TAYLOR_LAM_MIN` and one sample X (T, d) at H = 1, along theta_* = +-(the eigenvector of the most
    negative eigenvalue of grad^2 Phi(theta_0; X)), the direction of the largest second-order deficit (the
    larger ratio of the two signs): z = (U_0 polar as in :func:`_polar_U`, W_0, X, z_lam) with
    lambda = lambda_min + (z_lam / 10)^2, X scaled to R = 1 (the ratio is invariant under
    (X, U_0, W_0, lambda) -> (c X, U_0/c^2, W_0/c^2, lambda/c^2)). H = 1 loses nothing: the Hessian is
    block-diagonal over heads and the step's norm splits over them."""
    sizes = (T * d, 1, d * d, T * d, 1)

    def lam(z_lam: float) -> float:
        return TAYLOR_LAM_MIN + (z_lam / 10) ** 2

    def ratio(z: np.ndarray) -> float:
        u, root, W, x, z_lam = _split(z, sizes)
        params0 = {"U": _polar_U(u, float(root[0]), T, d), "W": W.reshape(1, d, d)}
        X = _unit_tokens(x, T, d)
        v = np.linalg.eigh(M.hessian_phi(params0, X[0]))[1][:, 0]
        return float(np.max(taylor_ratios(params0, X, ONE_LABEL, np.stack([v, -v]), [lam(z_lam[0])])))

    return _search(
        ratio, sum(sizes), rng, starts, maxiter, {"H": 1, "T": T, "d": d, "lam_min": TAYLOR_LAM_MIN}
    )


def _qc_distance(params: Params, R: float, c: float) -> float:
    """The D with kappa_hi(D) D^2 = c, kappa_hi(D) = beta_3(R, u + D)/sqrt(H) >= the kappa of any pair at
    distance D (u = max_h ||U_h|| of theta): the real root of a cubic increasing on D > 0."""
    H, T, _ = M.check_params(params)
    A = B.weak_convexity_modulus(B.beta3(T, R, value_norm_max(params)), H)  # the D^2 coefficient
    C = 2 * math.sqrt(T) * R**5 / math.sqrt(H)  # the D^3 coefficient: beta_3 is affine in u
    roots = np.roots([C, A, 0.0, -c])
    return float(max(r.real for r in roots if abs(r.imag) <= 1e-12 * abs(r) and r.real > 0))


def quasiconvex_search(
    rng: np.random.Generator, H: int, T: int, d: int, starts: int, maxiter: int, c_max: float
) -> WorstCase:
    """Worst case of the inner-product inequality (:func:`qc_inner_ratio`) over every theta, unit direction
    u and one-sample data set (X, y = +1) in the box of :func:`_bounded_point`, theta' = theta + D u with
    D from c_hi = c_max sigmoid(z_c) (:func:`_qc_distance`), so that c = kappa D^2 <= c_hi < c_max:
    z = (theta and X as in the box, u, z_c)."""
    p = M.n_params(H, T, d)
    sizes = (_bounded_dim(H, T, d, False), p, 1)

    def ratio(z: np.ndarray) -> float:
        point, u, zc = _split(z, sizes)
        th, X = _bounded_point(point, H, T, d, False)
        R = D.token_radius(X)
        step = _qc_distance(th, R, c_max * float(expit(zc[0]))) * u / np.linalg.norm(u)
        th2 = {k: v + s for (k, v), s in zip(th.items(), M.unpack(step, H, T, d).values(), strict=True)}
        return qc_inner_ratio(th, th2, X, ONE_LABEL, qc_c(th, th2, R))

    arg = {"H": H, "T": T, "d": d, "box": LOSS_BOX, "c_max": c_max}
    return _search(ratio, sum(sizes), rng, starts, maxiter, arg)
