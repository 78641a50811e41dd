"""Consistency checks of the reference model: closed-form losses and hand gradients, P-invariance, and
the 2-scalar reduction that the long runs use. They test the code, not the paper (counted apart)."""

from __future__ import annotations

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
    SeedPlan,
    Seeds,
    Source,
    claim,
)
from verify.zhang2026 import experiments as E
from verify.zhang2026.claims.common import MC_Z, RateParts

_CLOSEDFORM_CHOICES = {
    "mc_z": Choice(
        MC_Z,
        range=(3.0, 5.0),
        reason="how many standard errors a Monte Carlo estimate may miss the closed form: 3 to 5",
    ),
    "grad_rtol": Choice(
        Rule(
            1e-6,
            "relative error of hand gradients against central differences",
            "reconstruction pass criterion",
        ),
        range=(1e-7, 1e-5),
        reason="central differences at eps = 1e-5 are accurate to about eps^2 = 1e-10 plus round-off "
        "1e-16 / eps: a decade either side of ours",
    ),
    "grad_eps": Choice(
        Rule(1e-5, "central-difference step of the gradient check"),
        range=(1e-6, 1e-4),
        reason="the difference step: a decade either side (truncation eps^2 vs round-off 1e-16 / eps)",
    ),
    "grad_failed_r": Choice(
        Rule(2.0, "normalised violation given to a failed gradient check (> 1: violated)"),
        basis="single",
        reason="only a bookkeeping value above 1 marking a failed gradient check as violated; any value "
        "above 1 gives the same verdict",
    ),
}


@claim(
    "zhang2026.closedform",
    Source(
        "derivation Sect. 4.1-4.3 (reference model: closed-form population losses and gradients)",
        Provenance.DERIVED,
    ),
    kind=Kind.UPPER,
    statement="closed-form population loss matches Monte Carlo (|MC-CF| <= 4 SE); hand gradients match "
    "central differences (rel. err <= 1e-6)",
    assumptions=("iid input entries with finite variance", "Gaussian inputs for the dual-kernel form"),
    profiles=Profiles(quick=dict(D=8, K=2, M=2, d=3, N=20_000), paper=dict(N=400_000)),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    rules=dict(
        grad_atol_rel=Rule(
            1e-9, "absolute floor of the gradient check per unit of |loss| (round-off of the differences)"
        )
    ),
    choices=_CLOSEDFORM_CHOICES,
    report=Report(
        r"the closed-form population loss equals Monte Carlo ($|\mathrm{MC}-\mathrm{CF}|\le4$ SE); hand "
        r"gradients equal central differences (relative error $\le10^{-6}$)"
    ),
)
def closedform(ctx: Ctx, *, D: int, K: int, M: int, d: int, N: int) -> Evidence:
    """Consistency check of the code (a closed form against Monte Carlo, hand gradients against finite
    differences: both sides are the reference model, so only a bug can fail it). DERIVED closed forms:
    linear sigma with any iid entries (t(5), centred and raw Gumbel, Exp(1) via the mean term) and the
    ReLU / leaky ReLU dual kernel (Gaussian). At every seed (a random point and fresh samples): the Monte
    Carlo z-scores within rule ``mc_z`` (a z above it is measured again on 10 N fresh samples, which
    decide: the losses are heavy-tailed, errata) and the gradcheck's scaled error (rules ``grad_*``;
    <= 1 passes).
    Headline: the worst condition."""
    mc_z, reports = E.closedform_checks(
        ctx,
        E.Size(D, K, M, d),
        N,
        ctx.rule("grad_rtol"),
        ctx.rule("grad_eps"),
        ctx.rule("grad_atol_rel"),
        recheck=ctx.rule("mc_z"),
    )
    parts = RateParts()
    for label, z in mc_z:
        parts.tol(label, z, ctx.rule("mc_z"))
    for name, rep in reports:
        parts.tol(
            f"gradcheck {name} (scaled error; {rep.summary()})",
            rep.max_rel_error if rep.ok else max(rep.max_rel_error, ctx.rule("grad_failed_r")),
            1.0,
        )
    return parts.evidence(headline=parts.worst_name(), params=dict(cases=len(mc_z)))


