"""The report's panels show their claims: each figure's drawn data against the row's stated quantity,
read from the figure code's own artists (not pixels).

For every panel of a saved run (``tests/golden/figures.json``: the results of the default run at
c06642e whose claims declare a figure, 75 claims, their notes and per-seed rows dropped;
``ATTNCHECK_FIGURE_RESULTS=<results.json>`` checks every panel of that run instead): the legend's box
meets no line, marker or band; a declared theory is drawn and in view; a rate's slope guide spans the
window its fit judged and starts above every curve; a stated fall is visible from each curve's first
point, and reached where the claim holds; no point at the statement's origin (x = 0 on a log axis) is
dropped. Plus the parts: the legend placement, the guides' arithmetic, the ``fall`` declaration.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from reports.build import registered_records
from reports.guides import GUIDE_ABOVE, fit_window, guide_span, slope_guide, value_at
from reports.panel_data import curves_of, finite, promises_theory
from verify.core.record import Plot, Result, Verdict
from verify.core.results import read_results

GOLDEN = Path(__file__).parent / "golden" / "figures.json"
RESULTS = Path(os.environ.get("ATTNCHECK_FIGURE_RESULTS", GOLDEN))
RECORDS = registered_records()
#: Relative slack of float comparisons of drawn coordinates.
EPS = 1e-9


def _panels(path: Path) -> list[tuple[str, int, Plot, Result]]:
    results = read_results(path)
    return [
        (r.claim_id, i, p, r)
        for r in results
        if r.claim_id in RECORDS and r.series
        for i, p in enumerate(RECORDS[r.claim_id].plot)
    ]


PANELS = _panels(RESULTS)


def _lines(ax, gid: str) -> list:
    return [ln for ln in ax.get_lines() if ln.get_gid() == gid]


def _xy(line) -> tuple[list[float], list[float]]:
    return [float(v) for v in line.get_xdata()], [float(v) for v in line.get_ydata()]


def _in_view(ax, v: float) -> bool:
    lo, hi = sorted(ax.get_ylim())
    return lo * (1 - EPS) <= v <= hi * (1 + EPS)


def _slope_problems(ax, plot: Plot, r: Result) -> list[str]:
    """The guide spans the judged fit window (when one of the panel's curves holds it) and starts
    above every curve, with the stated slope."""
    (guide,) = _lines(ax, "theory")
    gx, gy = _xy(guide)
    out = []
    curves = [_xy(ln) for ln in _lines(ax, "curve")]
    window = fit_window(r.measured)
    if window is not None and any(window[0] in x and window[1] in x for x, _ in curves):
        if not (gx[0] <= window[0] * (1 + EPS) and gx[-1] >= window[1] * (1 - EPS)):
            out.append(f"the slope guide spans {gx[0]:g}..{gx[-1]:g}, not the fit window {window[:2]}")
    at = [value_at(x, y, gx[0], logx=plot.logx, logy=plot.logy) for x, y in curves]
    if any(v is not None and gy[0] <= v for v in at):
        out.append("the slope guide does not start above every curve")
    if plot.logy and len(gx) > 1:
        slope = math.log(gy[-1] / gy[0]) / math.log(gx[-1] / gx[0])
        if abs(slope - plot.slope) > 1e-9:
            out.append(f"the guide's slope is {slope:g}, not the stated {plot.slope:g}")
    return out


def _fall_problems(ax, plot: Plot, r: Result) -> list[str]:
    """Each curve's first point and its first value / fall are in view; a holding claim's curves
    reach it on the plotted range."""
    out = []
    for _, y in (_xy(ln) for ln in _lines(ax, "curve")):
        target = y[0] / plot.fall
        if not (_in_view(ax, y[0]) and _in_view(ax, target)):
            out.append(f"the fall from {y[0]:g} to {target:g} is not in view")
        if r.verdict == Verdict.HOLDS and min(y) > target * (1 + EPS):
            out.append(f"a holding claim's curve falls only to {min(y):g}, above {target:g}")
    if len(_lines(ax, "fall")) != len(_lines(ax, "curve")):
        out.append("not every curve has its fall level")
    return out


def _origin_problems(ax, plot: Plot, r: Result) -> list[str]:
    """Each curve is drawn from the first x of its series that holds a drawable number (finite,
    positive on a log y axis), x = 0 on a log x axis included: the axis starts where the statement does."""
    out = []
    drawn = {ln.get_label(): _xy(ln)[0] for ln in _lines(ax, "curve")}
    for c in plot.curves:
        xs, ys = r.series.get(c.x or plot.x), r.series.get(c.y)
        if c.label not in drawn or plot.grid is not None or not isinstance(ys, list):
            continue
        mean = [sum(y) / len(y) if isinstance(y, list) and y and all(map(finite, y)) else y for y in ys]
        ok = [x for x, y in zip(xs, mean, strict=True) if finite(y) and (y > 0 or not plot.logy)]
        if ok and min(drawn[c.label]) > min(ok):
            out.append(f"{c.label}: drawn from x = {min(drawn[c.label]):g}, its series from {min(ok):g}")
    return out


def figure_problems(plot: Plot, r: Result) -> list[str]:
    """What keeps the panel from showing its claim (empty: it does)."""
    from reports.figures import opened
    from reports.legend import overlaps

    with opened(plot, r.series, r.measured) as panel:
        if panel is None:
            return []  # nothing drawable: make_figures notes it
        ax, out = panel.ax, []
        if overlaps(ax, panel.legend):
            out.append("the legend covers data")
        if promises_theory(plot) and not panel.theory:
            out.append("the declared theory is not drawn")
        if plot.const is not None and not _in_view(ax, plot.const):
            out.append(f"the theory line {plot.const:g} is out of view")
        if plot.band is not None:
            lo, hi = sorted(ax.get_ylim())
            if plot.band[0] > hi or plot.band[1] < lo:
                out.append(f"the pass band {plot.band} is out of view")
        if plot.slope is not None and panel.theory and plot.theory is None and plot.const is None:
            out += _slope_problems(ax, plot, r)
        if plot.fall is not None:
            out += _fall_problems(ax, plot, r)
        return out + _origin_problems(ax, plot, r)


@pytest.mark.parametrize(("claim", "i", "plot", "result"), PANELS, ids=[f"{c}-{i}" for c, i, _, _ in PANELS])
def test_every_panel_shows_its_claim(claim: str, i: int, plot: Plot, result: Result) -> None:
    pytest.importorskip("matplotlib")
    assert figure_problems(plot, result) == []


def test_the_golden_run_covers_every_kind_of_theory_mark() -> None:
    plots = [p for _, _, p, _ in _panels(GOLDEN)]
    assert (
        any(p.fall for p in plots) and any(p.band for p in plots) and any(p.const is not None for p in plots)
    )
    assert any(p.slope is not None for p in plots) and any(p.theory for p in plots)
    assert any(len(p.curves) >= 4 for p in plots)  # a crowded panel: its legend must go somewhere


def test_yang2024_fig2_starts_at_step_0_and_shows_the_two_decades() -> None:
    """The issue's example: the log axis began at step 30 (the fall looked like 1.5 decades) and drew no
    reference; the panel now starts at step 0 and draws each curve's start / 100, the claim's rule."""
    pytest.importorskip("matplotlib")
    from reports.figures import caption_note, opened

    rec = RECORDS["yang2024.exp.fig2"]
    (plot,) = rec.plot
    assert plot.fall == dict(rec.rules)["fall"].value  # the drawn fall is the judged one
    (r,) = [r for c, _, _, r in PANELS if c == "yang2024.exp.fig2"]
    with opened(plot, r.series, r.measured) as panel:
        curves = [_xy(ln) for ln in _lines(panel.ax, "curve")]
        assert panel.ax.get_xscale() == "symlog" and all(x[0] == 0.0 for x, _ in curves)
        assert all(math.log10(y[0] / min(y)) >= 2 for _, y in curves)
    assert "/ $100$" in caption_note(plot, r.series, r.measured)


def test_zhang2026_rate_guide_is_off_the_curves_and_on_the_fit_window() -> None:
    """The issue's other example: the T^-1 line was anchored on one of four curves and lay on it."""
    pytest.importorskip("matplotlib")
    from reports.figures import caption_note, opened

    r = next(r for c, _, _, r in PANELS if c == "zhang2026.thm31.rate")
    lo, hi, _ = fit_window(r.measured)
    for plot in RECORDS["zhang2026.thm31.rate"].plot:
        with opened(plot, r.series, r.measured) as panel:
            (guide,) = _lines(panel.ax, "theory")
            gx, gy = _xy(guide)
            assert (gx[0], gx[-1]) == pytest.approx((lo, hi))
            for x, y in (_xy(ln) for ln in _lines(panel.ax, "curve")):
                at = value_at(x, y, lo, logx=True, logy=True)
                assert at is None or gy[0] >= GUIDE_ABOVE * at * (1 - EPS)
        note = caption_note(plot, r.series, r.measured)
        assert "fit window" in note and "above the highest curve" in note


# --- the parts ----------------------------------------------------------------------------------------


def _axes_with(lines: list[tuple[list[float], list[float]]]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3.45, 2.05))
    for k, (x, y) in enumerate(lines):
        ax.plot(x, y, marker="o", label=f"curve {k}")
    fig.tight_layout()
    return fig, ax


