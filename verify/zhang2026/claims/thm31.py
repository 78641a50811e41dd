"""Theorem 3.1(a)-(c): A^(T) -> S* with ||A - S*||_F ~ T^-1/2 and W_V = C1 V*, and the excess
population loss Theta(1/T) on Examples 2.1-2.4 (its constant: ``thm31_constant``; its envelope from T*
on and T* itself: ``thm31_tstar``).

The curves here are deterministic (population GD through the exact (C1, g) reduction, which
``zhang2026.scalar_reduction`` checks against full-matrix GD), so these claims take no seeds. Rates are
judged by the shared rate rule on times T_0 10^(k/4) (local slopes over one decade each).
"""

from __future__ import annotations

import numpy as np

from bounds import zhang2026 as B
from verify.core import (
    Alternative,
    Choice,
    Ctx,
    Evidence,
    Kind,
    Plot,
    Profiles,
    Provenance,
    Report,
    Rule,
    Source,
    claim,
)
from verify.zhang2026 import experiments as E
from verify.zhang2026.claims.common import (
    ACTS,
    DECAY_WORLD,
    MAX_ENTRY,
    NOTE,
    SLOPE_CF,
    SLOPE_CF_CHOICE,
    RateParts,
    curve_point,
    fit_decades,
    rate_times,
    reviewers,
    stable_step,
    worst_rate,
)

_THM31_RECOVERY_CHOICES = {
    "D": Choice(
        8,
        options=(8, 16),
        reason="Thm 3.1 holds for any uniform-K S* with K < D: ours or the paper profile's D = 16",
    ),
    "K": Choice(
        2,
        options=(1, 2, 4),
        reason="any support size 1 <= K < D (K = 4 is the paper profile's; with D = 8 all keep "
        "eta = 0.1 below the stable step 2 min(K/D, D K/||V*||_F^2))",
    ),
    "eta": Choice(
        0.1,
        range=(0.05, 0.2),
        reason="the paper's step is not recovered; a constant step well inside the stable range "
        "(2 min(K/D, D K/||V*||_F^2) = 0.5 here), halved or doubled",
    ),
    "vnorm": Choice(
        8.0,
        range=(4.0, 16.0),
        reason="||V*||_F is not fixed by the paper (quick 8 to 16, errata); it moves T_0 ~ 1/||V*||_F^2 "
        "and the horizon is in units of T_0; 16 keeps eta below the stable step (0.125)",
    ),
    "tmax_T0": Choice(
        10_000,
        range=(3000, 30_000),
        reason="the horizon in T_0 (the paper profile's 10^5 is the long end, 10x our run): from 3000 "
        "(the fit window [300, 3000] T_0 is still one decade) to 3 x ours",
    ),
    "slope_tol": Choice(
        SLOPE_CF,
        range=(0.025, 0.125),
        reason="the rate rule's half-width: from half ours to half the distance to the competing "
        "exponent -1/4 (the decaying-step world)",
    ),
    "c1_window": Choice(
        Rule(
            (0.0, 0.05),
            "C1(T_max) - 1: above 1 (from above) and close to it",
            "reconstruction pass criterion",
        ),
        options=((0.0, 0.02), (0.0, 0.05), (0.0, 0.1)),
        reason="'C1 -> 1 from above' fixes the lower end 0; how close at T_max is ours",
    ),
    "max_entry": Choice(
        MAX_ENTRY,
        range=(0.02, 0.1),
        reason="what 'A -> S*' asks at a finite T_max: from 2% to 10% of an entry (1/K = 0.5)",
    ),
}


