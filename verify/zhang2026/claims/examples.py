"""The paper's Examples 2.1-2.4 and its experiments: the MNIST experiment (on a digits stand-in) and the
full one-layer transformer ablation."""

from __future__ import annotations

import numpy as np

from bounds import zhang2026 as B
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
    SeedPlan,
    Seeds,
    Source,
    Verdict,
    claim,
)
from verify.zhang2026 import data as D
from verify.zhang2026 import experiments as E
from verify.zhang2026.claims.common import (
    DECAY_WORLD,
    MAX_ENTRY_CHOICE,
    NOTE,
    REVIEWS,
    SGD_BATCH,
    SLOPE_MC_CHOICE,
    RateParts,
    fit_decades,
    rate_times,
)


def _teacher(name: str, n: int, K: int, rng: np.random.Generator) -> np.ndarray:
    """S* of an example; the selection task's target set is drawn from ``rng`` (a fixed set per seed)."""
    if name == "selection":
        return D.s_selection(n, K, np.sort(rng.choice(n, K, replace=False)))
    return D.example(name, n, K)


_EXAMPLES_CHOICES = {
    "M": Choice(
        2,
        options=(2, 4),
        basis="plausible",
        reason="the output dimension is not fixed by the paper (with linear sigma the dynamics see V* "
        "only through ||V*||_F)",
    ),
    "d": Choice(3, options=(3, 6), basis="plausible", reason="the token dimension is not fixed by the paper"),
    "eta": Choice(
        0.1,
        range=(0.05, 0.1),
        basis="plausible",
        reason="the paper's step is not recovered; from half ours up to ours, the largest round value "
        "below the group-sparse example's stable step 2 D K/||V*||_F^2 = 0.111",
    ),
    "vnorm": Choice(
        12.0,
        range=(6.0, 12.0),
        basis="plausible",
        reason="||V*||_F is not fixed by the paper; from half ours (4x the steps) up to ours, near the "
        "largest that keeps eta = 0.1 stable for the group-sparse example",
    ),
    "tmax_T0": Choice(
        1000,
        range=(300, 3000),
        basis="plausible",
        reason="the horizon in T_0, a third of ours to 3 x ours (about 3x the cost)",
    ),
    "leaky": Choice(
        False,
        options=(False, True),
        basis="plausible",
        reason="the paper's synthetic experiments use linear sigma and leaky ReLU; quick judges linear, "
        "the paper profile both",
    ),
    "slope_tol": SLOPE_MC_CHOICE,
    "max_entry": MAX_ENTRY_CHOICE,
}


@claim(
    "zhang2026.examples",
    Source("Examples 2.1-2.4; Fig. 2 heatmaps ([S])", Provenance.EXACT_FROM_REVIEWS),
    kind=Kind.UPPER,
    statement="each example is a member of the teacher class and the full model recovers it: top-K of every "
    "column of A = G_i, max |A - S*| <= 0.05, tail exponent -1",
    assumptions=("zero init", "Gaussian inputs", "linear sigma (quick); and leaky ReLU (paper)"),
    profiles=Profiles(quick=dict(step_decay=False), paper=dict(leaky=True)),
    seeds=SeedPlan(Seeds.POOLED),
    expect=Expect(paper=Verdict.INCONCLUSIVE),
    alternative=Alternative(world=DECAY_WORLD, overrides={"step_decay": True}),
    choices=_EXAMPLES_CHOICES,
    report=Report(
        r"each of Examples 2.1--2.4 is in the teacher class and is recovered: the top-$K$ entries of every "
        r"column of $A^{(T)}$ are $G_i$, $\max|A-S^*|\le0.05$, tail exponent $-1$",
        Plot.rate(
            -1.0,
            "",
            [
                ("conv_pool_linear_excess_first", r"conv + pool ($D=16$, $K=4$)"),
                ("gcn_cycle_linear_excess_first", r"cycle GCN ($D=8$, $K=3$)"),
                ("selection_linear_excess_first", r"selection ($D=8$, $K=2$)"),
                ("group_sparse_linear_excess_first", r"group-sparse ($D=8$, $K=1$)"),
            ],
            r"$T\,/\,T_0$",
            r"excess loss $\mathcal{E}(T)$, first seed",
            symbol="T",
            grid=(10.0, 10**0.25),
        ),
    ),
)
def examples(
    ctx: Ctx, *, M: int, d: int, eta: float, vnorm: float, tmax_T0: int, leaky: bool, step_decay: bool
) -> Evidence:
    """Examples 2.1-2.4 [P], each teacher with its own S*: conv + 2x2 avg-pool (4x4 patch grid, D=16,
    K=4), cycle GCN (D=8, K=3), fixed selection of K=2 target tokens drawn per seed (D=8), group-sparse
    (D=8, K=1). Full-matrix population GD of the model (linear sigma; leaky ReLU when ``leaky``) from
    zero init to T_max = tmax_T0 T_0, one V* ~ ||V*||_F = vnorm per seed. Per example: exactly K entries
    1/K per column; at every seed the top-K entries of every column of A(T_max) are G_i and max |A - S*|
    is within ``max_entry``; rate rule (tolerance ``slope_tol``) on the excess at T_0 10^(k/4) from 10 T_0,
    pooled over the seeds. Headline: the least favourable rate. ``step_decay``: the alternative world (the
    linear runs' step decays like (1 + t/T_0)^-1/2)."""
    seeds, parts, series = list(ctx.seed_set), RateParts(), {}
    for name, n, K in E.EXAMPLES:
        rngs = [np.random.default_rng([s, 1]) for s in seeds]
        Vs = np.stack([D.random_v(M, d, r, vnorm) for r in rngs])
        Ss = np.stack([_teacher(name, n, K, r) for r in rngs])
        parts.exact(
            f"{name}: exactly K={K} entries 1/K per column", all(D.is_uniform_teacher(S, K) for S in Ss)
        )
        T0 = E.onset(n, K, eta, 1.0, vnorm**2)
        tt = rate_times(T0, 10, tmax_T0)
        runs = [("linear", E.batched_population_gd(Vs, Ss, eta, tt, T0 if step_decay else 0.0))]
        if leaky:
            full = [
                E.population_gd(V, S, np.eye(n), eta, tt, act=E.LEAKY) for V, S in zip(Vs, Ss, strict=True)
            ]
            runs.append(
                ("leaky", (np.stack([f.excess for f in full], 1), None, np.stack([f.A for f in full], 1)))
            )
        for act, (ex, _, A) in runs:
            top = np.argsort(-A[-1], axis=1, kind="stable")[:, :K]  # (seeds, K, D)
            ok = all(
                set(top[k, :, i].tolist()) == set(np.nonzero(Ss[k][:, i])[0].tolist())
                for k in range(len(seeds))
                for i in range(n)
            )
            parts.exact(f"{name}/{act}: top-{K} of every column of A(T_max) is G_i, every seed", ok)
            parts.tol(
                f"{name}/{act}: max |A - S*| at T_max = {int(tt[-1])}, worst seed",
                float(np.abs(A[-1] - Ss).max()),
                ctx.rule("max_entry"),
            )
            parts.rate(
                f"{name}/{act}: excess ~ T^p", fit_decades(tt, ex), B.RATE_EXPONENT, ctx.rule("slope_tol")
            )
            series[f"{name}_{act}_excess_first"] = ex[:, 0].tolist()
            series[f"{name}_{act}_heatmap_first"] = np.round(A[-1, 0], 4).tolist()
    return parts.evidence(series=series)


