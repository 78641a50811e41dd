"""Theorem 1 (linear convergence of two-step-size GD, eqs. (16)-(18)): monotone decrease and the
reconstructed rate rho = 1 - eta_Q gamma^2 zeta_0 / 2."""

from __future__ import annotations

import dataclasses

import numpy as np

from bounds import yang2024 as B
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
    claim,
    fmt_sci,
)
from verify.yang2024 import data as D
from verify.yang2024 import experiments as E
from verify.yang2024.claims.common import FULL_TEXT, PL_FRACTION, STEP_FACTOR, THEOREM_1

CRITERION = "reconstruction pass criterion"
#: the widths of the Theorem 1 runs (thm1.monotone, thm1.rate): the paper runs no Theorem 1 experiment
WIDTHS = Choice(
    (1, 2, 8),
    options=((1, 2, 8), (1, 2, 4, 8), (1, 2, 8, 16)),
    reason="Theorem 1 is for any H with zeta_0 > 0 and the paper states no widths for it: ours (H = N, 2N, "
    "8N), with 4N added, or with 16N added",
)


_THM1_MONOTONE_CHOICES = {
    "H_over_N": WIDTHS,
    "steps": Choice(
        4500, range=(1500, 13_500), reason="our GD budget (the paper states none): a factor 3 either side"
    ),
    "gamma": Choice(
        3.0,
        range=(1.0, 10.0),
        reason="Theorem 1 needs gamma above the threshold (15), lost in the copy; the errata: not "
        "binding here already at 1: from 1 to 10",
    ),
    "step_factor": Choice(
        1.0,
        range=(0.5, 1.0),
        reason="eta_Q <= 1/L (16) with L lost: from the default rule (at or just above the inverse "
        "curvature at theta_0, the stronger test) down to half of it (the thm1.rate step)",
    ),
    "final_ratio": Choice(
        Rule(1e-3, "Delta(T)/Delta(0) required at H >= converged_from N", CRITERION),
        range=(1e-4, 1e-2),
        reason="'towards 0' within the budget: Delta(T)/Delta(0) below 1e-4 to 1e-2",
    ),
    "rel_tol": Choice(
        Rule(1e-12, "relative rise of Delta allowed per step (plus round-off)", CRITERION),
        range=(1e-14, 1e-10),
        reason="a relative rise per step beyond the round-off estimate: 1e-14 to 1e-10",
    ),
    "beyond": Choice(
        Rule(
            2,
            "times a run still above final_ratio at the budget's end runs on, its budget doubled",
            CRITERION,
        ),
        range=(0, 3),
        reason="how far past our budget a slow draw runs (ours; an ill-conditioned draw needs 10 times the "
        "median steps): none (0) to 8 times the budget (3)",
    ),
    "converged_from": Choice(
        Rule(2, "H / N from which GD must reach final_ratio in the budget", CRITERION),
        range=(1, 8),
        reason="the H / N from which 'towards 0' is asked of the budget: from H = N (every run of the "
        "H_over_N grid (1, 2, 8), the smallest width with zeta_0 > 0 in general) to 8 (the widest run "
        "only); monotone decrease is asked of every run either way",
    ),
}


