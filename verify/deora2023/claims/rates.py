"""Rates and the NTK / lazy regime (derivation Sect. 7.2 and 10): the O~(1/K) training rate under NTK
separability and the movement of theta in H."""

from __future__ import annotations

import numpy as np

from bounds import deora2023 as B
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
from verify.deora2023 import experiments as E
from verify.numerics.fit import fit_rate

_RATE_K_CHOICES = {
    "K_min": Choice(
        300,
        range=(100, 1000),
        reason="the K grid's start, from past the first hundred steps to a third of K_max; the fit "
        "reads the last 4 of 12 log-spaced points, so K_min moves only the start of its window",
    ),
    "K_max": Choice(
        3000,
        range=(2000, 6000),
        reason="the GD horizon: from 2000 to twice ours (the paper profile's 12000 is the long end, too "
        "slow for a quick check); the rate is asymptotic and approached from below (local slopes -1.22 "
        "at K = 150 to -1.14 at 1e4), so a reader may ask for any horizon past the transient; at 1500 "
        "the window's slope -1.17 to -1.18 sat within 0.03 of the band's edge -1.2 and a fresh seed set "
        "reached past it",
    ),
    "tol": Choice(
        Rule(
            0.2,
            "last local slope within 0.2 of -1: the narrower side of the window [-1.4, -0.8] of "
            "derivation Sect. 11 (below half the distance 0.25 to the competing exponent -1/2)",
            "reconstruction pass criterion",
        ),
        range=(0.1, 0.25),
        reason="from 0.1 (the band of the suite's other reconstructed rate claims) to 0.25 (half the "
        "distance to the competing exponent -1/2: the widest band that still separates the two)",
    ),
}


@claim(
    "deora2023.rate.K",
    Source("derivation Sect. 7.2 (training loss O~(1/K) under NTK separability)", Provenance.RECONSTRUCTED),
    kind=Kind.RATE,
    statement="under NTK separability the training loss L(theta_K) decays like K^(-1) (up to log factors)",
    profiles=Profiles(
        quick=dict(n=40, H=8, eta=1.0, points=12, step_decay=0.0), paper=dict(K_min=1000, K_max=12000)
    ),
    seeds=SeedPlan(Seeds.POOLED),
    alternative=Alternative(
        "GD at the decaying step eta_k = eta/sqrt(k + 1) (the classical step of online and subgradient "
        "analyses) on the same separable data: the loss falls like 1/sum_k eta_k ~ K^(-1/2), the exponent "
        "of T&T's rate without NTK separability (g(eps) = eps^(-1/4), derivation Sect. 0), which no data "
        "law of our mixture realises. Measured slope -0.62 to -0.61 (intervals within [-0.64, -0.59]) at "
        "the seed sets from 0, 1000, 2000 and 3000",
        overrides={"step_decay": 0.5},
    ),
    choices=_RATE_K_CHOICES,
    report=Report(
        r"under NTK separability the training loss decays like $K^{-1}$ up to logarithmic factors: "
        r"$L(\theta_K)=\tilde O(1/(\gamma^2\eta K))$",
        Plot.rate(-1.0, "K", [("loss", "training loss")], "GD steps $K$", r"$L(\theta_K)$"),
    ),
)
def rate_K(
    ctx: Ctx, *, n: int, H: int, eta: float, K_min: int, K_max: int, points: int, step_decay: float
) -> Evidence:
    """Derivation Sect. 7.2 / claim deora2023.rate.K [RECONSTRUCTED order: O~(1/(gamma^2 eta K)); the explicit
    constants of B.ntk_train_rate are DERIVED]. Kind: rate, exponent -1, tolerance rule ``tol``.
    Seeds: pooled, one data set, init and GD run per seed.

    measured: the shared rate fit of L(theta_K) over ``points`` log-spaced K in [K_min, K_max] (mixture,
    H = 8, eta = 1), one column per seed (pilot slope -1.14 on [1e3, 1.2e4], derivation Sect. 10).
    ``step_decay``: GD at the step eta (k + 1)^(-step_decay) (0: the constant step of the statement; 1/2
    in the alternative world, :func:`verify.deora2023.experiments.decaying_gd_losses`)."""
    Ks = np.unique(np.geomspace(K_min, K_max, points).astype(int))
    runs = E.rate_runs(ctx, n, H, eta, K_max, step_decay)  # kept over the choices of the fit and the rule
    cols = [loss[Ks] for loss, _ in runs]
    bounds = [B.ntk_train_rate(int(K_max), 0.0, g, eta, float(loss[0]), U_only=True) for loss, g in runs]
    y = np.array(cols).T
    fit = fit_rate(Ks.astype(float), y, window=4)
    return Evidence(
        theory=-1.0,
        measured=fit,
        tol=ctx.rule("tol"),
        series={"K": Ks.tolist(), "loss": y.tolist()},
        notes=[
            "DERIVED U-only bound at K_max (valid only under the D-train premises), by seed: "
            + ", ".join(f"{b:.3g} vs L(theta_K) {v:.3g}" for b, v in zip(bounds, y[-1], strict=True))
        ],
    )


