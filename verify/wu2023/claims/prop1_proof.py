"""The facts of Proposition 1's proof (DERIVED): the PL-type inequality, the NTK floor and the
Lipschitz constants rho and z, each checked along GD or on random points and by a worst-case search over
theta. Proposition 1 itself (the linear rate) is in :mod:`.prop1`."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from bounds import wu2023 as B
from verify.core import (
    ROUNDOFF_RTOL,
    Choice,
    Ctx,
    Evidence,
    Expect,
    Kind,
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
from verify.numerics.worstcase import WorstCase
from verify.wu2023 import experiments as E
from verify.wu2023 import model as M
from verify.wu2023.claims.common import CRITERION as _CRITERION

#: The search space of ``wu2023.pl`` and ``wu2023.ntk.floor``: every theta on the seed's data.
_THETA_SPACE = (
    "every theta = (W_Q, W_K, W_V, w_O), unconstrained, on the seed's 'active' data (N, d_s, d) = search[:3] "
    "at width d_m = search[3] (LeCun, tau0 = d_m^-1/2); starts N(0, 1) where the ratio is at least 1e-3"
)


def _searched_lower(worst: float, found: WorstCase, rtol: float) -> Evidence:
    """Evidence of a lower bound (theory 1, measured the smallest measured / bound) whose worst-case search
    maximised bound (1 - rtol) / measured: the searched worst enters measured as (1 - rtol) / ratio, and the
    random or GD draws' (1 - rtol) / worst is the typical ratio."""
    searched = (1 - rtol) / found.ratio if found.ratio > 0 else math.inf
    typical = found.typical if worst <= 0 else max(found.typical, (1 - rtol) / worst)  # a violating draw
    return Evidence(  # has no finite ratio: the notes and measured show it
        theory=1.0,
        measured=min(worst, searched),
        rtol=rtol,
        worst=replace(found, typical=typical),
        notes=[f"min measured / bound: draws {worst:.4f}, searched {searched:.10f}"],
    )


_PL_CHOICES = {
    "rtol": Choice(
        Rule(1e-10, "round-off margin of an exact inequality", _CRITERION),
        range=(1e-12, 1e-08),
        reason="a round-off margin (of an exact inequality): two decades around ours, from 1e-12 to 1e-08",
    )
}


@claim(
    "wu2023.pl",
    Source("Prop. 1 proof (PL-type inequality); derivation Sect. 5.1", Provenance.DERIVED),
    kind=Kind.LOWER,
    statement="|grad l(theta)|^2 >= 2 tau1^2 sigma_min(F_pre(theta))^2 l(theta) along GD",
    profiles=Profiles(
        quick=dict(N=8, d=16, d_s=4, d_m=64, steps=60, search=(2, 2, 2, 2, 1, 60)),
        paper=dict(N=20, d=32, d_m=1024, steps=300, search=(3, 2, 3, 3, 6, 200)),
    ),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    search=Search(
        ratio="2 tau1^2 sigma_min(F_pre)^2 l (1 - rtol) / |grad l|^2", space=_THETA_SPACE, budget="search"
    ),
    choices=_PL_CHOICES,
    report=Report(
        "along GD, "
        r"$\|\nabla\ell(\theta)\|^2\ge2\tau_1^2\sigma_{\min}(F_{\mathrm{pre}}(\theta))^2\,\ell(\theta)$ "
        "(PL-type inequality)"
    ),
)
def pl(
    ctx: Ctx, *, N: int, d: int, d_s: int, d_m: int, steps: int, search: tuple[int, int, int, int, int, int]
) -> Evidence:
    """Prop. 1 proof, the PL-type step (exact: only the w_O block). Consistency check: the full gradient
    contains the w_O block tau1 F^T (f - y), so the inequality holds by construction of the linear output
    layer and cannot fail by a change of the data or of training. Kind: lower, DERIVED, round-off margin
    ``rtol``. theory: 1; measured: min over t, over LeCun / NTK init and both tau0 of |grad l_t|^2 / (2 tau1^2
    sigma_min(F_pre^t)^2 l_t), along GD with gamma = 1/lambda_max(K_0), and over a worst-case search of the
    inequality (stated for every theta) over every theta on the seed's data at (N, d_s, d, d_m) =
    ``search[:4]`` (``search[4]`` starts of ``search[5]`` L-BFGS-B iterations:
    :func:`verify.wu2023.experiments.theta_search` of :func:`~verify.wu2023.experiments.pl_ratio`)."""
    rtol = ctx.rule("rtol")
    worst = math.inf
    for init in ("lecun", "ntk"):
        for p in (0.5, 1.0):
            s, g = E.gd_setup(ctx.seed, N, d, d_s, d_m, p, init, "active")
            tr = E.run_gd(s, g, steps, track_sigma=True)
            den = 2 * s.model.tau1**2 * tr.extras["sig2"] * tr.loss
            pos = den > 0  # at l_t = 0 (exact fit) or sigma_min = 0 the inequality reads 0 >= 0
            worst = min(worst, float(np.min(tr.grad_norm[pos] ** 2 / den[pos]))) if pos.any() else worst
    return _searched_lower(worst, E.theta_search(E.pl_ratio, ctx.rng(1), ctx.seed, *search, rtol), rtol)


