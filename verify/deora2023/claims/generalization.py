"""Generalization (derivation Sect. 6): Theorem D-gen by on-average model stability (DERIVED), the test loss
with K proportional to n (RECONSTRUCTED) and the generalization gap against n at a fixed number of
steps and at a fixed training loss (RECONSTRUCTED order 1/n)."""

from __future__ import annotations

import math

import numpy as np

from bounds import deora2023 as B
from verify.core import (
    Alternative,
    Choice,
    Ctx,
    Evidence,
    Expect,
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
    Verdict,
    claim,
)
from verify.deora2023 import data as D
from verify.deora2023 import experiments as E
from verify.deora2023 import model as M
from verify.numerics.fit import fit_loglog, fit_rate


def _gen_derived(
    ctx: Ctx, ns: tuple[int, ...], H: int, eta: float, datasets: int, test_size: int, gamma_datasets: int
) -> Evidence:
    """Theorem D-gen against the Monte-Carlo gap at every n of ``ns`` (.gen.derived, .gen.derived.steps)."""
    mix = D.Mixture()
    params0 = M.init_params(ctx.rng(1), H, mix.T, mix.d)
    Xt, yt, _ = mix.sample(ctx.rng(2), test_size)
    Xp, _, _ = mix.sample(ctx.rng(3), 200)
    beta2_est = ctx.rule("beta2_margin") * float(np.max(M.grad_norms(params0, Xp)))
    Ks = [max(1, int(n / (2 * math.e * beta2_est**2 * eta))) for n in ns]
    items = [
        E.GenDatasets(ctx.seed, n, K, eta, params0, Xt, yt, datasets, gamma_datasets)
        for n, K in zip(ns, Ks, strict=True)
    ]
    ratios, notes, failed = [], [], []
    series: dict[str, list] = {"n": [], "K": [], "gap": [], "gap_lo": [], "gap_hi": [], "bound": []}
    q = ctx.rule("ci_quantile")
    for n, K, out in zip(ns, Ks, ctx.map(E.gen_datasets, items), strict=True):
        g = E.gen_gap(out, n, K, eta, q)
        if not g.premise:
            failed.append(f"n={n}: Gamma beta_2^2 eta K = {g.Gamma * g.beta2**2 * eta * K:.3g} > n/2")
        ratios.append((g.lo / g.theory, g.gap / g.theory, g.hi / g.theory))
        notes.append(
            f"n={n}, K={K}: gap {g.gap:.3g}, interval [{g.lo:.3g}, {g.hi:.3g}] vs bound {g.theory:.3g} "
            f"(SE {g.se:.3g} with the shared test set, {g.se_indep:.3g} if the gaps were independent; "
            f"dof {g.dof:.1f}); beta_2 {g.beta2:.3f}, Gamma {g.Gamma:.4f}"
        )
        for key, val in (
            ("n", n), ("K", K), ("gap", g.gap), ("gap_lo", g.lo), ("gap_hi", g.hi), ("bound", g.theory)
        ):  # fmt: skip
            series[key].append(val)
    lo, mid, hi = (max(r[i] for r in ratios) for i in range(3))
    return Evidence(
        theory=1.0,
        measured=mid,
        interval=Interval(lo, hi, 2 * q - 1, "two-sided"),
        failed=failed,
        notes=notes,
        series=series,
    )


#: Who says how the paper's generalization bound is proved (our bound is DERIVED; the method is theirs).
STABILITY_SOURCE = (
    "the method, not our formula: Li, Guo, Lei, Ying, 'Optimal Rates for Generalization of Gradient "
    "Descent for Deep ReLU Classification' (its related work lists Deora et al. 2023 among the "
    "stability-based generalization guarantees built on weak convexity) and a further later paper "
    "('on-average argument stability (Lei and Ying 2020; Deora et al. 2024)'); class (A), independent "
    "third parties citing the paper"
)