def _lazy(ctx: Ctx, Hs: tuple[int, ...], n: int, eta: float, K: int, parametrization: str) -> np.ndarray:
    """(len(Hs), n_seeds, 4): :func:`verify.deora2023.experiments.lazy_point` per H and seed."""
    sweeps = [
        E.LazySweep(seed, tuple(Hs), n, eta, K, parametrization, mapper=ctx.map) for seed in ctx.seed_set
    ]
    return np.stack([E.lazy_sweep(s) for s in sweeps], axis=1)


_LAZY_QUICK = dict(eta=1.0, parametrization="ntk")
_LAZY_PAPER = dict(Hs=(2, 8, 32, 128), K=3000)
#: The lazy claim's choices: the band, the step count and the sample size (the derivation's
#: reconstruction fixes none of them).
_LAZY_CHOICES = {
    "tol": Choice(
        Rule(
            0.1,
            "last local slope within 0.1 of the exponent: the narrower side of the window of derivation "
            "Sect. 11 [-0.6, -0.4]",
            "reconstruction pass criterion",
        ),
        range=(0.05, 0.2),
        reason="the narrower side of derivation Sect. 11's window is 0.1; from 0.05 to 0.2 (the band of "
        "the suite's order-level rates; the competing exponent 0 is 0.5 away)",
    ),
    "K": Choice(
        300,
        range=(100, 900),
        reason="GD steps before the movement is measured: a third to 3x ours (the paper profile's 3000 "
        "is too slow for a quick check); the lazy law is for any horizon in the NTK regime",
    ),
    "n": Choice(40, range=(20, 80), reason="training samples: half to twice ours"),
    "Hs": Choice(
        (2, 4, 8, 16),
        options=((2, 4, 8, 16), (4, 8, 16, 32), (2, 4, 8, 16, 32)),
        reason="the head ladder (the fit reads its last 2 points): ours, one octave up, or one point "
        "longer (the paper profile's (2, 8, 32, 128) with K = 3000 is too slow for a quick check)",
    ),
}


