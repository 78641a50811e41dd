"""The paper's own training protocol (online mini-batch SGD with label noise) and the stability of the
symmetric reduction from a small non-zero, non-symmetric initialisation. Every other tail claim runs
population GD from exactly zero init, where the (C1, g) reduction is exact."""

from __future__ import annotations

import numpy as np

from bounds import zhang2026 as B
from bounds.mp import to_float
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
    SeedPlan,
    Seeds,
    Source,
    claim,
)
from verify.zhang2026 import experiments as E
from verify.zhang2026.claims.common import (
    CONST_CHOICE,
    DECAY_WORLD,
    MAX_ENTRY_CHOICE,
    SGD_BATCH,
    SGD_TMAX_T0,
    SGD_VNORM,
    SLOPE_CF_CHOICE,
    SLOPE_MC_CHOICE,
    RateParts,
    fit_decades,
    rate_times,
)

_PROTOCOL_CHOICES = {
    "eta": Choice(
        0.1,
        range=(0.05, 0.15),
        reason="the step is ours: half to 1.5x (stable step 2 min(K/D, D K/||V*||_F^2) = 1.0)",
    ),
    "vnorm": SGD_VNORM,
    "batch": SGD_BATCH,
    "tau": Choice(
        0.1,
        range=(0.03, 0.3),
        reason="the label noise level is not recovered: 0.03 to 0.3 of a unit-variance input",
    ),
    "tmax_T0": SGD_TMAX_T0,
    "slope_tol": SLOPE_MC_CHOICE,
    "max_entry": MAX_ENTRY_CHOICE,
    "value_err": Choice(
        Rule(0.05, "||W_V - V*||_F / ||V*||_F at T_max, worst seed", "same scale as max_entry"),
        range=(0.02, 0.1),
        reason="what 'W_V -> V*' asks at a finite T_max: 2% to 10% relative",
    ),
}


@claim(
    "zhang2026.protocol",
    Source(
        "Thm 3.1(a)-(c) under the experiments' protocol (online mini-batches, Gaussian label noise; "
        "Fig. 2(a))",
        Provenance.RECONSTRUCTED,
    ),
    kind=Kind.UPPER,
    statement="trained by online mini-batch SGD on noisy labels, the excess decays as T^-1 and the model "
    "recovers V* and S*",
    assumptions=("Gaussian inputs and label noise", "linear sigma", "zero init"),
    profiles=Profiles(
        quick=dict(D=4, K=2, M=2, d=3, step_decay=False), paper=dict(D=8, vnorm=8.0, batch=1000)
    ),
    seeds=SeedPlan(Seeds.POOLED),
    alternative=Alternative(world="online SGD, " + DECAY_WORLD, overrides={"step_decay": True}),
    choices=_PROTOCOL_CHOICES,
    report=Report(
        r"trained by online mini-batch SGD on noisy labels, $\mathcal{E}(T)\sim T^{-1}$ and the model "
        r"recovers $V^*$ and $S^*$",
        Plot.rate(
            -1.0,
            "t",
            [("excess", "online SGD, label noise")],
            "SGD steps $T$",
            r"excess loss $\mathcal{E}(T)$",
        ),
    ),
)
def protocol(
    ctx: Ctx,
    *,
    D: int,
    K: int,
    M: int,
    d: int,
    eta: float,
    vnorm: float,
    batch: int,
    tau: float,
    tmax_T0: int,
    step_decay: bool,
) -> Evidence:
    """Thm 3.1 [P] under our reconstruction of the paper's experimental protocol (RECONSTRUCTED: the notes
    [S] say online mini-batches with label noise; the batch, noise level, sizes and steps are ours, and
    the reviews do not state the protocol): online SGD
    (:func:`~.experiments.sgd_curve`: a fresh batch of ``batch`` Gaussian inputs per step, labels
    V* X S* + N(0, tau^2) noise) from zero init, circulant (D, K) teacher, one problem and batch stream
    per seed. Rate rule (tolerance ``slope_tol``), pooled over the seeds, on the population excess of the
    iterates at T_0 10^(k/4) from 10 T_0 to tmax_T0 T_0 (label noise leaves an SGD floor ~ eta tau^2 /
    batch, far below the excess there); at every seed max |A - S*| <= ``max_entry`` and
    ||W_V - V*|| / ||V*|| <= ``value_err`` at T_max. Headline: the rate. ``step_decay``: the alternative
    world (the step decays like (1 + t/T_0)^-1/2)."""
    T0 = E.onset(D, K, eta, 1.0, vnorm**2)
    tt = rate_times(T0, 10, tmax_T0)
    td = T0 if step_decay else 0.0
    pts = [
        E.SgdPoint(s, "gaussian", D, K, M, d, eta, vnorm, batch, tau, tuple(int(t) for t in tt), td)
        for s in ctx.seed_set
    ]
    res = ctx.map(E.sgd_curve, pts)
    ex = np.array([r["excess"] for r in res]).T
    parts = RateParts()
    name = f"excess ~ T^p (online SGD, batch {batch}, label noise {tau:g})"
    parts.rate(name, fit_decades(tt, ex), B.RATE_EXPONENT, ctx.rule("slope_tol"))
    parts.tol(
        "max |A - S*| at T_max, worst seed", max(r["max_entry"][-1] for r in res), ctx.rule("max_entry")
    )
    parts.tol(
        "||W_V - V*|| / ||V*|| at T_max, worst seed",
        max(r["value_err"][-1] for r in res),
        ctx.rule("value_err"),
    )
    ratio = tt[-1] * ex[-1] / to_float(B.tail_constant(D, K, eta))
    note = "T_max excess / D K (D-K)/(4 eta) per seed (not judged): " + ", ".join(f"{v:.4f}" for v in ratio)
    return parts.evidence(notes=[note], series={"t": tt.tolist(), "excess": ex.tolist()})


