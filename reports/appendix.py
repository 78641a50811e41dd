"""The report's optional appendix (``attncheck report --appendix``): every row's full reference,
parameters, seed set, slack, time and notes (seed lists as ranges), and each paper's errata."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reports.common import VERDICT_WORDS, claim_name, label, seed_ranges, seeds_text, sorted_results
from reports.text import escape, markdown_notes, prose
from reports.typeset import DASH, measured_cell, param_value, theory_cell
from verify.core.format import fmt_slack, shown
from verify.core.record import ClaimRecord, Result


def _params_text(params: Mapping[str, Any]) -> str:
    if not params:
        return DASH
    return "; ".join(rf"{prose(str(k))} $=$ {param_value(params[k])}" for k in sorted(params))


def _source(records: Mapping[str, ClaimRecord] | None, claim_id: str) -> str:
    rec = (records or {}).get(claim_id)
    return rec.source if rec is not None else ""


def details_table(
    paper: str, results: Sequence[Result], records: Mapping[str, ClaimRecord] | None = None
) -> str:
    """The appendix longtable of one paper: for every row (in the table's order, linked both ways) its
    full reference, verdict, kind, provenance, seeds, slack, time, parameters, headline and all its
    notes."""
    lines = [
        rf"\subsection{{\texttt{{{escape(paper)}}}}}\label{{{label('app', paper)}}}",
        r"{\notesize",
        r"\setlength{\tabcolsep}{0pt}",
        r"\begin{longtable}{>{\raggedright\arraybackslash}p{\linewidth}}",
    ]
    for r in sorted_results(results):
        cid = (
            r"\phantomsection"
            + rf"\label{{{label('det', r.claim_id)}}}"
            + rf"\hyperref[{label('row', r.claim_id)}]{{\textbf{{{claim_name(r.claim_id)}}}}}"
            + rf" (p.~\pageref{{{label('row', r.claim_id)}}})"
        )
        facts = [
            rf"\textbf{{{VERDICT_WORDS.get(str(r.verdict), '')}}}"
            + ("" if r.as_expected else f" (expected {VERDICT_WORDS.get(str(r.expected), '')})"),
            f"{escape(r.kind)}, {escape(r.provenance)}"
            + (f" (source: {prose(src)})" if (src := _source(records, r.claim_id)) else "")
            + ("; consistency check" if r.attribution == "consistency" else ""),
            f"seeds {seeds_text(r.seeds)}",
            f"slack ${fmt_slack(r.slack)}$" if r.slack is not None else "slack " + DASH,
            f"{r.wall_time:.1f}\\,s",
        ]
        first = rf"{cid}\quad {prose(r.reference)}. " + "; ".join(facts) + ". "
        first += rf"\textbf{{Parameters:}} {_params_text(r.params)}."
        if r.headline:
            theory, measured = shown(r)
            first += (
                rf" \textbf{{Shown:}} {prose(str(r.headline.get('name', '')))}: measured "
                rf"{measured_cell(r, measured)} against {theory_cell(r, theory)}."
            )
        lines.append(first + r" \\*")
        notes = [seed_ranges(n) for n in r.notes] or ["(no notes)"]
        lines.append(r"\hspace*{1em}$\bullet$ " + r" $\bullet$ ".join(prose(n) for n in notes) + r" \\")
        lines.append(r"\addlinespace[3pt]")
    lines += [r"\end{longtable}", r"}"]
    return "\n".join(lines) + "\n"


def errata_tex(paper: str, errata: str) -> str:
    """``<paper>-errata.tex``: the paper's errata (``verify/<paper>/errata.md``) typeset."""
    return (
        rf"\subsection{{\texttt{{{escape(paper)}}}}}\label{{{label('errata', paper)}}}" + "\n"
        r"{\notesize\raggedright"
        + "\n"
        + markdown_notes(seed_ranges(errata), env="compactlist")
        + r"\par}"
        + "\n"
    )


def appendix_tex(papers: Sequence[str], errata: Sequence[str], checks: Sequence[str] = ()) -> str:
    """``appendix.tex``: the details of every row (``<paper>-details.tex``), the figures of the
    consistency checks of the papers in ``checks`` (``<paper>-checks.tex``), then the errata of the
    papers in ``errata`` (``<paper>-errata.tex``)."""
    lines = [
        r"\appendix",
        r"\section{Parameters, provenance and notes of every row}\label{app:details}",
        r"Keyed to the tables' rows (each claim links back to its row). Numbers in the notes are the "
        r"claims' own, set in the report's style.",
        *(rf"\input{{{p}-details.tex}}" for p in papers),
    ]
    if checks:
        lines += [
            r"\section{Figures of the consistency checks}\label{app:checks}",
            r"The checks of our code (gradients, closed forms against Monte Carlo, textbook facts of our "
            r"model), drawn as the claims about the papers are.",
            *(rf"\input{{{p}-checks.tex}}" for p in checks),
        ]
    if errata:
        lines += [
            r"\section{Errata: what the suite does differently from each paper, and why}\label{app:errata}",
            *(rf"\input{{{p}-errata.tex}}" for p in errata),
        ]
    return "\n".join(lines) + "\n"


__all__ = ["appendix_tex", "details_table", "errata_tex"]
