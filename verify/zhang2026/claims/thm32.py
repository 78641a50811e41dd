"""Theorem 3.2: out-of-distribution generalisation. The paper's eps(T) is NOT RECOVERED; what is checked is
the derived form L_OOD <= (sqrt(A_T) + sqrt(B(T)))^2 with B(T) = 1/2 E||f*(X~) - TF(X~)||^2, the rate of
B, and the rate of the OOD excess under a label mismatch of our own construction, correlated with X~."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from bounds import zhang2026 as B
from verify.core import Alternative, Ctx, Evidence, Kind, Provenance, claim
from verify.core.record import Rule, Search, Seeds
from verify.zhang2026 import experiments as E
from verify.zhang2026.claims._rates import RateParts, fit_decades, rate_times, worst_rate
from verify.zhang2026.claims._rules import MC_Z, SLOPE_MC
from verify.zhang2026.claims._sources import NOTE, REVIEWS

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
    mismatch: float = 0.3,
) -> Curves:
    """The trained run at T_0 10^(k/4), T in [10 T_0, tmax_T0 T_0], and the OOD curves per input kind on
    N samples common across checkpoints (problem from stream 1, samples from (2, kind)); ``mismatch``:
    the scale of our label mismatch (:func:`~verify.zhang2026.experiments.ood_curves`)."""
    S, V, _ = E.circulant_problem(ctx.rng(1), E.Size(D, K, M, d), vnorm)
    tt = rate_times(E.onset(D, K, eta, 1.0, vnorm**2), 10, tmax_T0)
    sc = E.scalar_run(D, K, eta, tt, 1.0, vnorm**2)
    by_kind = {
        kind: E.ood_curves(ctx, k, kind, (V, S, K, vnorm**2), sc, N, tau, mismatch)
        for k, kind in enumerate(KINDS)
    }
    return Curves(tt, by_kind, V, S, sc)


@claim(
    "zhang2026.thm32.ood",
    reference="Thm 3.2 ([S]); Fig. 2(b); its eps(T): derivation Sect. 5.4",
    kind=Kind.RATE,
    provenance=Provenance.DERIVED,
    source="the late OOD slope about -1/2 (Fig. 2(b)) and the OOD condition (input and response columns "
    "with bounded second moments) are stated by "
    + NOTE
    + "; the exponential OOD data by reviewer 1 in "
    + REVIEWS,
    statement="the OOD gap B(T) = 1/2 E||f*(X~) - TF(X~)||^2 decays as T^-1 (so L_OOD - A_T = B, slope -1, "
    "for teacher + independent-noise labels); the notes' late OOD slope -1/2 appears in |L_OOD - A_T| "
    "under a label mismatch of OUR construction, 0.3 V* X~ 1 1^T / D, correlated with X~ (the paper's "
    "OOD label model is not recovered)",
    assumptions=("linear sigma", "W_V = C1 V* (Lemma C.2)", "OOD inputs with finite second moments"),
    quick=dict(D=8, K=2, M=2, d=3, eta=0.1, vnorm=4.0, tau=0.5, N=20_000, tmax_T0=10_000, mismatch=0.3),
    paper=dict(N=100_000, tmax_T0=100_000),
    seeds=Seeds.POOLED,
    rules=dict(slope_tol=SLOPE_MC),
    alternative=Alternative(
        world="OOD labels = teacher plus independent noise, no mismatch (the other label model the "
        "notes allow): |L_OOD - A_T| = B decays like T^-1, the competing exponent -1, not -1/2",
        overrides={"mismatch": 0.0},
    ),
    tex=r"the OOD gap $B(T)=\frac12\mathbb{E}\|f^*(\tilde X)-\mathrm{TF}(\tilde X)\|^2$ decays like "
    r"$T^{-1}$ (independent label noise: $L_{\mathrm{OOD}}-A_T=B$); $|L_{\mathrm{OOD}}-A_T|$ decays like "
    r"$T^{-1/2}$ under a label mismatch of our construction, correlated with $\tilde X$ (the paper's OOD "
    r"label model is not recovered)",
    plot=[
        dict(
            x="t",
            curves=[
                ("exp_B", "Exp(1) tokens"),
                ("exp_centred_B", "centred Exp(1) tokens"),
                ("correlated_B", "AR(1) Gaussian tokens"),
            ],
            slope=-1.0,
            theory_label="theory: $T^{-1}$",
            xlabel="GD steps $T$",
            ylabel=r"OOD gap $B(T)$",
            logx=True,
            logy=True,
            title="independent labels",
        ),
        dict(
            x="t",
            curves=[("mismatch_abs_L_minus_A", r"$|L_{\mathrm{OOD}}-A_T|$, centred Exp(1)")],
            slope=-0.5,
            theory_label="theory: $T^{-1/2}$",
            xlabel="GD steps $T$",
            ylabel=r"$|L_{\mathrm{OOD}}-A_T|$",
            logx=True,
            logy=True,
            title="correlated label mismatch",
        ),
    ],
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
    mismatch: float,
) -> Evidence:
    """Thm 3.2 [S]; the rates are DERIVED (B ~ excess_ID ~ 1/T; the mismatch cross term
    0.3 tr(V* Sigma V*^T)(1 - C1) ~ eps ~ T^-1/2). Per seed of the set: a problem and N OOD samples of
    X~ with iid Exp(1), centred Exp(1) or AR(1)-correlated Gaussian tokens, at checkpoints T_0 10^(k/4)
    of the trained model. Rate rule (tolerance ``slope_tol``), pooled over the seeds, on the Monte Carlo
    B(T) of each input law (exponent OOD_SLOPE_INDEPENDENT) and on |L_OOD - A_T| with
    Y~ = f*(X~) + ``mismatch`` V* X~ 1 1^T / D on centred Exp(1) tokens (exponent OOD_SLOPE_MISMATCH; the
    mismatch is our construction: the paper's OOD label model is NOT RECOVERED; ``mismatch`` = 0 is the
    alternative world); shown: the least favourable. Reported: the theorem's own eps(T) = B +
    2 sqrt(A_T B), which has exponent -1/2 whenever A_T > 0, and the paired estimate of L_OOD - A_T
    with independent label noise, which equals B in expectation but whose sample cross term
    <E, f* - TF> ~ eps / sqrt(N) bends its local slope toward -1/2 on a fixed test set."""
    per = [
        _curves(dataclasses.replace(ctx, seed=s), D, K, M, d, eta, vnorm, tmax_T0, N, tau, mismatch)
        for s in ctx.seed_set
    ]
    tt = per[0].tt
    curves, notes, series = [], [], {"t": tt.tolist()}
    for kind in KINDS:
        b = np.array([c.by_kind[kind].B for c in per]).T
        curves.append((f"{kind}: B(T)", B.OOD_SLOPE_INDEPENDENT, fit_decades(tt, b)))
        series[f"{kind}_B"] = b[:, 0].tolist()
        la = np.array([c.by_kind[kind].L_minus_A for c in per]).T
        if np.all(la > 0):
            f = fit_decades(tt, la)
            notes.append(
                f"{kind}: paired estimate of L_OOD - A_T (independent noise, N={N}, not judged): "
                "local slopes " + ", ".join(f"{v:.3f}" for v in f.local)
            )
        A_T = 0.5 * M * D * tau**2
        eps = b + 2 * np.sqrt(A_T * b)
        notes.append(
            f"{kind}: eps(T) = B + 2 sqrt(A_T B) (A_T = {A_T:g}), "
            f"last local slope {fit_decades(tt, eps).local[-1]:.3f}"
        )
    mis = np.abs(np.array([c.by_kind["exp_centred"].L_mismatch for c in per]).T)
    curves.append(
        (
            f"exp_centred: |L_OOD - A_T|, label mismatch {mismatch:g} V* X~ 1 1^T / D (ours)",
            B.OOD_SLOPE_MISMATCH,
            fit_decades(tt, mis),
        )
    )
    series["mismatch_abs_L_minus_A"] = mis[:, 0].tolist()
    return worst_rate(
        curves, ctx.rule("slope_tol"), notes=notes, series=series, params=dict(T_max=int(tt[-1]))
    )


@claim(
    "zhang2026.thm32.bounds",
    reference="Thm 3.2 ([S]); its bound and the forms of B: derivation Sect. 5.4",
    kind=Kind.UPPER,
    provenance=Provenance.DERIVED,
    statement="(i) L_OOD <= (sqrt(A_T) + sqrt(B))^2; (ii) B <= 1/2 ||V*||_op^2 ||S* - C1 A||_op^2 "
    "E||X~||_F^2; (iii) B = tr(V* Sigma V*^T) / (sx2 ||V*||^2) excess_ID + D/2 (1 - C1)^2 ||V* mu||^2 "
    "(iid tokens)",
    assumptions=("linear sigma", "W_V = C1 V* (Lemma C.2)", "OOD inputs with finite second moments"),
    quick=dict(D=8, K=2, M=2, d=3, eta=0.1, vnorm=4.0, tau=0.5, N=10_000, tmax_T0=1000, search=(1, 100)),
    paper=dict(N=100_000, search=(10, 300)),
    seeds=Seeds.EVERY,
    consistency=True,
    rules=dict(
        mc_z=MC_Z,
        se_margin=Rule(3.0, "Monte Carlo values are compared with the bounds at mean + this many SE"),
    ),
    tex=r"(i) $L_{\mathrm{OOD}}\le(\sqrt{A_T}+\sqrt B)^2$; (ii) $B\le\frac12\|V^*\|_{\mathrm{op}}^2"
    r"\|S^*-C_1A\|_{\mathrm{op}}^2\,\mathbb{E}\|\tilde X\|_F^2$; (iii) the closed form of $B$ for i.i.d.\ "
    r"tokens",
    search=Search(
        ratio="(ii): B / (1/2 ||V*||_op^2 ||S* - C1 A||_op^2 E||X~||_F^2)",
        space="every law of X~ with finite second moments at the trained state of the last checkpoint "
        "(C1, g at T_max): a point mass X~ = X (the worst law; the ratio of a mixture is at most its "
        "components' largest), X (d, D) on the unit sphere (both sides are homogeneous in X); starts N(0, 1)",
        budget="search",
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
