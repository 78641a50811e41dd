"""Theorem 3.1 from T* on: the two-sided envelope c_lo / T <= excess(T) <= c_hi / T for T >= T* (the
paper's constants and T* are not recovered: our T_0 stands for T*), and T* ~ D^2 and ~ 1/||V*||^2 as the
reviewers state it, measured as the onset T_on of the 1/T regime.

Deterministic (the exact (C1, g) reduction), so these claims take no seeds.
"""

from __future__ import annotations

import math

import numpy as np

from bounds import zhang2026 as B
from bounds.mp import to_float
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
    Source,
    Verdict,
    claim,
)
from verify.zhang2026 import experiments as E
from verify.zhang2026.claims.common import (
    ACTS,
    DECAY_WORLD,
    RateParts,
    curve_point,
    fit_decades,
    reviewers,
    worst_rate,
)

_THM31_BOUNDS_CHOICES = {
    "eta": Choice(
        0.1,
        range=(0.05, 0.2),
        reason="the paper's step is not recovered; halved or doubled, below the group-sparse example's "
        "stable step 0.25",
    ),
    "vnorm": Choice(
        8.0,
        range=(2.0, 12.0),
        reason="||V*||_F is not fixed by the paper (the errata sweep 1 to 32); 12 keeps eta = 0.1 "
        "below the group-sparse stable step",
    ),
    "tmax_T0": Choice(
        1000, range=(300, 10_000), reason="the horizon in T_0: from 300 to the paper profile's 10^4"
    ),
    "start_T0": Choice(
        Rule(
            10, "the envelope is judged on [start_T0 T_0, T_max] (T >= T*)", "reconstruction pass criterion"
        ),
        range=(3, 100),
        reason="our proxy for the paper's T* (not recovered) in units of T_0: a reader may put the "
        "start of the Theta(1/T) regime anywhere from a few T_0 to 100 T_0",
    ),
    "max_over_min": Choice(
        Rule(3.0, "max / min of T excess(T) on that range", "reconstruction pass criterion"),
        range=(2.0, 5.0),
        reason="the ratio c_hi / c_lo the paper's constants allow is not recovered; 2 to 5",
    ),
    "envelope": Choice(
        Rule((0.5, 2.0), "min and max of T excess / derived constant", "reconstruction pass criterion"),
        options=((0.5, 2.0), (0.25, 4.0)),
        reason="the paper's constants are not recovered: within 2x or 4x of the derived constant",
    ),
}


