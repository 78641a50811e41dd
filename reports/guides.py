"""What a panel draws of its claim besides the curves: the window a rate was fitted over, the stated
slope as an offset guide over that window, and the stated fall of each curve from its first point.

Pure arithmetic on the plotted points (no matplotlib), so that the drawing and its test read the same
numbers.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

#: The slope guide starts this factor above the highest curve at the fit window's start (log y axis);
#: on a linear y axis, :data:`GUIDE_ABOVE_LINEAR`.
GUIDE_ABOVE = 2.0
GUIDE_ABOVE_LINEAR = 1.2
#: Segments of the slope guide (a straight line on log-log axes, a curve on a linear y axis).
GUIDE_POINTS = 24

Points = tuple[Sequence[float], Sequence[float]]


def fit_window(measured: Any) -> tuple[float, float, int] | None:
    """(first x, last x, points) of the window a rate fit judged, from a result's ``measured`` (a
    :class:`~verify.numerics.fit.RateFit` as a dict): its last ``window`` sizes, or all of them when a
    corrected fit over every point was judged; None for any other measurement."""
    if not isinstance(measured, Mapping):
        return None
    xs, w = measured.get("x"), measured.get("window")
    if not (isinstance(xs, list) and xs and isinstance(w, int) and 2 <= w <= len(xs)):
        return None
    n = len(xs) if measured.get("corrected") else w
    return float(xs[-n]), float(xs[-1]), n


def guide_span(
    curves: Sequence[Points], window: tuple[float, float, int] | None
) -> tuple[float, float, bool]:
    """(lo, hi, fitted): the x range of the slope guide, the fit window when one of the panel's curves
    holds both its ends (fitted True); else (no rate fit, or the judged curve is in another panel,
    whose window says nothing of this one's) the curves' whole range."""
    if window is not None:
        lo, hi, _ = window
        if any(lo in x and hi in x for x, _ in curves):
            return lo, hi, True
    xs = [v for x, _ in curves for v in x]
    return min(xs), max(xs), False


def value_at(x: Sequence[float], y: Sequence[float], at: float, *, logx: bool, logy: bool) -> float | None:
    """The curve (x, y) at ``at``, interpolated linearly on the panel's axes; None outside its range."""
    pts = sorted(zip(x, y, strict=True))
    for (x0, y0), (x1, y1) in itertools.pairwise(pts):
        if x0 <= at <= x1:
            if x1 == x0:
                return y0
            fx = _scale(x0, x1, at, logx)
            if logy:
                return math.exp(math.log(y0) + fx * (math.log(y1) - math.log(y0)))
            return y0 + fx * (y1 - y0)
    return y[0] if len(x) == 1 and x[0] == at else None


def _scale(x0: float, x1: float, at: float, log: bool) -> float:
    if log:
        return (math.log(at) - math.log(x0)) / (math.log(x1) - math.log(x0))
    return (at - x0) / (x1 - x0)


def slope_guide(
    curves: Sequence[Points], slope: float, span: tuple[float, ...], *, logx: bool, logy: bool
) -> Points | None:
    """The stated power law x^slope over ``span``, starting :data:`GUIDE_ABOVE` (linear y:
    :data:`GUIDE_ABOVE_LINEAR`) times above the highest curve at the span's start: a slope to compare
    with, never laid on a curve. None when no curve reaches the span's start or the anchor is not
    positive."""
    lo, hi = span[:2]
    at = [value_at(x, y, lo, logx=logx, logy=logy) for x, y in curves]
    known = [v for v in at if v is not None]
    if not known or max(known) <= 0 or not 0 < lo < hi:
        return None
    y0 = max(known) * (GUIDE_ABOVE if logy else GUIDE_ABOVE_LINEAR)
    xs = [lo * (hi / lo) ** (k / GUIDE_POINTS) for k in range(GUIDE_POINTS + 1)]
    return xs, [y0 * (v / lo) ** slope for v in xs]


__all__ = [
    "GUIDE_ABOVE",
    "GUIDE_ABOVE_LINEAR",
    "GUIDE_POINTS",
    "fit_window",
    "guide_span",
    "slope_guide",
    "value_at",
]
