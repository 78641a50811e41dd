"""Training behaviour of the experiments (Sect. 4.5, Sect. 5, Fig. 1, Fig. 9): wider is faster and
lazier, LeCun / He beat NTK init, and d_m^-1/2 beats d_m^-1. How the stable step scales with N is in
:mod:`.stepsize`."""

from __future__ import annotations

import numpy as np

from bounds.checks import check_choice
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
    claim,
)
from verify.numerics.fit import fit_rate
from verify.numerics.stats import LEVEL, paired_change_limits
from verify.wu2023 import experiments as E
from verify.wu2023.claims.common import CRITERION as _CRITERION
from verify.wu2023.claims.common import LINER_SOURCE

#: The alternative world of the claims that compare configurations at one common step.
_OWN_STEP = Alternative(
    world="each configuration at its own step 1/lambda_max(K_0) (a step tuned per configuration, not the "
    "paper's common step)",
    overrides={"step": "own"},
)


def _steps(rows: list[list[dict]], miss: float) -> np.ndarray:
    """Steps to the target per width and seed (a run that misses it counts ``miss``)."""
    return np.array([[miss if r["steps"] is None else r["steps"] for r in row] for row in rows])


_EMP_WIDTH_CHOICES = {
    "target": Choice(
        Rule(1e-3, "speed = steps until l <= target l_0", _CRITERION),
        range=(1e-4, 1e-2),
        reason="'speed' as the steps to a loss target (ours; Fig. 1a shows whole curves): a decade "
        "either "
        "side of 1e-3",
    ),
    "step": Choice(
        "paper",
        options=("paper", "common"),
        reason="one step for every width, as the statement asks: the quoted protocol (mean loss, gamma = "
        "1) or ours (sum loss, the smallest stable 1/lambda_max(K_0) over the seeds at the widest "
        "model); "
        "'own' (a step per width) is the alternative world, not this statement",
    ),
    "N": Choice(
        10,
        range=(6, 20),
        reason="the quick configuration's number of examples (the paper's synthetic run has N = 100, too "
        "slow for a quick check): 6 to 20",
    ),
    "widths": Choice(
        [32, 64, 128, 256],
        options=([32, 64, 128, 256], [64, 128, 256, 512], [32, 64, 128]),
        reason="the widths of the quick configuration (the paper's are not recovered): doubling from 32, "
        "shifted up one doubling or one point shorter at the top",
    ),
}


