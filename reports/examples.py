"""Regenerate the page images in ``reports/examples/``: the report's front page, its first table page and
its first figure page, as small PNGs (pdftoppm, from poppler-utils).

    python -m reports.examples                      # run every claim (quick profile, 2 jobs), then draw
    python -m reports.examples --from results.json  # from saved results

It writes the report to ``--out`` (default ``reports/out``) and compiles twice with pdflatex both its main
part (``main.tex``, at most :data:`MAX_MAIN_PAGES` pages) and the whole report with its appendix
(``full.tex``); it prints each page count and every overfull box over 1pt or undefined reference (exit 1
on any, or on a main part over its page bound), and renders the main part's three pages at the highest of
70, 60, 50 dpi that keeps each image under 150 KB. ``stamp.json`` beside the images records what they
show (the commit of the tree that drew them, whether it had uncommitted changes, the papers, the claim
count, the page counts); ``tests/test_examples.py`` fails when the images fall behind the tree.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from reports.build import PdfError, build_report, compile_pdf
from reports.document import main_tex

EXAMPLES = Path(__file__).resolve().parent / "examples"
#: The main part (front page, findings, every paper's table, figures and paragraphs) fits this many pages.
MAX_MAIN_PAGES = 25
MAX_BYTES = 150_000
DPIS = (70, 60, 50)


def label_page(folder: Path, prefix: str) -> int | None:
    """The page of the first label starting with ``prefix`` (``tab:``, ``fig:``) in ``main.aux``."""
    aux = (folder / "main.aux").read_text(errors="replace")
    m = re.search(r"\\newlabel\{" + re.escape(prefix) + r"[^}]*\}\{\{[^}]*\}\{(\d+)\}", aux)
    return int(m.group(1)) if m else None


def render(pdf: Path, page: int, target: Path) -> int:
    """``page`` of ``pdf`` as ``target`` (PNG) at the highest dpi of DPIS under MAX_BYTES; its size."""
    exe = shutil.which("pdftoppm")
    if exe is None:
        raise SystemExit("pdftoppm is not installed (apt-get install poppler-utils)")
    for dpi in DPIS:
        stem = target.with_suffix("")
        subprocess.run(
            [
                exe,
                "-r",
                str(dpi),
                "-png",
                "-f",
                str(page),
                "-l",
                str(page),
                "-singlefile",
                str(pdf),
                str(stem),
            ],
            check=True,
            timeout=120,
        )
        size = target.stat().st_size
        if size < MAX_BYTES:
            return size
    return size


#: The modules that draw the pages: images drawn before a change to one of them are behind the tree.
DRAWN_BY = (
    "reports/appendix.py",
    "reports/build.py",
    "reports/common.py",
    "reports/declarations.py",
    "reports/document.py",
    "reports/figures.py",
    "reports/findings.py",
    "reports/floats.py",
    "reports/front.py",
    "reports/guides.py",
    "reports/latex.py",
    "reports/legend.py",
    "reports/markdown.py",
    "reports/mathtext.py",
    "reports/order.py",
    "reports/panel_data.py",
    "reports/section.py",
    "reports/table.py",
    "reports/texnum.py",
    "reports/text.py",
    "reports/ticks.py",
    "reports/typeset.py",
)


def git_state(root: Path) -> tuple[str, bool] | None:
    """(HEAD commit, whether the tree has uncommitted changes) of the checkout at ``root``; None
    without git."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True, timeout=30
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root, capture_output=True, text=True, check=True, timeout=30,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return head, bool(dirty)


def write_stamp(
    dest: Path, results: Sequence, pages: dict[str, int], problems: int, state: tuple[str, bool] | None
) -> dict:
    """Write ``dest / "stamp.json"``: what the images show and from which tree (``state``, taken
    before anything was drawn: the images themselves are tracked files); ``pages``: the page count of
    ``main`` (the main part) and ``full`` (with the appendix)."""
    stamp = {
        "commit": state[0] if state else None,
        "dirty": state[1] if state else None,
        "papers": sorted({r.paper for r in results}),
        "claims": len(results),
        "pages": pages["main"],
        "pages_with_appendix": pages["full"],
        "problems": problems,
    }
    (dest / "stamp.json").write_text(json.dumps(stamp, indent=2) + "\n", encoding="utf-8")
    return stamp


def compile_both(out: Path) -> tuple[dict[str, int], list[str]]:
    """Compile ``main.tex`` (the main part) and ``full.tex`` (with the appendix) in ``out``; their page
    counts and the problems of both, each printed."""
    pages: dict[str, int] = {}
    problems: list[str] = []
    for name in ("main", "full"):
        try:
            pages[name], found = compile_pdf(out, f"{name}.tex")
        except PdfError as exc:
            raise SystemExit(str(exc)) from None
        print(
            f"{out / (name + '.pdf')}: {pages[name]} pages; {len(found)} overfull boxes over 1pt or "
            "undefined references"
        )
        problems += found
        for line in found:
            print(f"  {line}")
    return pages, problems


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m reports.examples", description=__doc__.split("\n\n")[0])
    p.add_argument("--from", dest="from_", metavar="RESULTS", help="saved results (default: run every claim)")
    p.add_argument("--out", default="reports/out", help="report folder (default reports/out)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes for the run (default 2)")
    p.add_argument("--examples", default=str(EXAMPLES), help="where the PNGs go (default reports/examples)")
    args = p.parse_args(argv)
    state = git_state(Path(__file__).resolve().parent.parent)
    from verify.core.parallel import run_claims
    from verify.core.provenance import finished, run_record
    from verify.core.registry import match_claims
    from verify.core.results import read_results_doc, write_results

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.from_:
        doc = read_results_doc(Path(args.from_))
        results, run, complete = doc.results, doc.run, doc.complete
    else:
        run, start = (
            run_record(profile="quick", seed=0, seeds=None, jobs=args.jobs, dask=None),
            time.monotonic(),
        )
        results = run_claims(match_claims([]), profile="quick", seed=0, jobs=args.jobs)
        run, complete = finished(run, wall_time=time.monotonic() - start, complete=True), True
        write_results(out / "results.json", results, "quick", 0, run=run)
    written = build_report(results, out, run=run, complete=complete)
    for note in written.notes:
        print(note, file=sys.stderr)
    papers = sorted({r.paper for r in results})
    (out / "full.tex").write_text(main_tex(papers, appendix=True), encoding="utf-8")
    pages, problems = compile_both(out)
    if pages["main"] > MAX_MAIN_PAGES:
        problems.append(f"the main part has {pages['main']} pages, more than {MAX_MAIN_PAGES}")
        print(f"  {problems[-1]}")
    first = papers[0]
    targets = {
        "front.png": 1,
        "table.png": label_page(out, f"tab:{first}") or 2,
        "figure.png": label_page(out, "fig:") or 2,
    }
    dest = Path(args.examples)
    dest.mkdir(parents=True, exist_ok=True)
    for name, page in targets.items():
        size = render(out / "main.pdf", page, dest / name)
        print(f"{dest / name}: page {page}, {size / 1000:.0f} KB")
    stamp = write_stamp(dest, results, pages, len(problems), state)
    print(
        f"{dest / 'stamp.json'}: {stamp['claims']} claims, commit {stamp['commit']}, dirty {stamp['dirty']}"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
