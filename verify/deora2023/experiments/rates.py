"""Experiments of ``claims/rates.py`` (.rate.K, .lazy): GD at a decaying step (the rate's alternative world)
and the lazy-regime sweep of the movement of theta in H (NTK and mean-field scalings).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from bounds.checks import check_choice, check_int
from verify.core import Ctx, experiment
from verify.core.context import Mapper, serial_map
from verify.deora2023 import data as D
from verify.deora2023 import model as M
from verify.deora2023.experiments.runs import MODEL, _rng, make_problem, ntk_margins, run_gd
from verify.deora2023.model import Params


@experiment
def rate_runs(
    ctx: Ctx, n: int, H: int, eta: float, K_max: int, step_decay: float
) -> list[tuple[np.ndarray, float]]:
    """Per seed of ``ctx.seed_set`` (one mixture data set and init each, :func:`make_problem`): L(theta_k),
    k = 0..K_max, of full-batch GD at the constant step eta (``step_decay`` 0) or at eta (k + 1)^-step_decay
    (:func:`decaying_gd_losses`), and the NTK margin gamma of U at init."""
    out = []
    for seed in ctx.seed_set:
        pr = make_problem(_rng(seed, 1), _rng(seed, 2), n=n, H=H)
        if step_decay:
            loss = decaying_gd_losses(pr.params0, pr.X, pr.y, eta, K_max, step_decay)
        else:
            loss = run_gd(pr.params0, pr.X, pr.y, eta, K_max)[0].loss
        out.append((loss, ntk_margins(pr.params0, pr.X, pr.y)[0].gamma))
    return out


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