_DIGITS_CHOICES = {
    "M": Choice(
        4,
        options=(2, 4, 8),
        basis="plausible",
        reason="the number of filters (the paper's trained CNN filters are not recovered): 2 to 8 PCA "
        "filters",
    ),
    "steps": Choice(
        3000,
        range=(1000, 10_000),
        basis="plausible",
        reason="the length of training (not recovered; the paper profile's 10^5 is the long end): a "
        "third of ours to about 3x the cost",
    ),
    "vscales": Choice(
        (5.0, 10.0, 20.0, 50.0),
        options=((5.0, 10.0, 20.0, 50.0), (2.0, 5.0, 10.0, 20.0, 50.0, 100.0)),
        basis="plausible",
        reason="the teacher scale is not recovered, so the sweep must span small to large filters: ours "
        "or a wider one (a sweep without small teachers would leave out the scales the paper may use)",
    ),
    "cos_drop": Choice(
        Rule(
            0.02,
            "largest fall of cos(W_V, V*) below its running maximum ('stays high'; 0.02 absorbs wiggles)",
            "[P] reviewer 2 / [S]: rises early and stays high",
        ),
        range=(0.01, 0.1),
        basis="plausible",
        reason="how large a fall below the running maximum still 'stays high': 0.01 to 0.1",
    ),
}


