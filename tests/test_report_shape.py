"""The report's shape: the findings first, the appendix only when asked, seed sets printed as ranges, a
referee question's row an answer in the table, on the front page and on the terminal, the dagger of a
consistency check only where the result says so, and the main part of a full quick run of the four
papers within 25 pages."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest

from reports.appendix import details_table
from reports.build import build_report, compile_pdf
from reports.common import seed_ranges, seeds_text
from reports.examples import MAX_MAIN_PAGES
from reports.findings import findings_section, paper_quote
from reports.front import front_page, run_info, summary_table
from reports.section import answers_paragraph, mismatch_paragraph
from reports.table import paper_table
from verify.cli import main, results_table
from verify.core.record import Choice, ClaimRecord, Kind, Provenance, Result, Verdict
from verify.core.results import read_results_doc
from verify.core.summary import row_class
from verify.core.summary import summary_table as terminal_summary

GOLDEN = Path(__file__).parent / "golden"
#: A full default run of every claim of the four papers (quick profile, seed 0), its per-seed values
#: dropped (the report does not read them); `python -m verify run --json` writes such a file.
FULL_RUN = GOLDEN / "quick-full.json"


def _result(claim_id: str, provenance: Provenance, verdict: Verdict, **fields) -> Result:
    base = Result(
        claim_id, claim_id.split(".")[0], "Thm 1; reviewer question", Kind.UPPER, provenance, "x <= 1",
        "quick", {}, [0, 1, 2], 1.0, 2.0, -0.3, verdict, verdict,
    )  # fmt: skip
    return dataclasses.replace(base, **fields)


QUESTION = _result("toy.tight", Provenance.QUESTION, Verdict.VIOLATED)
RECON = _result("toy.recon", Provenance.RECONSTRUCTED, Verdict.VIOLATED)


def test_seed_lists_print_as_ranges() -> None:
    assert seeds_text(range(50)) == "0--49"
    assert seeds_text([*range(1000, 1010), 1020]) == "1000--1009, 1020"
    assert seeds_text([3]) == "3" and seeds_text([]) == "--"
    assert (
        seed_ranges("0/9 configurations over seeds [0, 1, 2, 5]")
        == "0/9 configurations over seeds 0\u20132, 5"
    )
    assert seed_ranges("the slope [0.1, 0.2]") == "the slope [0.1, 0.2]"  # not a seed list
    fifty = list(range(50))
    r = dataclasses.replace(QUESTION, seeds=fifty, notes=[f"pooled over seeds {fifty}"])
    details = details_table("toy", [r])
    assert details.count("0--49") == 2 and "[0, 1" not in details and r"\ensuremath{49}]" not in details
    assert r"seeds 0--49" in paper_table("toy", [r])  # the table's row: its seed set


def test_a_question_row_is_an_answer_in_the_table_the_front_page_and_the_terminal() -> None:
    assert row_class(QUESTION) == "answer" and row_class(RECON) == "mismatch"
    held = dataclasses.replace(QUESTION, claim_id="toy.held", verdict=Verdict.HOLDS, expected=Verdict.HOLDS)
    assert row_class(held) == "answer"  # a question answered "holds" is an answer too
    table = paper_table("toy", [QUESTION, RECON])
    question_row = next(line for line in table.splitlines() if "row:toy-tight" in line)
    assert (
        r"\textbf{violated}\newline{\scriptsize answer; QUESTION\newline seeds 0--2" in question_row
        and "mismatch" not in question_row
    )
    assert "mismatch" in next(line for line in table.splitlines() if "row:toy-recon" in line)
    summary = summary_table([QUESTION, RECON])  # the front page's counts: one answer, one mismatch
    toy_row = next(line for line in summary.splitlines() if line.startswith(r"\texttt{toy}"))
    assert toy_row.split(" & ")[-5:-1] == ["0", "0", "1", "1"]
    assert r"\input{summary.tex}" in front_page([QUESTION], run_info([QUESTION]))
    answers = answers_paragraph([QUESTION, RECON, held], {})
    assert "row:toy-tight" in answers and "row:toy-held" in answers and "row:toy-recon" not in answers
    assert "row:toy-tight" not in mismatch_paragraph([QUESTION, RECON], {})
    terminal = results_table([QUESTION, RECON, held]).splitlines()
    assert "violated (answer)" in terminal[2] and "holds (answer)" in terminal[4]
    assert "answer" not in terminal[3] and "answers to referee questions" in terminal_summary([QUESTION])


def test_the_consistency_dagger_follows_the_result() -> None:
    """The dagger is the result's consistency flag (its record's ``Expect(consistency=...)``), never
    its provenance: an EXACT claim carries it only when its record says it checks the code."""
    exact = _result("toy.exact", Provenance.EXACT, Verdict.HOLDS)
    checked = dataclasses.replace(exact, claim_id="toy.check", consistency=True)
    rows = {
        line.split("}")[0]: line
        for line in paper_table("toy", [exact, checked]).splitlines()
        if "row:" in line
    }
    assert r"$^\dagger$" not in rows[r"\phantomsection\label{row:toy-exact"]
    assert r"$^\dagger$" in rows[r"\phantomsection\label{row:toy-check"]


def test_robustness_is_shown_with_the_deciding_choice() -> None:
    record = ClaimRecord(
        "toy.own", "toy", "Sec. 3", Kind.UPPER, Provenance.EXACT, "x <= 1",
        source="the paper, Sec. 3: 'the closer m is to N, the better the prediction will be'",
        choices=(("tau", Choice(0.01, range=(0.001, 0.1), reason="a decade")),),
    )  # fmt: skip
    robust = _result("toy.own", Provenance.EXACT, Verdict.VIOLATED, robust=True)
    entry = {
        "choice": "tau",
        "end": 0.001,
        "verdict": "inconclusive",
        "at": None,
        "below": None,
        "above": None,
    }
    unsettled = dataclasses.replace(robust, robust=False, depends_on=[entry])
    assert r"seeds 0--2; robust}" in paper_table("toy", [robust], {"toy.own": record})
    assert r"depends on \texttt{tau}" in paper_table("toy", [unsettled], {"toy.own": record})
    bare = {"toy.own": dataclasses.replace(record, choices=())}
    assert "seeds 0--2; no choices}" in paper_table("toy", [dataclasses.replace(robust, robust=None)], bare)
    assert "seeds 0--2; not judged}" in paper_table(
        "toy", [dataclasses.replace(robust, robust=None)], {"toy.own": record}
    )
    assert paper_quote(record) == "the closer m is to N, the better the prediction will be"
    findings = findings_section([robust], {"toy.own": record}, {"toy.own": ["fig:toy-own"]})
    assert findings.startswith(r"\section{Findings}")
    item = next(line for line in findings.splitlines() if line.startswith(r"\item"))
    assert "``the closer m is to N, the better the prediction will be''" in item and "(Thm 1)" in item
    assert r"\texttt{tau} from" in item and r"Fig.~\ref{fig:toy-own}" in item and "0--2" in item
    later = findings_section([unsettled], {"toy.own": record}, {})
    assert "unsettled, not findings" in later and "Depends on" in later and "inconclusive at" in later


def test_the_appendix_is_off_by_default_and_toggled(tmp_path: Path, capsys, toy_claims) -> None:
    results = str(GOLDEN / "results.json")
    assert main(["report", "--from", results, "--out", str(tmp_path / "a"), "--no-figures"]) == 1
    assert (
        main(["report", "--from", results, "--out", str(tmp_path / "b"), "--no-figures", "--appendix"]) == 1
    )
    plain, full = ((tmp_path / d / "main.tex").read_text() for d in "ab")
    assert r"\input{appendix.tex}" not in plain and r"\input{appendix.tex}" in full
    assert plain.index(r"\input{findings.tex}") < plain.index(r"\input{toy.tex}")  # findings first
    assert (tmp_path / "a" / "appendix.tex").is_file()  # written either way: CI compiles both
    assert r"\hyperref[det:" not in (tmp_path / "a" / "toy.tex").read_text()  # no link into a missing part
    assert r"\hyperref[det:" in (tmp_path / "b" / "toy.tex").read_text()


def _pdflatex() -> None:
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed (`.ci/run` installs it)")


def test_the_main_part_of_a_full_run_fits_25_pages(tmp_path: Path) -> None:
    """The front page, the findings and every paper's table, figures and paragraphs of the default run
    of all four papers: at most MAX_MAIN_PAGES pages, no overfull box, no undefined reference."""
    _pdflatex()
    pytest.importorskip("matplotlib")
    doc = read_results_doc(FULL_RUN)
    assert {r.paper for r in doc.results} == {"deora2023", "wu2023", "yang2024", "zhang2026"}
    assert len(doc.results) >= 130 and doc.complete
    build_report(doc.results, tmp_path, run=doc.run, complete=doc.complete)
    pages, problems = compile_pdf(tmp_path)
    assert not problems, problems
    assert 0 < pages <= MAX_MAIN_PAGES, f"the main part has {pages} pages"
    for path in sorted(tmp_path.glob("*.tex")):  # a referee report: no tracker history, appendix included
        text = path.read_text()
        assert not re.search(r"\bissues? \d+", text, re.IGNORECASE), f"{path.name} names an issue"
    table = (tmp_path / "wu2023.tex").read_text()
    row = next(line for line in table.splitlines() if r"\label{row:wu2023-thm1-tight}" in line)
    assert r"\textbf{violated}\newline{\scriptsize answer; QUESTION" in row
