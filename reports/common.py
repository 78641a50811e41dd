"""What every part of the LaTeX report names the same way: labels, claim names, references, seed sets,
verdict words and a row's class (finding, unsettled, answer, mismatch)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from reports.order import reference_key
from reports.text import escape, prose
from reports.typeset import DASH
from verify.core.papers import PaperInfo, papers
from verify.core.record import ClaimRecord, Result, Verdict

VERDICT_WORDS = {str(v): str(v).replace("_", " ") for v in Verdict}


def info(paper: str) -> PaperInfo | None:
    """The installed paper plugin's metadata, or None (results of a paper not installed here)."""
    found = papers().get(paper)
    return found.info if found is not None else None


def paper_title(paper: str) -> str:
    """A section title from the paper's :class:`~verify.core.papers.PaperInfo`: authors (venue): subject."""
    meta = info(paper)
    return f"{meta.authors} ({meta.venue}): {meta.short}" if meta else paper


def label(prefix: str, claim_id: str) -> str:
    """A LaTeX label for a claim: ``row:zhang2026-thm31-rate``."""
    return prefix + ":" + re.sub(r"[^A-Za-z0-9]+", "-", claim_id)


def claim_name(claim_id: str, *, paper: bool = False) -> str:
    """The claim id in typewriter, breakable after its dots and underscores (the paper prefix dropped
    unless asked)."""
    name = claim_id if paper else claim_id.split(".", 1)[-1]
    return r"\texttt{" + escape(name).replace(".", r".\allowbreak{}").replace(r"\_", r"\_\allowbreak{}") + "}"


def row_link(claim_id: str) -> str:
    """The claim's full id linked to its table row, with the row's page."""
    return (
        rf"\hyperref[{label('row', claim_id)}]{{{claim_name(claim_id, paper=True)}}} "
        rf"(p.~\pageref{{{label('row', claim_id)}}})"
    )


def short_reference(reference: str) -> str:
    """The reference up to its first semicolon or parenthesised remark (``(1)`` and ``(a)`` stay; the
    full reference is in the appendix)."""
    head = re.split(r"\s\((?=[A-Za-z]{3}|[A-Za-z]+\s)|;", reference, maxsplit=1)[0].strip()
    while head.count("(") > head.count(")"):
        head = head[: head.rindex("(")].strip()
    return head or reference


def statement_tex(r: Result, record: ClaimRecord | None) -> str:
    """The claim's statement in LaTeX: the record's ``tex``, else its plain statement as prose."""
    return record.tex if record is not None and record.tex else prose(r.statement)


def sorted_results(results: Iterable[Result]) -> list[Result]:
    """Results in the paper's order (by section, then theorem; claim id as the stable fallback)."""
    return sorted(results, key=lambda r: (r.paper, reference_key(r.reference, r.claim_id)))


def seeds_text(seeds: Iterable[int]) -> str:
    """A seed list as ranges of consecutive seeds, in LaTeX: ``0--49``, ``1000--1009, 1020``."""
    ordered = sorted({int(s) for s in seeds})
    if not ordered:
        return DASH
    parts, start = [], ordered[0]
    for a, b in zip(ordered, [*ordered[1:], None], strict=True):
        if b != a + 1:
            parts.append(str(start) if start == a else f"{start}--{a}")
            start = b
    return ", ".join(parts)


_SEED_LIST = re.compile(r"\b(seeds?(?: set)?:?\s*)[\[(](\d+(?:,\s*\d+)+)[\])]")


def seed_ranges(text: str) -> str:
    """Plain text with every listed seed set (``seeds [0, 1, 2, 5]``) written as ranges (``seeds 0–2,
    5``, with an en dash, which :func:`reports.text.prose` typesets)."""
    return _SEED_LIST.sub(
        lambda m: m.group(1) + seeds_text(int(s) for s in m.group(2).split(",")).replace("--", "\u2013"), text
    )


def figure_refs_tex(refs: Sequence[str]) -> str:
    """``Fig.~\\ref{a}, \\ref{b}`` for a claim's figure labels, or ''."""
    return ("Fig.~" + ", ".join(rf"\ref{{{f}}}" for f in refs)) if refs else ""


__all__ = [
    "VERDICT_WORDS",
    "claim_name",
    "figure_refs_tex",
    "info",
    "label",
    "paper_title",
    "row_link",
    "seed_ranges",
    "seeds_text",
    "short_reference",
    "sorted_results",
    "statement_tex",
]