@claim(
    "wu2023.emp.width",
    Source("Sect. 5.1, Fig. 1a (wider => faster)", Provenance.EXACT),
    kind=Kind.QUALITATIVE,
    statement="at one step size common to all widths (the paper's protocol: gamma = 1 for every width), "
    "the mean number of steps to l <= 1e-3 l_0 does not increase with d_m",
    profiles=Profiles(
        quick=dict(d=16, d_s=4, steps=400),
        paper=dict(N=100, d=128, d_s=8, widths=[128, 512, 2048], steps=400),
    ),
    seeds=SeedPlan(Seeds.POOLED, quick=40, paper=10),
    alternative=_OWN_STEP,
    choices=_EMP_WIDTH_CHOICES,
    report=Report(
        "Fig.~1a, wider is faster: at one step size for all widths the mean number of steps to "
        r"$\ell\le10^{-3}\ell_0$ does not increase with $d_m$",
        Plot(
            x="d_m",
            curves=[
                ("steps_common", r"common step $\gamma$ (the claim)"),
                ("steps_own", r"own step $\gamma=1/\lambda_{\max}(K_0)$"),
                ("steps_paper", r"quoted protocol: mean loss, $\gamma=1$"),
            ],
            xlabel="width $d_m$",
            ylabel=r"mean steps to $\ell\leq10^{-3}\ell_0$",
            logx=True,
            logy=True,
        ),
    ),
)
def emp_width(ctx: Ctx, *, N: int, d: int, d_s: int, widths: list[int], steps: int, step: str) -> Evidence:
    """Wu et al. 2023, Sect. 5.1 / Fig. 1 [EXACT, qualitative]: linear convergence, faster for wider
    models, with "a fixed step size gamma = 1" for every width. Kind: qualitative, seeds pooled.
    The statement is about a step common to all widths: here gamma = the smallest over the seed set
    of 1/lambda_max(K_0) of the widest model (stable for all, since lambda_max grows with d_m; the
    paper's gamma = 1 diverges with the sum loss), LeCun, tau0 = d_m^-1/2, "paper" tokens.
    measured: the seed-mean steps to ``target`` l_0 (a miss counts steps + 1) do not increase with d_m under
    the judged ``step`` ("paper" by default, or "common"), on paired seeds: holds when every width pair's
    one-sided 95% upper limit of the mean change is <= 0, violated when some pair's lower limit (Bonferroni
    over the pairs) is above 0, else inconclusive; "own" (the alternative world) judges each width's own gamma
    = 1/lambda_max(K_0), under which the order reverses (steps rise with width: the step shrinks like 1/d_m
    while the conditioning does not improve); "paper" judges the protocol as quoted from the paper (a
    reproducibility page quoting its Sect. 5.1: LeCun, tau0 = d_m^-1/2, full-batch GD for 400 epochs at gamma
    = 1; the paper profile adds N = 100 and several widths), with the mean loss, under which gamma = 1 is
    stable (the sum loss diverges at gamma = 1). The quick profile keeps a small configuration (N = 10, d_m =
    32 to 256) under the same protocol. All three protocols and the per-seed increases under the common step
    are reported."""
    check_choice("step", step, ("common", "own", "paper"))
    target = ctx.rule("target")
    g = min(
        E.inverse_lam_max_step(E.make_setup(s, 0, N=N, d=d, d_s=d_s, d_m=max(widths), regime="paper"))
        for s in ctx.seed_set
    )
    common = _steps(E.gd_sweep(ctx, N, d, d_s, widths, 0.5, "lecun", "paper", g, steps, target), steps + 1)
    own = _steps(E.gd_sweep(ctx, N, d, d_s, widths, 0.5, "lecun", "paper", -1.0, steps, target), steps + 1)
    paper = _steps(
        E.gd_sweep(ctx, N, d, d_s, widths, 0.5, "lecun", "paper", 1.0, steps, target, loss_norm="mean"),
        steps + 1,
    )
    mc, mo, mp = common.mean(axis=1), own.mean(axis=1), paper.mean(axis=1)
    judged = {"common": common, "own": own, "paper": paper}[step]
    if judged.shape[1] < 2:
        return Evidence(True, None, inconclusive="a change in the mean steps needs at least 2 seeds")
    # holds: every width's mean change has its upper limit <= 0; violated: some has its lower limit
    # above 0 (Bonferroni over the width pairs); else inconclusive
    upper = paired_change_limits(judged, LEVEL)[:, 1]
    lower = paired_change_limits(judged, 1 - (1 - LEVEL) / (len(widths) - 1))[:, 0]
    rises, settled = bool(np.any(lower > 0)), bool(np.all(upper <= 0))
    change = np.diff(judged, axis=0).mean(axis=1)
    return Evidence(
        theory=True,
        measured=settled and not rises,
        inconclusive=None if rises or settled else "no width pair's change in the mean steps is settled",
        series={
            "d_m": widths,
            "steps_common": mc.tolist(),
            "steps_own": mo.tolist(),
            "steps_paper": mp.tolist(),
        },
        notes=[
            f"step {step!r}: mean change in steps per width pair {change.round(1).tolist()}, one-sided "
            f"{LEVEL:.0%} upper limits {upper.round(1).tolist()}, Bonferroni lower limits "
            f"{lower.round(1).tolist()} (seeds paired)",
            f"the quoted protocol (mean loss, gamma = 1, {steps} epochs; misses count {steps + 1}): mean "
            f"steps per width {mp.round(1).tolist()}, per seed {paper.astype(int).T.tolist()}",
            f"common gamma {g:.4g}: mean steps per width {mc.round(1).tolist()}; per-seed increases "
            f"{int(np.sum(np.diff(common, axis=0) > 0))} of {common[1:].size}",
            f"own gamma = 1/lambda_max(K_0) per width (not the paper's protocol): mean steps "
            f"{mo.round(1).tolist()}, {'rising' if mo[-1] > mo[0] else 'not rising'} with width",
        ],
    )


_LAZY_CHOICES = {
    "slope_max": Choice(
        Rule(-0.3, "a clear decay, well beyond seed noise", _CRITERION),
        range=(-0.5, -0.2),
        reason="'a clear decay' in numbers: a log-log slope below -0.5 to -0.2 (the textbook lazy rate "
        "is -1/2)",
    ),
    "widths": Choice(
        [32, 128, 512],
        options=([32, 128, 512], [16, 64, 256], [64, 256, 1024]),
        reason="the width ladder (ours; the paper profile's 256 to 4096): steps of 4, shifted down or up "
        "by a factor 2",
    ),
}


