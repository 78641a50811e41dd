"""Experiments of ``claims/training.py`` (.train.*): one GD run of Theorem D-train with its reference
points and the measured weak-convexity modulus along the segments to them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from bounds import deora2023 as B
from verify.deora2023 import model as M
from verify.deora2023.experiments.runs import (
    _rng,
    dist,
    make_problem,
    ntk_margins,
    run_gd,
    shift,
    value_norm_max,
)
from verify.deora2023.model import Params


def lerp(a: Params, b: Params, s: float) -> dict[str, np.ndarray]:
    return {k: (1.0 - s) * a[k] + s * b[k] for k in a}


def curvature_kappa(params: Params, X: np.ndarray, y: np.ndarray) -> float:
    """max(0, -lambda_min(M)) / L(theta): a rigorous upper bound on the self-bounded weak-convexity
    ratio max(0, -lambda_min(grad^2 L)) / L at theta (M = non-PSD, head-block-diagonal part)."""
    lam = M.curvature_lambda_min(params, X, y)
    return max(0.0, -lam) / M.loss(params, X, y)


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