@claim(
    "deora2023.lazy",
    Source("derivation Sect. 10 (NTK/lazy regime grows with H)", Provenance.RECONSTRUCTED),
    kind=Kind.RATE,
    statement="the relative movement ||theta_K - theta_0|| / (E||theta_0||^2)^(1/2) scales like H^(-1/2)",
    profiles=Profiles(quick=_LAZY_QUICK, paper=_LAZY_PAPER),
    seeds=SeedPlan(Seeds.POOLED, experiment="lazy sweep"),
    alternative=Alternative(
        "the feature-learning (non-lazy) regime: the mean-field parametrisation Phi = (1/H) sum_h f_h, "
        "trained by GD at step eta H from the same theta_0 (the standard scaling in which heads learn "
        "features), where every head moves O(1) from its start, so the relative movement stays O(1) in "
        "H: its measured slope is 0.000 [-0.0004, 0.0006] at seeds 0-2 (-0.47 in our model)",
        overrides={"parametrization": "mean-field"},
    ),
    choices=_LAZY_CHOICES,
    report=Report(
        r"the relative movement $\|\theta_K-\theta_0\|/(\mathbb{E}\|\theta_0\|^2)^{1/2}$ "
        r"scales like $H^{-1/2}$ (lazy regime)",
        Plot.rate(
            -0.5,
            "H",
            [("relative_movement", "relative movement")],
            "number of heads $H$",
            r"$\|\theta_K-\theta_0\|\,/\,\sqrt{H}$",
        ),
    ),
)
def lazy(ctx: Ctx, *, Hs: tuple[int, ...], n: int, eta: float, K: int, parametrization: str) -> Evidence:
    """Derivation Sect. 10 / claim deora2023.lazy [RECONSTRUCTED, order-level; NTK-regime claim]. Kind: rate,
    exponent -1/2, tolerance rule ``tol``. Seeds: pooled, one data set and init per seed (the spread of
    the slope over seeds enters the interval).
    measured: the shared rate fit over H of ||theta_K - theta_0|| / (E||theta_0||^2)^(1/2), the init
    scale (I0: W_0 = 0 and E||U_h||_F^2 = 1, so E||theta_0||^2 = H), one column per seed (pilot -0.45,
    derivation Sect. 10). The realised ||theta_0|| is a chi variable with H T d / 2 degrees of freedom
    (10% spread at H = 2): noise of the draw, not of the movement, which made the interval wider than the
    band at 3 seeds; the realised ratio is in the notes. The absolute movement ||theta_K - theta_0|| is
    this quantity times sqrt(H), its exponent this one plus 1/2: its slope is reported in the notes, not
    judged a second time. Also REPORTED, not asserted: L(theta_K) vs H
    (the pilot of derivation Sect. 10 found it slightly worse for larger H at fixed K).
    ``parametrization``: "ntk" (our model, the statement's world) or "mean-field" (the alternative
    world, :func:`verify.deora2023.experiments.lazy_point`)."""
    v = _lazy(ctx, tuple(Hs), n, eta, K, parametrization)
    rel = v[:, :, 0] / np.sqrt(np.array(Hs, float))[:, None]
    realised = fit_rate(np.array(Hs, float), v[:, :, 0] / v[:, :, 1], window=2)
    absolute = fit_rate(np.array(Hs, float), v[:, :, 0], window=2)
    fit = fit_rate(np.array(Hs, float), rel, window=2)
    return Evidence(
        theory=-0.5,
        measured=fit,
        tol=ctx.rule("tol"),
        series={"H": list(Hs), "relative_movement": rel.tolist(), "train_loss_K": v[:, :, 2].tolist()},
        notes=[
            "relative movement (mean over seeds) "
            + ", ".join(f"H={H}: {r:.3f}" for H, r in zip(Hs, rel.mean(axis=1), strict=True)),
            f"against the realised ||theta_0|| (information): slope {realised.slope:.3f}, CI "
            f"[{realised.lo:.3f}, {realised.hi:.3f}]",
            f"absolute movement ||theta_K - theta_0|| (information: the same fit shifted by +1/2): slope "
            f"{absolute.slope:.3f}, CI [{absolute.lo:.3f}, {absolute.hi:.3f}]",
            "REPORTED (not a claim): L(theta_K) (mean over seeds) "
            + ", ".join(f"H={H}: {lv:.3g}" for H, lv in zip(Hs, v[:, :, 2].mean(axis=1), strict=True)),
        ],
    )
