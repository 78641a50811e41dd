"""LaTeX rendering of claim results: the front page, one theory-vs-experiment table per paper, the
figures' floats and the per-paper appendix of parameters, provenance and notes.

Every value goes through :mod:`reports.typeset` (one typographic style, in math mode) and every piece of
text through :mod:`reports.text` (escaped, its ASCII mathematics set as math). Rows follow the paper's
order (:func:`reports.order.reference_key`). Each row carries a label (``row:<claim>``) that the front
page's findings link to, and its details in the appendix carry ``det:<claim>``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reports.order import reference_key
from reports.texnum import tex_num
from reports.text import escape, markdown_notes, prose, sentence
from reports.typeset import DASH, measured_cell, param_value, tex_value, theory_cell
from verify.core.format import fmt_slack, shown
from verify.core.papers import PaperInfo, papers
from verify.core.record import ClaimRecord, Result, Verdict
from verify.core.summary import Readings, readings, summarise


def _info(paper: str) -> PaperInfo | None:
    """The installed paper plugin's metadata, or None (results of a paper not installed here)."""
    found = papers().get(paper)
    return found.info if found is not None else None


def paper_title(paper: str) -> str:
    """A section title from the paper's :class:`~verify.core.papers.PaperInfo`: authors (venue): subject."""
    info = _info(paper)
    return f"{info.authors} ({info.venue}): {info.short}" if info else paper


def bibliography(keys: Sequence[str]) -> str:
    """The papers of a report: authors, title, venue, arXiv id, and the claim-id prefix that keys them."""
    items = []
    for key in keys:
        info = _info(key)
        if info is None:
            items.append(rf"\item \texttt{{{escape(key)}}}: not installed here (no metadata).")
            continue
        items.append(
            rf"\item \texttt{{{escape(key)}}}: {escape(info.authors)}. \emph{{{escape(info.title)}}}. "
            rf"{escape(info.venue)}, arXiv:{escape(info.arxiv)}."
        )
    return "\n".join([r"{\small\begin{itemize}\setlength{\itemsep}{0pt}", *items, r"\end{itemize}}"])


VERDICT_ORDER = [str(v) for v in Verdict]
VERDICT_WORDS = {str(v): str(v).replace("_", " ") for v in Verdict}

#: Table columns (portrait A4, 1.5 cm margins, \tabcolsep 4pt): header, width.
COLUMNS = [
    ("claim", "2.7cm"),
    ("statement", "6.5cm"),
    ("theory", "2.0cm"),
    ("measured", "2.7cm"),
    ("verdict", "2.6cm"),
]
#: Figures per float: a grid of FIG_COLS x FIG_ROWS panels.
FIG_COLS, FIG_ROWS = 2, 4


def label(prefix: str, claim_id: str) -> str:
    """A LaTeX label for a claim: ``row:zhang2026-thm31-rate``."""
    return prefix + ":" + re.sub(r"[^A-Za-z0-9]+", "-", claim_id)


def claim_name(claim_id: str, *, paper: bool = False) -> str:
    """The claim id in typewriter, breakable after its dots (the paper prefix dropped unless asked)."""
    name = claim_id if paper else claim_id.split(".", 1)[-1]
    return r"\texttt{" + escape(name).replace(".", r".\allowbreak{}") + "}"


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


def sorted_results(results: Sequence[Result]) -> list[Result]:
    """Results in the paper's order (by section, then theorem; claim id as the stable fallback)."""
    return sorted(results, key=lambda r: (r.paper, reference_key(r.reference, r.claim_id)))


def seeds_text(seeds: Sequence[int]) -> str:
    """``0-2, 10-12`` for a seed list (ranges of consecutive seeds)."""
    seeds = sorted(set(int(s) for s in seeds))
    if not seeds:
        return DASH
    parts, start = [], seeds[0]
    for a, b in zip(seeds, [*seeds[1:], None], strict=True):
        if b != a + 1:
            parts.append(str(start) if start == a else f"{start}--{a}")
            start = b
    return ", ".join(parts)


