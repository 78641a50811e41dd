"""Invariants of the training dynamics: Lemma C.2 (W_V stays aligned with V*) and the two-level
structure of W_KQ from the proof of Thm 3.1."""

from __future__ import annotations

from bounds import zhang2026 as B
from bounds.mp import to_float
from verify.core import (
    Alternative,
    Choice,
    Ctx,
    Evidence,
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
from verify.zhang2026.claims.common import RateParts, reviewers

ROUNDOFF = "reconstruction pass criterion (round-off level)"


_LEMC2_CHOICES = {
    "eta": Choice(0.1, range=(0.05, 0.2), reason="any stable step: halved or doubled"),
    "steps": Choice(500, range=(200, 1500), reason="'every step': a run of 200 to 1500 steps"),
    "N_mc": Choice(
        3000,
        range=(1000, 9000),
        reason="the Monte Carlo batch of the leaky run (the paper profile's 10^5 is the long end)",
    ),
    "steps_mc": Choice(100, range=(50, 300), reason="the length of the Monte Carlo run: half to 3x"),
    "cos_mc": Choice(
        Rule(
            0.01,
            "leaky ReLU Monte Carlo GD: 1 - min row cosine (sampling noise)",
            "reconstruction pass criterion",
        ),
        range=(0.003, 0.03),
        reason="the sampling-noise tolerance of the Monte Carlo cosines (N_mc = 3000): 0.3% to 3%",
    ),
    "resid": Choice(
        Rule(1e-10, "linear: relative residual ||W_V - C1 V*|| / ||W_V||", ROUNDOFF),
        range=(1e-11, 1e-8),
        reason="a round-off margin for the linear residual and the spread of the row multiples: 10x "
        "tighter to 100x looser; the measured values (at most 7e-16, seeds 0-2) stay five decades "
        "below the tight end, and the loose end still asks W_V to lie on the rows of V* to 1e-8",
    ),
    "c1_first": Choice(
        Rule(1e-12, "linear: |C1(1) - eta sx2|", ROUNDOFF),
        range=(1e-13, 1e-10),
        reason="a round-off margin for C1(1) = eta sx2: 10x tighter to 100x looser; the measured "
        "difference (at most 1.4e-17, seeds 0-2) stays far below the tight end, and 1e-10 still asks "
        "for the first step exactly",
    ),
    "cos_closed": Choice(
        Rule(1e-8, "leaky ReLU closed form: 1 - min row cosine", ROUNDOFF),
        range=(1e-9, 1e-6),
        reason="a round-off margin for 1 - cosine of the leaky closed form: 10x tighter to 100x looser; "
        "the measured value (at most 3.3e-16, seeds 0-2) stays far below the tight end, and the loose "
        "end 1e-6 is still an angle below 1.5e-3 rad",
    ),
}


@claim(
    "zhang2026.lemC2",
    Source(
        "Lemma C.2 (quoted by reviewer 1)",
        Provenance.THIRD_PARTY,
        quote=reviewers(
            "reviewer 1 (Lemma C.2: the rows of the learned value matrix are always positive "
            "multiples of the rows of V*)"
        ),
    ),
    kind=Kind.UPPER,
    statement="every row of W_V^(t) is a positive multiple of the row of V*, at every step t >= 1",
    assumptions=("zero init", "sigma'(0) := 1 for leaky ReLU"),
    profiles=Profiles(quick=dict(D=8, K=2, M=3, d=4, mu=0.0), paper=dict(steps=2000, N_mc=100_000)),
    seeds=SeedPlan(Seeds.EVERY, batched=True),
    alternative=Alternative(
        world="non-centred inputs of raw Gumbel's mean 0.5772 (reviewer 1's Gumbel data, not centred): the "
        "mean term pulls W_V toward V* 1 1^T, off the rows of V*",
        overrides={"mu": 0.5772},
    ),
    choices=_LEMC2_CHOICES,
    report=Report(
        r"Lemma C.2: every row of $W_V^{(t)}$ is a positive multiple of the row of $V^*$, at every step "
        r"$t\ge1$"
    ),
)
def lemC2(
    ctx: Ctx,
    *,
    D: int,
    K: int,
    M: int,
    d: int,
    eta: float,
    steps: int,
    N_mc: int,
    steps_mc: int,
    mu: float,
) -> list[Evidence]:
    """Lemma C.2 (THIRD-PARTY: reviewer 1 states it, class (A)), at every seed (random V* with rows of
    unequal norm, P, Monte Carlo sample). Linear relative residual ||W_V - c V*|| / ||W_V|| and the
    spread of the row multiples within rule ``resid``, C1(1) = eta sx2 (bounds.zhang2026.c1_first_step)
    within ``c1_first``; leaky ReLU closed form: 1 - min row cosine within ``cos_closed`` for t >= 1;
    leaky ReLU Monte Carlo GD (fixed sample of N_mc Gaussian inputs, sigma'(0) = 1): 1 - row cosine
    within ``cos_mc`` after steps_mc steps; all row multiples > 0. Headline: the worst condition. ``mu``:
    the inputs' mean (0, the lemma's Gaussian inputs; 0.5772 in the alternative world, applied to the
    linear population run and the Monte Carlo sample). Batched: the runs of every seed in one computation."""
    return [
        _lemC2_evidence(ctx, a, eta, N_mc, steps_mc)
        for a in E.alignment(ctx, E.Size(D, K, M, d), eta, steps, N_mc, steps_mc, mu)
    ]


def _lemC2_evidence(ctx: Ctx, a: E.Alignment, eta: float, N_mc: int, steps_mc: int) -> Evidence:
    """lemC2's conditions at one seed."""
    parts = RateParts()
    parts.tol("linear: max relative residual ||W_V - C1 V*|| / ||W_V||", a.resid, ctx.rule("resid"))
    parts.tol("linear: max spread of the row multiples (common C1)", a.spread, ctx.rule("resid"))
    parts.tol(
        "linear: C1(1) - eta sx2", a.c1_first - to_float(B.c1_first_step(eta, 1.0)), ctx.rule("c1_first")
    )
    parts.tol("leaky closed form: 1 - min row cosine", 1.0 - a.cos_leaky, ctx.rule("cos_closed"))
    parts.atleast("min row multiple over t >= 1, all rows, linear and leaky", a.min_mult, 0.0)
    parts.tol(
        f"leaky Monte Carlo (N={N_mc}, {steps_mc} steps): 1 - min row cosine",
        1.0 - a.cos_mc,
        ctx.rule("cos_mc"),
    )
    return parts.evidence(headline=parts.worst_name(), series={"t": a.times.tolist()})


_KQ_STRUCTURE_SOURCE = (
    "the proof structure of Thm 3.1 (C1-C3 dynamics) as the ICLR 2026 reviews of the paper "
    "(OpenReview forum ukiRIdgoIF) describe it; class (A)"
)
_KQ_STRUCTURE_CHOICES = {
    "D": Choice(8, options=(8, 12), reason="any D > K"),
    "K": Choice(3, options=(1, 2, 3, 4), reason="any support size 1 <= K < D"),
    "eta": Choice(0.1, range=(0.05, 0.2), reason="any stable step: halved or doubled"),
    "steps": Choice(2000, range=(500, 6000), reason="the length of the run: 500 to 3x ours"),
    "spread": Choice(
        Rule(1e-8, "relative spread of the on- / off-support entries of P^T W_KQ P", ROUNDOFF),
        range=(1e-9, 1e-6),
        reason="a round-off margin for the relative spread within the on- and off-support levels: 10x "
        "tighter to 100x looser; the measured spread (at most 8.4e-15, seeds 0-2) stays five decades "
        "below the tight end, and 1e-6 is still two exact levels",
    ),
    "ratio": Choice(
        Rule(1e-8, "|K C2 / ((D-K) C3) - 1|", ROUNDOFF),
        range=(1e-9, 1e-6),
        reason="a round-off margin for K C2 = (D-K) C3: 10x tighter to 100x looser; the measured "
        "deviation (at most 8.9e-16, seeds 0-2) stays far below the tight end, and 1e-6 is still the "
        "identity, not an approximation",
    ),
}


@claim(
    "zhang2026.kq_structure",
    Source(
        "proof of Thm 3.1 (C1, C2, C3 dynamics; [S]); derivation Sect. 5.3",
        Provenance.THIRD_PARTY,
        quote=_KQ_STRUCTURE_SOURCE,
    ),
    kind=Kind.UPPER,
    statement="W_KQ^(t) = C2 sum_i sum_{i' in G_i} p_i' p_i^T - C3 sum_i sum_{i' not in G_i} p_i' p_i^T "
    "with K C2 = (D-K) C3, and W_KQ^(1) = 0",
    assumptions=("uniform-K S*", "zero init", "linear sigma"),
    profiles=Profiles(quick=dict(M=2, d=3, weights=None)),
    seeds=SeedPlan(Seeds.EVERY, batched=True),
    alternative=Alternative(
        world="a teacher with unequal weights (0.6, 0.3, 0.1) on each 3-support (reviewer 4's non-uniform "
        "S*): the on-support logits no longer share one level",
        overrides={"weights": (0.6, 0.3, 0.1)},
    ),
    choices=_KQ_STRUCTURE_CHOICES,
    report=Report(
        r"$W_{KQ}^{(t)}=C_2\sum_i\sum_{i'\in G_i}p_{i'}p_i^\top-C_3\sum_i\sum_{i'\notin G_i}"
        r"p_{i'}p_i^\top$ with $KC_2=(D-K)C_3$, and $W_{KQ}^{(1)}=0$"
    ),
)
def kq_structure(
    ctx: Ctx, *, D: int, K: int, M: int, d: int, eta: float, steps: int, weights: tuple[float, ...] | None
) -> list[Evidence]:
    """The proof's invariant [S] (K C2 = (D-K) C3 is DERIVED), at every seed (random V*, P): relative
    spread of the on-support and off-support entries of P^T W_KQ P within
    rule ``spread``; K C2 / ((D-K) C3) = 1 within ``ratio`` (theory C2/C3 =
    bounds.zhang2026.kq_level_ratio); W_KQ^(1) = 0 exactly; over checkpoints t >= 2. Headline: the worst
    condition. ``weights``: None (uniform-K teacher) or the K support weights of a circulant teacher (the
    alternative world). Batched: the runs of every seed in one computation."""
    return [_kq_evidence(ctx, s, steps) for s in E.kq_structure(ctx, E.Size(D, K, M, d), eta, steps, weights)]


def _kq_evidence(ctx: Ctx, s: E.KQStructure, steps: int) -> Evidence:
    """kq_structure's conditions at one seed."""
    parts = RateParts()
    parts.exact("W_KQ^(1) == 0", s.first_zero)
    parts.tol("max relative spread of on-support entries of P^T W P", s.spread_on, ctx.rule("spread"))
    parts.tol("max relative spread of off-support entries", s.spread_off, ctx.rule("spread"))
    parts.tol("max |K C2 / ((D-K) C3) - 1|", s.ratio_dev, ctx.rule("ratio"))
    C1, C2, C3 = s.last
    return parts.evidence(
        headline=parts.worst_name(), notes=[f"at t={steps}: C1 = {C1:.6f}, C2 = {C2:.6f}, C3 = {C3:.6f}"]
    )
