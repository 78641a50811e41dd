"""NTK separability and realizability (derivation Sect. 7.1), the tokenized-mixture margins (Sect. 9), the
NTK at initialisation (Sect. 8) and the one-step attention update (Sect. 1.5 I1, 9.4)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from bounds import deora2023 as B
from bounds.checks import check_positive
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
    Verdict,
    claim,
)
from verify.deora2023 import data as D
from verify.deora2023 import experiments as E
from verify.deora2023 import model as M
from verify.deora2023.claims.common import search_choice
from verify.numerics.fit import fit_rate

_REAL_ULINEAR_CHOICES = {
    "tol": Choice(
        Rule(
            1e-10, "an exact identity: round-off of float64 evaluations only", "reconstruction pass criterion"
        ),
        range=(1e-13, 1e-8),
        basis="plausible",
        reason="round-off allowance of an exact identity in float64 at lambda up to 1000: 1e-13 to "
        "1e-8 relative",
    ),
    "lams": Choice(
        (0.0, 1.0, 10.0, 100.0, 1000.0),
        options=(
            (0.0, 1.0, 10.0, 100.0, 1000.0),
            (0.0, 1.0, 10.0, 100.0),
            (0.0, 3.0, 30.0, 300.0, 3000.0),
        ),
        basis="plausible",
        reason="the steps lambda along theta_* (the identity holds at every lambda): ours, one decade "
        "shorter, or shifted half a decade up",
    ),
}


@claim(
    "deora2023.real.Ulinear",
    Source("derivation Sect. 7.1 (exact special case: Phi is linear in U)", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="for theta_* on the U block: Phi(theta_0 + lam theta_*) = Phi(theta_0) "
    "+ lam <grad Phi(theta_0), theta_*>",
    profiles=Profiles(quick=dict(n=40, H=8)),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices=_REAL_ULINEAR_CHOICES,
    report=Report(
        r"for $\theta_\star$ on the $U$ block, $\Phi(\theta_0+\lambda\theta_\star)=\Phi(\theta_0)+"
        r"\lambda\langle\nabla\Phi(\theta_0),\theta_\star\rangle$ exactly ($\Phi$ is linear in $U$)"
    ),
)
def real_Ulinear(ctx: Ctx, *, n: int, H: int, lams: tuple[float, ...]) -> Evidence:
    """Derivation Sect. 7.1 / claim deora2023.real.Ulinear [DERIVED, exact]. Kind: upper.
    measured: max over samples and the lambdas of |Phi(theta_0 + lam theta_*) - linear| / (1 + |Phi|),
    theta_* the U-block max-margin direction; theory: the rule ``tol``. Seeds: every seed.

    Consistency check: Phi is linear in U by the model's definition (derivation Sect. 1.2), so no other
    law, data or initialisation can break the identity; only wrong code can."""
    pr, mU, _, _ = E.ntk_setup(ctx.seed, n, H, 1.0, 0.05)
    F = M.features(pr.params0, pr.X)[:, : mU.theta_star.size]
    phi0 = M.phi(pr.params0, pr.X)
    err = 0.0
    for lam in lams:
        ph = M.phi(E.shift(pr.params0, mU.theta_star, lam), pr.X)
        err = max(err, float(np.max(np.abs(ph - phi0 - lam * F @ mU.theta_star) / (1 + np.abs(ph)))))
    return Evidence(
        theory=ctx.rule("tol"),
        measured=err,
        notes=[f"max relative error {err:.2e}; gamma_U = {mU.gamma:.4f}"],
    )


_REAL_TAYLOR_CHOICES = {
    "lam_max": Choice(
        50.0,
        range=(10.0, 100.0),
        basis="plausible",
        reason="the end of the lambda grid along theta_*: the statement holds for every lam >= 0; from "
        "10 (past lam_eps at eps = 1e-4 for the mixture's margin) to twice ours",
    ),
    "n_lams": Choice(
        26,
        range=(11, 51),
        basis="plausible",
        reason="points of the lambda grid: from 10 to 50 nonzero lambdas (the search covers the rest)",
    ),
    "H": Choice(
        8,
        options=(2, 8, 32),
        basis="plausible",
        reason="the statement holds at every H: 2 heads or 4x ours for the typical part (a set: the "
        "paired initialisation needs an even H)",
    ),
    "search": search_choice((2, 1, 2, 20), 0),
}


@claim(
    "deora2023.real.taylor",
    Source("derivation Sect. 7.1 (second-order lower bound along theta_*)", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="y Phi(theta_0 + lam theta_*) >= y Phi(theta_0) + lam y<grad Phi, theta_*> "
    "- lam^2 beta_3(lam)/(2 sqrt H)",
    profiles=Profiles(quick=dict(n=40), paper=dict(search=(2, 2, 6, 200))),
    seeds=SeedPlan(Seeds.EVERY),
    alternative=Alternative(
        "the remainder bound 1% smaller: the search reaches about 0.998 = 1 - 2 lam_min (the Hessian "
        "bound's constant, attained as lam -> 0), so the measurement resolves the bound to 1%. Its 2 "
        "starts reach at least 0.9969 at each of seeds 0-59; 1 start stopped below 0.99 at 6 of them "
        "(0.78 at seed 45)",
        factor=1.01,
    ),
    search=Search(
        ratio="Taylor deficit / (lam^2 beta_3(lam)/(2 sqrt H))",
        space="every theta_0 = (U_0, W_0), every lam >= 1e-3 and one sample X (T, d) at H = 1 (no loss: "
        "the Hessian is block-diagonal over heads), (T, d) = search[:2], along the unit theta_* of most "
        "negative curvature of Phi at theta_0 (the statement holds for every unit theta_*: its proof uses "
        "only ||theta_*|| = 1); U_0 polar with ||U_0|| = (l/2)^2, lam = 1e-3 + (z/10)^2, X scaled to R = 1 "
        "(scale invariance); starts N(0, 1)",
        budget="search",
    ),
    choices=_REAL_TAYLOR_CHOICES,
    report=Report(
        r"along the NTK max-margin direction $\theta_\star$: $y\Phi(\theta_0+\lambda\theta_\star)\ge "
        r"y\Phi(\theta_0)+\lambda y\langle\nabla\Phi(\theta_0),\theta_\star\rangle-"
        r"\lambda^2\beta_3(\lambda)/(2\sqrt H)$"
    ),
)
def real_taylor(
    ctx: Ctx, *, n: int, H: int, lam_max: float, n_lams: int, search: tuple[int, int, int, int]
) -> Evidence:
    """Derivation Sect. 7.1 / claim deora2023.real.taylor [DERIVED]. Kind: upper.
    measured: max over samples i and lambda in [0, lam_max] of the Taylor deficit
    max(0, -(y_i Phi(theta_lam) - y_i Phi(theta_0) - lam y_i <grad Phi_i, theta_*>)) divided by
    lam^2 beta_3(lam) / (2 sqrt(H)), beta_3(lam) = sqrt(T) R^3 (1 + 2R^2 (ubar_0 + lam)), theta_* the
    full (U and W) NTK max-margin direction (:func:`verify.deora2023.experiments.taylor_ratios`), and a
    worst-case search; theory: 1. The statement is Taylor's theorem with the Hessian bound of Sec. 3.3 on
    the segment (max_h ||U_h|| <= ubar_0 + lam there): it holds for every theta_0, every unit theta_*,
    every lam >= 0 and every sample, and the paired init with the max-margin theta_* on the mixture is one
    point of that set. The search (:func:`verify.deora2023.experiments.taylor_ratio_search`) runs over
    theta_0, lam and one sample at H = 1, (T, d) = ``search[:2]``, along the direction of most negative
    curvature, ``search[2]`` starts of ``search[3]`` L-BFGS-B iterations. Seeds: every seed."""
    pr, _, mF, _ = E.ntk_setup(ctx.seed, n, H, 1.0, 0.05)
    lams = np.linspace(0.0, lam_max, n_lams)[1:]
    typical = float(np.max(E.taylor_ratios(pr.params0, pr.X, pr.y, mF.theta_star[None], lams)))
    found = E.taylor_ratio_search(ctx.rng(4), *search)
    return Evidence(
        theory=1.0,
        measured=max(typical, found.ratio),
        worst=replace(found, typical=max(found.typical, typical)),
        notes=[
            f"max deficit / bound along the max-margin theta_* {typical:.4g}, searched {found.ratio:.6f}; "
            f"NTK margin gamma = {mF.gamma:.4f}, W-part of theta_* norm "
            f"{np.linalg.norm(mF.theta_star[H * pr.mix.T * pr.mix.d :]):.3f}"
        ],
    )


#: The losses eps of the realizability claims (the statements are for every eps in (0, 1)).
_EPS_CHOICE = Choice(
    (0.5, 0.1, 0.01, 1e-4),
    options=((0.5, 0.1, 0.01, 1e-4), (0.5, 0.1, 0.01), (0.5, 0.1, 0.01, 1e-4, 1e-6)),
    basis="plausible",
    reason="the eps grid: ours, one point shorter, or one point longer (eps = 1e-6)",
)


@claim(
    "deora2023.real.eps.U",
    Source("derivation Sect. 7.1 (NTK margin => realizability, exact U-only version)", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="L(theta_0 + lam_eps theta_*) <= eps with lam_eps = (B0 + log 1/eps)/gamma_U for the U-only "
    "max-margin direction theta_*",
    assumptions=("B0 = max_i |Phi(theta_0; X_i)| (0 under paired init)",),
    profiles=Profiles(quick=dict(n=40, H=8)),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices={"eps": _EPS_CHOICE},
    report=Report(
        r"with the $U$-only max-margin direction $\theta_\star$ and "
        r"$\lambda_\varepsilon=(B_0+\log(1/\varepsilon))/\gamma_U$: "
        r"$L(\theta_0+\lambda_\varepsilon\theta_\star)\le\varepsilon$"
    ),
)
def real_eps_U(ctx: Ctx, *, n: int, H: int, eps: tuple[float, ...]) -> Evidence:
    """Derivation Sect. 7.1 / claim deora2023.real.eps (U-only half) [DERIVED]. Kind: upper. Seeds: every
    seed. measured: max over eps of L(theta_0 + lam_eps theta_*) / eps; theory: 1.

    Consistency check: Phi is linear in U (.real.Ulinear), so y_i Phi(theta_0 + lam theta_*) >= -B0 +
    lam gamma_U exactly with the MEASURED margin gamma_U of theta_*, and l(z) <= e^(-z) gives the bound
    for every model and data set with a positive U-margin: it cannot fail unless the code is wrong. The
    full-theta_* half, which needs H, is .real.eps."""
    pr, mU, _, B0 = E.ntk_setup(ctx.seed, n, H, 1.0, 0.05)
    ratios = [
        M.loss(E.shift(pr.params0, mU.theta_star, B.g_eps_U(B0, e, mU.gamma)), pr.X, pr.y) / e for e in eps
    ]
    return Evidence(theory=1.0, measured=max(ratios), params={"B0": B0},
                    notes=[f"gamma_U = {mU.gamma:.4f}, B0 = {B0:.1e}"])  # fmt: skip


_REAL_EPS_CHOICES = {
    "H": Choice(
        2**17,
        options=(2**12, 2**14, 2**17),
        basis="plausible",
        reason="the head count judged: 2^17 is the largest H at which this machine evaluates the "
        "conclusion (about 30 s per draw); down to 2^12, a large model by the paper's standards (a "
        "set: the paired initialisation needs an even H)",
    ),
    "token_scale": Choice(
        1.0,
        range=(0.5, 2.0),
        basis="plausible",
        reason="the token scale of our mixture (the paper's data model is NOT RECOVERED): half to twice "
        "ours; the alternative world's 1/100 is a different data law",
    ),
    "n": Choice(
        40,
        range=(20, 100),
        basis="plausible",
        reason="the training set size: the premise is stated for any n; half to 2.5x ours",
    ),
    "eps": _EPS_CHOICE,
}


@claim(
    "deora2023.real.eps",
    Source(
        "derivation Sect. 7.1 (NTK margin => realizability with g(eps), full theta_*)", Provenance.DERIVED
    ),
    kind=Kind.CONDITION,
    statement="the premise sqrt(H) >= lam_eps beta_3(lam_eps)/gamma of realizability with the full NTK "
    "max-margin direction, lam_eps = 2(B0 + log 1/eps)/gamma, at the largest eps it cannot meet",
    assumptions=("B0 = max_i |Phi(theta_0; X_i)| = 0 (paired init)", "W_0 = 0 (closed-form NTK)"),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(Verdict.VACUOUS),
    alternative=Alternative(
        "the same mixture with its tokens at 1/100 of the scale (S = 0.01, noise sigma = 5e-4): the NTK "
        "margin falls like S but lam_eps beta_3(lam_eps) like S^3 to S^5, so the required head count "
        "falls like S^2 to S^4 and H = 2^17 meets it at every eps down to 1e-4",
        overrides={"token_scale": 0.01},
        expect=Verdict.HOLDS,
    ),
    choices=_REAL_EPS_CHOICES,
    report=Report(
        r"realizability along the full NTK max-margin direction needs "
        r"$\sqrt H\ge\lambda_\varepsilon\beta_3(\lambda_\varepsilon)/\gamma$, "
        r"$\lambda_\varepsilon=2(B_0+\log(1/\varepsilon))/\gamma$ (shown: the largest $\varepsilon$ it "
        r"misses)"
    ),
)
def real_eps(ctx: Ctx, *, n: int, H: int, eps: tuple[float, ...], token_scale: float) -> Evidence:
    """Derivation Sect. 7.1 / claim deora2023.real.eps (full-theta_* half) [DERIVED]. Kind: condition. Seeds:
    every seed. The full NTK margin gamma at H heads comes from the closed-form Gram at W_0 = 0
    (:func:`verify.deora2023.experiments.ntk_gram_w0`; H-independent cost), u0 = max_h ||U_h||_F and R
    of the draw. H = 2^17 is the largest H at which this machine evaluates the conclusion
    L(theta_0 + lam_eps theta_*) <= eps (about 30 s per draw; tests/: the slow test of this module),
    where the premise holds for eps = 0.5. theory: the H the premise needs at the largest eps whose
    premise fails at H (eps = 0.1 at H = 2^17); measured: H. Every eps's requirement is in the notes.
    ``token_scale``: the mixture's mean norm S and noise sigma scaled by it (1: the defaults; 0.01 in
    the alternative world)."""
    pr = E.make_problem(E._rng(ctx.seed, 1), E._rng(ctx.seed, 2), n=n, H=H, S=token_scale,
                        sigma=0.05 * token_scale)  # fmt: skip
    xbar = pr.X.mean(axis=1)  # at W_0 = 0: Phi(theta_0; X_i) = <sum_h U_h, 1 xbar_i^T> / sqrt(H)
    B0 = float(np.max(np.abs(xbar @ pr.params0["U"].sum(axis=(0, 1))))) / np.sqrt(H)
    gamma, _ = E.ntk_margin_w0(pr.params0["U"], pr.X, pr.y)
    T, R, u0 = pr.mix.T, pr.R, E.value_norm_max(pr.params0)
    lam = {e: B.g_eps_full(B0, e, gamma) for e in eps}
    need = {e: B.realizability_heads(lam[e], B.beta3(T, R, u0 + lam[e]), gamma) for e in eps}
    unmet = [e for e in sorted(eps, reverse=True) if H < need[e]]
    notes = [f"gamma = {gamma:.4f}, u0 = {u0:.3f}, R = {R:.3f}, B0 = {B0:.1e} at H = {H}"]
    notes += [f"eps={e:g}: needs H >= {float(need[e]):.3g} ({'met' if H >= need[e] else 'NOT met'})"
              for e in sorted(eps, reverse=True)]  # fmt: skip
    if not unmet:
        return Evidence(theory=max(need.values()), measured=H, notes=notes)
    notes.append(f"first eps whose premise fails: {unmet[0]:g}")
    return Evidence(theory=need[unmet[0]], measured=H, notes=notes)


_MIXTURE_MARGIN_CHOICES = {
    "rtol": Choice(
        Rule(1e-4, "accuracy of the SVM solver on a closed-form margin", "reconstruction pass criterion"),
        range=(1e-6, 1e-3),
        basis="plausible",
        reason="accuracy asked of the SVM solver on a closed-form margin: 1e-6 to 1e-3 relative",
    ),
    "S": Choice(
        2.0,
        range=(0.5, 4.0),
        basis="plausible",
        reason="the identity holds at every mean norm S: from a quarter to twice ours",
    ),
    "n": Choice(
        40,
        range=(10, 100),
        basis="plausible",
        reason="the identity holds for every sample with both labels: 10 to 100 samples",
    ),
    "H": Choice(
        4,
        options=(2, 4, 16),
        basis="plausible",
        reason="the identity holds at every H: 2 heads or 4x ours (a set: the paired initialisation "
        "needs an even H)",
    ),
}


@claim(
    "deora2023.mixture.margin",
    Source("derivation Sect. 9.2 (U-part NTK margin at W_0 = 0, sigma = 0)", Provenance.DERIVED),
    kind=Kind.IDENTITY,
    statement="gamma_U = zeta S sqrt(T/2) (variant O) and zeta S sqrt(T) (variant A) when sigma = 0",
    profiles=Profiles(quick=dict(sigma=0.0)),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices=_MIXTURE_MARGIN_CHOICES,
    report=Report(
        r"$U$-part NTK margin at $W_0=0$, $\sigma=0$: $\gamma_U=\zeta S\sqrt{T/2}$ (variant O) and "
        r"$\gamma_U=\zeta S\sqrt T$ (variant A)"
    ),
)
def mixture_margin(ctx: Ctx, *, n: int, H: int, S: float, sigma: float) -> Evidence:
    """Derivation Sect. 9.2 / claim deora2023.mixture.margin [DERIVED]. Kind: identity, rule ``rtol``.
    measured / theory: the SVM margin over the U-block NTK features and the closed form, for the
    variant (O or A) with the larger relative error. Seeds: every seed (an identity for every draw).
    ``sigma``: the token noise (0 in the statement). Consistency check: the closed form is the margin of
    the noiseless mixture we built (derivation Sect. 9.2), so the claim tests the SVM solver and the
    feature map against our own construction, not the paper."""
    worst, out = -1.0, None
    notes = []
    for j, variant in enumerate(("O", "A")):
        mix = D.Mixture(S=S, sigma=sigma, variant=variant)
        X, y, _ = mix.sample(ctx.rng(1, j), n)
        params = M.init_params(ctx.rng(2, j), H, mix.T, mix.d)
        mU, mF = E.ntk_margins(params, X, y)
        f = B.mixture_margin_U(mix.zeta_eff, S, mix.T, variant)
        err = abs(mU.gamma - f) / f
        notes.append(f"variant {variant}: measured {mU.gamma:.6f}, formula {f:.6f}, full NTK {mF.gamma:.4f}")
        if err > worst:
            worst, out = err, (f, mU.gamma)
    return Evidence(theory=out[0], measured=out[1], rtol=ctx.rule("rtol"), notes=notes)


_MIXTURE_MARGIN_NOISY_CHOICES = {
    "solver_atol": Choice(
        Rule(1e-9, "SVM solver slack allowed in full margin >= U margin", "attncheck"),
        range=(1e-12, 1e-6),
        basis="plausible",
        reason="SVM solver slack allowed in full margin >= U margin: 1e-12 to 1e-6 absolute",
    ),
    "delta": Choice(
        0.1,
        range=(0.05, 0.2),
        basis="plausible",
        reason="the bound holds for every delta in (0, 1): 0.05 to 0.2 (the usual failure levels)",
    ),
    "sigma": Choice(
        0.05,
        range=(0.01, 0.2),
        basis="plausible",
        reason="the token noise of our mixture: the bound holds at every sigma; a fifth to 4x ours",
    ),
    "S": Choice(
        1.0,
        range=(0.5, 2.0),
        basis="plausible",
        reason="the mean norm of our mixture: half to twice ours",
    ),
    "n": Choice(
        40,
        range=(20, 100),
        basis="plausible",
        reason="the bound holds for every n (it enters through log(n/delta)): half to 2.5x ours",
    ),
}


@claim(
    "deora2023.mixture.margin.noisy",
    Source("derivation Sect. 9.2 (noisy lower bound; full >= U margin)", Provenance.DERIVED),
    kind=Kind.PROBABILITY,
    statement="w.p. >= 1 - delta: gamma_U >= sqrt(T) zeta S/sqrt(2) - sigma sqrt(2 log(n/delta)), "
    "and the full NTK margin >= gamma_U",
    profiles=Profiles(quick=dict(H=4, noise="iid")),
    seeds=SeedPlan(Seeds.BINOMIAL, quick=100, paper=200),
    alternative=Alternative(
        "token noise shared by the positions of a sequence (one z per sample, the same N(0, sigma^2 I) "
        "per token): the mean token keeps the whole noise instead of 1/T of its variance",
        overrides={"noise": "shared"},
    ),
    choices=_MIXTURE_MARGIN_NOISY_CHOICES,
    report=Report(
        r"w.p.\ $\ge1-\delta$: $\gamma_U\ge\sqrt T\zeta S/\sqrt2-\sigma\sqrt{2\log(n/\delta)}$, and the "
        r"full NTK margin is at least $\gamma_U$"
    ),
)
def mixture_margin_noisy(
    ctx: Ctx, *, n: int, H: int, S: float, sigma: float, delta: float, noise: str
) -> Evidence:
    """Derivation Sect. 9.2 / claim deora2023.mixture.margin (sigma > 0 part) [DERIVED]. Kind: probability.
    Seeds: binomial, one data set and init per seed (200 seeds in the paper profile).
    A seed succeeds when the U-part margin is at least the stated lower bound AND the full NTK margin
    is at least the U-part margin (the latter always, up to the rule ``solver_atol``).
    theory: 1 - delta; measured: success (Clopper-Pearson bounds over the seeds). ``noise``: the token
    noise of :class:`verify.deora2023.data.Mixture` ("shared": the alternative world)."""
    gU, gF, lb = E.noisy_margin_trial(E.NoisyMarginPoint(ctx.seed, n, H, S, sigma, delta, noise))
    ok = gU >= lb and gF >= gU - ctx.rule("solver_atol")
    return Evidence(
        theory=1 - delta,
        measured=bool(ok),
        notes=[f"lower bound {lb:.4f}; gamma_U {gU:.4f}; full margin {gF:.4f}"],
    )


def _ntk_table(ctx: Ctx, Hs: tuple[int, ...], inits: int, shared: float) -> tuple[np.ndarray, np.ndarray]:
    """(spread, margin CV), each (len(Hs), n_seeds): one data set per seed, ``inits`` init draws each,
    heads sharing the fraction ``shared`` of their U variance (0: i.i.d. heads, I0)."""
    out = [E.ntk_sweep(E.NtkSweep(seed, tuple(Hs), inits, shared, mapper=ctx.map)) for seed in ctx.seed_set]
    return np.array([o[0] for o in out]).T, np.array([o[1] for o in out]).T


#: The NTK claims' seed sets: 3 seeds left the last-window interval of the spread (2 points, 2 degrees of
#: freedom) wider than the band at some seed sets; 6 seeds give 11 degrees of freedom.
_NTK_SEEDS = SeedPlan(Seeds.POOLED, quick=6, paper=10, experiment="ntk sweep")


def _ntk_choices(tol: Rule) -> dict[str, Choice]:
    """The NTK claims' choices, ``tol`` the claim's rate band (its reason is the claim's own)."""
    return {
        "Hs": Choice(
            (4, 16, 64, 256),
            options=((4, 16, 64, 256), (4, 16, 64), (2, 8, 32, 128)),
            basis="plausible",
            reason="the head ladder (the law is asymptotic in H): ours, one point shorter, or shifted one "
            "octave down",
        ),
        "tol": Choice(
            tol,
            range=(0.1, 0.25),
            basis="plausible",
            reason="from 0.1 (the band of the suite's tighter rate claims) to 0.25 (half the distance to "
            "the correlated-heads exponent 0: the widest band that still separates the two)",
        ),
        "inits": Choice(
            6,
            range=(4, 12),
            basis="plausible",
            reason="init draws per data set for the across-init spread: 4 to twice ours (the paper "
            "profile's 10 is inside)",
        ),
    }


@claim(
    "deora2023.ntk.concentration",
    Source("derivation Sect. 8 (NTK Gram is an average of i.i.d. per-head kernels)", Provenance.DERIVED),
    kind=Kind.RATE,
    statement="the across-init relative spread of the NTK Gram at theta_0 decays like H^(-1/2)",
    profiles=Profiles(quick=dict(shared=0.0), paper=dict(inits=10)),
    seeds=_NTK_SEEDS,
    expect=Expect(consistency=True),
    choices=_ntk_choices(
        Rule(
            0.2,
            "last local slope within 0.2 of -1/2: the window [-0.7, -0.3] of derivation Sect. 11 (at most "
            "half the distance to the correlated-heads exponent 0)",
            "reconstruction pass criterion",
        )
    ),
    report=Report(
        r"the across-initialisation relative spread of the NTK Gram matrix at $\theta_0$ decays like "
        r"$H^{-1/2}$",
        Plot.rate(
            -0.5,
            "H",
            [("spread", "relative spread of the NTK Gram")],
            "number of heads $H$",
            r"$\|\mathrm{std}\,K_H\|_F\,/\,\|\mathrm{mean}\,K_H\|_F$",
        ),
    ),
)
def ntk_concentration(ctx: Ctx, *, Hs: tuple[int, ...], inits: int, shared: float) -> Evidence:
    """Derivation Sect. 8 / claim deora2023.ntk.concentration [DERIVED, order-level]. Kind: rate,
    exponent -1/2, tolerance rule ``tol``. Seeds: pooled; per seed one mixture data set (n = 40) and
    ``inits`` paired init draws (W_0 = 0) at every H. measured: the shared rate fit over H of
    ||std_inits K_H||_F / ||mean_inits K_H||_F, one column per seed (the bias of a std from few draws
    is the same factor at every H, so it does not move the slope). ``shared``: the share of U variance the
    heads have in common (0: i.i.d. heads, I0; the tests' correlated heads use 1/2). Consistency check:
    under I0 the Gram is (1/H) times a sum of H i.i.d. per-head kernels (our 1/sqrt(H) scaling), so its
    spread falls like H^(-1/2) by the law of large numbers for the model we built."""
    spread, cv = _ntk_table(ctx, tuple(Hs), inits, shared)
    fit = fit_rate(np.array(Hs, float), spread, window=2)
    return Evidence(
        theory=-0.5,
        measured=fit,
        tol=ctx.rule("tol"),
        series={"H": list(Hs), "spread": spread.tolist(), "margin_cv": cv.tolist()},
        notes=[f"spread (mean over seeds) {', '.join(f'{v:.3g}' for v in spread.mean(axis=1))}"],
    )


@claim(
    "deora2023.ntk.concentration.margin",
    Source("derivation Sect. 8 (NTK margin converges as H grows)", Provenance.DERIVED),
    kind=Kind.RATE,
    statement="the across-init coefficient of variation of the NTK margin decays like H^(-1/2)",
    profiles=Profiles(quick=dict(shared=0.0), paper=dict(inits=10)),
    seeds=_NTK_SEEDS,
    expect=Expect(consistency=True),
    choices=_ntk_choices(
        Rule(
            0.2,
            "slope within 0.2 of -1/2, the window of the Gram's spread (derivation Sect. 11); half the "
            "distance to the competing exponent 0",
            "reconstruction pass criterion (by analogy)",
        )
    ),
    report=Report(
        r"the across-initialisation coefficient of variation of the NTK margin decays like $H^{-1/2}$ "
        r"(the margin tends to a deterministic limit)",
        Plot.rate(
            -0.5,
            "H",
            [("margin_cv", "CV of the NTK margin")],
            "number of heads $H$",
            "coefficient of variation",
        ),
    ),
)
def ntk_concentration_margin(ctx: Ctx, *, Hs: tuple[int, ...], inits: int, shared: float) -> Evidence:
    """Derivation Sect. 8 / claim deora2023.ntk.concentration (margin part) [DERIVED, order-level].
    Kind: rate, exponent -1/2, tolerance rule ``tol``. Seeds: pooled (as .ntk.concentration).
    measured: the shared rate fit over every H of the margin's coefficient of variation across init
    draws, one column per seed. The margin is a Lipschitz function of the Gram where the support
    vectors do not change, so its fluctuation inherits the Gram's H^(-1/2) (derivation Sect. 8).
    Consistency check, as .ntk.concentration: the rate follows from the i.i.d. heads of our init."""
    _spread, cv = _ntk_table(ctx, tuple(Hs), inits, shared)
    if not np.all(cv > 0):
        return Evidence(theory=-0.5, measured=None, inconclusive="a margin CV is 0 (identical margins)")
    fit = fit_rate(np.array(Hs, float), cv, window=len(Hs))
    return Evidence(
        theory=-0.5,
        measured=fit,
        tol=ctx.rule("tol"),
        series={"H": list(Hs), "margin_cv": cv.tolist()},
        notes=[f"margin CV (mean over seeds) {', '.join(f'{v:.3g}' for v in cv.mean(axis=1))}"],
    )


_ONESTEP_CHOICES = {
    "eta1": Choice(
        1e4,
        range=(1e3, 1e5),
        basis="plausible",
        reason="the 'large' step on W (the paper's step size is NOT RECOVERED): a decade either side of ours",
    ),
    "H": Choice(
        8,
        options=(4, 8, 32),
        basis="plausible",
        reason="the statement is for any H: half or 4x ours (a set: the paired initialisation needs an "
        "even H)",
    ),
    "n": Choice(
        40,
        range=(20, 100),
        basis="plausible",
        reason="the training and step samples' size (NOT RECOVERED): half to 2.5x ours",
    ),
    "delta": Choice(
        Rule(0.1, "failure probability: the delta of the mixture's margin bound", "derivation Sect. 9.2"),
        range=(0.05, 0.2),
        basis="plausible",
        reason="the failure probability (the paper's probabilities are NOT RECOVERED): 0.05 to 0.2 "
        "around the delta of the mixture's margin bound",
    ),
}


@claim(
    "deora2023.onestep",
    Source(
        "derivation Sect. 1.5 (I1) and 9.4 (TL;DR: NTK separability after one step)", Provenance.RECONSTRUCTED
    ),
    kind=Kind.PROBABILITY,
    statement="with probability >= 1 - delta over the draw, one large GD step on W from (U_0, W = 0), on "
    "an independent sample, raises the NTK margin (variants O and A) and the attention mass on relevant "
    "tokens above zeta",
    profiles=Profiles(quick=dict(shuffle_step=False)),
    seeds=SeedPlan(Seeds.BINOMIAL, quick=29, paper=100),
    expect=Expect(Verdict.INCONCLUSIVE),
    alternative=Alternative(
        "a step sample whose labels carry no information on its tokens (labels drawn independently of "
        "the sample, as with fully noisy labels): the step has no signal to amplify",
        overrides={"shuffle_step": True},
    ),
    rules={
        "gain": Rule(
            1.0,
            "the step RAISES the margin (gamma(eta1) > gamma(0)): the direction the TL;DR states; the "
            "pilot-calibrated 1.3 is reported per seed, not judged",
            "paper (TL;DR, THIRD-PARTY)",
        ),
        "pilot_gain": Rule(1.3, "the pilot-calibrated margin gain (reported only)", "derivation Sect. 11"),
    },
    choices=_ONESTEP_CHOICES,
    report=Report(
        r"w.p.\ $\ge1-\delta$, one large GD step on $W$ from $(U_0,W=0)$ on an independent sample raises "
        r"the NTK margin (variants O and A) and the attention mass on relevant tokens above $\zeta$"
    ),
)
def onestep(ctx: Ctx, *, n: int, H: int, eta1: float, shuffle_step: bool) -> Evidence:
    """Derivation Sect. 9.4 / claim deora2023.onestep [RECONSTRUCTED claim; the paper's statement, step size
    and probabilities are NOT RECOVERED]. Kind: probability, p0 = 1 - ``delta``. Seeds: binomial (paper
    profile: 100 seeds; quick 20), one data set, independent step sample and init per seed.
    W_1 = -eta1 grad_W L_{S'}(U_0, 0) with S' an independent sample (so theta_0 stays data-independent
    for the training sample S). Success: gamma(eta1) > ``gain`` gamma(0) for both variants O and A, and
    the relevant attention mass (variant O) > zeta. The gains against the pilot's 1.3 are in the notes.
    ``shuffle_step``: the step sample's labels randomly permuted (the alternative world).

    Expected inconclusive: the success rate is about 0.89 (213/240 over seeds 0-39, 1000-1039, 2000-2039,
    3000-3039, 4321-4360, 777-816; Clopper-Pearson [0.848, 0.919]), too close to 0.9 to be told apart
    at an affordable number of seeds. 29 seeds (``trials_needed(0.9)``) is the fewest that can hold."""
    eta1 = check_positive("eta1", eta1)
    gains, mass = [], 0.0
    for j, variant in enumerate(("O", "A")):
        mix = D.Mixture(variant=variant)
        X, y, rel = mix.sample(ctx.rng(1, j), n)
        Xs, ys, _ = mix.sample(ctx.rng(3, j), n)
        if shuffle_step:
            ys = ctx.rng(5, j).permutation(ys)
        params = M.init_params(ctx.rng(2, j), H, mix.T, mix.d)
        _, g = M.loss_and_grad(params, Xs, ys)
        th = {"U": params["U"], "W": params["W"] - eta1 * g["W"]}
        gains.append(E.ntk_margins(th, X, y)[1].gamma / E.ntk_margins(params, X, y)[1].gamma)
        if variant == "O":
            mass = M.attention_mass(th, X, rel) / mix.zeta_eff
    ok = min(gains) > ctx.rule("gain") and mass > 1.0
    pilot_ok = min(gains) >= ctx.rule("pilot_gain") and mass > 1.0
    return Evidence(
        theory=1 - ctx.rule("delta"),
        measured=bool(ok),
        series={"gain_O": gains[0], "gain_A": gains[1], "mass_over_zeta": mass},
        notes=[
            f"margin gain O {gains[0]:.3f}, A {gains[1]:.3f}; relevant attention mass / zeta {mass:.3f}; "
            f"the pilot's 1.3x criterion {'met' if pilot_ok else 'NOT met'}"
        ],
    )
