"""The experiments of Sec. 4 (Fig. 2a): Adam training of the 1-layer model, in-domain and
out-of-domain inference losses, and the size of the OOD/ID ratio at a partly trained iterate."""

from __future__ import annotations

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
)
from verify.numerics.stats import LEVEL, difference_limits
from verify.yang2024 import data as D
from verify.yang2024 import experiments as E
from verify.yang2024 import model as M
from verify.yang2024.claims.common import FULL_TEXT

_OOD_RATIO_SOURCE = FULL_TEXT + (
    "a referee's question of the attncheck audit (reviewer question 6), not the paper's statement; the text: "
    "Sec. 4, OOD test tasks lambda ~ N(1_m, 4 I_m) and 'the inference loss on the ood dataset is higher than "
    "that on the in-domain dataset'"
)
_OOD_RATIO_CHOICES = {
    "window": Choice(
        Rule((1.0, 10.0), "around the E||lambda||^2 ratio 5: a factor 5 down, 2 up", "attncheck"),
        options=((1.0, 10.0), (2.5, 10.0)),
        reason="around the E||lambda||^2 ratio 5: ours (a factor 5 down, 2 up) or a factor 2 either side",
    )
}


@claim(
    "yang2024.ood_ratio",
    Source(
        "Fig. 2a (OOD above in-domain); Theorem 2 (any ||lambda|| <= B); derivation Sect. 8.6",
        Provenance.QUESTION,
        quote=_OOD_RATIO_SOURCE,
    ),
    kind=Kind.TWO_SIDED,
    statement="OOD inference loss ~ E||lambda||^2_OOD / E||lambda||^2_ID (about 5x) the in-domain one",
    profiles=Profiles(
        quick={"config": "small", "H_over_N": 2, "steps": 3000, "at_step": 500, "prompts": 400},
        paper={"steps": 20_000},
    ),
    seeds=SeedPlan(Seeds.EVERY, experiment="default-step GD runs"),
    expect=Expect(consistency=True),
    choices=_OOD_RATIO_CHOICES,
    report=Report(
        r"the OOD inference loss is about "
        r"$\mathbb{E}\|\lambda\|^2_{\mathrm{OOD}}/\mathbb{E}\|\lambda\|^2_{\mathrm{ID}}\approx5$ times the "
        r"in-domain one (window $[1,10]$)"
    ),
)
def ood_ratio(ctx: Ctx, *, config: str, H_over_N: int, steps: int, at_step: int, prompts: int) -> Evidence:
    """Yang et al. 2024, Fig. 2a / Theorem 2 (a reviewer's question: is the OOD loss E||lambda||^2-times
    the in-domain one? the limit map is lambda-independent); kind two-sided; QUESTION; every seed.
    Consistency check, fixed by the data law: with Sigma = E[y y^T] the ratio of the expected losses is
    tr(R^T Sigma_OOD R) / tr(R^T Sigma_ID R), R = A-hat - A, and Sigma_ID = Z^T Z + m tau I,
    Sigma_OOD = Z^T (4 I + 1 1^T) Z + 5 m tau I satisfy 4 Sigma_ID <= Sigma_OOD <= (4 + m) Sigma_ID,
    so the expected ratio lies in [4, 4 + m] = [4, 8] (small config) for every theta: inside the window
    by construction, up to the Monte Carlo of the prompts (derivation Sect. 8.6).

    theory: rule ``window``; measured: mean OOD / mean in-domain (1/K) ||y-hat - y-hat*||^2 at the
    partly trained iterate theta_{at_step} (Delta not ~ 0), ``prompts`` each. Both means are also
    compared with their mean inference bounds in the notes (the per-prompt bound is
    yang2024.thm2.bound).
    """
    cfg = D.Config.named(config)
    r = E.canonical_run(ctx.seed, cfg, H_over_N * cfg.N, steps)
    t, th = min(r.snapshots, key=lambda s: abs(s[0] - at_step))
    p = r.problem
    Delta = M.Transformer(H_over_N * cfg.N).excess_loss(th, p)
    out = {}
    for dom, key in (("id", 21), ("ood", 22)):
        y = D.prompts(p, prompts, ctx.rng(key), dom)
        e = E.inference_error(th, p, y)
        bnd = 2 * B.inference_bound(Delta, np.sum(y * y, axis=1), p.K, p.lam_min_G)
        out[dom] = (float(e.mean()), float(bnd.mean()))
    ratio = out["ood"][0] / out["id"][0]
    return Evidence(
        theory=list(ctx.rule("window")),
        measured=ratio,
        notes=[
            f"at t={t}: Delta={Delta:.3g}; in-domain {out['id'][0]:.3g} (bound "
            f"{out['id'][1]:.3g}), OOD {out['ood'][0]:.3g} (bound {out['ood'][1]:.3g})"
        ],
    )


