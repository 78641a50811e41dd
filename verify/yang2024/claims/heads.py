"""The number of heads (Sec. 3.3 'multi-head is necessary', Fig. 4, the remark after Theorem 1): one
head cannot reach L*, H < N plateaus, and how the convergence speed depends on H."""

from __future__ import annotations

import numpy as np

from bounds import yang2024 as B
from verify.core import Ctx, Evidence, Kind, Provenance, Rule, Verdict, claim
from verify.core.format import fmt_sci
from verify.yang2024 import data as D
from verify.yang2024 import experiments as E


@claim(
    "yang2024.multihead.H1",
    reference="Sec. 3.3 ('multi-head is necessary'), eq. (8)",
    kind=Kind.LOWER,
    provenance=Provenance.DERIVED,
    statement="with H = 1 the global minimum L* is not reachable: Delta(t) >= orthant floor > 0",
    assumptions=("some A_{:,k} has entries of both signs",),
    quick={"config": "small", "steps": 3000},
    paper={"steps": 20_000},
)
def multihead_H1(ctx: Ctx, *, config: str, steps: int) -> Evidence:
    """Yang et al. 2024, Sec. 3.3 (multi-head necessity; statement EXACT in words, floor DERIVED);
    kind lower.

    theory: bounds.orthant_floor = 1/2 sum_k min(NNLS(Zbar, Zbar A_k)^2, NNLS(Zbar, -Zbar A_k)^2)
    (a-hat_k = w_k s_k lies in a closed orthant); measured: min over t of Delta(t) along GD with H = 1
    (the smallest gamma of experiments.GAMMA_LADDER that does not diverge). Assumption: some column of
    A has mixed signs (else the floor is 0).
    """
    r = E.stable_run(ctx.seed, D.Config.named(config), 1, steps)
    p = r.problem
    mixed = bool(np.any((p.A.max(axis=0) > 0) & (p.A.min(axis=0) < 0)))
    floor = B.orthant_floor(p.Zbar, p.A)
    L = r.traj.loss
    return Evidence(
        theory=floor,
        measured=float(L.min()),
        failed=[] if mixed else ["no column of A has mixed signs"],
        notes=[
            f"floor {floor:.5g}, Delta(0) = {L[0]:.5g}, min_t Delta = {L.min():.5g} (gamma = {r.gamma:g})"
        ],
        series={"t": E.thin_t(L), "Delta": E.thin(L)},
    )


@claim(
    "yang2024.heads.HltN",
    reference="Fig. 4 and its discussion (H must be large enough)",
    kind=Kind.LOWER,
    provenance=Provenance.EXACT,
    statement="H < N plateaus well above L*: Delta(T)/Delta(0) at H < N exceeds that at H = 2N by >= 10x",
    quick={"config": "small", "Hs": (1, 3, 5, 6, 12), "steps": 20_000},
    rules={"plateau_factor": Rule(10, "our reading of 'well above': one decade", "attncheck")},
)
def heads_HltN(ctx: Ctx, *, config: str, Hs: tuple, steps: int) -> Evidence:
    """Yang et al. 2024, Fig. 4 (empirical, no theorem; the paper's reading EXACT); kind lower.

    theory: rule ``plateau_factor`` x Delta(T)/Delta(0) at H = 2N; measured: min over H < N of
    Delta(T)/Delta(0) after ``steps`` GD steps at the spec's step rule (gamma raised along
    experiments.GAMMA_LADDER where GD diverges). The transition is reported, not a sharp threshold.
    """
    cfg = D.Config.named(config)
    N = cfg.N
    Hs = tuple(sorted(set(Hs) | {2 * N}))
    ratios: dict[int, float] = {}
    gam: dict[int, float] = {}
    for H in Hs:
        r = E.stable_run(ctx.seed, cfg, H, steps)
        L = r.traj.loss
        if r.gamma != E.GAMMA:
            gam[H] = r.gamma
        ratios[H] = float(L[-1] / L[0])
    below = [ratios[H] for H in Hs if H < N]
    return Evidence(
        theory=ctx.rule("plateau_factor") * ratios[2 * N],
        measured=min(below) if below else float("inf"),
        failed=[] if below else ["no H < N in the ladder"],
        notes=[", ".join(f"H={H}: {v:.3g}" for H, v in ratios.items())]
        + ([f"gamma raised to avoid divergence at the spec's step rule: {gam}"] if gam else []),
        series={"H": [float(h) for h in Hs], "ratio": [ratios[h] for h in Hs]},
    )


@claim(
    "yang2024.heads.speed",
    reference="Theorem 1 discussion (guaranteed speed decreases with H); Figs. 4, 5",
    kind=Kind.QUALITATIVE,
    provenance=Provenance.EXACT,
    statement="larger H gives slower convergence (per GD iteration, at the spec's step rule)",
    quick={"config": "small", "H_over_N": (1, 2, 4, 8), "target": 1e-4, "steps": 20_000},
    paper={"H_over_N": (1, 2, 4, 8, 16), "target": 1e-6},
    expect=Verdict.VIOLATED,
)
def heads_speed(ctx: Ctx, *, config: str, H_over_N: tuple, target: float, steps: int) -> Evidence:
    """Yang et al. 2024, Sec. 3 remark after Theorem 1 (larger H, slower convergence; EXACT in words);
    qualitative. The paper's statement concerns its worst-case bound (L and the gamma threshold grow
    with H, NOT RECOVERED) and wall-clock time; here the per-iteration reading is tested.

    measured: True when the iterations GD needs to reach Delta <= target Delta(0) do not decrease as
    H grows over H_over_N * N (unreached counts as more than ``steps``). The notes give rho(H) from
    zeta_0(H). Finding (expect violated): per iteration a larger H converges faster here, because
    zeta_0 grows with H (small config: 10173, 6935, 1458, 2029 iterations to 1e-4 Delta(0) for
    H = 6, 12, 24, 48 at seed 0; seeds 1-3 strictly decreasing).
    """
    cfg = D.Config.named(config)
    iters, notes, runs = [], [], []
    for h in H_over_N:
        H = h * cfg.N
        r = E.canonical_run(ctx.seed, cfg, H, steps)
        runs.append((H, r))
        n = E.iterations_to(r.traj.loss, target, steps)
        iters.append(n)
        rho = B.rate_factor(r.eta_Q, r.gamma, r.zeta0)
        notes.append(
            f"H={H}: zeta_0={r.zeta0:.3g}, rho=1-{fmt_sci(1 - rho)}, iterations to "
            f"{target:g} Delta(0): {n if n <= steps else '>' + str(steps)}"
        )
    slower = bool(np.all(np.diff(iters) >= 0))
    return Evidence(
        theory=True,
        measured=slower,
        notes=notes,
        failed=E.diverged_notes(runs),
        series={"H": [float(h * cfg.N) for h in H_over_N], "iterations": [float(i) for i in iters]},
    )
