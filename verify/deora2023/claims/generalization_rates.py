"""The orders of generalization in n (derivation Sect. 6.1, 7.2; RECONSTRUCTED): the test loss with K
proportional to n, and the generalization gap against n at a fixed number of steps and at a fixed
training loss (order 1/n)."""

from __future__ import annotations

import numpy as np

from bounds import deora2023 as B
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
from verify.deora2023 import data as D
from verify.deora2023 import experiments as E
from verify.numerics.fit import fit_loglog, fit_rate

_GEN_RATE_CHOICES = {
    "tol": Choice(
        Rule(
            0.2,
            "slope within 0.2 of -1, the order-level window of the other 1/n-type rates (rate.K, gen.gap; "
            "derivation Sect. 11); below half the distance 0.25 to the competing exponent -1/2",
            "reconstruction pass criterion (by analogy)",
        ),
        range=(0.1, 0.25),
        reason="from 0.1 (the band of the suite's other reconstructed rate claims) to 0.25 (half the "
        "distance to the competing exponent -1/2: the widest band that still separates the two)",
    ),
    "K_per_n": Choice(
        5,
        range=(2, 15),
        reason="the paper takes K proportional to n without a constant: from 2 to 3x ours (the paper "
        "profile's 50 is too slow for a quick check)",
    ),
    "H": Choice(
        8,
        options=(4, 8, 16),
        reason="the order O~(1/n) is stated for any H past the head-count condition: half or twice ours "
        "(a set: the paired initialisation needs an even H)",
    ),
    "test_size": Choice(
        1000, range=(500, 2000), reason="the test set estimating L(theta_K): half to twice ours"
    ),
    "ns": Choice(
        (10, 20, 40, 80),
        options=((10, 20, 40, 80), (20, 40, 80, 160)),
        reason="the n grid: ours or shifted one octave up (the paper profile's grid); the rate is "
        "asymptotic in n",
    ),
}


