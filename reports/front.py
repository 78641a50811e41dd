"""The report's front page: what was run and where (recorded at run time: commit, command, machine and
BLAS, seed sets, profile, run time) and the summary counts per paper."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from reports.common import VERDICT_WORDS, claim_name, info, seeds_text
from reports.text import escape
from reports.typeset import DASH
from verify.core.record import Result, Verdict
from verify.core.summary import summarise


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


def seed_sets(results: Sequence[Result]) -> str:
    """The seed sets the claims ran on, as ranges, most used first: ``0--2 (84 claims); 0--49 (3
    claims)`` (LaTeX)."""
    counts = Counter(seeds_text(r.seeds) for r in results if r.seeds)
    if not counts:
        return DASH
    return "; ".join(
        f"{s} ({n} claim{'s' if n != 1 else ''})"
        for s, n in sorted(counts.items(), key=lambda t: (-t[1], t[0]))
    )


def run_info(
    results: Sequence[Result],
    *,
    commit: str = "unknown",
    date: str = "unknown",
    run: dict[str, Any] | None = None,
    complete: bool = True,
) -> RunInfo:
    """The run recorded by ``results`` (profile, seed sets, library versions, claim time) and by its run
    record (:mod:`verify.core.provenance`: commit, command, machine, elapsed time, written when the run
    ran), and the date the report is written. Without a run record the commit is ``commit``."""
    if run is not None:
        commit = str(run.get("commit", "unknown")) + (
            " (with uncommitted changes)" if run.get("dirty") else ""
        )
    versions: dict[str, Counter[str]] = {}
    for r in results:
        for k, v in r.versions.items():
            versions.setdefault(k, Counter())[v] += 1
    longest = max(((r.claim_id, r.wall_time) for r in results), key=lambda t: t[1], default=None)
    return RunInfo(
        profile=", ".join(sorted({r.profile for r in results}) or ["--"]),
        seeds=seed_sets(results),
        versions={k: c.most_common(1)[0][0] for k, c in sorted(versions.items())},
        commit=commit,
        date=date,
        wall_time=sum(r.wall_time for r in results),
        longest=longest,
        claims=len(results),
        run=run,
        complete=complete and (run is None or bool(run.get("complete", True))),
    )


def summary_table(results: Sequence[Result]) -> str:
    """Per paper: claims about the paper by verdict, the violations by class (findings, unsettled,
    answers, mismatches), and the consistency checks apart (:func:`verify.core.summary.summarise`)."""
    summaries = summarise(list(results))
    cols = [str(v) for v in Verdict if v != Verdict.ERROR or any(s.verdicts[v] for s in summaries)]
    head = (
        "paper & "
        + " & ".join(VERDICT_WORDS[c] for c in cols)
        + r" & claims & findings & un\-settled & answers & mis\-matches & checks \\"
    )
    lines = [
        r"\begin{center}",
        r"{\footnotesize\setlength{\tabcolsep}{3pt}",
        rf"\begin{{tabular}}{{l{'r' * (len(cols) + 6)}}}",
        r"\toprule",
        rf"& \multicolumn{{{len(cols) + 1}}}{{c}}{{claims about the paper, by verdict}} "
        r"& \multicolumn{4}{c}{violations} & consistency \\",
        rf"\cmidrule(lr){{2-{len(cols) + 2}}}\cmidrule(lr){{{len(cols) + 3}-{len(cols) + 6}}}"
        rf"\cmidrule(lr){{{len(cols) + 7}-{len(cols) + 7}}}",
        head,
        r"\midrule",
    ]

    def row(name: str, verdicts: Counter[str], classes: Sequence[int], checks: Counter[str]) -> str:
        cells = [name, *(str(verdicts[c]) for c in cols), str(sum(verdicts.values())), *map(str, classes)]
        return " & ".join(cells) + rf" & {checks['holds']}/{sum(checks.values())} \\"

    total: Counter[str] = Counter()
    checks: Counter[str] = Counter()
    classes = [0, 0, 0, 0]
    for s in summaries:
        mine = [len(s.findings), len(s.unsettled), len(s.answers), len(s.mismatches)]
        lines.append(row(rf"\texttt{{{escape(s.paper)}}}", s.verdicts, mine, s.consistency))
        total.update(s.verdicts)
        checks.update(s.consistency)
        classes = [a + b for a, b in zip(classes, mine, strict=True)]
    lines += [
        r"\midrule",
        row("all", total, classes, checks),
        r"\bottomrule",
        r"\end{tabular}}",
        r"\end{center}",
    ]
    return "\n".join(lines) + "\n"


def bibliography(keys: Sequence[str]) -> str:
    """The papers of a report: authors, title, venue, arXiv id, and the claim-id prefix that keys them."""
    items = []
    for key in keys:
        meta = info(key)
        if meta is None:
            items.append(rf"\item \texttt{{{escape(key)}}}: not installed here (no metadata).")
            continue
        items.append(
            rf"\item \texttt{{{escape(key)}}}: {escape(meta.authors)}. \emph{{{escape(meta.title)}}}. "
            rf"{escape(meta.venue)}, arXiv:{escape(meta.arxiv)}."
        )
    return "\n".join([r"{\small\begin{itemize}\setlength{\itemsep}{0pt}", *items, r"\end{itemize}}"])


def _run_rows(run: dict[str, Any] | None) -> list[str]:
    """The rows of the run record (what ran, where, how long), or why there is none."""
    if run is None:
        return [r"run record & not in the results file (written before attncheck recorded its runs) \\"]
    m = run.get("machine") or {}
    machine = "; ".join(
        [str(m.get("platform", "?")), f"Python {m.get('python', '?')}", f"{m.get('cpus', '?')} CPUs",
         f"BLAS {m.get('blas', '?')}"]
    )  # fmt: skip
    state = "complete" if run.get("complete") else r"\textbf{interrupted: a partial run}"
    chosen = "each claim's own set" if run.get("seeds") is None else f"--seeds {run['seeds']}"
    return [
        rf"command & \texttt{{{escape(str(run.get('command', '?')))}}} \\",
        rf"attncheck & {escape(str(run.get('attncheck', '?')))}; seeds: {escape(chosen)}, "
        rf"from {escape(str(run.get('seed')))} \\",
        rf"workers & {escape(str(run.get('jobs', '?')))} ({escape(str(run.get('backend', '?')))}) \\",
        rf"machine & {escape(machine)} \\",
        rf"started & {escape(str(run.get('started', '?')))}; "
        rf"elapsed {float(run.get('wall_time', 0.0)):.1f}\,s; {state} \\",
    ]


#: What the summary's columns count.
CLASSES = (
    r"Claims about each paper by verdict; violations by class: \emph{findings} (a statement of the "
    r"paper's own, EXACT, EXACT-from-reviews or THIRD-PARTY, violated at every admissible value of each "
    r"choice of ours the claim declares), \emph{unsettled} violations of such statements (the verdict "
    r"changes with a choice of ours, or was not judged over them: not findings), \emph{answers} to "
    r"referee questions (QUESTION: asked by a reviewer, not stated by the paper) and \emph{mismatches} "
    r"of our reconstruction (its DERIVED or RECONSTRUCTED form is violated: not evidence against the "
    r"paper); consistency checks test the code and are counted apart. A claim holds only on evidence for "
    r"it (a rate's 95\% interval inside its tolerance band, a probability's Clopper--Pearson lower bound "
    r"at or above its target, a bound at every seed) and is violated only on evidence against it; in "
    r"between it is inconclusive."
)


def count_words(n: int) -> str:
    """``n`` papers in words (one to ten, else digits): the title of the front page."""
    words = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    return f"{words[n - 1] if 1 <= n <= len(words) else n} paper{'s' if n != 1 else ''}"


def front_page(results: Sequence[Result], run: RunInfo) -> str:
    """The title, the run (:class:`RunInfo`), the summary per paper (``\\input{summary.tex}``) and the
    papers."""
    versions = ", ".join(f"{escape(k)} {escape(v)}" for k, v in run.versions.items()) or DASH
    longest = (
        rf"; longest {claim_name(run.longest[0], paper=True)}, {run.longest[1]:.1f}\,s" if run.longest else ""
    )
    lines = [
        r"\begin{center}",
        r"{\LARGE attncheck: theory against experiment}\\[6pt]",
        rf"{{\large {count_words(len({r.paper for r in results}))} on the convergence of shallow "
        r"transformers trained by gradient descent}",
        r"\end{center}",
        r"\section*{The run}",
        r"\begin{center}\small",
        r"\begin{tabular}{>{\raggedright\arraybackslash}p{3.2cm}>{\raggedright\arraybackslash}p{12.8cm}}",
        r"\toprule",
        rf"profile & \texttt{{{escape(run.profile)}}} ({run.claims} claims) \\",
        rf"seed sets & {run.seeds} \\",
        rf"library versions & {versions} \\",
        rf"commit & \texttt{{{escape(run.commit)}}} \\",
        *_run_rows(run.run),
        rf"report written & {escape(run.date)} \\",
        rf"claim time & {run.wall_time:.1f}\,s summed over the claims{longest} \\",
        r"\bottomrule",
        r"\end{tabular}",
        r"\end{center}",
    ]
    if not run.complete:
        lines.append(
            r"\begin{center}\fbox{\parbox{0.9\linewidth}{\textbf{A partial run.} The run was interrupted: "
            rf"these are the {run.claims} claims that finished; the lists below say nothing of the others."
            r"}}\end{center}"
        )
    lines += [
        r"\section*{Summary per paper}",
        CLASSES,
        r"\input{summary.tex}",
        r"\section*{The papers}",
        bibliography(sorted({r.paper for r in results})),
    ]
    return "\n".join(lines) + "\n"


__all__ = ["RunInfo", "bibliography", "front_page", "run_info", "seed_sets", "summary_table"]