def test_the_overlap_check_can_fail() -> None:
    pytest.importorskip("matplotlib")
    from reports.legend import overlaps

    fig, ax = _axes_with([([0, 1], [0, 1]), ([0, 1], [1, 0])])  # an X through the centre
    fig.canvas.draw()
    assert overlaps(ax, ax.legend(loc="center"))
    fig.clf()


def test_the_legend_goes_to_a_free_corner_or_below_the_axes() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from reports.legend import overlaps, place_legend

    fig, ax = _axes_with([([0, 1], [0, 0.2])])  # the upper half is free
    legend = place_legend(ax)
    assert legend is ax.get_legend() and not overlaps(ax, legend)
    plt.close(fig)
    crowded = [([0, 1], [k / 8, 1 - k / 8]) for k in range(9)] + [([0, 1], [0.5, 0.5])]
    fig, ax = _axes_with(crowded)  # lines through every corner and side
    height = fig.get_size_inches()[1]
    legend = place_legend(ax)
    assert legend in fig.legends and ax.get_legend() is None and not overlaps(ax, legend)
    assert fig.get_size_inches()[1] > height  # the figure grew to hold it
    plt.close(fig)


def test_fit_window_reads_a_rate_fit() -> None:
    fit = {"x": [1.0, 2.0, 4.0, 8.0, 16.0], "window": 3}
    assert fit_window(fit) == (4.0, 16.0, 3)
    assert fit_window({**fit, "corrected": {"slope": -1.0}}) == (1.0, 16.0, 5)
    assert fit_window(0.5) is None and fit_window({"x": [1.0], "window": 3}) is None


