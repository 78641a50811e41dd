"""Experiments of ``claims/self_bounded.py`` (.sbgrad, .sbwc, .sbwc.Hlaw, .smooth, .quasiconvex): the
self-bounded gradient along GD, the quasi-convexity pairs, the Hessian of L at GD iterates and random
points (exact or by one-sided bounds), and the loss-level worst-case searches.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit

from bounds import deora2023 as B
from bounds.checks import check_int
from verify.core.context import Mapper, serial_map
from verify.deora2023 import data as D
from verify.deora2023 import model as M
from verify.deora2023.experiments.runs import (
    ONE_LABEL,
    _rng,
    dist,
    make_problem,
    run_gd,
    split_z,
    unit_tokens,
    value_norm_max,
    worst_case_search,
)
from verify.deora2023.model import Params
from verify.numerics.gd import gradient_descent
from verify.numerics.worstcase import WorstCase


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


# ---- loss-level worst-case searches (verify/numerics/worstcase.py) ------------------------------------

#: Box of the loss-level searches: U entries (polar: ||U||_F) and R below LOSS_BOX, so that |y Phi| stays
#: far below the ~745 where the logistic loss underflows to 0.
LOSS_BOX = 10.0
#: Smallest token radius of the loss-level searches (R -> 0 is a limit of some of their worst cases).
LOSS_R_MIN = 1e-6


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
    u, root, W, x, r = split_z(z, (H * T * d, int(polar), H * d * d, T * d, 1))
    R = math.exp(_soft_clamp(float(r[0]), math.log(LOSS_R_MIN), math.log(LOSS_BOX)))
    if polar:
        U = LOSS_BOX * math.tanh(float(root[0]) ** 2 / LOSS_BOX) * u / np.linalg.norm(u)
    else:
        U = LOSS_BOX * np.tanh(u / LOSS_BOX)
    return {"U": U.reshape(H, T, d), "W": W.reshape(H, d, d) / R**2}, R * unit_tokens(x, T, d)


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
    return worst_case_search(ratio, _bounded_dim(H, T, d, polar), rng, starts, maxiter, arg)


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
        point, u, zc = split_z(z, sizes)
        th, X = _bounded_point(point, H, T, d, False)
        R = D.token_radius(X)
        step = _qc_distance(th, R, c_max * float(expit(zc[0]))) * u / np.linalg.norm(u)
        th2 = {k: v + s for (k, v), s in zip(th.items(), M.unpack(step, H, T, d).values(), strict=True)}
        return qc_inner_ratio(th, th2, X, ONE_LABEL, qc_c(th, th2, R))

    arg = {"H": H, "T": T, "d": d, "box": LOSS_BOX, "c_max": c_max}
    return worst_case_search(ratio, sum(sizes), rng, starts, maxiter, arg)
