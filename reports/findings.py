"""The report's Findings section: each violation of a paper's own statement that survives our choices,
against the paper's sentence (a short quote and its locator, from the claim's ``Source``), with its
evidence, the choices it survives and its figure; then the violations our choices decide, the rival
readings, the conditions beyond reach, what these sizes leave open and any unexpected verdict."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from reports.common import (
    VERDICT_WORDS,
    claim_name,
    figure_refs_tex,
    label,
    row_link,
    seed_ranges,
    seeds_text,
    short_reference,
    sorted_results,
    statement_tex,
)
from reports.text import escape, prose, sentence
from reports.typeset import measured_cell, param_value, tex_value, theory_cell
from verify.core.choices import depends_text
from verify.core.format import shown
from verify.core.record import ClaimRecord, Result, Verdict
from verify.core.summary import readings, row_class

#: A quoted passage of a source: in double quotes, or in single quotes that are no apostrophes.
_QUOTED = re.compile(r"\"([^\"]{12,})\"|(?<![A-Za-z])'(.{12,}?)'(?![A-Za-z])")
#: A short quote keeps at most this many words.
QUOTE_WORDS = 30


def paper_quote(record: ClaimRecord | None) -> str:
    """The first quoted passage of the claim's source (the paper's own sentence), cut to
    :data:`QUOTE_WORDS` words; '' when the source quotes none."""
    m = _QUOTED.search(record.source) if record is not None else None
    if m is None:
        return ""
    words = (m.group(1) or m.group(2)).split()
    return " ".join(words[:QUOTE_WORDS]) + (" ..." if len(words) > QUOTE_WORDS else "")


def evidence(r: Result) -> str:
    """What was measured against what the statement requires, in a sentence (LaTeX)."""
    theory, measured = shown(r)
    if isinstance(measured, bool):  # a qualitative claim: the numbers are in its notes
        text = f"Observed: {tex_value(measured)}" + (f"; {prose(_numbers_note(r))}." if r.notes else ".")
    elif r.verdict == Verdict.VACUOUS:
        text = f"Needs {theory_cell(r, theory)}; reachable {measured_cell(r, measured)}."
    else:
        text = f"Measured {measured_cell(r, measured)} against {theory_cell(r, theory)}."
    if r.verdict == Verdict.INCONCLUSIVE and r.decision and r.decision.get("branch"):
        text += f" Why: {prose(str(r.decision['branch']))}."
    return text


def _numbers_note(r: Result) -> str:
    """The note of a qualitative claim that carries its numbers: the last one on a single seed (the
    shown seed's summary), else the first note."""
    return seed_ranges(next((n for n in reversed(r.notes) if n.startswith("seed ")), r.notes[0]))


def survived(record: ClaimRecord | None) -> str:
    """The declared choices a robust verdict survives, each over its admissible range or options."""
    parts = []
    for name, ch in record.choices if record is not None else ():
        if ch.range is not None:
            lo, hi = ch.range
            parts.append(rf"\texttt{{{escape(name)}}} from {param_value(lo)} to {param_value(hi)}")
        elif ch.options is not None:
            parts.append(rf"\texttt{{{escape(name)}}} over {len(ch.options)} options")
    return "; ".join(parts)


def _finding(r: Result, record: ClaimRecord | None, refs: Sequence[str]) -> str:
    quote = paper_quote(record)
    said = f"({prose(short_reference(r.reference))})" + (f": ``{prose(quote)}''" if quote else "")
    choices = survived(record)
    figs = figure_refs_tex(refs)
    return (
        rf"\item {row_link(r.claim_id)}. \emph{{The paper}} {said}. \emph{{Read as:}} "
        rf"{statement_tex(r, record)}. \emph{{Evidence:}} {evidence(r)} Violated at every seed of "
        rf"{seeds_text(r.seeds)}"
        + (f"; the same verdict over {choices}" if choices else "")
        + "."
        + (f" {figs}." if figs else "")
    )


def _item(r: Result, record: ClaimRecord | None, *, statement: bool = True) -> str:
    return (
        rf"\item {row_link(r.claim_id)}: "
        + (f"{statement_tex(r, record)}. " if statement else "")
        + evidence(r)
    )


def _unsettled(r: Result, record: ClaimRecord | None) -> str:
    if r.robust is False:
        why = "; ".join(depends_text(e, r.verdict) for e in r.depends_on)
    else:
        why = next((n for n in r.notes if n.startswith("robustness: not judged")), "robustness not judged")
    return _item(r, record) + f" {sentence(why)}."


def _itemize(items: Sequence[str]) -> list[str]:
    return [r"{\small\begin{itemize}\setlength{\itemsep}{1pt}", *items, r"\end{itemize}}"]


def _readings(results: Sequence[Result], records: Mapping[str, ClaimRecord]) -> list[str]:
    """Each group of rival readings of one statement, with the reading the measurements support."""
    items = []
    for g in readings(results, records):
        members = ", ".join(
            rf"\hyperref[{label('row', cid)}]{{{claim_name(cid, paper=True)}}} ({escape(prov)}, "
            rf"{VERDICT_WORDS.get(v, escape(v))})"
            for cid, prov, v in g.members
        )
        items.append(rf"\item {sentence(g.statement)}: {members}. {sentence(g.verdict_text)}.")
    return [r"\subsection*{Rival readings}", *_itemize(items)] if items else []


def findings_section(
    results: Sequence[Result],
    records: Mapping[str, ClaimRecord],
    figure_refs: Mapping[str, list[str]],
    *,
    complete: bool = True,
) -> str:
    """``findings.tex``: the findings first, then what else a referee must weigh (module docstring)."""
    ordered = sorted_results(r for r in results if r.attribution != "consistency")
    none = "None." if complete else f"None among the {len(results)} claims that finished."
    lines = [
        r"\section{Findings}\label{sec:findings}",
        r"Statements of the papers' own (EXACT, EXACT-from-reviews, THIRD-PARTY) that the reference model "
        r"violates at every seed of the claim's set and at every admissible value of each choice of ours "
        r"the claim declares; each links to its table row.",
    ]
    found = [r for r in ordered if row_class(r) == "finding"]
    lines += (
        _itemize([_finding(r, records.get(r.claim_id), figure_refs.get(r.claim_id, [])) for r in found])
        if found
        else [none]
    )
    unsettled = [r for r in ordered if row_class(r) == "unsettled"]
    if unsettled:
        lines += [
            r"\subsection*{Violated, but decided by our choices (unsettled, not findings)}",
            *_itemize([_unsettled(r, records.get(r.claim_id)) for r in unsettled]),
        ]
    lines += _readings(results, records)
    for title, verdict in (
        ("Conditions beyond reach (vacuous)", Verdict.VACUOUS),
        ("Not decided at these sizes (inconclusive)", Verdict.INCONCLUSIVE),
    ):
        rows = [r for r in ordered if r.verdict == verdict]
        if rows:
            items = [_item(r, records.get(r.claim_id), statement=verdict != Verdict.VACUOUS) for r in rows]
            lines += [rf"\subsection*{{{title}}}", *_itemize(items)]
    unexpected = [r for r in sorted_results(results) if not r.as_expected]
    if not unexpected:
        lines.append(
            f"Every verdict is the one its claim's record expects ({len(results)} of {len(results)})."
        )
        return "\n".join(lines) + "\n"
    items = [
        rf"\item {row_link(r.claim_id)}: {VERDICT_WORDS.get(str(r.verdict), '')}, expected "
        rf"{VERDICT_WORDS.get(str(r.expected), '')}" + (f": {prose(r.notes[0])}" if r.notes else "") + "."
        for r in unexpected
    ]
    lines += [r"\subsection*{Unexpected verdicts (the run exits 1)}", *_itemize(items)]
    return "\n".join(lines) + "\n"


__all__ = ["QUOTE_WORDS", "evidence", "findings_section", "paper_quote", "survived"]