#: 6 seeds: at 3 the NTK-drift interval (7 degrees of freedom) reached above -0.3 at 6 of 40 fresh seed
#: sets (inconclusive; first seeds 500000 + 1000 j) and at first seed 271828; at 6, 190 of 190 sets hold.
_LAZY_SEEDS = SeedPlan(Seeds.POOLED, quick=6)


@claim(
    "wu2023.lazy",
    Source("Fig. 1b/c and Fig. 9b/c (weights and NTK move less when wider)", Provenance.EXACT),
    kind=Kind.UPPER,
    statement="max relative weight change and NTK drift both decay with d_m (log-log slopes < -0.3, "
    "upper 95% limits)",
    profiles=Profiles(
        quick=dict(N=8, d=16, d_s=4, steps=100, tau0_power=0.5),
        paper=dict(N=20, d=32, widths=[256, 1024, 4096], steps=300),
    ),
    seeds=_LAZY_SEEDS,
    expect=Expect(consistency=True),
    choices=_LAZY_CHOICES,
    report=Report(
        r"Fig.~9b/c: $\max_t\|\theta_t-\theta_0\|/\|\theta_0\|$ and $\|K_T-K_0\|_F/\|K_0\|_F$ "
        "decay in $d_m$ with log-log slopes $<-0.3$",
        Plot.rate(
            -0.3,
            "d_m",
            [
                ("weight_drift", r"weights $\max_t\|\theta_t-\theta_0\|/\|\theta_0\|$"),
                ("ntk_drift", r"NTK $\|K_T-K_0\|_F/\|K_0\|_F$"),
            ],
            "width $d_m$",
            "relative change",
            theory_label="slope $-0.3$ (the claim: steeper)",
        ),
    ),
)
def lazy(ctx: Ctx, *, N: int, d: int, d_s: int, widths: list[int], steps: int, tau0_power: float) -> Evidence:
    """Wu et al. 2023, Fig. 9b/c captions [EXACT, qualitative]: weights barely move and the NTK is
    more stable for wider models. Consistency check: in the parametrisation we reconstructed (LeCun
    variances, tau1 = 1: an NTK-type scaling, as are He and NTK init) lazy training is a textbook fact
    (relative changes O(d_m^-1/2), Chizat, Oyallon and Bach 2019), and one step common to all widths
    instead of each width's own leaves it (slopes -0.73 to -1.01 at seeds 0-2, 1000-2, 2000-2); the
    world where it fails, a mean-field output scaling, is none of the paper's inits. Kind: upper, seeds
    pooled. theory: ``slope_max``; measured: the
    larger of the two slopes (pooled t fit, one draw per seed and width) of
    max_t |theta_t - theta_0|/|theta_0| and |K_T - K_0|_F/|K_0|_F against d_m, LeCun,
    gamma = 1/lambda_max(K_0), "active" tokens, all ``steps`` run; its interval: (the larger lower
    end, the larger upper end) of the two slopes' two-sided 95% intervals, judged on the hard side:
    holds only if both upper ends are at or below ``slope_max``, violated only if a lower end is
    above it (that slope is then shallower than the claim at the interval's level)."""
    rows = E.gd_sweep(ctx, N, d, d_s, widths, tau0_power, "lecun", "active", -1.0, steps, 1e-3, stop=False)
    w = np.array([[r["drift"] for r in row] for row in rows])
    k = np.array([[r["ntk_drift"] for r in row] for row in rows])
    fw, fk = (fit_rate(np.array(widths, dtype=float), v, window=len(widths)) for v in (w, k))
    t10 = [[r["t10"] for r in row] for row in rows]
    if fw.level != fk.level:
        raise ValueError(f"the two slope fits must share one level, got {fw.level} and {fk.level}")
    return Evidence(
        theory=ctx.rule("slope_max"),
        measured=max(fw.slope, fk.slope),
        interval=Interval(max(fw.lo, fk.lo), max(fw.hi, fk.hi), fw.level, "two-sided"),
        series={"d_m": widths, "weight_drift": w.mean(axis=1).tolist(), "ntk_drift": k.mean(axis=1).tolist()},
        notes=[
            f"weight-drift slope {fw.slope:.3f} [{fw.lo:.2f}, {fw.hi:.2f}], NTK-drift slope "
            f"{fk.slope:.3f} [{fk.lo:.2f}, {fk.hi:.2f}] (our pilot runs: about -0.9 and -1.1)",
            f"first step whose weight change is below 10% of the first step's (width x seed): {t10} "
            "(Fig. 9b: weights barely move after about epoch 50; report only)",
        ],
    )


