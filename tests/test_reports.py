"""The LaTeX report: golden files, the typography of every value type, escaping of notes, the claims'
statement and figure declarations, figures, and real pdflatex compiles (twice) that must give no
overfull box over 1pt, no undefined reference and a bounded page count."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import mpmath
import pytest

from reports.build import PdfError, build_report, compile_pdf, pdflatex_log_problems
from reports.declarations import load_series_keys, missing, plottable, unknown_keys
from reports.latex import paper_table, run_info
from reports.order import reference_key
from reports.texnum import tex_num
from reports.text import escape, markdown_notes, prose
from reports.typeset import measured_cell, tex_value, theory_cell
from tests.support import builtin_registry
from verify.cli import main, read_results
from verify.core.format import Count, fmt_value, shown
from verify.core.provenance import FIELDS as RUN_FIELDS
from verify.core.record import ClaimRecord, Kind, Plot, Provenance, Result, Verdict

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("ATTNCHECK_UPDATE_GOLDEN") == "1"
#: Papers whose every claim must declare ``tex`` and, when it records a plottable series, ``plot``
#: (``python -m reports.declarations <paper>`` lists what is missing).
STRICT_PAPERS = frozenset({"deora2023", "wu2023", "yang2024", "zhang2026"})
#: Page bounds: the golden toy report, a real quick run of a few claims (two papers' errata, set in one
#: column at 8 pt since the errata are read, not skimmed, and grown by the verdict-rule sections: 18
#: pages, from 8 at 6.4 pt in two columns).
#: reports/examples/README.md records the measured count of the full quick run of the four papers.
GOLDEN_PAGES = 4
REAL_PAGES = 24
REAL_CLAIMS = (
    "deora2023.gradbound",
    "deora2023.scaling.H",
    "deora2023.softmax",
    "deora2023.train.Hmono",
    "deora2023.mixture.margin.noisy",
    "deora2023.real.eps",
    "zhang2026.thm31.rate",
    "zhang2026.thm31.const",
    "zhang2026.thm31.bounds",
    "zhang2026.DeqK",
    "zhang2026.thm32.ood",
)

TOY_RECORDS = {
    "toy.rate": ClaimRecord(
        id="toy.rate",
        paper="toy",
        reference="Thm 2",
        kind=Kind.RATE,
        provenance=Provenance.RECONSTRUCTED,
        statement="y ~ x^-1/2",
        tex=r"$y(x)\sim x^{-1/2}$ as $x\to\infty$",
    ),
    "toy.upper": ClaimRecord(
        id="toy.upper",
        paper="toy",
        reference="Thm 1, Eq. (1)",
        kind=Kind.UPPER,
        provenance=Provenance.DERIVED,
        statement="x <= 1",
        tex=r"$x\le1$",
        plot=(
            Plot(
                x="t",
                curves=(("loss", "loss along the run"),),
                const=1.0,
                theory_label="bound (theory)",
                xlabel="step $t$",
                ylabel="loss",
            ),
        ),
    ),
}


def _golden_results() -> list[Result]:
    return read_results(GOLDEN / "results.json")


def _build(tmp_path: Path, *, figures: bool) -> Path:
    results = _golden_results()
    info = run_info(results, commit="abc1234", date="2026-01-01 00:00 UTC")
    build_report(results, tmp_path, figures=figures, records=TOY_RECORDS, info=info)
    return tmp_path


@pytest.fixture
def report_dir(tmp_path: Path) -> Path:
    return _build(tmp_path, figures=False)


@pytest.mark.parametrize(
    "name",
    ["main.tex", "front.tex", "summary.tex", "findings.tex", "toy.tex", "toy-details.tex", "appendix.tex"],
)
def test_golden_tex(report_dir: Path, name: str) -> None:
    """The generated .tex equals the committed golden file (ATTNCHECK_UPDATE_GOLDEN=1 rewrites it)."""
    got = (report_dir / name).read_text()
    golden = GOLDEN / "expected" / name
    if UPDATE:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(got)
    assert got == golden.read_text()


# --- typography: one style for every value type ------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "exact", "tex"),
    [
        (0.0915, False, "0.0915"),  # scalar, three significant digits
        (1.15470054, False, "1.15"),
        (2.42e-15, False, r"2.42\times10^{-15}"),
        (131072, False, r"131\,072"),  # small integer as such, grouped
        (64, False, "64"),
        (4.51e6, False, r"4.51\times10^{6}"),
        (-0.5, True, r"-\tfrac{1}{2}"),  # exponent: an exact fraction
        (-1.0, True, "-1"),
        (2.0, True, "2"),
        (0.9, True, "0.9"),  # a stated constant as written
        (1e-10, True, "10^{-10}"),
        (mpmath.mpf("1e400"), False, r"1.00\times10^{400}"),  # beyond float64
        (mpmath.mpf("-4e-400"), True, r"-4\times10^{-400}"),
        (float("nan"), False, r"\mathrm{NaN}"),
        (mpmath.inf, False, r"\infty"),
    ],
)
def test_number_typography(value, exact: bool, tex: str) -> None:
    assert tex_num(value, exact=exact) == tex


def test_value_typography_of_each_kind() -> None:
    assert tex_value(0.5) == "$0.500$"
    assert tex_value([0.98, 1.02], exact=True) == "$[0.98, 1.02]$"  # a pass window: an interval in math
    assert tex_value([0.5, 2.0], exact=True) == "$[0.5, 2]$"  # window ends as decimals, not 1/2
    fit = {"slope": -1.0132, "lo": -1.0191, "hi": -1.0073, "n": 8}
    assert tex_value(fit) == r"$-1.013\;[-1.019, -1.007]$"  # slope [lo, hi]
    assert tex_value(Count(19, 20)) == "$19/20$"  # k/n
    assert tex_value(None) == "--" and tex_value(True) == "yes"
    prob = Result(
        "toy.p", "toy", "-", Kind.PROBABILITY, Provenance.DERIVED, "s", "quick", {}, [0], 0.9, [19, 20], 2.0,
        Verdict.HOLDS, Verdict.HOLDS,
    )  # fmt: skip
    assert shown(prob)[1] == Count(19, 20) and fmt_value(shown(prob)[1]) == "19/20"  # the terminal too
    assert measured_cell(prob, [19, 20]) == "$19/20$" and theory_cell(prob, 0.9) == "$0.9$"


def test_an_error_row_prints_dashes_and_the_expected_verdict() -> None:
    crash = next(r for r in _golden_results() if r.claim_id == "toy.crash")
    row = next(line for line in paper_table("toy", [crash]).splitlines() if "toy-crash" in line)
    cells = row.split(" & ")
    assert cells[2:4] == ["--", "--"]
    assert r"\textbf{error}" in cells[4] and "expected holds" in cells[4]


def test_escaping_and_prose() -> None:
    assert escape("a_b & 50% $x$ #1 {y} ~^\\ <|>") == (
        r"a\_b \& 50\% \ensuremath{\$}x\ensuremath{\$} \#1 \{y\} \textasciitilde{}\textasciicircum{}"
        r"\textbackslash{} \textless{}\textbar{}\textgreater{}"
    )
    assert escape("≤ é ☃") == r"\ensuremath{\le} \'e ?"
    # carets, subscripts, Greek names, norms, relations and numbers of notes become math
    assert (
        prose("beta_2^2 <= 1.00e+41")
        == r"\ensuremath{\beta_{2}^{2}} \ensuremath{\le} \ensuremath{1.00\times10^{41}}"
    )
    assert prose("||A - S*||_F ~ T^-1/2") == (
        r"\ensuremath{\|}A - S*\ensuremath{\|_{F}} \ensuremath{\sim} \ensuremath{T^{-1/2}}"
    )
    assert prose("range(a)^2/4") == r"range(a)\ensuremath{^{2}}/4"
    # no Python reprs, comma-less arrays, doubled prefixes or literal carets reach the page
    cleaned = prose("inconclusive: inconclusive: np.float64(0.25) of [0.1 0.2 0.3] {'a': 1} x^2")
    assert cleaned.startswith(r"inconclusive: \ensuremath{0.25} of [\ensuremath{0.1}, \ensuremath{0.2}, ")
    assert (
        prose("slope -0.5002 at seeds 0-2") == r"slope \ensuremath{-0.5002} at seeds 0-2"
    )  # minus, not dash
    assert "np." not in cleaned and "'" not in cleaned and "^" not in cleaned.replace("^{", "")


def test_markdown_errata_subset() -> None:
    tex = markdown_notes("## Corrections\n- `tau0` was 1/2 & not 1\n  continued\n\nplain_text **bold**\n")
    assert r"\paragraph*{Corrections}" in tex
    assert r"\item \texttt{tau0} was 1/2 \& not 1" in tex
    assert r"\end{itemize}" in tex and r"\texttt{plain\_text} \textbf{bold}" in tex
    assert r"\begin{compactlist}" in markdown_notes("- a\n", env="compactlist")


def test_rows_follow_the_papers_order() -> None:
    refs = ["reviewer 1 Q3", "Lemma C.2", "Thm 3.1(c)", "Thm 3.1(a)(b)", "Examples 2.1-2.4", "Thm 3.2"]
    assert sorted(refs, key=reference_key) == [
        "Examples 2.1-2.4", "Thm 3.1(a)(b)", "Thm 3.1(c)", "Thm 3.2", "Lemma C.2", "reviewer 1 Q3",
    ]  # fmt: skip
    assert reference_key("derivation Sect. 3.3 (DERIVED replacement of Prop. 5)")[:2] == (1, (3, 3))
    ours = ["derivation Sect. 10", "derivation Sect. 9.2", "derivation Sect. 1.3"]
    assert sorted(ours, key=reference_key)[0] == "derivation Sect. 1.3"


# --- statement and figure declarations ---------------------------------------------------------------


def _records() -> dict[str, ClaimRecord]:
    return {cid: c.record for cid, c in builtin_registry().items()}


def test_strict_papers_declare_tex_and_plot() -> None:
    """Every claim of a strict paper states itself in LaTeX and declares a figure when it has a series."""
    no_tex, no_plot = missing(_records(), load_series_keys(), sorted(STRICT_PAPERS))
    assert not no_tex, f"claims without tex: {no_tex}"
    assert not no_plot, f"claims with a plottable series and no plot declaration: {no_plot}"


def test_the_series_snapshot_covers_the_strict_papers() -> None:
    keys = load_series_keys()
    ids = {cid for cid, r in _records().items() if r.paper in STRICT_PAPERS}
    assert ids <= set(keys), f"refresh tests/golden/series_keys.json: {sorted(ids - set(keys))}"
    assert plottable({"t": 3, "y": 3}) and not plottable({"t": 3}) and not plottable({"a": 1, "b": 1})


def test_declared_plots_read_recorded_series_and_legends_are_words() -> None:
    keys = load_series_keys()
    for cid, rec in _records().items():
        if not rec.plot:
            continue
        assert cid in keys, f"{cid}: declares a plot but the series snapshot has no entry"
        assert not unknown_keys(rec, keys[cid]), f"{cid}: plot reads unknown series keys"
        for p in rec.plot:
            assert p.xlabel and p.ylabel, f"{cid}: unlabelled axis"
            for text in [c.label for c in p.curves] + [p.theory_label]:
                outside_math = re.sub(r"\$[^$]*\$", "", text)
                assert text not in keys[cid] and "_" not in outside_math, f"{cid}: raw key in legend {text!r}"


def test_declarations_listing(capsys) -> None:
    from reports.declarations import main as declarations

    assert declarations(["deora2023", "zhang2026"]) == 0
    out = capsys.readouterr().out
    assert "claims without tex (0):" in out and "claims with a series but no plot (0):" in out


# --- figures and the terminal --------------------------------------------------------------------------


def test_figures_are_drawn_from_the_declaration_and_referenced(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    _build(tmp_path, figures=True)
    assert (tmp_path / "fig" / "toy_upper-0.pdf").exists()
    assert not (tmp_path / "fig" / "toy_rate-0.pdf").exists()  # no declaration, no figure
    assert r"\includegraphics" in (tmp_path / "toy.tex").read_text()
    assert r"Fig.~\ref{fig:toy-upper}" in (tmp_path / "toy.tex").read_text()


def test_searched_bounds_get_a_typical_vs_worst_figure_per_paper(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from reports.figures import worst_figures

    results = _golden_results()
    assert worst_figures(results, tmp_path) == {}  # no search, no figure
    w = {"ratio": 0.999, "typical": 0.4, "z": [0.0], "starts": 2, "evaluations": 9, "method": "L-BFGS-B"}
    searched = [dataclasses.replace(results[0], worst=w), *results[1:]]
    paths = worst_figures(searched, tmp_path)
    assert list(paths) == [results[0].paper] and paths[results[0].paper].stat().st_size > 0
    build_report(searched, tmp_path, figures=True, records=TOY_RECORDS)
    assert f"fig/{results[0].paper}-worst.pdf" in (tmp_path / f"{results[0].paper}.tex").read_text()


def test_figures_are_skipped_with_a_note_without_matplotlib(tmp_path: Path, monkeypatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("no matplotlib")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    written = build_report(_golden_results(), tmp_path, figures=True, records=TOY_RECORDS)
    assert any("figures skipped" in n for n in written.notes)
    assert r"\includegraphics" not in (tmp_path / "toy.tex").read_text()


def test_run_wide_prints_the_notes(toy_claims, capsys) -> None:
    assert main(["run", "toy.finding", "toy.upper", "--wide", "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    i = next(k for k, line in enumerate(out) if line.startswith("toy.finding"))
    assert out[i + 1].startswith("    - ") and "below the lower bound" in out[i + 1]


def test_cli_report_from_saved_results(tmp_path: Path, capsys, toy_claims) -> None:
    code = main(["report", "--from", str(GOLDEN / "results.json"), "--out", str(tmp_path), "--no-figures"])
    assert code == 1  # the golden file holds an error and an unexpected violation
    assert (tmp_path / "main.tex").exists() and (tmp_path / "front.tex").exists()
    assert main(["report", "--from", str(tmp_path / "missing.json")]) == 2


def test_the_run_is_recorded_when_it_runs_and_printed_from_the_file(tmp_path: Path, toy_claims) -> None:
    out = tmp_path / "r.json"
    assert main(["run", "toy.upper", "toy.rate", "--json", str(out), "--quiet", "--seed", "4"]) == 0
    doc = json.loads(out.read_text())
    run = doc["run"]
    assert set(run) == set(RUN_FIELDS) and run["complete"] is True and run["profile"] == "quick"
    assert run["command"] == f"attncheck run toy.upper toy.rate --json {out} --quiet --seed 4"
    assert run["seed"] == 4 and run["jobs"] == 1 and run["backend"] == "serial" and run["wall_time"] > 0
    assert len(run["commit"]) in (40, len("unknown")) and run["machine"]["cpus"] >= 1
    report = tmp_path / "rep"
    assert main(["report", "--from", str(out), "--out", str(report), "--no-figures"]) == 0
    front = (report / "front.tex").read_text()
    assert run["started"] in front and r"\texttt{attncheck run toy.upper" in front and "partial" not in front
    doc["complete"], doc["run"]["complete"] = False, False  # as an interrupted run writes it
    out.write_text(json.dumps(doc))
    assert main(["report", "--from", str(out), "--out", str(report), "--no-figures"]) == 0
    front = (report / "front.tex").read_text()
    assert "A partial run." in front
    assert "None among the 2 claims that finished." in (report / "findings.tex").read_text()


# --- pdflatex ----------------------------------------------------------------------------------------


def _pdflatex() -> str:
    exe = shutil.which("pdflatex")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("pdflatex missing under CI: .ci/run must install it")
        pytest.skip("pdflatex not installed (`.ci/run` installs it)")
    return exe


def _compile(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_pdflatex(), "-interaction=nonstopmode", "-halt-on-error", "main.tex"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=180,
    )


def _compile_twice(folder: Path) -> tuple[str, int]:
    """(log of the second run, pages) of :func:`reports.build.compile_pdf`; fails on a LaTeX error."""
    _pdflatex()
    try:
        pages, _ = compile_pdf(folder)
    except PdfError as exc:
        pytest.fail(f"{exc}\n{(folder / 'main.log').read_text(errors='replace')[-3000:]}")
    log = (folder / "main.log").read_text(errors="replace")
    assert pages > 0, log[-2000:]
    return log, pages


def test_golden_report_compiles_cleanly(tmp_path: Path) -> None:
    _pdflatex()
    _build(tmp_path, figures=True)
    log, pages = _compile_twice(tmp_path)
    assert not pdflatex_log_problems(log), pdflatex_log_problems(log)
    assert "There were undefined references" not in log
    assert pages <= GOLDEN_PAGES


def test_real_quick_run_compiles_cleanly(tmp_path: Path) -> None:
    """A real quick run of claims of deora2023 and zhang2026 (figures, k/n, a vacuous condition, a
    violated reconstruction, headline quantities) compiles twice with no overfull box over 1pt, no
    undefined reference and at most REAL_PAGES pages."""
    _pdflatex()
    pytest.importorskip("matplotlib")
    from tests.support import cached_runs
    from verify.core.registry import match_claims

    results = cached_runs(c.id for c in match_claims(REAL_CLAIMS))  # the session's default runs
    written = build_report(results, tmp_path, figures=True, appendix=True)  # the errata typeset too
    assert not [n for n in written.notes if "lack the declared keys" in n or "draws none" in n], written.notes
    figs = sorted(p.name for p in (tmp_path / "fig").glob("*.pdf"))
    assert len(figs) >= 8 and "deora2023-worst.pdf" in figs, figs
    assert "deora2023-worst.pdf" in (tmp_path / "deora2023.tex").read_text()
    log, pages = _compile_twice(tmp_path)
    assert not pdflatex_log_problems(log), pdflatex_log_problems(log)
    assert "There were undefined references" not in log
    assert pages <= REAL_PAGES
    if shutil.which("pdftotext"):  # the errata's markdown is typeset, never printed as syntax
        text = subprocess.run(
            ["pdftotext", str(tmp_path / "main.pdf"), "-"], capture_output=True, text=True
        ).stdout
        leftovers = [m for m in ("|---", "**", "`") if m in text]
        assert not leftovers, f"markdown syntax in the PDF: {leftovers}"
    front = (tmp_path / "front.tex").read_text() + (tmp_path / "findings.tex").read_text()
    assert "cannot be improved" not in front and "slows down with" not in front  # issue 24's known cases
    section = (tmp_path / "zhang2026.tex").read_text()
    assert "Where our reconstruction does not reproduce the paper" in section
    assert r"\hyperref[row:zhang2026-thm31-bounds]" in section.split("Where our reconstruction")[1]


def test_a_broken_table_does_not_compile(report_dir: Path) -> None:
    """The compile test can fail: an unescaped underscore in a table breaks pdflatex."""
    table = report_dir / "toy.tex"
    text = table.read_text()
    assert r"\textbf{claim}" in text
    table.write_text(text.replace(r"\textbf{claim}", r"\textbf{claim_id}", 1))
    assert _compile(report_dir).returncode != 0


def test_log_problems_are_found() -> None:
    log = (
        "Overfull \\hbox (0.5pt too wide) in paragraph\n"
        "Overfull \\hbox (12.3pt too wide) in alignment at lines 4--8\n"
        "LaTeX Warning: Reference `row:x' on page 3 undefined on input line 7.\n"
    )
    problems = pdflatex_log_problems(log)
    assert len(problems) == 2 and "12.3pt" in problems[0] and "row:x" in problems[1]


def test_results_and_records_stay_consistent() -> None:
    """A record's new fields have defaults: old records and results files still load."""
    rec = ClaimRecord("a.b", "a", "-", Kind.UPPER, Provenance.DERIVED, "s")
    assert rec.tex == "" and rec.plot == () and rec.as_dict()["plot"] == []
    assert dataclasses.replace(rec, tex="$x$").as_dict()["tex"] == "$x$"
    assert math.isclose(_golden_results()[0].slack, -0.3010299956639812)


