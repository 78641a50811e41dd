"""PDF figures from the ``series`` a claim records (matplotlib, an optional extra).

Convention for ``Result.series``: one key names the x axis -- the first of :data:`X_KEYS` present --
and every other list of the same length is a curve against it. Positive data spanning more than a
decade go on a log y axis, and then on log-log axes when x spans more than a factor of 3 (tail fits,
width sweeps); loss against its bound along GD stays semi-log.
"""

from __future__ import annotations

from pathlib import Path

from verify.core.record import Result

X_KEYS = ("t", "T", "step", "steps", "width", "widths", "d_m", "N", "H", "n", "K", "D", "x")


def _axis_data(series: dict) -> tuple[str, list[float], dict[str, list[float]]] | None:
    xkey = next((k for k in X_KEYS if isinstance(series.get(k), list)), None)
    if xkey is None:
        return None
    x = series[xkey]
    curves = {
        k: v
        for k, v in series.items()
        if k != xkey
        and isinstance(v, list)
        and len(v) == len(x)
        and all(isinstance(y, int | float) and not isinstance(y, bool) for y in v)
    }
    if len(x) < 2 or not curves or not all(isinstance(v, int | float) for v in x):
        return None
    return xkey, x, curves


def _log_worthy(values: list[float], span: float = 10.0) -> bool:
    pos = [v for v in values if v > 0]
    return len(pos) == len(values) and max(pos) / min(pos) > span


def plottable(r: Result) -> bool:
    return _axis_data(r.series) is not None


def make_figures(results: list[Result], out: Path) -> tuple[dict[str, Path], str | None]:
    """Write ``<out>/fig/<claim>.pdf`` for every plottable result.

    Returns (claim id -> path, note); without matplotlib, no files and a note saying figures were
    skipped.
    """
    todo = [r for r in results if plottable(r)]
    if not todo:
        return {}, None
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return {}, "figures skipped: matplotlib is not installed (pip install 'attncheck[figures]')"
    figdir = out / "fig"
    figdir.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for r in todo:
        xkey, x, curves = _axis_data(r.series)  # type: ignore[misc]
        fig, ax = plt.subplots(figsize=(4.5, 3.2))
        for name, y in curves.items():
            ax.plot(x, y, marker="o" if len(x) <= 20 else None, ms=3, label=name)
        ys = [v for y in curves.values() for v in y]
        if _log_worthy(ys):
            ax.set_yscale("log")
            if _log_worthy(x, span=3.0):  # sweeps (widths, D, N) over a factor >= 4: log-log
                ax.set_xscale("log")
        ax.set_xlabel(xkey)
        ax.set_title(f"{r.claim_id}: {r.verdict}", fontsize=9)
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = figdir / f"{r.claim_id.replace('.', '_')}.pdf"
        fig.savefig(path, metadata={"CreationDate": None})
        plt.close(fig)
        paths[r.claim_id] = path
    return paths, None