_EXP_FIG2_SOURCE = FULL_TEXT + (
    "Sec. 4 on Fig. 2: 'the three curves have the same descending trend, despite the inference loss on the "
    "ood dataset is higher'; settings N = 30, K = 200, d = 100, m = 20, H = 64, Adam learning rate 1e-4, the "
    "population loss (9), Q^(0) standard Gaussian, w^(0) = 0, 200 test prompts, OOD lambda ~ N(1_m, 4 I_m), "
    "inference loss (1/K)||y-hat - y-hat*||^2"
)
_EXP_FIG2_CHOICES = {
    "H": Choice(
        12,
        range=(6, 48),
        reason="the quick profile's H = 2N at the small config (the paper's H = 64 is about 2N at "
        "its N = 30); Fig. 2a's statement is for a model that can reach L*, i.e. H >= N "
        "(Proposition 1): from N to 8N",
    ),
    "lr": Choice(
        1e-2,
        range=(3e-3, 3e-2),
        reason="the paper's Adam rate 1e-4 is for its configuration; at the small config our 1e-2 "
        "was picked for the step budget: a factor 3 either side",
    ),
    "steps": Choice(
        3000,
        range=(1000, 9000),
        reason="the paper does not state how long Fig. 2a trains (NOT RECOVERED); our cap 3000, a "
        "factor 3 either side (the run stops once all three curves have fallen)",
    ),
    "together": Choice(
        Rule(3, "the steps of the first fall lie within this factor of each other", "attncheck"),
        range=(2, 10),
        reason="'the same descending trend' fixes no factor: first-fall steps within 2x (tight) to 10x "
        "(one decade on the paper's log axis)",
    ),
}


