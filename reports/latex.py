"""LaTeX (booktabs + longtable) rendering of claim results; every string is escaped.

Numbers are printed as ``$1.23\\times10^{41}$``, readable at any magnitude; composite values (slope
fits, counts, dicts) use :func:`verify.core.format.fmt_value` and are escaped as text.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from verify.core.format import fmt_params, fmt_sci, fmt_slack, fmt_value, shown
from verify.core.record import Result, Verdict

_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
_ESC_RE = re.compile("|".join(re.escape(k) for k in _ESCAPES))

VERDICT_ORDER = [v.value for v in Verdict]
PAPER_TITLES = {
    "wu2023": "Wu, Liu, Chrysos, Cevher (NeurIPS 2023): encoder-only shallow transformers",
    "yang2024": "Yang, Huang, Liang, Chi (NeurIPS 2024): in-context learning with representations",
    "deora2023": "Deora, Ghaderi, Taheri, Thrampoulidis (TMLR 2024): multi-head attention",
    "zhang2026": "Zhang, Zhao, Gu, Cao (ICLR 2026): position-only attention learns teacher models",
}


def escape(text: str) -> str:
    """Escape LaTeX's special characters; non-ASCII is left to inputenc (utf8)."""
    return _ESC_RE.sub(lambda m: _ESCAPES[m.group()], str(text))


def num(value: Any) -> str:
    """A scalar in math-mode scientific notation, anything else as escaped compact text."""
    if isinstance(value, bool) or not (isinstance(value, int | float) or type(value).__name__ == "mpf"):
        return escape(fmt_value(value, limit=40))
    if isinstance(value, int) and abs(value) < 10**6:
        return f"${value}$"
    mant, exp = fmt_sci(value).split("e")
    e = int(exp)
    return f"${mant}$" if e == 0 else f"${mant}\\times10^{{{e}}}$"


def _verdict_cell(r: Result) -> str:
    cell = escape(r.verdict)
    if r.verdict in (Verdict.VIOLATED, Verdict.ERROR):
        cell = rf"\textbf{{{cell}}}"
    if not r.as_expected:
        cell += rf" \newline(expected {escape(r.expected)})"
    return cell


#: Longest note text per claim printed under a table.
NOTE_LIMIT = 600

COLUMNS = [
    ("claim", r"p{3.1cm}"),
    ("reference", r"p{2.3cm}"),
    ("kind", r"p{1.3cm}"),
    ("provenance", r"p{2.4cm}"),
    ("parameters", r"p{4.0cm}"),
    ("theory", r"p{2.3cm}"),
    ("measured", r"p{2.3cm}"),
    ("slack", r"r"),
    ("verdict", r"p{1.6cm}"),
]


def paper_table(paper: str, results: list[Result], figure_labels: dict[str, str] | None = None) -> str:
    """One longtable (booktabs rules) of a paper's results; ``figure_labels`` maps claim id -> label."""
    figure_labels = figure_labels or {}
    spec = "".join(c if c == "r" else r">{\raggedright\arraybackslash}" + c for _, c in COLUMNS)
    head = " & ".join(rf"\textbf{{{h}}}" for h, _ in COLUMNS) + r" \\"
    lines = [
        rf"\subsection*{{{escape(PAPER_TITLES.get(paper, paper))}}}",
        r"{\scriptsize",
        rf"\begin{{longtable}}{{{spec}}}",
        rf"\caption{{Theory vs experiment for \texttt{{{escape(paper)}}}; slack is $\log_{{10}}$ of the "
        r"margin (positive: holds with room). Provenance tags say how sure each formula is: "
        r"RECONSTRUCTED formulas are ours, not the paper's.}\\",
        r"\toprule",
        head,
        r"\midrule",
        r"\endfirsthead",
        r"\toprule",
        head,
        r"\midrule",
        r"\endhead",
        r"\bottomrule",
        r"\endfoot",
    ]
    for r in sorted(results, key=lambda r: r.claim_id):
        cid = r"\texttt{" + escape(r.claim_id).replace(".", r".\allowbreak{}") + "}"
        if r.claim_id in figure_labels:
            cid += rf" (Fig.~\ref{{{figure_labels[r.claim_id]}}})"
        cells = [
            cid,
            escape(r.reference),
            escape(r.kind),
            escape(r.provenance),
            escape(fmt_params(r.params, limit=120)),
            *(num(v) for v in shown(r)),
            escape(fmt_slack(r.slack)),
            _verdict_cell(r),
        ]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\end{longtable}", r"}"]
    noted = [r for r in sorted(results, key=lambda r: r.claim_id) if r.verdict != Verdict.HOLDS and r.notes]
    if noted:
        lines += [r"\paragraph{Notes on the claims that do not simply hold}", r"\begin{itemize}"]
        for r in noted:
            text = "; ".join(r.notes)
            text = text if len(text) <= NOTE_LIMIT else text[: NOTE_LIMIT - 3] + "..."
            lines.append(rf"\item \texttt{{{escape(r.claim_id)}}} ({escape(r.verdict)}): {escape(text)}")
        lines.append(r"\end{itemize}")
    return "\n".join(lines) + "\n"


