"""The lemma on alpha = sigma_min(F_pre^0) (our reconstruction; its inequalities DERIVED), at init: the
concentration of alpha^2 / d_m around lambda_min(G), its order in d_m and the He / LeCun ratio. The
closed forms of G and its Hermite floor are in :mod:`.alpha_gram`."""

from __future__ import annotations

import numpy as np

from verify.core import (
    Alternative,
    Choice,
    Ctx,
    Evidence,
    Interval,
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
from verify.numerics.stats import mean_half_width
from verify.wu2023 import experiments as E
from verify.wu2023.claims.common import CRITERION as _CRITERION
from verify.wu2023.claims.common import rate_evidence


def _alpha_point(N: int, d: int, d_s: int, p: float, init: str = "lecun"):
    """Point factory (width, seed) -> an "active"-token point of key 0 (LeCun unless ``init``)."""
    return lambda w, s: E.Point(
        seed=s, key=0, N=N, d=d, d_s=d_s, d_m=w, tau0_power=p, init=init, regime="active"
    )


def _conc_gap(ctx: Ctx, widths: list[int], N: int, d: int, d_s: int) -> np.ndarray:
    """r = |alpha^2 / (d_m lambda_min(G)) - 1| per width and seed (G from the realised softmax)."""
    out = E.pooled(ctx, E.conc_point, widths, _alpha_point(N, d, d_s, 0.5))
    return np.abs(out[..., 0] / out[..., 1] - 1)


_ALPHA_CONC_CHOICES = {
    "d_m": Choice(
        512,
        range=(512, 1536),
        reason="the width judged: from 64 N (the threshold width_per_N of the regime, the hardest case) "
        "to 3 times it (192 N); the lemma is order-level and fixes no width",
    ),
    "gap_max": Choice(
        Rule(0.1, "relative gap allowed in the concentration regime", _CRITERION),
        range=(0.07, 0.15),
        reason="the lemma fixes only the order O(sqrt(N / d_m)); a 'concentrated' mean relative gap from "
        "0.07 to 0.15 (both above the measurement's resolution 0.04 of the alternative world)",
    ),
    "level": Choice(
        Rule(
            0.95,
            "one-sided level of each limit of the mean gap: the upper one decides holds (the hard side), "
            "the lower one violated",
            "attncheck",
        ),
        range=(0.9, 0.99),
        reason="the one-sided level of the mean gap's limits, from 90% to 99% (conventional levels)",
    ),
    "width_per_N": Choice(
        Rule(64, "the concentration regime: d_m >= width_per_N N", _CRITERION),
        basis="single",
        reason="where the concentration regime d_m >= width_per_N N starts (ours; the lemma is "
        "order-level and fixes no constant) is the lower end of d_m's declared range (64 N to 192 N): "
        "it only gates the width judged, so a reader who moves it moves d_m with it; moved alone it "
        "leaves d_m below its own regime (out_of_regime at any value above 64), no admissible "
        "configuration. Where the regime starts is judged through d_m's range",
    ),
}


@claim(
    "wu2023.alpha.conc",
    Source(
        "Lemma on alpha = sigma_min(F_pre^0), concentration (reconstructed, derivation Sect. 5.3)",
        Provenance.RECONSTRUCTED,
    ),
    kind=Kind.UPPER,
    statement="alpha^2 / d_m concentrates at lambda_min(G) (LeCun): mean relative gap <= 0.1 at d_m = 64 N",
    profiles=Profiles(quick=dict(N=8, d=16, d_s=4), paper=dict(N=20, d=32, d_m=1280)),
    seeds=SeedPlan(Seeds.POOLED, quick=60, paper=100),
    alternative=Alternative(
        world="a mean gap at most 0.04 (the threshold divided by 2.5): the resolution of the measurement, "
        "below the one-sided 95% lower limits 0.049-0.056 of the mean gap at six seed sets of 60",
        factor=2.5,
    ),
    choices=_ALPHA_CONC_CHOICES,
    report=Report(
        r"LeCun init: $\alpha^2/d_m$ concentrates at $\lambda_{\min}(G)$; the mean of "
        r"$|\alpha^2/(d_m\lambda_{\min}(G))-1|$ is $\le0.1$ at $d_m=64N$"
    ),
)
def alpha_conc(ctx: Ctx, *, N: int, d: int, d_s: int, d_m: int) -> Evidence:
    """Lemma on alpha, concentration (matrix Chernoff; order-level, RECONSTRUCTED). Kind: upper, seeds pooled.
    theory: ``gap_max``; measured: the mean over the seed set of r = |alpha^2 / (d_m lambda_min(G)) - 1|
    at d_m (>= ``width_per_N`` N required, else out_of_regime; our first threshold 64 N is the hardest
    case), G from the realised softmax, with its one-sided ``level`` t limits as the interval: judged on
    the hard side (holds only if the upper limit is at or below ``gap_max``, violated only if the lower
    limit is above it). The largest r is reported.
    r has a heavy tail (at N = 8, d_m = 64 N, 100 draws: mean 0.062, 90% quantile 0.12), so a per-draw
    reading of the threshold fails while the typical gap is well below it. The
    rate of r in d_m is ``wu2023.alpha.conc.rate``."""
    k, gap = ctx.rule("width_per_N"), ctx.rule("gap_max")
    if d_m < k * N:
        return Evidence(gap, None, failed=[f"d_m = {d_m} < {k} N = {k * N}"])
    r = _conc_gap(ctx, [d_m], N, d, d_s)[0]
    n, level = r.size, ctx.rule("level")
    mean = float(r.mean())
    half = mean_half_width(r, level)
    worst = ctx.seed_set[int(np.argmax(r))]
    return Evidence(
        theory=gap,
        measured=mean,
        interval=Interval(mean - half, mean + half, level, "one-sided"),
        series={"r": r.tolist()},
        notes=[f"mean r {mean:.4f} over {n} seeds; max {r.max():.4f} (seed {worst})"],
    )


_ALPHA_CONC_RATE_CHOICES = {
    "tol": Choice(
        Rule(0.2, "our first criterion's slope <= -0.3 is the d_m^-1/2 law with 0.2 of room", _CRITERION),
        range=(0.1, 0.25),
        reason="from 0.1 to 0.25, half the distance to the competing exponent -1 (the widest band that "
        "still separates the two)",
    ),
    "draws": Choice(
        24,
        range=(12, 48),
        reason="the W_V draws averaged per seed (ours: the lemma conditions on W_Q, W_K): half to twice ours",
    ),
    "widths": Choice(
        [64, 256, 1024, 4096],
        options=([64, 256, 1024, 4096], [128, 512, 2048, 8192], [64, 256, 1024]),
        reason="the width ladder (ours; the lemma is order-level and fixes none): from 8 N in steps of 4,"
        " shifted up one step of 2 or one point shorter at the top",
    ),
}


@claim(
    "wu2023.alpha.conc.rate",
    Source(
        "Lemma on alpha = sigma_min(F_pre^0), concentration (reconstructed, derivation Sect. 5.3)",
        Provenance.RECONSTRUCTED,
    ),
    kind=Kind.RATE,
    statement="the relative gap |alpha^2 / (d_m lambda_min(G)) - 1| decays like d_m^-1/2 (LeCun)",
    profiles=Profiles(
        quick=dict(N=8, d=16, d_s=4), paper=dict(N=20, d=32, widths=[160, 640, 2560, 10240, 40960])
    ),
    seeds=SeedPlan(Seeds.POOLED, quick=10, paper=20),
    alternative=Alternative(
        world="r decays like d_m^-1, the order of the O(N / d_m) bias (a gap without the O(d_m^-1/2) "
        "fluctuation of a mean of d_m rank-one terms)",
        exponent=-1.0,
    ),
    choices=_ALPHA_CONC_RATE_CHOICES,
    report=Report(
        r"LeCun init: the relative gap $|\alpha^2/(d_m\lambda_{\min}(G))-1|$ decays like "
        "$d_m^{-1/2}$",
        Plot.rate(
            -0.5,
            "d_m",
            [("geo_mean", "relative gap (geometric mean over seeds)")],
            "width $d_m$",
            r"$|\alpha^2/(d_m\lambda_{\min}(G))-1|$",
        ),
    ),
)
def alpha_conc_rate(ctx: Ctx, *, N: int, d: int, d_s: int, widths: list[int], draws: int) -> Evidence:
    """Lemma on alpha, concentration (our first criterion: "r decreases with slope <= -0.3"): alpha^2 / d_m is
    the smallest eigenvalue of a mean of d_m i.i.d. rank-one terms with mean G, so its relative error is
    O(d_m^-1/2) (fluctuation; the bias is O(N / d_m), faster). Kind: rate, RECONSTRUCTED (order-level).
    theory: -1/2; measured: the rate fit of r against d_m over widths from 8 N, one replicate per seed: the
    mean of r over ``draws`` draws of W_V given the seed's W_Q, W_K (the lemma's conditioning; a single
    |alpha^2 / (d_m lambda_min(G)) - 1| has a random sign inside the absolute value, so its log is too noisy
    for a slope: :func:`verify.wu2023.experiments.conc_gap`)."""
    r = E.pooled(
        ctx,
        E.conc_gap,
        widths,
        lambda w, s: E.ConcPoint(
            seed=s,
            key=0,
            N=N,
            d=d,
            d_s=d_s,
            d_m=w,
            tau0_power=0.5,
            regime="active",
            draws=draws,
            ref_width=widths[0],
        ),
    )
    return rate_evidence(ctx, -0.5, widths, r, series={"d_m": widths})


_ALPHA_WIDTH_CHOICES = {
    "tol": Choice(
        Rule(0.2, "our first criterion's slope window [0.8, 1.2] around 1", _CRITERION),
        range=(0.1, 0.3),
        reason="from 0.1 to 0.3 around the exponent 1 (the competing exponent 0 is 1 away)",
    ),
    "N": Choice(
        10,
        range=(5, 10),
        reason="the lemma holds for any N with d_m >= 8 N; up to 10 the quick widths start at >= 32 N, "
        "past the Bai-Yin factor (1 - O(sqrt(N / d_m)))^2 that steepens the slopes below (errata)",
    ),
    "width_per_N": Choice(
        Rule(8, "alpha^2 is Theta(d_m) only for d_m >= width_per_N N", _CRITERION),
        range=(4, 16),
        reason="where alpha^2 = Theta(d_m) starts, d_m >= width_per_N N (ours; the lemma fixes no "
        "constant): half to twice ours; it only gates the widths judged, which start at 32 N",
    ),
    "widths": Choice(
        [320, 640, 1280, 2560],
        options=([320, 640, 1280, 2560], [640, 1280, 2560, 5120], [320, 640, 1280]),
        reason="the width ladder (ours): doubling from 32 N, shifted up one step or one point shorter at "
        "the top",
    ),
}


@claim(
    "wu2023.alpha.width",
    Source(
        "Lemma on alpha = sigma_min(F_pre^0) (reconstructed, derivation Sect. 5.3)", Provenance.RECONSTRUCTED
    ),
    kind=Kind.RATE,
    statement="alpha^2 = Theta(d_m) under LeCun init (alpha^2 grows like d_m^1)",
    profiles=Profiles(quick=dict(d=16, d_s=4, tau0_power=0.5, init="lecun")),
    seeds=SeedPlan(Seeds.POOLED, quick=20, paper=40),
    alternative=Alternative(
        world="Xavier (Glorot) normal init (not one of the paper's; the default of many transformer codes): "
        "every weight matrix of variance 2/(fan_in + fan_out), so W_V's is 2/(d + d_m) and falls like "
        "1/d_m: alpha^2 tends to a constant (exponent 0)",
        overrides={"init": "xavier"},
    ),
    choices=_ALPHA_WIDTH_CHOICES,
    report=Report(
        r"LeCun init: $\alpha^2=\sigma_{\min}(F_{\mathrm{pre}}^0)^2=\Theta(d_m)$ (exponent $1$)",
        Plot.rate(
            1.0,
            "d_m",
            [("geo_mean", r"$\alpha^2$ (geometric mean over seeds)")],
            "width $d_m$",
            r"$\alpha^2=\sigma_{\min}(F_{\mathrm{pre}}^0)^2$",
        ),
    ),
)
def alpha_width(
    ctx: Ctx, *, N: int, d: int, d_s: int, widths: list[int], tau0_power: float, init: str
) -> Evidence:
    """Lemma on alpha: alpha^2 = Theta(d_m) under LeCun / He. Kind: rate, RECONSTRUCTED (order). theory: 1;
    measured: rate fit of alpha^2 against d_m (one draw per seed), d_m >= ``width_per_N`` N, at ``init``
    (the statement: LeCun; the alternative world ``experiments.XAVIER``). The
    quick widths start at 32 N: below, the smallest singular value's (1 - O(sqrt(N / d_m)))^2 factor
    (Bai-Yin) steepens the local slopes to 1.1-1.2 (errata)."""
    k = ctx.rule("width_per_N")
    if min(widths) < k * N:
        return Evidence(1.0, None, failed=[f"smallest width {min(widths)} < {k} N"])
    a = E.pooled(ctx, E.alpha_sq, widths, _alpha_point(N, d, d_s, tau0_power, init))
    return rate_evidence(ctx, 1.0, widths, a, series={"d_m": widths})


_ALPHA_HE_LECUN_CHOICES = {
    "d_m": Choice(
        512,
        range=(512, 2048),
        reason="a large width (the limit is d_m -> infinity): from min_width 512 to 2048, half the paper "
        "profile's 4096",
    ),
    "ratio_window": Choice(
        Rule((1.9, 2.1), "the limit 2 with room for finite widths", _CRITERION),
        options=((1.8, 2.2), (1.9, 2.1), (1.95, 2.05)),
        reason="the limit 2 with room for a finite width: +-0.2, +-0.1 or +-0.05",
    ),
    "min_width": Choice(
        Rule(512, "the softmax is near-uniform only at large widths", _CRITERION),
        basis="single",
        reason="the width from which the softmax counts as near-uniform (ours; the statement is a "
        "limit d_m -> infinity) is the lower end of d_m's declared range (512 to 2048): it only gates "
        "the width judged, so a reader who moves it moves d_m with it; moved alone it leaves d_m below "
        "its own regime (out_of_regime at any value above 512), no admissible configuration. Where "
        "the regime starts is judged through d_m's range",
    ),
}


@claim(
    "wu2023.alpha.he_lecun",
    Source("Lemma on alpha = sigma_min(F_pre^0) (reconstructed, derivation Sect. 5.3)", Provenance.DERIVED),
    kind=Kind.TWO_SIDED,
    statement="under tau0 = d_m^-1 at large width alpha_He^2 / alpha_LeCun^2 -> 2",
    profiles=Profiles(quick=dict(N=10, d=16, d_s=4, tau0_power=1.0), paper=dict(d_m=4096)),
    seeds=SeedPlan(Seeds.EVERY),
    alternative=Alternative(
        world="tau0 = d_m^-1/2: He's logits are twice LeCun's and stay O(1), so the softmax differs and "
        "the ratio is not 2",
        overrides={"tau0_power": 0.5},
    ),
    choices=_ALPHA_HE_LECUN_CHOICES,
    report=Report(
        r"$\tau_0=d_m^{-1}$, large $d_m$: $\alpha_{\mathrm{He}}^2/\alpha_{\mathrm{LeCun}}^2\to2$ "
        "(window $[1.9,2.1]$)"
    ),
)
def alpha_he_lecun(ctx: Ctx, *, N: int, d: int, d_s: int, d_m: int, tau0_power: float) -> Evidence:
    """Lemma on alpha: with the softmax fixed, F_pre^He = sqrt 2 F_pre^LeCun; under d_m^-1 the softmax
    is nearly uniform for both. Kind: two-sided, DERIVED, every seed. theory: ``ratio_window``
    (d_m >= ``min_width``); measured: the ratio with shared standard-normal draws under tau0 =
    d_m^-``tau0_power`` (the statement: 1; the alternative world d_m^-1/2, where the softmax changes)."""
    window = list(ctx.rule("ratio_window"))
    if d_m < ctx.rule("min_width"):
        return Evidence(window, None, failed=[f"d_m = {d_m} < {ctx.rule('min_width')}"])
    a = E.alpha_he_lecun(_alpha_point(N, d, d_s, tau0_power)(d_m, ctx.seed))
    return Evidence(theory=window, measured=a[1] / a[0], notes=[f"tau0 = d_m^-{tau0_power:g}"])