@claim(
    "deora2023.gen.rate",
    Source(
        "derivation Sect. 6.1/7.2 (test loss O~(1/n) with K ~ n; RECONSTRUCTED)", Provenance.RECONSTRUCTED
    ),
    kind=Kind.RATE,
    statement="with K proportional to n, the expected test loss decays like n^(-1) (O~(1/n))",
    profiles=Profiles(
        quick=dict(eta=1.0), paper=dict(ns=(20, 40, 80, 160), H=32, K_per_n=50, test_size=10000)
    ),
    seeds=SeedPlan(Seeds.POOLED, quick=16, paper=10),
    expect=Expect(Verdict.VIOLATED, paper=Verdict.INCONCLUSIVE),
    alternative=Alternative(
        "the classical uniform-convergence rate of the test loss, n^(-1/2)", exponent=-0.5
    ),
    choices=_GEN_RATE_CHOICES,
    report=Report(
        r"with $K\propto n$, the expected test loss $\mathbb{E}L(\theta_K)$ decays like $n^{-1}$ "
        r"(the order $\tilde O(1/n)$)",
        Plot.rate(
            -1.0,
            "n",
            [("test_loss", "test loss")],
            "training set size $n$ ($K\\propto n$)",
            r"test loss $L(\theta_K)$",
            theory_label="theory: slope $-1$",
        ),
    ),
)
def gen_rate(ctx: Ctx, *, ns: tuple[int, ...], H: int, eta: float, K_per_n: int, test_size: int) -> Evidence:
    """Derivation Sect. 6.1 / claim deora2023.gen.rate [RECONSTRUCTED, order-level]. Kind: rate, exponent
    -1, tolerance rule ``tol``. Seeds: pooled, one data set, init and test set per seed. measured: the
    shared rate fit over every n of L(theta_K), K = K_per_n * n, one column per seed. With K growing
    like n this measures optimization and generalization together (the training loss alone falls like
    1/K); .gen.gap and .gen.gap.loss isolate the generalization gap.

    Expected violated at quick sizes (a mismatch of our RECONSTRUCTED order, not of the paper): the test
    loss falls faster than 1/n (slope -1.3 to -1.55, every interval below -1.2), its training part in the
    K^(-1.2) phase that .rate.K measures. A faster decay never contradicts O~(1/n) as an upper bound; the
    exponent -1 itself is not what these sizes show. 16 seeds at quick sizes: at 8 the seed-slope
    interval (7 dof, half-width about 0.23) reached above -1.2 at first seeds 455017 and 577215
    (inconclusive), 2 of 41 fresh seed sets; at 16 both are violated (upper ends -1.27, -1.30)."""
    items = [E.GenRatePoint(s, n, H, eta, K_per_n, test_size) for n in ns for s in ctx.seed_set]
    vals = np.array(ctx.map(E.gen_rate_point, items)).reshape(len(ns), len(ctx.seed_set))
    fit = fit_rate(np.array(ns, float), vals, window=len(ns))
    # the RECONSTRUCTED paper-form rate O(g^2/(eta K) + beta_2^2 (eta + g^2)/n) with g = g_U(1/K)
    # (U-only NTK margin of the mixture's closed form), constants unknown: only its slope is shown
    mix = D.Mixture()
    gam = B.mixture_margin_U(mix.zeta_eff, mix.S, mix.T, mix.variant)
    shape = [
        B.paper_form_gen_rate(B.g_eps_U(0.0, 1.0 / (K_per_n * n), gam), eta, K_per_n * n, n, 1.0) for n in ns
    ]
    shape_slope = fit_loglog(np.array(ns, float), np.array(shape)).slope
    return Evidence(
        theory=-1.0,
        measured=fit,
        tol=ctx.rule("tol"),
        series={"n": list(ns), "test_loss": vals.tolist(), "paper_form_shape": shape},
        notes=[
            "test loss (mean over seeds) "
            + ", ".join(f"n={n}: {v:.3g}" for n, v in zip(ns, vals.mean(1), strict=True)),
            f"slope of the RECONSTRUCTED rate g(1/K)^2/(eta K) + beta_2^2 (eta + g^2)/n over the same n "
            f"(beta_2 = 1; constants NOT RECOVERED): {shape_slope:.3f}",
        ],
    )


#: The gap claims' quick parameters besides their choices (each claim adds the K or loss it fixes).
_GAP_QUICK = dict(H=8, eta=1.0, test_flip=0.0)
_GAP_PAPER = dict(ns=(20, 40, 80, 160, 320), H=32, datasets=40, test_size=2000)
#: Monte Carlo gaps: 6 x 4 training sets in quick (3 x 8 left the local slopes +-0.2 noisy)
_GAP_SEEDS = SeedPlan(Seeds.POOLED, quick=6, paper=10, experiment="gap sweep")


def _gap_choices(extra: dict[str, Choice]) -> dict[str, Choice]:
    """The choices of the gap claims: the band, the Monte-Carlo size, and the claim's own stopping rule."""
    return {
        "tol": Choice(
            Rule(
                0.2,
                "last local slope within 0.2 of -1, as the order-level window for the other 1/n-type rate "
                "(rate.K: [-1.4, -0.8], derivation Sect. 11)",
                "reconstruction pass criterion (by analogy)",
            ),  # below half the distance 0.25 to the competing uniform-convergence exponent -1/2
            range=(0.1, 0.25),
            reason="from 0.1 (the band of the suite's other reconstructed rate claims) to 0.25 (half the "
            "distance to the competing exponent -1/2: the widest band that still separates the two)",
        ),
        "datasets": Choice(
            4,
            range=(2, 8),
            reason="training sets per n and seed for the Monte-Carlo mean gap: half to twice ours (the "
            "paper profile's 40 is far slower)",
        ),
        "test_size": Choice(
            500, range=(250, 1000), reason="the shared test set estimating L(theta_K): half to twice ours"
        ),
        "ns": Choice(
            (10, 20, 40, 80, 160),
            options=((10, 20, 40, 80, 160), (20, 40, 80, 160), (10, 20, 40, 80, 160, 320)),
            reason="the n ladder (the order is asymptotic in n; the fit reads its last 3 points): ours, one "
            "point shorter at the small end, or one point longer (n = 320, twice the run time)",
        ),
        "K_max": Choice(
            Rule(20000, "step cap of the run to the target training loss (an error if reached)", "attncheck"),
            range=(10000, 40000),
            reason="a step cap only (a run that reaches it is an error, not a verdict): half to twice ours, "
            "every end far above the 26-29 mean steps the quick runs take to the target training loss "
            "0.1 (gen.gap.loss notes)",
        ),
        **extra,
    }


