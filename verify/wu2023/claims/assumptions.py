"""Assumption 3 (non-degenerate data, checked on IMDB / MNIST in the paper) on Gaussian tokens and on
real images, in our pooled-input reading and in the reviews' covariance tail form, with Assumptions 1,
2 and 4 reported beside it. GD at d < N on real images (the reviewer question "is d >= N needed?") is
in :mod:`.d_below_n`."""

from __future__ import annotations

import numpy as np

from bounds import wu2023 as B
from verify.core import (
    Alternative,
    Choice,
    Conditions,
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
from verify.wu2023 import data as D
from verify.wu2023 import experiments as E
from verify.wu2023.claims.common import CRITERION as _CRITERION

#: The floor and the margin of the pooled-input A3 checks (ours: the paper's threshold is not recovered).
_A3_CHOICES = {
    "floor": Choice(
        Rule(1e-3, "bounded away from 0 whenever N <= d / d_per_N", _CRITERION),
        range=(1e-4, 1e-2),
        reason="'bounded away from 0' in numbers (the paper's constant is NOT RECOVERED): a decade either "
        "side",
    ),
    "d_per_N": Choice(
        Rule(2, "A3 in this form needs d >= N; checked with a margin of 2", _CRITERION),
        range=(1, 2),
        reason="the margin of d >= N: from the bare premise N <= d (1) to ours, N <= d/2; a wider margin "
        "leaves the regime at the sizes run (N = 16 at d = 32, N = 4 at d = 8)",
    ),
}


def _a124(X: np.ndarray) -> str:
    """Assumptions 1, 2 and 4 (reviews' forms; thresholds NOT RECOVERED) on one data set."""
    return (
        f"N = {X.shape[0]}: A1 C_x = {B.assumption1(X):.3g}, A2 min sigma_min(X_n) = "
        f"{B.assumption2(X):.3g}, A4 N lambda_min(Xbar Xbar^T)/tr = {B.assumption4(X.mean(axis=1)):.3g}"
    )


@claim(
    "wu2023.assump3",
    Source(
        "Assumption 3, our pooled-input reading (checked on IMDB/MNIST in the paper); derivation Sect. 4",
        Provenance.RECONSTRUCTED,
    ),
    kind=Kind.LOWER,
    statement="on Gaussian tokens with N <= d/2 the pooled-input non-degeneracy N sigma_min(Zbar)^2/"
    "|Zbar|_F^2 stays >= 1e-3 across d_m",
    profiles=Profiles(quick=dict(d=32, d_s=4)),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices={
        **_A3_CHOICES,
        "Ns": Choice(
            [4, 8, 16],
            options=([4, 8, 16], [2, 4, 8, 16], [8, 16]),
            reason="the N checked (ours; N <= d/2 = 16): doubling up to d/2, one point longer or shorter at "
            "the bottom",
        ),
        "widths": Choice(
            [64, 256, 1024],
            options=([64, 256, 1024], [32, 128, 512], [64, 256, 1024, 4096]),
            reason="the widths checked (ours; A3 concerns the data, the width only the softmax): steps of 4, "
            "shifted down by 2 or one point longer at the top",
        ),
    },
    report=Report(
        r"Assumption 3 (pooled-input reading), Gaussian tokens, $N\le d/2$: $N\sigma_{\min}(\bar "
        r"Z)^2/\|\bar Z\|_F^2\ge10^{-3}$ at every $d_m$",
        Plot(
            x="gram",
            curves=[("zbar", "Gaussian tokens, $N=4,8,16$, three $d_m$ each")],
            const=0.001,
            theory_label="floor $10^{-3}$ (the claim: above)",
            xlabel=r"$N\lambda_{\min}(G)\,/\,\mathrm{tr}\,G$",
            ylabel=r"$N\sigma_{\min}(\bar{Z})^2/\|\bar{Z}\|_F^2$",
            logy=True,
        ),
    ),
)
def assump3(ctx: Ctx, *, d: int, d_s: int, Ns: list[int], widths: list[int]) -> Evidence:
    """Assumption 3 in our first, pooled-input reading (the reviews describe the paper's A3 as a tail
    bound on <X_i^T X_i, X_j^T X_j>: ``wu2023.assump3.tail``; the covariance cosines are in the notes).
    Consistency check: for Gaussian tokens with N <= d/2 the quantity sits near the Marchenko-Pastur edge
    (1 - sqrt(N/d))^2 (0.086 at N = d/2), 86 times the floor, a textbook fact, so it can only fail through
    a bug. Kind: lower (soft), RECONSTRUCTED, every seed. theory: ``floor``; measured: min over N <= d /
    ``d_per_N`` and d_m of the Zbar quantity at LeCun init ("active" tokens). lambda_min(G)/tr(G) N
    reported."""
    floor, k = ctx.rule("floor"), ctx.rule("d_per_N")
    if max(Ns) > d // k:
        return Evidence(floor, None, failed=[f"N = {max(Ns)} > d/{k} = {d // k}"])
    vals, gv, cos, other = [], [], [], []
    for n in Ns:
        batch = D.gaussian_data(ctx.rng(19, n), n, d_s, d, "active")
        cos.append(float(np.max(np.abs(B.assumption3_covariance(batch.X)))))
        other.append(_a124(batch.X))
        for w in widths:
            a, g = E.assumption3(batch, w, ctx.seed, n)
            vals.append(a)
            gv.append(g)
    return Evidence(
        theory=floor,
        measured=float(min(vals)),
        series={"zbar": vals, "gram": gv},
        notes=[
            f"min N lambda_min(G)/tr G = {min(gv):.3g}; max off-diagonal covariance "
            f"cosine (reviews' A3 form) per N: {np.round(cos, 3).tolist()}",
            *other,
        ],
    )


_ASSUMP3_RANK_CHOICES = {
    "zero_tol": Choice(
        Rule(1e-12, "zero up to round-off", _CRITERION),
        range=(1e-14, 1e-10),
        reason="a round-off margin (zero up to round-off): two decades around ours, from 1e-14 to 1e-10",
    )
}


@claim(
    "wu2023.assump3.rank",
    Source("Assumption 3, pooled-input reading (it forces d >= N); derivation Sect. 4", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="for N > d the pooled-input quantity sigma_min(Zbar) is 0 (so A3 in this form needs d >= N)",
    profiles=Profiles(quick=dict(d=8, d_s=4, N=16, d_m=64)),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices=_ASSUMP3_RANK_CHOICES,
    report=Report(
        r"for $N>d$, $\sigma_{\min}(\bar Z)=0$ ($\bar Z$ is $N\times d$): Assumption 3 in this "
        r"reading needs $d\ge N$"
    ),
)
def assump3_rank(ctx: Ctx, *, d: int, d_s: int, N: int, d_m: int) -> Evidence:
    """Rank argument (Zbar is N x d). Consistency check: N > d makes sigma_min(Zbar) = 0 by
    construction, whatever the model or the data, so it tests the code only. Kind: upper, DERIVED.
    theory: ``zero_tol``; measured: the Zbar quantity with N > d. lambda_min(G) > 0 there (higher Hermite
    terms) is reported: the reviewer question "is d >= N needed?"."""
    tol = ctx.rule("zero_tol")
    if N <= d:
        return Evidence(tol, None, failed=[f"N = {N} <= d = {d}"])
    a, g = E.assumption3(D.gaussian_data(ctx.rng(23), N, d_s, d, "active"), d_m, ctx.seed, 0)
    return Evidence(
        theory=tol,
        measured=a,
        notes=[f"N lambda_min(G)/tr G = {g:.3e} (> 0: alpha > 0 survives without d >= N)"],
    )


@claim(
    "wu2023.assump3.digits",
    Source(
        "Assumption 3 on real data (paper: IMDB, MNIST), pooled-input reading; derivation Sect. 4",
        Provenance.RECONSTRUCTED,
    ),
    kind=Kind.PROBABILITY,
    statement="on scikit-learn digits (8 row-tokens of dim 8) a random batch of N <= d/2 images has the "
    "A3 quantity >= 1e-3 with probability >= 1 - delta (delta = 0.1)",
    seeds=SeedPlan(Seeds.BINOMIAL, quick=400, paper=1000),
    expect=Expect(consistency=True),
    choices={
        **_A3_CHOICES,
        "delta": Choice(
            Rule(0.1, "the share of random batches allowed below the floor", _CRITERION),
            range=(0.05, 0.2),
            reason="'bounded away from 0' for a random batch (the paper checks one data set; its "
            "probability is NOT RECOVERED): 0.05 to 0.2",
        ),
        "Ns": Choice(
            [2, 4],
            options=([2, 4], [2, 3, 4], [4]),
            reason="the N checked (ours; N <= d/2 = 4): every N up to d/2, or d/2 alone",
        ),
        "widths": Choice(
            [64, 256],
            options=([64, 256], [32, 128], [64, 256, 1024]),
            reason="the widths checked (ours): shifted down by 2 or one point longer at the top",
        ),
        "big_Ns": Choice(
            [16, 200],
            options=([16, 200], [12, 100], [32, 400]),
            reason="the N > d reported in the notes (ours; the verdict does not read them): half or twice "
            "the large one, with a nearby small one",
        ),
    },
    report=Report(
        r"Assumption 3 (pooled-input reading) on digits (8 row tokens, $d=8$): a random batch of "
        r"$N\le d/2$ images has $N\sigma_{\min}(\bar Z)^2/\|\bar Z\|_F^2\ge10^{-3}$ w.p.\ $\ge0.9$"
    ),
)
def assump3_digits(ctx: Ctx, *, Ns: list[int], widths: list[int], big_Ns: list[int]) -> Evidence:
    """Offline substitute for the paper's IMDB/MNIST check: scikit-learn's bundled 8x8 digits
    (``load_digits``, no download). Consistency check: N <= d/2 = 4 images in general position meet
    the floor at most draws (batches of one digit class and uncentred pixels still give >= 1.4e-3 at
    seeds 0-4, errata), but not at every one: 21 of 1,200 seeds draw a batch below 1e-3, so the
    statement is a probability over the batch. Kind: probability, p0 = 1 - ``delta``, RECONSTRUCTED.
    Seeds: binomial, one batch per N and seed (400 quick: a 0.98 success rate is told from 0.9 at
    every set and from 0.95 at most). A seed succeeds when the Zbar quantity is >= ``floor`` at every
    N <= d / ``d_per_N`` and d_m. Notes: the minimum; at the set's first seed also lambda_min(G)/tr G N
    for N > d and the covariance cosines (the reviews' A3 form). Without scikit-learn: inconclusive."""
    floor, k = ctx.rule("floor"), ctx.rule("d_per_N")
    p0 = 1 - ctx.rule("delta")
    if not D.digits_available():
        return Evidence(p0, None, inconclusive=D.SKLEARN_MISSING)
    vals, notes = [], []
    for n in Ns:
        batch = D.digits_tokens(ctx.rng(29, n), n, "rows")
        if n > batch.X.shape[2] // k:
            return Evidence(p0, None, failed=[f"N = {n} > d/{k} = {batch.X.shape[2] // k}"])
        vals += [E.assumption3(batch, w, ctx.seed, n)[0] for w in widths]
        notes.append(_a124(batch.X))
    notes.insert(0, f"min Zbar quantity over N = {Ns}, d_m = {widths}: {min(vals):.3g} (floor {floor:g})")
    for n in big_Ns if ctx.seed == ctx.seed_set[0] else ():
        batch = D.digits_tokens(ctx.rng(31, n), n, "rows")
        a, g = E.assumption3(batch, widths[0], ctx.seed, n)
        cos = B.assumption3_covariance(batch.X)
        notes.append(
            f"N = {n} > d: Zbar quantity {a:.2e}, N lambda_min(G)/tr G = {g:.3e}; covariance "
            f"cosines mean {cos.mean():.3f}, max {cos.max():.3f}"
        )
    return Evidence(theory=p0, measured=min(vals) >= floor, notes=notes, series={"zbar": vals})


#: Tokenisation -> (stream key of its draw, name) for ``wu2023.assump3.tail``.
_TAIL_TOKENS = {"rows": (0, "rows"), "patches4": (1, "4x4 patches"), "patches": (2, "2x2 patches")}


_ASSUMP3_TAIL_CHOICES = {
    "power": Choice(
        Rule(
            1.0,
            "tail form P(u >= t) <= 2 exp(-c t^power): sub-exponential, as for products of sub-Gaussian "
            "entries (ours; the paper's form and its c-hat are NOT RECOVERED)",
        ),
        range=(0.5, 2.0),
        reason="the tail form P(u >= t) <= 2 exp(-c t^power) is NOT RECOVERED: from a heavier tail (0.5) "
        "to sub-Gaussian (2)",
    ),
    "N": Choice(
        200,
        range=(100, 300),
        reason="the images drawn (hundreds; the paper profile has 1000): 100 to 300 (the pairs grow like "
        "N^2)",
    ),
    "tokens": Choice(
        ("rows", "patches4"),
        options=(("rows", "patches4"), ("rows",), ("rows", "patches4", "patches")),
        reason="the tokenisations judged (ours; the paper's MNIST tokens are not recovered): rows and "
        "4x4 patches, rows alone, or also 2x2 patches (2x2 patches alone are the alternative world)",
    ),
}


@claim(
    "wu2023.assump3.tail",
    Source(
        "Assumption 3 in the reviews' form: a tail bound on <X_i^T X_i, X_j^T X_j> with a constant "
        "c-hat (checked on IMDB / MNIST in the paper); our tail form: derivation Sect. 4",
        Provenance.RECONSTRUCTED,
    ),
    kind=Kind.UPPER,
    statement="on scikit-learn digits (hundreds of images; 8 row-tokens, and 4 patches of 4x4) the "
    "covariance cosines satisfy P(u >= t) <= 2 exp(-c t) with the constant c of Gaussian tokens of the "
    "same N, d_s, d",
    profiles=Profiles(paper=dict(N=1000)),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(Verdict.VIOLATED),
    alternative=Alternative(
        world="the same images as 16 patches of 2x2 (tokens of dimension 4), another tokenisation",
        overrides={"tokens": ("patches",)},
    ),
    choices=_ASSUMP3_TAIL_CHOICES,
    report=Report(
        r"Assumption 3 (reviews' tail form) on digits: the cosines $u$ of $\langle X_i^\top "
        r"X_i,X_j^\top X_j\rangle$ obey $P(u\ge t)\le2e^{-\hat ct}$ with the $\hat c$ of Gaussian "
        "tokens"
    ),
)
def assump3_tail(ctx: Ctx, *, N: int, tokens: tuple[str, ...]) -> Evidence:
    """Assumption 3 as the reviews describe it (two examples are dissimilar: a tail bound on the inner
    product of their covariances C_i = X_i^T X_i, with a constant c-hat), on real images at realistic N.
    Kind: upper over two conditions (Conditions: c_digits >= c_gauss for rows and for 4x4 patches;
    headline rows), RECONSTRUCTED (the tail form and the Gaussian reference are ours), every seed (a
    fresh draw of N images and of the Gaussian tokens per seed). The inner products are normalised to
    cosines u_ij in [0, 1], so data sets of different scale compare; c is the largest constant with
    P(u >= t) <= 2 exp(-c t^power) at every t under the empirical law of the N(N-1)/2 pairs
    (:func:`verify.wu2023.experiments.tail_constant`). The reference is i.i.d. Gaussian tokens of the same
    N, d_s and d (the synthetic data the theory is built for). Notes: the sub-Gaussian constant (power 2),
    the cosine mean, 90% quantile, max and share above 0.9 for each. ``tokens``: the tokenisations judged
    (keys of ``_TAIL_TOKENS``; the first is the headline). Without scikit-learn:
    inconclusive."""
    power = ctx.rule("power")
    if not D.digits_available():
        return Evidence(1.0, None, inconclusive=D.SKLEARN_MISSING)
    cond, notes, series = Conditions(), [], {}
    for tok in tokens:
        k, name = _TAIL_TOKENS[tok]
        X = D.digits_tokens(ctx.rng(37, k), N, tok).X
        G = D.gaussian_tokens(ctx.rng(41, k), *X.shape)
        dig, gau = E.covariance_tails(X, power), E.covariance_tails(G, power)
        cond.atleast(f"c-hat digits {name} (Gaussian c-hat as the floor)", dig["c"], gau["c"])
        series[tok] = {"digits": dig, "gauss": gau}
        notes.append(
            f"{name} (N = {N}, d_s = {X.shape[1]}, d = {X.shape[2]}): c digits {dig['c']:.3f} / Gaussian "
            f"{gau['c']:.3f} (ratio {dig['c'] / gau['c']:.2f}); sub-Gaussian c2 {dig['c2']:.3f} / "
            f"{gau['c2']:.3f}; cosine mean {dig['mean']:.3f} / {gau['mean']:.3f}, q90 {dig['q90']:.3f} / "
            f"{gau['q90']:.3f}, max {dig['max']:.3f} / {gau['max']:.3f}, share > 0.9 "
            f"{dig['above_0.9']:.3f} / {gau['above_0.9']:.3f}"
        )
    return cond.evidence(
        headline=f"c-hat digits {_TAIL_TOKENS[tokens[0]][1]} (Gaussian c-hat as the floor)",
        notes=notes,
        series=series,
    )