def summary_table(results: list[Result]) -> str:
    """Counts of each verdict per paper (booktabs tabular)."""
    by_paper: dict[str, Counter[str]] = {}
    for r in results:
        by_paper.setdefault(r.paper, Counter())[r.verdict] += 1
    cols = [v for v in VERDICT_ORDER if any(c[v] for c in by_paper.values()) or v != Verdict.ERROR]
    lines = [
        r"\begin{table}[ht]",
        r"\centering",
        r"\caption{Verdicts per paper.}",
        r"\begin{tabular}{l" + "r" * (len(cols) + 1) + "}",
        r"\toprule",
        "paper & " + " & ".join(escape(c) for c in cols) + r" & total \\",
        r"\midrule",
    ]
    for paper in sorted(by_paper):
        c = by_paper[paper]
        lines.append(
            rf"\texttt{{{escape(paper)}}} & "
            + " & ".join(str(c[v]) for v in cols)
            + rf" & {sum(c.values())} \\"
        )
    total = Counter(r.verdict for r in results)
    lines += [
        r"\midrule",
        "all & " + " & ".join(str(total[v]) for v in cols) + rf" & {len(results)} \\",
        r"\bottomrule",
        r"\end{tabular}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


_CODE_RE = re.compile(r"`([^`]+)`")


def markdown_notes(md: str) -> str:
    """The small markdown subset of the errata files (##-headings, bullets, paragraphs) as LaTeX."""
    out: list[str] = []
    in_list = False

    def inline(text: str) -> str:
        parts = _CODE_RE.split(text)
        return "".join(
            rf"\texttt{{{escape(p)}}}" if i % 2 else escape(p.replace("**", "")) for i, p in enumerate(parts)
        )

    for raw in md.splitlines():
        line = raw.strip()
        is_item = line.startswith(("- ", "* "))
        if in_list and not is_item and line and not raw.startswith("  "):
            out.append(r"\end{itemize}")
            in_list = False
        if not line:
            continue
        if line.startswith("#"):
            title = line.lstrip("#").strip()
            out.append(rf"\paragraph{{{inline(title)}}}")
        elif is_item:
            if not in_list:
                out.append(r"\begin{itemize}")
                in_list = True
            out.append(r"\item " + inline(line[2:]))
        else:
            out.append(inline(line))
    if in_list:
        out.append(r"\end{itemize}")
    return "\n".join(out) + "\n"


def main_tex(papers: list[str], figures: dict[str, list[tuple[str, str, str]]]) -> str:
    """A stand-alone document including ``summary.tex`` and one ``<paper>.tex`` per paper.

    figures: paper -> [(label, relative pdf path, caption)], placed after the paper's table.
    """
    lines = [
        r"\documentclass[10pt]{article}",
        r"\usepackage[utf8]{inputenc}",
        r"\usepackage[T1]{fontenc}",
        r"\usepackage[landscape,margin=1.5cm]{geometry}",
        r"\usepackage{booktabs,longtable,array,graphicx}",
        r"\setlength{\LTcapwidth}{\linewidth}",
        r"\title{attncheck: theory vs experiment}",
        r"\date{}",
        r"\begin{document}",
        r"\maketitle",
        r"\input{summary.tex}",
    ]
    for paper in papers:
        lines.append(rf"\input{{{paper}.tex}}")
        for label, path, caption in figures.get(paper, []):
            lines += [
                r"\begin{figure}[ht]",
                r"\centering",
                rf"\includegraphics[width=0.45\linewidth]{{{path}}}",
                rf"\caption{{{escape(caption)}}}\label{{{label}}}",
                r"\end{figure}",
            ]
        lines.append(r"\clearpage")
    lines.append(r"\end{document}")
    return "\n".join(lines) + "\n"
