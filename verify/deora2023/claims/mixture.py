"""The tokenized-mixture model (derivation Sect. 9): the NTK margins at W_0 = 0, exact without noise and a
lower bound with it (Sect. 9.2), and the one-step attention update (Sect. 1.5 I1, 9.4)."""

from __future__ import annotations

from bounds import deora2023 as B
from bounds.checks import check_positive
from verify.core import (
    Alternative,
    Choice,
    Ctx,
    Evidence,
    Expect,
    Kind,
    Profiles,
    Provenance,
    Report,
    Rule,
    SeedPlan,
    Seeds,
    Source,
    Verdict,
    claim,
)
from verify.deora2023 import data as D
from verify.deora2023 import experiments as E
from verify.deora2023 import model as M

_MIXTURE_MARGIN_CHOICES = {
    "rtol": Choice(
        Rule(1e-4, "accuracy of the SVM solver on a closed-form margin", "reconstruction pass criterion"),
        range=(1e-6, 1e-3),
        reason="accuracy asked of the SVM solver on a closed-form margin: 1e-6 to 1e-3 relative",
    ),
    "S": Choice(
        2.0, range=(0.5, 4.0), reason="the identity holds at every mean norm S: from a quarter to twice ours"
    ),
    "n": Choice(
        40, range=(10, 100), reason="the identity holds for every sample with both labels: 10 to 100 samples"
    ),
    "H": Choice(
        4,
        options=(2, 4, 16),
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
        reason="SVM solver slack allowed in full margin >= U margin: 1e-12 to 1e-6 absolute",
    ),
    "delta": Choice(
        0.1,
        range=(0.05, 0.2),
        reason="the bound holds for every delta in (0, 1): 0.05 to 0.2 (the usual failure levels)",
    ),
    "sigma": Choice(
        0.05,
        range=(0.01, 0.2),
        reason="the token noise of our mixture: the bound holds at every sigma; a fifth to 4x ours",
    ),
    "S": Choice(1.0, range=(0.5, 2.0), reason="the mean norm of our mixture: half to twice ours"),
    "n": Choice(
        40,
        range=(20, 100),
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


_ONESTEP_CHOICES = {
    "eta1": Choice(
        1e4,
        range=(1e3, 1e5),
        reason="the 'large' step on W (the paper's step size is NOT RECOVERED): a decade either side of ours",
    ),
    "H": Choice(
        8,
        options=(4, 8, 32),
        reason="the statement is for any H: half or 4x ours (a set: the paired initialisation needs an "
        "even H)",
    ),
    "n": Choice(
        40, range=(20, 100), reason="the training and step samples' size (NOT RECOVERED): half to 2.5x ours"
    ),
    "delta": Choice(
        Rule(0.1, "failure probability: the delta of the mixture's margin bound", "derivation Sect. 9.2"),
        range=(0.05, 0.2),
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
    seeds=SeedPlan(Seeds.BINOMIAL, quick=15, paper=100),
    expect=Expect(
        Verdict.INCONCLUSIVE,
        also=Verdict.VIOLATED,
        why="the success rate is 0.889 over 4,900 seeds (one-sided Clopper-Pearson upper bound 0.896), "
        "just below the claimed 0.9: the statement fails at our reconstruction by a margin that 15 seeds "
        "(100 in the paper profile) resolve only at some sets",
    ),
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

    Borderline (``Expect.also``): the success rate is 0.889 (4,356 of 4,900 over seeds 0-299,
    800000-800299, 900000-900299, 100000-100999 and 2000000-2002999; one-sided Clopper-Pearson upper
    bound 0.896), below 0.9 by a margin no affordable seed set resolves at every draw (about 9,000
    seeds). The quick profile's 15 seeds cannot hold and are violated at a clear deficit (at most 10 of
    15: 8 of 200 disjoint sets of the 3,000 fresh seeds), inconclusive otherwise: both are as
    expected."""
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
