"""The run summary: per paper, claims about the paper by verdict, kept apart from consistency checks,
and violations split by attribution.

A violation of a claim whose provenance is the paper's own (EXACT, EXACT-from-reviews, THIRD-PARTY)
is a **finding** against the paper; a violation of a QUESTION claim (a reviewer's question, not the
paper's statement) is an **answer** to the reviewer; a violation of a DERIVED or RECONSTRUCTED claim is
a **reconstruction mismatch**: our reconstruction does not reproduce the paper's statement, which is not
evidence against the paper. Consistency checks (gradient checks, closed forms against Monte Carlo,
tautologies) test the code and are never counted as confirmations of a paper.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from verify.core.record import Result, Verdict


@dataclass
class PaperSummary:
    """Counts for one paper. verdicts: claims about the paper (not consistency checks) by verdict;
    findings / answers / mismatches: the ids of violated paper-own / referee-question /
    reconstruction claims; consistency: the consistency checks by verdict."""

    paper: str
    verdicts: Counter[str] = field(default_factory=Counter)
    findings: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    consistency: Counter[str] = field(default_factory=Counter)

    @property
    def claims(self) -> int:
        return sum(self.verdicts.values())


def summarise(results: list[Result]) -> list[PaperSummary]:
    """One :class:`PaperSummary` per paper, in paper order."""
    out: dict[str, PaperSummary] = {}
    for r in results:
        s = out.setdefault(r.paper, PaperSummary(r.paper))
        if r.attribution == "consistency":
            s.consistency[str(r.verdict)] += 1
            continue
        s.verdicts[str(r.verdict)] += 1
        if r.verdict == Verdict.VIOLATED:
            {"paper": s.findings, "question": s.answers}.get(r.attribution, s.mismatches).append(r.claim_id)
    return [out[k] for k in sorted(out)]


def summary_table(results: list[Result]) -> str:
    """The terminal summary: one row per paper (claims about the paper by verdict, findings,
    reconstruction mismatches, consistency checks apart), then the findings and the reconstruction
    mismatches by id, each on its own line."""
    verdicts = [str(v) for v in Verdict]
    header = [
        "paper", *verdicts, "claims", "findings", "answers", "recon. mismatches", "consistency (holds/all)"
    ]  # fmt: skip
    rows = [
        [
            s.paper,
            *(str(s.verdicts[v]) for v in verdicts),
            str(s.claims),
            str(len(s.findings)),
            str(len(s.answers)),
            str(len(s.mismatches)),
            f"{s.consistency['holds']}/{sum(s.consistency.values())}",
        ]
        for s in summarise(results)
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(r: list[str]) -> str:
        cells = zip(r, widths, strict=True)
        return "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(cells))

    table = [line(r) for r in [header, *rows]]
    by_paper = summarise(results)
    findings = [c for s in by_paper for c in s.findings]
    answers = [c for s in by_paper for c in s.answers]
    mismatches = [c for s in by_paper for c in s.mismatches]
    table += [
        "",
        "findings against a paper's own statement (EXACT, EXACT-from-reviews, THIRD-PARTY): "
        + (", ".join(findings) or "none"),
        "answers to referee questions, not the papers' statements (QUESTION): "
        + (", ".join(answers) or "none"),
        "our reconstruction does not reproduce the paper (DERIVED, RECONSTRUCTED): "
        + (", ".join(mismatches) or "none"),
        "consistency checks (tests of the code, not confirmations of a paper) are counted apart",
    ]
    return "\n".join(table)


__all__ = ["PaperSummary", "summarise", "summary_table"]
