"""One paper's section of the main part: two short paragraphs generated from the results and records
(the answers to referee questions, and where our reconstruction does not reproduce the paper), then
its table and its figures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reports.common import (
    VERDICT_WORDS,
    claim_name,
    label,
    paper_title,
    short_reference,
    sorted_results,
    statement_tex,
)
from reports.findings import evidence, paper_quote
from reports.floats import Panel, figures_tex
from reports.table import paper_table
from reports.text import escape, prose
from verify.core.record import ClaimRecord, Result
from verify.core.summary import row_class


def _row_ref(r: Result) -> str:
    return rf"\hyperref[{label('row', r.claim_id)}]{{{claim_name(r.claim_id)}}}"


def answers_paragraph(results: Sequence[Result], records: Mapping[str, ClaimRecord]) -> str:
    """Each referee question of the paper (its QUESTION rows) with its answer: the verdict and the
    numbers behind it."""
    rows = [r for r in sorted_results(results) if row_class(r) == "answer"]
    if not rows:
        return r"\paragraph{Answers to referee questions.} No claim of this paper asks a referee's question."
    parts = []
    for r in rows:
        record = records.get(r.claim_id)
        quote = paper_quote(record)
        asked = f"``{prose(quote)}''" if quote else prose(short_reference(r.reference))
        parts.append(
            rf"{_row_ref(r)} ({asked}): {statement_tex(r, record)}: "
            rf"\emph{{{VERDICT_WORDS.get(str(r.verdict), '')}}}. {evidence(r)}"
        )
    return r"\paragraph{Answers to referee questions.} " + " ".join(parts)


def mismatch_paragraph(results: Sequence[Result], records: Mapping[str, ClaimRecord]) -> str:
    """Each violated claim of our reconstruction (DERIVED, RECONSTRUCTED) of the paper, with its numbers:
    not evidence against the paper."""
    rows = [r for r in sorted_results(results) if row_class(r) == "mismatch"]
    head = r"\paragraph{Where our reconstruction does not reproduce the paper.} "
    if not rows:
        return head + "Nowhere: no claim of our reconstruction (DERIVED, RECONSTRUCTED) is violated."
    parts = [
        rf"{_row_ref(r)} ({prose(short_reference(r.reference))}): "
        + f"{statement_tex(r, records.get(r.claim_id))}. {evidence(r)}"
        for r in rows
    ]
    return head + " ".join(parts) + " These rows test our reconstruction, not the paper's own statement."


def paper_section(
    paper: str,
    results: Sequence[Result],
    records: Mapping[str, ClaimRecord],
    panels: Sequence[Panel],
    figure_refs: Mapping[str, list[str]],
    *,
    derivations: bool = False,
    appendix: bool = False,
) -> str:
    """``<paper>.tex``: the section with the two paragraphs, the table and the figures; ``derivations``:
    the paper has ``verify/<paper>/derivations.md``, which the references "derivation Sect. N" cite;
    ``appendix``: the rows link to their details in the appendix."""
    text = rf"\section{{{escape(paper_title(paper))}}}\label{{{label('sec', paper)}}}" + "\n"
    if derivations:
        text += (
            r"{\raggedright References ``derivation Sect.~$N$'' cite our derivations and reconstructions for "
            r"this paper, "
            rf"\texttt{{verify/\allowbreak{{}}{escape(paper)}/\allowbreak{{}}derivations.md}} (shipped with "
            r"attncheck), not the paper.\par}" + "\n\n"
        )
    text += answers_paragraph(results, records) + "\n\n" + mismatch_paragraph(results, records) + "\n\n"
    text += paper_table(paper, results, records, figure_refs, appendix=appendix)
    return text + (figures_tex(paper, panels) if panels else "")


__all__ = [
    "answers_paragraph",
    "mismatch_paragraph",
    "paper_section",
]
