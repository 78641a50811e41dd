"""The training theorem (derivation Sect. 5): Theorem D-train (DERIVED replacement of the paper's training
theorem) and its paper form (RECONSTRUCTED), judged on the same GD runs."""

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
from verify.deora2023 import experiments as E
from verify.deora2023.claims.common import TRAIN_CHOICES, TRAIN_PAPER, TRAIN_QUICK


def _experiments(ctx: Ctx, **cfg) -> list[tuple[int, dict]]:
    """The D-train experiment at every seed of the set (a conditional statement is judged over every
    draw whose premises hold, so these claims see the whole set)."""
    return [(seed, E.train_experiment(seed, E.TrainConfig(**cfg))) for seed in ctx.seed_set]


#: Why a configuration whose reference term alone reaches the measured side is set aside.
_UNINFORMATIVE = "its reference term alone is at least the measured side, so the bound cannot fail there"


def _dtrain_run(ctx: Ctx, seed: int, ex: dict, K: int, eta: float) -> tuple[list, list, list[str]]:
    """(ratios to the D-train bounds, L_0 / B, notes) over the configurations of one run whose premises
    P1 and P2 hold and whose reference term ((1+a)/(1-a)) L(theta_ref) is below the measured average
    loss (an informative configuration: the bound could fail there)."""
    L, gn = ex["loss"], ex["grad_norm"]
    p1 = bool(np.all(L[1 : K + 1] <= L[:K] - eta / 2 * gn[:K] ** 2 + ctx.rule("descent_rtol") * L[:K]))
    avg, ratios, useful, notes = float(np.mean(L[:K])), [], [], []
    for name, c in ex["cfgs"].items():
        msg = f"seed {seed}, {name}: L_ref {c['L_ref']:.3g}, D_0 {c['D'][0]:.3g}, c {c['c']:.3g}"
        ref = (1 + B.qc_a(c["c"])) / (1 - B.qc_a(c["c"])) * c["L_ref"] if c["c"] < 1 else math.inf
        if p1 and c["c"] < ctx.rule("c_max") and ref >= avg:
            msg += f", reference term {ref:.3g} >= average loss {avg:.4g}: {_UNINFORMATIVE}, skipped"
        elif p1 and c["c"] < ctx.rule("c_max"):
            b = B.dtrain_bound(c["L_ref"], float(c["D"][0]), eta, K, c["c"], float(L[0]), float(L[K]))
            dbar2 = B.dtrain_dbar_sq(float(c["D"][0]), eta, B.qc_a(c["c"]), K, c["L_ref"], float(L[0]))
            d2 = float(np.max(c["D"] ** 2)) / dbar2
            ratios.append(max(avg / b, d2, float(L[K]) / avg))
            useful.append(float(L[0]) / b)
            msg += f", B {b:.4g} vs average loss {avg:.4g}, max D_k^2/Dbar^2 {d2:.3f}"
        else:
            msg += " -- premises fail, skipped"
        notes.append(msg)
    notes.append(f"seed {seed}: premises held, informatively, in {len(ratios)}/{len(ex['cfgs'])} "
                 f"configurations (P1 {'held' if p1 else 'FAILED'})")  # fmt: skip
    return ratios, useful, notes


