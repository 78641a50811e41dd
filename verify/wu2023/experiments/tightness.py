"""Experiments of :mod:`verify.wu2023.claims.tightness`: GD runs that watch Prop. 1's premises, over a
grid of N and widths (the empirical minimal width)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from verify.core import Ctx
from verify.numerics.gd import RunState, gradient_descent
from verify.wu2023 import model as M
from verify.wu2023.experiments.runs import Point, lam_max, min_width_of, spectral_norm


@dataclass(frozen=True, kw_only=True)
class PremisePoint(Point):
    """A GD run to ``frac`` l_0 within ``steps`` steps with gamma = ``step_factor`` / lambda_max(K_0)
    that watches Prop. 1's premises (:func:`premise_run`); ``decrease_rtol``: round-off allowance of
    the sufficient-decrease premise."""

    steps: int
    frac: float
    step_factor: float
    decrease_rtol: float


def premise_run(p: PremisePoint) -> dict[str, float | str]:
    """GD (gamma = step_factor / lambda_max(K_0), sum loss) from the point's set-up, stopped once
    l < frac l_0 or at the first step where a premise of Prop. 1 fails: alpha = sigma_min(F_pre^0) > 0 (needs
    d_m >= N), the sufficient decrease l_{t+1} <= l_t - gamma/2 |grad l_t|^2 (+ rtol l_t; the
    per-step form of the step-size condition C3) and sigma_min(F_pre^t) >= alpha/2. Returns success
    (1.0 when the target is reached with every premise at every step, else 0.0), the premise that
    failed first ("" if none; "target" when the run ended above it), the steps run, and radius:
    max_t max_b |W_b^t - W_b^0|_2 / |W_b^0|_2 (the ball premise with our radii C_b = |W_b^0|_2;
    reported, not part of success)."""
    if p.d_m < p.N:
        return {"success": 0.0, "failed": "alpha = 0 (d_m < N)", "steps": 0.0, "radius": 0.0}
    s = p.setup()
    lmax = lam_max(s.model, s.theta0, s.batch)
    if not lmax > 0:  # every ReLU unit dead on every example: alpha = 0
        return {"success": 0.0, "failed": "alpha = 0", "steps": 0.0, "radius": 0.0}
    g = p.step_factor / lmax
    st: dict = {"failed": "", "prev": None}

    def lg(theta: M.Params) -> tuple[float, M.Params]:
        c = s.model.forward(theta, s.batch)
        loss, grad = s.model.loss_and_grad(theta, s.batch, cache=c)
        sig2 = M.sigma_min_sq(c.h)
        if st["prev"] is None:
            st["alpha2"] = sig2
            if not sig2 > 0:
                st["failed"] = "alpha = 0"
        else:
            l_prev, gn2 = st["prev"]
            if loss > l_prev - g / 2 * gn2 + p.decrease_rtol * l_prev:
                st["failed"] = "sufficient decrease"
            elif sig2 < st["alpha2"] / 4:
                st["failed"] = "sigma_min(F^t) >= alpha/2"
        st["prev"] = (loss, sum(float(np.sum(v * v)) for v in grad.blocks().values()))
        return (math.inf if st["failed"] else loss), grad

    loss0 = s.model.loss(s.theta0, s.batch)
    start = s.theta0.blocks()
    norms = {b: spectral_norm(v) for b, v in start.items()}
    far = [0.0]

    def radius(th: M.Params, gr: M.Params, l: float, t: int) -> float:
        """max_{t' <= t} max_b |W_b^t' - W_b^0|_2 / |W_b^0|_2 (only its max over the run is read): a matrix
        block whose Frobenius norm (>= |.|_2; the factor 1 + 1e-9 covers the rounding of both) cannot raise
        the max skips its SVD, so the max is the same number."""
        for b in th:
            diff = th[b] - start[b]
            if diff.ndim == 1 or float(np.linalg.norm(diff)) / norms[b] * (1 + 1e-9) > far[0]:
                far[0] = max(far[0], spectral_norm(diff) / norms[b])
        return far[0]

    tr = gradient_descent(s.theta0, lg, g, p.steps, record={"radius": radius}, stop_below=p.frac * loss0)
    reached = tr.state == RunState.CONVERGED
    failed = st["failed"] or ("" if reached else "target")
    return {
        "success": float(reached and not st["failed"]),
        "failed": failed,
        "steps": float(tr.loss.size - 1),
        "radius": float(np.max(tr.extras["radius"])) if tr.loss.size else math.inf,
    }


def width_protocol(
    ctx: Ctx,
    p: float,
    Ns: Sequence[int],
    widths: Sequence[int],
    d: int,
    d_s: int,
    steps: int,
    frac: float,
    step_factor: float,
    rtol: float,
    d_per_N: int = 0,
    beyond: int = 0,
) -> tuple[np.ndarray, np.ndarray, dict[str, int], np.ndarray]:
    """:func:`premise_run` at every N, width and seed of ``ctx.seed_set`` (fixed d, or d = d_per_N N
    when ``d_per_N`` > 0; "paper" tokens, LeCun, tau0 = d_m^-p): success (len(Ns), len(widths),
    n_seeds) as 0/1, the ball radius ratio of the same runs, how often each premise failed first, and
    the minimal widths (len(Ns), n_seeds): the smallest width from which every larger one run succeeds.
    A seed that fails at the grid's largest width runs on at the widths that continue the grid's last
    ratio, up to ``beyond`` of them, until one succeeds (that width is its minimal width; NaN if none)."""

    def point(n: int, w: int, s: int) -> PremisePoint:
        dd = d_per_N * n if d_per_N > 0 else d
        return PremisePoint(
            seed=s, key=0, N=n, d=dd, d_s=d_s, d_m=w, tau0_power=p, steps=steps, frac=frac,
            step_factor=step_factor, decrease_rtol=rtol,
        )  # fmt: skip

    grid = [(n, w) for n in Ns for w in widths]
    out = ctx.map(premise_run, [point(n, w, s) for n, w in grid for s in ctx.seed_set])
    shape = (len(Ns), len(widths), len(ctx.seed_set))
    ok = np.array([r["success"] for r in out]).reshape(shape)
    radius = np.array([r["radius"] for r in out]).reshape(shape)
    reasons: dict[str, int] = {}
    for r in out:
        reasons[str(r["failed"]) or "none"] = reasons.get(str(r["failed"]) or "none", 0) + 1
    mw = np.array([[min_width_of(ok[i, :, j], widths) for j in range(shape[2])] for i in range(shape[0])])
    ratio, w = widths[-1] / widths[-2], float(widths[-1])
    for _ in range(beyond):
        todo = list(zip(*np.nonzero(np.isnan(mw)), strict=True))
        if not todo:
            break
        w *= ratio
        more = ctx.map(premise_run, [point(Ns[i], round(w), ctx.seed_set[j]) for i, j in todo])
        for (i, j), r in zip(todo, more, strict=True):
            if r["success"]:
                mw[i, j] = round(w)
    return ok, radius, reasons, mw