_INIT_RATE_CHOICES = {
    "steps": Choice(
        200,
        range=(100, 400),
        reason="the horizon of the comparison (the summary names none): half to twice ours",
    ),
    "d_m": Choice(
        128,
        range=(64, 384),
        reason="the width (ours; the paper profile's 1024 is beyond the run-time budget): half to 3 "
        "times "
        "ours",
    ),
}


@claim(
    "wu2023.init.rate",
    Source(
        "a public summary (LeCun/He converge faster than NTK init; Sect. 4.5 per our first reading); "
        "our mechanism: derivation Sect. 5.6",
        Provenance.THIRD_PARTY,
        quote=LINER_SOURCE,
    ),
    kind=Kind.QUALITATIVE,
    statement="at one step size common to the three inits (our protocol: the source names no step) LeCun "
    "and He init reach a lower loss after 200 steps than NTK init",
    profiles=Profiles(quick=dict(N=10, d=16, d_s=4, step="common"), paper=dict(d_m=1024)),
    seeds=SeedPlan(Seeds.EVERY, batched=True),
    alternative=_OWN_STEP,
    choices=_INIT_RATE_CHOICES,
    report=Report(
        "Sect.~4.5: at a common step size LeCun and He init reach a lower loss after 200 steps than NTK init"
    ),
)
def init_rate(ctx: Ctx, *, N: int, d: int, d_s: int, d_m: int, steps: int, step: str) -> list[Evidence]:
    """Wu et al. 2023 as a public summary states it: "LeCun and He initializations yield faster
    convergence rates ... compared to NTK initialization" [THIRD-PARTY, class (B); our first encoding
    called it EXACT, Sect. 4.5, but no text of the paper we hold states it; mechanism DERIVED: rate
    exponent gamma tau1^2 alpha^2 is ~d_m/d smaller under NTK init]. The step protocol is ours: the
    summary names none, so the claim judges one step common to the three inits (holds) and names each
    init at its own step as the alternative world (violated there: NTK init is then the fastest).
    Kind: qualitative, every seed. Common gamma =
    1/max(lambda_max(K_0)) over LeCun and He (our first 1/lambda_max(K_0^LeCun), lowered so that He
    is stable too), tau0 = d_m^-1/2, "paper" tokens; holds when l_T^LeCun < l_T^NTK and
    l_T^He < l_T^NTK. ``step`` "own" (the alternative world) runs each init at its own gamma =
    1/lambda_max(K_0), where NTK init is the fastest: the paper's comparison is one at a common step.
    NTK init at its own gamma is reported. The seeds run batched (one GD per init)."""
    return [
        Evidence(
            theory=True,
            measured=bool(max(r["lecun"], r["he"]) < r["ntk"]),
            notes=[
                f"{step} step: l_T/l_0 LeCun {r['lecun']:.3e}, He {r['he']:.3e} vs NTK {r['ntk']:.3e} "
                f"(NTK at its own gamma {own:.3e})"
            ],
        )
        for r, own in E.init_rate_runs(ctx.seed_set, 0, N, d, d_s, d_m, steps, step)
    ]


_SCALING_RATE_CHOICES = {
    "target": Choice(
        Rule(1e-3, "speed = steps until l <= target l_0 (as wu2023.emp.width)", "attncheck"),
        range=(1e-4, 1e-2),
        reason="'speed' as the steps to a loss target (ours; Fig. 1a shows whole curves): a decade "
        "either "
        "side of 1e-3",
    ),
    "steps": Choice(
        400,
        range=(200, 800),
        reason="the step budget (a miss counts steps + 1; ours, as wu2023.emp.width's 400 epochs): half "
        "to "
        "twice ours",
    ),
    "widths": Choice(
        [64, 256],
        options=([64, 256], [32, 128], [128, 512]),
        reason="the widths (ours; the statement judges the largest; the paper profile adds 1024):"
        " shifted down or up by a factor 2",
    ),
}


