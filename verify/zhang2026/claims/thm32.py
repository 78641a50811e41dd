"""Theorem 3.2: out-of-distribution generalisation. The paper's eps(T) is NOT RECOVERED; what is checked is
our derived form L_OOD <= (sqrt(A_T) + sqrt(B(T)))^2 with B(T) = 1/2 E||f*(X~) - TF(X~)||^2, the rate of
B, and the rate of the OOD excess under the worst label law of the theorem's class (response columns
with bounded second moments, as the paper note states it), which attains that bound. The label law of
the paper's OOD figure is NOT RECOVERED."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from bounds import zhang2026 as B
from verify.core import (
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
from verify.zhang2026 import experiments as E
from verify.zhang2026.claims.common import MC_Z, NOTE, REVIEWS, SLOPE_MC, RateParts, fit_decades, rate_times

KINDS = ("exp", "exp_centred", "correlated")


class Curves(NamedTuple):
    """The checkpoints tt, the OOD curves per input kind, the teacher (V*, S*) and the trained run."""

    tt: np.ndarray
    by_kind: dict[str, E.OodCurves]
    V: np.ndarray
    S: np.ndarray
    run: E.ScalarRun


def _curves(
    ctx: Ctx,
    D: int,
    K: int,
    M: int,
    d: int,
    eta: float,
    vnorm: float,
    tmax_T0: int,
    N: int,
    tau: float,
    aligned: float = 1.0,
) -> Curves:
    """The trained run at T_0 10^(k/4), T in [10 T_0, tmax_T0 T_0], and the OOD curves per input kind on
    N samples common across checkpoints (problem from stream 1, samples from (2, kind)); ``aligned``:
    the share of the teacher's OOD loss in the worst law's aligned deviation
    (:func:`~verify.zhang2026.experiments.ood_curves`)."""
    S, V, _ = E.circulant_problem(ctx.rng(1), E.Size(D, K, M, d), vnorm)
    tt = rate_times(E.onset(D, K, eta, 1.0, vnorm**2), 10, tmax_T0)
    sc = E.scalar_run(D, K, eta, tt, 1.0, vnorm**2)
    by_kind = {
        kind: E.ood_curves(ctx, k, kind, (V, S, K, vnorm**2), sc, N, tau, aligned)
        for k, kind in enumerate(KINDS)
    }
    return Curves(tt, by_kind, V, S, sc)


_THM32_OOD_CHOICES = {
    "eta": Choice(
        0.1, range=(0.05, 0.2), reason="the step is ours: halved or doubled (stable step 0.5 at ||V*||_F = 4)"
    ),
    "vnorm": Choice(4.0, range=(2.0, 8.0), reason="||V*||_F is not fixed by the paper: halved or doubled"),
    "tau": Choice(
        0.5,
        range=(0.25, 1.0),
        reason="the OOD label noise, which sets the teacher's OOD loss A_T = 1/2 M D tau^2 (not "
        "recovered): halved or doubled",
    ),
    "N": Choice(
        20_000,
        range=(10_000, 60_000),
        reason="the Monte Carlo sample (the paper profile's 10^5 is the long end): half to 3x (the cost)",
    ),
    "tmax_T0": Choice(
        10_000,
        range=(3000, 30_000),
        reason="the horizon in T_0: from 3000 to 3x ours (the paper profile's 10^5 is the long end)",
    ),
    "slope_tol": Choice(
        SLOPE_MC,
        range=(0.05, 0.25),
        reason="the rate rule's half-width for Monte Carlo curves: from half ours to 0.25, half the "
        "distance between -1/2 and the competing -1",
    ),
    "attain": Choice(
        Rule(
            0.99,
            "the worst law's L_OOD - A_T over eps(T) = B + 2 sqrt(A_T B) at T_max, least over seeds: at "
            "most 1 by Cauchy-Schwarz on the sample, 1 - O(eps^2) for the aligned law; a deviation "
            "correlated with X~ but not aligned with the student's error (V* X~ 1 1^T / D) reaches 0.86 "
            "to 0.97",
            "attncheck",
        ),
        range=(0.95, 0.999),
        reason="'attains eps(T)' read as a ratio at least this at T_max (1 - O(eps^2) for the aligned "
        "law): 0.95 to 0.999",
    ),
}


@claim(
    "zhang2026.thm32.ood",
    Source(
        "Thm 3.2 ([S]: its class of OOD laws); Fig. 2(b) ([S]: late slope about -1/2); eps(T), B(T) "
        "and the worst label law: derivation Sect. 5.4",
        Provenance.DERIVED,
        quote="the OOD class (input and response columns with bounded second moments; labels need not come "
        "from the teacher) and the late OOD slope about -1/2 (Fig. 2(b)) are stated by "
        + NOTE
        + "; the exponential OOD data by reviewer 1 in "
        + REVIEWS,
    ),
    kind=Kind.UPPER,
    statement="over Thm 3.2's class of OOD laws, at the teacher's OOD loss A_T: the OOD gap B(T) = 1/2 "
    "E||f*(X~) - TF(X~)||^2 decays as T^-1 (teacher + independent-noise labels: L_OOD - A_T = B), and the "
    "class's worst label law (our construction: a fixed deviation from the teacher along the student's "
    "limiting error) "
    "attains our derived form of the theorem's slack, eps(T) = B + 2 sqrt(A_T B), and gives L_OOD - A_T ~ "
    "T^-1/2, the notes' late slope (the paper's own eps(T) and the label law of its Fig. 2(b) are not "
    "recovered)",
    assumptions=("linear sigma", "W_V = C1 V* (Lemma C.2)", "OOD inputs with finite second moments"),
    profiles=Profiles(quick=dict(D=8, K=2, M=2, d=3, aligned=1.0), paper=dict(N=100_000, tmax_T0=100_000)),
    seeds=SeedPlan(Seeds.POOLED),
    expect=Expect(consistency=True),
    choices=_THM32_OOD_CHOICES,
    report=Report(
        r"over Thm 3.2's class of OOD laws: the OOD gap $B(T)=\frac12\mathbb{E}\|f^*(\tilde X)-"
        r"\mathrm{TF}(\tilde X)\|^2$ decays like $T^{-1}$ (independent label noise: "
        r"$L_{\mathrm{OOD}}-A_T=B$); the class's worst label law (ours) attains our derived "
        r"$\epsilon(T)=B+2\sqrt{A_TB}$ and gives $L_{\mathrm{OOD}}-A_T\sim T^{-1/2}$ (the paper's "
        r"$\epsilon(T)$ and the label law of its Fig.~2(b) are not recovered)",
        Plot.rate(
            -1.0,
            "t",
            [
                ("exp_B", "Exp(1) tokens"),
                ("exp_centred_B", "centred Exp(1) tokens"),
                ("correlated_B", "AR(1) Gaussian tokens"),
            ],
            "GD steps $T$",
            r"OOD gap $B(T)$",
            title="independent labels",
        ),
        Plot(
            x="t",
            curves=[("exp_L_worst", r"$L_{\mathrm{OOD}}-A_T$, worst law, Exp(1) tokens")],
            theory="exp_eps",
            theory_label=r"$\epsilon(T)=B+2\sqrt{A_TB}$ (slope $-1/2$)",
            xlabel="GD steps $T$",
            ylabel=r"$L_{\mathrm{OOD}}-A_T$",
            logx=True,
            logy=True,
            title="worst label law of the class",
        ),
    ),
)
def thm32_ood(
    ctx: Ctx,
    *,
    D: int,
    K: int,
    M: int,
    d: int,
    eta: float,
    vnorm: float,
    tau: float,
    N: int,
    tmax_T0: int,
    aligned: float,
) -> Evidence:
    """Thm 3.2 [S] over its class of OOD laws (the note: input and response columns with bounded second
    moments); the rates and the worst law are DERIVED (derivation Sect. 5.4): B ~ excess_ID ~ 1/T, and
    f* - TF -> -eps V* X~ Q with eps ~ T^-1/2, so the fixed deviation h = -c V* X~ Q attains the
    Cauchy-Schwarz equality of L_OOD - A_T = B + <h, f* - TF> <= eps(T) := B + 2 sqrt(A_T B) (our derived
    slack; the paper's eps(T) is NOT RECOVERED) as T grows. The law is
    ours (the class does not name one; Fig. 2(b)'s label law and plotted quantity are NOT RECOVERED): it
    is the class's worst case at teacher OOD loss A_T = 1/2 M D tau^2. Per seed of the set: a problem and
    N OOD samples of X~ with iid Exp(1) (reviewer 1's OOD data), centred Exp(1) or AR(1)-correlated
    Gaussian tokens, at checkpoints T_0 10^(k/4) of the trained model. For each input law, pooled over
    the seeds: rate rule (tolerance ``slope_tol``) on the Monte Carlo B(T) (exponent
    OOD_SLOPE_INDEPENDENT) and on L_OOD - A_T under the worst law (:func:`~verify.zhang2026.experiments.
    ood_curves`, the share ``aligned`` of A_T in its deviation; exponent OOD_SLOPE_WORST); L_OOD - A_T
    over eps(T) at T_max at least ``attain`` at every seed. ``aligned`` = 0: teacher plus independent
    noise (also in the class; L_OOD - A_T = B ~ T^-1, far below eps(T)). Consistency check: the worst law
    is built along the student's limiting error, so its attaining eps(T) and its T^-1/2 follow from the
    construction; L_OOD - A_T <= eps(T) is Cauchy-Schwarz on the sample for every law of the class; and B
    is a quadratic form of the same parameter error as the in-distribution excess, whose T^-1 is
    zhang2026.thm31.rate. Headline: the least favourable rate. Reported: the slope of eps(T)
    and the paired estimate of L_OOD - A_T with independent label noise, which equals B in expectation
    but whose sample cross term <E, f* - TF> ~ eps / sqrt(N) bends its local slope toward -1/2 on a
    fixed test set."""
    per = [
        _curves(dataclasses.replace(ctx, seed=s), D, K, M, d, eta, vnorm, tmax_T0, N, tau, aligned)
        for s in ctx.seed_set
    ]
    tt = per[0].tt
    parts, tol, series = RateParts(), ctx.rule("slope_tol"), {"t": tt.tolist()}
    A_T = 0.5 * M * D * tau**2
    for kind in KINDS:
        b = np.array([c.by_kind[kind].B for c in per]).T
        parts.rate(f"{kind}: B(T) ~ T^p", fit_decades(tt, b), B.OOD_SLOPE_INDEPENDENT, tol)
        worst = np.array([c.by_kind[kind].L_worst for c in per]).T
        eps = np.array([c.by_kind[kind].eps for c in per]).T
        name = f"{kind}: L_OOD - A_T ~ T^p, share {aligned:g} of A_T = {A_T:g} aligned (1: the worst law)"
        parts.atleast(f"{kind}: min over checkpoints and seeds of that L_OOD - A_T", float(worst.min()), 0.0)
        if np.all(worst > 0):
            parts.rate(name, fit_decades(tt, worst), B.OOD_SLOPE_WORST, tol)
        ratio = float(np.min(worst[-1] / eps[-1]))
        parts.atleast(
            f"{kind}: that (L_OOD - A_T) / eps(T) at T_max = {int(tt[-1])}, least over seeds "
            f"(1 - ratio = {1.0 - ratio:.2e})",
            ratio,
            ctx.rule("attain"),
        )
        series |= {
            f"{kind}_B": b[:, 0].tolist(),
            f"{kind}_L_worst": worst[:, 0].tolist(),
            f"{kind}_eps": eps[:, 0].tolist(),
        }
        parts.notes.append(
            f"{kind}: eps(T) = B + 2 sqrt(A_T B), last local slope {fit_decades(tt, eps).local[-1]:.3f}"
        )
        la = np.array([c.by_kind[kind].L_minus_A for c in per]).T
        if np.all(la > 0):
            parts.notes.append(
                f"{kind}: paired estimate of L_OOD - A_T (independent noise, N={N}, not judged): "
                "local slopes " + ", ".join(f"{v:.3f}" for v in fit_decades(tt, la).local)
            )
    return parts.evidence(series=series, params=dict(T_max=int(tt[-1])))


_THM32_BOUNDS_CHOICES = {
    "mc_z": Choice(
        MC_Z,
        range=(3.0, 5.0),
        reason="how many standard errors a Monte Carlo value may miss the closed form: 3 to 5",
    ),
    "search": Choice(
        (1, 100),
        options=((1, 100), (3, 100), (1, 300)),
        reason="the worst-case search's budget (starts, L-BFGS-B iterations; the paper profile's "
        "(10, 300) is the long end): ours, 3 starts or 3x the iterations",
    ),
    "se_margin": Choice(
        Rule(3.0, "Monte Carlo values are compared with the bounds at mean + this many SE"),
        range=(2.0, 4.0),
        reason="the Monte Carlo margin (in standard errors) before comparing with a bound: 2 to 4",
    ),
}


@claim(
    "zhang2026.thm32.bounds",
    Source("Thm 3.2 ([S]); its bound and the forms of B: derivation Sect. 5.4", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="(i) L_OOD <= (sqrt(A_T) + sqrt(B))^2; (ii) B <= 1/2 ||V*||_op^2 ||S* - C1 A||_op^2 "
    "E||X~||_F^2; (iii) B = tr(V* Sigma V*^T) / (sx2 ||V*||^2) excess_ID + D/2 (1 - C1)^2 ||V* mu||^2 "
    "(iid tokens)",
    assumptions=("linear sigma", "W_V = C1 V* (Lemma C.2)", "OOD inputs with finite second moments"),
    profiles=Profiles(
        quick=dict(D=8, K=2, M=2, d=3, eta=0.1, vnorm=4.0, tau=0.5, N=10_000, tmax_T0=1000),
        paper=dict(N=100_000, search=(10, 300)),
    ),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    search=Search(
        ratio="(ii): B / (1/2 ||V*||_op^2 ||S* - C1 A||_op^2 E||X~||_F^2)",
        space="every law of X~ with finite second moments at the trained state of the last checkpoint "
        "(C1, g at T_max): a point mass X~ = X (the worst law; the ratio of a mixture is at most its "
        "components' largest), X (d, D) on the unit sphere (both sides are homogeneous in X); starts N(0, 1)",
        budget="search",
    ),
    choices=_THM32_BOUNDS_CHOICES,
    report=Report(
        r"(i) $L_{\mathrm{OOD}}\le(\sqrt{A_T}+\sqrt B)^2$; (ii) "
        r"$B\le\frac12\|V^*\|_{\mathrm{op}}^2\|S^*-C_1A\|_{\mathrm{op}}^2\,\mathbb{E}\|\tilde X\|_F^2$; "
        r"(iii) the closed form of $B$ for i.i.d.\ tokens"
    ),
)
def thm32_bounds(
    ctx: Ctx,
    *,
    D: int,
    K: int,
    M: int,
    d: int,
    eta: float,
    vnorm: float,
    tau: float,
    N: int,
    tmax_T0: int,
    search: tuple[int, int],
) -> Evidence:
    """Consistency check: (i) is Minkowski's inequality and (ii) submultiplicativity of norms, true for
    any model and any law, and (iii) is a closed form of the same model against its Monte Carlo value;
    none can fail by a change to the model or the data, only by a bug. At every seed, at checkpoints
    T_0 10^(k/4) from 10 T_0: (i) MC L_OOD + ``se_margin`` SE <= ood_upper(A_T, B) with B exact (iid)
    or the op-norm bound (correlated); (ii) MC B + ``se_margin`` SE <= ood_B_op_bound; (iii) |MC B -
    ood_B_exact| within ``mc_z`` SE (iid tokens). Worst case of (ii): over every OOD law at the trained
    state of the last checkpoint (``search`` = (starts, L-BFGS-B iterations):
    :func:`verify.zhang2026.experiments.ood_op_search`); equality holds at every state for the rank-one
    point mass X~ = a b^T, a the top right singular vector of V*, b the top left singular vector of
    S* - C1 A. (i) is not searched: Minkowski's equality case, Y~ - f*(X~) a nonnegative multiple of
    f*(X~) - TF(X~) almost surely, attains it at every state and input law."""
    cv = _curves(ctx, D, K, M, d, eta, vnorm, tmax_T0, N, tau)
    parts, m = RateParts(), ctx.rule("se_margin")
    for kind, c in cv.by_kind.items():
        Lu = np.array(c.L) + m * np.array(c.L_se)
        parts.tol(
            f"{kind}: (i) max (L_OOD + {m:g} SE) / (sqrt(A_T) + sqrt(B))^2",
            float(np.max(Lu / c.bound_i)),
            1.0,
        )
        Bu = np.array(c.B) + m * np.array(c.B_se)
        parts.tol(
            f"{kind}: (ii) max (B + {m:g} SE) / op-norm bound", float(np.max(Bu / np.array(c.B_op))), 1.0
        )
        if kind != "correlated":
            z = np.abs(np.array(c.B) - np.array(c.B_exact)) / np.array(c.B_se)
            parts.tol(f"{kind}: (iii) max |B_MC - B_exact| / SE", float(z.max()), ctx.rule("mc_z"))
    found = E.ood_op_search(ctx.rng(3), cv.V, cv.S, float(cv.run.C1[-1]), float(cv.run.g[-1]), *search)
    typical = max(float(np.max(np.array(c.B) / np.array(c.B_op))) for c in cv.by_kind.values())
    found = dataclasses.replace(found, typical=max(found.typical, typical))
    parts.tol("(ii) worst case over OOD laws at T_max: B / op-norm bound", found.ratio, 1.0)
    return parts.evidence(headline=parts.worst_name(), params=dict(T_max=int(cv.tt[-1])), worst=found)
