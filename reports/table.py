"""One paper's theory-vs-experiment longtable: per row what it compares, its verdict and class, its
provenance, its seed set (as ranges) and whether the verdict is robust to our choices (the deciding
choice when it is not); rival readings of one statement stand together under a heading row."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reports.common import (
    VERDICT_WORDS,
    claim_name,
    figure_refs_tex,
    label,
    seeds_text,
    short_reference,
    sorted_results,
    statement_tex,
)
from reports.text import escape, prose
from reports.typeset import DASH, measured_cell, theory_cell
from verify.core.format import shown
from verify.core.record import ClaimRecord, Result, Verdict
from verify.core.summary import Readings, readings, row_class

#: Table columns (portrait A4, 1.5 cm margins, \tabcolsep 4pt): header, width.
COLUMNS = [
    ("claim", "2.7cm"),
    ("statement", "6.1cm"),
    ("theory", "2.0cm"),
    ("measured", "2.7cm"),
    ("verdict", "3.0cm"),
]

#: What the theory and measured cells of a row hold, by kind (a headline names its own quantity).
QUANTITY = {
    "upper": ("upper bound", "measured"),
    "lower": ("lower bound", "measured"),
    "two-sided": ("pass window", "measured"),
    "rate": ("exponent $\\pm$ tol", "fitted exponent, 95\\% CI"),
    "condition": ("required size", "reachable size"),
    "probability": ("claimed probability", "successes, 95\\% CP bounds"),
    "identity": ("exact value", "computed"),
    "qualitative": ("statement", "observed"),
}


def robustness_text(r: Result, record: ClaimRecord | None) -> str:
    """Whether the verdict is robust to our choices, in a word or two: ``robust``, ``depends on`` the
    deciding choices, ``no choices`` (the claim declares none) or ``not judged``."""
    if r.robust is True:
        return "robust"
    if r.robust is False:
        names = dict.fromkeys(e["choice"] for e in r.depends_on)
        return "depends on " + ", ".join(rf"\texttt{{{escape(n)}}}" for n in names)
    declared = bool(record.choices) if record is not None else None
    return "no choices" if declared is False else "not judged"


def verdict_cell(r: Result, record: ClaimRecord | None = None) -> str:
    """The verdict (bold when violated or an error; ``~`` when not robust), the expected verdict when it
    differs, the deciding choices when not robust; then the row's class and provenance, its seed set and
    whether the verdict is robust to our choices."""
    cell = VERDICT_WORDS.get(str(r.verdict), escape(r.verdict)) + (r"$^{\sim}$" if r.robust is False else "")
    if r.verdict in (Verdict.VIOLATED, Verdict.ERROR):
        cell = rf"\textbf{{{cell}}}"
    if not r.as_expected:
        cell += r"\newline{\scriptsize expected " + VERDICT_WORDS.get(str(r.expected), "") + "}"
    robust = robustness_text(r, record)
    if r.robust is False:
        cell += r"\newline{\scriptsize " + robust + "}"
    kind = "; ".join(w for w in (row_class(r), escape(r.provenance)) if w)
    seeds = ("seeds " if len(r.seeds) > 1 else "seed ") + seeds_text(r.seeds)
    if r.robust is not False and r.verdict != Verdict.ERROR:  # an error decides nothing to be robust about
        seeds += f"; {robust}"
    return cell + rf"\newline{{\scriptsize {kind}\newline {seeds}}}"


def _labelled(cell: str, what: str) -> str:
    return cell if cell == DASH else cell + r"\newline{\scriptsize\itshape " + what + "}"


def _measured(r: Result, value: Any) -> str:
    cell = measured_cell(r, value)
    return cell.replace(r"\;[", r"$\allowbreak\ $[")  # a fit may break before its interval


def _quantities(r: Result) -> tuple[str, str]:
    """The names of a row's theory and measured values."""
    if r.headline:
        name = str(r.headline.get("name", "") or "")
        if not name or len(name) > 18:  # a long name does not fit the narrow columns: the row names it
            return "required", "measured"
        return f"{prose(name)}: required", f"{prose(name)}: measured"
    return QUANTITY.get(str(r.kind), ("theory", "measured"))


def _head(cols: Sequence[tuple[str, str]]) -> str:
    return " & ".join(rf"\textbf{{{h}}}" for h, _ in cols) + r" \\"


