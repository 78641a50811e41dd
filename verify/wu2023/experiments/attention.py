"""Experiments of :mod:`verify.wu2023.claims.attention`: the softmax's distance from uniform, the
Q/K-to-V share of the NTK and the gap to average pooling, per width under either scaling of tau0."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verify.core import Ctx
from verify.wu2023.experiments.runs import Point, Setup, lam_max, pooled, run_gd


@dataclass(frozen=True, kw_only=True)
class PoolingPoint(Point):
    """A model against its average-pooling twin along ``steps`` GD steps."""

    steps: int


def s_deviation(p: Point) -> float:
    """max_ij |S_ij - 1/d_s| at init for one sequence (N = 1)."""
    s = p.setup()
    S = s.model.forward(s.theta0, s.batch).S
    return float(np.max(np.abs(S - 1.0 / p.d_s)))


def qk_ratio(p: Point) -> float:
    """(|J_Q|^2 + |J_K|^2) / |J_V|^2 at init."""
    s = p.setup()
    K = s.model.ntk_blocks(s.theta0, s.batch)
    return float((np.trace(K["W_Q"]) + np.trace(K["W_K"])) / np.trace(K["W_V"]))


def pooling_point(p: PoolingPoint) -> tuple[float, float]:
    """(relative difference of f at init, max_t |l_attn - l_pool| / l_0 over GD) between the model
    and the same weights with S = 11^T/d_s, at a step stable for both."""
    s = p.setup()
    sp = Setup(s.model.with_(pooling=True), s.batch, s.theta0)
    fa, fp = s.model.forward(s.theta0, s.batch).f, sp.model.forward(s.theta0, s.batch).f
    g = 1.0 / max(lam_max(s.model, s.theta0, s.batch), lam_max(sp.model, s.theta0, s.batch))
    la, lp = run_gd(s, g, p.steps).loss, run_gd(sp, g, p.steps).loss
    n = min(la.size, lp.size)
    return (
        float(np.linalg.norm(fa - fp) / np.linalg.norm(fp)),
        float(np.max(np.abs(la[:n] - lp[:n])) / la[0]),
    )


def pooling_gap(p: Point) -> float:
    """|f_attn - f_pool| / |f_pool| at init: the model against the same weights with S = 11^T/d_s."""
    s = p.setup()
    fa = s.model.forward(s.theta0, s.batch).f
    fp = s.model.with_(pooling=True).forward(s.theta0, s.batch).f
    return float(np.linalg.norm(fa - fp) / np.linalg.norm(fp))


def s_dev_sweep(ctx: Ctx, power: float, widths: list[int], d: int, d_s: int) -> np.ndarray:
    """max|S - 1/d_s| per width and seed (LeCun, one "active" sequence): (len(widths), n_seeds)."""
    return pooled(
        ctx,
        s_deviation,
        widths,
        lambda w, s: Point(seed=s, key=0, N=1, d=d, d_s=d_s, d_m=w, tau0_power=power, regime="active"),
    )


def qk_sweep(ctx: Ctx, p: float, widths: list[int], N: int, d: int, d_s: int, init: str) -> np.ndarray:
    """The Q/K-to-V NTK ratio per width and seed, "paper" tokens: (len(widths), n_seeds)."""
    return pooled(
        ctx,
        qk_ratio,
        widths,
        lambda w, s: Point(seed=s, key=0, N=N, d=d, d_s=d_s, d_m=w, tau0_power=p, init=init),
    )
