"""Loss-level self-bounded properties of the logistic risk (derivation Sect. 4.1): self-bounded gradient,
weak convexity (and its H^(-1/2) law) and smoothness."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

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
    Search,
    SeedPlan,
    Seeds,
    Source,
    claim,
)
from verify.deora2023 import experiments as E
from verify.deora2023.claims.common import loss_space, search_choice
from verify.numerics.fit import fit_rate

_SBGRAD_CHOICES = {
    "rtol": Choice(
        Rule(1e-10, "round-off margin of an exact inequality", "reconstruction pass criterion"),
        range=(1e-13, 1e-8),
        reason="round-off margin of an exact inequality in float64: 1e-13 to 1e-8 relative",
    ),
    "search": search_choice((1, 2, 1, 1, 20), 1),
}


@claim(
    "deora2023.sbgrad",
    Source("derivation Sect. 4.1 (self-bounded gradient)", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="||grad L(theta)|| <= beta_2 L(theta), beta_2 = max_i ||grad Phi_i||",
    profiles=Profiles(
        quick=dict(H=8, n=40, steps=100, random_points=2),
        paper=dict(steps=3000, random_points=20, search=(2, 3, 2, 4, 100)),
    ),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    search=Search(ratio="||grad L|| / (beta_2 L) / (1 + rtol)", space=loss_space(False), budget="search"),
    choices=_SBGRAD_CHOICES,
    report=Report(
        r"self-bounded gradient: $\|\nabla L(\theta)\|\le\beta_2L(\theta)$, "
        r"$\beta_2=\max_i\|\nabla\Phi(\theta;X_i)\|$",
        Plot(
            x="k",
            curves=[("ratio", r"$\|\nabla L\|\,/\,(\beta_2 L)$ along GD")],
            const=1.0,
            theory_label="bound (theory)",
            xlabel="GD step $k$",
            ylabel="ratio to the bound",
        ),
    ),
)
def sbgrad(
    ctx: Ctx, *, H: int, n: int, steps: int, random_points: int, search: tuple[int, int, int, int, int]
) -> Evidence:
    """Derivation Sect. 4.1 / claim deora2023.sbgrad [DERIVED; the paper names the property (TL;DR), its form
    is RECONSTRUCTED]. Kind: upper, round-off margin rule ``rtol``. measured: max of
    ||grad L|| / (beta_2 L) at theta_0, at random theta (entries N(0, 1)), at every GD iterate
    (eta = 1) and at a worst-case search over every theta and one sample at (H, T, d) = ``search[:3]``
    (``search[3]`` starts of ``search[4]`` L-BFGS-B iterations, :func:`verify.deora2023.experiments.
    loss_ratio_search`; its ratio is divided by 1 + ``rtol``: the bound is attained as y Phi -> infinity,
    where float64 lands on either side of 1); theory: 1. Seeds: every seed.

    Consistency check: with beta_2 the MEASURED max_i ||grad Phi_i||, ||grad L|| = ||(1/n) sum_i l'_i
    y_i grad Phi_i|| <= beta_2 (1/n) sum_i |l'_i| <= beta_2 L is the triangle inequality plus
    |l'| <= l of the logistic loss, for any model and any data: only a wrong gradient code can break
    it. The paper's content (a bound on beta_2) is checked by .gradbound."""
    rtol = ctx.rule("rtol")
    along, rand = E.sbgrad_ratios(ctx.seed, H, n, steps, random_points)
    found = E.loss_ratio_search(ctx.rng(4), "sbgrad", *search, rtol=rtol)
    typical = max(float(along.max()), *rand)
    idx = np.unique(np.linspace(0, along.size - 1, 50).astype(int))
    return Evidence(
        theory=1.0,
        measured=max(typical, found.ratio * (1 + rtol)),
        rtol=rtol,
        worst=replace(found, typical=max(found.typical, typical / (1 + rtol))),
        series={"k": idx.tolist(), "ratio": along[idx].tolist()},
        notes=[
            f"max ratio along GD {along.max():.4f} (theta_0: {along[0]:.4f}); random theta {max(rand):.4f}; "
            f"searched {found.ratio * (1 + rtol):.10f}"
        ],
    )


