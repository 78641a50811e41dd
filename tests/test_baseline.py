"""The tightness gate: it must trip on a looser slack, a flipped verdict and a missing entry."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from reports.baseline import check_baseline, update_baseline
from verify.cli import main, read_results, write_results
from verify.core import Verdict

GOLDEN = Path(__file__).parent / "golden" / "results.json"


@pytest.fixture
def results():
    return read_results(GOLDEN)


@pytest.fixture
def baseline(tmp_path: Path, results) -> Path:
    path = tmp_path / "baseline.json"
    update_baseline(results, path)
    return path


def _by_id(results, cid):
    return next(r for r in results if r.claim_id == cid)


def test_unchanged_results_pass(results, baseline) -> None:
    report = check_baseline(results, baseline)
    assert report.ok, report.table()


def test_gate_trips_on_a_smaller_slack(results, baseline) -> None:
    doctored = copy.deepcopy(results)
    _by_id(doctored, "toy.upper").slack -= 0.2
    report = check_baseline(doctored, baseline)
    assert not report.ok
    assert any(c == "toy.upper" and s == "FAIL looser" for c, s, _ in report.rows)


def test_gate_tolerates_less_than_the_tolerance_and_reports_improvements(results, baseline) -> None:
    doctored = copy.deepcopy(results)
    _by_id(doctored, "toy.upper").slack -= 0.01
    _by_id(doctored, "toy.rate").slack += 1.0
    report = check_baseline(doctored, baseline)
    assert report.ok
    assert ("toy.rate", "improved") in [(c, s) for c, s, _ in report.rows]
    assert not check_baseline(doctored, baseline, tolerance=0.001).ok


def test_gate_trips_on_a_flipped_verdict(results, baseline) -> None:
    doctored = copy.deepcopy(results)
    _by_id(doctored, "toy.vacuous").verdict = Verdict.HOLDS
    report = check_baseline(doctored, baseline)
    assert not report.ok and "vacuous -> holds" in report.table()


def test_gate_trips_on_missing_and_new_entries(results, baseline) -> None:
    assert not check_baseline(results[1:], baseline).ok
    extra = copy.deepcopy(results[0])
    extra.claim_id = "toy.extra"
    report = check_baseline([*results, extra], baseline)
    assert not report.ok and "not in the baseline" in report.table()


def test_gate_trips_when_a_slack_becomes_undefined(results, baseline) -> None:
    doctored = copy.deepcopy(results)
    _by_id(doctored, "toy.upper").slack = None
    assert not check_baseline(doctored, baseline).ok


def test_cli_baseline_check_and_update(tmp_path: Path, results) -> None:
    base = tmp_path / "b.json"
    assert main(["baseline", "update", "--from", str(GOLDEN), "--baseline", str(base)]) == 0
    assert main(["baseline", "check", "--from", str(GOLDEN), "--baseline", str(base)]) == 0
    doctored = copy.deepcopy(results)
    _by_id(doctored, "toy.finding").slack -= 1.0
    write_results(tmp_path / "d.json", doctored, "quick", 0)
    assert main(["baseline", "check", "--from", str(tmp_path / "d.json"), "--baseline", str(base)]) == 1


def test_baseline_refuses_mixed_profiles(results, tmp_path: Path) -> None:
    mixed = copy.deepcopy(results)
    mixed[0].profile = "paper"
    with pytest.raises(ValueError, match="one profile"):
        update_baseline(mixed, tmp_path / "b.json")