def test_rival_readings_print_as_one_row_group_with_what_the_measurements_support() -> None:
    """Claims reading one statement differently (``readings=``) stand together under a heading row in
    the paper's table; the front page and the terminal summary say which reading the measurements
    support, refute or leave open."""
    from reports.latex import findings_section
    from verify.core.summary import summary_table

    ids = ("toy.upper", "toy.finding", "toy.vacuous")
    results = [r for r in _golden_results() if r.claim_id in (*ids, "toy.rate")]
    assert {r.claim_id: str(r.verdict) for r in results if r.claim_id in ids} == {
        "toy.upper": "holds", "toy.finding": "violated", "toy.vacuous": "vacuous"
    }  # fmt: skip
    records = {
        cid: dataclasses.replace(TOY_RECORDS["toy.upper"], id=cid, readings="the toy's order") for cid in ids
    }
    said = "the measurements support toy.upper; refute toy.finding; leave open toy.vacuous (vacuous)"
    lines = paper_table("toy", results, records).splitlines()
    head = next(i for i, line in enumerate(lines) if "Rival readings of the toy's order" in line)
    rows = [line for line in lines[head + 1 :] if r"\label{row:" in line][:3]
    assert {re.search(r"row:toy-(\w+)", line).group(1) for line in rows} == {"upper", "finding", "vacuous"}
    assert said in lines[head].replace(r"\allowbreak{}", "")
    assert r"\subsection*{Rival readings}" in findings_section(results, records, {})
    assert f"rival readings of the toy's order: {said}" in summary_table(results, records)
    assert "rival readings" not in summary_table(results)  # no records: no groups