#: The gap claims' alternative: a test law shifted from the training law, under which the gap tends to a
#: positive constant (the extra loss of the flipped labels) instead of 0.
_GAP_ALTERNATIVE = Alternative(
    "test labels flipped with probability 0.1 (a test law shifted from the training law): the gap tends "
    "to the flipped samples' extra loss, a constant, instead of falling like 1/n",
    overrides={"test_flip": 0.1},
)
_GAP_WHY = (
    "inconclusive by design at quick sizes: 6 seeds x 4 training sets per n give an interval 0.5-0.9 wide "
    "(the band is 0.4; 4x the training sets, 10 s, still 0.3); decided in the paper profile"
)


def _gap(ctx: Ctx, ns, H, eta, K_fixed, target, datasets, test_size, test_flip, col: int) -> Evidence:
    """The pooled gap table of :func:`verify.deora2023.experiments.gap_sweep`, column ``col`` (0: gap at
    K_fixed, 2: gap at the target training loss), judged as a rate with exponent -1."""
    tab = np.stack(
        [
            E.gap_sweep(
                E.GapSweep(
                    seed,
                    tuple(ns),
                    H,
                    eta,
                    K_fixed,
                    target,
                    ctx.rule("K_max"),
                    datasets,
                    test_size,
                    test_flip,
                    mapper=ctx.map,
                )
            )
            for seed in ctx.seed_set
        ],
        axis=1,
    )  # fmt: skip  (len(ns), n_seeds, 5)
    gap, train = tab[:, :, col], tab[:, :, col + 1]
    notes = [
        "mean gap (over seeds) " + ", ".join(f"n={n}: {v:.3g}" for n, v in zip(ns, gap.mean(1), strict=True)),
        "training loss there "
        + ", ".join(f"{v:.3g}" for v in train.mean(1))
        + ("" if col == 0 else "; steps " + ", ".join(f"{v:.0f}" for v in tab[:, :, 4].mean(1))),
    ]
    series = {"n": list(ns), "gap": gap.tolist(), "train_loss": train.tolist()}
    if ctx.profile == "quick":
        notes.append("expected " + _GAP_WHY)
    if not np.all(gap > 0):
        why = "a mean gap is <= 0 (Monte-Carlo noise larger than the gap)"
        return Evidence(theory=-1.0, measured=None, notes=notes, series=series, inconclusive=why)
    fit = fit_rate(np.array(ns, float), gap, window=3)
    return Evidence(theory=-1.0, measured=fit, tol=ctx.rule("tol"), notes=notes, series=series)