def _wc_points(
    ctx: Ctx, Hs: tuple[int, ...], n: int, ks: tuple[int, ...], random_points: int, dense_max: int
) -> list[dict[str, float]]:
    return E.wc_sweep(E.WcSweep(ctx.seed, tuple(Hs), n, tuple(ks), random_points, dense_max, mapper=ctx.map))


_WC_QUICK = dict(dense_max=300)
_WC_PAPER_KS = (0, 50, 200, 800)
_WC_PAPER = dict(n=30, ks=_WC_PAPER_KS, random_points=4, dense_max=4000)


#: The worst-case sweep's grids (sbwc, smooth, sbwc.Hlaw: the statements hold at every H and iterate).
_WC_CHOICES = {
    "Hs": Choice(
        (2, 4, 8, 32),
        options=((2, 4, 8, 32), (2, 4, 8, 16, 32), (4, 8, 16, 32)),
        reason="the head counts of the GD runs: ours, with H = 16 added, or one octave up at the small "
        "end (sbwc.Hlaw's fit reads the last 2)",
    ),
    "ks": Choice(
        (0, 50, 200),
        options=((0, 50, 200), (0, 100, 400), (0, 50, 200, 800)),
        reason="the GD iterates judged: ours, twice as late, or one point longer (the paper profile's "
        "(0, 50, 200, 800))",
    ),
}
_SB_CHOICES = {
    **_WC_CHOICES,
    "n": Choice(
        20,
        range=(10, 40),
        reason="training samples of the GD runs (the bound holds for every data set): half to twice ours",
    ),
    "random_points": Choice(
        1, range=(1, 3), reason="random theta per H besides the GD iterates and the search: ours to 3"
    ),
}


