"""The lemma on alpha = sigma_min(F_pre^0) (our reconstruction; its inequalities DERIVED), its closed
forms: the expected Gram G of the pooled ReLU features and its Hermite floor. The concentration of
alpha^2 / d_m around lambda_min(G), its order in d_m and the He / LeCun ratio are in :mod:`.alpha`."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from bounds import wu2023 as B
from verify.core import (
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
from verify.numerics.softmax import softmax
from verify.numerics.stats import rechecked_z
from verify.wu2023 import experiments as E
from verify.wu2023.claims.common import CRITERION as _CRITERION

_ALPHA_GRAM_CHOICES = {
    "z_max": Choice(
        Rule(4.0, "Monte-Carlo error allowed, in standard errors", _CRITERION),
        range=(3.0, 5.0),
        reason="a Monte-Carlo allowance in standard errors over every entry checked: 3 to 5",
    )
}


@claim(
    "wu2023.alpha.gram",
    Source("Lemma on alpha = sigma_min(F_pre^0) (reconstructed, derivation Sect. 5.3)", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="E[F_pre F_pre^T | W_Q, W_K] = d_m G with the arc-cosine closed form of G",
    profiles=Profiles(quick=dict(N=5, d=8, d_s=4, draws=4000), paper=dict(draws=40000)),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices=_ALPHA_GRAM_CHOICES,
    report=Report(
        r"$\mathbb{E}[F_{\mathrm{pre}}F_{\mathrm{pre}}^\top\mid W_Q,W_K]=d_mG$ with $G$ in "
        "arc-cosine closed form (Monte Carlo within $4$ s.e.)"
    ),
)
def alpha_gram(ctx: Ctx, *, N: int, d: int, d_s: int, draws: int) -> Evidence:
    """Lemma on alpha, closed form of G. Consistency check (a closed form against Monte Carlo: it tests our
    derivation and ``bounds.wu2023.expected_gram``, never the paper). Kind: upper, DERIVED. The columns of
    F_pre are i.i.d. over W_V's rows given the softmax, so one column's second moment is G. theory: ``z_max``;
    measured: the largest entrywise |MC - G| / s.e. over ``draws`` Monte-Carlo rows w ~ N(0, eta_V I) (our
    first criterion: M >= 2000); a largest z above ``z_max`` is measured again on 10 times the draws,
    which decide (the products of ReLU features are heavy-tailed: ``verify.numerics.stats.rechecked_z``)."""
    s = E.make_setup(ctx.seed, 0, N=N, d=d, d_s=d_s, d_m=8, regime="active")
    c = s.model.forward(s.theta0, s.batch)
    Z = c.S @ c.Xs
    eta_V = B.init_variances("lecun", d, 8).eta_V
    G = B.expected_gram(Z, eta_V)

    def z_of(n: int, stage: int) -> tuple[float, str]:
        W = ctx.rng(7 + stage).standard_normal((n, d)) * math.sqrt(eta_V)
        Fc = np.maximum(np.einsum("nsd,md->nsm", Z, W), 0).mean(axis=1)  # (N, n)
        prod = Fc[:, None, :] * Fc[None, :, :]
        mc, se = prod.mean(axis=2), prod.std(axis=2, ddof=1) / math.sqrt(n)
        return float(np.max(np.abs(mc - G) / se)), f"max |MC - G| = {np.max(np.abs(mc - G)):.3e}"

    z, what = rechecked_z(z_of, draws, ctx.rule("z_max"))
    return Evidence(theory=ctx.rule("z_max"), measured=z, notes=[what])


_ALPHA_PSD_CHOICES = {
    "tol": Choice(
        Rule(-1e-10, "round-off in lambda_min, relative to |G|_2", _CRITERION),
        range=(-1e-08, -1e-12),
        reason="a round-off margin (relative to |G|_2): two decades around ours, from -1e-8 to -1e-12",
    )
}


@claim(
    "wu2023.alpha.psd",
    Source("Lemma on alpha = sigma_min(F_pre^0) (reconstructed, derivation Sect. 5.3)", Provenance.DERIVED),
    kind=Kind.LOWER,
    statement="G - (eta_V/4) Zbar Zbar^T - (eta_V/2pi) r r^T is PSD, so lambda_min(G) >= eta_V/4 "
    "sigma_min(Zbar)^2",
    profiles=Profiles(
        quick=dict(sets=30, search=(2, 2, 2, 2, 100)), paper=dict(sets=300, search=(3, 3, 3, 10, 300))
    ),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    search=Search(
        ratio="eta_V/4 sigma_min(Zbar)^2 / (lambda_min(G) + |tol| |G|_2)",
        space="every attention-weighted token set Z (N, d_s, d) = search[:3], unconstrained (any tokens "
        "and any row-stochastic S give any Z; eta_V cancels); starts N(0, 1)",
        budget="search",
    ),
    choices=_ALPHA_PSD_CHOICES,
    report=Report(
        r"$G-\frac{\eta_V}{4}\bar Z\bar Z^\top-\frac{\eta_V}{2\pi}rr^\top\succeq0$, hence "
        r"$\lambda_{\min}(G)\ge\frac{\eta_V}{4}\sigma_{\min}(\bar Z)^2$"
    ),
)
def alpha_psd(ctx: Ctx, *, sets: int, search: tuple[int, int, int, int, int]) -> Evidence:
    """Lemma on alpha, Hermite floor (ReLU Hermite expansion + Schur product theorem). Consistency check: an
    exact PSD inequality between closed forms for any tokens and any row-stochastic S, independent of the
    model and the data law, so it tests our derivation and code. Kind: lower, DERIVED. theory: ``tol``;
    measured: min over random token sets (N <= 8, d <= 10, d_s <= 5, any scale) and random row-stochastic S of
    lambda_min(G - floor) / ||G||_2 and of its consequence (lambda_min(G) - eta_V/4 sigma_min(Zbar)^2) /
    ||G||_2, and the consequence at the worst case of a search of eta_V/4 sigma_min(Zbar)^2 / lambda_min(G)
    over every Z of shape ``search[:3]`` (``search[3]`` starts of ``search[4]`` L-BFGS-B iterations:
    :func:`verify.wu2023.experiments.hermite_gap`)."""
    rng = ctx.rng(3)
    tol = abs(ctx.rule("tol"))
    worst, typical = math.inf, 0.0
    for _ in range(sets):
        N, d, d_s = (int(rng.integers(2, 9)), int(rng.integers(1, 11)), int(rng.integers(1, 6)))
        X = rng.standard_normal((N, d_s, d)) * 10.0 ** rng.uniform(-2, 2)
        S = softmax(rng.standard_normal((N, d_s, d_s)) * 3)
        Z = S @ X
        G = B.expected_gram(Z, 1.0)
        gap = np.linalg.eigvalsh(G - B.hermite_floor(Z, 1.0))[0] / np.linalg.norm(G, 2)
        ratio, consequence = E.hermite_gap(Z, tol)
        worst, typical = min(worst, float(gap), consequence), max(typical, ratio)
    *shape, starts, maxiter = search
    found = E.array_search(lambda Z: E.hermite_gap(Z, tol)[0], tuple(shape), ctx.rng(4), starts, maxiter)
    searched = E.hermite_gap(np.reshape(found.z, shape), tol)[1]
    return Evidence(
        theory=ctx.rule("tol"),
        measured=min(worst, searched),
        worst=replace(found, typical=max(found.typical, typical)),
        notes=[f"min relative gap: random {worst:.3g}, at the searched worst case {searched:.3g}"],
    )
