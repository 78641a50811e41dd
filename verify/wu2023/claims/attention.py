"""Attention under the two scalings (Sect. 4 scaling discussion, Sect. 4.5): under
tau0 = d_m^-1 the softmax tends to uniform, the Q/K part of the NTK vanishes and the model tends to
average pooling; under d_m^-1/2 none of this happens. Every claim here is a rate ("scales like
d_m^p"), judged by the shared rate rule on one replicate per seed of the claim's seed set."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

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
from verify.wu2023 import experiments as E
from verify.wu2023.claims.common import CRITERION, rate_evidence

#: Our first criterion asks for the mean over >= 20 seeds of the (noisy) attention deviation; one
#: sequence per seed leaves the 95% interval of the slope about 0.16 wide at 20 seeds, as wide as the
#: band of attn.degenerate.sqrt, so the quick set has 60 (interval about 0.09 wide).
_S_DEV_SEEDS = SeedPlan(Seeds.POOLED, quick=60, paper=100)
#: The Q/K-share claims: at 3 seeds the 95% interval was 1.3 wide (the d_m^-1/2 softmax is redrawn at
#: O(1) at every width); 20 seeds give about 0.26.
_QK_SEEDS = SeedPlan(Seeds.POOLED, quick=20, paper=20)


#: the token dimension of both degenerate-attention claims
_TOKEN_D = Choice(
    6,
    range=(4, 16),
    reason="the token dimension (ours; the law of large numbers in d_m holds at any d): 4 to 16",
)
#: the width ladder of both degenerate-attention claims
_LLN_WIDTHS = Choice(
    [16, 64, 256, 1024, 4096],
    options=([16, 64, 256, 1024, 4096], [64, 256, 1024, 4096, 16384], [16, 64, 256, 1024]),
    reason="the width ladder (ours; a law of large numbers in d_m fixes none): steps of 4, shifted"
    " up one step or one point shorter at the top",
)
#: the number of examples N, shared by the claims that name it
_EXAMPLES_N = Choice(
    6, range=(4, 10), reason="the number of examples (ours; the paper profile's 10 is the upper end): 4 to 10"
)
#: the width ladder in steps of 4 from 64, shared by the claims that name it
_WIDTHS_X4 = Choice(
    [64, 256, 1024, 4096],
    options=([64, 256, 1024, 4096], [32, 128, 512, 2048], [128, 512, 2048, 8192]),
    reason="the width ladder (ours): steps of 4, shifted down or up by a factor 2",
)


_ATTN_DEGENERATE_CHOICES = {
    "tol": Choice(
        Rule(0.15, "our first criterion's slope window [-0.65, -0.35] around -1/2", CRITERION),
        range=(0.1, 0.25),
        reason="from 0.1 to 0.25 around -1/2: 0.25 is half the distance to the competing exponent 0 (the "
        "widest band that still separates the two)",
    ),
    "d": _TOKEN_D,
    "widths": _LLN_WIDTHS,
}


@claim(
    "wu2023.attn.degenerate",
    Source("Sect. 4 scaling discussion (tau0 = d_m^-1); derivation Sect. 2.2", Provenance.DERIVED),
    kind=Kind.RATE,
    statement="under tau0 = d_m^-1, max|S - 1/d_s| decays like d_m^-1/2 (attention -> average pooling)",
    profiles=Profiles(quick=dict(d_s=5, tau0_power=1.0)),
    seeds=_S_DEV_SEEDS,
    alternative=Alternative(
        world="tau0 = d_m^-1/2 (Thm 1's scaling): the logits stay O(1) and random, so the attention stays "
        "Theta(1) away from uniform (as wu2023.attn.degenerate.sqrt states)",
        overrides={"tau0_power": 0.5},
    ),
    choices=_ATTN_DEGENERATE_CHOICES,
    report=Report(
        r"$\tau_0=d_m^{-1}$: $\max_{ij}|S_{ij}-1/d_s|$ decays like $d_m^{-1/2}$ (attention tends "
        "to average pooling)",
        Plot.rate(
            -0.5,
            "d_m",
            [("geo_mean", "deviation from uniform (geometric mean over seeds)")],
            "width $d_m$",
            r"$\max_{ij}|S_{ij}-1/d_s|$",
        ),
    ),
)
def attn_degenerate(ctx: Ctx, *, widths: list[int], d: int, d_s: int, tau0_power: float) -> Evidence:
    """Wu et al. 2023 (reviews: "the softmax output tends to 1/d_s"). Kind: rate,
    DERIVED (law of large numbers: the logits are O(d_m^-1/2)). theory: -1/2; measured: the rate fit
    of max_ij |S_ij - 1/d_s| at LeCun init ("active" N(0, I) tokens, one sequence per seed) against
    d_m, under tau0 = d_m^-``tau0_power`` (the statement: 1; the alternative world 1/2)."""
    dev = E.s_dev_sweep(ctx, tau0_power, widths, d, d_s)
    return rate_evidence(ctx, -0.5, widths, dev, series={"d_m": widths})


_ATTN_NONDEGENERATE_CHOICES = {
    "tol": Choice(
        Rule(0.15, "our first criterion's window |slope| <= 0.15 (Theta(1): no trend)", CRITERION),
        range=(0.1, 0.25),
        reason="from 0.1 to 0.25 around 0: 0.25 is half the distance to the competing exponent -1/2 (the "
        "widest band that still separates the two)",
    ),
    "d": _TOKEN_D,
    "widths": _LLN_WIDTHS,
}


@claim(
    "wu2023.attn.degenerate.sqrt",
    Source("Sect. 4 scaling discussion (tau0 = d_m^-1/2); derivation Sect. 2.2", Provenance.DERIVED),
    kind=Kind.RATE,
    statement="under tau0 = d_m^-1/2 the attention does not become uniform: max|S - 1/d_s| = Theta(1)",
    profiles=Profiles(quick=dict(d_s=5, tau0_power=0.5)),
    seeds=_S_DEV_SEEDS,
    alternative=Alternative(
        world="tau0 = d_m^-1 (Thm 2's scaling): the logits are O(d_m^-1/2) and the attention becomes uniform "
        "like d_m^-1/2 (as wu2023.attn.degenerate states)",
        overrides={"tau0_power": 1.0},
    ),
    choices=_ATTN_NONDEGENERATE_CHOICES,
    report=Report(
        r"$\tau_0=d_m^{-1/2}$: $\max_{ij}|S_{ij}-1/d_s|=\Theta(1)$ in $d_m$ (exponent $0$: no "
        "uniform attention)",
        Plot.rate(
            0.0,
            "d_m",
            [("geo_mean", "deviation from uniform (geometric mean over seeds)")],
            "width $d_m$",
            r"$\max_{ij}|S_{ij}-1/d_s|$",
            logy=False,
        ),
    ),
)
def attn_degenerate_sqrt(ctx: Ctx, *, widths: list[int], d: int, d_s: int, tau0_power: float) -> Evidence:
    """Scaling discussion, tau0 = d_m^-1/2 (CLT: the logits stay random and O(1)). Kind: rate (exponent 0),
    DERIVED. measured: the rate fit as in ``wu2023.attn.degenerate`` under tau0 = d_m^-``tau0_power`` (the
    statement: 1/2; the alternative world 1)."""
    dev = E.s_dev_sweep(ctx, tau0_power, widths, d, d_s)
    return rate_evidence(ctx, 0.0, widths, dev, series={"d_m": widths})


_QK_VANISH_CHOICES = {
    "tol": Choice(
        Rule(0.3, "our first criterion's window [-1.5, -0.7]: 1/d_m with 0.3 of room", CRITERION),
        range=(0.2, 0.5),
        reason="from 0.2 to 0.5 around -1: 0.5 is half the distance to the competing exponent 0",
    ),
    "N": _EXAMPLES_N,
    "widths": _WIDTHS_X4,
}


@claim(
    "wu2023.qk.vanish",
    Source("Sect. 4.5 (loss of pairwise interaction under d_m^-1); derivation Sect. 2.2", Provenance.DERIVED),
    kind=Kind.RATE,
    statement="under tau0 = d_m^-1 the Q/K share of the NTK relative to the V block decays like 1/d_m",
    profiles=Profiles(
        quick=dict(d=8, d_s=4, tau0_power=1.0), paper=dict(widths=[256, 1024, 4096, 16384], N=10, d=16)
    ),
    seeds=_QK_SEEDS,
    alternative=Alternative(
        world="tau0 = d_m^-1/2 (Thm 1's scaling): the Q/K share stays Theta(1), pairwise interaction kept "
        "(as wu2023.qk.vanish.sqrt states)",
        overrides={"tau0_power": 0.5},
    ),
    choices=_QK_VANISH_CHOICES,
    report=Report(
        r"$\tau_0=d_m^{-1}$: the $Q/K$ share of the NTK, $(\|J_Q\|^2+\|J_K\|^2)/\|J_V\|^2$, decays "
        "like $d_m^{-1}$",
        Plot.rate(
            -1.0,
            "d_m",
            [("geo_mean", "$Q/K$ share (geometric mean over seeds)")],
            "width $d_m$",
            r"$(\|J_Q\|^2+\|J_K\|^2)/\|J_V\|^2$",
        ),
    ),
)
def qk_vanish(ctx: Ctx, *, widths: list[int], N: int, d: int, d_s: int, tau0_power: float) -> Evidence:
    """The reviews' "loss of pairwise token interaction".
    Kind: rate, DERIVED. theory: -1; measured: rate fit of R = (|J_Q|^2 + |J_K|^2)/|J_V|^2 at LeCun
    init ("paper" tokens) against d_m, under tau0 = d_m^-``tau0_power`` (the statement: 1; the
    alternative world 1/2). The NTK-init slope is reported."""
    R = E.qk_sweep(ctx, tau0_power, widths, N, d, d_s, "lecun")
    Rn = E.qk_sweep(ctx, tau0_power, widths, N, d, d_s, "ntk")
    slope = float(np.polyfit(np.log(widths), np.log(Rn).mean(axis=1), 1)[0])
    return rate_evidence(ctx, -1.0, widths, R, series={"d_m": widths}, notes=[f"NTK init slope {slope:.3f}"])


_QK_VANISH_SQRT_CHOICES = {
    "tol": Choice(
        Rule(0.3, "our first criterion's window |slope| <= 0.3 (Theta(1): no trend)", CRITERION),
        range=(0.2, 0.5),
        reason="from 0.2 to 0.5 around 0: 0.5 is half the distance to the competing exponent -1",
    ),
    "N": _EXAMPLES_N,
    "widths": _WIDTHS_X4,
}


@claim(
    "wu2023.qk.vanish.sqrt",
    Source("Sect. 4 scaling discussion (tau0 = d_m^-1/2); derivation Sect. 2.2", Provenance.DERIVED),
    kind=Kind.RATE,
    statement="under tau0 = d_m^-1/2 the Q/K share of the NTK relative to the V block stays Theta(1)",
    profiles=Profiles(
        quick=dict(d=8, d_s=4, tau0_power=0.5), paper=dict(widths=[256, 1024, 4096, 16384], N=10, d=16)
    ),
    seeds=_QK_SEEDS,
    alternative=Alternative(
        world="tau0 = d_m^-1 (Thm 2's scaling): the Q/K share vanishes like 1/d_m (as wu2023.qk.vanish "
        "states)",
        overrides={"tau0_power": 1.0},
    ),
    choices=_QK_VANISH_SQRT_CHOICES,
    report=Report(
        r"$\tau_0=d_m^{-1/2}$: $(\|J_Q\|^2+\|J_K\|^2)/\|J_V\|^2=\Theta(1)$ in $d_m$ (exponent $0$)",
        Plot.rate(
            0.0,
            "d_m",
            [("geo_mean", "$Q/K$ share (geometric mean over seeds)")],
            "width $d_m$",
            r"$(\|J_Q\|^2+\|J_K\|^2)/\|J_V\|^2$",
            logy=False,
        ),
    ),
)
def qk_vanish_sqrt(ctx: Ctx, *, widths: list[int], N: int, d: int, d_s: int, tau0_power: float) -> Evidence:
    """The counterpart of ``wu2023.qk.vanish`` under tau0 = d_m^-1/2. Kind: rate (exponent 0), DERIVED.
    measured: rate fit of R (as in ``wu2023.qk.vanish``) under tau0 = d_m^-``tau0_power`` (the
    statement: 1/2; the alternative world 1), LeCun."""
    R = E.qk_sweep(ctx, tau0_power, widths, N, d, d_s, "lecun")
    return rate_evidence(ctx, 0.0, widths, R, series={"d_m": widths})


_REVIEW_POOLING_CHOICES = {
    "tol": Choice(
        Rule(0.2, "the d_m^-1/2 law; the window [-0.7, -0.3] of ntk.limit", "attncheck"),
        range=(0.1, 0.25),
        reason="from 0.1 to 0.25 around -1/2: 0.25 is half the distance to the competing exponent 0",
    ),
    "d": Choice(
        16,
        range=(8, 32),
        reason="the token dimension (ours; the O(d_m^-1/2) law holds at any d): half to twice ours",
    ),
    "widths": _WIDTHS_X4,
}


@claim(
    "wu2023.review.pooling",
    Source(
        "reviewer question: attention replaced by pooling S = 11^T/d_s; derivation Sect. 2.2",
        Provenance.DERIVED,
    ),
    kind=Kind.RATE,
    statement="under tau0 = d_m^-1 the model with attention and with average pooling differ by "
    "O(d_m^-1/2) at init",
    profiles=Profiles(
        quick=dict(N=8, d_s=4, steps=30, gd_seeds=3, tau0_power=1.0),
        paper=dict(widths=[64, 256, 1024, 4096, 16384], steps=200),
    ),
    seeds=SeedPlan(Seeds.POOLED, quick=60, paper=60),
    alternative=Alternative(
        world="tau0 = d_m^-1/2 (Thm 1's scaling): the attention stays random and O(1), so the model stays "
        "Theta(1) away from pooling at every width (the f_gap_sqrt curve)",
        overrides={"tau0_power": 0.5},
    ),
    choices=_REVIEW_POOLING_CHOICES,
    report=Report(
        r"$\tau_0=d_m^{-1}$: at init "
        r"$|f_{\mathrm{attn}}-f_{\mathrm{pool}}|/|f_{\mathrm{pool}}|=O(d_m^{-1/2})$, "
        r"$f_{\mathrm{pool}}$ with $S=\mathbf{1}\mathbf{1}^\top/d_s$",
        Plot.rate(
            -0.5,
            "d_m",
            [
                ("geo_mean", r"$\tau_0=d_m^{-1}$ (the claim)"),
                ("f_gap_sqrt", r"$\tau_0=d_m^{-1/2}$ (for contrast)"),
            ],
            "width $d_m$",
            r"$|f_{\mathrm{attn}}-f_{\mathrm{pool}}|\,/\,|f_{\mathrm{pool}}|$",
        ),
    ),
)
def review_pooling(
    ctx: Ctx, *, N: int, d: int, d_s: int, widths: list[int], steps: int, gd_seeds: int, tau0_power: float
) -> Evidence:
    """Reviewer question 3 (replace attention by pooling). Kind: rate, DERIVED (S - 1/d_s =
    O(d_m^-1/2) under d_m^-1). theory: -1/2; measured: rate fit of |f_attn - f_pool| / |f_pool| at
    init against d_m under tau0 = d_m^-``tau0_power`` (the statement: 1; the alternative world 1/2), one
    draw per seed of the seed set. The max loss-curve gap along GD (same weights,
    same gamma) for both scalings, at the first ``gd_seeds`` seeds (reported, not judged), is in the
    series and notes."""
    gap = E.pooled(
        ctx,
        E.pooling_gap,
        widths,
        lambda w, s: E.Point(seed=s, key=0, N=N, d=d, d_s=d_s, d_m=w, tau0_power=tau0_power, regime="active"),
    )
    sub = replace(ctx, seed_set=ctx.seed_set[:gd_seeds])
    res = {}
    for p in (1.0, 0.5):
        res[p] = E.pooled(
            sub,
            E.pooling_point,
            widths,
            lambda w, s, p=p: E.PoolingPoint(
                seed=s, key=0, N=N, d=d, d_s=d_s, d_m=w, tau0_power=p, regime="active", steps=steps
            ),
        )
    gaps = {p: (res[p][..., 0].mean(1), res[p][..., 1].mean(1)) for p in res}
    return rate_evidence(
        ctx,
        -0.5,
        widths,
        gap,
        series={
            "d_m": widths,
            "loss_gap_inv": gaps[1.0][1].tolist(),
            "f_gap_sqrt": gaps[0.5][0].tolist(),
            "loss_gap_sqrt": gaps[0.5][1].tolist(),
        },
        notes=[
            f"first {len(sub.seed_set)} seeds: d_m^-1: output gap {gaps[1.0][0].round(4).tolist()}, "
            f"loss-curve gap {gaps[1.0][1].round(4).tolist()}; d_m^-1/2: output gap "
            f"{gaps[0.5][0].round(3).tolist()}, loss-curve gap {gaps[0.5][1].round(3).tolist()}"
        ],
    )
