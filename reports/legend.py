"""A panel's legend where it covers no data: inside the axes at the first corner or side whose box
meets no drawn line, band or marker, else below the axes (the figure grows to hold it).

The check is geometric, in display coordinates: every line's vertices and segments, every filled
band (seed ranges, pass bands) against the legend's bounding box padded by :data:`PAD_PT` points.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Where a legend may sit inside the axes, tried in this order.
INSIDE = (
    "upper right",
    "upper left",
    "lower left",
    "lower right",
    "center right",
    "center left",
    "upper center",
    "lower center",
)
#: Clearance kept around a legend's box (points): about one marker radius and a line's width.
PAD_PT = 2.5


def data_paths(ax: Any) -> list[tuple[Any, bool]]:
    """The axes' data in display coordinates: (path, filled) for every line (unfilled) and every
    band or span (filled)."""
    from matplotlib.path import Path as MPath

    out: list[tuple[Any, bool]] = []
    for line in ax.get_lines():
        xy = np.asarray(line.get_xydata(), dtype=np.float64)
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if len(xy):
            out.append((MPath(line.get_transform().transform(xy)), False))
    for coll in ax.collections:
        trans = coll.get_transform()
        out += [(trans.transform_path(p), True) for p in coll.get_paths()]
    for patch in ax.patches:
        out.append((patch.get_transform().transform_path(patch.get_path()), True))
    return out


def overlaps(ax: Any, legend: Any) -> bool:
    """``legend``'s box (padded by :data:`PAD_PT`) meets a line, a marker or a band of ``ax``."""
    fig = ax.figure
    box = legend.get_window_extent(fig.canvas.get_renderer()).padded(PAD_PT * fig.dpi / 72)
    for path, filled in data_paths(ax):
        if len(path.vertices) == 1:
            if box.contains(*path.vertices[0]):
                return True
        elif path.intersects_bbox(box, filled=filled):
            return True
    return False


def place_legend(ax: Any, **style: Any) -> Any:
    """Put ``ax``'s legend where it covers no data (call after the final layout; the figure's size
    and the axes' limits must not change afterwards) and return it."""
    fig = ax.figure
    fig.canvas.draw()
    for loc in INSIDE:
        legend = ax.legend(loc=loc, **style)
        if not overlaps(ax, legend):
            return legend
        legend.remove()
    return _below(ax, style)


def _below(ax: Any, style: dict[str, Any]) -> Any:
    """The legend under the axes' labels, in two columns when they fit the figure's width, else one;
    the figure grows by its height."""
    fig = ax.figure
    width, height = fig.get_size_inches()
    renderer = fig.canvas.get_renderer()
    handles, labels = ax.get_legend_handles_labels()
    style = {**style, "frameon": False}
    legend = fig.legend(handles, labels, loc="lower center", ncol=2, **style)
    if legend.get_window_extent(renderer).width > width * fig.dpi:
        legend.remove()
        legend = fig.legend(handles, labels, loc="lower center", ncol=1, **style)
    extra = legend.get_window_extent(renderer).height / fig.dpi + 0.04
    fig.set_size_inches(width, height + extra)
    fig.tight_layout(pad=0.3, rect=(0.0, extra / (height + extra), 1.0, 1.0))
    return legend


__all__ = ["INSIDE", "PAD_PT", "data_paths", "overlaps", "place_legend"]