def test_guide_span_is_the_judged_window_when_the_panel_holds_it() -> None:
    a = ([1.0, 2.0, 4.0, 8.0], [1.0] * 4)
    b = ([3.0, 6.0, 12.0, 24.0], [1.0] * 4)
    assert guide_span([a, b], (2.0, 8.0, 3)) == (2.0, 8.0, True)
    assert guide_span([b], (2.0, 8.0, 3)) == (3.0, 24.0, False)  # the judged curve is in another panel
    assert guide_span([a, b], None) == (1.0, 24.0, False)


def test_slope_guide_starts_above_the_highest_curve_with_the_stated_slope() -> None:
    low = ([1.0, 10.0, 100.0], [1.0, 0.1, 0.01])
    high = ([1.0, 10.0, 100.0], [4.0, 0.4, 0.04])
    x, y = slope_guide([low, high], -1.0, (10.0, 100.0), logx=True, logy=True)
    assert (x[0], x[-1]) == pytest.approx((10.0, 100.0))
    assert y[0] == pytest.approx(GUIDE_ABOVE * 0.4) and y[-1] == pytest.approx(GUIDE_ABOVE * 0.04)
    assert slope_guide([low], -1.0, (1000.0, 2000.0), logx=True, logy=True) is None  # no curve there
    assert value_at(*low, math.sqrt(10.0), logx=True, logy=True) == pytest.approx(10**-0.5)


@pytest.mark.parametrize(
    ("fall", "error", "match"),
    [(True, TypeError, "fall must be a number"), (1.0, ValueError, "fall must be a finite factor > 1"),
     (math.inf, ValueError, "fall must be a finite factor > 1"), ("100", TypeError, "fall must be a number")],
)  # fmt: skip
def test_plot_fall_is_checked(fall, error, match) -> None:
    with pytest.raises(error, match=match):
        Plot(x="t", curves=[("loss", "loss")], xlabel="$t$", ylabel="loss", fall=fall)


def test_panel_data_keeps_x_zero_on_a_log_axis() -> None:
    plot = Plot(x="t", curves=[("y", "y")], xlabel="$t$", ylabel="y", logx=True, logy=True, fall=10)
    drawn = curves_of(plot, {"t": [0.0, 10.0, 100.0], "y": [1.0, 0.5, 0.05]})
    assert drawn.symlog and drawn.lines[0].x == [0.0, 10.0, 100.0] and drawn.linthresh == 10.0
    assert not curves_of(plot, {"t": [1.0, 10.0], "y": [1.0, 0.5]}).symlog
    assert finite(1.0) and not finite(True) and not finite(math.nan)