def _caption(paper: str, appendix: bool) -> str:
    where = (
        rf"Appendix~\ref{{{label('app', paper)}}}"
        if appendix
        else r"the appendix (\texttt{attncheck report -{}-appendix})"
    )
    return (
        rf"\caption{{Theory against experiment, \texttt{{{escape(paper)}}}, in the paper's order: the "
        r"paper's bound, exponent, required size or pass window against the reference model's value (a "
        r"fitted slope with its 95\% interval; $k/n$ successes; the headline quantity of a claim with "
        r"several conditions); the verdict's class (finding, unsettled, answer, mismatch), the claim's "
        r"provenance, the seeds that decided it and whether the verdict survives our choices (robust; "
        r"not judged; no choices declared; or the choices it depends on). $^\dagger$\,consistency check "
        r"(tests the code; counted apart). Parameters, slack and every "
        rf"note: {where}.}}\label{{{label('tab', paper)}}}\\"
    )


def _claim_cell(r: Result, refs: Sequence[str], appendix: bool) -> str:
    name = claim_name(r.claim_id)
    if appendix:
        name = rf"\hyperref[{label('det', r.claim_id)}]{{{name}}}"
    cid = r"\phantomsection" + rf"\label{{{label('row', r.claim_id)}}}" + name
    if r.attribution == "consistency":
        cid += r"$^\dagger$"
    figs = figure_refs_tex(refs)
    return (
        cid
        + r"\newline{\scriptsize "
        + prose(short_reference(r.reference))
        + (f"; {figs}" if figs else "")
        + "}"
    )


def paper_table(
    paper: str,
    results: Sequence[Result],
    records: Mapping[str, ClaimRecord] | None = None,
    figure_refs: Mapping[str, list[str]] | None = None,
    *,
    appendix: bool = False,
) -> str:
    """The theory-vs-experiment longtable of one paper, in the paper's order.

    records: claim id -> record (for ``tex`` and the declared choices); figure_refs: claim id -> figure
    labels of its panels; appendix: the rows link to their details in the appendix.
    """
    records = records or {}
    figure_refs = figure_refs or {}
    spec = "".join(rf">{{\raggedright\arraybackslash}}p{{{w}}}" for _, w in COLUMNS)
    head = _head(COLUMNS)
    lines = [
        r"{\footnotesize",
        r"\setlength{\tabcolsep}{4pt}",
        rf"\begin{{longtable}}{{{spec}}}",
        _caption(paper, appendix),
        r"\toprule",
        head,
        r"\midrule",
        r"\endfirsthead",
        rf"\multicolumn{{{len(COLUMNS)}}}{{l}}{{\scriptsize\itshape Table~\ref{{{label('tab', paper)}}}, "
        r"continued}\\",
        r"\toprule",
        head,
        r"\midrule",
        r"\endhead",
        r"\bottomrule",
        r"\endfoot",
    ]
    groups = {g.statement: g for g in readings(results, records)}
    for r in _grouped(sorted_results(results), records, groups):
        if isinstance(r, Readings):
            lines += [_readings_row(r), r"\addlinespace[1pt]"]
            continue
        rec = records.get(r.claim_id)
        theory, measured = shown(r)
        what_t, what_m = _quantities(r)
        cells = [
            _claim_cell(r, figure_refs.get(r.claim_id, []), appendix), statement_tex(r, rec),
            _labelled(theory_cell(r, theory), what_t), _labelled(_measured(r, measured), what_m),
            verdict_cell(r, rec),
        ]  # fmt: skip
        lines += [" & ".join(cells) + r" \\", r"\addlinespace[1pt]"]
    lines += [r"\end{longtable}", r"}"]
    return "\n".join(lines) + "\n"


def _grouped(
    ordered: Sequence[Result], records: Mapping[str, ClaimRecord], groups: Mapping[str, Readings]
) -> list[Result | Readings]:
    """The rows in order, each group of rival readings together where its first member stands,
    headed by the group."""
    rows: list[Result | Readings] = []
    seen: set[str] = set()
    for r in ordered:
        key = records[r.claim_id].readings if r.claim_id in records else ""
        if key not in groups:
            rows.append(r)
        elif key not in seen:
            seen.add(key)
            members = {cid for cid, _, _ in groups[key].members}
            rows += [groups[key], *(m for m in ordered if m.claim_id in members)]
    return rows


def _readings_row(g: Readings) -> str:
    """A table row heading a group of rival readings: the statement and what the measurements say."""
    width = sum(float(w.removesuffix("cm")) for _, w in COLUMNS) + 2 * 0.14 * (len(COLUMNS) - 1)
    return (
        rf"\multicolumn{{{len(COLUMNS)}}}{{>{{\raggedright\arraybackslash}}p{{{width:.2f}cm}}}}"
        rf"{{\textit{{Rival readings of {prose(g.statement)}}}: {prose(g.verdict_text)}.}} \\"
    )


__all__ = ["COLUMNS", "QUANTITY", "paper_table", "robustness_text", "verdict_cell"]