@claim(
    "yang2024.thm1.monotone",
    Source(
        "Theorem 1, eqs. (16)-(18); GD (7a)/(7b) with eta_w = gamma^2 eta_Q, w^(0) = 0; derivation Sect. 5.2",
        Provenance.RECONSTRUCTED,
        quote=FULL_TEXT + THEOREM_1,
    ),
    kind=Kind.QUALITATIVE,
    statement="two-step-size GD from an Assumption-2 init decreases Delta monotonically towards 0",
    assumptions=("Assumption 2 at init (zeta_0 > 0)",),
    profiles=Profiles(quick={"config": "small"}, paper={"steps": 20_000}),
    seeds=SeedPlan(Seeds.EVERY, experiment="default-step GD runs"),
    alternative=Alternative(
        world="a step three times the default rule (eta_Q times the Hessian's largest eigenvalue about 3, "
        "past the descent lemma's stability limit 2; twice the default, about 2.0-2.4, sits at the limit "
        "and rises at some seeds only)",
        overrides={"step_factor": 3.0},
    ),
    choices=_THM1_MONOTONE_CHOICES,
    report=Report(
        r"Theorem 1: GD with $\eta_w=\gamma^2\eta_Q$, $w^{(0)}=0$, from an init with $\zeta_0>0$ decreases "
        r"$\Delta=L-L^*$ monotonically towards $0$",
        Plot(
            x="t",
            curves=[("Delta_H6", "$H=N=6$"), ("Delta_H12", "$H=2N=12$"), ("Delta_H48", "$H=8N=48$")],
            xlabel="GD step $t$",
            ylabel=r"$\Delta(t)=L(\theta_t)-L^*$",
            logx=True,
            logy=True,
        ),
    ),
)
def thm1_monotone(
    ctx: Ctx, *, config: str, H_over_N: tuple, steps: int, gamma: float, step_factor: float
) -> Evidence:
    """Yang et al. 2024, Theorem 1 (linear convergence implies per-step decrease); qualitative;
    RECONSTRUCTED (the displayed bound is reconstructed; the step rule is the default one, which sits at
    or slightly above the theorem's 1/L, see thm1.rate: monotone decrease there is a stronger test); every
    seed.

    measured: False when some run (H in H_over_N * N, gamma, eta_Q = step_factor / (gamma^2 max_k
    lambda_max(B_k^(0)T B_k^(0)))) has Delta(t+1) > Delta(t) (1 + rel_tol) + (round-off of Delta(t):
    first-order bound from the entrywise error of R, see experiments.roundoff) at some step, or diverges
    (Delta above experiments.DIVERGED Delta(0): a rise); True when every run decreases at every step and
    Delta(T)/Delta(0) <= rule ``final_ratio`` for every H >= converged_from N. A draw whose runs have not
    reached ``final_ratio`` within ``steps`` runs on, its budget doubled up to ``beyond`` times (an
    ill-conditioned draw needs several times the median steps); one still short then is inconclusive
    (the budget, not the statement, falls short). Assumption: zeta_0 > 0 in every run.
    """
    cfg = D.Config.named(config)
    N, final = cfg.N, ctx.rule("final_ratio")

    def short_of(H: int, r: E.Run) -> bool:
        return (
            H >= ctx.rule("converged_from") * N
            and not r.diverged
            and r.traj.loss[-1] > final * r.traj.loss[0]
        )

    runs = [(h * N, E.canonical_run(ctx.seed, cfg, h * N, steps, gamma, step_factor)) for h in H_over_N]
    horizon = steps
    for _ in range(int(ctx.rule("beyond"))):  # a slow draw runs on (the cache continues its run)
        if not any(short_of(H, r) for H, r in runs):
            break
        horizon *= 2
        runs = [(H, E.canonical_run(ctx.seed, cfg, H, horizon, gamma, step_factor)) for H, _ in runs]
    notes, series, monotone, short = [], {}, True, []
    failed = [f"zeta_0 = 0 at H = {H}" for H, r in runs if not r.zeta0 > 0]
    for H, r in runs:
        L = r.traj.loss[np.isfinite(r.traj.loss)]  # a diverged run ends with inf: judged as a rise
        inc, under = E.monotone_violation(L, E.roundoff(L, r.problem, H))
        ratio = float(L[-1] / L[0])
        monotone &= inc <= ctx.rule("rel_tol") and not r.diverged
        if short_of(H, r):
            short.append(f"H={H}: Delta(T)/Delta(0) = {ratio:.3g}")
        notes.append(
            f"H={H}: Delta(0)={L[0]:.4g}, Delta(T)/Delta(0)={ratio:.3g} at T={len(L) - 1}, "
            f"largest relative step change beyond round-off {inc:+.3g} ({under} steps at the "
            "round-off floor)" + (f"; diverged ({r.traj.stopped})" if r.diverged else "")
        )
        series[f"Delta_H{H}"] = E.thin(L)
    series["t"] = E.thin_t(runs[0][1].traj.loss)
    budget = f"decreasing at every step, but above final_ratio after {horizon} steps: {', '.join(short)}"
    return Evidence(
        theory=True,
        measured=bool(monotone and not short),
        failed=failed,
        inconclusive=budget if monotone and short else None,
        notes=notes,
        series=series,
    )


