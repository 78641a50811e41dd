"""Experiments of ``claims/quasiconvex.py`` (.quasiconvex): random pairs against the two inequalities of
generalized local quasi-convexity, and the worst-case search of the inner-product inequality.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from bounds import deora2023 as B
from bounds.checks import check_int
from verify.deora2023 import data as D
from verify.deora2023 import model as M
from verify.deora2023.experiments.runs import (
    LOSS_BOX,
    ONE_LABEL,
    _rng,
    bounded_dim,
    bounded_point,
    dist,
    make_problem,
    split_z,
    value_norm_max,
    worst_case_search,
)
from verify.deora2023.model import Params
from verify.numerics.worstcase import WorstCase


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
    u and one-sample data set (X, y = +1) in the box of :func:`bounded_point`, theta' = theta + D u with
    D from c_hi = c_max sigmoid(z_c) (:func:`_qc_distance`), so that c = kappa D^2 <= c_hi < c_max:
    z = (theta and X as in the box, u, z_c)."""
    p = M.n_params(H, T, d)
    sizes = (bounded_dim(H, T, d, False), p, 1)

    def ratio(z: np.ndarray) -> float:
        point, u, zc = split_z(z, sizes)
        th, X = bounded_point(point, H, T, d, False)
        R = D.token_radius(X)
        step = _qc_distance(th, R, c_max * float(expit(zc[0]))) * u / np.linalg.norm(u)
        th2 = {k: v + s for (k, v), s in zip(th.items(), M.unpack(step, H, T, d).values(), strict=True)}
        return qc_inner_ratio(th, th2, X, ONE_LABEL, qc_c(th, th2, R))

    arg = {"H": H, "T": T, "d": d, "box": LOSS_BOX, "c_max": c_max}
    return worst_case_search(ratio, sum(sizes), rng, starts, maxiter, arg)