@claim(
    "deora2023.gen.gap",
    Source(
        "derivation Sect. 6.1-6.2 (generalization gap O(1/n) at fixed K; the order of Theorem D-gen)",
        Provenance.RECONSTRUCTED,
    ),
    kind=Kind.RATE,
    statement="at a fixed number K of GD steps, the expected generalization gap E[L(theta_K) - "
    "L_hat(theta_K)] decays like n^(-1)",
    profiles=Profiles(quick=_GAP_QUICK | dict(target=0.1), paper=_GAP_PAPER),
    seeds=_GAP_SEEDS,
    expect=Expect(Verdict.INCONCLUSIVE, paper=Verdict.HOLDS),
    alternative=_GAP_ALTERNATIVE,
    choices=_gap_choices(
        {
            "K_fixed": Choice(
                20,
                range=(10, 40),
                reason="the statement holds at any fixed K: half to twice ours (past the first steps, "
                "far below the steps to a small training loss)",
            )
        }
    ),
    report=Report(
        r"at a fixed number $K$ of GD steps, the expected generalization gap "
        r"$\mathbb{E}[L(\theta_K)-\hat L(\theta_K)]$ decays like $n^{-1}$",
        Plot.rate(
            -1.0,
            "n",
            [("gap", "generalization gap at fixed $K$")],
            "training set size $n$",
            r"$L(\theta_K)-\hat L(\theta_K)$",
            theory_label="theory: slope $-1$",
        ),
    ),
)
def gen_gap(
    ctx: Ctx, *, ns: tuple[int, ...], H: int, eta: float, K_fixed: int, target: float, datasets: int,
    test_size: int, test_flip: float,
) -> Evidence:  # fmt: skip
    """Derivation Sect. 6 / claim deora2023.gen.gap [RECONSTRUCTED order: the stability bound
    (4 Gamma beta_2^2 eta / n) sum_{k<K} E L_hat(theta_k) is 1/n at fixed K and the paper form is
    O(g^2/n)]. Kind: rate,
    exponent -1, tolerance rule ``tol``. Seeds: pooled; per seed one theta_0, one test set and
    ``datasets`` training sets per n. measured: the shared rate fit of the mean gap at K = ``K_fixed``
    over n, one column per seed. The training loss at K_fixed hardly moves with n, so the test loss
    itself cannot fall like 1/n here: this is the generalization part alone. ``test_flip``: test labels
    flipped with that probability (the alternative world). Expected inconclusive: see ``_GAP_WHY``."""
    return _gap(ctx, ns, H, eta, K_fixed, target, datasets, test_size, test_flip, 0)


@claim(
    "deora2023.gen.gap.loss",
    Source(
        "derivation Sect. 6.1-6.2 (generalization gap O(1/n) at a fixed training loss)",
        Provenance.RECONSTRUCTED,
    ),
    kind=Kind.RATE,
    statement="trained to a fixed training loss, the expected generalization gap decays like n^(-1)",
    profiles=Profiles(quick=_GAP_QUICK | dict(K_fixed=20), paper=_GAP_PAPER),
    seeds=_GAP_SEEDS,
    expect=Expect(Verdict.INCONCLUSIVE, paper=Verdict.HOLDS),
    alternative=_GAP_ALTERNATIVE,
    choices=_gap_choices(
        {
            "target": Choice(
                0.1,
                range=(0.05, 0.2),
                reason="the statement holds at any fixed training loss: half to twice ours (a loss every n "
                "reaches within the step cap)",
            )
        }
    ),
    report=Report(
        r"trained to a fixed training loss $\hat L(\theta_K)\le0.1$, the expected generalization gap "
        r"decays like $n^{-1}$",
        Plot.rate(
            -1.0,
            "n",
            [("gap", "gap at a fixed training loss")],
            "training set size $n$",
            r"$L(\theta_K)-\hat L(\theta_K)$",
            theory_label="theory: slope $-1$",
        ),
    ),
)
def gen_gap_loss(
    ctx: Ctx, *, ns: tuple[int, ...], H: int, eta: float, K_fixed: int, target: float, datasets: int,
    test_size: int, test_flip: float,
) -> Evidence:  # fmt: skip
    """Derivation Sect. 6 / claim deora2023.gen.gap (second protocol) [RECONSTRUCTED order]. Kind: rate,
    exponent -1, tolerance rule ``tol``. Seeds: pooled (the runs of .gen.gap). measured: the shared rate
    fit over n of the mean gap at the first step with L_hat <= ``target`` (the number of steps is in the
    notes), one column per seed. Expected inconclusive: see ``_GAP_WHY``."""
    return _gap(ctx, ns, H, eta, K_fixed, target, datasets, test_size, test_flip, 2)
