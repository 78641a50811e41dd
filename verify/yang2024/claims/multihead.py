"""Sec. 3.3, 'multi-head is necessary': with one head the global minimum L* is out of reach, since
softmax weights are positive and each a-hat_k lies in a closed orthant (the orthant floor, eq. (8))."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from bounds import yang2024 as B
from verify.core import (
    Alternative,
    Choice,
    Ctx,
    Evidence,
    Kind,
    Plot,
    Profiles,
    Provenance,
    Report,
    Search,
    SeedPlan,
    Seeds,
    Source,
    claim,
)
from verify.yang2024 import data as D
from verify.yang2024 import experiments as E
from verify.yang2024.claims.common import FULL_TEXT

_MULTIHEAD_H1_SOURCE = FULL_TEXT + (
    "Sec. 3.3: 'If H = 1, the transformer could not approximate each A_{:,k} by w_{1,k} softmax(V^T Q_1 v_k) "
    "in general since the entries of the latter vector are either all positive or all negative'"
)
_MULTIHEAD_H1_CHOICES = {
    "steps": Choice(
        1000,
        range=(300, 3000),
        reason="the paper runs no one-head experiment; the floor bounds Delta at every (Q, w), so any GD "
        "length is admissible: our budget 1000, a factor 3 either side",
    ),
    "search": Choice(
        (3, 2, 2, 2, 3, 200),
        options=((3, 2, 2, 2, 3, 200), (3, 2, 2, 2, 6, 200), (4, 3, 3, 2, 3, 200)),
        reason="the search's sizes (K, N, d, m) and budget (starts, iterations) are ours (the floor "
        "bounds Delta on every problem): ours, twice the starts, or a problem one size larger",
    ),
}


@claim(
    "yang2024.multihead.H1",
    Source(
        "Sec. 3.3 ('multi-head is necessary'), eq. (8); derivation Sect. 6.6",
        Provenance.DERIVED,
        quote=_MULTIHEAD_H1_SOURCE,
    ),
    kind=Kind.LOWER,
    statement="with H = 1 the global minimum L* is not reachable: Delta(Q, w) >= orthant floor > 0 for every "
    "Q, w (checked along GD and searched)",
    assumptions=("some A_{:,k} has entries of both signs",),
    profiles=Profiles(
        quick={"config": "small", "H": 1}, paper={"steps": 20_000, "search": (40, 6, 8, 4, 10, 300)}
    ),
    seeds=SeedPlan(Seeds.EVERY),
    alternative=Alternative(
        world="as many heads as prompt tokens (H = N = 6): sums of heads with weights of both signs reach "
        "L* (Lemma 5, Proposition 1), so the one-head orthant floor no longer bounds Delta; two heads do not "
        "beat it within 1000 GD steps at every seed (rank 2 of 6), so H = N is the nearest world where the "
        "statement is known to fail",
        overrides={"H": 6},
    ),
    search=Search(
        ratio="orthant floor / Delta(Q, w) (a lower bound: bound / measured)",
        space="every one-head Q (d, d), unconstrained, with w at its exact minimiser (Delta is least squares "
        "in w at fixed Q), on the seed's problem of sizes (K, N, d, m) = search[:4] (tau of the config); "
        "starts N(0, 1)",
        budget="search",
    ),
    choices=_MULTIHEAD_H1_CHOICES,
    report=Report(
        r"with $H=1$ the global minimum $L^*$ is not reachable: $\Delta(Q,w)\ge$ an orthant floor $>0$ for "
        r"every $Q,w$ (softmax weights are positive)",
        Plot(
            x="t",
            curves=[("Delta", r"measured $\Delta(t)$, $H=1$")],
            xlabel="GD step $t$",
            ylabel=r"$\Delta(t)=L(\theta_t)-L^*$",
            logx=True,
        ),
    ),
)
def multihead_H1(ctx: Ctx, *, config: str, H: int, steps: int, search: tuple[int, ...]) -> Evidence:
    """Yang et al. 2024, Sec. 3.3 (multi-head necessity; statement EXACT in words, floor DERIVED);
    kind lower; every seed (a bound for every draw).

    The floor: bounds.orthant_floor = 1/2 sum_k min(NNLS(Zbar, Zbar A_k)^2, NNLS(Zbar, -Zbar A_k)^2)
    (a-hat_k = w_k s_k lies in a closed orthant because softmax weights are positive). Measured in units
    of the floor: theory 1, measured the smallest Delta / floor found, from (a) min over t of Delta(t)
    along GD with ``H`` heads (1: the statement; N: its alternative world) on ``config`` (the smallest
    gamma of experiments.GAMMA_LADDER that does not diverge) and (b) a worst-case search of floor / Delta
    over every theta of ``H`` heads on the seed's
    problem of sizes (K, N, d, m) = ``search[:4]`` (``search[4]`` starts of ``search[5]`` L-BFGS-B
    iterations over Q, w at its exact minimiser: :func:`verify.yang2024.experiments.one_head_search`;
    when those sizes are ``config``'s, the problem is the GD run's and its first start is the final Q of
    GD); the floor is approached as the softmax saturates, so the search ends at large ||Q||. Assumption:
    some column of A has mixed signs (else the floor is 0: measured is then set to 1). A model whose
    attention weights can be negative breaks it (the test shows it).
    """
    cfg = D.Config.named(config)
    r = E.stable_run(ctx.seed, cfg, H, steps)
    p = r.problem
    mixed = bool(np.any((p.A.max(axis=0) > 0) & (p.A.min(axis=0) < 0)))
    floor = B.orthant_floor(p.Zbar, p.A)
    L = r.traj.loss
    K, N, d, m, starts, maxiter = search
    sized = dataclasses.replace(cfg, K=K, N=N, d=d, m=m)
    first = r.snapshots[-1][1].Q if sized == cfg else None  # the search runs on the GD problem: start at Q_T
    found = E.one_head_search(ctx.rng(26), E.problem_for(ctx.seed, sized), starts, maxiter, first, H)
    found = dataclasses.replace(found, typical=max(found.typical, floor / float(L.min())))
    worst = max(found.typical, found.ratio)
    return Evidence(
        theory=1.0,
        measured=1.0 / worst if worst > 0 else 1.0,
        worst=found,
        headline={
            "name": "orthant floor vs min_t Delta(t) along GD",
            "theory": floor,
            "measured": float(L.min()),
        },
        failed=[] if mixed else ["no column of A has mixed signs"],
        notes=[
            f"floor {floor:.5g}, Delta(0) = {L[0]:.5g}, min_t Delta = {L.min():.5g} (gamma = {r.gamma:g}): "
            f"min_t Delta / floor = {L.min() / floor:.4g}; searched on (K, N, d, m) = {search[:4]}: "
            f"Delta / floor = {1 / found.ratio if found.ratio > 0 else math.inf:.7f}"
        ],
        series={"t": E.thin_t(L), "Delta": E.thin(L)},
    )