def violation_word(r: Result) -> str:
    """What a violation of a claim about a paper is: a finding (the paper's own statement, robust to our
    choices), unsettled (the paper's own, not robust or not judged), an answer (a referee's question)
    or a mismatch (our reconstruction)."""
    if r.attribution == "paper":
        return "finding" if r.robust is True else "unsettled"
    return "answer" if r.attribution == "question" else "mismatch"


def _verdict_cell(r: Result) -> str:
    cell = VERDICT_WORDS.get(str(r.verdict), escape(r.verdict)) + (r"$^{\sim}$" if r.robust is False else "")
    if r.verdict in (Verdict.VIOLATED, Verdict.ERROR):
        cell = rf"\textbf{{{cell}}}"
    if r.verdict == Verdict.VIOLATED and r.attribution != "consistency":
        cell += r"\newline{\scriptsize " + violation_word(r) + "}"
    if not r.as_expected:
        cell += r"\newline{\scriptsize expected " + VERDICT_WORDS.get(str(r.expected), "") + "}"
    if r.robust is False:  # not robust to our choices: the choices that decide it (the notes say where)
        names = dict.fromkeys(e["choice"] for e in r.depends_on)
        cell += (
            r"\newline{\scriptsize depends on " + ", ".join(rf"\texttt{{{escape(n)}}}" for n in names) + "}"
        )
    return cell


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