# --- what `attncheck report` says about the PDF ---------------------------------------------------


def _report_line(capsys, *extra: str, out: Path) -> tuple[int, str]:
    code = main(["report", "--from", str(GOLDEN / "results.json"), "--out", str(out), "--no-figures", *extra])
    return code, capsys.readouterr().err.strip().splitlines()[-1]


def test_the_report_says_no_pdf_was_made_and_how_to_get_pdflatex(
    tmp_path: Path, capsys, monkeypatch, toy_claims
) -> None:
    """Without ``--pdf``, or with it and no pdflatex, the last line names main.tex, says no PDF was
    made, and how to get one; a missing pdflatex changes no exit status (the golden run's is 1)."""
    code, line = _report_line(capsys, out=tmp_path / "a")
    assert code == 1 and line.startswith(f"report written to {tmp_path / 'a' / 'main.tex'}; no PDF made")
    assert "`--pdf` compiles it" in line
    monkeypatch.setattr("shutil.which", lambda name: None)
    code, line = _report_line(capsys, "--pdf", out=tmp_path / "b")
    assert code == 1 and "no PDF made (--pdf; pdflatex is not installed: install it (Debian" in line
    assert not (tmp_path / "b" / "main.pdf").exists()


def test_report_pdf_compiles_main_tex(tmp_path: Path, capsys, toy_claims) -> None:
    _pdflatex()
    code, line = _report_line(capsys, "--pdf", out=tmp_path)
    assert code == 1 and (tmp_path / "main.pdf").is_file(), line
    assert line.startswith(f"report written to {tmp_path / 'main.tex'} and {tmp_path / 'main.pdf'} (")
