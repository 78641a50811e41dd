"""Beyond the theorem's assumptions (reviewers' questions): non-Gaussian inputs and non-uniform S*."""

from __future__ import annotations

import numpy as np

from bounds import zhang2026 as B
from bounds.mp import to_float
from verify.core import (
    FAILS,
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
from verify.zhang2026 import data as Da
from verify.zhang2026 import experiments as E
from verify.zhang2026.claims.common import (
    CONST_CHOICE,
    DECAY_WORLD,
    REDUCTION,
    SGD_BATCH,
    SGD_TMAX_T0,
    SGD_VNORM,
    SLOPE_CF_CHOICE,
    SLOPE_MC_CHOICE,
    RateParts,
    fit_decades,
    rate_times,
)

_NONGAUSS_SOURCE = (
    "ICLR 2026 reviews of the paper (OpenReview forum ukiRIdgoIF), reviewer 1's question on "
    "non-Gaussian data; class (A)"
)
_NONGAUSS_CHOICES = {
    "eta": Choice(
        0.1,
        range=(0.05, 0.15),
        reason="the step is ours: from half to 1.5x (raw Gumbel runs at eta / 2 for the mean term's "
        "stability; the stable step without the mean is 1.0 here)",
    ),
    "vnorm": SGD_VNORM,
    "batch": SGD_BATCH,
    "tmax_T0": SGD_TMAX_T0,
    "slope_tol": SLOPE_MC_CHOICE,
    "const": Choice(
        Rule(
            (0.9, 1.1),
            "online SGD at 10^3 T_0: mean over seeds of T_max excess / constant within 10% (population GD is "
            "within 1-5% there)",
            "reconstruction pass criterion (its Monte Carlo-level window for constants)",
        ),
        options=((0.95, 1.05), (0.9, 1.1), (0.8, 1.2)),
        reason="the Monte Carlo-level window for a constant at a finite T_max: 5%, 10% (ours) or 20%",
    ),
    "kinds": Choice(
        ("t5", "gumbel_raw"),
        options=(("t5", "gumbel_raw"), ("t5", "gumbel", "gumbel_raw")),
        reason="reviewer 1 names t and Gumbel data without degrees of freedom or centring: the laws "
        "of the statement (standardised t(5), raw Gumbel), or with the centred, standardised Gumbel "
        "too (the paper profile's set; 1.5x the cost)",
    ),
    "misaligned": Choice(
        Rule(1e-3, "raw Gumbel: alignment residual at t = 1 at least this (Lemma C.2 broken)"),
        range=(1e-4, 1e-2),
        reason="how large a residual 'breaks' the alignment (round-off is 1e-16): 1e-4 to 1e-2",
    ),
}


@claim(
    "zhang2026.nongauss",
    Source(
        "reviewer 1 (t / Gumbel data); beyond Thm 3.1's Gaussian inputs; derivation Sect. 6.7",
        Provenance.QUESTION,
        quote=_NONGAUSS_SOURCE,
    ),
    kind=Kind.UPPER,
    statement="trained by online SGD on standardised t(5) or raw (non-centred) Gumbel inputs, the excess "
    "still decays as T^-1 with the Gaussian tail constant D K (D-K)/(4 eta); raw Gumbel breaks the Lemma "
    "C.2 alignment at t = 1",
    assumptions=("iid entries, finite variance", "linear sigma", "eta below the mean-term stability limit"),
    profiles=Profiles(
        quick=dict(D=4, K=2, M=2, d=3, step_decay=False),
        paper=dict(D=8, vnorm=8.0, batch=1000, kinds=("t5", "gumbel", "gumbel_raw")),
    ),
    seeds=SeedPlan(Seeds.POOLED),
    alternative=Alternative(world="online SGD, " + DECAY_WORLD, overrides={"step_decay": True}),
    choices=_NONGAUSS_CHOICES,
    report=Report(
        r"trained by online SGD on standardised $t(5)$ or raw (non-centred) Gumbel inputs, "
        r"$\mathcal{E}(T)\sim T^{-1}$ with the Gaussian constant $DK(D-K)/(4\eta)$; raw Gumbel breaks "
        r"Lemma C.2's alignment at $t=1$",
        Plot.rate(
            -1.0,
            "t5_t",
            [
                ("t5_excess_first", "$t(5)$ inputs, first seed"),
                dict(y="gumbel_raw_excess_first", x="gumbel_raw_t", label="raw Gumbel inputs, first seed"),
            ],
            "SGD steps $T$",
            r"excess loss $\mathcal{E}(T)$",
        ),
    ),
)
def nongauss(
    ctx: Ctx,
    *,
    D: int,
    K: int,
    M: int,
    d: int,
    eta: float,
    vnorm: float,
    batch: int,
    tmax_T0: int,
    kinds: tuple[str, ...],
    step_decay: bool,
) -> Evidence:
    """Reviewer 1's question (QUESTION: not the paper's statement); our DERIVED prediction (linear
    sigma: only the inputs' mean and variance enter the population loss).
    Per input law and seed of the set: online SGD (:func:`~.experiments.sgd_curve`, a fresh batch
    of ``batch`` inputs per step, noise-free labels) from zero init, step eta (eta / 2 for non-centred
    laws, for the stability of the mean term), the population excess of each iterate at T_0 10^(k/4)
    from 10 T_0 to tmax_T0 T_0 (T_0 at the law's variance). Per law: the rate rule (tolerance
    ``slope_tol``) pooled over the seeds against RATE_EXPONENT; the seed mean of T_max excess /
    tail_constant(D, K, step) in ``const``; for non-centred laws the Lemma C.2 residual at t = 1 at
    least ``misaligned`` at every seed. Headline: the least favourable rate. ``step_decay``: the
    alternative world (the step decays like (1 + t/T_0)^-1/2)."""
    parts, notes, series = RateParts(), [], {}
    for kind in kinds:
        mu, var = Da.input_moments(kind)
        step = eta if mu == 0 else eta / 2
        T0 = E.onset(D, K, step, var, vnorm**2)
        tt = rate_times(T0, 10, tmax_T0)
        times, td = (1, *(int(t) for t in tt)), T0 if step_decay else 0.0
        pts = [E.SgdPoint(s, kind, D, K, M, d, step, vnorm, batch, 0.0, times, td) for s in ctx.seed_set]
        res = ctx.map(E.sgd_curve, pts)
        ex = np.array([r["excess"][1:] for r in res]).T
        parts.rate(
            f"{kind}: excess ~ T^p (online SGD, batch {batch})",
            fit_decades(tt, ex),
            B.RATE_EXPONENT,
            ctx.rule("slope_tol"),
        )
        ratio = tt[-1] * ex[-1] / to_float(B.tail_constant(D, K, step))
        parts.window(
            f"{kind}: T_max excess / (D K (D-K)/(4 eta)), seed mean", float(ratio.mean()), *ctx.rule("const")
        )
        resid1 = [r["resid"][0] for r in res]
        if mu != 0:
            parts.atleast(
                f"{kind}: Lemma C.2 residual at t = 1, smallest over seeds",
                min(resid1),
                ctx.rule("misaligned"),
            )
        notes.append(
            f"{kind} (mean {mu:.4g}, variance {var:.4g}, step {step:g}): T_max excess / constant per seed "
            + ", ".join(f"{v:.4f}" for v in ratio)
            + f"; Lemma C.2 residual at t = 1: {max(resid1):.2e} (max), at T_max: "
            + f"{max(r['resid'][-1] for r in res):.2e}"
        )
        series[f"{kind}_t"], series[f"{kind}_excess_first"] = tt.tolist(), ex[:, 0].tolist()
    return parts.evidence(notes=notes, series=series)


_NONUNIFORMS_SOURCE = (
    "ICLR 2026 reviews of the paper (OpenReview forum ukiRIdgoIF), reviewer 4's question on a "
    "non-uniform S*; class (A)"
)
_NONUNIFORMS_CHOICES = {
    "eta": Choice(
        0.1,
        range=(0.05, 0.2),
        reason="the step is ours: halved or doubled, below the stable step of the 3-support (0.75)",
    ),
    "vnorm": Choice(8.0, range=(4.0, 12.0), reason="||V*||_F is ours: half (4x the steps) to 1.5x"),
    "tmax_T0": Choice(
        3000,
        range=(1000, 9000),
        reason="the horizon of (a) in T_0: from 1000 to 3x ours (the paper profile's 3 10^4 is the long end)",
    ),
    "steps_dense": Choice(
        5000,
        range=(3000, 15_000),
        reason="the budget of (b) (about 3400 steps reach 1e-12, errata): 3000 to 3x ours",
    ),
    "steps_floor": Choice(
        3000, range=(1000, 9000), reason="where the gap to the floor of (c) is read: a third of ours to 3x"
    ),
    "slope_tol": SLOPE_CF_CHOICE,
    "const": CONST_CHOICE,
    "dense_below": Choice(
        Rule(1e-12, "dense S*: the excess counts as reached 0 below this", "reconstruction pass criterion"),
        range=(1e-13, 1e-9),
        reason="'converges exponentially' read as reaching this excess within the budget: 1e-13 "
        "(near round-off) to 1e-9",
    ),
    "gap_ratio": Choice(
        Rule(0.5, "gap to the floor at steps_floor at most this times the gap at steps_floor / 10"),
        range=(0.25, 0.75),
        reason="how much the gap to the floor must shrink over a decade of steps: 1/4 to 3/4",
    ),
    "reduction": Choice(
        REDUCTION,
        range=(1e-10, 1e-7),
        reason="a round-off margin for the full matrix against the circulant reduction of (a): 10x "
        "tighter to 100x looser; the measured deviation (at most 3.6e-15, seeds 0-2) stays far below the "
        "tight end, and 1e-7 still tells an exact reduction from an approximate one",
    ),
    "below_floor": Choice(
        Rule(1e-9, "relative amount GD may go below the minimised floor (optimiser round-off)"),
        range=(1e-10, 1e-7),
        reason="the optimiser's round-off allowed below the L-BFGS floor of (c): 10x tighter to 100x "
        "looser; GD ends above the floor (relative excess below it 0 at seeds 0-2), and 1e-7 is still "
        "far below any real crossing of a floor of order 1",
    ),
}


@claim(
    "zhang2026.nonuniformS",
    Source(
        "reviewer 4 (non-uniform S); derivation Sect. 6.8", Provenance.QUESTION, quote=_NONUNIFORMS_SOURCE
    ),
    kind=Kind.UPPER,
    statement="non-uniform S*: weighted K-support keeps Theta(1/T) and the constant; dense S* converges "
    "exponentially; unequal column sums leave a positive floor",
    assumptions=("linear sigma", "zero init"),
    profiles=Profiles(
        quick=dict(D=8, M=2, d=3, step_decay=False),
        paper=dict(tmax_T0=30_000, steps_dense=100_000, steps_floor=100_000),
    ),
    seeds=SeedPlan(Seeds.EVERY, batched=True),
    alternative=Alternative(world="(a) " + DECAY_WORLD, overrides={"step_decay": True}),
    choices=_NONUNIFORMS_CHOICES,
    report=Report(
        r"non-uniform $S^*$: a weighted $K$-support keeps $\Theta(1/T)$ and its constant, a dense $S^*$ "
        r"converges exponentially, unequal column sums leave a positive floor",
        Plot.rate(
            -1.0,
            "a_t",
            [("a_excess", r"weighted support $(0.6,0.3,0.1)$")],
            "GD steps $T$",
            r"excess loss $\mathcal{E}(T)$",
        ),
    ),
)
def nonuniformS(
    ctx: Ctx,
    *,
    D: int,
    M: int,
    d: int,
    eta: float,
    vnorm: float,
    tmax_T0: int,
    steps_dense: int,
    steps_floor: int,
    step_decay: bool,
) -> list[Evidence]:
    """Reviewer 4's question (QUESTION: not the paper's statement); our DERIVED predictions for it, at
    every seed (V*, P, the dense S* and the column
    sums are drawn). (a) weights (0.6, 0.3, 0.1) on a circulant 3-support (one-column reduction, checked
    against the full matrix within rule ``reduction``): rate rule (tolerance ``slope_tol``) on the excess
    at T_0 10^(k/4) from 100 T_0 (after a transient bump of the local slope, -1.03 to -1.06, near 10^2
    T_0, while the smallest weight's entry catches up) to tmax_T0 T_0; T_max excess / tail_constant(D,
    [3]*D, eta) in
    ``const``. (b) dense positive column-stochastic S*: excess below ``dense_below`` within steps_dense
    steps. (c) column sums in [0.7, 1.3]: the closed form has a floor > 0 (L-BFGS from several starts);
    GD never goes below it (``below_floor``) and its gap at steps_floor is at most ``gap_ratio`` times the
    gap at steps_floor / 10. Full-matrix GD. Headline: the rate of (a). ``step_decay``: the alternative
    world (the step of (a) decays like (1 + t/T_0)^-1/2). Batched: the runs of every seed in one
    computation (the L-BFGS floors of (c) per seed)."""
    T0 = E.onset(D, 3, eta, 1.0, vnorm**2)
    times = tuple(rate_times(T0, 100, tmax_T0).tolist())
    runs = E.nonuniform_runs(
        ctx, E.Size(D, 0, M, d), eta, vnorm, times, T0 if step_decay else 0.0, steps_dense,
        ctx.rule("dense_below"), steps_floor,
    )  # fmt: skip
    return [_nonuniform_evidence(ctx, D, eta, a, b, c, steps_dense, steps_floor) for a, b, c in runs]


def _nonuniform_evidence(
    ctx: Ctx,
    D: int,
    eta: float,
    a: E.Weighted,
    dense: tuple[float, float],
    floors: tuple[float, np.ndarray, float],
    steps_dense: int,
    steps_floor: int,
) -> Evidence:
    """nonuniformS's conditions (a), (b), (c) at one seed."""
    parts = RateParts()
    parts.tol(
        "(a) full-matrix vs circulant reduction over 300 steps (max |dA|, |dW_V|)",
        a.dev,
        ctx.rule("reduction"),
    )
    parts.rate(
        "(a) weighted support: excess ~ T^p",
        fit_decades(a.t.astype(float), a.excess),
        B.RATE_EXPONENT,
        ctx.rule("slope_tol"),
    )
    c = to_float(B.tail_constant(D, [3] * D, eta))
    parts.window(
        f"(a) T_max excess / sum K_i (D-K_i)/(4 eta) (= {c:g}), T_max = {a.t_max}",
        a.t_max * a.excess[-1] / c,
        *ctx.rule("const"),
    )
    series = {"a_t": a.t.tolist(), "a_excess": a.excess.tolist()}
    below = ctx.rule("dense_below")
    reached, final = dense
    parts.tol(
        f"(b) dense S*: steps until excess < {below:g} (final excess {final:.2e}), budget",
        reached,
        float(steps_dense),
    )
    floor, gaps, last = floors
    parts.atleast("(c) numerically minimised floor of the closed form", floor, 0.0)
    parts.tol(
        f"(c) GD below the minimised floor, (floor - GD) / floor [GD {last:.6g}, floor {floor:.6g}]",
        max(0.0, -float(gaps.min())),
        ctx.rule("below_floor"),
    )
    parts.tol(
        f"(c) GD converges to the floor: gap ratio (T = {steps_floor}) / (T = {steps_floor // 10}) "
        f"[gaps {gaps[0]:.3g}, {gaps[1]:.3g}]",
        float(gaps[1] / gaps[0]) if gaps[0] > 0 else FAILS,
        ctx.rule("gap_ratio"),
    )
    return parts.evidence(series=series)