@claim(
    "wu2023.scaling.rate",
    Source(
        "Sect. 5 (tau0 = d_m^-1/2 converges faster at larger widths); reviews (Thm 2 has a worse rate)",
        Provenance.THIRD_PARTY,
        quote=LINER_SOURCE,
    ),
    kind=Kind.QUALITATIVE,
    statement="on the same data and step size, tau0 = d_m^-1/2 needs on average no more steps to "
    "l <= 1e-3 l_0 than tau0 = d_m^-1 at the largest width",
    profiles=Profiles(
        quick=dict(N=10, d=16, d_s=4, regime="active", step="common"), paper=dict(widths=[64, 256, 1024])
    ),
    seeds=SeedPlan(Seeds.POOLED, quick=40, paper=80),
    alternative=_OWN_STEP,
    choices=_SCALING_RATE_CHOICES,
    report=Report(
        r"same data and step: $\tau_0=d_m^{-1/2}$ needs on average no more steps to "
        r"$\ell\le10^{-3}\ell_0$ than $\tau_0=d_m^{-1}$ at the largest $d_m$",
        Plot(
            x="d_m",
            curves=[("steps_sqrt", r"$\tau_0=d_m^{-1/2}$"), ("steps_inv", r"$\tau_0=d_m^{-1}$")],
            xlabel="width $d_m$",
            ylabel=r"mean steps to $\ell\leq10^{-3}\ell_0$",
            logx=True,
        ),
    ),
)
def scaling_rate(
    ctx: Ctx, *, N: int, d: int, d_s: int, widths: list[int], steps: int, regime: str, step: str
) -> Evidence:
    """THIRD-PARTY summary (liner: "generally converges faster at larger widths") and the reviews'
    "worse rate under d_m^-1"; reviewer question "d_m^-1 vs d_m^-1/2 on the synthetic data". Kind:
    qualitative (mechanism NOT RECOVERED), seeds pooled: "generally" is a statement about the mean,
    so the seed-mean steps are compared. gamma per width = the smallest over the seed set of
    1/max of the two lambda_max(K_0); on paired seeds at the largest width (a run that misses counts steps
    + 1), holds when the one-sided 95% upper limit of the mean of steps(d_m^-1/2) - steps(d_m^-1) to
    ``target`` l_0 is below 0, violated when its lower limit is above 0, else inconclusive; the paired
    per-seed differences and every width are reported. ``step`` "own" (the alternative world) runs
    each scaling at its own gamma = 1/lambda_max(K_0) per seed instead."""
    out = {}
    for p in (0.5, 1.0):
        out[p] = []
        for w in widths:
            g = E.common_scaling_step(ctx.seed_set, N, d, d_s, w, regime) if step == "common" else -1.0
            rows = E.gd_sweep(ctx, N, d, d_s, [w], p, "lecun", regime, g, steps, ctx.rule("target"))
            out[p].append(_steps(rows, steps + 1)[0])
    st = {p: np.array(v) for p, v in out.items()}
    m = {p: v.mean(axis=1) for p, v in st.items()}
    diff = st[1.0][-1] - st[0.5][-1]
    if diff.size < 2:
        return Evidence(True, None, inconclusive="a paired difference of mean steps needs at least 2 seeds")
    lo, hi = paired_change_limits(np.stack([st[1.0][-1], st[0.5][-1]]), LEVEL)[0]  # d_m^-1/2 minus d_m^-1
    faster, slower = bool(hi < 0), bool(lo > 0)
    return Evidence(
        theory=True,
        measured=faster,
        inconclusive=None if faster or slower else "the paired difference's interval holds 0",
        series={"d_m": widths, "steps_sqrt": m[0.5].tolist(), "steps_inv": m[1.0].tolist()},
        notes=[
            f"mean steps to 1e-3 l_0 per width {widths}: d_m^-1/2 {m[0.5].round(1).tolist()}, "
            f"d_m^-1 {m[1.0].round(1).tolist()}",
            f"paired differences (d_m^-1 minus d_m^-1/2) at d_m = {widths[-1]} per seed: {diff.tolist()}; "
            f"one-sided {LEVEL:.0%} limits of the mean of d_m^-1/2 minus d_m^-1: [{lo:.1f}, {hi:.1f}]",
        ],
    )
