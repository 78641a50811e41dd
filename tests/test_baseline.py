"""The tightness gate: it must trip on a looser slack, a flipped verdict and a missing entry, and pass
for the committed baseline on any CPU (values moved by a few ulps, round-off values by 4x)."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from tests.support import baseline_results
from verify.cli import main, read_results, write_results
from verify.core import Result, Verdict
from verify.core.gate import (
    DEFAULT_BASELINE,
    EPS,
    ROUNDOFF_ULPS,
    SATURATION,
    TOLERANCE,
    VALUE_RTOL,
    check_baseline,
    load_baseline,
    update_baseline,
)

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


def test_gate_trips_when_a_finding_loses_its_robustness(results, baseline) -> None:
    assert load_baseline(baseline)["claims"]["toy.finding"]["robust"] is True
    doctored = copy.deepcopy(results)
    _by_id(doctored, "toy.finding").robust = None
    report = check_baseline(doctored, baseline)
    assert not report.ok and "robust -> not judged to our choices" in report.table()


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


def test_cli_baseline_check_and_update(tmp_path: Path, results, toy_claims) -> None:
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


# --- machine independence (round-off, saturation) and malformed input ------------------------------


def _is_real(x: object) -> bool:
    return isinstance(x, float | int) and not isinstance(x, bool)


@pytest.mark.parametrize("ulps", [-4, 4])
def test_committed_baseline_survives_a_few_ulps_on_every_value(ulps: int) -> None:
    """Another CPU's kernels move every float by a few ulps: the gate must not notice."""
    results = baseline_results(DEFAULT_BASELINE)
    for r in results:
        scale = 1 + ulps * EPS
        if _is_real(r.measured) and isinstance(r.measured, float):
            r.measured *= scale
        if _is_real(r.theory) and isinstance(r.theory, float):
            r.theory *= scale
        if r.slack is not None:
            r.slack += ulps * EPS * 10
        if r.worst is not None:
            r.worst = {"ratio": r.worst["ratio"] * scale}
    report = check_baseline(results, DEFAULT_BASELINE)
    assert report.ok, report.table()


@pytest.mark.parametrize("factor", [0.25, 4.0])
def test_committed_baseline_survives_round_off_values_off_by_4x(factor: float) -> None:
    """Values at round-off level (<= ROUNDOFF_ULPS / 4 eps) move by 2-4x between kernels; their slack
    moves by log10(4) with them."""
    results = baseline_results(DEFAULT_BASELINE)
    moved = 0
    for r in results:
        if _is_real(r.measured) and 0 < abs(r.measured) <= ROUNDOFF_ULPS / 4 * EPS:
            r.measured *= factor
            if r.slack is not None:
                r.slack += math.log10(1 / factor)
            moved += 1
    assert moved >= 5  # the committed baseline has such entries (P_invariance, A_identity, ...)
    report = check_baseline(results, DEFAULT_BASELINE)
    assert report.ok, report.table()


def _one(measured: float, slack: float | None, tmp_path: Path, **base: object) -> tuple[list[Result], Path]:
    doc = {
        "schema": "attncheck.baseline/1", "profile": "quick", "tolerance": TOLERANCE,
        "claims": {"toy.x": {"verdict": "holds", "slack": slack, "theory": 1.0, "measured": measured}},
    } | base  # fmt: skip
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc))
    return baseline_results(path), path


def test_saturated_slacks_compare_as_equal_but_falling_below_saturation_fails(tmp_path: Path) -> None:
    res, path = _one(1e-6, 6.0, tmp_path)
    res[0].slack = SATURATION + 0.01
    assert check_baseline(res, path).ok
    res[0].slack = SATURATION - TOLERANCE + 0.001
    assert check_baseline(res, path).ok
    res[0].slack = SATURATION - TOLERANCE - 0.001
    assert not check_baseline(res, path).ok


def test_round_off_values_compare_in_eps_and_leaving_round_off_is_caught(tmp_path: Path) -> None:
    res, path = _one(100 * EPS, 1.0, tmp_path)
    res[0].measured, res[0].slack = ROUNDOFF_ULPS * EPS, 0.5
    rows = check_baseline(res, path)
    assert rows.ok and "eps" in rows.table()
    res[0].measured, res[0].slack = 2 * ROUNDOFF_ULPS * EPS, 0.5  # no longer round-off: slack rule
    assert not check_baseline(res, path).ok