def paper_table(
    paper: str,
    results: Sequence[Result],
    records: Mapping[str, ClaimRecord] | None = None,
    figure_refs: Mapping[str, list[str]] | None = None,
) -> str:
    """The theory-vs-experiment longtable of one paper, in the paper's order.

    records: claim id -> record (for ``tex``); figure_refs: claim id -> figure labels of its panels.
    """
    records = records or {}
    figure_refs = figure_refs or {}
    spec = "".join(rf">{{\raggedright\arraybackslash}}p{{{w}}}" for _, w in COLUMNS)
    head = _head(COLUMNS)
    lines = [
        r"{\footnotesize",
        r"\setlength{\tabcolsep}{4pt}",
        rf"\begin{{longtable}}{{{spec}}}",
        rf"\caption{{Theory against experiment, \texttt{{{escape(paper)}}}, in the paper's order: the "
        r"paper's bound, exponent, required size or pass window against the reference model's value (a "
        r"fitted slope with its 95\% interval; $k/n$ successes; the headline quantity of a claim with "
        r"several conditions). $^\dagger$\,consistency check (tests the code; counted apart). Parameters, "
        rf"provenance, slack and every note: Appendix~\ref{{{label('app', paper)}}}.}}"
        rf"\label{{{label('tab', paper)}}}\\",
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
        cid = (
            r"\phantomsection"
            + rf"\label{{{label('row', r.claim_id)}}}"
            + rf"\hyperref[{label('det', r.claim_id)}]{{{claim_name(r.claim_id)}}}"
        )
        if r.attribution == "consistency":
            cid += r"$^\dagger$"
        cid += r"\newline{\scriptsize " + prose(short_reference(r.reference))
        refs = figure_refs.get(r.claim_id, [])
        if refs:
            cid += "; Fig.~" + ", ".join(rf"\ref{{{f}}}" for f in refs)
        cid += "}"
        theory, measured = shown(r)
        what_t, what_m = _quantities(r)
        seeds = f"{len(r.seeds)} seed" + ("s" if len(r.seeds) != 1 else "")
        verdict = _verdict_cell(r) + rf"\newline{{\scriptsize {escape(r.provenance)}\newline {seeds}}}"
        cells = [
            cid, statement_tex(r, rec), _labelled(theory_cell(r, theory), what_t),
            _labelled(_measured(r, measured), what_m), verdict,
        ]  # fmt: skip
        lines.append(" & ".join(cells) + r" \\")
        lines.append(r"\addlinespace[1pt]")
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


def _params_text(params: Mapping[str, Any]) -> str:
    if not params:
        return DASH
    return "; ".join(rf"{prose(str(k))} $=$ {param_value(params[k])}" for k in sorted(params))


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
        notes = r.notes or ["(no notes)"]
        lines.append(r"\hspace*{1em}$\bullet$ " + r" $\bullet$ ".join(prose(n) for n in notes) + r" \\")
        lines.append(r"\addlinespace[3pt]")
    lines += [r"\end{longtable}", r"}"]
    return "\n".join(lines) + "\n"


def _source(records: Mapping[str, ClaimRecord] | None, claim_id: str) -> str:
    rec = (records or {}).get(claim_id)
    return rec.source if rec is not None else ""


def summary_table(results: Sequence[Result]) -> str:
    """Per paper: claims about the paper by verdict, findings, reconstruction mismatches, and the
    consistency checks apart (:func:`verify.core.summary.summarise`)."""
    summaries = summarise(list(results))
    cols = [v for v in VERDICT_ORDER if v != Verdict.ERROR or any(s.verdicts[v] for s in summaries)]
    spec = "l" + "r" * (len(cols) + 6)
    head = (
        "paper & "
        + " & ".join(VERDICT_WORDS[c].replace(" ", r"\newline ") for c in cols)
        + r" & claims & findings & un\-settled & answers & mis\-matches & checks \\"
    )
    lines = [
        r"\begin{center}",
        r"{\footnotesize\setlength{\tabcolsep}{3pt}",
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        rf"& \multicolumn{{{len(cols) + 1}}}{{c}}{{claims about the paper, by verdict}} "
        r"& \multicolumn{4}{c}{violations} & consistency \\",
        rf"\cmidrule(lr){{2-{len(cols) + 2}}}\cmidrule(lr){{{len(cols) + 3}-{len(cols) + 6}}}"
        rf"\cmidrule(lr){{{len(cols) + 7}-{len(cols) + 7}}}",
        head.replace(r"\newline ", " "),
        r"\midrule",
    ]
    tot: Counter[str] = Counter()
    nf = nu = na = nm = 0
    ch = Counter()
    for s in summaries:
        lines.append(
            rf"\texttt{{{escape(s.paper)}}} & "
            + " & ".join(str(s.verdicts[c]) for c in cols)
            + rf" & {s.claims} & {len(s.findings)} & {len(s.unsettled)} & {len(s.answers)} & "
            + rf"{len(s.mismatches)} & "
            + rf"{s.consistency['holds']}/{sum(s.consistency.values())} \\"
        )
        tot.update(s.verdicts)
        nf, nu = nf + len(s.findings), nu + len(s.unsettled)
        na, nm = na + len(s.answers), nm + len(s.mismatches)
        ch.update(s.consistency)
    lines += [
        r"\midrule",
        "all & "
        + " & ".join(str(tot[c]) for c in cols)
        + rf" & {sum(tot.values())} & {nf} & {nu} & {na} & {nm} & {ch['holds']}/{sum(ch.values())} \\",
        r"\bottomrule",
        r"\end{tabular}}",
        r"\end{center}",
    ]
    return "\n".join(lines) + "\n"


@dataclass
class RunInfo:
    """What the front page records about the run."""

    profile: str
    seeds: str
    versions: dict[str, str] = field(default_factory=dict)
    commit: str = "unknown"
    date: str = "unknown"
    wall_time: float = 0.0
    longest: tuple[str, float] | None = None
    claims: int = 0
    run: dict[str, Any] | None = None
    complete: bool = True


def run_info(
    results: Sequence[Result],
    *,
    commit: str = "unknown",
    date: str = "unknown",
    run: dict[str, Any] | None = None,
    complete: bool = True,
) -> RunInfo:
    """The run recorded by ``results`` (profile, seeds, library versions, claim time) and by its run
    record (:mod:`verify.core.provenance`: commit, command, machine, elapsed time, written when the run
    ran), and the date the report is written. Without a run record the commit is ``commit``."""
    if run is not None:
        commit = str(run.get("commit", "unknown")) + (
            " (with uncommitted changes)" if run.get("dirty") else ""
        )
    profiles = sorted({r.profile for r in results}) or ["--"]
    counts = Counter(len(r.seeds) for r in results)
    firsts = sorted({min(r.seeds) for r in results if r.seeds})
    seeds = "first seed " + ", ".join(str(s) for s in firsts) if firsts else DASH
    if counts:
        sizes = sorted(counts)
        seeds += (
            "; seed sets of "
            + (f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}")
            + " per claim"
        )
    versions: dict[str, Counter[str]] = {}
    for r in results:
        for k, v in r.versions.items():
            versions.setdefault(k, Counter())[v] += 1
    longest = max(((r.claim_id, r.wall_time) for r in results), key=lambda t: t[1], default=None)
    return RunInfo(
        profile=", ".join(profiles),
        seeds=seeds,
        versions={k: c.most_common(1)[0][0] for k, c in sorted(versions.items())},
        commit=commit,
        date=date,
        wall_time=sum(r.wall_time for r in results),
        longest=longest,
        claims=len(results),
        run=run,
        complete=complete and (run is None or bool(run.get("complete", True))),
    )


def _readings_section(results: Sequence[Result], records: Mapping[str, ClaimRecord]) -> list[str]:
    """Each group of rival readings of one statement, with the reading the measurements support."""
    groups = readings(results, records)
    if not groups:
        return []
    lines = [r"\section*{Rival readings}", r"{\small\begin{itemize}\setlength{\itemsep}{0pt}"]
    for g in groups:
        members = ", ".join(
            rf"\hyperref[{label('row', cid)}]{{{claim_name(cid, paper=True)}}} ({escape(prov)}, "
            rf"{VERDICT_WORDS.get(v, escape(v))})"
            for cid, prov, v in g.members
        )
        lines.append(rf"\item {sentence(g.statement)}: {members}. {sentence(g.verdict_text)}.")
    return [*lines, r"\end{itemize}}"]


def _finding_item(r: Result, record: ClaimRecord | None, *, statement: bool = True) -> str:
    theory, measured = shown(r)
    if isinstance(measured, bool):  # a qualitative claim: the numbers are in its first note
        number = f"Observed: {tex_value(measured)}" + (f" ({prose(r.notes[0])})." if r.notes else ".")
    else:
        number = f"Measured {measured_cell(r, measured)} against {theory_cell(r, theory)}."
        if r.verdict == Verdict.VACUOUS:
            number = f"Needs {theory_cell(r, theory)}; reachable {measured_cell(r, measured)}."
    if r.verdict == Verdict.INCONCLUSIVE and r.decision and r.decision.get("branch"):
        number += f" Why: {prose(str(r.decision['branch']))}."
    return (
        rf"\item \hyperref[{label('row', r.claim_id)}]{{{claim_name(r.claim_id, paper=True)}}} "
        rf"({prose(short_reference(r.reference))}, p.~\pageref{{{label('row', r.claim_id)}}}): "
        + (rf"{statement_tex(r, record)}. " if statement else "")
        + number
    )


def _run_rows(run: dict[str, Any] | None) -> list[str]:
    """The front page's rows of the run record (what ran, where, how long), or why there is none."""
    if run is None:
        return [r"run record & not in the results file (written before attncheck recorded its runs) \\"]
    m = run.get("machine") or {}
    machine = "; ".join(
        [str(m.get("platform", "?")), f"Python {m.get('python', '?')}", f"{m.get('cpus', '?')} CPUs",
         f"BLAS {m.get('blas', '?')}"]
    )  # fmt: skip
    seeds = (
        "each claim's own set from " + str(run.get("seed")) if run.get("seeds") is None else str(run["seeds"])
    )
    state = "complete" if run.get("complete") else r"\textbf{interrupted: a partial run}"
    return [
        rf"command & \texttt{{{escape(str(run.get('command', '?')))}}} \\",
        rf"attncheck & {escape(str(run.get('attncheck', '?')))}; seeds: {escape(seeds)} \\",
        rf"workers & {escape(str(run.get('jobs', '?')))} ({escape(str(run.get('backend', '?')))}) \\",
        rf"machine & {escape(machine)} \\",
        rf"started & {escape(str(run.get('started', '?')))}; "
        rf"elapsed {float(run.get('wall_time', 0.0)):.1f}\,s; {state} \\",
    ]


def front_page(
    results: Sequence[Result], info: RunInfo, records: Mapping[str, ClaimRecord] | None = None
) -> str:
    """The run, the summary per paper (\\input{summary.tex}) and the findings, linked to their rows."""
    records = records or {}
    versions = ", ".join(f"{escape(k)} {escape(v)}" for k, v in info.versions.items()) or DASH
    longest = (
        rf"; longest {claim_name(info.longest[0], paper=True)}, {info.longest[1]:.1f}\,s"
        if info.longest
        else ""
    )
    lines = [
        r"\begin{center}",
        r"{\LARGE attncheck: theory against experiment}\\[6pt]",
        r"{\large four papers on the convergence of shallow transformers trained by gradient descent}",
        r"\end{center}",
        r"\section*{The run}",
        r"\begin{center}\small",
        r"\begin{tabular}{>{\raggedright\arraybackslash}p{3.2cm}>{\raggedright\arraybackslash}p{12.8cm}}",
        r"\toprule",
        rf"profile & \texttt{{{escape(info.profile)}}} ({info.claims} claims) \\",
        rf"seeds & {escape(info.seeds)} \\",
        rf"library versions & {versions} \\",
        rf"commit & \texttt{{{escape(info.commit)}}} \\",
        *_run_rows(info.run),
        rf"report written & {escape(info.date)} \\",
        rf"claim time & {info.wall_time:.1f}\,s summed over the claims{longest} \\",
        r"\bottomrule",
        r"\end{tabular}",
        r"\end{center}",
        r"\section*{Summary per paper}",
        r"Claims about each paper by verdict; violations split into \emph{findings} (a statement of the "
        r"paper's own, EXACT, EXACT-from-reviews or THIRD-PARTY, is violated at every admissible value of "
        r"each choice of ours the claim declares), \emph{unsettled} violations of such statements (the "
        r"verdict changes with a choice of ours, or was not judged over them: not findings), "
        r"\emph{answers} to referee questions (QUESTION: asked by a reviewer, not stated by the paper) "
        r"and \emph{reconstruction "
        r"mismatches} (our DERIVED or RECONSTRUCTED form of it is: not evidence against the paper); "
        r"consistency checks test the code and are counted apart. A claim about a paper holds only on "
        r"evidence for it (a rate's 95\% interval inside its tolerance band, a probability's "
        r"Clopper--Pearson lower bound at or above its target, a bound at every seed) and is violated only "
        r"on evidence against it; in between it is inconclusive, with the reason listed below.",
        r"\input{summary.tex}",
        *_readings_section(results, records),
        r"\section*{The papers}",
        bibliography(sorted({r.paper for r in results})),
    ]
    if not info.complete:
        lines.insert(
            lines.index(r"\section*{Summary per paper}"),
            r"\begin{center}\fbox{\parbox{0.9\linewidth}{\textbf{A partial run.} The run was interrupted: "
            rf"these are the {info.claims} claims that finished; the lists below say nothing of the others."
            r"}}\end{center}",
        )
    none = "None." if info.complete else f"None among the {info.claims} claims that finished."
    ordered = sorted_results(results)
    sections = [
        ("Findings: the papers' own statements violated, robust to our choices", "paper", Verdict.VIOLATED),
        ("Violations decided by our choices (unsettled, not findings)", "unsettled", Verdict.VIOLATED),
        ("Answers to referee questions (not the papers' statements)", "question", Verdict.VIOLATED),
        ("Reconstruction mismatches", "reconstruction", Verdict.VIOLATED),
        ("Conditions beyond reach (vacuous)", None, Verdict.VACUOUS),
        ("Not decided at these sizes (inconclusive)", None, Verdict.INCONCLUSIVE),
    ]

    def kind_of(r: Result) -> str:  # a violation of the paper's own statement not robust is unsettled
        return "unsettled" if r.attribution == "paper" and r.robust is not True else r.attribution

    for title, attribution, verdict in sections:
        rows = [
            r
            for r in ordered
            if r.verdict == verdict
            and r.attribution != "consistency"
            and (attribution is None or kind_of(r) == attribution)
        ]
        lines.append(rf"\section*{{{title}}}")
        if not rows:
            lines.append(none)
            continue
        lines.append(r"{\small\begin{itemize}\setlength{\itemsep}{0pt}")
        lines += [
            _finding_item(r, records.get(r.claim_id), statement=verdict != Verdict.VACUOUS) for r in rows
        ]
        lines.append(r"\end{itemize}}")
    unexpected = [r for r in ordered if not r.as_expected]
    if not unexpected:
        lines += [
            r"\section*{Expectations}",
            f"Every verdict is the one its claim's record expects ({len(ordered)} of {len(ordered)}).",
        ]
    if unexpected:
        lines.append(r"\section*{Unexpected verdicts (the run exits 1)}")
        lines.append(r"{\small\begin{itemize}\setlength{\itemsep}{0pt}")
        for r in unexpected:
            lines.append(
                rf"\item \hyperref[{label('row', r.claim_id)}]{{{claim_name(r.claim_id, paper=True)}}} "
                rf"(p.~\pageref{{{label('row', r.claim_id)}}}): "
                rf"{VERDICT_WORDS.get(str(r.verdict), '')}, expected "
                rf"{VERDICT_WORDS.get(str(r.expected), '')}"
                + (f": {prose(r.notes[0])}" if r.notes else "")
                + "."
            )
        lines.append(r"\end{itemize}}")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Panel:
    """One figure panel: its label, the pdf path relative to ``out`` and its sub-caption (LaTeX)."""

    label: str
    path: str
    caption: str


def figures_tex(paper: str, panels: Sequence[Panel]) -> str:
    """The paper's panels in floats of FIG_COLS x FIG_ROWS subfigures."""
    per = FIG_COLS * FIG_ROWS
    out = []
    for start in range(0, len(panels), per):
        chunk = panels[start : start + per]
        out += [r"\begin{figure}[tbp]", r"\centering"]
        for i, p in enumerate(chunk):
            out += [
                r"\begin{subfigure}[t]{0.49\linewidth}",
                r"\centering",
                rf"\includegraphics[width=\linewidth]{{{p.path}}}",
                rf"\caption{{{p.caption}}}\label{{{p.label}}}",
                r"\end{subfigure}" + (r"\hfill" if i % FIG_COLS == 0 and i + 1 < len(chunk) else ""),
            ]
            if i % FIG_COLS == FIG_COLS - 1 and i + 1 < len(chunk):
                out.append(r"\par\medskip")
        more = " (continued)" if start else ""
        out += [
            rf"\caption{{\texttt{{{escape(paper)}}}{more}: theory (dashed line or shaded band) against "
            r"measurement (markers; a shaded band around them is the range over seeds).}",
            r"\end{figure}",
        ]
    return "\n".join(out) + "\n"


def paper_section(
    paper: str,
    results: Sequence[Result],
    records: Mapping[str, ClaimRecord] | None,
    panels: Sequence[Panel],
    figure_refs: Mapping[str, list[str]],
    errata: str | None,
    *,
    derivations: bool = False,
) -> str:
    """``<paper>.tex``: the section with the table, the figures and the errata; ``derivations``: the paper
    has ``verify/<paper>/derivations.md``, which the references "derivation Sect. N" cite."""
    text = rf"\section{{{escape(paper_title(paper))}}}\label{{{label('sec', paper)}}}" + "\n"
    if derivations:
        text += (
            r"{\raggedright References ``derivation Sect.~$N$'' cite our derivations and reconstructions for "
            r"this paper, "
            rf"\texttt{{verify/\allowbreak{{}}{escape(paper)}/\allowbreak{{}}derivations.md}} (shipped with "
            r"attncheck), not the paper.\par}" + "\n\n"
        )
    text += paper_table(paper, results, records, figure_refs)
    if panels:
        text += figures_tex(paper, panels)
    if errata:
        text += rf"\subsection*{{Errata and provenance notes: \texttt{{{escape(paper)}}}}}" + "\n"
        text += r"{\notesize\raggedright" + "\n" + markdown_notes(errata, env="compactlist") + r"\par}" + "\n"
    return text


PREAMBLE = r"""\documentclass[10pt,a4paper]{article}
\usepackage[utf8]{inputenc}
\usepackage[a4paper,margin=1.5cm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage{booktabs,longtable,array,graphicx,multicol}
\usepackage[font=small,labelfont=bf]{caption}
\usepackage{subcaption}
\usepackage[expansion=false]{microtype}
\usepackage[hidelinks]{hyperref}
\AtBeginDocument{\setlength{\LTcapwidth}{\textwidth}}
\renewcommand{\topfraction}{0.95}
\renewcommand{\bottomfraction}{0.9}
\renewcommand{\textfraction}{0.05}
\renewcommand{\floatpagefraction}{0.75}
\setcounter{topnumber}{3}
\setcounter{totalnumber}{4}
\setlength{\emergencystretch}{2em}
\setlength{\multicolsep}{4pt}
\setlength{\columnsep}{12pt}
\makeatletter\setlength{\@fptop}{0pt}\makeatother
\renewcommand{\labelitemi}{$\bullet$}
\newcommand{\notesize}{\fontsize{8}{9.6}\selectfont}
\newenvironment{compactlist}{\begin{list}{$\bullet$}{\setlength{\leftmargin}{1em}\setlength{\labelwidth}{0.6em}%
\setlength{\labelsep}{0.4em}\setlength{\itemsep}{1pt}\setlength{\parsep}{0pt}\setlength{\topsep}{2pt}}}{\end{list}}
\hypersetup{pdftitle={attncheck: theory against experiment}}
"""


def main_tex(papers: Sequence[str]) -> str:
    """A stand-alone document: the front page, one section per paper, the appendix of details."""
    lines = [PREAMBLE.rstrip("\n"), r"\begin{document}", r"\input{front.tex}", r"\clearpage"]
    lines += [rf"\input{{{p}.tex}}" for p in papers]
    lines += [
        r"\appendix",
        r"\section{Parameters, provenance and notes of every row}\label{app:details}",
        r"Keyed to the tables' rows (each claim links back to its row). Numbers in the notes are the "
        r"claims' own, set in the report's style.",
    ]
    lines += [rf"\input{{{p}-details.tex}}" for p in papers]
    lines.append(r"\end{document}")
    return "\n".join(lines) + "\n"


# kept for callers of the previous module: a value as LaTeX (math mode for numbers)
def num(value: Any) -> str:
    """A theory / measured value as LaTeX (:func:`reports.typeset.tex_value`)."""
    return tex_value(value)


__all__ = [
    "Panel",
    "RunInfo",
    "bibliography",
    "details_table",
    "escape",
    "figures_tex",
    "front_page",
    "main_tex",
    "markdown_notes",
    "num",
    "paper_section",
    "paper_table",
    "paper_title",
    "prose",
    "run_info",
    "sorted_results",
    "summary_table",
    "tex_num",
]