_NTK_FLOOR_CHOICES = {
    "rtol": Choice(
        Rule(1e-8, "round-off margin of an exact inequality (eigenvalues of K)", _CRITERION),
        range=(1e-10, 1e-06),
        reason="a round-off margin (eigenvalues of K): two decades around ours, from 1e-10 to 1e-06",
    )
}


@claim(
    "wu2023.ntk.floor",
    Source(
        "Prop. 1 proof (NTK floor lambda_min(K) >= tau1^2 sigma_min(F_pre)^2); derivation Sect. 5.1",
        Provenance.DERIVED,
    ),
    kind=Kind.LOWER,
    statement="lambda_min(K(theta)) >= tau1^2 sigma_min(F_pre(theta))^2 at init and along GD",
    profiles=Profiles(
        quick=dict(N=8, d=16, d_s=4, d_m=64, steps=60, every=20, search=(2, 2, 2, 2, 1, 60)),
        paper=dict(N=20, d=32, d_m=1024, steps=300, search=(3, 2, 3, 3, 6, 200)),
    ),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    search=Search(
        ratio="tau1^2 sigma_min(F_pre)^2 (1 - rtol) / lambda_min(K)", space=_THETA_SPACE, budget="search"
    ),
    choices=_NTK_FLOOR_CHOICES,
    report=Report(
        r"$\lambda_{\min}(K(\theta))\ge\tau_1^2\sigma_{\min}(F_{\mathrm{pre}}(\theta))^2$ at init "
        "and along GD"
    ),
)
def ntk_floor(
    ctx: Ctx,
    *,
    N: int,
    d: int,
    d_s: int,
    d_m: int,
    steps: int,
    every: int,
    search: tuple[int, int, int, int, int, int],
) -> Evidence:
    """NTK floor (K = K_O + PSD blocks, K_O = tau1^2 F F^T). Consistency check: the NTK is a sum
    of per-block Gram matrices, one of which is tau1^2 F F^T, so the floor holds by construction.
    Kind: lower, DERIVED, round-off margin ``rtol`` (a floor below ``rtol`` max|K| is round-off: there
    K must be PSD to ``rtol`` max|K|). theory: 1; measured: min over iterates (every ``every`` steps),
    inits, tau0 of lambda_min(K_t) / (tau1^2 sigma_min(F^t)^2), and over a worst-case search of the
    floor (stated for every theta) over every theta on the seed's data at (N, d_s, d, d_m) =
    ``search[:4]`` (``search[4]`` starts of ``search[5]`` L-BFGS-B iterations:
    :func:`verify.wu2023.experiments.theta_search` of :func:`~verify.wu2023.experiments.ntk_floor_ratio`)."""
    worst, rtol = math.inf, ctx.rule("rtol")
    for init in ("lecun", "ntk"):
        for p in (0.5, 1.0):
            s, g = E.gd_setup(ctx.seed, N, d, d_s, d_m, p, init, "active")
            th = s.theta0
            for _ in range(0, steps + 1, every):
                K = s.model.ntk(th, s.batch)
                floor = s.model.tau1**2 * M.sigma_min_sq(s.model.features(th, s.batch))
                lam, scale = float(np.linalg.eigvalsh(K)[0]), float(np.abs(K).max())
                if floor > rtol * scale:
                    worst = min(worst, lam / floor)
                elif lam < -rtol * scale:  # a floor at round-off (F rank-deficient): K must be PSD
                    worst = -math.inf
                th = E.run_gd(s, g, every, theta0=th).params
    return _searched_lower(
        worst, E.theta_search(E.ntk_floor_ratio, ctx.rng(1), ctx.seed, *search, rtol), rtol
    )


_LIPSCHITZ_CHOICES = {
    "configs": Choice(
        8,
        range=(4, 24),
        reason="the random configurations drawn (ours; the paper profile has 60): half to 3 times ours",
    ),
    "pairs": Choice(
        5,
        range=(3, 10),
        reason="the pairs of points per configuration (ours; the paper profile has 10): 3 to 10",
    ),
}


