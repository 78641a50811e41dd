"""The run summary: per paper, claims about the paper by verdict, kept apart from consistency checks,
and violations split by attribution.

A violation of a claim whose provenance is the paper's own (EXACT, EXACT-from-reviews, THIRD-PARTY) is a
**finding** against the paper when it is robust to our choices (the same verdict over every admissible
value of each choice the claim declares, :mod:`verify.core.choices`; the default run judges every such
violation over them); one that is not robust, or whose robustness could not be judged, is **unsettled**:
listed with what decides it, never counted as a finding. A violation of a QUESTION claim (a reviewer's
question, not the paper's statement) is an **answer** to the reviewer; a violation of a DERIVED or
RECONSTRUCTED claim is a **reconstruction mismatch**: our reconstruction does not reproduce the paper's
statement, which is not evidence against the paper. Consistency checks (gradient checks, closed forms
against Monte Carlo, tautologies) test the code and are never counted as confirmations of a paper.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from verify.core.choices import depends_text
from verify.core.record import ClaimRecord, Result, Verdict


@dataclass
class PaperSummary:
    """Counts for one paper. verdicts: claims about the paper (not consistency checks) by verdict;
    findings / answers / mismatches: the ids of violated paper-own (robust) / referee-question /
    reconstruction claims; unsettled: violated paper-own claims not robust to our choices, or not judged
    over them; consistency: the consistency checks by verdict; robust / judged: claims
    about the paper whose verdict is robust to our choices / was judged over them
    (:mod:`verify.core.choices`)."""

    paper: str
    verdicts: Counter[str] = field(default_factory=Counter)
    findings: list[str] = field(default_factory=list)
    unsettled: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    consistency: Counter[str] = field(default_factory=Counter)
    robust: int = 0
    judged: int = 0

    @property
    def claims(self) -> int:
        return sum(self.verdicts.values())


def row_class(r: Result) -> str:
    """The class a result's row reads under, one word the terminal and the report both print: every
    QUESTION row is an ``answer`` to a referee (whatever its verdict); a violation of the paper's own
    statement is a ``finding`` (robust to our choices) or ``unsettled``; one of our reconstruction is
    a ``mismatch``; '' for a consistency check and any other row."""
    if r.attribution == "question":
        return "answer"
    if r.verdict != Verdict.VIOLATED or r.attribution == "consistency":
        return ""
    if r.attribution == "paper":
        return "finding" if r.robust is True else "unsettled"
    return "mismatch"


def summarise(results: list[Result]) -> list[PaperSummary]:
    """One :class:`PaperSummary` per paper, in paper order."""
    out: dict[str, PaperSummary] = {}
    for r in results:
        s = out.setdefault(r.paper, PaperSummary(r.paper))
        if r.attribution == "consistency":
            s.consistency[str(r.verdict)] += 1
            continue
        s.verdicts[str(r.verdict)] += 1
        s.robust += r.robust is True
        s.judged += r.robust is not None
        if r.verdict == Verdict.VIOLATED:
            mine = s.findings if r.robust is True else s.unsettled
            {"paper": mine, "question": s.answers}.get(r.attribution, s.mismatches).append(r.claim_id)
    return [out[k] for k in sorted(out)]


@dataclass(frozen=True)
class Readings:
    """Rival readings of one statement (claims sharing ``readings=``), each with its verdict.

    statement: the statement read; members: (claim id, provenance, verdict) in claim-id order."""

    statement: str
    members: tuple[tuple[str, str, str], ...]

    def _ids(self, *verdicts: str) -> list[str]:
        return [cid for cid, _, v in self.members if v in verdicts]

    @property
    def verdict_text(self) -> str:
        """Which reading the measurements support (holds), refute (violated), leave open (the rest)."""
        supported, refuted = self._ids("holds"), self._ids("violated")
        others = [f"{cid} ({v})" for cid, _, v in self.members if v not in ("holds", "violated")]
        parts = [
            "the measurements support " + (", ".join(supported) or "no reading at these sizes"),
            *(["refute " + ", ".join(refuted)] if refuted else []),
            *(["leave open " + ", ".join(others)] if others else []),
        ]
        return "; ".join(parts)


def readings(results: Sequence[Result], records: Mapping[str, ClaimRecord]) -> list[Readings]:
    """The groups of rival readings among ``results`` (two claims or more sharing ``readings=``)."""
    by: dict[str, list[Result]] = {}
    for r in sorted(results, key=lambda r: r.claim_id):
        rec = records.get(r.claim_id)
        if rec is not None and rec.readings:
            by.setdefault(rec.readings, []).append(r)
    return [
        Readings(text, tuple((r.claim_id, str(r.provenance), str(r.verdict)) for r in rs))
        for text, rs in by.items()
        if len(rs) > 1
    ]


def summary_table(results: list[Result], records: Mapping[str, ClaimRecord] | None = None) -> str:
    """The terminal summary: one row per paper (claims about the paper by verdict, findings,
    reconstruction mismatches, consistency checks apart), then the findings and the reconstruction
    mismatches by id, each on its own line; then each group of rival readings (``records`` given) with
    the reading the measurements support. A run that judged robustness (``--robust``) adds the column
    robust/judged."""
    verdicts = [str(v) for v in Verdict]
    judged = any(r.robust is not None for r in results)
    header = [
        "paper", *verdicts, "claims", "findings", "unsettled", "answers", "recon. mismatches",
        "consistency (holds/all)",
        *(["robust/judged"] if judged else []),
    ]  # fmt: skip
    rows = [
        [
            s.paper,
            *(str(s.verdicts[v]) for v in verdicts),
            str(s.claims),
            str(len(s.findings)),
            str(len(s.unsettled)),
            str(len(s.answers)),
            str(len(s.mismatches)),
            f"{s.consistency['holds']}/{sum(s.consistency.values())}",
            *([f"{s.robust}/{s.judged}"] if judged else []),
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
    by_id = {r.claim_id: r for r in results}
    unsettled = [_unsettled(by_id[c]) for s in by_paper for c in s.unsettled]
    answers = [c for s in by_paper for c in s.answers]
    mismatches = [c for s in by_paper for c in s.mismatches]
    table += [
        "",
        "findings against a paper's own statement (EXACT, EXACT-from-reviews, THIRD-PARTY), robust to our "
        "choices: " + (", ".join(findings) or "none"),
        *(
            ["violated, but not findings (a verdict decided by our own choices, or not judged over them):"]
            + [f"  {u}" for u in unsettled]
            if unsettled
            else []
        ),
        "answers to referee questions, not the papers' statements (QUESTION): "
        + (", ".join(answers) or "none"),
        "our reconstruction does not reproduce the paper (DERIVED, RECONSTRUCTED): "
        + (", ".join(mismatches) or "none"),
        "consistency checks (tests of the code, not confirmations of a paper) are counted apart",
    ]
    table += [f"rival readings of {g.statement}: {g.verdict_text}" for g in readings(results, records or {})]
    return "\n".join(table)


def _unsettled(r: Result) -> str:
    """An unsettled violation in words: its id and what decides it (or why it was not judged)."""
    if r.robust is False:
        return f"{r.claim_id}: " + "; ".join(depends_text(e, r.verdict) for e in r.depends_on)
    why = next((n for n in r.notes if n.startswith("robustness: not judged")), "robustness: not judged")
    return f"{r.claim_id}: {why}"


__all__ = ["PaperSummary", "Readings", "readings", "row_class", "summarise", "summary_table"]