def test_nan_slack_and_nan_tolerance_never_pass(tmp_path: Path) -> None:
    res, path = _one(0.5, 0.3, tmp_path)
    res[0].slack = math.nan
    assert not check_baseline(res, path).ok
    res[0].slack = 0.3
    for bad in (math.nan, math.inf, -0.1):
        with pytest.raises(ValueError, match="tolerance"):
            check_baseline(res, path, tolerance=bad)
    path.write_text(path.read_text().replace('"tolerance": 0.05', '"tolerance": NaN'))
    with pytest.raises(ValueError, match=r"tolerance must be a finite number >= 0 \(log10 units\), got nan"):
        check_baseline(res, path)


def test_entries_without_slack_compare_theory_and_measured(tmp_path: Path) -> None:
    res, path = _one(-0.376, None, tmp_path)
    res[0].measured = -0.376 * (1 + VALUE_RTOL / 2)
    assert check_baseline(res, path).ok
    res[0].measured = -0.376 * (1 + 2 * VALUE_RTOL)
    report = check_baseline(res, path)
    assert not report.ok and "measured changed" in report.table()
    res[0].measured, res[0].theory = -0.376, 2.0
    assert not check_baseline(res, path).ok


def test_duplicate_results_are_refused(tmp_path: Path) -> None:
    res, path = _one(0.5, 0.3, tmp_path)
    assert not check_baseline([res[0], copy.deepcopy(res[0])], path).ok


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[]", "top level"),
        ('{"schema": "other"}', "schema"),
        ('{"schema": "attncheck.baseline/1", "profile": "huge"}', "profile"),
        ('{"schema": "attncheck.baseline/1", "profile": "quick", "tolerance": "x"}', "tolerance"),
        ('{"schema": "attncheck.baseline/1", "profile": "quick", "claims": []}', "claims"),
        ('{"schema": "attncheck.baseline/1", "profile": "quick", "claims": {"a.b": {}}}', "needs verdict"),
        ("{not json", "is not JSON"),
        ("[" * 40 + "]" * 40, "nested 40 levels deep; a baseline may nest at most 32"),
        ('{"schema": "attncheck.baseline/1", "profile": "quick", "claims": {}, "x": 1}', "unknown field 'x'"),
        ('{"schema": "attncheck.baseline/1", "profile": "quick", "claims": {}, "versions": []}', "versions"),
    ],
)
def test_malformed_baselines_give_one_line_errors(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "b.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=match) as info:
        load_baseline(path)
    assert "\n" not in str(info.value)
    with pytest.raises(FileNotFoundError, match="baseline update"):
        load_baseline(tmp_path / "missing.json")


def test_consistency_checks_compare_their_verdict_only(tmp_path: Path) -> None:
    res, path = _one(1.6e-3, 2.79, tmp_path)
    res[0].slack = 2.5
    assert not check_baseline(res, path).ok
    res[0].consistency = True
    assert not check_baseline(res, path).ok  # reclassified after the baseline was written
    update_baseline(res, path)
    res[0].slack = 0.5
    assert check_baseline(res, path).ok
    res[0].verdict = Verdict.VIOLATED
    assert not check_baseline(res, path).ok


def test_worst_case_entries_track_the_worst_ratio_one_sided(tmp_path: Path) -> None:
    res, path = _one(0.9, 0.05, tmp_path)
    res[0].worst = {"ratio": 0.9, "typical": 0.5}
    update_baseline(res, path)
    res[0].worst = {"ratio": 0.999, "typical": 0.5}  # a stronger search: slack shrinks, still passes
    res[0].slack = 0.0004
    report = check_baseline(res, path)
    assert report.ok and report.rows[0][1] == "stronger search"
    res[0].worst = {"ratio": 0.89, "typical": 0.5}  # a weaker search
    assert not check_baseline(res, path).ok
    res[0].worst = None  # the search disappeared
    assert not check_baseline(res, path).ok


def test_baseline_entries_record_wall_time_for_longest_first_scheduling(tmp_path: Path, results) -> None:
    update_baseline(results, tmp_path / "b.json")
    entries = json.loads((tmp_path / "b.json").read_text())["claims"]
    assert all(isinstance(e["wall_time"], float) for e in entries.values())


_ENTRY = {"verdict": "holds", "slack": 0.5, "theory": 1.0, "measured": 0.3, "seeds": [0], "wall_time": 1.0}


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"wall_time": "slow"}, r"\.wall_time must be a finite number >= 0 \(seconds\), got 'slow'"),
        ({"wall_time": -1.0}, r"\.wall_time must be a finite number >= 0"),
        ({"wall_time": 1e999}, r"\.wall_time must be a finite number >= 0 \(seconds\), got inf"),
        ({"worst_ratio": "x"}, r"\.worst_ratio must be a finite number >= 0"),
        ({"worst_ratio": None}, r"\.worst_ratio must be a finite number >= 0"),
        ({"seeds": "0-2"}, r"\.seeds must be a list of integers >= 0"),
        ({"seeds": [0, -1]}, r"\.seeds must be a list of integers >= 0"),
        ({"theory": {"$mpf": "abc"}}, r"\.theory: \$mpf 'abc' is not a decimal number"),
        ({"measured": [1.0, float("nan")]}, r"\.measured\[1\]: nan is not allowed"),
        ({"measured": {"$mpf": "nan"}}, r"\.measured: \$mpf 'nan' is not allowed"),
        ({"params": [1]}, r"\.params must be an object"),
        ({"params": {"n": float("inf")}}, r"\.params\['n'\]: inf is not allowed"),
        ({"slack": 10**400}, r"\.slack must be a finite number or null, got 1\.0e\+400$"),
        ({"extra": 1}, r" has an unknown field 'extra'"),
        ({"robust": None}, r"\.robust must be true or false \(absent: not judged\)"),
    ],
)
def test_every_entry_field_is_checked_on_load(tmp_path: Path, change: dict, match: str) -> None:
    """Issue 27 case 6: malformed values were reported as gate changes (or, ``wall_time: "slow"``,
    accepted) instead of refused on load."""
    path = tmp_path / "b.json"
    doc = {"schema": "attncheck.baseline/1", "profile": "quick", "claims": {"a.b": {**_ENTRY, **change}}}
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"^baseline .*b\.json: claims\['a\.b'\]" + match) as info:
        load_baseline(path)
    assert "\n" not in str(info.value)
    path.write_text(json.dumps({**doc, "claims": {"a.b": _ENTRY}}))
    assert load_baseline(path)["claims"]["a.b"] == _ENTRY  # the control: the unchanged entry loads


