"""Experiments of :mod:`verify.wu2023.claims.width_order`: the widths Thms 1 and 2 require per data
draw, swept over N."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verify.core import Ctx
from verify.wu2023.experiments.runs import data_summary, pooled, thm_width_fn


@dataclass(frozen=True, kw_only=True)
class ThmWidthPoint:
    """One data draw for the Thm 1 / 2 width function; ``which``: "both", "c1" or "c2"."""

    seed: int
    key: int
    N: int
    d: int
    d_s: int
    tau0_power: float
    which: str


def thm_width_point(p: ThmWidthPoint) -> float:
    """log10 of the required width for one data draw (G at d_m = 4N)."""
    s = data_summary(p.seed, p.key, p.N, p.d, p.d_s, p.tau0_power, 4 * p.N)
    return float(np.log10(float(thm_width_fn(p.tau0_power)(s, which=p.which))))


def width_orders(
    ctx: Ctx, p: float, Ns: list[int], d_factor: float, d_power: float, d_s: int, which: str
) -> tuple[np.ndarray, list[int]]:
    """log10 of the Thm 1 / 2 width per N and seed with d = round(d_factor N^d_power): (log10 widths
    (len(Ns), n_seeds), ds)."""
    ds = {n: round(d_factor * n**d_power) for n in Ns}
    lw = pooled(
        ctx,
        thm_width_point,
        Ns,
        lambda n, s: ThmWidthPoint(seed=s, key=0, N=n, d=ds[n], d_s=d_s, tau0_power=p, which=which),
    )
    return lw, [ds[n] for n in Ns]
