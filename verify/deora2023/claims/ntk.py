"""The NTK at initialisation (derivation Sect. 8): its Gram matrix and its margin concentrate across
initialisations like H^(-1/2)."""

from __future__ import annotations

import numpy as np

from verify.core import (
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
    claim,
)
from verify.deora2023 import experiments as E
from verify.numerics.fit import fit_rate


def _ntk_table(ctx: Ctx, Hs: tuple[int, ...], inits: int, shared: float) -> tuple[np.ndarray, np.ndarray]:
    """(spread, margin CV), each (len(Hs), n_seeds): one data set per seed, ``inits`` init draws each,
    heads sharing the fraction ``shared`` of their U variance (0: i.i.d. heads, I0)."""
    out = [E.ntk_sweep(E.NtkSweep(seed, tuple(Hs), inits, shared, mapper=ctx.map)) for seed in ctx.seed_set]
    return np.array([o[0] for o in out]).T, np.array([o[1] for o in out]).T


#: The NTK claims' seed sets: 3 seeds left the last-window interval of the spread (2 points, 2 degrees of
#: freedom) wider than the band at some seed sets; 6 seeds give 11 degrees of freedom.
_NTK_SEEDS = SeedPlan(Seeds.POOLED, quick=6, paper=10, experiment="ntk sweep")
#: The margin's CV is noisier across seeds than the Gram's spread (its seed slopes differ, F test), so
#: its seed-slope interval (5 dof at 6 seeds) reached outside -1/2 +- 0.2 at 9 of 40 fresh seed sets,
#: at 12 seeds at 1 of 40 (a support vector that changes between init draws makes a CV jump); 24 seeds,
#: the first 6 the spread's. The paper profile's 10 seeds draw 10 inits each, not 6.
_MARGIN_SEEDS = SeedPlan(Seeds.POOLED, quick=24, paper=10, experiment="ntk sweep")


def _ntk_choices(tol: Rule) -> dict[str, Choice]:
    """The NTK claims' choices, ``tol`` the claim's rate band (its reason is the claim's own)."""
    return {
        "Hs": Choice(
            (4, 16, 64, 256),
            options=((4, 16, 64, 256), (4, 16, 64), (2, 8, 32, 128)),
            reason="the head ladder (the law is asymptotic in H): ours, one point shorter, or shifted one "
            "octave down",
        ),
        "tol": Choice(
            tol,
            range=(0.1, 0.25),
            reason="from 0.1 (the band of the suite's tighter rate claims) to 0.25 (half the distance to "
            "the correlated-heads exponent 0: the widest band that still separates the two)",
        ),
        "inits": Choice(
            6,
            range=(4, 12),
            reason="init draws per data set for the across-init spread: 4 to twice ours (the paper "
            "profile's 10 is inside)",
        ),
    }


