"""Theorem 3.1: recovery of S*, the Theta(1/T) rate, its constant, the two-sided envelope, the
D-dependence of the constant and the onset T*.

The curves here are deterministic (population GD through the exact (C1, g) reduction, which
``zhang2026.scalar_reduction`` checks against full-matrix GD), so these claims take no seeds. Rates are
judged by the shared rate rule on times T_0 10^(k/4) (local slopes over one decade each).
"""

from __future__ import annotations

import math
from dataclasses import replace

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
from verify.numerics.fit import fit_loglog
from verify.zhang2026 import experiments as E
from verify.zhang2026.claims.common import (
    CONST_2PC,
    DECAY_WORLD,
    MAX_ENTRY,
    NOTE,
    SLOPE_CF,
    SLOPE_CF_CHOICE,
    RateParts,
    fit_decades,
    rate_times,
    reviewers,
    worst_rate,
)

CIRCULANT = [("circulant", 8, 2), ("circulant", 12, 3), ("circulant", 16, 4)]
ACTS = ("linear", "leaky")


def _curve(
    D: int, K: int, eta: float, v2: float, act: str, times: np.ndarray, t_decay: float = 0.0
) -> E.CurvePoint:
    return E.CurvePoint(D, K, eta, 1.0, v2, act, tuple(int(t) for t in times), t_decay)


def stable_step(D: int, K: int, v2: float) -> float:
    """The largest stable constant step of the (C1, g) dynamics, 2 / curvature of both: 4 x
    bounds.zhang2026.eta_heuristic = 2 min(K / D, D K / ||V*||_F^2) (sx2 = 1; derivation Sect. 6.9)."""
    return 4.0 * to_float(B.eta_heuristic(D, K, 1.0, v2))


def tail_limits(
    ctx: Ctx,
    Ds: list[int],
    K: int,
    eta: float,
    v2: float,
    t_max: list[int],
    gains: list[float],
) -> list[float]:
    """T excess(T) at T = t_max[i] for each D of ``Ds`` (linear sigma, the (C1, g) reduction), with the
    logit step scaled by gains[i] (lam^2 for P^T P = lam I; D without the 1/sqrt(D) logit scaling)."""
    points = [
        replace(_curve(D, K, eta, v2, "linear", np.array([t])), logit_gain=gain)
        for D, t, gain in zip(Ds, t_max, gains, strict=True)
    ]
    return [
        pt.times[-1] * r["excess"][-1] for pt, r in zip(points, ctx.map(E.scalar_curve, points), strict=True)
    ]


