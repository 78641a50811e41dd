"""What a panel draws, read from a claim's ``series`` without matplotlib: each curve's finite points
(positive on a log axis; x = 0 kept on a log x axis, which is then symmetric-log), its seed range, the
theory series' points and the slope guide's x range. The drawing (:mod:`reports.figures`) and its tests
read the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reports.guides import fit_window, guide_span
from verify.core.record import Plot


def finite(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def column(values: Any, n: int) -> tuple[list[float], list[float], list[float], int] | None:
    """(centre, low, high, seeds) of a y series of length n: numbers, or rows of per-seed numbers."""
    if not isinstance(values, list) or len(values) != n:
        return None
    if all(finite(v) or v is None for v in values):
        ys = [float(v) if v is not None else math.nan for v in values]
        return ys, ys, ys, 1
    if all(isinstance(row, list) and row and all(finite(v) for v in row) for row in values):
        mean = [sum(row) / len(row) for row in values]
        return mean, [min(row) for row in values], [max(row) for row in values], len(values[0])
    return None


def mask(xs: list[float], *cols: list[float], logx: bool, logy: bool) -> list[bool]:
    keep = []
    for i, x in enumerate(xs):
        ok = finite(x) and (x > 0 or not logx)
        for c in cols:
            ok = ok and math.isfinite(c[i]) and (c[i] > 0 or not logy)
        keep.append(ok)
    return keep


def missing_keys(plot: Plot, series: Mapping[str, Any]) -> list[str]:
    """The series keys ``plot`` needs that ``series`` lacks: its x and theory keys, and its curves' keys
    when none of the curves is there (a curve of a parameter the run did not use is skipped)."""
    need = [k for k in (plot.x, plot.theory) if k]
    curves = [k for c in plot.curves for k in (c.x, c.y) if k]
    present = [c for c in plot.curves if c.y in series and (c.x is None or c.x in series)]
    return [k for k in need if k not in series] + ([] if present else [k for k in curves if k not in series])


def xs_of(plot: Plot, curve: Any, series: Mapping[str, Any]) -> Any:
    if plot.grid is not None:
        ys = series.get(curve.y)
        x0, r = plot.grid
        return [x0 * r**k for k in range(len(ys))] if isinstance(ys, list) else None
    return series.get(curve.x or plot.x)


def promises_theory(plot: Plot) -> bool:
    """The panel names a theory (a series, a constant, a band, a reference slope, a stated fall or a
    theory legend)."""
    declared = (plot.theory, plot.const, plot.band, plot.slope, plot.fall)
    return any(v is not None for v in declared) or plot.theory_label != "theory"


@dataclass(frozen=True)
class Line:
    """One curve as drawn: its kept points, colour and legend, and the range (lo, hi) over its
    ``seeds`` seeds when it is a seed mean."""

    x: list[float]
    y: list[float]
    color: str
    label: str
    band: tuple[list[float], list[float]] | None = None
    seeds: int = 1


@dataclass(frozen=True)
class Drawn:
    """The curves of a panel as drawn; ``symlog``: the log x axis also shows x = 0 (the statement's
    origin, e.g. step 0), linear up to the smallest positive x."""

    lines: tuple[Line, ...]
    symlog: bool

    @property
    def points(self) -> list[tuple[list[float], list[float]]]:
        return [(ln.x, ln.y) for ln in self.lines]

    @property
    def linthresh(self) -> float:
        """The smallest positive x drawn: where a symmetric-log x axis turns logarithmic."""
        return min(v for ln in self.lines for v in ln.x if v > 0)


def curves_of(plot: Plot, series: Mapping[str, Any]) -> Drawn:
    """The points each curve of ``plot`` draws from ``series``: finite, positive on a log axis (x = 0
    kept on a log x axis: it is then symmetric-log), one colour per declared curve."""
    zero = plot.logx and any(
        isinstance(xs, list) and 0 in xs for xs in (xs_of(plot, c, series) for c in plot.curves)
    )
    out = []
    for i, curve in enumerate(plot.curves):
        xs = xs_of(plot, curve, series)
        if not isinstance(xs, list) or not all(finite(x) for x in xs):
            continue
        col = column(series.get(curve.y), len(xs))
        if col is None:
            continue
        mid, lo, hi, n_seeds = col
        keep = mask(xs, mid, lo, hi, logx=plot.logx and not zero, logy=plot.logy)
        pick = [j for j, k in enumerate(keep) if k]
        if pick:
            band = ([lo[j] for j in pick], [hi[j] for j in pick]) if n_seeds > 1 else None
            x, y = [xs[j] for j in pick], [mid[j] for j in pick]
            out.append(Line(x, y, f"C{i % 10}", curve.label, band, n_seeds))
    return Drawn(tuple(out), zero)


def slope_span(drawn: Drawn, measured: Any) -> tuple[float, float, bool]:
    """(lo, hi, fitted): the x range of the panel's slope guide (:func:`reports.guides.guide_span`)."""
    return guide_span(drawn.points, fit_window(measured))


def theory_points(plot: Plot, series: Mapping[str, Any], drawn: Drawn) -> tuple[list, list] | None:
    """The points of the panel's theory series (``plot.theory``) as drawn; None when it has none."""
    xs = series.get(plot.x)
    col = column(series.get(plot.theory), len(xs)) if isinstance(xs, list) else None
    if col is None:
        return None
    keep = mask(xs, col[0], logx=plot.logx and not drawn.symlog, logy=plot.logy)
    x = [v for v, k in zip(xs, keep, strict=True) if k]
    y = [v for v, k in zip(col[0], keep, strict=True) if k]
    return (x, y) if x else None


__all__ = [
    "Drawn",
    "Line",
    "column",
    "curves_of",
    "finite",
    "mask",
    "missing_keys",
    "promises_theory",
    "slope_span",
    "theory_points",
    "xs_of",
]
