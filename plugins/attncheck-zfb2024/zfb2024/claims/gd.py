"""Theorem 4.1's limit by a second route: gradient descent with small steps on all (d+1) x (d+1) entries
of (W^PV, W^KQ), with the closed-form population gradient of (3.8) (zfb2024.model); the gauge-invariant
product w^PV_22 W^KQ_11 is compared with Gamma^-1 (Lemma 5.3)."""

from __future__ import annotations

import math

import numpy as np

from verify.core import (
    Alternative,
    Choice,
    Ctx,
    Evidence,
    Kind,
    Profiles,
    Provenance,
    Rule,
    SeedPlan,
    Seeds,
    Source,
    claim,
)
from zfb2024 import dynamics, theory
from zfb2024.claims.common import SIGMA_FRAC, V3, setup


@claim(
    "zfb2024.thm41.limit_gd",
    Source(f"{V3}, Theorem 4.1, Eq. (4.1); Lemma 5.3, Eq. (5.6)", Provenance.EXACT),
    kind=Kind.UPPER,
    statement="training from (3.10) converges to a global minimum with w^PV_22 W^KQ_11 = Gamma^-1 and every "
    "other entry of W^PV's last row and W^KQ's first d columns 0 (full-parameter GD, small steps)",
    profiles=Profiles(quick=dict(d=2, N=5, rho_extra=0), paper=dict(d=3, N=6, horizon=750.0)),
    seeds=SeedPlan(Seeds.EVERY),
    alternative=Alternative(
        "training prompts normalised by their number of columns, rho = N + 1 instead of N",
        overrides={"rho_extra": 1},
    ),
    choices={
        "sigma_frac": SIGMA_FRAC,
        "step": Choice(
            0.25,
            range=(0.1, 0.4),
            reason="the step as a fraction of 1 / (||Gamma||_op ||Lambda||_op u*^2), the curvature scale at "
            "the limit: small enough that the loss falls at every step; the run lasts ``horizon`` / step "
            "steps, the same GD time at every step",
        ),
        "horizon": Choice(
            500.0,
            range=(250.0, 1000.0),
            reason="the GD time in units of the scaled step (ours; Theorem 4.1 is a limit): long enough that "
            "every seed reaches the limit to round-off. At 125, 6 of 300 seeds from 500000 and seed 411002 "
            "stop above 1e-8 (4.4e-6), a false violation; at 250 all 300 reach it",
        ),
        "tol": Choice(
            Rule(1e-8, "GD's product of the trained blocks against (4.1): 1e-8 or better"),
            range=(1e-10, 1e-8),
            reason="an agreement to 1e-8 or better, as the ODE route gives; measured deviations are below "
            "1e-14 at the quick seeds",
        ),
    },
)
def limit_gd(
    ctx: Ctx, *, d: int, N: int, horizon: float, rho_extra: int, sigma_frac: float, step: float
) -> Evidence:
    """arXiv v3, Theorem 4.1 via Lemma 5.3. Kind: upper (largest deviation of the product from Gamma^-1,
    and of the off blocks from 0, <= tol); provenance: EXACT. ``rho_extra``: the model divides by
    rho = N + rho_extra (0: the paper's). ``horizon``: the GD time in units of the scaled step, so a run
    takes ceil(horizon / step) steps (2000 at the declared step 0.25 in the quick profile)."""
    s = setup(ctx.seed, d, N, sigma_frac)
    U0, u0 = s.sigma * s.theta2, s.sigma
    g = theory.gamma(s.lam, N)
    u_star = theory.limit(s.lam, N)[1]
    eta = step / (np.linalg.norm(g, 2) * np.linalg.norm(s.lam, 2) * u_star**2)
    steps = math.ceil(horizon / step)
    Wpv, Wkq, losses = dynamics.full_gd(s.lam, N, U0, u0, eta, steps, N / (N + rho_extra))
    prod = Wpv[d, d] * Wkq[:d, :d]
    off = max(np.abs(Wpv[d, :d]).max(), np.abs(Wkq[d, :d]).max())
    dev = max(float(np.abs(prod - np.linalg.inv(g)).max()), float(off))
    rises = int(np.sum(np.diff(losses) > 1e-12 * losses[0]))
    return Evidence(
        theory=ctx.rule("tol"),
        measured=dev,
        notes=[
            f"step {eta:.4g}, {steps} steps; loss rises above round-off: {rises}; "
            f"imbalance u^2 - ||U||_F^2 at the end: {Wpv[d, d] ** 2 - np.sum(Wkq[:d, :d] ** 2):.2e}"
        ],
    )
