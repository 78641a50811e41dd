"""What several wu2023 claim modules share: the evidence of a rate claim ("X scales like n^p"), the
public summary behind the THIRD-PARTY training and Figure 9 claims, and the protocol, choices and runs
the Figure 9 claims (:mod:`.fig9`, :mod:`.fig9_ntk`) share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from verify.core import Alternative, Choice, Ctx, Evidence, Rule
from verify.numerics.fit import fit_rate
from verify.wu2023 import experiments as E

#: Source tag of the pass rules taken from our reconstruction's first pass criteria (the project-wide tag).
CRITERION = "reconstruction pass criterion"


def rate_evidence(
    ctx: Ctx,
    p: float,
    x: Sequence[float],
    y: np.ndarray,
    *,
    series: dict[str, Any] | None = None,
    notes: Sequence[str] = (),
    window: int = 3,
    correction: float | None = None,
) -> Evidence:
    """Rate evidence for the shared rate rule: theory the claimed exponent ``p``, measured
    :func:`verify.numerics.fit.fit_rate` of ``y`` (len(x), n_seeds: one replicate per seed, so the
    interval carries the seed spread) against ``x``, tol the claim's rule ``tol``; ``correction``: the
    order q of an explicit pre-asymptotic correction a x^-q stated by the derivation (the rule then
    judges the corrected exponent). The seed-mean curve goes into the series under ``"mean"`` beside
    ``series``."""
    y = np.asarray(y, dtype=np.float64)
    fit = fit_rate(np.asarray(x, dtype=np.float64), y, window=window, correction=correction)
    mean = np.exp(np.log(y).mean(axis=1)) if y.ndim == 2 else y
    return Evidence(
        theory=float(p),
        measured=fit,
        tol=ctx.rule("tol"),
        series={"x": list(x), "geo_mean": mean.tolist(), **(series or {})},
        notes=list(notes),
    )


#: The public summary behind the THIRD-PARTY training claims.
LINER_SOURCE = (
    "liner.com review page of 'On the Convergence of Encoder-only Shallow Transformers' (an AI-generated "
    "summary of the paper); class (B)"
)

# ------------------------------------------------------------------------------------------------------
# Figure 9 (tau0 = d_m^-1, synthetic data), as the public summary describes it: the protocol is ours
# (Fig. 9's is not recovered), and every Fig. 9 claim reads one shared set of runs (experiment "fig9").
# ------------------------------------------------------------------------------------------------------

#: Where the Figure 9 statements come from.
FIG9_SOURCE = LINER_SOURCE.replace(
    "(an AI-generated summary of the paper)",
    "(an AI-generated summary that reproduces the Figure 9 caption: linear convergence, weights changing "
    "very slowly after the 50th epoch, the NTK more stable as the width grows)",
)

#: The caption's epoch ("after about the 50th epoch"; one full-batch GD step is one epoch).
EPOCH = 50
#: The experiment tag of the shared Fig. 9 runs.
FIG9_EXPERIMENT = "fig9"
FIG9_SLOW = Alternative(
    world="GD at a tenth of our step (gamma = 0.1/lambda_max(K_0), a smaller learning rate): the same "
    "training ten times slower, so epoch 50 falls in its early phase",
    overrides={"step_factor": 0.1},
)
FIG9_QUICK = dict(N=10, d=16, d_s=4)
FIG9_PAPER = dict(N=100, d=128, d_s=8)
#: Our step gamma = step_factor / lambda_max(K_0) (Fig. 9's is not recovered): within the stable range
#: below 2 / lambda_max, from half ours to 1.5 times it (a tenth is the alternative world's slow GD).
FIG9_STEP_CHOICE = Choice(
    1.0,
    range=(0.5, 1.5),
    reason="Fig. 9's step is not recovered; gamma = step_factor / lambda_max(K_0) from half ours to 1.5 "
    "times it, inside the stable range below 2 / lambda_max (a tenth is the alternative world's slow GD)",
)
#: "A typical run": the share of draws a caption describes.
FIG9_P_CHOICE = Choice(
    Rule(
        0.8,
        "a caption describes a typical run: at least four draws in five. Fixed before the judging draws "
        "were run, after the per-draw failure rates read at every seed (about 3% for the weights, a few "
        "per cent for the NTK) were known (errata)",
        "attncheck",
    ),
    range=(0.67, 0.9),
    reason="a caption describes a typical run: from two draws in three to nine in ten",
)


def fig9_rows(
    seeds: tuple[int, ...],
    widths: list[int],
    N: int,
    d: int,
    d_s: int,
    steps: int,
    step_factor: float,
    init: str = "lecun",
    step_decay: float = 0.0,
) -> list[list[dict]]:
    """:func:`verify.wu2023.experiments.fig9_runs` per width and seed (rows[width][seed]), the NTK taken
    at t = 0, ``EPOCH`` and ``steps``; ``step_decay``: the step at t divided by 1 + step_decay t."""
    pts = [
        E.Fig9Point(
            seed=s,
            key=0,
            N=N,
            d=d,
            d_s=d_s,
            d_m=w,
            init=init,
            steps=steps,
            step_factor=step_factor,
            checkpoints=(0, EPOCH, steps),
            step_decay=step_decay,
        )
        for w in widths
        for s in seeds
    ]
    out = E.fig9_runs(pts)
    n = len(seeds)
    return [out[i * n : (i + 1) * n] for i in range(len(widths))]  # fmt: skip


def fig9_diverged(draw: list[dict], steps: int, p: float) -> Evidence | None:
    """A failure of the draw when one of its runs stopped before ``steps`` (a non-finite loss)."""
    short = [len(r["loss"]) - 1 for r in draw if len(r["loss"]) - 1 < steps]
    return Evidence(p, False, notes=[f"GD diverged (ran {short} of {steps} steps)"]) if short else None