_P_INVARIANCE_CHOICES = {
    "atol": Choice(
        Rule(1e-10, "max difference of (A, W_V) between choices of P", "reconstruction pass criterion"),
        range=(1e-12, 1e-8),
        reason="round-off level over 300 steps: a factor 100 either side of ours",
    )
}


@claim(
    "zhang2026.P_invariance",
    Source("derivation Sect. 4.2 (reference model: invariance under the orthogonal P)", Provenance.DERIVED),
    kind=Kind.IDENTITY,
    statement="the trajectory (A, W_V) is the same for every orthogonal P",
    assumptions=("P^T P = I",),
    profiles=Profiles(quick=dict(D=8, K=2, M=2, d=3, eta=0.1, steps=300), paper=dict(steps=1000)),
    seeds=SeedPlan(Seeds.EVERY, batched=True),
    expect=Expect(consistency=True),
    choices=_P_INVARIANCE_CHOICES,
    report=Report(r"the trajectory $(A^{(t)},W_V^{(t)})$ is the same for every orthogonal $P$"),
)
def P_invariance(ctx: Ctx, *, D: int, K: int, M: int, d: int, eta: float, steps: int) -> list[Evidence]:
    """Consistency check of the code: with P^T P = I the W_KQ step is algebraically the logit step
    Lam <- Lam - (eta/D) grad_Lam, so (A, W_V) cannot depend on P unless the implementation is wrong
    (DERIVED; the batched and reduced runs rely on it). At every seed (random V*, P): Identity (theory 0,
    absolute tolerance rule ``atol``) on the max
    difference over 10 checkpoints between P = I and two random orthogonal P, linear and leaky ReLU.
    Batched: the runs of every seed in one computation."""
    return [
        Evidence(theory=0.0, measured=worst, rtol=ctx.rule("atol"), notes=notes)
        for worst, notes in E.p_invariance(ctx, E.Size(D, K, M, d), eta, steps)
    ]


_SCALAR_REDUCTION_CHOICES = {
    "atol": Choice(
        Rule(1e-9, "max deviation of the recursion from full-matrix GD", "reconstruction pass criterion"),
        range=(1e-11, 1e-7),
        reason="round-off level over 1000 steps: a factor 100 either side of ours",
    )
}


@claim(
    "zhang2026.scalar_reduction",
    Source("derivation Sect. 4.4 (reference model: the 2-scalar (C1, g) reduction)", Provenance.DERIVED),
    kind=Kind.IDENTITY,
    statement="full-matrix population GD equals the 2-scalar (C1, g) recursion",
    assumptions=("uniform-K S*", "zero init"),
    profiles=Profiles(
        quick=dict(D=10, K=3, M=3, d=4, eta=0.1, sx2=1.3, steps=1000), paper=dict(steps=100_000)
    ),
    seeds=SeedPlan(Seeds.EVERY, batched=True),
    expect=Expect(consistency=True),
    choices=_SCALAR_REDUCTION_CHOICES,
    report=Report(r"full-matrix population GD equals the two-scalar $(C_1,g)$ recursion"),
)
def scalar_reduction(
    ctx: Ctx, *, D: int, K: int, M: int, d: int, eta: float, sx2: float, steps: int
) -> list[Evidence]:
    """Consistency check of the code: the (C1, g) recursion is an algebraic reduction of the same
    population GD (DERIVED; from zero init W_V = C1 V* and the logits take two levels with gap g), so only
    a bug in either can fail it. At every seed (random V*, P): identity
    (theory 0, tolerance rule ``atol``) on max |C1 - C1~|, |g - g~| and |excess - excess~| / excess(0)
    over the checkpoints, for linear sigma and (extension, dual kernel) leaky ReLU. Batched: the
    full-matrix runs of every seed in one computation."""
    return [
        Evidence(
            theory=0.0, measured=worst, rtol=ctx.rule("atol"), notes=notes, params=dict(steps_checked=last)
        )
        for worst, notes, last in E.scalar_reduction_deviation(ctx, E.Size(D, K, M, d), eta, sx2, steps)
    ]