@claim(
    "deora2023.sbwc",
    Source("derivation Sect. 4.1 (self-bounded weak convexity; T&T name)", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="lambda_min(grad^2 L(theta)) >= -(beta_3(theta)/sqrt(H)) L(theta)",
    profiles=Profiles(quick=_WC_QUICK, paper=dict(_WC_PAPER, search=(2, 2, 1, 6, 200))),
    seeds=SeedPlan(Seeds.EVERY, experiment="worst-case sweep"),
    alternative=Alternative(
        "the modulus 1.4-fold smaller: the searched worst case is 1/(2 ln 2) = 0.7213 (H = 1, attained at "
        "U = 0, W = 0, x_2 = -x_1), so the bound is at least 1.39-fold loose and the measurement resolves "
        "it to a factor 1.4. Its 3 starts reach 0.7213 at each of seeds 0-59 (1 start missed it at 5 of "
        "them, 2 starts at seed 33)",
        factor=1.4,
    ),
    search=Search(
        ratio="max(0, -lambda_min(grad^2 L)) / ((beta_3/sqrt H) L)", space=loss_space(True), budget="search"
    ),
    choices={**_SB_CHOICES, "search": search_choice((1, 2, 1, 3, 20), 1)},
    report=Report(
        r"self-bounded weak convexity: $\lambda_{\min}(\nabla^2L(\theta))\ge-(\beta_3(\theta)/\sqrt H)\,"
        r"L(\theta)$"
    ),
)
def sbwc(
    ctx: Ctx,
    *,
    Hs: tuple[int, ...],
    n: int,
    ks: tuple[int, ...],
    random_points: int,
    dense_max: int,
    search: tuple[int, int, int, int, int],
) -> Evidence:
    """Derivation Sect. 4.1 / claim deora2023.sbwc [DERIVED]. Kind: upper.

    measured: max over GD iterates k in ks (eta = 1) and random theta, H in Hs, and a worst-case search, of
    max(0, -lambda_min(grad^2 L)) / ((beta_3(theta)/sqrt(H)) L) with beta_3 the formula of Sec. 3.3;
    lambda_min exact for p <= dense_max (:func:`verify.deora2023.model.loss_hessian_extremes`: dense eigh,
    above 500 parameters an inertia bisection to 1e-14 of the spectrum's scale), else the rigorous lower
    bound min_h lambda_min(M_h) (M = (1/n) sum l'_i y_i grad^2 Phi_i is block-diagonal over heads and
    grad^2 L - M is PSD); theory 1.
    The search (:func:`verify.deora2023.experiments.loss_ratio_search`, exact dense Hessian) runs over
    every theta and one sample at (H, T, d) = ``search[:3]``, ``search[3]`` starts of ``search[4]``
    L-BFGS-B iterations. Seeds: every seed (each seed searches from its own starts).
    """
    pts = _wc_points(ctx, tuple(Hs), n, tuple(ks), random_points, dense_max)
    typical = max(E.sbwc_ratio(q) for q in pts)
    found = E.loss_ratio_search(ctx.rng(4), "sbwc", *search)
    return Evidence(
        theory=1.0,
        measured=max(typical, found.ratio),
        worst=replace(found, typical=max(found.typical, typical)),
        notes=[
            f"max ratio to the worst-case modulus {typical:.4f} (pilot 0.003-0.010), searched "
            f"{found.ratio:.6f}; {sum(q['dense'] == 1.0 for q in pts)}/{len(pts)} points with exact "
            "lambda_min"
        ],
    )


@claim(
    "deora2023.sbwc.Hlaw",
    Source("derivation Sect. 4.1 (kappa ~ 1/sqrt(H))", Provenance.DERIVED),
    kind=Kind.RATE,
    statement="the measured weak-convexity ratio kappa_hat = max(0,-lambda_min)/L at a GD iterate k "
    "scales like H^(-1/2)",
    profiles=Profiles(quick=dict(_WC_QUICK, n=20, random_points=1), paper=_WC_PAPER),
    seeds=SeedPlan(Seeds.POOLED, experiment="worst-case sweep"),
    expect=Expect(consistency=True),
    choices={
        **_WC_CHOICES,
        "tol": Choice(
            Rule(
                0.25,
                "'kappa_hat sqrt(H) varies by < 2x over H = 2..32' (derivation Sect. 11) as a slope: "
                "log 2 / log 16",
                "reconstruction pass criterion",
            ),
            range=(0.15, 0.3),
            reason="'kappa_hat sqrt(H) varies by < 2x over H = 2..32' as a slope is 0.25; from 0.15 (a 1.5x "
            "variation) to 0.3",
        ),
    },
    report=Report(
        r"the measured weak-convexity ratio $\hat\kappa=\max(0,-\lambda_{\min}(\nabla^2L))/L$ at a GD "
        r"iterate scales like $H^{-1/2}$",
        Plot.rate(
            -0.5,
            "H",
            [("kappa_hat", r"$\hat\kappa$, mean over seeds and iterates")],
            "number of heads $H$",
            r"$\hat\kappa=\max(0,-\lambda_{\min})/L$",
        ),
    ),
)
def sbwc_Hlaw(
    ctx: Ctx, *, Hs: tuple[int, ...], n: int, ks: tuple[int, ...], random_points: int, dense_max: int
) -> Evidence:
    """Derivation Sect. 4.1 / claim deora2023.sbwc (order-level part) [DERIVED, soft]. Kind: rate, exponent
    -1/2, tolerance rule ``tol``. Seeds: pooled, one GD run per H and seed.

    measured: the shared rate fit over H of kappa_hat(k, H) / kappa_hat(k, H_1), one column per seed
    and GD iterate k in ks (the statement is per k; dividing by the first H removes each
    column's level, so the interval carries the spread of the exponent over seeds and iterates);
    kappa_hat uses the block bound min_h lambda_min(M_h), the same method at every H. Pilot (derivation
    Sect. 12, exact lambda_min): kappa_hat sqrt(H) = 0.14-0.19.

    Consistency check: M = (1/n) sum_i l'_i y_i grad^2 Phi_i is block-diagonal over heads with the
    prefactor 1/sqrt(H) of our parametrisation and |l'| <= l, so kappa_hat = max_h (-lambda_min of an
    O(1) per-head block) / sqrt(H): the exponent follows from the model's definition (as .scaling.H)."""
    cols = []
    for seed in ctx.seed_set:
        pts = E.wc_sweep(E.WcSweep(seed, tuple(Hs), n, tuple(ks), random_points, dense_max, mapper=ctx.map))
        kap = {(int(q["H"]), int(q["k"])): max(0.0, -q["lam_block"]) / q["L"] for q in pts if q["k"] >= 0}
        cols += [np.array([kap[H, k] for H in Hs]) for k in ks]
    table = np.array(cols).T  # (len(Hs), n_seeds * len(ks))
    scaled = table * np.sqrt(np.array(Hs, float))[:, None]
    rows = (f"H={H}: " + ", ".join(f"{v:.3f}" for v in row) for H, row in zip(Hs, scaled, strict=True))
    notes = ["kappa_hat*sqrt(H) by H (columns: seed x k): " + "; ".join(rows)]
    if not np.all(table > 0):
        return Evidence(theory=-0.5, measured=None, inconclusive="kappa_hat = 0 at some H", notes=notes)
    fit = fit_rate(np.array(Hs, float), table / table[:1], window=2)
    return Evidence(theory=-0.5, measured=fit, tol=ctx.rule("tol"), notes=notes,
                    series={"H": list(Hs), "kappa_hat": table.tolist()})  # fmt: skip


@claim(
    "deora2023.smooth",
    Source("derivation Sect. 4.1 (self-bounded and global smoothness)", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="||grad^2 L|| <= (beta_2^2 + beta_3/sqrt H) L  and  ||grad^2 L|| <= beta_2^2/4 + beta_3/sqrt H",
    profiles=Profiles(quick=_WC_QUICK, paper=dict(_WC_PAPER, search=(2, 2, 1, 6, 200))),
    seeds=SeedPlan(Seeds.EVERY, experiment="worst-case sweep"),
    alternative=Alternative(
        "both bounds 1.4-fold smaller: at every seed the search reaches at least 0.72 (the Phi = 0 point "
        "of sbwc; the limits R -> 0 and L -> 0 give 0.9999 at most seeds), so the measurement resolves the "
        "bounds to a factor 1.4",
        factor=1.4,
    ),
    search=Search(
        ratio="||grad^2 L|| / bound, the larger of the two bounds' ratios at each point",
        space=loss_space(False),
        budget="search",
    ),
    choices={**_SB_CHOICES, "search": search_choice((1, 2, 1, 2, 15), 1)},
    report=Report(
        r"$\|\nabla^2L\|\le(\beta_2^2+\beta_3/\sqrt H)\,L$ (self-bounded) and "
        r"$\|\nabla^2L\|\le\beta_2^2/4+\beta_3/\sqrt H$ (global)"
    ),
)
def smooth(
    ctx: Ctx,
    *,
    Hs: tuple[int, ...],
    n: int,
    ks: tuple[int, ...],
    random_points: int,
    dense_max: int,
    search: tuple[int, int, int, int, int],
) -> Evidence:
    """Derivation Sect. 4.1 / claim deora2023.smooth [DERIVED]. Kind: upper.

    measured: max over the points of claim .sbwc and a worst-case search of ||grad^2 L|| divided by each
    of the two bounds (beta_2 measured = max_i ||grad Phi_i||, beta_3 the formula); ||grad^2 L|| exact for
    p <= dense_max, else the rigorous upper bound ||GN|| + max_h ||M_h||; theory: 1. The search
    (:func:`verify.deora2023.experiments.loss_ratio_search`, exact dense Hessian) maximises the larger of
    the two ratios over every theta and one sample at (H, T, d) = ``search[:3]``, ``search[3]`` starts of
    ``search[4]`` L-BFGS-B iterations. Seeds: every seed (each seed searches from its own starts)."""
    pts = _wc_points(ctx, tuple(Hs), n, tuple(ks), random_points, dense_max)
    r1, r2 = (max(r) for r in zip(*(E.smooth_ratios(q) for q in pts), strict=True))
    found = E.loss_ratio_search(ctx.rng(4), "smooth", *search)
    sb, glob = E.smooth_ratios(E.loss_point(found))
    typical = max(r1, r2)
    return Evidence(
        theory=1.0,
        measured=max(typical, found.ratio),
        worst=replace(found, typical=max(found.typical, typical)),
        notes=[
            f"max ratio: self-bounded {r1:.4f}, global {r2:.4f}; searched {found.ratio:.6f} (self-bounded "
            f"{sb:.6f}, global {glob:.6f} there)"
        ],
    )
