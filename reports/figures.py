"""Figures from the ``plot`` a claim declares (:class:`verify.core.record.Plot`; matplotlib, an extra).

Each panel draws the claim's measured curves (markers; per-seed data as the seed mean with the seeds'
range as a band) beside its theory (a dashed line, a reference power law, or a shaded pass band), with
labelled axes, legends in words and the declared log axes, in Computer Modern (matplotlib's mathtext,
``cm``), sized to sit two abreast on a portrait page. Nothing is guessed from series keys: a claim
without a declaration gets no figure.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

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
FIGSIZE = (3.45, 2.05)
THEORY_COLOR = "0.15"
BAND_COLOR = "#9ecae1"


def _finite(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _column(values: Any, n: int) -> tuple[list[float], list[float], list[float], int] | None:
    """(centre, low, high, seeds) of a y series of length n: numbers, or rows of per-seed numbers."""
    if not isinstance(values, list) or len(values) != n:
        return None
    if all(_finite(v) or v is None for v in values):
        ys = [float(v) if v is not None else math.nan for v in values]
        return ys, ys, ys, 1
    if all(isinstance(row, list) and row and all(_finite(v) for v in row) for row in values):
        mean = [sum(row) / len(row) for row in values]
        return mean, [min(row) for row in values], [max(row) for row in values], len(values[0])
    return None


def _mask(xs: list[float], *cols: list[float], logx: bool, logy: bool) -> list[bool]:
    keep = []
    for i, x in enumerate(xs):
        ok = _finite(x) and (x > 0 or not logx)
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


def _xs(plot: Plot, curve: Any, series: Mapping[str, Any]) -> Any:
    if plot.grid is not None:
        ys = series.get(curve.y)
        x0, r = plot.grid
        return [x0 * r**k for k in range(len(ys))] if isinstance(ys, list) else None
    return series.get(curve.x or plot.x)


def promises_theory(plot: Plot) -> bool:
    """The panel names a theory (a series, a constant, a band, a reference slope or a theory legend)."""
    declared = (plot.theory, plot.const, plot.band, plot.slope)
    return any(v is not None for v in declared) or plot.theory_label != "theory"


def draw(plot: Plot, series: Mapping[str, Any], path: Path, notes: list[str] | None = None) -> bool:
    """Draw one panel to ``path`` (PDF); False when the series hold nothing to draw. A panel that names
    a theory it cannot draw (no finite theory value) gets a note in ``notes``."""
    import matplotlib.pyplot as plt

    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=FIGSIZE)
        drawn, band_done, first = False, False, None
        for i, curve in enumerate(plot.curves):
            xs = _xs(plot, curve, series)
            if not isinstance(xs, list) or not all(_finite(x) for x in xs):
                continue
            col = _column(series.get(curve.y), len(xs))
            if col is None:
                continue
            mid, lo, hi, n_seeds = col
            keep = _mask(xs, mid, lo, hi, logx=plot.logx, logy=plot.logy)
            x = [v for v, k in zip(xs, keep, strict=True) if k]
            y = [v for v, k in zip(mid, keep, strict=True) if k]
            if not x:
                continue
            color = f"C{i % 10}"
            marker = "o" if len(x) <= 25 else None
            label = curve.label
            ax.plot(x, y, color=color, marker=marker, label=label, zorder=3)
            if n_seeds > 1:
                ylo = [v for v, k in zip(lo, keep, strict=True) if k]
                yhi = [v for v, k in zip(hi, keep, strict=True) if k]
                ax.fill_between(
                    x,
                    ylo,
                    yhi,
                    color=color,
                    alpha=0.2,
                    lw=0,
                    label=None if band_done else f"range over {n_seeds} runs",
                )
                band_done = True
            first = first or (x, y)
            drawn = True
        if not drawn:
            plt.close(fig)
            return False
        if not _theory(ax, plot, series, first) and promises_theory(plot) and notes is not None:
            notes.append(f"{path.stem}: the panel names a theory ({plot.theory_label!r}) but draws none")
        if plot.logx:
            ax.set_xscale("log")
        if plot.logy:
            ax.set_yscale("log")
        ax.set_xlabel(plot.xlabel)
        ax.set_ylabel(plot.ylabel)
        xs_all = [float(v) for ln in ax.get_lines() for v in ln.get_xdata()]
        ys_all = [float(v) for ln in ax.get_lines() for v in ln.get_ydata()]
        _axis(ax.xaxis, plot.logx, xs_all, ticks_at_data=True)
        _axis(ax.yaxis, plot.logy, ys_all, ticks_at_data=False)
        ax.legend(loc="best", frameon=True, framealpha=0.85, edgecolor="0.8", handlelength=1.8)
        fig.tight_layout(pad=0.3)
        fig.savefig(path, metadata={"CreationDate": None})
        plt.close(fig)
    return True


def _tick(v: float, _pos: Any = None) -> str:
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


def _axis(axis: Any, log: bool, values: list, *, ticks_at_data: bool) -> None:
    """Readable ticks: on a log axis spanning under two decades, ticks at 1-2-5 (or at the data's own
    x values when they are few), plainly labelled; otherwise decades only; never minor labels."""
    from matplotlib import ticker

    vals = sorted({float(v) for v in values if _finite(v) and (v > 0 or not log)})
    if not vals:
        return
    if not log:
        axis.set_major_locator(ticker.MaxNLocator(nbins=5))
        return
    axis.set_minor_formatter(ticker.NullFormatter())
    decades = math.log10(vals[-1] / vals[0]) if vals[0] > 0 else 99
    if ticks_at_data and len(vals) <= 7 and decades < 3 and all(_round(v) for v in vals):
        axis.set_major_locator(ticker.FixedLocator(vals))
        axis.set_major_formatter(ticker.FuncFormatter(_tick))
    elif decades < 2:
        axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(ticker.FuncFormatter(_tick))
    else:
        axis.set_major_locator(ticker.LogLocator(base=10, numticks=6))
        axis.set_major_formatter(ticker.LogFormatterMathtext())


def _theory(ax: Any, plot: Plot, series: Mapping[str, Any], first: tuple[list, list] | None) -> bool:
    """Draw the panel's theory; False when there is none to draw."""
    kw = {"color": THEORY_COLOR, "ls": "--", "lw": 1.0, "zorder": 2}
    if plot.band is not None:
        lo, hi = plot.band
        ax.axhspan(lo, hi, color=BAND_COLOR, alpha=0.45, lw=0, zorder=1, label=plot.theory_label)
    elif plot.const is not None:
        ax.axhline(plot.const, label=plot.theory_label, **kw)
    elif plot.theory is not None:
        xs, ys = series.get(plot.x), series.get(plot.theory)
        col = _column(ys, len(xs)) if isinstance(xs, list) else None
        if col is None:
            return False
        keep = _mask(xs, col[0], logx=plot.logx, logy=plot.logy)
        x = [v for v, k in zip(xs, keep, strict=True) if k]
        y = [v for v, k in zip(col[0], keep, strict=True) if k]
        if not x:
            return False
        ax.plot(x, y, label=plot.theory_label, **kw)
    elif plot.slope is not None and first is not None:
        x, y = first
        x0, y0 = x[-1], y[-1]  # the reference power law is anchored at the last measured point
        label = f"{plot.theory_label} (through the last point)"
        ax.plot(x, [y0 * (v / x0) ** plot.slope for v in x], label=label, **kw)
    else:
        return False
    return True


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
            if draw(plot, r.series, path, notes):
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
    rows = [(n, w) for n, w in rows if _finite(w.get("typical")) and _finite(w.get("ratio"))]
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
        _axis(ax.xaxis, True, xs, ticks_at_data=False)
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


__all__ = ["SKIPPED", "STYLE", "draw", "draw_worst", "make_figures", "missing_keys", "worst_figures"]
