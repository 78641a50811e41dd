"""The lemma on alpha = sigma_min(F_pre^0) (spec Sect. 5.3): the expected Gram G of the pooled ReLU
features, its Hermite floor, the concentration of alpha^2 / d_m around lambda_min(G), its order in
d_m and the He / LeCun ratio."""

from __future__ import annotations

import math

import numpy as np

from bounds import wu2023 as B
from verify.core import Ctx, Evidence, Kind, Provenance, Rule, claim
from verify.numerics.fit import fit_loglog
from verify.numerics.softmax import softmax
from verify.wu2023 import experiments as E

_SPEC = "spec pass criterion"


def _alpha_points(ctx: Ctx, widths: list[int], seeds: int, p: float, N: int, d: int, d_s: int) -> list:
    return [
        E.Point(seed=ctx.seed, key=k, N=N, d=d, d_s=d_s, d_m=w, tau0_power=p, regime="active")
        for w in widths
        for k in range(seeds)
    ]


@claim(
    "wu2023.alpha.gram",
    reference="Lemma on alpha (spec Sect. 5.3)",
    kind=Kind.UPPER,
    provenance=Provenance.DERIVED,
    statement="E[F_pre F_pre^T | W_Q, W_K] = d_m G with the arc-cosine closed form of G",
    quick=dict(N=5, d=8, d_s=4, draws=4000),
    paper=dict(draws=40000),
    rules={"z_max": Rule(4.0, "Monte-Carlo error allowed, in standard errors", _SPEC)},
)
def alpha_gram(ctx: Ctx, *, N: int, d: int, d_s: int, draws: int) -> Evidence:
    """Spec Sect. 5.3. Kind: upper, DERIVED. The columns of F_pre are i.i.d. over W_V's rows given
    the softmax, so one column's second moment is G. theory: ``z_max``; measured: the largest
    entrywise |MC - G| / s.e. over ``draws`` Monte-Carlo rows w ~ N(0, eta_V I) (spec: M >= 2000)."""
    s = E.make_setup(ctx.seed, 0, N=N, d=d, d_s=d_s, d_m=8, regime="active")
    c = s.model.forward(s.theta0, s.batch)
    Z = c.S @ c.Xs
    eta_V = B.init_variances("lecun", d, 8).eta_V
    G = B.expected_gram(Z, eta_V)
    W = ctx.rng(7).standard_normal((draws, d)) * math.sqrt(eta_V)
    Fc = np.maximum(np.einsum("nsd,md->nsm", Z, W), 0).mean(axis=1)  # (N, draws)
    prod = Fc[:, None, :] * Fc[None, :, :]
    mc, se = prod.mean(axis=2), prod.std(axis=2, ddof=1) / math.sqrt(draws)
    z = float(np.max(np.abs(mc - G) / se))
    return Evidence(
        theory=ctx.rule("z_max"), measured=z, notes=[f"max |MC - G| = {np.max(np.abs(mc - G)):.3e}"]
    )


@claim(
    "wu2023.alpha.psd",
    reference="Lemma on alpha (spec Sect. 5.3)",
    kind=Kind.LOWER,
    provenance=Provenance.DERIVED,
    statement="G - (eta_V/4) Zbar Zbar^T - (eta_V/2pi) r r^T is PSD, so lambda_min(G) >= eta_V/4 "
    "sigma_min(Zbar)^2",
    quick=dict(sets=30),
    paper=dict(sets=300),
    rules={"tol": Rule(-1e-10, "round-off in lambda_min, relative to |G|_2", _SPEC)},
)
def alpha_psd(ctx: Ctx, *, sets: int) -> Evidence:
    """Spec Sect. 5.3 (ReLU Hermite expansion + Schur product theorem). Kind: lower, DERIVED.
    theory: ``tol``; measured: min over random token sets (N <= 8, d <= 10, d_s <= 5, any scale)
    and random row-stochastic S of lambda_min(G - floor) / ||G||_2."""
    rng = ctx.rng(3)
    worst = math.inf
    for _ in range(sets):
        N, d, d_s = (int(rng.integers(2, 9)), int(rng.integers(1, 11)), int(rng.integers(1, 6)))
        X = rng.standard_normal((N, d_s, d)) * 10.0 ** rng.uniform(-2, 2)
        S = softmax(rng.standard_normal((N, d_s, d_s)) * 3)
        Z = S @ X
        G = B.expected_gram(Z, 1.0)
        gap = np.linalg.eigvalsh(G - B.hermite_floor(Z, 1.0))[0] / np.linalg.norm(G, 2)
        worst = min(worst, float(gap))
    return Evidence(theory=ctx.rule("tol"), measured=worst)