_ASYM_INIT_CHOICES = {
    "eta": Choice(
        0.1, range=(0.05, 0.2), reason="the step is ours: halved or doubled, below the stable step 0.5"
    ),
    "vnorm": Choice(
        8.0,
        range=(6.0, 12.0),
        reason="||V*||_F is ours: 6 (1.8x the steps) to 12 (stable step 2 D K/||V*||_F^2 = 0.22)",
    ),
    "scale": Choice(
        0.1,
        range=(0.01, 0.3),
        reason="'small' init (the premise: well below the teacher's scale): 1% to 30% of ||V*||_F",
    ),
    "tmax_T0": Choice(
        1000,
        range=(300, 3000),
        reason="the horizon in T_0: a third of ours to 3x (the paper profile's 10^4 is the long end)",
    ),
    "slope_tol": SLOPE_CF_CHOICE,
    "const": CONST_CHOICE,
    "vs_reduction": Choice(
        Rule(0.01, "|excess / excess of the zero-init reduction - 1| at T_max, worst seed"),
        range=(0.003, 0.03),
        reason="how close to the zero-init reduction at T_max: 0.3% to 3%",
    ),
    "spread_decay": Choice(
        Rule(0.5, "within-column spread of the attention at T_max / at 10 T_0 (it decays), worst seed"),
        range=(0.25, 0.75),
        reason="how much the off-support spread must fall from 10 T_0 to T_max: to 1/4 to 3/4",
    ),
    "resid": Choice(
        Rule(1e-10, "Lemma C.2 residual at T_max, worst seed (round-off level)"),
        range=(1e-11, 1e-8),
        reason="a round-off margin for the Lemma C.2 residual at T_max: 10x tighter to 100x looser; the "
        "measured residual (1e-5 at 10 T_0, at most 2.9e-16 at T_max, seeds 0-2) stays far below the "
        "tight end, and the loose end still asks it to fall three decades from 10 T_0",
    ),
}