def _gen_choices(datasets: int, test_size: int, ns: Choice) -> dict[str, Choice]:
    """The choices of the D-gen claims (the paper fixes none of these for its bound) and their pass rules:
    ``datasets`` and ``test_size`` the claim's quick values (each judged from half to twice), ``ns`` its
    grid of n."""
    return {
        "ns": ns,
        "ci_quantile": Choice(
            Rule(
                0.975,
                "each end of a two-sided 95% t-interval on the mean gap (Monte-Carlo error; the upper end "
                "decides holds, the lower end violated)",
                "attncheck",
            ),
            range=(0.95, 0.995),
            basis="plausible",
            reason="each end of the Monte-Carlo interval: one-sided 95% (a 90% two-sided interval) to "
            "99.5% (a 99% two-sided interval), the levels a reader would accept for a t-interval",
        ),
        "beta2_margin": Choice(
            Rule(1.05, "inflation of the pilot beta_2 estimate used to choose K", "attncheck"),
            range=(1.0, 1.25),
            basis="plausible",
            reason="inflation of the pilot beta_2 that sets K: from none to 25%; a larger margin only "
            "shortens K (the premise Gamma beta_2^2 eta K <= n/2 is checked with the measured values)",
        ),
        "datasets": Choice(
            datasets,
            range=(datasets // 2, 2 * datasets),
            basis="plausible",
            reason="training sets per seed for the Monte-Carlo mean gap: from half to twice ours (the "
            "paper profile runs far slower); fewer widen the interval, which is stricter for holds",
        ),
        "test_size": Choice(
            test_size,
            range=(test_size // 2, 2 * test_size),
            basis="plausible",
            reason="the shared test set estimating L(theta_K): half to twice ours (its sampling error is in "
            "the interval)",
        ),
        "H": Choice(
            8,
            options=(4, 8, 16),
            basis="plausible",
            reason="Theorem D-gen holds at every H; our mid-size model, half or twice its heads (a set: "
            "the paired initialisation needs an even H)",
        ),
    }


_GEN_TEX = (
    r"Theorem D-gen: $\mathbb{E}[L(\theta_K)-\hat L(\theta_K)]\le(4\Gamma\beta_2^2\eta/n)"
    r"\sum_{k<K}\mathbb{E}\hat L(\theta_k)$ when $\Gamma\beta_2^2\eta K\le n/2$"
)
_GEN_PLOT = Plot(
    x="n",
    curves=[("gap", "measured gap (mean over data sets)"), ("gap_hi", "upper end of its 95% interval")],
    theory="bound",
    theory_label="stability bound (theory)",
    xlabel="training set size $n$",
    ylabel=r"$\mathbb{E}\,[L(\theta_K)-\hat L(\theta_K)]$",
    logx=True,
    logy=True,
)


@claim(
    "deora2023.gen.derived",
    Source(
        "derivation Sect. 6.2 (Theorem D-gen by on-average argument stability, the method of the "
        "paper's generalization bound per later papers, see source)",
        Provenance.DERIVED,
        quote=STABILITY_SOURCE,
    ),
    kind=Kind.UPPER,
    statement="E[L(theta_K)] - E[L_hat(theta_K)] <= (4 Gamma beta_2^2 eta/n) sum_{k<K} E L_hat(theta_k) "
    "when Gamma beta_2^2 eta K <= n/2",
    assumptions=("theta_0 independent of the data (I0)", "Gamma beta_2^2 eta K <= n/2"),
    profiles=Profiles(
        quick=dict(eta=1.0, gamma_datasets=1),
        paper=dict(datasets=200, test_size=10000, gamma_datasets=10),
    ),
    seeds=SeedPlan(Seeds.EVERY, experiment="gap sweep"),
    alternative=Alternative(
        "the D-gen bound 200-fold smaller, judged on the hard side (violated only when the gap's lower "
        "confidence limit clears it): at 84 seeds (0-59 and the sets of 3 from 1000, 2000, 3000, 1357, "
        "13579, 24680, 86420, 97531) the lower limits are 0.0083-0.040 of the bound and the upper limits "
        "0.035-0.092 (1-3 GD steps from theta_0 where the premise allows), so the measurement resolves the "
        "bound to a factor 120 at worst: a 100-fold smaller bound is not cleared at seed 24682 (0.0083), "
        "a 30-fold smaller one lies inside most intervals",
        factor=200.0,
    ),
    choices=_gen_choices(
        12,
        500,
        Choice(
            (20, 40, 80),
            options=((20, 40, 80), (10, 20, 40, 80), (30, 60, 120)),
            basis="plausible",
            reason="the training-set sizes (Theorem D-gen holds at every n): ours, one octave longer at the "
            "small end, or shifted half an octave up (each within 2.5x our run time)",
        ),
    ),
    report=Report(_GEN_TEX, _GEN_PLOT),
)
def gen_derived(
    ctx: Ctx, *, ns: tuple[int, ...], H: int, eta: float, datasets: int, test_size: int, gamma_datasets: int
) -> Evidence:
    """Derivation Sect. 6.2 / claim deora2023.gen.derived [DERIVED, proof sketch; Monte-Carlo]. Kind: upper.
    Seeds: every seed (per seed: theta_0, the test set and ``datasets`` independent training sets, run at
    once per n).
    K = floor(n / (2 e beta_2^2 eta)) with beta_2 estimated at theta_0 on an independent pilot sample
    and inflated by the rule ``beta2_margin`` (so the premise can hold with Gamma <= e). Gamma: max over
    ``gamma_datasets`` training sets of prod_k max(1 + eta kappa_k, eta lambda_max_k - 1) at theta_k (the
    segment [theta_k, theta_k^(i)] is replaced by its endpoint theta_k: an approximation). theory: 1;
    measured: max over n of (mean gap L(theta_K) - L_hat(theta_K) over the training sets) / theory(n),
    with the interval (max over n of the lower ends / theory(n), max over n of the upper ends /
    theory(n)) of the per-n two-sided t intervals (each end a one-sided ``ci_quantile`` limit; the
    training sets share one test set, so the standard error carries the test set's sampling error:
    :func:`verify.deora2023.experiments.shared_test_se`). Judged on the hard side: holds only if the
    upper end at every n is at or below the bound, violated only if the lower end at some n is above
    it. Fewer training sets widen the interval: a smaller profile is stricter for holds, not looser."""
    return _gen_derived(ctx, ns, H, eta, datasets, test_size, gamma_datasets)


@claim(
    "deora2023.gen.derived.steps",
    Source(
        "derivation Sect. 6.2 (Theorem D-gen over many GD steps: K = 7 to 45)",
        Provenance.DERIVED,
        quote=STABILITY_SOURCE,
    ),
    kind=Kind.UPPER,
    statement="Theorem D-gen where its premise allows many GD steps: E[L(theta_K)] - E[L_hat(theta_K)] <= "
    "(4 Gamma beta_2^2 eta/n) sum_{k<K} E L_hat(theta_k) at n >= 160 (K >= 7)",
    assumptions=("theta_0 independent of the data (I0)", "Gamma beta_2^2 eta K <= n/2"),
    profiles=Profiles(
        quick=dict(eta=1.0, gamma_datasets=1),
        paper=dict(ns=(256, 512, 1024), datasets=40, test_size=5000, gamma_datasets=4),
    ),
    seeds=SeedPlan(Seeds.EVERY),
    alternative=Alternative(
        "the D-gen bound 1000-fold smaller, judged on the hard side (violated only when the gap's lower "
        "confidence limit clears it): with the claim's 32 training sets and 2000 test samples per seed "
        "the lower limits are 0.0027-0.0115 of the bound at 69 seeds (0-44 and the sets of 3 from 1000, "
        "2000, 3000, 1357, 13579, 24680, 86420, 97531) and the upper limits at most 0.025, so the "
        "measurement resolves the bound to a factor 370 at worst (8 training sets and 500 test samples "
        "left the lower limit below 0 at 4 of 12 seeds: no tightened bound could be cleared)",
        factor=1000.0,
    ),
    choices=_gen_choices(
        32,
        2000,
        Choice(
            (160,),
            options=((160,), (240,), (160, 200)),
            basis="plausible",
            reason="the training-set size where the premise allows many steps (the statement is for n >= "
            "160): ours, half an octave up (K = 11), or ours and n = 200 (each within 2.5x our run time; "
            "the paper profile's 256-1024 is far slower)",
        ),
    ),
    report=Report(_GEN_TEX + r" (at $n\ge160$: $K\ge7$ steps)", _GEN_PLOT),
)
def gen_derived_steps(
    ctx: Ctx, *, ns: tuple[int, ...], H: int, eta: float, datasets: int, test_size: int, gamma_datasets: int
) -> Evidence:
    """Derivation Sect. 6.2 / claim deora2023.gen.derived.steps [DERIVED; Monte-Carlo]. Kind: upper. As
    .gen.derived (K = floor(n / (2 e beta_2^2 eta)), the largest K the premise allows with Gamma <= e)
    at sizes where that K is many steps: quick n = 160 (K = 7, 32 training sets and 2000 test samples per
    seed, so that the interval's lower end clears a 1000-fold smaller bound: about 2 s per seed),
    paper n = 256, 512, 1024 (K = 11, 22, 45; 40 training sets). Seeds: every seed."""
    return _gen_derived(ctx, ns, H, eta, datasets, test_size, gamma_datasets)


_GEN_RATE_CHOICES = {
    "tol": Choice(
        Rule(
            0.2,
            "slope within 0.2 of -1, the order-level window of the other 1/n-type rates (rate.K, gen.gap; "
            "derivation Sect. 11); below half the distance 0.25 to the competing exponent -1/2",
            "reconstruction pass criterion (by analogy)",
        ),
        range=(0.1, 0.25),
        basis="plausible",
        reason="from 0.1 (the band of the suite's other reconstructed rate claims) to 0.25 (half the "
        "distance to the competing exponent -1/2: the widest band that still separates the two)",
    ),
    "K_per_n": Choice(
        5,
        range=(2, 15),
        basis="plausible",
        reason="the paper takes K proportional to n without a constant: from 2 to 3x ours (the paper "
        "profile's 50 is too slow for a quick check)",
    ),
    "H": Choice(
        8,
        options=(4, 8, 16),
        basis="plausible",
        reason="the order O~(1/n) is stated for any H past the head-count condition: half or twice ours "
        "(a set: the paired initialisation needs an even H)",
    ),
    "test_size": Choice(
        1000,
        range=(500, 2000),
        basis="plausible",
        reason="the test set estimating L(theta_K): half to twice ours",
    ),
    "ns": Choice(
        (10, 20, 40, 80),
        options=((10, 20, 40, 80), (20, 40, 80, 160)),
        basis="plausible",
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
    seeds=SeedPlan(Seeds.POOLED, quick=8, paper=10),
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
    exponent -1 itself is not what these sizes show."""
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
            basis="plausible",
            reason="from 0.1 (the band of the suite's other reconstructed rate claims) to 0.25 (half the "
            "distance to the competing exponent -1/2: the widest band that still separates the two)",
        ),
        "datasets": Choice(
            4,
            range=(2, 8),
            basis="plausible",
            reason="training sets per n and seed for the Monte-Carlo mean gap: half to twice ours (the "
            "paper profile's 40 is far slower)",
        ),
        "test_size": Choice(
            500,
            range=(250, 1000),
            basis="plausible",
            reason="the shared test set estimating L(theta_K): half to twice ours",
        ),
        "ns": Choice(
            (10, 20, 40, 80, 160),
            options=((10, 20, 40, 80, 160), (20, 40, 80, 160), (10, 20, 40, 80, 160, 320)),
            basis="plausible",
            reason="the n ladder (the order is asymptotic in n; the fit reads its last 3 points): ours, one "
            "point shorter at the small end, or one point longer (n = 320, twice the run time)",
        ),
        "K_max": Choice(
            Rule(20000, "step cap of the run to the target training loss (an error if reached)", "attncheck"),
            range=(10000, 40000),
            basis="plausible",
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
                basis="plausible",
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
                basis="plausible",
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