@claim(
    "zhang2026.thm31.recovery",
    Source("Thm 3.1(a)(b); rate of (a): derivation Sect. 6.2", Provenance.EXACT_FROM_REVIEWS),
    kind=Kind.UPPER,
    statement="A^(T) -> S* with ||A - S*||_F ~ T^-1/2, and W_V = C1 V* with C1 -> 1 from above",
    assumptions=("uniform-K S*, K < D", "zero init"),
    profiles=Profiles(quick=dict(step_decay=False), paper=dict(D=16, K=4, tmax_T0=100_000)),
    alternative=Alternative(world=DECAY_WORLD, overrides={"step_decay": True}),
    choices=_THM31_RECOVERY_CHOICES,
    report=Report(
        r"$A^{(T)}\to S^*$ with $\|A^{(T)}-S^*\|_F\sim T^{-1/2}$, and $W_V^{(T)}=C_1V^*$ with "
        r"$C_1\to1$ from above",
        Plot.rate(
            -0.5,
            "t",
            [("attn_err_linear", r"linear $\sigma$"), ("attn_err_leaky", r"leaky ReLU $\sigma$")],
            "GD steps $T$",
            r"$\|A^{(T)}-S^*\|_F$",
        ),
    ),
)
def thm31_recovery(
    ctx: Ctx, *, D: int, K: int, eta: float, vnorm: float, tmax_T0: int, step_decay: bool
) -> Evidence:
    """Thm 3.1(a)(b) [P] (EXACT-from-reviews); the exponent -1/2 of ||A - S*||_F is DERIVED (the tail
    residual obeys eps' ~ -kappa eps^3). Per activation (linear, leaky ReLU 0.1): the rate rule on
    ||A - S*||_F at T_0 10^(k/4), T in [300 T_0, tmax_T0 T_0] (its local slope overshoots to -0.487 near
    10^2.5 T_0 and returns toward -1/2 from there), against RECOVERY_EXPONENT (tolerance
    ``slope_tol``); C1(T_max) - 1 in ``c1_window``; max |A - S*| within ``max_entry``. Headline: the
    least favourable rate. ``step_decay``: the alternative world (DECAY_WORLD). Deterministic."""
    v2 = vnorm**2
    T0 = E.onset(D, K, eta, 1.0, v2)
    tt = rate_times(T0, 300, tmax_T0)
    parts, series = RateParts(), {"t": tt.tolist()}
    for act in ACTS:
        r = E.scalar_curve(curve_point(D, K, eta, v2, act, tt, T0 if step_decay else 0.0))
        fro, mx = E.attn_error(np.array(r["g"]), D, K)
        parts.rate(
            f"{act}: ||A - S*||_F ~ T^p", fit_decades(tt, fro), B.RECOVERY_EXPONENT, ctx.rule("slope_tol")
        )
        parts.window(f"{act}: C1(T_max) - 1", r["C1"][-1] - 1.0, *ctx.rule("c1_window"))
        parts.tol(f"{act}: max |A - S*| at T_max", float(mx[-1]), ctx.rule("max_entry"))
        series[f"attn_err_{act}"], series[f"C1_{act}"] = fro.tolist(), r["C1"]
    return parts.evidence(series=series, params=dict(T_max=int(tt[-1])))


#: The four examples' curves as the rate claims store them: (series prefix, legend).
_EXAMPLE_CURVES = (
    ("conv_pool D=16 K=4", r"conv + pool ($D=16$, $K=4$)"),
    ("gcn_cycle D=8 K=3", r"cycle GCN ($D=8$, $K=3$)"),
    ("selection D=8 K=2", r"selection ($D=8$, $K=2$)"),
    ("group_sparse D=8 K=1", r"group-sparse ($D=8$, $K=1$)"),
)


def _tail_panel(act: str, title: str) -> Plot:
    """The excess loss of the four examples against T for one activation, with the T^-1 slope."""
    return Plot.rate(
        -1.0,
        f"{_EXAMPLE_CURVES[0][0]} {act}: t",
        [dict(y=f"{k} {act}: excess", x=f"{k} {act}: t", label=lab) for k, lab in _EXAMPLE_CURVES],
        "GD steps $T$",
        r"excess loss $\mathcal{E}(T)$",
        title=title,
    )


_THM31_RATE_CHOICES = {
    "eta": Choice(
        0.1,
        range=(0.05, 0.2),
        reason="the paper's step is not recovered; halved or doubled, every end below the stable step "
        "of every example (0.25, the group-sparse example at ||V*||_F = 8)",
    ),
    "vnorm": Choice(
        8.0,
        range=(4.0, 12.0),
        reason="||V*||_F is not fixed by the paper; 12 is near the largest keeping eta = 0.1 below the "
        "group-sparse example's stable step (2 D K/||V*||_F^2 > 0.1 needs ||V*||_F < 12.6)",
    ),
    "tmax_T0": Choice(
        10_000,
        range=(3000, 30_000),
        reason="the horizon in T_0 (the paper profile's 10^5 is the long end); the rate is asymptotic, "
        "so a reader may take any horizon past the transient, from 3000 to 3 x ours",
    ),
    "slope_tol": SLOPE_CF_CHOICE,
}


