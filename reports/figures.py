"""Figures from the ``plot`` a claim declares (:class:`verify.core.record.Plot`; matplotlib, an extra).

Each panel draws the claim's measured curves (markers; per-seed data as the seed mean with the seeds'
range as a band) beside its theory (a dashed line, a shaded pass band, or the stated slope as a guide
over the fit window, :mod:`reports.guides`) and the statement's own marks (a stated fall from each
curve's start, dotted), from the statement's origin (a log x axis holding x = 0 becomes symmetric-log),
with labelled axes, the declared log axes and a legend where it covers no data (:mod:`reports.legend`),
in Computer Modern (matplotlib's mathtext, ``cm``), sized to sit two abreast on a portrait page.
Nothing is guessed from series keys: a claim without a declaration gets no figure. What each panel
draws is read by :mod:`reports.panel_data`; :func:`caption_note` says it in the caption.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from reports.guides import GUIDE_ABOVE, GUIDE_ABOVE_LINEAR, slope_guide
from reports.legend import place_legend
from reports.panel_data import (
    Drawn,
    curves_of,
    finite,
    missing_keys,
    promises_theory,
    slope_span,
    theory_points,
)
from reports.ticks import set_ticks, tick_label
from verify.core.record import ClaimRecord, Plot, Result

logging.getLogger("fontTools").setLevel(logging.ERROR)  # cmr10's zero timestamps are harmless

#: matplotlib settings of every panel: the document's font (Computer Modern), small sizes.
STYLE = {
    "font.family": "serif",
    "font.serif": ["cmr10", "DejaVu Serif"],
    "mathtext.fontset": "cm",
    "axes.formatter.use_mathtext": True,
    "axes.unicode_minus": False,
    "font.size": 8,
    "axes.labelsize": 8,
    "axes.titlesize": 8,
    "legend.fontsize": 6.5,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "lines.linewidth": 1.1,
    "lines.markersize": 3,
    "axes.linewidth": 0.6,
    "pdf.fonttype": 42,
    "figure.dpi": 100,
}
FIGSIZE = (3.45, 1.85)
THEORY_COLOR = "0.15"
BAND_COLOR = "#9ecae1"
#: Room left of x = 0 on a symmetric-log x axis, in units of its linear range (a marker's width).
SYMLOG_MARGIN = 0.08


@dataclass(frozen=True)
class Opened:
    """A composed panel: the figure, its axes and legend, and whether its theory was drawn."""

    fig: Any
    ax: Any
    legend: Any
    theory: bool


@contextmanager
def opened(plot: Plot, series: Mapping[str, Any], measured: Any = None) -> Iterator[Opened | None]:
    """The panel composed in :data:`STYLE` (None when the series hold nothing to draw), its figure
    closed on exit. ``measured``: the result's measurement (a rate fit's window places the slope
    guide). Every line carries its role as ``gid``: ``curve``, ``seeds``, ``theory``, ``fall``."""
    import matplotlib.pyplot as plt

    with plt.rc_context(STYLE):
        drawn = curves_of(plot, series)
        if not drawn.lines:
            yield None
            return
        fig, ax = plt.subplots(figsize=FIGSIZE)
        try:
            _draw_curves(ax, drawn)
            theory = _theory(ax, plot, series, drawn, measured)
            if plot.fall is not None:
                _falls(ax, drawn, plot.fall)
            _axes(ax, plot, drawn)
            fig.tight_layout(pad=0.3)
            legend = place_legend(ax, frameon=True, framealpha=0.85, edgecolor="0.8", handlelength=1.8)
            yield Opened(fig, ax, legend, theory)
        finally:
            plt.close(fig)


def draw(
    plot: Plot, series: Mapping[str, Any], path: Path, notes: list[str] | None = None, measured: Any = None
) -> bool:
    """Draw one panel to ``path`` (PDF, :func:`opened`); False when the series hold nothing to draw. A
    panel that names a theory it cannot draw (no finite theory value) gets a note in ``notes``."""
    with opened(plot, series, measured) as panel:
        if panel is None:
            return False
        if not panel.theory and promises_theory(plot) and notes is not None:
            notes.append(f"{path.stem}: the panel names a theory ({plot.theory_label!r}) but draws none")
        panel.fig.savefig(path, metadata={"CreationDate": None})
    return True


def _draw_curves(ax: Any, drawn: Drawn) -> None:
    band_done = False
    for ln in drawn.lines:
        marker = "o" if len(ln.x) <= 25 else None
        ax.plot(ln.x, ln.y, color=ln.color, marker=marker, label=ln.label, zorder=3, gid="curve")
        if ln.band is not None:
            label = None if band_done else f"range over {ln.seeds} runs"
            ax.fill_between(ln.x, *ln.band, color=ln.color, alpha=0.2, lw=0, label=label, gid="seeds")
            band_done = True


def _falls(ax: Any, drawn: Drawn, fall: float) -> None:
    """Each curve's first value / ``fall``, dotted in the curve's colour over the curve's x range."""
    for i, ln in enumerate(drawn.lines):
        label = rf"start / {fall:g} (the stated fall)" if i == 0 else None
        level = [ln.y[0] / fall] * 2
        ax.plot([ln.x[0], ln.x[-1]], level, color=ln.color, ls=":", lw=1.0, label=label, zorder=2, gid="fall")


