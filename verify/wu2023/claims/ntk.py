"""The NTK analysis under tau0 = d_m^-1 (Thm 3: the limiting NTK and its minimum eigenvalue; Thm 4:
the kernel-regime rate; spec Sect. 5.5)."""

from __future__ import annotations

import math

import numpy as np

from bounds import wu2023 as B
from verify.core import Ctx, Evidence, Kind, Provenance, Rule, claim
from verify.wu2023 import experiments as E

_SPEC = "spec pass criterion"


@claim(
    "wu2023.ntk.limit",
    reference="Thm 3 (limiting NTK, tau0 = d_m^-1); spec Sect. 5.5",
    kind=Kind.TWO_SIDED,
    provenance=Provenance.DERIVED,
    statement="NTK init, tau0 = d_m^-1: |K(theta_0) - K_inf|_F / |K_inf|_F decays like d_m^-1/2",
    quick=dict(N=10, d=16, d_s=4, widths=[256, 1024, 4096], seeds=3),
    paper=dict(widths=[256, 1024, 4096, 16384]),
    rules={"slope_window": Rule((-0.7, -0.3), "the d_m^-1/2 law with room for finite widths", _SPEC)},
)
def ntk_limit(ctx: Ctx, *, N: int, d: int, d_s: int, widths: list[int], seeds: int) -> Evidence:
    """Spec Sect. 5.5: K_inf = K_O + K_V (arc-cosine kernels of the token means; Q/K blocks vanish).
    Kind: two-sided, DERIVED. theory: ``slope_window``; measured: the slope (seed bootstrap) of the
    relative Frobenius error against d_m. The value at the largest width is in the notes (spec:
    <= 0.06 at d_m = 16384)."""
    pts = [
        E.Point(seed=ctx.seed, key=k, N=N, d=d, d_s=d_s, d_m=w, tau0_power=1.0, init="ntk")
        for w in widths
        for k in range(seeds)
    ]
    fit, err = E.slope_sweep(ctx, E.ntk_limit_err, widths, pts, seeds)
    return Evidence(
        theory=list(ctx.rule("slope_window")),
        measured=fit.slope,
        seeds=ctx.seeds(seeds),
        series={"d_m": widths, "rel_err": err.mean(axis=1).tolist()},
        notes=[f"relative error {err.mean(axis=1).round(4).tolist()}; CI [{fit.lo:.3f}, {fit.hi:.3f}]"],
    )


@claim(
    "wu2023.ntk.mineig",
    reference="Thm 3 (minimum eigenvalue of the limiting NTK); spec Sect. 5.5",
    kind=Kind.LOWER,
    provenance=Provenance.DERIVED,
    statement="lambda_min(K_inf) >= sigma_min(Xbar)^2 / 2 and lambda_min(K_O) >= mu_2^2 min|xbar|^2 "
    "lambda_min(U o U)",
    quick=dict(sets=100),
    paper=dict(sets=300),
    rules={"tol": Rule(1e-10, "round-off margin of exact eigenvalues, relative to |K_inf|_2", _SPEC)},
)
def ntk_mineig(ctx: Ctx, *, sets: int) -> Evidence:
    """Spec Sect. 5.5 (Hermite expansions of the step function and ReLU + Schur product). Kind: lower,
    DERIVED, round-off margin ``tol`` (relative to |K_inf|_2; bounds below it are skipped). theory:
    1; measured: min over random token-mean sets (N <= 11, d <= 19, any scale) of
    (lambda_min + tol |K_inf|_2) / bound, for both bounds."""
    rng = ctx.rng(11)
    tol = ctx.rule("tol")
    worst = math.inf
    for _ in range(sets):
        N, d = int(rng.integers(2, 12)), int(rng.integers(1, 20))
        Xbar = rng.standard_normal((N, d)) * 10.0 ** rng.uniform(-2, 2)
        K = B.limiting_ntk(Xbar)
        lam, lamO = np.linalg.eigvalsh(K["K"])[0], np.linalg.eigvalsh(K["K_O"])[0]
        b1, b2 = B.ntk_mineig_linear(Xbar), B.ntk_mineig_hermite(Xbar, 2)
        scale = np.linalg.norm(K["K"], 2)
        for val, b in ((lam, b1), (lamO, b2)):
            if b > tol * scale:
                worst = min(worst, float((val + tol * scale) / b))
    return Evidence(theory=1.0, measured=worst)


@claim(
    "wu2023.ntk.rate",
    reference="Thm 4 (NTK stability, kernel regime); spec Sect. 5.5",
    kind=Kind.PROBABILITY,
    provenance=Provenance.RECONSTRUCTED,
    statement="NTK init, tau0 = d_m^-1: l_t <= (1 - gamma lambda_min(K_inf)/2)^t l_0 for all t, in >= 4/5 "
    "of seeds",
    quick=dict(N=10, d=16, d_s=4, d_m=4096, steps=100, seeds=5),
    paper=dict(d_m=16384, steps=400),
    rules={"p0": Rule(0.8, "a soft claim: the rate must hold in this share of seeds", _SPEC)},
)
def ntk_rate(ctx: Ctx, *, N: int, d: int, d_s: int, d_m: int, steps: int, seeds: int) -> Evidence:
    """Spec Sect. 5.5 (Du et al. style rate, RECONSTRUCTED). Kind: probability (soft claim: success
    share ``p0``, exact binomial). gamma = 1/lambda_max(K_inf) ("paper" tokens); a seed succeeds when
    l_t <= ``bounds.wu2023.ntk_rate_bound`` at every t <= steps."""
    ok, worst = 0, 0.0
    for k in range(seeds):
        r, completed = E.ntk_rate_run(ctx.seed, k, N, d, d_s, d_m, steps)
        worst = max(worst, r)
        ok += int(r <= 1.0 and completed)
    return Evidence(
        theory=ctx.rule("p0"),
        measured=[ok, seeds],
        seeds=ctx.seeds(seeds),
        notes=[f"max_t l_t / bound_t over seeds: {worst:.3f}"],
    )