@claim(
    "zhang2026.thm31.rate",
    Source(
        "Thm 3.1(c); Fig. 2(a)",
        Provenance.THIRD_PARTY,
        quote=reviewers(
            "reviewer 2 (matching upper and lower bounds, Theta(1/T)), reviewer 3 (a tight Theta(1/T) on the "
            "population loss with Gaussian data) and reviewer 1 (Gaussian data, Gaussian noise on the target)"
        )
        + "; the late slope about -1 also in "
        + NOTE,
    ),
    kind=Kind.RATE,
    statement="the excess population loss is Theta(1/T): tail exponent -1 on Examples 2.1-2.4, linear sigma "
    "and leaky ReLU",
    assumptions=(
        "uniform-K S*, 1 <= K < D",
        "zero init",
        "Gaussian inputs",
        "a stable constant step: eta < 2 min(K/D, D K/||V*||_F^2) for every example",
    ),
    profiles=Profiles(quick=dict(step_decay=False), paper=dict(tmax_T0=100_000)),
    alternative=Alternative(world=DECAY_WORLD, overrides={"step_decay": True}),
    choices=_THM31_RATE_CHOICES,
    report=Report(
        r"the excess population loss $\mathcal{E}(T)$ is $\Theta(1/T)$: tail exponent $-1$ on Examples "
        r"2.1--2.4, for linear $\sigma$ and leaky ReLU",
        _tail_panel("linear", "linear $\\sigma$"),
        _tail_panel("leaky", "leaky ReLU $\\sigma$"),
    ),
)
def thm31_rate(ctx: Ctx, *, eta: float, vnorm: float, tmax_T0: int, step_decay: bool) -> Evidence:
    """Thm 3.1(c) (THIRD-PARTY: the reviews state it, class (A)): excess(T) = Theta(T^RATE_EXPONENT), the
    matching upper and lower bounds as an exponent (the population excess does not depend on the label
    noise). Rate rule (tolerance ``slope_tol``) on the
    closed-form excess at T_0 10^(k/4), T in [10 T_0, tmax_T0 T_0], for Ex 2.1 (conv + 2x2 pool, D=16,
    K=4), Ex 2.2 (cycle GCN, D=8, K=3), Ex 2.3 (fixed selection, D=8, K=2), Ex 2.4 (group-sparse, D=8,
    K=1), linear sigma and leaky ReLU (0.1); shown: the least favourable of the eight curves. Premise:
    eta below :func:`stable_step` of every example (above it GD leaves the regime the theorem describes:
    out_of_regime). ``step_decay``: the alternative world (DECAY_WORLD). Deterministic."""
    v2, points = vnorm**2, []
    above = [
        f"{name} (D={D}, K={K}): eta = {eta:g} >= stable step {stable_step(D, K, v2):.4g}"
        for name, D, K in E.EXAMPLES
        if eta >= stable_step(D, K, v2)
    ]
    if above:
        return Evidence(theory=B.RATE_EXPONENT, measured=0.0, failed=above)
    for name, D, K in E.EXAMPLES:
        T0 = E.onset(D, K, eta, 1.0, v2)
        tt = rate_times(T0, 10, tmax_T0)
        td = T0 if step_decay else 0.0
        points += [(f"{name} D={D} K={K} {act}", curve_point(D, K, eta, v2, act, tt, td)) for act in ACTS]
    res = ctx.map(E.scalar_curve, [p for _, p in points])
    curves, series = [], {}
    for (name, pt), r in zip(points, res, strict=True):
        fit = fit_decades(np.array(pt.times, float), np.array(r["excess"]))
        curves.append((name, B.RATE_EXPONENT, fit))
        series[f"{name}: t"], series[f"{name}: excess"] = list(pt.times), r["excess"]
    return worst_rate(curves, ctx.rule("slope_tol"), series=series)