def _axes(ax: Any, plot: Plot, drawn: Drawn) -> None:
    """Scales, labels and ticks."""
    if drawn.symlog:
        ax.set_xscale("symlog", linthresh=drawn.linthresh, linscale=1.0)
        ax.set_xlim(left=-SYMLOG_MARGIN * drawn.linthresh)  # no negative decades in view
    elif plot.logx:
        ax.set_xscale("log")
    if plot.logy:
        ax.set_yscale("log")
    ax.set_xlabel(plot.xlabel)
    ax.set_ylabel(plot.ylabel)
    xs_all = [float(v) for ln in ax.get_lines() for v in ln.get_xdata()]
    ys_all = [float(v) for ln in ax.get_lines() for v in ln.get_ydata()]
    if not drawn.symlog:
        set_ticks(ax.xaxis, plot.logx, xs_all, ticks_at_data=True)
    set_ticks(ax.yaxis, plot.logy, ys_all, ticks_at_data=False)


def _theory(ax: Any, plot: Plot, series: Mapping[str, Any], drawn: Drawn, measured: Any) -> bool:
    """Draw the panel's theory; False when there is none to draw."""
    kw = {"color": THEORY_COLOR, "ls": "--", "lw": 1.0, "zorder": 2, "gid": "theory"}
    if plot.band is not None:
        lo, hi = plot.band
        ax.axhspan(
            lo, hi, color=BAND_COLOR, alpha=0.45, lw=0, zorder=1, label=plot.theory_label, gid="theory"
        )
    elif plot.const is not None:
        ax.axhline(plot.const, label=plot.theory_label, **kw)
    elif plot.theory is not None:
        points = theory_points(plot, series, drawn)
        if points is None:
            return False
        ax.plot(*points, label=plot.theory_label, **kw)
    elif plot.slope is not None:
        guide = slope_guide(
            drawn.points, plot.slope, slope_span(drawn, measured), logx=plot.logx, logy=plot.logy
        )
        if guide is None:
            return False
        ax.plot(*guide, label=f"{plot.theory_label} (slope guide)", **kw)
    else:
        return plot.fall is not None
    return True


def caption_note(plot: Plot, series: Mapping[str, Any], measured: Any = None) -> str:
    """What the caption says of how the panel draws its claim (LaTeX, empty when nothing needs
    saying): the slope guide's window and anchor, the stated fall, an x axis from 0."""
    drawn = curves_of(plot, series)
    if not drawn.lines:
        return ""
    parts = []
    if plot.slope is not None and plot.theory is None and plot.const is None and plot.band is None:
        lo, hi, fitted = slope_span(drawn, measured)
        where = "judged fit window" if fitted else "plotted range"
        factor = GUIDE_ABOVE if plot.logy else GUIDE_ABOVE_LINEAR
        slope = Fraction(plot.slope).limit_denominator(64)
        parts.append(
            rf"slope guide ${slope}$ over the {where}, {tick_label(lo)} to {tick_label(hi)}, "
            rf"{factor:g}$\times$ above the highest curve"
        )
    if plot.fall is not None:
        parts.append(rf"dotted: each curve's first value / {tick_label(plot.fall)}, the stated fall")
    if drawn.symlog:
        parts.append(rf"$x$ from 0 (linear up to {tick_label(drawn.linthresh)})")
    return "; ".join(parts)


SKIPPED = "figures skipped: matplotlib is not installed (pip install 'attncheck[figures]')"


