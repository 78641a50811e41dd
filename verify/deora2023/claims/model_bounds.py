"""Bounds on the derivatives of Phi and their order in H (derivation Sect. 3.2 and 3.3, DERIVED replacements
of the paper's gradient bound and of its Proposition 5)."""

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
from verify.deora2023.claims.common import search_choice
from verify.numerics.fit import RateFit, fit_rate

_GRADBOUND_CHOICES = {
    "cases": Choice(
        12,
        range=(6, 36),
        reason="random (theta, X) draws besides the search (the bound is for every theta and X): half "
        "to 3x ours",
    ),
    "trained_steps": Choice(
        100,
        range=(20, 300),
        reason="GD steps to the trained theta_K (one point of the set the bound covers): from early "
        "training to 3x ours",
    ),
    "search": search_choice((1, 2, 2, 4, 100), 1),
}


@claim(
    "deora2023.gradbound",
    Source("derivation Sect. 3.2 (DERIVED replacement of the paper's gradient bound)", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="||grad Phi(theta;X)||^2 <= T R^2 + T R^6 (1/H) sum_h ||U_h||_F^2",
    assumptions=("R = max_t ||x_t|| of the sample",),
    profiles=Profiles(paper=dict(cases=200, trained_steps=1000, search=(1, 2, 2, 20, 300))),
    seeds=SeedPlan(Seeds.EVERY),
    alternative=Alternative(
        "beta_2^2 1% smaller: the searched worst case attains the bound (ratio 1.0000 at H = 1, T = d = 2), "
        "so the measurement resolves the constant to 1%. Its 4 starts reach at least 0.9993 at each of 54 "
        "seeds (0-29 and the sets of 3 from 1000, 2000, 3000, 1357, 13579, 24680, 86420, 97531); 2 starts "
        "stopped at 0.27 (seed 16), 0.91 (1357) and 0.975 (86421)",
        factor=1.01,
    ),
    search=Search(
        ratio="||grad Phi(theta; X)||^2 / beta_2^2",
        space="every theta = (U, W) and one sample X (T, d), unconstrained (the bound scales with R and "
        "||U_h||_F), at (H, T, d) = search[:3]; starts N(0, 1)",
        budget="search",
    ),
    choices=_GRADBOUND_CHOICES,
    report=Report(
        r"$\|\nabla_\theta\Phi(\theta;X)\|^2\le TR^2+TR^6\,\frac1H\sum_h\|U_h\|_F^2=:\beta_2^2$, "
        r"$R=\max_t\|x_t\|$"
    ),
)
def gradbound(
    ctx: Ctx, *, cases: int, trained_steps: int, search: tuple[int, int, int, int, int]
) -> Evidence:
    """Derivation Sect. 3.2 / claim deora2023.gradbound [DERIVED]; the paper's own constants are NOT
    RECOVERED. Kind: upper. measured: max ratio ||grad Phi||^2 / beta_2^2 over random theta
    (s in {0.1, 1, 3}), random X, a trained theta_K (mixture, H = 8), and a worst-case search over every
    theta and one sample X at (H, T, d) = ``search[:3]`` (``search[3]`` starts of ``search[4]``
    L-BFGS-B iterations: :func:`verify.deora2023.experiments.grad_ratio_search`); theory: 1. Seeds:
    every seed (a bound for every draw; each seed searches from its own starts)."""
    worst = 0.0
    for j, (H, T, d, s, xs) in enumerate(E.cases(ctx.rng(1), cases)):
        params, X, _ = E.random_case(ctx.rng(2, j), H, T, d, s, xs, 8)
        worst = max(worst, float(np.max(E.grad_ratio(params, X))))
    pr, thK = E.trained_problem(ctx.seed, 8, trained_steps)
    trained = float(np.max(E.grad_ratio(thK, pr.X)))
    found = E.grad_ratio_search(ctx.rng(3), *search)
    typical = max(worst, trained)
    found = replace(found, typical=max(found.typical, typical))
    return Evidence(
        theory=1.0,
        measured=max(typical, found.ratio),
        worst=found,
        notes=[f"max ratio: random {worst:.4f}, trained theta_K {trained:.4f}, searched {found.ratio:.6f}"],
    )


_HESSBOUND_CHOICES = {
    "cases": Choice(
        8,
        range=(4, 24),
        reason="random (theta, X) draws besides the search (the bound is for every theta and X): half "
        "to 3x ours",
    ),
    "trained_steps": Choice(
        100,
        range=(20, 300),
        reason="GD steps to the trained theta_K (one point of the set the bound covers): from early "
        "training to 3x ours",
    ),
    "search": search_choice((2, 1, 1, 20), 0),
}


@claim(
    "deora2023.hessbound",
    Source(
        "derivation Sect. 3.3 (DERIVED replacement of the paper's Prop. 5, corrected in v2)",
        Provenance.DERIVED,
    ),
    kind=Kind.UPPER,
    statement="||grad^2 Phi(theta;X)|| <= sqrt(T) R^3 (1 + 2R^2 max_h ||U_h||_F)/sqrt(H) (V1: sqrt(T)->1)",
    assumptions=("R = max_t ||x_t|| of the sample",),
    profiles=Profiles(paper=dict(cases=200, trained_steps=1000, search=(2, 2, 6, 300))),
    seeds=SeedPlan(Seeds.EVERY),
    alternative=Alternative(
        "beta_3/sqrt(H) 1% smaller: the searched worst case attains its U-free term (ratio 1.000000 at "
        "U = 0, W = 0, x_2 = -x_1); the U-dependent term is at least 2.4-fold loose for ||U|| >= 1 and is "
        "not resolved by this alternative",
        factor=1.01,
    ),
    search=Search(
        ratio="||grad^2 Phi(theta; X)|| / (beta_3/sqrt H), full model and V1 (the larger kept)",
        space="every theta = (U, W) and one sample X (T, d) at H = 1 (no loss: the Hessian is "
        "block-diagonal over heads), (T, d) = search[:2]; U polar with ||U|| = (l/2)^2 (U = 0 a smooth "
        "point), X scaled to R = 1 (the ratio is invariant under (X, U, W) -> (cX, U/c^2, W/c^2)); starts "
        "N(0, 1)",
        budget="search",
    ),
    choices=_HESSBOUND_CHOICES,
    report=Report(
        r"$\|\nabla^2_\theta\Phi(\theta;X)\|\le\beta_3/\sqrt H$, "
        r"$\beta_3=\sqrt T R^3(1+2R^2\max_h\|U_h\|_F)$ (single-query variant: $\sqrt T\to1$)"
    ),
)
def hessbound(ctx: Ctx, *, cases: int, trained_steps: int, search: tuple[int, int, int, int]) -> Evidence:
    """Derivation Sect. 3.3 / claim deora2023.hessbound [DERIVED]; the paper's Proposition 5 constant (changed
    in v2) is NOT RECOVERED. Kind: upper. measured: max of ||grad^2 Phi|| / (beta_3/sqrt(H)) (exact, by
    the per-head blocks) over random theta, X, a trained theta_K and a worst-case search, for the full
    model and for the single-query variant V1 (parameters u_h = U_{h,0}, W_h; bound with sqrt(T) -> 1),
    whose Hessian is taken on the V1 model itself (:func:`verify.deora2023.model.v1_head_blocks`);
    theory: 1. The search (:func:`verify.deora2023.experiments.hess_ratio_search`, once per model) runs
    over every theta and one sample X at H = 1, (T, d) = ``search[:2]``, ``search[2]`` starts of
    ``search[3]`` L-BFGS-B iterations; the larger worst case of the two models is kept. Seeds: every seed
    (each seed searches from its own starts)."""
    worst = worst1 = 0.0
    for j, (H, T, d, s, xs) in enumerate(E.cases(ctx.rng(1), cases)):
        params, X, _ = E.random_case(ctx.rng(2, j), H, T, d, s, xs, 8)
        f, v1 = E.hess_ratio(params, X)
        worst, worst1 = max(worst, float(f.max())), max(worst1, float(v1.max()))
    pr, thK = E.trained_problem(ctx.seed, 8, trained_steps)
    f, v1 = E.hess_ratio(thK, pr.X)
    tr, tr1 = float(f.max()), float(v1.max())
    typical = max(worst, worst1, tr, tr1)
    full, single = (E.hess_ratio_search(ctx.rng(3 + k), v, *search) for k, v in enumerate(("full", "V1")))
    found = max(full, single, key=lambda w: w.ratio)
    return Evidence(
        theory=1.0,
        measured=max(typical, found.ratio),
        worst=replace(found, typical=max(found.typical, typical)),
        notes=[
            f"max ratio full model: random {worst:.4f}, trained {tr:.4f}, searched {full.ratio:.6f}; V1: "
            f"random {worst1:.4f}, trained {tr1:.4f}, searched {single.ratio:.6f} (first pilot: 0.43 "
            "random, 0.69 adversarial)"
        ],
    )


#: Seed sets of the scaling checks: with 3 seeds (5 degrees of freedom) the last-window interval straddled
#: the band at some seed sets; 20 seeds (39 degrees of freedom) narrow it about 2.5-fold.
_SCALING_SEEDS = SeedPlan(Seeds.POOLED, quick=20, paper=20, experiment="scaling sweep")
#: The head ladder of the scaling checks (the laws are asymptotic in H; the fits read the last 3 points).
_SCALING_HS = Choice(
    (2, 4, 8, 16, 32),
    options=((2, 4, 8, 16, 32), (2, 4, 8, 16), (4, 8, 16, 32, 64)),
    reason="the head ladder: ours, one point shorter, or shifted one octave up (about twice the time)",
)


def _scaling_fit(ctx: Ctx, Hs: tuple[int, ...], n_inputs: int, which: int) -> tuple[RateFit, np.ndarray]:
    """The pooled rate fit over H of the per-seed median (over the inputs) norm, one replicate per seed."""
    vals = E.scaling_sweep(E.ScalingSweep(tuple(ctx.seed_set), tuple(Hs), n_inputs, mapper=ctx.map))
    y = vals[:, :, which]  # (len(Hs), n_seeds)
    return fit_rate(np.array(Hs, dtype=float), y, window=3), y


_SCALING_H_CHOICES = {
    "tol": Choice(
        Rule(
            0.15,
            "last local slope within 0.15 of -1/2: the narrower side of the window [-0.65, -0.3] of "
            "derivation Sect. 11",
            "reconstruction pass criterion",
        ),
        range=(0.1, 0.2),
        reason="from 0.1 to 0.2 around the narrower side 0.15 of the window [-0.65, -0.3] of "
        "derivation Sect. 11",
    ),
    "n_inputs": Choice(
        3,
        range=(1, 6),
        reason="mixture inputs per init whose median norm is taken: one to twice ours (the paper "
        "profile's 5 is inside)",
    ),
    "Hs": _SCALING_HS,
}


@claim(
    "deora2023.scaling.H",
    Source("derivation Sect. 3.3 (Hessian ~ 1/sqrt(H) at i.i.d. init)", Provenance.DERIVED),
    kind=Kind.RATE,
    statement="at paired i.i.d. init, ||grad^2 Phi(theta_0;X)|| scales like H^(-1/2)",
    profiles=Profiles(paper=dict(Hs=(2, 4, 8, 16, 32, 64, 128), n_inputs=5)),
    seeds=_SCALING_SEEDS,
    expect=Expect(consistency=True),
    choices=_SCALING_H_CHOICES,
    report=Report(
        r"at paired i.i.d.\ initialisation, $\|\nabla^2_\theta\Phi(\theta_0;X)\|\sim H^{-1/2}$",
        Plot.rate(
            -0.5,
            "H",
            [("hess_norm", "Hessian norm (median over inputs)")],
            "number of heads $H$",
            r"$\|\nabla^2_\theta\Phi(\theta_0;X)\|$",
        ),
    ),
)
def scaling_H(ctx: Ctx, *, Hs: tuple[int, ...], n_inputs: int) -> Evidence:
    """Derivation Sect. 3.3 / claim deora2023.scaling.H [DERIVED, order-level]. Kind: rate, exponent -1/2,
    tolerance rule ``tol`` (the max over i.i.d. heads adds a slowly growing factor, so the local slopes
    may approach -1/2 from above). Seeds: pooled, one init draw per seed.

    measured: the shared rate fit over H of the median (over ``n_inputs`` mixture inputs) exact Hessian
    norm at paired init, W_0 entries N(0, 0.09), one column per seed (pilot, derivation Sect. 12: slope
    -0.47).

    Consistency check: the Hessian is block-diagonal over heads with the prefactor 1/sqrt(H) of our
    parametrisation (derivation Sect. 1.2-1.3), so its norm is max_h ||grad^2 f_h|| / sqrt(H), a max over
    i.i.d. heads (growing at most logarithmically) over sqrt(H): the exponent is the model's definition,
    and a world with another exponent is another definition (e.g. 1/H), not a finding."""
    fit, y = _scaling_fit(ctx, tuple(Hs), n_inputs, 1)
    return Evidence(
        theory=-0.5,
        measured=fit,
        tol=ctx.rule("tol"),
        series={"H": list(Hs), "hess_norm": y.tolist()},
        notes=[f"Hessian-norm slope {fit.slope:.3f} (95% CI [{fit.lo:.3f}, {fit.hi:.3f}])"],
    )


_SCALING_H_GRAD_CHOICES = {
    "tol": Choice(
        Rule(
            0.1,
            "last local slope within 0.1 of 0: the window [-0.1, 0.1] of derivation Sect. 11",
            "reconstruction pass criterion",
        ),
        range=(0.05, 0.2),
        reason="from 0.05 to 0.2 around ours (0.2 the band of the suite's order-level rates; half the "
        "distance to an exponent -1/2 is 0.25)",
    ),
    "n_inputs": Choice(
        3,
        range=(1, 6),
        reason="mixture inputs per init whose median norm is taken: one to twice ours (the paper "
        "profile's 5 is inside)",
    ),
    "Hs": _SCALING_HS,
}


@claim(
    "deora2023.scaling.H.grad",
    Source("derivation Sect. 3.2 (gradient O(1) in H at i.i.d. init)", Provenance.DERIVED),
    kind=Kind.RATE,
    statement="at paired i.i.d. init, ||grad Phi(theta_0;X)|| scales like H^0 (O(1) in H)",
    profiles=Profiles(paper=dict(Hs=(2, 4, 8, 16, 32, 64, 128), n_inputs=5)),
    seeds=_SCALING_SEEDS,
    expect=Expect(consistency=True),
    choices=_SCALING_H_GRAD_CHOICES,
    report=Report(
        r"at paired i.i.d.\ initialisation, $\|\nabla_\theta\Phi(\theta_0;X)\|=O(1)$ in $H$ (exponent $0$)",
        Plot.rate(
            0.0,
            "H",
            [("grad_norm", "gradient norm (median over inputs)")],
            "number of heads $H$",
            r"$\|\nabla_\theta\Phi(\theta_0;X)\|$",
        ),
    ),
)
def scaling_H_grad(ctx: Ctx, *, Hs: tuple[int, ...], n_inputs: int) -> Evidence:
    """Derivation Sect. 3.2 / claim deora2023.scaling.H (gradient part) [DERIVED, order-level]. Kind: rate,
    exponent 0, tolerance rule ``tol``. Seeds: pooled. measured: the shared rate fit over H of the
    median gradient norm, one column per seed (pilot slope +0.007, derivation Sect. 12).

    Consistency check: ||grad Phi||^2 = (1/H) sum_h ||grad f_h||^2 under our 1/sqrt(H) parametrisation,
    an average of i.i.d. per-head terms, so O(1) in H by definition (law of large numbers)."""
    fit, y = _scaling_fit(ctx, tuple(Hs), n_inputs, 0)
    return Evidence(
        theory=0.0,
        measured=fit,
        tol=ctx.rule("tol"),
        series={"H": list(Hs), "grad_norm": y.tolist()},
        notes=[f"gradient-norm slope {fit.slope:.4f} (95% CI [{fit.lo:.4f}, {fit.hi:.4f}])"],
    )
