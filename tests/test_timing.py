"""The timing summary behind the README's tables: totals, shares and the longest-first schedule."""

from __future__ import annotations

import dataclasses

import pytest

from reports.timing import main, makespan, timing_table
from tests.test_reports import _golden_results
from verify.cli import read_results
from verify.core.results import write_results


def test_makespan_is_the_longest_first_schedule() -> None:
    assert makespan([3, 3, 2, 2, 2], 2) == 7  # longest first; the optimum (6) is not the claim
    assert makespan([5, 1, 1], 1) == 7 and makespan([5, 1, 1], 3) == 5 and makespan([], 2) == 0
    with pytest.raises(ValueError, match="workers"):
        makespan([1.0], 0)


def test_the_table_ranks_claims_by_cpu_time(tmp_path, capsys) -> None:
    base = _golden_results()
    results = [dataclasses.replace(r, cpu_time=10.0 * (i + 1), wall_time=1.0) for i, r in enumerate(base)]
    text = timing_table(results, top=1, workers=2)
    first = max(results, key=lambda r: r.cpu_time)
    assert f"| `{first.claim_id}` |" in text and f"every other claim ({len(results) - 1})" in text
    write_results(tmp_path / "r.json", results, "quick", 0)
    assert main(["--from", str(tmp_path / "r.json"), "--top", "1"]) == 0
    assert capsys.readouterr().out == text
    assert read_results(tmp_path / "r.json")[0].cpu_time == results[0].cpu_time


def test_a_malformed_results_file_is_one_line_and_exit_2(tmp_path, capsys) -> None:
    """The timing table reads results through the shared loader: a file nested 1000 deep (issue 27)
    or missing is one line on stderr and exit 2, never a traceback."""
    (tmp_path / "deep.json").write_text("[" * 1000 + "]" * 1000)
    for name, fragment in (("deep.json", "nested 1000 levels deep"), ("none.json", "no such results file")):
        assert main(["--from", str(tmp_path / name)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1
        assert err.startswith("python -m reports.timing: error: --from: ") and fragment in err


def test_a_run_made_in_pieces_is_one_table_and_a_claim_in_two_pieces_is_refused(tmp_path, capsys) -> None:
    """``--from`` takes the files of a run made in pieces (the paper profile with every choice, a group
    of claims per process): the table is the whole run's; a claim in two files is exit 2, one line."""
    results = [dataclasses.replace(r, cpu_time=float(i + 1)) for i, r in enumerate(_golden_results())]
    half = len(results) // 2
    write_results(tmp_path / "a.json", results[:half], "quick", 0)
    write_results(tmp_path / "b.json", results[half:], "quick", 0)
    assert main(["--from", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--top", "3"]) == 0
    assert capsys.readouterr().out == timing_table(results, top=3, workers=2)
    write_results(tmp_path / "c.json", results[half - 1 : half], "quick", 0)
    assert main(["--from", str(tmp_path / "a.json"), str(tmp_path / "c.json")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and f"{results[half - 1].claim_id} is in both" in err