@dataclasses.dataclass
class RateRun:
    """One H of thm1.rate: the run, the PL prefix t_end, eta_Q times the Hessian's largest Ritz value at
    the five snapshots, why it is out of the theorem's regime (or None), max_t Delta(t) / (rho^t Delta(0))."""

    H: int
    run: E.Run
    t_end: int
    eta_L: list[float]
    out: str | None
    worst: float


def _rate_run(H: int, r: E.Run, gamma: float, pl_fraction: float) -> RateRun:
    """Premises of Theorem 1 along the run, and the bound where they hold over the whole run."""
    L = r.traj.loss
    t_end = E.regime_end(r.traj.extras["lam_min_BBt"], r.zeta0 * pl_fraction)
    eta_L = [r.eta_Q * E.hessian_lmax(th, r.problem, gamma) for _, th in r.snapshots]
    out = None
    if r.diverged:
        out = f"GD diverged ({r.traj.stopped})"
    elif t_end < len(L):
        out = f"PL premise lambda_min(B^(t) B^(t)T) >= {pl_fraction:g} zeta_0 fails at t = {t_end}"
    elif max(eta_L) > 1:
        out = f"eta_Q <= 1/L fails: eta_Q times a Ritz value of the Hessian = {max(eta_L):.4g} > 1"
    rho = B.rate_factor(r.eta_Q, gamma, r.zeta0)
    t = np.arange(1, len(L))  # t = 0 is equality by construction
    ratios = [float(L[i]) / float(b) for i, b in zip(t, B.rate_bound(float(L[0]), rho, t), strict=True)]
    return RateRun(H, r, t_end, eta_L, out, max(ratios) if ratios else 0.0)


_THM1_RATE_CHOICES = {
    "H_over_N": WIDTHS,
    "steps": Choice(
        1000, range=(300, 3000), reason="our GD budget (the bound is for every t): a factor 3 either side"
    ),
    "gamma": Choice(
        3.0,
        range=(1.0, 10.0),
        reason="gamma above the threshold (15), lost in the copy; not binding here at 1: from 1 to 10",
    ),
}