@claim(
    "deora2023.ntk.concentration",
    Source("derivation Sect. 8 (NTK Gram is an average of i.i.d. per-head kernels)", Provenance.DERIVED),
    kind=Kind.RATE,
    statement="the across-init relative spread of the NTK Gram at theta_0 decays like H^(-1/2)",
    profiles=Profiles(quick=dict(shared=0.0), paper=dict(inits=10)),
    seeds=_NTK_SEEDS,
    expect=Expect(consistency=True),
    choices=_ntk_choices(
        Rule(
            0.2,
            "last local slope within 0.2 of -1/2: the window [-0.7, -0.3] of derivation Sect. 11 (at most "
            "half the distance to the correlated-heads exponent 0)",
            "reconstruction pass criterion",
        )
    ),
    report=Report(
        r"the across-initialisation relative spread of the NTK Gram matrix at $\theta_0$ decays like "
        r"$H^{-1/2}$",
        Plot.rate(
            -0.5,
            "H",
            [("spread", "relative spread of the NTK Gram")],
            "number of heads $H$",
            r"$\|\mathrm{std}\,K_H\|_F\,/\,\|\mathrm{mean}\,K_H\|_F$",
        ),
    ),
)
def ntk_concentration(ctx: Ctx, *, Hs: tuple[int, ...], inits: int, shared: float) -> Evidence:
    """Derivation Sect. 8 / claim deora2023.ntk.concentration [DERIVED, order-level]. Kind: rate,
    exponent -1/2, tolerance rule ``tol``. Seeds: pooled; per seed one mixture data set (n = 40) and
    ``inits`` paired init draws (W_0 = 0) at every H. measured: the shared rate fit over H of
    ||std_inits K_H||_F / ||mean_inits K_H||_F, one column per seed (the bias of a std from few draws
    is the same factor at every H, so it does not move the slope). ``shared``: the share of U variance the
    heads have in common (0: i.i.d. heads, I0; the tests' correlated heads use 1/2). Consistency check:
    under I0 the Gram is (1/H) times a sum of H i.i.d. per-head kernels (our 1/sqrt(H) scaling), so its
    spread falls like H^(-1/2) by the law of large numbers for the model we built."""
    spread, cv = _ntk_table(ctx, tuple(Hs), inits, shared)
    fit = fit_rate(np.array(Hs, float), spread, window=2)
    return Evidence(
        theory=-0.5,
        measured=fit,
        tol=ctx.rule("tol"),
        series={"H": list(Hs), "spread": spread.tolist(), "margin_cv": cv.tolist()},
        notes=[f"spread (mean over seeds) {', '.join(f'{v:.3g}' for v in spread.mean(axis=1))}"],
    )


@claim(
    "deora2023.ntk.concentration.margin",
    Source("derivation Sect. 8 (NTK margin converges as H grows)", Provenance.DERIVED),
    kind=Kind.RATE,
    statement="the across-init coefficient of variation of the NTK margin decays like H^(-1/2)",
    profiles=Profiles(quick=dict(shared=0.0), paper=dict(inits=10)),
    seeds=_MARGIN_SEEDS,
    expect=Expect(consistency=True),
    choices=_ntk_choices(
        Rule(
            0.2,
            "slope within 0.2 of -1/2, the window of the Gram's spread (derivation Sect. 11); half the "
            "distance to the competing exponent 0",
            "reconstruction pass criterion (by analogy)",
        )
    ),
    report=Report(
        r"the across-initialisation coefficient of variation of the NTK margin decays like $H^{-1/2}$ "
        r"(the margin tends to a deterministic limit)",
        Plot.rate(
            -0.5,
            "H",
            [("margin_cv", "CV of the NTK margin")],
            "number of heads $H$",
            "coefficient of variation",
        ),
    ),
)
def ntk_concentration_margin(ctx: Ctx, *, Hs: tuple[int, ...], inits: int, shared: float) -> Evidence:
    """Derivation Sect. 8 / claim deora2023.ntk.concentration (margin part) [DERIVED, order-level].
    Kind: rate, exponent -1/2, tolerance rule ``tol``. Seeds: pooled (as .ntk.concentration).
    measured: the shared rate fit over every H of the margin's coefficient of variation across init
    draws, one column per seed. The margin is a Lipschitz function of the Gram where the support
    vectors do not change, so its fluctuation inherits the Gram's H^(-1/2) (derivation Sect. 8).
    Consistency check, as .ntk.concentration: the rate follows from the i.i.d. heads of our init."""
    _spread, cv = _ntk_table(ctx, tuple(Hs), inits, shared)
    if not np.all(cv > 0):
        return Evidence(theory=-0.5, measured=None, inconclusive="a margin CV is 0 (identical margins)")
    fit = fit_rate(np.array(Hs, float), cv, window=len(Hs))
    return Evidence(
        theory=-0.5,
        measured=fit,
        tol=ctx.rule("tol"),
        series={"H": list(Hs), "margin_cv": cv.tolist()},
        notes=[f"margin CV (mean over seeds) {', '.join(f'{v:.3g}' for v in cv.mean(axis=1))}"],
    )
