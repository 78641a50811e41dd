"""How many heads Theorem D-train needs (derivation Sect. 5.2): its worst-case head-count condition,
judged on the D-train runs, and the H-monotonicity of its worst-case bound."""

from __future__ import annotations

import itertools
import math

from bounds import deora2023 as B
from verify.core import (
    Alternative,
    Ctx,
    Evidence,
    Expect,
    Kind,
    Plot,
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
from verify.deora2023 import experiments as E
from verify.deora2023.claims.common import TRAIN_CHOICES, TRAIN_PAPER, TRAIN_QUICK


def _experiment(ctx: Ctx, **cfg) -> dict:
    """The D-train experiment at the claim's seed (the runs of ``training``)."""
    return E.train_experiment(ctx.seed, E.TrainConfig(**cfg))


@claim(
    "deora2023.train.Hcond",
    Source("derivation Sect. 5.2 (worst-case sufficient head count)", Provenance.DERIVED),
    kind=Kind.CONDITION,
    statement="the worst-case head-count condition sqrt(H) >= 2 beta_3(r) Dbar^2 of Theorem D-train",
    profiles=Profiles(quick=TRAIN_QUICK, paper=TRAIN_PAPER),
    seeds=SeedPlan(Seeds.EVERY, experiment="train experiment"),
    expect=Expect(Verdict.VACUOUS),
    alternative=Alternative(
        "the same mixture with its tokens at 1/100 of the scale (S = 0.01, noise sigma = 5e-4): beta_3 "
        "falls like R^3 (R^5 u while R^2 u >~ 1) against reference distances ~ 1/S, so the worst-case "
        "head count falls like S^2 to S^4 and the trained H = 64 meets it (GD then hardly moves in K "
        "steps: the condition is met because the curvature vanishes, not because training is easy)",
        overrides={"token_scale": 0.01},
        expect=Verdict.HOLDS,
    ),
    choices=TRAIN_CHOICES,
    report=Report(r"the worst-case head count of Theorem D-train, $\sqrt H\ge2\beta_3(r)\bar D^2$, is met"),
)
def train_Hcond(
    ctx: Ctx, *, n: int, H: int, T: int, d: int, M_irr: int, K: int, eta: float, every: int, seg_points: int,
    eps: tuple[float, ...], late_factor: int, token_scale: float,
) -> Evidence:  # fmt: skip
    """Derivation Sect. 5.2 / claim deora2023.train.Hcond [DERIVED; the paper's own condition
    H >~ beta_3^2 g^4 is RECONSTRUCTED and its exponent NOT RECOVERED]. Kind: condition.
    theory: the smallest over the configurations of .train.logic of H_req = (2 beta_3(D_0 + Dbar) Dbar^2)^2
    (R, ubar_0 realised); measured: the H of the run (the largest this profile trains). Seeds: every
    seed (the condition must be met at every draw; expected vacuous at every seed). ``token_scale``
    (every train.* claim): the mixture's mean norm S and noise sigma scaled by it (1: the defaults;
    0.01 in this claim's alternative world)."""
    ex = _experiment(
        ctx, n=n, H=H, T=T, d=d, M_irr=M_irr, K=K, eta=eta, every=every, seg_points=seg_points,
        eps=tuple(eps), late_factor=late_factor, token_scale=token_scale,
    )  # fmt: skip
    L = ex["loss"]
    req = {
        name: B.required_heads(T, ex["R"], ex["u0"], float(c["D"][0]), eta, K, c["L_ref"], float(L[0]))
        for name, c in ex["cfgs"].items()
    }
    return Evidence(
        theory=min(req.values()),
        measured=H,
        notes=["required H by reference point: " + ", ".join(f"{k}: {float(v):.3g}" for k, v in req.items())],
    )


@claim(
    "deora2023.train.Hmono",
    Source("derivation Sect. 5.2 (H-monotonicity of the D-train bound)", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="the worst-case D-train bound is non-increasing in H and within 1% of the convex rate "
    "once c(H) <= 0.01",
    profiles=Profiles(quick=dict(T=6, R=1.1, ubar0=1.0, D0=3.0, eta=1.0, K=1000, L_ref=0.01, log2_H_max=80)),
    expect=Expect(consistency=True),
    rules={
        "c_small": Rule(
            0.01, "c(H) from which the bound must be near the convex rate", "derivation Sect. 5.2"
        ),
        "gap": Rule(
            0.01, "allowed relative gap to the convex rate once c(H) <= c_small", "derivation Sect. 5.2"
        ),
    },
    report=Report(
        r"the worst-case D-train bound $B(H)$ is non-increasing in $H$ and within 1\% of the convex rate "
        r"once $c(H)\le0.01$",
        Plot(
            x="log2_H",
            curves=[("bound", "worst-case bound $B(H)$")],
            theory="convex_limit",
            theory_label="convex-rate limit",
            xlabel=r"$\log_2 H$",
            ylabel="bound on the average loss",
            logy=True,
        ),
    ),
)
def train_Hmono(
    ctx: Ctx, *, T: int, R: float, ubar0: float, D0: float, eta: float, K: int, L_ref: float, log2_H_max: int
) -> Evidence:
    """Derivation Sect. 5.2 / claim deora2023.train.Hmono [DERIVED; pure theory, mpmath]. Kind: upper.
    Fixed ubar_0, D_0, L_0 = log 2, L(theta_ref); H = 2^j. measured: max of max_j B(2^{j+1})/B(2^j) - 1
    (finite B) and max_{H >= H_1} B(H)/B_inf - 1 - ``gap``, H_1 the first H with c(H) <= ``c_small``
    (rules); theory: 0. The empirical L(theta_K) is NOT claimed to decrease in H (derivation Sect. 10; see
    .lazy's notes).

    Consistency check: it compares the DERIVED bound formula with itself at different H (theory
    against theory, no measured quantity), so no change to the model, the data or a measurement can
    make it fail; it checks the algebra of the bound. The measured counterpart (training loss and the
    D-train premises as H grows) is .train.Hcurve."""
    L0 = math.log(2.0)
    Hs = [2**j for j in range(1, log2_H_max + 1)]
    bounds = [B.dtrain_worst_case(H, T, R, ubar0, D0, eta, K, L_ref, L0) for H in Hs]
    cs = [B._worst_case_c(H, T, R, ubar0, D0, eta, K, L_ref, L0) for H in Hs]
    b_inf = B.convex_limit(L_ref, D0, eta, K, L0)
    mono = max(
        (float(b2 / b1) - 1.0 for b1, b2 in itertools.pairwise(bounds) if b1 != math.inf and b2 != math.inf),
        default=0.0,
    )
    h1 = next((j for j, c in enumerate(cs) if c <= ctx.rule("c_small")), None)
    if h1 is None:
        return Evidence(theory=0.0, measured=None, inconclusive="c(H) > 0.01 for every H tried")
    gap = max(float(b) / b_inf - 1.0 for b in bounds[h1:])
    first = next(j for j, b in enumerate(bounds) if b != math.inf)
    return Evidence(
        theory=0.0,
        measured=max(mono, gap - ctx.rule("gap")),
        series={
            "log2_H": [j + 1 for j in range(first, len(Hs))],
            "bound": [float(b) for b in bounds[first:]],
            "convex_limit": [b_inf] * (len(Hs) - first),
        },
        notes=[
            f"largest relative increase B(2H)/B(H) - 1 = {mono:.3g} (<= 0: non-increasing); "
            f"largest relative gap to the convex limit for H >= H_1: {gap:.3g} (allowed 0.01)",
            f"bound finite from H = 2^{first + 1}; c <= 0.01 from H_1 = 2^{h1 + 1}; "
            f"B(H_1) = {float(bounds[h1]):.5g}, convex limit {b_inf:.5g}",
        ],
    )