@claim(
    "yang2024.thm1.rate",
    Source(
        "Theorem 1, eq. (18): Delta(t) <= (1 - eta_Q gamma^2 zeta_0 / 2)^t Delta(0), for eta_Q <= 1/L; "
        "derivation Sect. 5.2",
        Provenance.RECONSTRUCTED,
        quote=FULL_TEXT + THEOREM_1,
    ),
    kind=Kind.UPPER,
    statement="Delta(t) <= rho^t Delta(0) with rho = 1 - eta_Q gamma^2 zeta_0 / 2 [reconstructed form], "
    "judged where the theorem's premises hold along the whole run",
    assumptions=(
        "PL premise lambda_min(B_k^(t) B_k^(t)T) >= zeta_0/2 at every step",
        "eta_Q <= 1/L (checked as a necessary condition: eta_Q lambda_max(Hessian) <= 1 at five iterates)",
    ),
    profiles=Profiles(quick={"config": "small"}, paper={"steps": 20_000}),
    seeds=SeedPlan(Seeds.EVERY, experiment="tracked GD runs"),
    expect=Expect(consistency=True),
    rules={"pl_fraction": PL_FRACTION},
    choices=_THM1_RATE_CHOICES,
    report=Report(
        r"Theorem 1, eq.~(18): $\Delta(t)\le\rho^t\Delta(0)$, $\rho=1-\eta_Q\gamma^2\zeta_0/2$ "
        r"(reconstructed), where the premises hold along the run",
        Plot(
            x="t",
            curves=[("Delta_H12", r"measured $\Delta(t)$")],
            theory="bound_H12",
            theory_label=r"bound $\rho^t\Delta(0)$",
            xlabel="GD step $t$",
            ylabel=r"$\Delta(t)=L(\theta_t)-L^*$",
            logy=True,
            title="$H=2N=12$",
        ),
        Plot(
            x="t",
            curves=[("Delta_H48", r"measured $\Delta(t)$")],
            theory="bound_H48",
            theory_label=r"bound $\rho^t\Delta(0)$",
            xlabel="GD step $t$",
            ylabel=r"$\Delta(t)=L(\theta_t)-L^*$",
            logy=True,
            title="$H=8N=48$",
        ),
    ),
)
def thm1_rate(ctx: Ctx, *, config: str, H_over_N: tuple, steps: int, gamma: float) -> Evidence:
    """Yang et al. 2024, Theorem 1, eq. (18); kind upper; RECONSTRUCTED (rho's constant is ours);
    every seed. Consistency check: on the H it judges, the bound follows from the premises it checks
    (the PL premise at every step gives ||grad_alpha||^2 >= gamma^2 zeta_0 Delta, and the descent lemma
    at eta_Q <= 1/L gives the factor rho per step: derivation Sect. 5.2), so inside its premises it can
    fail only through a bug; outside them it is out of regime. It is also loose: the largest
    Delta(t) / (rho^t Delta(0)) is about 0.8, reached in the first steps, and Delta(T) lies two decades
    below rho^T Delta(0), so no nearby constant (zeta_0 for zeta_0 / 2) is violated either.

    Step: eta_Q = STEP_FACTOR / (gamma^2 max_k lambda_max(B_k^(0)T B_k^(0))), eta_w = gamma^2 eta_Q.
    The default rule (factor 1) puts eta_Q exactly at the inverse curvature of the alpha-block at
    initialisation, so eta_Q lambda_max(Hessian) >= 1 there (1.000 to 1.003 at seeds 0-2, up to 1.22
    along the run at H = N): the theorem's eta_Q <= 1/L fails at the default rule; half of it meets the
    necessary check with room. Premises, per H in H_over_N * N, checked along the whole run: the PL
    premise min_k lambda_min(B_k^(t) B_k^(t)T) >= pl_fraction zeta_0 at every step, and eta_Q times the
    largest Ritz value of the Hessian in (Q, alpha = w / gamma) (experiments.hessian_lmax; a lower
    bound on L, which is NOT RECOVERED) at most 1 at t = 0, T/4, ..., T. An H where a premise fails is
    out of the theorem's regime and named in the notes (at H = N the PL premise fails after a few
    steps: zeta_0 ~ 1e-8); the claim is out_of_regime only when no H qualifies. theory: 1; measured:
    max over the qualifying H and t = 1..T of Delta(t) / (rho^t Delta(0)), rho =
    bounds.rate_factor(eta_Q, gamma, zeta_0).
    """
    cfg = D.Config.named(config)
    runs = [
        _rate_run(h * cfg.N, E.tracked_run(ctx.seed, cfg, h * cfg.N, steps, gamma, STEP_FACTOR), gamma,
                  ctx.rule("pl_fraction"))
        for h in H_over_N
    ]  # fmt: skip
    notes, series = [], {"t": E.thin_t(runs[0].run.traj.loss)}
    for rr in runs:
        r, L = rr.run, rr.run.traj.loss
        rho = B.rate_factor(r.eta_Q, gamma, r.zeta0)
        bT = B.rate_bound(1.0, rho, np.array([len(L) - 1]))[0]
        notes.append(
            f"H={rr.H}: zeta_0={r.zeta0:.3g}, rho=1-{fmt_sci(1 - rho)}, empirical rate 1-"
            f"{1 - E.empirical_rate(L):.3g}; bound at T={len(L) - 1}: Delta(T)/Delta(0) <= {fmt_sci(bT)}, "
            f"measured {L[-1] / L[0]:.3g}; PL premise held for {rr.t_end}/{len(L)} steps; eta_Q x Ritz "
            f"value of the Hessian {', '.join(f'{v:.3f}' for v in rr.eta_L)}; "
            + (f"out of regime: {rr.out}" if rr.out else f"max Delta(t)/bound(t) = {rr.worst:.3g}")
        )
        series[f"Delta_H{rr.H}"] = E.thin(L)
        t_thin = np.array(E.thin_t(L), dtype=np.int64)
        series[f"bound_H{rr.H}"] = [float(b) for b in B.rate_bound(float(L[0]), rho, t_thin)]
    judged = [rr for rr in runs if rr.out is None]
    return Evidence(
        theory=1.0,
        measured=max(rr.worst for rr in judged) if judged else 0.0,
        failed=[] if judged else [f"H={rr.H}: {rr.out}" for rr in runs],
        notes=notes,
        series=series,
        params={"H_judged": [rr.H for rr in judged], "step_factor": STEP_FACTOR},
    )