@claim(
    "zhang2026.thm31.bounds",
    Source(
        "Thm 3.1(c) matching upper and lower bounds (constants and T* not recovered; our T_0: "
        "derivation Sect. 6.4)",
        Provenance.RECONSTRUCTED,
    ),
    kind=Kind.UPPER,
    statement="c_lo / T <= excess(T) <= c_hi / T for T >= T*, reconstructed as: max/min of T excess over "
    "[10 T_0, T_max] <= 3 and both within [0.5, 2] x the derived constant, linear sigma and leaky ReLU",
    assumptions=("uniform-K S*, K < D", "zero init"),
    profiles=Profiles(quick=dict(step_decay=False), paper=dict(tmax_T0=10_000)),
    expect=Expect(Verdict.VIOLATED),
    alternative=Alternative(world=DECAY_WORLD, overrides={"step_decay": True}),
    choices=_THM31_BOUNDS_CHOICES,
    report=Report(
        r"$c_{\mathrm{lo}}/T\le\mathcal{E}(T)\le c_{\mathrm{hi}}/T$ for $T\ge T^*$; reconstructed: on "
        r"$[10T_0,T_{\max}]$ the max/min of $T\,\mathcal{E}(T)$ is at most $3$ and both lie within "
        r"$[\frac12,2]$ times the derived constant (linear $\sigma$ and leaky ReLU)",
        Plot(
            x="",
            grid=(1.0, 10**0.05),
            curves=[
                ("circulant D=8 K=2 linear: T excess / constant", r"circulant $D=8$, $K=2$, linear"),
                ("circulant D=8 K=2 leaky: T excess / constant", r"circulant $D=8$, $K=2$, leaky"),
                ("group_sparse D=8 K=1 linear: T excess / constant", r"group-sparse $K=1$, linear"),
                ("group_sparse D=8 K=1 leaky: T excess / constant", r"group-sparse $K=1$, leaky"),
            ],
            band=(0.5, 2.0),
            theory_label=r"reconstructed envelope $[\frac{1}{2},2]$",
            xlabel=r"$T\,/\,T_0$ (approximate)",
            ylabel=r"$T\,\mathcal{E}(T)\,/\,(DK(D-K)/4\eta)$",
            logx=True,
            logy=True,
        ),
    ),
)
def thm31_bounds(ctx: Ctx, *, eta: float, vnorm: float, tmax_T0: int, step_decay: bool) -> Evidence:
    """Thm 3.1(c) [P]: two-sided Theta(1/T) for T >= T*. The paper's constants and T* are NOT RECOVERED,
    so this is RECONSTRUCTED: T* ~ rule ``start_T0`` x T_0 (T_0 = bounds.zhang2026.onset_T0, derived for
    linear sigma) and the constants ~ rule ``envelope`` x the DERIVED tail_constant; max/min of T excess
    on [start_T0 T_0, T_max] within ``max_over_min``. Judged for linear sigma and leaky ReLU (0.1). A
    violation says our T* proxy starts too early, not that Theta(1/T) fails: the notes give the first
    multiple of T_0 (10, 30, 100, 300) from which each curve is inside. Headline: the worst condition.
    ``step_decay``: the alternative world (DECAY_WORLD). Deterministic."""
    cases = [("circulant", 8, 2), ("gcn_cycle", 8, 3), ("circulant", 16, 4), ("group_sparse", 8, 1)]
    v2, starts = vnorm**2, (10, 30, 100, 300)
    points = []
    for name, D, K in cases:
        T0 = E.onset(D, K, eta, 1.0, v2)
        tt = np.unique(
            np.round(T0 * np.logspace(0, math.log10(tmax_T0), 20 * round(math.log10(tmax_T0)) + 1))
        )
        points += [(name, T0, curve_point(D, K, eta, v2, act, tt, T0 if step_decay else 0.0)) for act in ACTS]
    res = ctx.map(E.scalar_curve, [p for _, _, p in points])
    parts, notes, series = RateParts(), [], {}
    lo_c, hi_c = ctx.rule("envelope")
    for (name, T0, pt), r in zip(points, res, strict=True):
        t, y = np.array(r["t"]), np.array(r["excess"])
        ty = t * y / to_float(B.tail_constant(pt.D, pt.K, eta))
        sel = t >= ctx.rule("start_T0") * T0
        lo, hi = float(ty[sel].min()), float(ty[sel].max())
        tag = f"{name} D={pt.D} K={pt.K} {pt.act}"
        parts.tol(f"{tag}: max/min of T excess", hi / lo, ctx.rule("max_over_min"))
        parts.window(f"{tag}: min T excess / constant", lo, lo_c, hi_c)
        parts.window(f"{tag}: max T excess / constant", hi, lo_c, hi_c)
        inside = [
            s
            for s in starts
            if (m := t >= s * T0).any()
            and lo_c <= ty[m].min() <= ty[m].max() <= hi_c
            and ty[m].max() / ty[m].min() <= ctx.rule("max_over_min")
        ]
        notes.append(f"{tag}: inside the envelope from {inside[0] if inside else '> 300'} T_0 on")
        series[f"{tag}: T excess / constant"] = ty.tolist()
    return parts.evidence(headline=parts.worst_name(), notes=notes, series=series)