@claim(
    "zhang2026.digits",
    Source(
        "MNIST experiment ([S]; reviewer 2: early directional alignment), on a digits stand-in",
        Provenance.RECONSTRUCTED,
        quote="cos(W_V, V*) > 0.9 on MNIST: "
        + NOTE
        + "; early directional alignment: reviewer 2 in "
        + REVIEWS,
    ),
    kind=Kind.UPPER,
    statement="conv + 3x3 avg-pool teacher on real images: cos(W_V, V*) rises early and stays high (> 0.9 at "
    "the end, no drop), the attention approaches S*, border rows are recovered worse than interior rows; "
    "judged at every teacher scale of a sweep (the paper's scale is not recovered)",
    assumptions=("scikit-learn's bundled digits (the data extra)", "linear sigma, PCA filters as V*"),
    profiles=Profiles(paper=dict(vscales=(5.0, 10.0, 20.0, 50.0), steps=100_000)),
    expect=Expect(Verdict.VIOLATED),
    alternative=Alternative(
        world="a small teacher only, ||v*_m|| = 5 (the teacher scale is not recovered): the attention "
        "learns slowly and the alignment dips",
        overrides={"vscales": (5.0,)},
    ),
    rules=dict(cos_final=Rule(0.9, "cos(W_V, V*) at the end of training at least this", "[S]: cos > 0.9")),
    choices=_DIGITS_CHOICES,
    report=Report(
        r"conv + $3\times3$ avg-pool teacher on real images (a digits stand-in for MNIST): "
        r"$\cos(W_V,V^*)$ rises early and stays high ($>0.9$ at the end, no drop), $A\to S^*$, border rows "
        r"are recovered worse than interior rows",
        Plot(
            x="t",
            curves=[
                ("vscale_5_cos", r"$\|v^*_m\|=5$"),
                ("vscale_50_cos", r"$\|v^*_m\|=50$"),
            ],
            const=0.9,
            theory_label=r"claim: $\cos>0.9$ at the end",
            xlabel="GD step $t$",
            ylabel=r"$\cos(W_V,V^*)$",
            logx=True,
        ),
    ),
)
def digits(ctx: Ctx, *, M: int, vscales: tuple[float, ...], steps: int) -> Evidence:
    """MNIST experiment [S], on scikit-learn's 8x8 digits as a stand-in
    (:func:`~verify.zhang2026.data.load_patches`: 3x3 patches at stride 1 on a 6x6 grid, D = 36, d = 9; V* =
    top-M PCA filters with rows of norm ``vscale``; 3x3 pooling, K = 9; sigma = id; full-batch GD on all 1797
    images from zero init, exact through the data's second moments). The experiment is reconstructed (the
    paper's CNN filters, their scale, sigma, sizes and steps are not recovered), so a failure is our
    stand-in's, not a finding against the paper. Per teacher scale: cos(W_V, V*) at the end >=
    ``cos_final``; its largest fall below its running maximum <= ``cos_drop``; ||A - S*||_F at the end
    below its initial value; mean |A - S*| over border rows (keys) > over interior rows. Violated if any
    scale of the sweep ``vscales`` fails; the notes give the verdict at each scale. Deterministic (no
    random draw)."""
    try:
        X = D.load_patches()
    except ImportError:
        return Evidence(
            theory=1.0, measured=0.0, inconclusive="scikit-learn is not installed (the data extra)"
        )
    parts, notes, series, sweep = RateParts(), [], {}, []
    tt = E.log_grid(steps)
    for vs in vscales:
        first = len(parts.r)
        r = E.digits_run(X, M, vs, tt)
        if r.stopped:
            parts.exact(f"||v*_m|| = {vs:g}: GD finished", False, r.stopped)
            continue
        drop = float(np.max(np.maximum.accumulate(r.cos) - r.cos))
        parts.atleast(
            f"||v*_m|| = {vs:g}: cos(W_V, V*) at t = {steps}", float(r.cos[-1]), ctx.rule("cos_final")
        )
        parts.tol(f"||v*_m|| = {vs:g}: largest fall of cos below its running max", drop, ctx.rule("cos_drop"))
        parts.tol(
            f"||v*_m|| = {vs:g}: ||A - S*||_F at the end / at t = 1",
            float(r.attn_err[-1] / r.attn_err[0]),
            1.0,
        )
        parts.atleast(f"||v*_m|| = {vs:g}: border / interior row error", r.err_border / r.err_interior, 1.0)
        k, worst = int(np.argmax(r.cos)), max(parts.r[first:])
        sweep.append(f"{vs:g}: {'holds' if worst <= 1.0 else 'violated'} (max r = {worst:.3g})")
        notes.append(
            f"||v*_m|| = {vs:g} (eta {r.eta:.4g}): cos peaks at {r.cos[k]:.3f} (t = {r.times[k]}), ends at "
            f"{r.cos[-1]:.3f}; ||A - S*||_F {r.attn_err[0]:.3f} -> {r.attn_err[-1]:.3f}"
        )
        series[f"vscale_{vs:g}_cos"], series[f"vscale_{vs:g}_attn_err"] = r.cos.tolist(), r.attn_err.tolist()
    series["t"] = tt.tolist()
    notes.insert(0, f"verdict per teacher scale ||v*_m|| at t = {steps}: " + "; ".join(sweep))
    return parts.evidence(headline=parts.worst_name(), notes=notes, series=series)


_FULLTF_CHOICES = {
    "D": Choice(8, options=(8, 12), basis="plausible", reason="the ablation's sizes are not recovered"),
    "M": Choice(2, options=(2, 4), basis="plausible", reason="the ablation's sizes are not recovered"),
    "eta": Choice(
        0.1,
        range=(0.05, 0.2),
        basis="plausible",
        reason="the paper's step is not recovered: halved or doubled (stable step 0.5 here)",
    ),
    "vnorm": Choice(
        4.0,
        range=(2.0, 8.0),
        basis="plausible",
        reason="||V*||_F is not fixed by the paper: halved or doubled",
    ),
    "N": SGD_BATCH,
    "steps": Choice(
        1000,
        range=(500, 3000),
        basis="plausible",
        reason="the length of training: from half ours (22 T_0, the attention has left uniform) to the "
        "paper profile's 3000",
    ),
    "share": Choice(
        Rule(0.9, "share of the squared norm in the expected block", "attncheck (exploratory)"),
        range=(0.8, 0.95),
        basis="plausible",
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
