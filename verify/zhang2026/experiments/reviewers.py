"""Experiments of ``claims/reviewers.py``: the edge cases D = K and K = 0."""

from __future__ import annotations

import numpy as np

from bounds import zhang2026 as B
from bounds.mp import to_float
from verify.core import Ctx, experiment
from verify.zhang2026 import data as D
from verify.zhang2026 import model as M
from verify.zhang2026.experiments.runs import Size, population_gd_batched, seeds_of, stacked


@experiment
def deqk_run(
    ctx: Ctx, sz: Size, eta: float, sx2: float, steps: int
) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Per seed of ``ctx.seed_set`` (all seeds' runs in one batch): D = K (S* = 1 1^T / D), linear sigma:
    the excess at t = 0..steps in the cancellation-free Kronecker form, bounds.zhang2026.deqk_excess at the
    same t, and max |W_KQ^(t)|."""
    S = np.full((sz.D, sz.D), 1.0 / sz.D)
    probs = []
    for c in seeds_of(ctx):
        rng = c.rng(1)
        probs.append((D.random_v(sz.M, sz.d, rng, 1.5), S, M.random_orthogonal(sz.D, rng)))
    times = np.arange(0, steps + 1)
    out = []
    for (V, _, _), run in zip(
        probs, population_gd_batched(*stacked(probs), eta, times, sx2=sx2), strict=True
    ):
        v2 = float(np.sum(V * V))
        ex = np.array(
            [M.linear_excess_residual(w, a, V, S, sx2) for w, a in zip(run.W_V, run.A, strict=True)]
        )
        th = np.array([to_float(B.deqk_excess(int(t), eta, sx2, v2)) for t in times])
        out.append((ex, th, float(np.abs(run.W_KQ).max())))
    return out


def k0_drift(ctx: Ctx, sz: Size, eta: float, steps: int) -> list[float]:
    """Per seed of ``ctx.seed_set`` (all seeds' runs in one batch): K = 0 (S* = 0), linear sigma: max over
    all steps of |W_V|, |W_KQ| and the excess."""
    S = np.zeros((sz.D, sz.D))
    probs = []
    for c in seeds_of(ctx):
        rng = c.rng(1)
        probs.append((D.random_v(sz.M, sz.d, rng, 2.0), S, M.random_orthogonal(sz.D, rng)))
    runs = population_gd_batched(*stacked(probs), eta, np.arange(steps + 1))
    return [
        max(float(np.abs(r.W_V).max()), float(np.abs(r.W_KQ).max()), float(np.abs(r.excess).max()))
        for r in runs
    ]
