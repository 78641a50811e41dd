"""The generalization theorem (derivation Sect. 6.2): Theorem D-gen by on-average model stability
(DERIVED), against the Monte-Carlo gap at a few GD steps and at many."""

from __future__ import annotations

import math

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
from verify.deora2023 import data as D
from verify.deora2023 import experiments as E
from verify.deora2023 import model as M


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
            reason="each end of the Monte-Carlo interval: one-sided 95% (a 90% two-sided interval) to "
            "99.5% (a 99% two-sided interval), the levels a reader would accept for a t-interval",
        ),
        "beta2_margin": Choice(
            Rule(1.05, "inflation of the pilot beta_2 estimate used to choose K", "attncheck"),
            range=(1.0, 1.25),
            reason="inflation of the pilot beta_2 that sets K: from none to 25%; a larger margin only "
            "shortens K (the premise Gamma beta_2^2 eta K <= n/2 is checked with the measured values)",
        ),
        "datasets": Choice(
            datasets,
            range=(datasets // 2, 2 * datasets),
            reason="training sets per seed for the Monte-Carlo mean gap: from half to twice ours (the "
            "paper profile runs far slower); fewer widen the interval, which is stricter for holds",
        ),
        "test_size": Choice(
            test_size,
            range=(test_size // 2, 2 * test_size),
            reason="the shared test set estimating L(theta_K): half to twice ours (its sampling error is in "
            "the interval)",
        ),
        "H": Choice(
            8,
            options=(4, 8, 16),
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