@claim(
    "deora2023.train.logic",
    Source(
        "derivation Sect. 5.2 (Theorem D-train; DERIVED replacement of the paper's training theorem)",
        Provenance.DERIVED,
    ),
    kind=Kind.UPPER,
    statement="if GD descends (P1) and c = max_k kappa_k D_k^2 < 1 (P2): (1/K) sum L_k <= B "
    "and D_k^2 <= Dbar^2",
    assumptions=(
        "P1: L_{k+1} <= L_k - (eta/2)||grad L_k||^2 for k < K",
        "P2: c = max_k kappa_k D_k^2 < 1 with the measured modulus",
        "informative: the reference term ((1+a)/(1-a)) L(theta_ref) below the measured average loss",
    ),
    profiles=Profiles(quick=TRAIN_QUICK, paper=TRAIN_PAPER),
    seeds=SeedPlan(Seeds.POOLED, experiment="train experiment"),
    expect=Expect(Verdict.OUT_OF_REGIME),
    alternative=Alternative(
        "the same mixture with its tokens at 1/5 of the scale (S = 0.2, noise sigma = 0.01): the measured "
        "modulus falls faster than the reference distances grow (c ~ S^2), so P1 and P2 hold at "
        "informative reference points and the theorem is judged there (it must hold)",
        overrides={"token_scale": 0.2},
        expect=Verdict.HOLDS,
    ),
    rules={"c_max": Rule(1.0, "premise P2: c < c_max", "derivation Sect. 5.2")},
    choices={
        **TRAIN_CHOICES,
        "rtol": Choice(
            Rule(1e-9, "round-off margin of the bound", "reconstruction pass criterion"),
            range=(1e-10, 1e-7),
            reason="round-off margin of the bound (relative): 10x tighter to 100x looser than ours, every "
            "end far above the float64 unit round-off 1.1e-16 of the sums compared and far below any gap "
            "a holds could rest on (it only decides a ratio within 1e-7 of 1)",
        ),
        "descent_rtol": Choice(
            Rule(1e-12, "round-off allowed in P1, relative to L_k", "attncheck"),
            range=(1e-13, 1e-10),
            reason="round-off allowed in P1, relative to L_k: 10x tighter to 100x looser than ours, every "
            "end far above the float64 unit round-off 1.1e-16; measured, every step of the quick runs "
            "(seeds 0-2, token_scale 1 and 0.2) descends by at least 2e-3 L_k more than P1 asks, so no end "
            "changes P1",
        ),
    },
    report=Report(
        r"Theorem D-train: if GD descends (P1) and $c=\max_k\kappa_kD_k^2<1$ (P2), then "
        r"$\frac1K\sum_{k<K}L(\theta_k)\le B$ and $D_k^2\le\bar D^2$",
        Plot(
            x="k",
            curves=[("loss", "training loss, first seed")],
            xlabel="GD step $k$",
            ylabel=r"$L(\theta_k)$",
            logy=True,
        ),
    ),
)
def train_logic(
    ctx: Ctx,
    *,
    n: int,
    H: int,
    T: int,
    d: int,
    M_irr: int,
    K: int,
    eta: float,
    every: int,
    seg_points: int,
    eps: tuple[float, ...],
    late_factor: int,
    token_scale: float,
) -> Evidence:
    """Derivation Sect. 5.2 / claim deora2023.train.logic [DERIVED, full proof in derivations.md].
    Kind: upper, round-off margin rule ``rtol``.

    Measured modulus: kappa = max over checkpoints k (every ``every`` steps) and ``seg_points`` points
    v of [theta_k, theta_ref] of max(0, -lambda_min(M(v)))/L(v) -- M the head-block-diagonal curvature
    part, so this upper-bounds the true ratio at v; the checkpoint/grid sup is an approximation
    (derivation Sect. 11).
    P1 allows the round-off rule ``descent_rtol``; P2 is c below the rule ``c_max``.
    measured: max over the configurations where P1 and P2 hold of max( (1/K) sum_{k<K} L_k / B,
    max_k D_k^2 / Dbar^2 ); theory: 1. trivial: vacuous when every such B is >= L_0. One data set, init
    and GD run per seed. Seeds: the whole set (pooled). The statement is conditional, so every
    configuration of every seed whose premises hold must satisfy the bound (the max is over all of them);
    a draw whose premises fail is outside the statement, not a counterexample; out_of_regime only if they
    fail at every seed. A configuration counts only if it is informative (its reference term alone is
    below the measured average loss): where the reference term alone reaches it the bound cannot fail.
    Expected out_of_regime at quick sizes: at H = 64 the premises hold only at the eps = 0.3 and 0.1
    reference points, whose reference terms are 1.7-5x the average loss; the informative theta_{3K}
    (L_ref 0.005) has c = 1.7-1.8. The paper profile (H = 256) does not cure it: at seed 0 theta_{3K}
    has c = 1.39 and eps = 0.01 has c = 1.02 (errata). The alternative world (token_scale 0.2) is the
    one in which the premises hold informatively: there the claim must hold."""
    runs = _experiments(
        ctx, n=n, H=H, T=T, d=d, M_irr=M_irr, K=K, eta=eta, every=every, seg_points=seg_points,
        eps=tuple(eps), late_factor=late_factor, token_scale=token_scale,
    )  # fmt: skip
    ratios, useful, notes, total = [], [], [], 0
    for seed, ex in runs:
        r, u, nts = _dtrain_run(ctx, seed, ex, K, eta)
        ratios, useful, notes, total = ratios + r, useful + u, notes + nts, total + len(ex["cfgs"])
    notes.insert(
        0,
        f"premises held, informatively, in {len(ratios)}/{total} configurations over seeds "
        f"{list(ctx.seed_set)}",
    )
    why = (
        "P1/P2 hold at no informative configuration of any seed (c >= 1, GD did not descend, or "
        + _UNINFORMATIVE
        + ")"
    )
    failed = [] if ratios else [why]
    L = runs[0][1]["loss"]
    return Evidence(
        theory=1.0,
        measured=max(ratios) if ratios else None,
        rtol=ctx.rule("rtol"),
        failed=failed,
        trivial=max(useful) if useful else None,
        notes=notes,
        series={"k": list(range(0, K + 1, max(1, K // 100))), "loss": L[:: max(1, K // 100)].tolist()},
    )


@claim(
    "deora2023.train.paperform",
    Source(
        "derivation Sect. 5.1 (paper-form training bound, RECONSTRUCTED "
        "from Taheri & Thrampoulidis; constants NOT CONFIRMED)",
        Provenance.RECONSTRUCTED,
    ),
    kind=Kind.UPPER,
    statement="L(theta_K) <= 2 L(theta_ref) + (5/4)||theta_ref - theta_0||^2/(eta K) in runs with c <= 1/2",
    assumptions=("measured c <= 1/2", "informative: 2 L(theta_ref) below the measured L(theta_K)"),
    profiles=Profiles(quick=TRAIN_QUICK, paper=TRAIN_PAPER),
    seeds=SeedPlan(Seeds.POOLED, experiment="train experiment"),
    expect=Expect(Verdict.OUT_OF_REGIME),
    alternative=Alternative(
        "the same mixture with its tokens at 1/5 of the scale (S = 0.2, noise sigma = 0.01) and the step "
        "scaled by 1/S^2 (eta = 25: the value block's gradient scales like S, its curvature like S^2, so "
        "this is the same effective step): c ~ S^2 is below 1/2 at the late reference point, which is "
        "informative, and the paper form is judged there (it must hold). Found by trying S in {0.05, 0.2, "
        "0.3, 0.5, 0.7, 1} and eta in {1, 4, 16, 25, 32}: at eta = 1 it is vacuous (bound above L_0) or "
        "out of regime at every S",
        overrides={"token_scale": 0.2, "eta": 25.0},
        expect=Verdict.HOLDS,
    ),
    rules={"c_max": Rule(0.5, "the paper form's premise c <= 1/2", "derivation Sect. 5.1")},
    choices=TRAIN_CHOICES,
    report=Report(
        r"paper form (reconstructed): $L(\theta_K)\le2L(\theta_{\mathrm{ref}})+\frac54"
        r"\|\theta_{\mathrm{ref}}-\theta_0\|^2/(\eta K)$ in runs with $c\le\frac12$"
    ),
)
def train_paperform(
    ctx: Ctx,
    *,
    n: int,
    H: int,
    T: int,
    d: int,
    M_irr: int,
    K: int,
    eta: float,
    every: int,
    seg_points: int,
    eps: tuple[float, ...],
    late_factor: int,
    token_scale: float,
) -> Evidence:
    """Derivation Sect. 5.1 / claim deora2023.train.paperform [RECONSTRUCTED, soft]: OUR reconstruction of the
    paper's form, not the paper's statement. Kind: upper. measured: max over configurations with
    c at most the rule ``c_max`` (same runs as .train.logic) of
    L(theta_K) / (2 L_ref + 1.25 ||theta_ref - theta_0||^2/(eta K)); theory: 1; vacuous when every such
    bound is >= L_0. Seeds: the whole set (pooled). The statement is conditional, so every
    configuration of every seed whose premises hold must satisfy the bound (the max is over all of them);
    a draw whose premises fail is outside the statement, not a counterexample; out_of_regime only if they
    fail at every seed. A configuration counts only if it is informative (2 L(theta_ref) < L(theta_K)).
    Expected out_of_regime at quick sizes, as .train.logic: where c <= 1/2, 2 L_ref is 10-30x L(theta_K);
    also in the paper profile at seed 0 (c = 0.53 at eps = 0.3, 1.02 and 1.39 at the informative points)."""
    runs = _experiments(
        ctx, n=n, H=H, T=T, d=d, M_irr=M_irr, K=K, eta=eta, every=every, seg_points=seg_points,
        eps=tuple(eps), late_factor=late_factor, token_scale=token_scale,
    )  # fmt: skip
    ratios, useful, notes = [], [], []
    for seed, ex in runs:
        L = ex["loss"]
        for name, c in ex["cfgs"].items():
            if c["c"] <= ctx.rule("c_max") and 2 * c["L_ref"] >= L[K]:
                notes.append(
                    f"seed {seed}, {name}: c {c['c']:.3g}, 2 L_ref {2 * c['L_ref']:.3g} >= L_K {L[K]:.4g}: "
                    f"{_UNINFORMATIVE}, skipped"
                )
            elif c["c"] <= ctx.rule("c_max"):
                b = B.paper_form_train_bound(c["L_ref"], c["dist0"], eta, K)
                ratios.append(float(L[K]) / b)
                useful.append(float(L[0]) / b)
                notes.append(f"seed {seed}, {name}: c {c['c']:.3g}, bound {b:.4g} vs L_K {L[K]:.4g}")
            else:
                notes.append(f"seed {seed}, {name}: c {c['c']:.3g} > {ctx.rule('c_max')}, skipped")
    ev = Evidence(
        theory=1.0,
        measured=max(ratios) if ratios else None,
        notes=[
            f"c <= 1/2, informatively, in {len(ratios)}/{len(notes)} configurations over seeds "
            f"{list(ctx.seed_set)}",
            *notes,
        ],
        trivial=max(useful) if useful else None,
    )
    if not ratios:
        ev.failed.append(
            f"no informative configuration with measured c <= 1/2 at any seed ({_UNINFORMATIVE})"
        )
    return ev
