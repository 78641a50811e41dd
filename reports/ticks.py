"""Readable ticks for the report's panels: plain labels on short log ranges, decades on long ones,
labels in mathtext (``2\\times10^{-4}``) that LaTeX reads too."""

from __future__ import annotations

import math
from typing import Any

from reports.panel_data import finite


def tick_label(v: float, _pos: Any = None) -> str:
    """A tick label in mathtext: ``20``, ``0.05``, ``2\times10^{-4}``."""
    if v == 0:
        return "$0$"
    a = abs(v)
    if 1e-3 <= a < 1e4:
        return f"${v:g}$"
    e = math.floor(math.log10(a))
    m = v / 10**e
    m_text = f"{m:.2g}"
    return f"$10^{{{e}}}$" if m_text == "1" else f"${m_text}\\times10^{{{e}}}$"


def _round(v: float) -> bool:
    """A value worth a tick label of its own: a power of two or at most two significant digits."""
    if v <= 0:
        return False
    if v == int(v) and int(v) & (int(v) - 1) == 0:
        return True
    return float(f"{v:.2g}") == v


def set_ticks(axis: Any, log: bool, values: list, *, ticks_at_data: bool) -> None:
    """Readable ticks: on a log axis spanning under two decades, ticks at 1-2-5 (or at the data's own
    x values when they are few), plainly labelled; otherwise decades only; never minor labels."""
    from matplotlib import ticker

    vals = sorted({float(v) for v in values if finite(v) and (v > 0 or not log)})
    if not vals:
        return
    if not log:
        axis.set_major_locator(ticker.MaxNLocator(nbins=5))
        return
    axis.set_minor_formatter(ticker.NullFormatter())
    decades = math.log10(vals[-1] / vals[0]) if vals[0] > 0 else 99
    if ticks_at_data and len(vals) <= 7 and decades < 3 and all(_round(v) for v in vals):
        axis.set_major_locator(ticker.FixedLocator(vals))
        axis.set_major_formatter(ticker.FuncFormatter(tick_label))
    elif decades < 2:
        axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(ticker.FuncFormatter(tick_label))
    else:
        axis.set_major_locator(ticker.LogLocator(base=10, numticks=6))
        axis.set_major_formatter(ticker.LogFormatterMathtext())


__all__ = ["set_ticks", "tick_label"]