def _matplotlib() -> bool:
    """matplotlib is importable (with the non-interactive backend selected)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot
    except ImportError:
        return False
    return True


def make_figures(
    results: Sequence[Result], out: Path, records: Mapping[str, ClaimRecord]
) -> tuple[dict[str, list[tuple[Plot, Path]]], list[str]]:
    """Write ``<out>/fig/<claim>-<i>.pdf`` for every declared panel of every result.

    Returns (claim id -> [(plot, path)], notes); without matplotlib, nothing and a note saying figures
    were skipped; a declared key missing from a result's series is a note, not an error.
    """
    todo = [
        (r, records[r.claim_id].plot) for r in results if r.claim_id in records and records[r.claim_id].plot
    ]
    todo = [(r, plots) for r, plots in todo if r.series]
    if not todo:
        return {}, []
    if not _matplotlib():
        return {}, [SKIPPED]
    figdir = out / "fig"
    figdir.mkdir(parents=True, exist_ok=True)
    paths: dict[str, list[tuple[Plot, Path]]] = {}
    notes: list[str] = []
    for r, plots in todo:
        for i, plot in enumerate(plots):
            missing = missing_keys(plot, r.series)
            if missing:
                notes.append(f"figure of {r.claim_id}: its series lack the declared keys {missing}")
                continue
            path = figdir / f"{r.claim_id.replace('.', '_')}-{i}.pdf"
            if draw(plot, r.series, path, notes, r.measured):
                paths.setdefault(r.claim_id, []).append((plot, path))
            else:  # never silently: the series are there but hold no drawable point
                notes.append(
                    f"figure of {r.claim_id}: panel {i} draws nothing (no finite point; on a log axis, "
                    "no positive one; a y series must hold one value per x)"
                )
    return paths, notes


def draw_worst(results: Sequence[Result], path: Path) -> bool:
    """One paper's bounds searched at their worst case: the typical ratio (random draws, open marker)
    and the worst ratio found (filled), measured / bound on a log axis with the bound at 1 (dashed);
    False when no result carries a search."""
    import matplotlib.pyplot as plt

    rows = [(r.claim_id.split(".", 1)[1], r.worst) for r in results if r.worst]
    rows = [(n, w) for n, w in rows if finite(w.get("typical")) and finite(w.get("ratio"))]
    rows = [(n, w) for n, w in rows if w["typical"] > 0 and w["ratio"] > 0]
    if not rows:
        return False
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(FIGSIZE[0], 0.95 + 0.2 * len(rows)))
        ys = list(range(len(rows)))[::-1]
        for y, (_, w) in zip(ys, rows, strict=True):
            ax.plot([w["typical"], w["ratio"]], [y, y], color="0.6", lw=0.8, zorder=1)
        ax.plot(
            [w["typical"] for _, w in rows], ys, "o", mfc="white", color="C0", label="typical (random draws)"
        )
        ax.plot([w["ratio"] for _, w in rows], ys, "o", color="C3", label="worst case found")
        ax.axvline(1.0, color=THEORY_COLOR, ls="--", lw=0.9, label="bound")
        ax.set_xscale("log")
        ax.set_yticks(ys, [n for n, _ in rows])
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.set_xlabel("measured / bound (lower bounds: bound / measured)")
        xs = [v for _, w in rows for v in (w["typical"], w["ratio"])] + [1.0]
        set_ticks(ax.xaxis, True, xs, ticks_at_data=False)
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False, fontsize=6)
        fig.tight_layout(pad=0.3)
        fig.savefig(path, metadata={"CreationDate": None})
        plt.close(fig)
    return True


def worst_figures(results: Sequence[Result], out: Path) -> dict[str, Path]:
    """``<out>/fig/<paper>-worst.pdf`` (:func:`draw_worst`) for every paper with a searched bound."""
    papers = sorted({r.paper for r in results if r.worst})
    if not papers or not _matplotlib():
        return {}
    (out / "fig").mkdir(parents=True, exist_ok=True)
    paths = {p: out / "fig" / f"{p}-worst.pdf" for p in papers}
    return {p: f for p, f in paths.items() if draw_worst([r for r in results if r.paper == p], f)}


__all__ = [
    "SKIPPED",
    "STYLE",
    "Opened",
    "caption_note",
    "draw",
    "draw_worst",
    "make_figures",
    "opened",
    "worst_figures",
]