@claim(
    "wu2023.lipschitz",
    Source("Prop. 1 (its Lipschitz constants rho, z); derivation Sect. 5.1", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="|F_pre(theta) - F_pre(theta')|_F <= rho |theta - theta'| and |J(theta)|_2 <= z on the ball",
    profiles=Profiles(
        quick=dict(N=6, d=8, d_s=4, d_m=32, search=(1, 2, 1, 1, 1, 100, 0)),
        paper=dict(configs=60, pairs=10, search=(1, 2, 2, 2, 4, 200, 12)),
    ),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    search=Search(
        ratio="|dF_pre(theta)|_2 / (rho (1 + rtol)), lambda-bar_b = |W_b|_2 (the best Lipschitz constant of "
        "F_pre on a ball through theta, over rho)",
        space="every theta = (W_Q, W_K, W_V) and one token set X (N, d_s, d) = search[:3], unconstrained, at "
        "width d_m = search[3] (tau0 = d_m^-1/2); every ball and pair of the statement reduce to this; "
        "starts N(0, 1) where the ratio is at least 1e-3",
        budget="search",
    ),
    choices=_LIPSCHITZ_CHOICES,
    report=Report(
        "on the ball: "
        r"$\|F_{\mathrm{pre}}(\theta)-F_{\mathrm{pre}}(\theta')\|_F\le\rho\|\theta-\theta'\|$ and "
        r"$\|J(\theta)\|_2\le z$"
    ),
)
def lipschitz(
    ctx: Ctx,
    *,
    N: int,
    d: int,
    d_s: int,
    d_m: int,
    configs: int,
    pairs: int,
    search: tuple[int, int, int, int, int, int, int],
) -> Evidence:
    """Prop. 1 proof (softmax 1/2-Lipschitz, convex-combination and pooling bounds). Consistency check: rho
    and z are derived by us for our model and hold for every theta and every token set (the worst-case
    search attains rho), so no data, init or scaling can break them: only a bug can. Kind: upper,
    DERIVED. theory: 1; measured: the largest of |F(t) - F(t')|_F / (rho |t - t'|) and |J(t)|_2 / z
    over random points of the spectral ball B (radii C_b random multiples of |W_b^0|), cycling over
    the inits, both scalings and both token regimes, and a worst-case search of the rho bound: the best
    Lipschitz constant of F_pre on a convex ball is sup |dF_pre|_2, and a theta lies on the outer
    boundary of a ball of the statement whose lambda-bar_b is |W_b|_2 (centre W_b / (1 + k), radii
    k |W_b|_2 / (1 + k)), so the worst case over every ball, pair and token set is the largest
    |dF_pre(theta)|_2 / rho(lambda-bar_b = |W_b|_2) over every theta and X, searched at (N, d_s, d, d_m) =
    ``search[:4]`` (``search[4]`` starts of ``search[5]`` L-BFGS-B iterations:
    :func:`verify.wu2023.experiments.lipschitz_search`; ``search[6]`` starts, 0 for none, of the same
    search for the Q/K terms alone, |dF_pre / d(W_Q, W_K)|_2 / sqrt(sum_n a_n^2 + b_n^2), reported). The z
    bound is not searched: at N = d_m = 1, |J|_2 / z tends to |dF_pre|_2 / rho as |w_O| grows, so its
    worst case is at least rho's."""
    rng = ctx.rng(5)
    worst_rho = worst_z = 0.0
    for k in range(configs):
        init, p, regime = B.INITS[k % 3], (0.5, 1.0)[(k // 3) % 2], ("paper", "active")[k % 2]
        s = E.make_setup(ctx.seed, 50 + k, N=N, d=d, d_s=d_s, d_m=d_m, tau0_power=p, init=init, regime=regime)
        r, z = E.lipschitz_ratios(s, rng, pairs)
        worst_rho, worst_z = max(worst_rho, r), max(worst_z, z)
    *sizes, starts, maxiter, qk_starts = search
    found = E.lipschitz_search(ctx.rng(6), *sizes, starts, maxiter, ROUNDOFF_RTOL)
    notes = [f"max ratio rho: {worst_rho:.3f}, z: {worst_z:.3f}; searched rho: {found.ratio:.6f}"]
    if qk_starts:
        qk = E.lipschitz_search(ctx.rng(7), *sizes, qk_starts, maxiter, ROUNDOFF_RTOL, qk=True)
        notes.append(f"Q/K terms alone, searched ({qk_starts} starts): worst ratio {qk.ratio:.6f}")
    return Evidence(
        theory=1.0,
        measured=max(worst_rho, worst_z, found.ratio * (1 + ROUNDOFF_RTOL)),
        worst=replace(found, typical=max(found.typical, worst_rho)),
        notes=notes,
    )