_THM31_TSTAR_CHOICES = {
    "K": Choice(
        2, options=(2, 4), reason="any fixed K; K = 1 would leave the stable range at D = 256 (2 K/D < eta_D)"
    ),
    "eta": Choice(
        0.1,
        range=(0.05, 0.2),
        reason="the step of the ||V*|| sweep at D = 8 (not recovered): halved or doubled, below its "
        "stable step 0.5",
    ),
    "eta_D": Choice(
        0.01,
        range=(0.005, 0.015),
        reason="the step of the D sweep: from the paper profile's 0.005 to just below the stable step "
        "2 K/D_max = 0.0156",
    ),
    "vnorm_D": Choice(
        16.0,
        range=(8.0, 32.0),
        reason="||V*||_F of the D sweep, not fixed by the paper: halved or doubled (the logits dominate "
        "the onset for large D and small ||V*||, errata)",
    ),
    "D_max": Choice(
        256,
        range=(128, 362),
        reason="the end of the D range (the asymptotic regime is large D): from 128 to 362 (half an "
        "octave more, about 3x the cost; the paper profile's 512 is the long end)",
    ),
    "vnorm_min": Choice(
        0.125,
        range=(0.0625, 0.5),
        reason="the small end of the ||V*||_F sweep (the asymptotic regime is small ||V*||): from 0.5 to "
        "the paper profile's 0.0625",
    ),
    "horizon_T0": Choice(
        30.0,
        range=(10.0, 100.0),
        reason="how long after T_0 the 1/T regime must hold to count as started: 10 to 100 T_0",
    ),
    "onset_slope": Choice(
        Rule(-0.9, "the 1/T regime starts once the factor-2 local slope stays at or below this"),
        range=(-0.95, -0.8),
        reason="the local slope from which the 1/T regime counts as started (the definition of T_on, "
        "ours): -0.8 to -0.95",
    ),
    "exponent_tol": Choice(
        Rule(
            0.2,
            "rate rule: tolerance of the last local exponent of T_on",
            "reconstruction pass criterion (half-width)",
        ),
        range=(0.1, 0.5),
        reason="the rate rule's half-width: from half ours to 0.5, half the distance to the competing "
        "exponent 1 (T* ~ D)",
    ),
}


