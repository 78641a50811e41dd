"""What several wu2023 claim modules share: the evidence of a rate claim ("X scales like n^p") and
the public summary behind the THIRD-PARTY training and Figure 9 claims."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from verify.core import Ctx, Evidence
from verify.numerics.fit import fit_rate

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
