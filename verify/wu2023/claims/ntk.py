"""The NTK analysis under tau0 = d_m^-1 (Thm 3: the limiting NTK and its minimum eigenvalue; Thm 4:
the kernel-regime rate)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from bounds import wu2023 as B
from verify.core import (
    Alternative,
    Choice,
    Ctx,
    Evidence,
    Expect,
    Kind,
    Plot,
    Profiles,
    Provenance,
    Report,
    Rule,
    Search,
    SeedPlan,
    Seeds,
    Source,
    claim,
)
from verify.wu2023 import experiments as E
from verify.wu2023.claims.common import CRITERION, rate_evidence

_NTK_LIMIT_CHOICES = {
    "tol": Choice(
        Rule(0.2, "our first criterion's slope window [-0.7, -0.3] around -1/2", CRITERION),
        range=(0.1, 0.25),
        reason="from 0.1 to 0.25 around -1/2: 0.25 is half the distance to the competing exponent -1",
    ),
    "N": Choice(
        10,
        range=(5, 20),
        reason="the number of examples (ours; Thm 3 is for any fixed N as d_m grows): half to twice ours",
    ),
    "widths": Choice(
        [256, 1024, 4096],
        options=([256, 1024, 4096], [128, 512, 2048], [512, 2048, 8192]),
        reason="the width ladder (ours; the paper profile adds 16384): steps of 4, shifted down or up by "
        "a factor 2",
    ),
}


@claim(
    "wu2023.ntk.limit",
    Source("Thm 3 (limiting NTK, tau0 = d_m^-1); derivation Sect. 5.5", Provenance.DERIVED),
    kind=Kind.RATE,
    statement="NTK init, tau0 = d_m^-1: |K(theta_0) - K_inf|_F / |K_inf|_F decays like d_m^-1/2",
    profiles=Profiles(quick=dict(d=16, d_s=4, tau0_power=1.0), paper=dict(widths=[256, 1024, 4096, 16384])),
    seeds=SeedPlan(
        Seeds.POOLED, quick=10, paper=20
    ),  # 3 seeds left the 95% interval 0.25-0.3 wide, wider than the band
    alternative=Alternative(
        world="tau0 = d_m^-1/2 (Thm 1's scaling): the attention stays random at every width, so K(theta_0) "
        "does not approach K_inf of the token means (its relative error stays Theta(1))",
        overrides={"tau0_power": 0.5},
    ),
    choices=_NTK_LIMIT_CHOICES,
    report=Report(
        r"NTK init, $\tau_0=d_m^{-1}$: $\|K(\theta_0)-K_\infty\|_F/\|K_\infty\|_F$ decays like "
        "$d_m^{-1/2}$",
        Plot.rate(
            -0.5,
            "d_m",
            [("geo_mean", "relative error (geometric mean over seeds)")],
            "width $d_m$",
            r"$\|K(\theta_0)-K_\infty\|_F\,/\,\|K_\infty\|_F$",
        ),
    ),
)
def ntk_limit(ctx: Ctx, *, N: int, d: int, d_s: int, widths: list[int], tau0_power: float) -> Evidence:
    """Thm 3 as we reconstruct it: K_inf = K_O + K_V (arc-cosine kernels of the token means; Q/K blocks
    vanish). Kind: rate, DERIVED (a sum of d_m i.i.d. terms: CLT). theory: -1/2; measured: the rate fit of the
    relative Frobenius error against d_m (one draw per seed) under tau0 = d_m^-``tau0_power`` (the
    statement: 1; the alternative world 1/2). The value at the largest width is in the notes (our first
    criterion: <= 0.06 at d_m = 16384)."""
    err = E.pooled(
        ctx,
        E.ntk_limit_err,
        widths,
        lambda w, s: E.Point(seed=s, key=0, N=N, d=d, d_s=d_s, d_m=w, tau0_power=tau0_power, init="ntk"),
    )
    return rate_evidence(
        ctx, -0.5, widths, err, series={"d_m": widths},
        notes=[f"mean relative error per width {err.mean(axis=1).round(4).tolist()}"],
    )  # fmt: skip


_NTK_MINEIG_CHOICES = {
    "tol": Choice(
        Rule(1e-10, "round-off margin of exact eigenvalues, relative to |K_inf|_2", CRITERION),
        range=(1e-12, 1e-08),
        reason="a round-off margin (relative to |K_inf|_2): two decades around ours, from 1e-12 to 1e-08",
    )
}


@claim(
    "wu2023.ntk.mineig",
    Source("Thm 3 (minimum eigenvalue of the limiting NTK); derivation Sect. 5.5", Provenance.DERIVED),
    kind=Kind.LOWER,
    statement="lambda_min(K_inf) >= sigma_min(Xbar)^2 / 2 and lambda_min(K_O) >= mu_2^2 min|xbar|^2 "
    "lambda_min(U o U)",
    profiles=Profiles(
        quick=dict(sets=100, search=(2, 2, 3, 100)), paper=dict(sets=300, search=(4, 4, 8, 300))
    ),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    search=Search(
        ratio="bound / (lambda_min + tol |K_inf|_2), for each bound (the larger worst case is kept)",
        space="every token-mean set Xbar (N, d) = search[:2], unconstrained; starts N(0, 1)",
        budget="search",
    ),
    choices=_NTK_MINEIG_CHOICES,
    report=Report(
        r"$\lambda_{\min}(K_\infty)\ge\sigma_{\min}(\bar X)^2/2$ and "
        r"$\lambda_{\min}(K_O)\ge\mu_2^2\min_n\|\bar x_n\|^2\lambda_{\min}(U\circ U)$"
    ),
)
def ntk_mineig(ctx: Ctx, *, sets: int, search: tuple[int, int, int, int]) -> Evidence:
    """Thm 3, our bounds on lambda_min(K_inf) (Hermite expansions of the step function and ReLU + Schur
    product). Consistency check: exact PSD inequalities between closed forms on random token means,
    independent of the model, the data law and any training, so it tests our derivation and code, never the
    paper. Kind: lower, DERIVED, round-off margin ``tol`` (relative to |K_inf|_2; bounds below it are
    skipped). theory: 1; measured: min over random token-mean sets (N <= 11, d <= 19, any scale) of
    (lambda_min + tol |K_inf|_2) / bound, for both bounds, and over a worst-case search of each bound over
    every Xbar of shape ``search[:2]`` (``search[2]`` starts of ``search[3]`` L-BFGS-B iterations:
    :func:`verify.wu2023.experiments.ntk_mineig_ratio`); the bound with the larger worst ratio is the
    claim's worst case, the other's is in the notes."""
    rng = ctx.rng(11)
    tol = ctx.rule("tol")
    worst = [math.inf, math.inf]
    for _ in range(sets):
        N, d = int(rng.integers(2, 12)), int(rng.integers(1, 20))
        Xbar = rng.standard_normal((N, d)) * 10.0 ** rng.uniform(-2, 2)
        K = B.limiting_ntk(Xbar)
        lam, lamO = np.linalg.eigvalsh(K["K"])[0], np.linalg.eigvalsh(K["K_O"])[0]
        b1, b2 = B.ntk_mineig_linear(Xbar), B.ntk_mineig_hermite(Xbar, 2)
        scale = np.linalg.norm(K["K"], 2)
        for i, (val, b) in enumerate(((lam, b1), (lamO, b2))):
            if b > tol * scale:
                worst[i] = min(worst[i], float((val + tol * scale) / b))
    *shape, starts, maxiter = search
    found = [
        E.array_search(
            lambda X, b=b: E.ntk_mineig_ratio(X, tol, b),
            tuple(shape),
            ctx.rng(12, i),
            starts,
            maxiter,
            bound=b,
        )
        for i, b in enumerate(("linear", "hermite"))
    ]
    i = int(found[1].ratio > found[0].ratio)
    searched = [1 / f.ratio if f.ratio > 0 else math.inf for f in found]
    return Evidence(
        theory=1.0,
        measured=min(*worst, *searched),
        worst=replace(found[i], typical=max(found[i].typical, 1 / worst[i])),
        notes=[
            f"searched worst bound / lambda_min: linear {found[0].ratio:.6f}, Hermite {found[1].ratio:.6f}"
        ],
    )


_NTK_RATE_CHOICES = {
    "d_m": Choice(
        4096,
        range=(2048, 8192),
        reason="a width in the kernel regime (Thm 4 needs d_m large, no number is recovered): half to "
        "twice ours (the paper profile's 16384 is beyond the run-time budget)",
    ),
    "steps": Choice(100, range=(50, 200), reason="the horizon of 'at every t' (ours): half to twice ours"),
}


@claim(
    "wu2023.ntk.rate",
    Source("Thm 4 (NTK stability, kernel regime); derivation Sect. 5.5", Provenance.RECONSTRUCTED),
    kind=Kind.UPPER,
    statement="NTK init, tau0 = d_m^-1: l_t <= (1 - gamma lambda_min(K_inf)/2)^t l_0 at every t, for "
    "every draw",
    profiles=Profiles(quick=dict(N=10, d=16, d_s=4), paper=dict(d_m=16384, steps=400)),
    seeds=SeedPlan(Seeds.EVERY, quick=5, paper=10),
    alternative=Alternative(
        world="the bound tightened 6-fold: the measurement's resolution, since the worst step is t = 1 at "
        "every seed, where l_1 / bound_1 is 0.21 to 0.71 (seeds 0-4, 1000-4, 2000-4, 3000-4; a bound 6 "
        "times lower fails at every seed)",
        factor=6.0,
    ),
    choices=_NTK_RATE_CHOICES,
    report=Report(
        r"NTK init, $\tau_0=d_m^{-1}$: $\ell_t\le(1-\gamma\lambda_{\min}(K_\infty)/2)^t\,\ell_0$ "
        "at every $t$, for every draw"
    ),
)
def ntk_rate(ctx: Ctx, *, N: int, d: int, d_s: int, d_m: int, steps: int) -> Evidence:
    """Thm 4 as we reconstruct it (Du et al. style rate, RECONSTRUCTED). Kind: upper, judged at every
    seed (our first criterion asked for the bound in >= 4 of 5 seeds; the exact binomial test on 5 seeds would
    accept 2 of 5, so the claim asks more: every seed). gamma = 1/lambda_max(K_inf) ("paper" tokens). theory:
    ``bounds.wu2023.ntk_rate_bound`` at the step t where l_t / bound_t is largest; measured: l_t there. A run
    that diverges before ``steps`` fails."""
    r = E.ntk_rate_run(ctx.seed, 0, N, d, d_s, d_m, steps)
    note = (
        f"worst step t = {r['t']:.0f}: l_t = {r['loss']:.4g} vs bound {r['bound']:.4g} (ratio "
        f"{r['loss'] / r['bound']:.3f}); lambda_min K_inf {r['lam_inf']:.4f}, K_0 {r['lam_0']:.4f}"
    )
    if r["ran"] < steps:
        return Evidence(r["bound"], r["bound"] * 1e300, notes=[f"GD diverged at step {r['ran']:.0f}", note])
    return Evidence(theory=r["bound"], measured=r["loss"], notes=[note])
