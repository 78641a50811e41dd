"""The paper's ablation with a full one-layer transformer on tokens [X; P] (the claim ``fullTF``): its
parameters concentrate in the blocks that position-only attention keeps."""

from __future__ import annotations

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
from verify.zhang2026 import experiments as E
from verify.zhang2026.claims.common import NOTE, SGD_BATCH, RateParts

_FULLTF_CHOICES = {
    "D": Choice(8, options=(8, 12), reason="the ablation's sizes are not recovered"),
    "M": Choice(2, options=(2, 4), reason="the ablation's sizes are not recovered"),
    "eta": Choice(
        0.1,
        range=(0.05, 0.2),
        reason="the paper's step is not recovered: halved or doubled (stable step 0.5 here)",
    ),
    "vnorm": Choice(4.0, range=(2.0, 8.0), reason="||V*||_F is not fixed by the paper: halved or doubled"),
    "N": SGD_BATCH,
    "steps": Choice(
        1000,
        range=(500, 3000),
        reason="the length of training: from half ours (22 T_0, the attention has left uniform) to the "
        "paper profile's 3000",
    ),
    "share": Choice(
        Rule(0.9, "share of the squared norm in the expected block", "attncheck (exploratory)"),
        range=(0.8, 0.95),
        reason="'the parameters concentrate in the block' read as a share of the squared norm: 80% to "
        "95% (ours, exploratory)",
    ),
    "attn_decay": Choice(
        Rule(
            1.0,
            "max |S(W_KQ[d:, d:]) - S*| at T_max over its value at T_max / 10 (the attention is still "
            "approaching S*; at zero init the error is 1/K - 1/D)",
        ),
        basis="single",
        reason="'still falling' is the ratio of the error at T_max to T_max / 10 below 1; another bound "
        "states something else",
    ),
}


@claim(
    "zhang2026.fullTF",
    Source(
        "full one-layer TF ablation ([S]: parameter heatmaps justify position-only attention)",
        Provenance.THIRD_PARTY,
        quote=NOTE,
    ),
    kind=Kind.UPPER,
    statement="a full one-layer TF on Z = [X; P] from zero init, linear sigma and leaky ReLU: >= 90% of "
    "||W_V||^2 in the feature block and of ||W_KQ||^2 in the position-position block, and the attention of "
    "that block recovers S* (the top-K entries of every column on G_i, max |S(W_KQ) - S*| still falling)",
    assumptions=("zero init", "online GD with fresh Gaussian batches of N inputs (population surrogate)"),
    profiles=Profiles(
        quick=dict(K=2, d=3, acts=("linear", "leaky"), mixing="position"), paper=dict(N=1000, steps=3000)
    ),
    seeds=SeedPlan(Seeds.EVERY),
    alternative=Alternative(
        world="a teacher that mixes tokens by their content, S(X) = column-softmax(X^T X) (reviewer 4's "
        "contrast with Wang et al. 2024, where the attention must read the input): the updates of W_KQ go "
        "to its feature block",
        overrides={"mixing": "content"},
    ),
    choices=_FULLTF_CHOICES,
    report=Report(
        r"a full one-layer transformer on $Z=[X;P]$ from zero initialisation (linear $\sigma$ and leaky "
        r"ReLU) puts at least 90\% of $\|W_V\|^2$ in the feature block and of $\|W_{KQ}\|^2$ in the "
        r"position-position block, whose attention recovers $S^*$ (the top-$K$ entries of every column on "
        r"$G_i$, $\max|S(W_{KQ})-S^*|$ still falling)",
        Plot(
            x="t",
            curves=[
                ("linear_attn_err", r"full TF, linear $\sigma$"),
                ("leaky_attn_err", r"full TF, leaky ReLU"),
            ],
            theory="position_only_attn_err",
            theory_label=r"position-only model (linear $\sigma$, population GD)",
            xlabel="GD step $t$",
            ylabel=r"$\max|S(W_{KQ})-S^*|$, first seed",
            logx=True,
            logy=True,
        ),
    ),
)
def fullTF(
    ctx: Ctx,
    *,
    D: int,
    K: int,
    M: int,
    d: int,
    eta: float,
    vnorm: float,
    N: int,
    steps: int,
    acts: tuple[str, ...],
    mixing: str,
) -> Evidence:
    """The paper justifies position-only attention by this ablation [S] (THIRD-PARTY, the paper note;
    the note's synthetic experiments use linear sigma and leaky ReLU). Full model (model.FullTF): W_V
    (M, d+D), W_KQ (d+D, d+D), input-dependent attention; ``steps`` online GD steps on N fresh Gaussian
    inputs each (noise-free labels; 1000 steps is 44 T_0 at the quick defaults, after the attention has
    left uniform). At every seed, for each activation in ``acts``: ||W_V[:, :d]||^2 / ||W_V||^2 and
    ||W_KQ[d:, d:]||^2 / ||W_KQ||^2 at least ``share``; the top-K entries of every column of
    S(W_KQ[d:, d:]) on G_i; max |S(W_KQ[d:, d:]) - S*| at T_max over its value at T_max / 10 within
    ``attn_decay``. Reported: the position-only model's max |A - S*| at T_max (the (C1, g) reduction).
    ``mixing``: "position" (S*) or "content" (the alternative world; only the shares are judged there,
    its teacher has no S*). Headline: the worst condition."""
    parts, notes, share = RateParts(), [], ctx.rule("share")
    tt = E.log_grid(steps)
    series: dict[str, list] = {"t": tt.tolist()}
    for s in E.full_tf_shares(ctx, E.Size(D, K, M, d), eta, vnorm, N, steps, acts, mixing):
        parts.atleast(f"{s.act}: feature-block share of ||W_V||^2", s.feature_share, share)
        parts.atleast(f"{s.act}: position-block share of ||W_KQ||^2", s.position_share, share)
        if mixing == "position":
            parts.exact(f"{s.act}: top-{K} of every column of S(W_KQ[d:, d:]) on G_i", s.support)
            parts.tol(
                f"{s.act}: max |S(W_KQ[d:, d:]) - S*| at T_max / at T_max / 10",
                s.attn_err / s.attn_err_early,
                ctx.rule("attn_decay"),
            )
        notes.append(s.note)
        series[f"{s.act}_attn_err"] = [s.attn_curve[t] for t in tt]
    _, mx = E.attn_error(E.scalar_run(D, K, eta, tt.tolist(), 1.0, vnorm**2).g, D, K)
    series["position_only_attn_err"] = mx.tolist()
    notes.append(
        f"position-only model (linear sigma, population GD) at t = {steps}: max |A - S*| = {mx[-1]:.3f}"
    )
    return parts.evidence(headline=parts.worst_name(), notes=notes, series=series)