@claim(
    "zhang2026.asym_init",
    Source(
        "Thm 3.1 beyond its zero initialisation (the stability of the reduction, derivation Sect. 4.4)",
        Provenance.DERIVED,
    ),
    kind=Kind.UPPER,
    statement="from a small non-zero, non-symmetric init, full-matrix GD approaches the symmetric two-level "
    "dynamics: excess ~ T^-1 with the same constant, W_V re-aligns with V*, the attention's spread within "
    "the support and off it decays",
    assumptions=("linear sigma", "Gaussian inputs", "init scale well below the teacher's"),
    profiles=Profiles(quick=dict(D=8, K=2, M=2, d=3, step_decay=False), paper=dict(tmax_T0=10_000)),
    seeds=SeedPlan(Seeds.POOLED),
    alternative=Alternative(world=DECAY_WORLD, overrides={"step_decay": True}),
    choices=_ASYM_INIT_CHOICES,
    report=Report(
        r"from a small non-zero, non-symmetric initialisation, full-matrix GD approaches the symmetric "
        r"two-level dynamics: $\mathcal{E}(T)\sim T^{-1}$ with the same constant, $W_V$ re-aligns with "
        r"$V^*$, the attention's spread decays",
        Plot.rate(
            -1.0,
            "t",
            [("excess", "non-symmetric initialisation")],
            "GD steps $T$",
            r"excess loss $\mathcal{E}(T)$",
        ),
    ),
)
def asym_init(
    ctx: Ctx,
    *,
    D: int,
    K: int,
    M: int,
    d: int,
    eta: float,
    vnorm: float,
    scale: float,
    tmax_T0: int,
    step_decay: bool,
) -> Evidence:
    """DERIVED prediction (the zero-init reduction is exact; is it stable?). Per seed: population GD of
    the full matrix model (:func:`~.experiments.asym_curve`) from W_V(0) = scale ||V*||_F Z/||Z||
    and iid N(0, scale^2) logits, circulant (D, K) teacher. Rate rule (tolerance ``slope_tol``) pooled
    over seeds on the excess at T_0 10^(k/4) from 10 T_0; seed mean of T_max excess / tail_constant in
    ``const``; at every seed: the excess within ``vs_reduction`` of the zero-init (C1, g) reduction at
    T_max, the Lemma C.2 residual within ``resid``, and the largest within-column relative spread of the
    off-support attention at T_max at most ``spread_decay`` times its value at 10 T_0 (the on-support
    spread is reported). Headline: the rate. ``step_decay``: the alternative world (the step decays like
    (1 + t/T_0)^-1/2; the zero-init reduction it is compared with runs the same schedule)."""
    T0 = E.onset(D, K, eta, 1.0, vnorm**2)
    tt = rate_times(T0, 10, tmax_T0)
    td = T0 if step_decay else 0.0
    pts = [E.AsymPoint(s, D, K, M, d, eta, vnorm, scale, tuple(int(t) for t in tt), td) for s in ctx.seed_set]
    res = ctx.map(E.asym_curve, pts)
    ex = np.array([r["excess"] for r in res]).T
    red = E.scalar_run(D, K, eta, tt, 1.0, vnorm**2, t_decay=td).excess[-1]
    parts = RateParts()
    parts.rate("excess ~ T^p", fit_decades(tt, ex), B.RATE_EXPONENT, ctx.rule("slope_tol"))
    c = to_float(B.tail_constant(D, K, eta))
    parts.window(
        "T_max excess / (D K (D-K)/(4 eta)), seed mean",
        float(np.mean(tt[-1] * ex[-1] / c)),
        *ctx.rule("const"),
    )
    dev = float(np.max(np.abs(ex[-1] / red - 1)))
    parts.tol("|excess / zero-init reduction - 1| at T_max, worst seed", dev, ctx.rule("vs_reduction"))
    parts.tol("Lemma C.2 residual at T_max, worst seed", max(r["resid"][-1] for r in res), ctx.rule("resid"))
    decay = max(r["spread_off"][-1] / r["spread_off"][0] for r in res)
    parts.tol("off-support spread at T_max / at 10 T_0, worst seed", decay, ctx.rule("spread_decay"))
    notes = [
        f"seed {s}: off-support spread {r['spread_off'][0]:.3g} -> {r['spread_off'][-1]:.3g}, on-support "
        f"{r['spread_on'][0]:.3g} -> {r['spread_on'][-1]:.3g}, residual {r['resid'][0]:.2e} -> "
        f"{r['resid'][-1]:.2e}"
        for s, r in zip(ctx.seed_set, res, strict=True)
    ]
    return parts.evidence(notes=notes, series={"t": tt.tolist(), "excess": ex.tolist()})