@claim(
    "wu2023.alpha.conc",
    reference="Lemma on alpha, concentration (spec Sect. 5.3)",
    kind=Kind.UPPER,
    provenance=Provenance.RECONSTRUCTED,
    statement="alpha^2 / d_m -> lambda_min(G) (LeCun): relative gap <= 0.1 once d_m >= 64 N",
    quick=dict(N=8, d=16, d_s=4, widths=[64, 256, 1024], seeds=3),
    paper=dict(N=20, d=32, widths=[256, 1024, 4096, 16384]),
    rules={
        "gap_max": Rule(0.1, "relative gap allowed in the concentration regime", _SPEC),
        "width_per_N": Rule(64, "the concentration regime: d_m >= width_per_N N", _SPEC),
    },
)
def alpha_conc(ctx: Ctx, *, N: int, d: int, d_s: int, widths: list[int], seeds: int) -> Evidence:
    """Spec Sect. 5.3 (matrix Chernoff; order-level, RECONSTRUCTED). Kind: upper.
    theory: ``gap_max``; measured: mean over seeds of r = |alpha^2 / (d_m lambda_min(G)) - 1| at the
    largest width (>= ``width_per_N`` N required, else out_of_regime), G from the realised softmax.
    The slope of r against d_m (spec: <= -0.3) is reported in the notes."""
    k, gap = ctx.rule("width_per_N"), ctx.rule("gap_max")
    if max(widths) < k * N:
        return Evidence(gap, None, failed=[f"largest width {max(widths)} < {k} N = {k * N}"])
    pts = _alpha_points(ctx, widths, seeds, 0.5, N, d, d_s)
    out = np.array(ctx.map(E.conc_point, pts)).reshape(len(widths), seeds, 2)
    r = np.abs(out[..., 0] / out[..., 1] - 1)
    fit = fit_loglog(np.array(widths), r.mean(axis=1))
    return Evidence(
        theory=gap,
        measured=float(r[-1].mean()),
        seeds=ctx.seeds(seeds),
        series={"d_m": widths, "r": r.mean(axis=1).tolist()},
        notes=[f"slope of r vs d_m {fit.slope:.3f} (spec: <= -0.3)"],
    )


@claim(
    "wu2023.alpha.width",
    reference="Lemma on alpha (spec Sect. 5.3)",
    kind=Kind.TWO_SIDED,
    provenance=Provenance.RECONSTRUCTED,
    statement="alpha^2 = Theta(d_m) under LeCun init (slope of log alpha^2 vs log d_m in [0.8, 1.2])",
    quick=dict(N=10, d=16, d_s=4, widths=[80, 160, 320, 640], seeds=3, tau0_power=0.5),
    rules={
        "slope_window": Rule((0.8, 1.2), "Theta(d_m) with room for finite widths", _SPEC),
        "width_per_N": Rule(8, "alpha^2 is Theta(d_m) only for d_m >= width_per_N N", _SPEC),
    },
)
def alpha_width(
    ctx: Ctx, *, N: int, d: int, d_s: int, widths: list[int], seeds: int, tau0_power: float
) -> Evidence:
    """Spec Sect. 5.3/8. Kind: two-sided, RECONSTRUCTED (order). theory: ``slope_window``; measured:
    slope of the seed-mean log alpha^2 against log d_m, d_m >= ``width_per_N`` N, LeCun init."""
    window, k = list(ctx.rule("slope_window")), ctx.rule("width_per_N")
    if min(widths) < k * N:
        return Evidence(window, None, failed=[f"smallest width {min(widths)} < {k} N"])
    pts = _alpha_points(ctx, widths, seeds, tau0_power, N, d, d_s)
    a = np.array(ctx.map(E.alpha_he_lecun, pts)).reshape(len(widths), seeds, 2)[..., 0]
    fit = fit_loglog(np.array(widths), a)
    return Evidence(
        theory=window,
        measured=fit.slope,
        seeds=ctx.seeds(seeds),
        series={"d_m": widths, "alpha2": a.mean(axis=1).tolist()},
        notes=[f"bootstrap CI [{fit.lo:.3f}, {fit.hi:.3f}]"],
    )


@claim(
    "wu2023.alpha.he_lecun",
    reference="Lemma on alpha (spec Sect. 5.3)",
    kind=Kind.TWO_SIDED,
    provenance=Provenance.DERIVED,
    statement="under tau0 = d_m^-1 at large width alpha_He^2 / alpha_LeCun^2 -> 2",
    quick=dict(N=10, d=16, d_s=4, d_m=512, seeds=3),
    paper=dict(d_m=4096),
    rules={
        "ratio_window": Rule((1.9, 2.1), "the limit 2 with room for finite widths", _SPEC),
        "min_width": Rule(512, "the softmax is near-uniform only at large widths", _SPEC),
    },
)
def alpha_he_lecun(ctx: Ctx, *, N: int, d: int, d_s: int, d_m: int, seeds: int) -> Evidence:
    """Spec Sect. 5.3: with the softmax fixed, F_pre^He = sqrt 2 F_pre^LeCun; under d_m^-1 the softmax
    is nearly uniform for both. Kind: two-sided, DERIVED. theory: ``ratio_window`` (d_m >=
    ``min_width``); measured: the seed-mean ratio with shared standard-normal draws."""
    window = list(ctx.rule("ratio_window"))
    if d_m < ctx.rule("min_width"):
        return Evidence(window, None, failed=[f"d_m = {d_m} < {ctx.rule('min_width')}"])
    a = np.array(ctx.map(E.alpha_he_lecun, _alpha_points(ctx, [d_m], seeds, 1.0, N, d, d_s)))
    ratio = a[:, 1] / a[:, 0]
    sq = np.array(ctx.map(E.alpha_he_lecun, _alpha_points(ctx, [d_m], seeds, 0.5, N, d, d_s)))
    return Evidence(
        theory=window,
        measured=float(ratio.mean()),
        seeds=ctx.seeds(seeds),
        notes=[
            f"ratios {np.round(ratio, 4).tolist()}; under d_m^-1/2 (softmax changes): "
            f"{np.round(sq[:, 1] / sq[:, 0], 3).tolist()}"
        ],
    )