@claim(
    "yang2024.exp.fig2",
    Source(
        "Fig. 2a (1-layer model; training and inference losses), Sec. 4",
        Provenance.EXACT,
        quote=_EXP_FIG2_SOURCE,
    ),
    kind=Kind.QUALITATIVE,
    statement="training loss and in-domain / OOD inference losses fall together by >= 2 decades; "
    "OOD >= in-domain where the run stops (once all three have fallen)",
    profiles=Profiles(
        quick={"config": "small", "prompts": 200},
        paper={"config": "paper", "H": 64, "lr": 1e-4, "steps": 20_000},
    ),
    seeds=SeedPlan(Seeds.EVERY),
    alternative=Alternative(
        world="two heads (H = 2, against N = 6 prompt tokens): the rank-deficit floor keeps Delta within "
        "about one decade of Delta(0) (three heads fall by 100x at some seeds, not all)",
        overrides={"H": 2},
    ),
    rules={
        "fall": Rule(100, "each curve must fall by this factor from step 0 (two decades)", "paper Fig. 2a")
    },
    choices=_EXP_FIG2_CHOICES,
    report=Report(
        r"Fig.~2a: training loss, in-domain and OOD inference losses fall together by $\ge2$ decades; "
        r"OOD $\ge$ in-domain where the run stops (all three fallen)",
        Plot(
            x="t",
            curves=[
                ("train_excess", r"training loss $L-L^*$"),
                ("id", "in-domain inference loss"),
                ("ood", "out-of-domain inference loss"),
            ],
            xlabel="Adam step $t$",
            ylabel=r"loss",
            logx=True,
            logy=True,
            fall=100,
        ),
    ),
)
def exp_fig2(ctx: Ctx, *, config: str, H: int, lr: float, steps: int, prompts: int) -> Evidence:
    """Yang et al. 2024, Fig. 2a (qualitative reproduction; setting EXACT, tau = 0.01 assumed at the
    paper config); qualitative; every seed. Adam on the closed-form loss, Q^(0) ~ N(0, 1),
    w^(0) = 0. The quick profile uses the small config and lr 1e-2 (lr 1e-4 needs far more steps than
    the budget).

    measured: True when Delta = L - L* (the training curve above its floor) and the mean in-domain
    and OOD inference losses (1/K) ||y-hat - y-hat*||^2 each fall by rule ``fall`` from step 0, the
    steps at which they first do so lie within rule ``together`` of each other, and OOD >= in-domain
    where the run stops, judged on the prompts' one-sided 95% Welch limits of OOD - ID (above 0: yes;
    below: no; else inconclusive). Of these, the 100x fall of Delta is what can fail (its alternative
    world: too few heads); the other two hold by construction up to the Monte Carlo of the prompts: the mean
    in-domain inference loss estimates (2/K) Delta (E[y y^T] = G, Lemma 5) and the OOD one lies between
    4 and 4 + m times it (derivation Sect. 8.6).

    Length of the run: the paper does not state how long Fig. 2a trains (NOT RECOVERED); ``steps`` is
    our cap. The run stops at the first recorded step (every ``steps`` / 100) at which all three curves
    have fallen by ``fall``: the verdict is then decided, and the first-fall steps are those of the run
    to the cap (same iterates bit for bit, recorded at the same steps); only "where the run stops" moves
    from the cap to that step. Paper profile, seed 0: the stop is at step 3800 of 2e4 (errata).
    """
    p = E.problem_for(ctx.seed, D.Config.named(config))
    th0 = E.init_for(ctx.seed, p, H, 1.0)
    y_id = D.prompts(p, prompts, ctx.rng(23), "id")
    y_ood = D.prompts(p, prompts, ctx.rng(24), "ood")
    rec = {
        "id": lambda th, t: E.inference_error(th, p, y_id).mean(),
        "ood": lambda th, t: E.inference_error(th, p, y_ood).mean(),
    }
    fall = ctx.rule("fall")

    def all_fallen(losses: list[float], curves: dict[str, list[float]]) -> bool:
        return all(min(c) <= c[0] / fall for c in (losses, curves["id"], curves["ood"]))

    model = M.Transformer(H, excess=True)
    th, ts, losses, curves = E.adam(
        th0, lambda th: model.loss_and_grad(th, p), lr, steps, every=max(1, steps // 100), record=rec,
        until=all_fallen,
    )  # fmt: skip
    series = {"t": [float(t) for t in ts], "train_excess": losses, **curves}
    firsts = [E.first_fall(series[name], ts, fall) for name in ("train_excess", "id", "ood")]
    ok = all(f is not None for f in firsts)
    if ok:
        ok &= max(firsts) <= ctx.rule("together") * max(min(firsts), 1)
    lo, hi = difference_limits(E.inference_error(th, p, y_ood), E.inference_error(th, p, y_id), LEVEL)
    notes = [
        f"first step with a 100x fall (train, ID, OOD): {firsts}; at the stop (step {ts[-1]} of at most "
        f"{steps}): {losses[-1]:.3g}, {curves['id'][-1]:.3g}, {curves['ood'][-1]:.3g}",
        f"OOD - ID inference loss at the stop: one-sided {LEVEL:.0%} limits [{lo:.3g}, {hi:.3g}] over "
        f"{prompts} prompts each",
    ]
    if ok and lo <= 0 <= hi:
        why = "OOD >= ID is undecided at the stop: the prompts' interval of OOD - ID contains 0"
        return Evidence(True, None, inconclusive=why, series=series, notes=notes)
    return Evidence(theory=True, measured=bool(ok and lo > 0), series=series, notes=notes)
