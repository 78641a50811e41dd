"""``attncheck report``: the front page, one theory-vs-experiment table per paper with its figures and
errata, an appendix of every row's details, and a ``main.tex`` that compiles on its own (pdflatex)."""

from __future__ import annotations

import datetime as _dt
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from reports.figures import caption_note, make_figures, worst_figures
from reports.latex import (
    Panel,
    RunInfo,
    claim_name,
    details_table,
    front_page,
    label,
    main_tex,
    paper_section,
    run_info,
    sorted_results,
    summary_table,
)
from reports.text import escape
from verify.core.papers import papers
from verify.core.record import ClaimRecord, Result


@dataclass
class Written:
    main_tex: Path
    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def companion(paper: str, name: str = "errata.md") -> str | None:
    """The text of the file ``name`` shipped with installed paper ``paper`` (``errata.md``,
    ``derivations.md``), or None when absent or when no such paper is installed."""
    found = papers().get(paper)
    return found.companion(name) if found else None


def registered_records() -> dict[str, ClaimRecord]:
    """Every registered claim's record (for ``tex`` and ``plot``)."""
    from verify.core.registry import registry

    return {cid: c.record for cid, c in registry().items()}


def build_report(
    results: list[Result],
    out: Path,
    *,
    figures: bool = True,
    records: Mapping[str, ClaimRecord] | None = None,
    info: RunInfo | None = None,
    run: dict | None = None,
    complete: bool = True,
) -> Written:
    """Write ``front.tex``, ``summary.tex``, ``<paper>.tex`` and ``<paper>-details.tex`` per paper, the
    figures and ``main.tex`` into ``out``.

    records: claim id -> record (default: the registry) for the statements in LaTeX and the plot
    declarations; info: the run recorded on the front page (default: from the results and ``run``, the
    run record of the results file, and the current UTC time); complete: False for the results of an
    interrupted run (the front page says so).
    """
    out.mkdir(parents=True, exist_ok=True)
    records = registered_records() if records is None else records
    if info is None:
        now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        info = run_info(results, date=now, run=run, complete=complete)
    written = Written(out / "main.tex")
    figs: dict = {}
    worst: dict[str, Path] = {}
    if figures:
        figs, notes = make_figures(results, out, records)
        written.notes += notes
        worst = worst_figures(results, out)
    else:
        written.notes.append("figures skipped: --no-figures")
    papers = sorted({r.paper for r in results})
    for paper in papers:
        rs = sorted_results([r for r in results if r.paper == paper])
        panels: list[Panel] = []
        refs: dict[str, list[str]] = {}
        for r in rs:
            for i, (plot, path) in enumerate(figs.get(r.claim_id, [])):
                lab = label("fig", r.claim_id) + (f"-{i}" if i else "")
                title = f": {plot.title}" if plot.title else ""  # declared in LaTeX-compatible mathtext
                caption = rf"{claim_name(r.claim_id)}{title} ({escape(str(r.verdict).replace('_', ' '))})"
                note = caption_note(plot, r.series, r.measured)
                caption += f". {note[0].upper()}{note[1:]}" if note else ""
                panels.append(Panel(lab, path.relative_to(out).as_posix(), caption))
                refs.setdefault(r.claim_id, []).append(lab)
        if paper in worst:
            caption = (
                "bounds stated for every input: typical ratio (random draws) and worst ratio found by the "
                "search, the bound at 1"
            )
            panels.append(
                Panel(label("fig", f"{paper}.worst"), worst[paper].relative_to(out).as_posix(), caption)
            )
        for name, text in (
            (
                f"{paper}.tex",
                paper_section(
                    paper,
                    rs,
                    records,
                    panels,
                    refs,
                    companion(paper),
                    derivations=companion(paper, "derivations.md") is not None,
                ),
            ),
            (f"{paper}-details.tex", details_table(paper, rs, records)),
        ):
            path = out / name
            if path.resolve().parent != out.resolve():  # a report writes only inside `out`
                raise ValueError(f"paper name {paper!r} would write outside {out}")
            path.write_text(text, encoding="utf-8")
            written.files.append(path)
    (out / "summary.tex").write_text(summary_table(results), encoding="utf-8")
    (out / "front.tex").write_text(front_page(results, info, records), encoding="utf-8")
    written.main_tex.write_text(main_tex(papers), encoding="utf-8")
    written.files += [out / "summary.tex", out / "front.tex", written.main_tex]
    written.files += [p for panels in figs.values() for _, p in panels] + list(worst.values())
    return written


#: How to get pdflatex where it is missing (the packages `.ci/run` installs).
PDFLATEX_HINT = (
    "install it (Debian/Ubuntu: apt-get install texlive-latex-base texlive-latex-recommended "
    "texlive-fonts-recommended; macOS: MacTeX)"
)


class PdfError(RuntimeError):
    """pdflatex is missing or failed; the message says which and what to do."""


def compile_pdf(folder: Path) -> tuple[int, list[str]]:
    """Compile ``folder / "main.tex"`` twice with pdflatex (the second run resolves references);
    (pages, problems: overfull boxes over 1pt and undefined references). PdfError when pdflatex is
    not installed or fails."""
    exe = shutil.which("pdflatex")
    if exe is None:
        raise PdfError(f"pdflatex is not installed: {PDFLATEX_HINT}")
    for _ in range(2):
        proc = subprocess.run(
            [exe, "-interaction=nonstopmode", "-halt-on-error", "main.tex"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if proc.returncode != 0:
            raise PdfError(f"pdflatex failed on {folder / 'main.tex'} (see {folder / 'main.log'})")
    log = (folder / "main.log").read_text(errors="replace")
    pages = re.search(r"Output written on main\.pdf \((\d+) pages?", log)
    return int(pages.group(1)) if pages else 0, pdflatex_log_problems(log)


def pdflatex_log_problems(log: str, *, hbox_pt: float = 1.0) -> list[str]:
    """Overfull hboxes wider than ``hbox_pt`` and undefined references in a pdflatex log."""
    bad = [m.group(0) for m in re.finditer(r"Overfull \\hbox \(([\d.]+)pt too wide\)[^\n]*", log)
           if float(m.group(1)) > hbox_pt]  # fmt: skip
    bad += re.findall(
        r"LaTeX Warning: (?:Reference|Hyper reference) `[^']+' on page \d+ undefined[^\n]*", log
    )
    return bad


__all__ = [
    "PDFLATEX_HINT",
    "PdfError",
    "Written",
    "build_report",
    "companion",
    "compile_pdf",
    "pdflatex_log_problems",
    "registered_records",
]