# --- the papers a baseline covers: a plugin's claims never enter, nor trip, another paper's gate ----


def test_a_baseline_names_its_papers_and_its_gate_compares_only_theirs(results, baseline) -> None:
    assert load_baseline(baseline)["papers"] == ["toy"]
    plugin = copy.deepcopy(results[0])
    plugin.claim_id, plugin.paper = "smith2027.gradbound", "smith2027"
    report = check_baseline([*results, plugin], baseline)
    assert report.ok and report.ignored == ["smith2027.gradbound"]
    assert "not compared: 1 results of papers this baseline does not cover (smith2027;" in report.table()
    with pytest.raises(ValueError, match=r"'smith2027.gradbound' is of none of the baseline's papers"):
        update_baseline([*results, plugin], baseline, papers=["toy"])


def test_the_committed_baseline_names_the_built_in_papers() -> None:
    from verify.core.papers import builtin_papers

    assert load_baseline(DEFAULT_BASELINE)["papers"] == sorted(builtin_papers())


@pytest.mark.parametrize(
    ("papers", "match"),
    [('"toy"', "papers must be a list of distinct paper keys"), ('["toy", "toy"]', "distinct"),
     ('["other"]', r"claims\['toy.a'\] is of none of its papers \['other'\]")],
)  # fmt: skip
def test_a_baseline_paper_list_is_checked_on_load(tmp_path: Path, papers: str, match: str) -> None:
    entry = '{"verdict": "holds", "slack": 1.0, "theory": 1.0, "measured": 0.1}'
    path = tmp_path / "b.json"
    path.write_text(
        f'{{"schema": "attncheck.baseline/1", "profile": "quick", "papers": {papers}, '
        f'"claims": {{"toy.a": {entry}}}}}'
    )
    with pytest.raises(ValueError, match=match):
        load_baseline(path)


def test_cli_a_new_baseline_names_its_papers_and_check_agrees_with_the_file(
    tmp_path: Path, capsys, toy_claims
) -> None:
    new = tmp_path / "new.json"
    assert main(["baseline", "update", "--baseline", str(new), "--quiet"]) == 2
    assert f"--papers: {new} is a new baseline; name the papers it covers" in capsys.readouterr().err
    base = tmp_path / "b.json"
    update = ["baseline", "update", "--from", str(GOLDEN), "--baseline", str(base), "--papers", "toy"]
    assert main(update) == 0
    assert main(["baseline", "check", "--baseline", str(base), "--papers", "wu2023", "--quiet"]) == 2
    assert f"--papers: the baseline {base} covers ['toy'], not ['wu2023']" in capsys.readouterr().err
    with pytest.raises(FileNotFoundError, match=r"attncheck baseline update --baseline \S+ --papers KEY"):
        load_baseline(new)
    before = DEFAULT_BASELINE.read_bytes()  # attncheck's own baseline never takes another paper's claims
    assert main(["baseline", "update", "--papers", "smith2027", "--quiet"]) == 2
    assert "; a plugin's baseline is its own file: --baseline PATH" in capsys.readouterr().err
    assert DEFAULT_BASELINE.read_bytes() == before
