"""The figure floats of the report: one paper's panels in grids of FIG_COLS x FIG_ROWS subfigures."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reports.text import escape

#: Figures per float: a grid of FIG_COLS x FIG_ROWS panels.
FIG_COLS, FIG_ROWS = 2, 4
#: A panel's largest height (a fraction of the text height), so that FIG_ROWS rows with their captions
#: and the float's caption fit one page whatever the panels' legends add below their axes.
PANEL_HEIGHT = 0.185


@dataclass(frozen=True)
class Panel:
    """One figure panel: its label, the pdf path relative to ``out`` and its sub-caption (LaTeX)."""

    label: str
    path: str
    caption: str


def figures_tex(paper: str, panels: Sequence[Panel], *, checks: bool = False) -> str:
    """The paper's panels in floats of FIG_COLS x FIG_ROWS subfigures; ``checks``: the panels of its
    consistency checks (the appendix's)."""
    per = FIG_COLS * FIG_ROWS
    out = []
    for start in range(0, len(panels), per):
        chunk = panels[start : start + per]
        out += [r"\begin{figure}[tbp]", r"\centering"]
        for i, p in enumerate(chunk):
            out += [
                r"\begin{subfigure}[t]{0.49\linewidth}",
                r"\centering",
                rf"\includegraphics[width=\linewidth,height={PANEL_HEIGHT}\textheight,keepaspectratio]{{{p.path}}}",
                rf"\caption{{{p.caption}}}\label{{{p.label}}}",
                r"\end{subfigure}" + (r"\hfill" if i % FIG_COLS == 0 and i + 1 < len(chunk) else ""),
            ]
            if i % FIG_COLS == FIG_COLS - 1 and i + 1 < len(chunk):
                out.append(r"\par\medskip")
        more = (", consistency checks" if checks else "") + (" (continued)" if start else "")
        out += [
            rf"\caption{{\texttt{{{escape(paper)}}}{more}: theory (dashed line or shaded band) against "
            r"measurement (markers; a shaded band around them is the range over seeds). A slope guide "
            r"has the stated slope and starts above the curves: a guide, not a fit.}",
            r"\end{figure}",
        ]
    return "\n".join(out) + "\n"


__all__ = ["FIG_COLS", "FIG_ROWS", "Panel", "figures_tex"]
