"""``attncheck report``: tables, figures, errata and a ``main.tex`` that compiles on its own."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from reports.figures import make_figures
from reports.latex import escape, main_tex, markdown_notes, paper_table, summary_table
from verify.core.record import Result


@dataclass
class Written:
    main_tex: Path
    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def errata(paper: str) -> str | None:
    """The text of ``verify/<paper>/errata.md``, or None when the paper has none."""
    try:
        f = resources.files(f"verify.{paper}") / "errata.md"
        return f.read_text(encoding="utf-8") if f.is_file() else None
    except ModuleNotFoundError:
        return None


def build_report(results: list[Result], out: Path, *, figures: bool = True) -> Written:
    """Write ``summary.tex``, ``<paper>.tex`` (table + errata) per paper, figures and ``main.tex``."""
    out.mkdir(parents=True, exist_ok=True)
    written = Written(out / "main.tex")
    fig_paths: dict[str, Path] = {}
    if figures:
        fig_paths, note = make_figures(results, out)
        if note:
            written.notes.append(note)
    else:
        written.notes.append("figures skipped: --no-figures")
    papers = sorted({r.paper for r in results})
    fig_entries: dict[str, list[tuple[str, str, str]]] = {}
    for paper in papers:
        rs = [r for r in results if r.paper == paper]
        labels = {}
        for r in rs:
            if r.claim_id in fig_paths:
                label = "fig:" + r.claim_id.replace(".", "-")
                labels[r.claim_id] = label
                caption = f"{r.claim_id} ({r.reference}; {r.provenance}): {r.statement}"
                rel = fig_paths[r.claim_id].relative_to(out).as_posix()
                fig_entries.setdefault(paper, []).append((label, rel, caption))
        text = paper_table(paper, rs, labels)
        notes = errata(paper)
        if notes:
            text += rf"\subsubsection*{{Errata and provenance notes: \texttt{{{escape(paper)}}}}}" + "\n"
            text += markdown_notes(notes)
        path = out / f"{paper}.tex"
        if path.resolve().parent != out.resolve():  # a report writes only inside `out`
            raise ValueError(f"paper name {paper!r} would write outside {out}")
        path.write_text(text, encoding="utf-8")
        written.files.append(path)
    (out / "summary.tex").write_text(summary_table(results), encoding="utf-8")
    written.main_tex.write_text(main_tex(papers, fig_entries), encoding="utf-8")
    written.files += [out / "summary.tex", written.main_tex, *fig_paths.values()]
    return written