@claim(
    "zhang2026.thm31.Tstar",
    Source(
        "Thm 3.1(d) (reviewers 1, 2); our T_0: derivation Sect. 6.4",
        Provenance.THIRD_PARTY,
        quote=reviewers(
            "reviewer 2 (T* grows quadratically with D) and reviewer 1, weakness 6 (Thm 3.1's time bound is "
            "linear in 1/||V*||^2)"
        ),
    ),
    kind=Kind.RATE,
    statement="T* grows ~D^2 and ~1/||V*||^2 (proxy: onset T_on of the 1/T regime; exponent 2 in D and in "
    "1/||V*||_F)",
    assumptions=("uniform-K S*, K fixed", "zero init", "linear sigma"),
    profiles=Profiles(quick=dict(logit_scaling=True), paper=dict(eta_D=0.005, D_max=512, vnorm_min=0.0625)),
    alternative=Alternative(
        world="logits without the 1/sqrt(D) scaling (the scaling is THIRD-PARTY): the logit step is eta, "
        "not eta/D, T_0 ~ D asymptotically and T_on grows like D^0.6 over D = 128 to 256 (run to "
        "150 T_0: there the onset at D = 8 comes at 51 T_0, past what 30 T_0 can see)",
        overrides={"logit_scaling": False, "horizon_T0": 150.0},
    ),
    choices=_THM31_TSTAR_CHOICES,
    report=Report(
        r"$T^*$ grows like $D^2$ and like $1/\|V^*\|_F^2$ (proxy: the onset $T_{\mathrm{on}}$ of the "
        r"$1/T$ regime; exponent $2$ in $D$ and in $1/\|V^*\|_F$)",
        Plot.rate(
            2.0,
            "D",
            [("T_on_D", r"onset $T_{\mathrm{on}}$")],
            "$D$",
            r"$T_{\mathrm{on}}$",
            title="against $D$",
        ),
        Plot.rate(
            -2.0,
            "vnorm",
            [("T_on_vnorm", r"onset $T_{\mathrm{on}}$")],
            r"$\|V^*\|_F$",
            r"$T_{\mathrm{on}}$",
            title=r"against $\|V^*\|_F$",
        ),
    ),
)
def thm31_Tstar(
    ctx: Ctx,
    *,
    K: int,
    eta: float,
    eta_D: float,
    vnorm_D: float,
    D_max: int,
    vnorm_min: float,
    horizon_T0: float,
    logit_scaling: bool,
) -> Evidence:
    """Thm 3.1(d) shape (THIRD-PARTY: reviewers 2 and 1, class (A)); T* itself NOT RECOVERED. Measured T_on =
    first T after which the factor-2 local slope stays <= rule ``onset_slope`` up to horizon_T0 T_0 (runs
    sampled on a 2^(1/32) grid, read on 2^(1/128): :func:`~verify.zhang2026.experiments.onset_sweep`).
    Rate rule (tolerance ``exponent_tol``) on T_on against D = 8 2^(k/4) up to D_max (four points per
    octave, so the last 5-point range spans D_max / 2 to D_max; step eta_D < 2K/D_max for stability,
    ||V*||_F = vnorm_D; exponent TSTAR_D_EXPONENT) and against 1/||V*||_F for
    ||V*||_F = 4 2^(-k/2) down to vnorm_min at D = 8, step eta (exponent -TSTAR_V_EXPONENT). The
    asymptotic regime is large D and small ||V*|| (the logits then dominate the onset); shown: the less
    favourable of the two. T_on / T_0 (T_0 = bounds.zhang2026.onset_T0) is reported. ``logit_scaling``:
    the logits' 1/sqrt(D) (True), or none (False: the alternative world, logit gain D). Deterministic."""
    Ds = sorted({round(8 * 2 ** (k / 4)) for k in range(round(4 * math.log2(D_max / 8)) + 1)})
    vns = [4.0 / 2 ** (k / 2) for k in range(round(2 * math.log2(4.0 / vnorm_min)) + 1)]
    th = ctx.rule("onset_slope")
    sweep = dict(logit_scaling=logit_scaling)
    t_d, r_d = E.onset_sweep(ctx, [(D, vnorm_D) for D in Ds], K, eta_D, horizon_T0, th, **sweep)
    t_v, r_v = E.onset_sweep(ctx, [(8, vn) for vn in vns], K, eta, horizon_T0, th, **sweep)
    if not np.all(np.isfinite([*t_d, *t_v])):
        return Evidence(
            theory=B.TSTAR_D_EXPONENT,
            measured=0.0,
            inconclusive=f"the 1/T regime does not start within {horizon_T0:g} T_0 at every point",
            series={"D": Ds, "vnorm": vns},
        )
    fit_d = fit_decades(np.array(Ds, float), np.array(t_d))
    fit_v = fit_decades(1.0 / np.array(vns), np.array(t_v))
    return worst_rate(
        [
            (f"T_on vs D (K={K}, ||V*||_F={vnorm_D:g}, eta={eta_D:g})", B.TSTAR_D_EXPONENT, fit_d),
            (f"T_on vs 1/||V*||_F (D=8, K={K}, eta={eta:g})", -B.TSTAR_V_EXPONENT, fit_v),
        ],
        ctx.rule("exponent_tol"),
        notes=[
            "T_on / T_0 over D: " + ", ".join(f"{D}: {r:.3f}" for D, r in zip(Ds, r_d, strict=True)),
            "T_on / T_0 over ||V*||_F: "
            + ", ".join(f"{v:g}: {r:.3f}" for v, r in zip(vns, r_v, strict=True)),
        ],
        series={"D": Ds, "T_on_D": t_d, "vnorm": vns, "T_on_vnorm": t_v},
    )
