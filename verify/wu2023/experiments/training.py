"""Experiments of :mod:`verify.wu2023.claims.training`: GD per width (speed and laziness), and the three
inits and the two scalings of tau0 under one step."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bounds import wu2023 as B
from bounds.checks import check_choice
from verify.core import Ctx
from verify.numerics.gd import RunState, Trajectory
from verify.wu2023.experiments.runs import (
    Point,
    Setup,
    chunks,
    lam_max,
    make_setup,
    run_gd,
    run_gd_batched,
)


@dataclass(frozen=True, kw_only=True)
class GDPoint(Point):
    """A GD run: ``gamma`` (<= 0 means 1/lambda_max(K_0)), ``steps``, target ``frac`` l_0, and ``stop``:
    end once l < frac l_0."""

    gamma: float
    steps: int
    frac: float
    stop: bool = True


def steps_to(loss: np.ndarray, frac: float) -> int | None:
    """First t with loss_t <= frac * loss_0, None if never."""
    hit = np.nonzero(loss <= frac * loss[0])[0]
    return int(hit[0]) if hit.size else None


def gd_point(p: GDPoint) -> dict[str, float | bool | None]:
    """One GD run. Returns the final loss ratio, steps to frac l_0, the gamma used, the max relative
    weight drift, the NTK drift at the end, whether it diverged, and t10: the first step whose change
    gamma |grad_t| is below 10% of the first step's (None if never)."""
    s = p.setup()
    K0 = s.model.ntk(s.theta0, s.batch)
    g = 1.0 / float(np.linalg.eigvalsh(K0)[-1]) if p.gamma <= 0 else p.gamma
    loss0 = s.model.loss(s.theta0, s.batch)
    tr = run_gd(s, g, p.steps, stop_below=p.frac * loss0 if p.stop else None)
    reached = steps_to(tr.loss, p.frac)
    diverged = tr.state == RunState.DIVERGED
    with np.errstate(over="ignore", invalid="ignore") if diverged else contextlib.nullcontext():
        Kt = s.model.ntk(tr.params, s.batch)  # a diverged run's NTK may overflow: "diverged" says so
        ntk_drift = float(np.linalg.norm(Kt - K0) / np.linalg.norm(K0))
    small = tr.grad_norm < 0.1 * tr.grad_norm[0]
    return {
        "ratio": float(tr.loss[-1] / tr.loss[0]),
        "steps": None if reached is None else float(reached),
        "gamma": g,
        "drift": float(np.max(tr.drift) / np.linalg.norm(s.theta0.flat())),
        "ntk_drift": ntk_drift,
        "diverged": diverged,
        "t10": float(np.argmax(small)) if np.any(small) else None,
    }


def gd_sweep(
    ctx: Ctx,
    N: int,
    d: int,
    d_s: int,
    widths: list[int],
    p: float,
    init: str,
    regime: str,
    gamma: float,
    steps: int,
    frac: float,
    stop: bool = True,
    loss_norm: str = "sum",
) -> list[list[dict]]:
    """:func:`gd_point` per width and seed of ``ctx.seed_set``: rows[width][seed]."""

    def point(w: int, s: int) -> GDPoint:
        return GDPoint(
            seed=s, key=0, N=N, d=d, d_s=d_s, d_m=w, tau0_power=p, init=init, regime=regime,
            gamma=gamma, steps=steps, frac=frac, stop=stop, loss_norm=loss_norm,
        )  # fmt: skip

    out = ctx.map(gd_point, [point(w, s) for w in widths for s in ctx.seed_set])
    n = len(ctx.seed_set)
    return [out[i * n : (i + 1) * n] for i in range(len(widths))]


def run_gd_runs(setups: Sequence[Setup], gammas: Sequence[float], steps: int, **kw: Any) -> list[Trajectory]:
    """:func:`run_gd_batched` over the set-ups in batches of :func:`chunks` (``kw``: its options)."""
    m = setups[0].model
    idx = chunks(range(len(setups)), setups[0].batch.N * m.d_s * m.d_m)
    return [
        tr
        for part in idx
        for tr in run_gd_batched([setups[i] for i in part], [gammas[i] for i in part], steps, **kw)
    ]


def final_ratio(tr: Trajectory, steps: int) -> float:
    """l_T / l_0, inf when the run stopped before ``steps`` (diverged); l_T for a run of
    :func:`run_gd_batched` (its loss is l_t / l_0, so l_0 = 1)."""
    return float(tr.loss[-1] / tr.loss[0]) if tr.loss.size == steps + 1 else math.inf


def init_rate_runs(
    seeds: Sequence[int], key: int, N: int, d: int, d_s: int, d_m: int, steps: int, step: str = "common"
) -> list[tuple[dict, float]]:
    """Per seed: l_T / l_0 per init (``B.INITS``) on the seed's data, at ``step`` "common" (gamma =
    1/max(lambda_max(K_0)) over LeCun and He, for all three) or "own" (each init at its own gamma =
    1/lambda_max(K_0)); and NTK init's l_T / l_0 at its own gamma (reported). The seeds run batched, one
    GD per init (:func:`run_gd_runs`)."""
    check_choice("step", step, STEP_PROTOCOLS)
    su = {i: [make_setup(s, key, N=N, d=d, d_s=d_s, d_m=d_m, init=i) for s in seeds] for i in B.INITS}
    lm = {i: [lam_max(x.model, x.theta0, x.batch) for x in su[i]] for i in B.INITS}
    common = [1.0 / max(a, b) for a, b in zip(lm["lecun"], lm["he"], strict=True)]
    g = {i: common if step == "common" else [1.0 / v for v in lm[i]] for i in B.INITS}
    r = {i: [final_ratio(tr, steps) for tr in run_gd_runs(su[i], g[i], steps, norms=False)] for i in B.INITS}
    own = r["ntk"]
    if step != "own":
        own = [
            final_ratio(tr, steps)
            for tr in run_gd_runs(su["ntk"], [1.0 / v for v in lm["ntk"]], steps, norms=False)
        ]
    return [({i: r[i][k] for i in B.INITS}, own[k]) for k in range(len(seeds))]


#: How GD claims that compare configurations choose the step: one step common to the configurations
#: (the paper's protocol) or each configuration's own 1/lambda_max(K_0).
STEP_PROTOCOLS = ("common", "own")


def common_scaling_step(seeds: Sequence[int], N: int, d: int, d_s: int, d_m: int, regime: str) -> float:
    """The smallest over ``seeds`` of 1/max(lambda_max(K_0)) over tau0 = d_m^-1/2 and d_m^-1."""
    gs = []
    for k in seeds:
        a = make_setup(k, 0, N=N, d=d, d_s=d_s, d_m=d_m, tau0_power=0.5, regime=regime)
        b = make_setup(k, 0, N=N, d=d, d_s=d_s, d_m=d_m, tau0_power=1.0, regime=regime)
        gs.append(1.0 / max(lam_max(a.model, a.theta0, a.batch), lam_max(b.model, b.theta0, b.batch)))
    return float(min(gs))
