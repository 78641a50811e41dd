"""Experiments of ``claims/self_bounded.py`` (.sbgrad, .sbwc, .sbwc.Hlaw, .smooth): the self-bounded
gradient along GD, the Hessian of L at GD iterates and random points (exact or by one-sided bounds), and
the loss-level worst-case searches.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from bounds import deora2023 as B
from verify.core.context import Mapper, serial_map
from verify.deora2023 import data as D
from verify.deora2023 import model as M
from verify.deora2023.experiments.runs import (
    LOSS_BOX,
    ONE_LABEL,
    _rng,
    bounded_dim,
    bounded_point,
    make_problem,
    run_gd,
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
        F = M.cache_features(cache)
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


def _curvature(params: dict[str, np.ndarray], X: np.ndarray) -> dict[str, float]:
    """:func:`wc_point` of one sample with label +1, exact (dense eigh)."""
    H, T, d = M.check_params(params)
    return wc_point(WcPoint(params, X, ONE_LABEL, M.n_params(H, T, d)))


#: The loss-level searches: name -> (ratio at (theta, X) given rtol, polar U (:func:`bounded_point`)).
#: sbwc is attained at U = 0 (polar); the others lie where U is not small.
LOSS_RATIOS: dict[str, tuple[Callable[..., float], bool]] = {
    "sbwc": (lambda p, X, rtol: sbwc_ratio(_curvature(p, X)), True),
    "smooth": (lambda p, X, rtol: max(smooth_ratios(_curvature(p, X))), False),
    "sbgrad": (lambda p, X, rtol: sbgrad_ratio(p, X, ONE_LABEL) / (1 + rtol), False),
}


def loss_point(w: WorstCase) -> dict[str, float]:
    """The :func:`wc_point` at the argument of a :func:`loss_ratio_search` result (replays its z)."""
    a = w.argument
    params, X = bounded_point(np.array(w.z), int(a["H"]), int(a["T"]), int(a["d"]), bool(a["polar"]))
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
    (X, y = +1) in the box of :func:`bounded_point`: ``which`` is "sbwc" (:func:`sbwc_ratio`), "smooth"
    (the larger of the two :func:`smooth_ratios`; both from the exact dense Hessian of L, :func:`wc_point`)
    or "sbgrad" (:func:`sbgrad_ratio`, divided by 1 + rtol: it is attained as y Phi -> infinity, where
    float64 lands on either side of 1). One sample loses nothing: each bound is a sum over samples of
    per-sample terms that the per-sample bound dominates, with beta_2, beta_3 the largest over samples;
    y = +1 loses nothing: y Phi(theta; X) = Phi(theta; y X)."""
    measure, polar = LOSS_RATIOS[which]

    def ratio(z: np.ndarray) -> float:
        return float(measure(*bounded_point(z, H, T, d, polar), rtol))

    arg = {"ratio": which, "H": H, "T": T, "d": d, "polar": polar, "box": LOSS_BOX, "rtol": rtol}
    return worst_case_search(ratio, bounded_dim(H, T, d, polar), rng, starts, maxiter, arg)