_THM31_RECOVERY_CHOICES = {
    "D": Choice(
        8,
        options=(8, 16),
        basis="plausible",
        reason="Thm 3.1 holds for any uniform-K S* with K < D: ours or the paper profile's D = 16",
    ),
    "K": Choice(
        2,
        options=(1, 2, 4),
        basis="plausible",
        reason="any support size 1 <= K < D (K = 4 is the paper profile's; with D = 8 all keep "
        "eta = 0.1 below the stable step 2 min(K/D, D K/||V*||_F^2))",
    ),
    "eta": Choice(
        0.1,
        range=(0.05, 0.2),
        basis="plausible",
        reason="the paper's step is not recovered; a constant step well inside the stable range "
        "(2 min(K/D, D K/||V*||_F^2) = 0.5 here), halved or doubled",
    ),
    "vnorm": Choice(
        8.0,
        range=(4.0, 16.0),
        basis="plausible",
        reason="||V*||_F is not fixed by the paper (quick 8 to 16, errata); it moves T_0 ~ 1/||V*||_F^2 "
        "and the horizon is in units of T_0; 16 keeps eta below the stable step (0.125)",
    ),
    "tmax_T0": Choice(
        10_000,
        range=(3000, 30_000),
        basis="plausible",
        reason="the horizon in T_0 (the paper profile's 10^5 is the long end, 10x our run): from 3000 "
        "(the fit window [300, 3000] T_0 is still one decade) to 3 x ours",
    ),
    "slope_tol": Choice(
        SLOPE_CF,
        range=(0.025, 0.125),
        basis="plausible",
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
        basis="plausible",
        reason="'C1 -> 1 from above' fixes the lower end 0; how close at T_max is ours",
    ),
    "max_entry": Choice(
        MAX_ENTRY,
        range=(0.02, 0.1),
        basis="plausible",
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
        r = E.scalar_curve(_curve(D, K, eta, v2, act, tt, T0 if step_decay else 0.0))
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
        basis="plausible",
        reason="the paper's step is not recovered; halved or doubled, every end below the stable step "
        "of every example (0.25, the group-sparse example at ||V*||_F = 8)",
    ),
    "vnorm": Choice(
        8.0,
        range=(4.0, 12.0),
        basis="plausible",
        reason="||V*||_F is not fixed by the paper; 12 is near the largest keeping eta = 0.1 below the "
        "group-sparse example's stable step (2 D K/||V*||_F^2 > 0.1 needs ||V*||_F < 12.6)",
    ),
    "tmax_T0": Choice(
        10_000,
        range=(3000, 30_000),
        basis="plausible",
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
        points += [(f"{name} D={D} K={K} {act}", _curve(D, K, eta, v2, act, tt, td)) for act in ACTS]
    res = ctx.map(E.scalar_curve, [p for _, p in points])
    curves, series = [], {}
    for (name, pt), r in zip(points, res, strict=True):
        fit = fit_decades(np.array(pt.times, float), np.array(r["excess"]))
        curves.append((name, B.RATE_EXPONENT, fit))
        series[f"{name}: t"], series[f"{name}: excess"] = list(pt.times), r["excess"]
    return worst_rate(curves, ctx.rule("slope_tol"), series=series)


_THM31_CONST_CHOICES = {
    "tmax_T0": Choice(
        3000,
        range=(1000, 9000),
        basis="plausible",
        reason="where T excess is read, in T_0: a third of ours to 3x (the paper profile's 3 10^4 is "
        "the long end)",
    ),
    "window_linear": Choice(
        CONST_2PC,
        options=((0.99, 1.01), (0.98, 1.02), (0.95, 1.05)),
        basis="plausible",
        reason="how close to the derived limit at a finite T_max: 1%, 2% (ours) or 5%",
    ),
    "window_leaky": Choice(
        Rule(
            (0.9, 1.1),
            "leaky ReLU: T excess(T) / constant within 10%",
            "attncheck (reconstructed expectation)",
        ),
        options=((0.95, 1.05), (0.9, 1.1), (0.8, 1.2)),
        basis="plausible",
        reason="leaky ReLU approaches the limit more slowly: 5%, 10% (ours) or 20%",
    ),
}


@claim(
    "zhang2026.thm31.const",
    Source(
        "derivation Sect. 6.3 (tail constant of the reference model; not a paper claim)", Provenance.DERIVED
    ),
    kind=Kind.UPPER,
    statement="T * excess(T) -> D K (D-K) / (4 eta) (linear: within 2% at 10^4 T_0; leaky ReLU within 10%)",
    assumptions=("uniform-K S*, K < D", "zero init", "P^T P = I, 1/sqrt(D) logits"),
    profiles=Profiles(quick=dict(eta=0.1, vnorm=8.0), paper=dict(tmax_T0=30_000)),
    expect=Expect(consistency=True),
    choices=_THM31_CONST_CHOICES,
    report=Report(
        r"$T\,\mathcal{E}(T)\to DK(D-K)/(4\eta)$: within 2\% for linear $\sigma$ and within 10\% for "
        r"leaky ReLU at $T_{\max}$",
        Plot(
            x="D",
            curves=[("ratio_linear", r"linear $\sigma$"), ("ratio_leaky", r"leaky ReLU $\sigma$")],
            band=(0.98, 1.02),
            theory_label=r"theory: $1\pm2\%$ (linear $\sigma$)",
            xlabel="$D$",
            ylabel=r"$T\,\mathcal{E}(T)\,/\,(DK(D-K)/4\eta)$",
        ),
    ),
)
def thm31_const(ctx: Ctx, *, eta: float, vnorm: float, tmax_T0: int) -> Evidence:
    """Consistency check (derivation against code): the limit is an asymptotic consequence of our own
    model and parametrisation (P^T P = I, 1/sqrt(D) logits; derivation Sect. 6.3), not a statement of
    the paper, so only a wrong derivation or a bug can fail it. DERIVED: lim T * excess(T) =
    bounds.zhang2026.tail_constant(D, K, eta). Measured T_max *
    excess(T_max), T_max = tmax_T0 * T_0. Pass: the ratio in rule ``window_linear`` (linear) or
    ``window_leaky`` (leaky ReLU), (D, K) in {(8, 2), (12, 3), (16, 4)}. Headline: the ratio furthest
    from its window's centre. Deterministic."""
    v2 = vnorm**2
    points = []
    for _, D, K in CIRCULANT:
        t_max = int(tmax_T0 * E.onset(D, K, eta, 1.0, v2))
        points += [_curve(D, K, eta, v2, act, np.array([t_max // 10, t_max])) for act in ACTS]
    res = ctx.map(E.scalar_curve, points)
    parts, series = RateParts(), {"D": [], "ratio_linear": [], "ratio_leaky": []}
    for pt, r in zip(points, res, strict=True):
        c = to_float(B.tail_constant(pt.D, pt.K, eta))
        ratio = pt.times[-1] * r["excess"][-1] / c
        parts.window(
            f"D={pt.D} K={pt.K} {pt.act}: T_max excess(T_max) / (D K (D-K)/(4 eta)) [constant {c:g}]",
            ratio,
            *ctx.rule(f"window_{pt.act}"),
        )
        series[f"ratio_{pt.act}"].append(ratio)
        if pt.act == "linear":
            series["D"].append(pt.D)
    return parts.evidence(headline=parts.worst_name(), series=series)


_THM31_BOUNDS_CHOICES = {
    "eta": Choice(
        0.1,
        range=(0.05, 0.2),
        basis="plausible",
        reason="the paper's step is not recovered; halved or doubled, below the group-sparse example's "
        "stable step 0.25",
    ),
    "vnorm": Choice(
        8.0,
        range=(2.0, 12.0),
        basis="plausible",
        reason="||V*||_F is not fixed by the paper (the errata sweep 1 to 32); 12 keeps eta = 0.1 "
        "below the group-sparse stable step",
    ),
    "tmax_T0": Choice(
        1000,
        range=(300, 10_000),
        basis="plausible",
        reason="the horizon in T_0: from 300 to the paper profile's 10^4",
    ),
    "start_T0": Choice(
        Rule(
            10, "the envelope is judged on [start_T0 T_0, T_max] (T >= T*)", "reconstruction pass criterion"
        ),
        range=(3, 100),
        basis="plausible",
        reason="our proxy for the paper's T* (not recovered) in units of T_0: a reader may put the "
        "start of the Theta(1/T) regime anywhere from a few T_0 to 100 T_0",
    ),
    "max_over_min": Choice(
        Rule(3.0, "max / min of T excess(T) on that range", "reconstruction pass criterion"),
        range=(2.0, 5.0),
        basis="plausible",
        reason="the ratio c_hi / c_lo the paper's constants allow is not recovered; 2 to 5",
    ),
    "envelope": Choice(
        Rule((0.5, 2.0), "min and max of T excess / derived constant", "reconstruction pass criterion"),
        options=((0.5, 2.0), (0.25, 4.0)),
        basis="plausible",
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
        points += [(name, T0, _curve(D, K, eta, v2, act, tt, T0 if step_decay else 0.0)) for act in ACTS]
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


_THM31_DEXP_CHOICES = {
    "K": Choice(
        2,
        options=(2, 4),
        basis="plausible",
        reason="any fixed K; K = 1 would leave the stable range at D = 32 (2 K/D = 0.0625 < eta)",
    ),
    "eta": Choice(
        0.1,
        range=(0.05, 0.12),
        basis="plausible",
        reason="the constant is derived for any stable step; from half ours to just below the stable "
        "step 2 K/D = 0.125 at D = 32",
    ),
    "vnorm": Choice(
        8.0,
        range=(4.0, 16.0),
        basis="plausible",
        reason="||V*||_F is not fixed by the paper and the limit does not depend on it; 16 keeps eta "
        "below the stable step at D = 8 (0.125)",
    ),
    "tmax_T0": Choice(
        2000,
        range=(1000, 6000),
        basis="plausible",
        reason="where T excess is read, in T_0: from 1000 to 3 x ours (the paper profile's 10^4 is "
        "the long end)",
    ),
    "window": Choice(
        CONST_2PC,
        options=((0.99, 1.01), (0.98, 1.02), (0.95, 1.05)),
        basis="plausible",
        reason="how close to the derived limit at a finite T_max: 1%, 2% (ours) or 5%",
    ),
}


@claim(
    "zhang2026.thm31.Dexp",
    Source("Thm 3.1(c) D-dependence (secondary note: K D^4); derivation Sect. 6.3", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="lim T excess = D K (D-K) / (4 eta) across D (local exponent ~2 in D), not K D^4",
    assumptions=("uniform-K S*, K fixed", "P^T P = I"),
    profiles=Profiles(quick=dict(p_norm="unit"), paper=dict(tmax_T0=10_000)),
    expect=Expect(consistency=True),
    choices=_THM31_DEXP_CHOICES,
    report=Report(
        r"$\lim_T T\,\mathcal{E}(T)=DK(D-K)/(4\eta)$ across $D$ (local exponent near $2$ in $D$), not "
        r"$KD^4$ (secondary note)",
        Plot.rate(
            2.0,
            "D",
            [("T_excess", r"measured $T\,\mathcal{E}(T)$ at $T_{\max}$")],
            "$D$",
            r"$T\,\mathcal{E}(T)$",
            theory_label="reference slope $2$ ($D^2$)",
        ),
    ),
)
def thm31_Dexp(ctx: Ctx, *, K: int, eta: float, vnorm: float, tmax_T0: int, p_norm: str) -> Evidence:
    """DERIVED constant vs the secondary note's Theta(K D^4 / (eta T)) [S]. Pass: T_max excess(T_max) /
    bounds.zhang2026.tail_constant in rule ``window`` for D in {8, 12, 16, 24, 32} (headline: the ratio
    furthest from 1). The fitted log-log exponent of the measured constants in D (t-CI) is reported
    against NOTE_D_EXPONENT = 4. ``p_norm``: "unit" (P^T P = I, ours) or "inv_D" (P^T P = I/D: logit
    gain 1/D^2, derivation Sect. 6.3: the limit is then D^3 K (D-K)/(4 eta), the note's order).
    Deterministic. Consistency check: the constant is our derivation's limit of the scalar reduction we
    integrate, so the claim tests the integration against our own closed form; the comparison with the
    paper note's K D^4 is zhang2026.note.KD4."""
    if p_norm not in ("unit", "inv_D"):
        raise ValueError(f"p_norm must be 'unit' or 'inv_D', got {p_norm!r}")
    Ds = [8, 12, 16, 24, 32]
    v2 = vnorm**2
    gains = [1.0 if p_norm == "unit" else 1.0 / D**2 for D in Ds]
    t_max = [int(tmax_T0 * E.onset(D, K, eta, 1.0, v2)) for D in Ds]
    lim = tail_limits(ctx, Ds, K, eta, v2, t_max, gains)
    parts = RateParts()
    for D, v in zip(Ds, lim, strict=True):
        c = to_float(B.tail_constant(D, K, eta))
        parts.window(f"D={D}: T excess / (D K (D-K)/(4 eta))", v / c, *ctx.rule("window"))
    fit = fit_loglog(np.array(Ds, float), np.array(lim))
    note = (
        f"fitted exponent of the limit in D (K={K}, D=8..32): {fit.slope:.3f}, 95% CI "
        f"[{fit.lo:.3f}, {fit.hi:.3f}]; the note's exponent {B.NOTE_D_EXPONENT:g} is "
        f"{'inside' if fit.contains(B.NOTE_D_EXPONENT) else 'outside'} it. D(D-K) has local exponent "
        f"{math.log(32 * 30 / 48) / math.log(4):.3f} over 8..32: the model supports ~D^2 (with P^T P = I)"
    )
    return parts.evidence(headline=parts.worst_name(), notes=[note], series={"D": Ds, "T_excess": lim})


_THM31_TSTAR_CHOICES = {
    "K": Choice(
        2,
        options=(2, 4),
        basis="plausible",
        reason="any fixed K; K = 1 would leave the stable range at D = 256 (2 K/D < eta_D)",
    ),
    "eta": Choice(
        0.1,
        range=(0.05, 0.2),
        basis="plausible",
        reason="the step of the ||V*|| sweep at D = 8 (not recovered): halved or doubled, below its "
        "stable step 0.5",
    ),
    "eta_D": Choice(
        0.01,
        range=(0.005, 0.015),
        basis="plausible",
        reason="the step of the D sweep: from the paper profile's 0.005 to just below the stable step "
        "2 K/D_max = 0.0156",
    ),
    "vnorm_D": Choice(
        16.0,
        range=(8.0, 32.0),
        basis="plausible",
        reason="||V*||_F of the D sweep, not fixed by the paper: halved or doubled (the logits dominate "
        "the onset for large D and small ||V*||, errata)",
    ),
    "D_max": Choice(
        256,
        range=(128, 362),
        basis="plausible",
        reason="the end of the D range (the asymptotic regime is large D): from 128 to 362 (half an "
        "octave more, about 3x the cost; the paper profile's 512 is the long end)",
    ),
    "vnorm_min": Choice(
        0.125,
        range=(0.0625, 0.5),
        basis="plausible",
        reason="the small end of the ||V*||_F sweep (the asymptotic regime is small ||V*||): from 0.5 to "
        "the paper profile's 0.0625",
    ),
    "horizon_T0": Choice(
        30.0,
        range=(10.0, 100.0),
        basis="plausible",
        reason="how long after T_0 the 1/T regime must hold to count as started: 10 to 100 T_0",
    ),
    "onset_slope": Choice(
        Rule(-0.9, "the 1/T regime starts once the factor-2 local slope stays at or below this"),
        range=(-0.95, -0.8),
        basis="plausible",
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
        basis="plausible",
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
