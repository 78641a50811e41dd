"""``attncheck report``: the main part (the front page, the findings, and per paper its
theory-vs-experiment table, figures, answers to referee questions and reconstruction mismatches) and the
appendix (every row's details, the errata), each written as its own inputs; ``main.tex`` compiles on its
own (pdflatex) and includes the appendix only when asked."""

from __future__ import annotations

import datetime as _dt
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reports.appendix import appendix_tex, details_table, errata_tex
from reports.common import claim_name, label, sorted_results
from reports.document import main_tex
from reports.figures import caption_note, make_figures, worst_figures
from reports.findings import findings_section
from reports.floats import Panel, figures_tex
from reports.front import RunInfo, front_page, run_info, summary_table
from reports.section import paper_section
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
    """Every registered claim's record (for ``tex``, ``plot``, ``source`` and ``choices``)."""
    from verify.core.registry import registry

    return {cid: c.record for cid, c in registry().items()}


@dataclass
class Figures:
    """A paper's figure panels: of its claims about the paper and the worst-case figure (the main
    part's), and of its consistency checks (the appendix's)."""

    main: list[Panel] = field(default_factory=list)
    checks: list[Panel] = field(default_factory=list)


def panels_of(
    results: Sequence[Result], figs: Mapping[str, list], worst: Mapping[str, Path], out: Path
) -> tuple[dict[str, Figures], dict[str, list[str]]]:
    """Per paper its :class:`Figures` (each claim's panels in the paper's order, then the worst-case
    figure), and per claim the labels of its panels."""
    panels: dict[str, Figures] = {}
    refs: dict[str, list[str]] = {}
    for r in sorted_results(results):
        mine = panels.setdefault(r.paper, Figures())
        for i, (plot, path) in enumerate(figs.get(r.claim_id, [])):
            lab = label("fig", r.claim_id) + (f"-{i}" if i else "")
            title = f": {plot.title}" if plot.title else ""  # declared in LaTeX-compatible mathtext
            caption = rf"{claim_name(r.claim_id)}{title} ({escape(str(r.verdict).replace('_', ' '))})"
            note = caption_note(plot, r.series, r.measured)
            caption += f". {note[0].upper()}{note[1:]}" if note else ""
            panel = Panel(lab, path.relative_to(out).as_posix(), caption)
            (mine.checks if r.attribution == "consistency" else mine.main).append(panel)
            refs.setdefault(r.claim_id, []).append(lab)
    for paper, path in worst.items():
        caption = (
            "bounds stated for every input: typical ratio (random draws) and worst ratio found by the "
            "search, the bound at 1"
        )
        panel = Panel(label("fig", f"{paper}.worst"), path.relative_to(out).as_posix(), caption)
        panels.setdefault(paper, Figures()).main.append(panel)
    return panels, refs


def build_report(
    results: list[Result],
    out: Path,
    *,
    figures: bool = True,
    records: Mapping[str, ClaimRecord] | None = None,
    info: RunInfo | None = None,
    run: dict | None = None,
    complete: bool = True,
    appendix: bool = False,
) -> Written:
    """Write the main part (``front.tex``, ``summary.tex``, ``findings.tex``, ``<paper>.tex``), the
    appendix (``appendix.tex``, ``<paper>-details.tex``, ``<paper>-errata.tex``, ``<paper>-checks.tex``:
    the consistency checks' figures), the figures and ``main.tex`` into ``out``.

    records: claim id -> record (default: the registry) for the statements in LaTeX, the plot
    declarations, the sources quoted and the choices; info: the run recorded on the front page (default:
    from the results and ``run``, the run record of the results file, and the current UTC time);
    complete: False for the results of an interrupted run (the front page says so); appendix: whether
    ``main.tex`` includes the appendix (its files are written either way).
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
    panels, refs = panels_of(results, figs, worst, out)
    if not appendix:  # the consistency checks' panels are the appendix's: no reference into it
        checked = {r.claim_id for r in results if r.attribution == "consistency"}
        refs = {cid: labs for cid, labs in refs.items() if cid not in checked}
    names = sorted({r.paper for r in results})
    errata = {p: text for p in names if (text := companion(p))}
    checks = [p for p in names if p in panels and panels[p].checks]
    texts = {
        "summary.tex": summary_table(results),
        "front.tex": front_page(results, info),
        "findings.tex": findings_section(results, records, refs, complete=info.complete),
        "appendix.tex": appendix_tex(names, sorted(errata), checks),
    }
    for paper in names:
        rs = [r for r in results if r.paper == paper]
        mine = panels.get(paper, Figures())
        texts[f"{paper}.tex"] = paper_section(
            paper, rs, records, mine.main, refs,
            derivations=companion(paper, "derivations.md") is not None, appendix=appendix,
        )  # fmt: skip
        texts[f"{paper}-details.tex"] = details_table(paper, rs, records)
        if paper in errata:
            texts[f"{paper}-errata.tex"] = errata_tex(paper, errata[paper])
        if mine.checks:
            texts[f"{paper}-checks.tex"] = figures_tex(paper, mine.checks, checks=True)
    texts["main.tex"] = main_tex(names, appendix=appendix)
    for name, text in texts.items():
        path = out / name
        if path.resolve().parent != out.resolve():  # a report writes only inside `out`
            raise ValueError(f"paper name {name.removesuffix('.tex')!r} would write outside {out}")
        path.write_text(text, encoding="utf-8")
        written.files.append(path)
    written.files += [p for panels in figs.values() for _, p in panels] + list(worst.values())
    return written


#: How to get pdflatex where it is missing (the packages `.ci/run` installs).
PDFLATEX_HINT = (
    "install it (Debian/Ubuntu: apt-get install texlive-latex-base texlive-latex-recommended "
    "texlive-fonts-recommended; macOS: MacTeX)"
)


class PdfError(RuntimeError):
    """pdflatex is missing or failed; the message says which and what to do."""


def compile_pdf(folder: Path, name: str = "main.tex") -> tuple[int, list[str]]:
    """Compile ``folder / name`` twice with pdflatex (the second run resolves references); (pages,
    problems: overfull boxes over 1pt and undefined references). PdfError when pdflatex is not
    installed or fails."""
    exe = shutil.which("pdflatex")
    if exe is None:
        raise PdfError(f"pdflatex is not installed: {PDFLATEX_HINT}")
    stem = Path(name).stem
    for _ in range(2):
        proc = subprocess.run(
            [exe, "-interaction=nonstopmode", "-halt-on-error", name],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if proc.returncode != 0:
            raise PdfError(f"pdflatex failed on {folder / name} (see {folder / (stem + '.log')})")
    log = (folder / f"{stem}.log").read_text(errors="replace")
    pages = re.search(rf"Output written on {re.escape(stem)}\.pdf \((\d+) pages?", log)
    return int(pages.group(1)) if pages else 0, pdflatex_log_problems(log)


def pdflatex_log_problems(log: str, *, hbox_pt: float = 1.0) -> list[str]:
    """Overfull hboxes wider than ``hbox_pt``, undefined references and floats too large for their page
    (they run into the page number) in a pdflatex log."""
    bad = [m.group(0) for m in re.finditer(r"Overfull \\hbox \(([\d.]+)pt too wide\)[^\n]*", log)
           if float(m.group(1)) > hbox_pt]  # fmt: skip
    bad += re.findall(
        r"LaTeX Warning: (?:Reference|Hyper reference) `[^']+' on page \d+ undefined[^\n]*", log
    )
    bad += re.findall(r"LaTeX Warning: Float too large for page[^\n]*", log)
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
