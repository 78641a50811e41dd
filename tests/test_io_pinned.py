"""The input limits of JSON files, the results schema's checks, and the ``--json`` lock held for the whole
run, pinned at their boundaries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verify import cli
from verify.core import jsonload
from verify.core.jsonload import MAX_BYTES, MAX_DEPTH, JSONInputError, load_json, nesting_depth
from verify.core.record import Kind, Provenance, Result, Verdict
from verify.core.results import (
    RESULTS_SCHEMA,
    ResultsError,
    ResultsLocked,
    result_to_dict,
    results_lock,
    validate_results,
)

# ---------------------------------------------------------------- load_json limits


def test_the_limits_are_32_levels_and_256_mb() -> None:
    """MAX_DEPTH = 32 levels, MAX_BYTES = 256 MiB."""
    assert MAX_DEPTH == 32 and MAX_BYTES == 256 * 2**20


def test_nesting_at_the_limit_is_read_and_one_deeper_is_refused(tmp_path: Path) -> None:
    """depth == MAX_DEPTH parses; MAX_DEPTH + 1 is a JSONInputError naming the depth."""
    ok, deep = tmp_path / "ok.json", tmp_path / "deep.json"
    ok.write_text("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    deep.write_text("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert nesting_depth(ok.read_text()) == MAX_DEPTH
    load_json(ok, "results file")
    with pytest.raises(JSONInputError, match=f"nested {MAX_DEPTH + 1} levels deep.*at most {MAX_DEPTH}"):
        load_json(deep, "results file")


def test_nesting_depth_counts_objects_and_arrays_but_not_strings() -> None:
    """Brackets inside strings do not count; ``{`` counts like ``[``; depth is the maximum, not the end."""
    assert nesting_depth('["[[[[{{{{"]') == 1
    assert nesting_depth('{"a": [{"b": {}}]}') == 4
    assert nesting_depth("[][][]") == 1 and nesting_depth("[[]][]") == 2 and nesting_depth("1") == 0


def test_a_file_of_exactly_max_bytes_is_read_and_one_byte_more_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size limit is inclusive: len <= MAX_BYTES is read, MAX_BYTES + 1 is refused."""
    monkeypatch.setattr(jsonload, "MAX_BYTES", 20)
    ok, big = tmp_path / "ok.json", tmp_path / "big.json"
    ok.write_text(json.dumps({"a": "x" * 11}))  # 20 bytes
    big.write_text(json.dumps({"a": "x" * 12}))  # 21 bytes
    assert ok.stat().st_size == 20 and big.stat().st_size == 21
    assert load_json(ok, "results file") == {"a": "x" * 11}
    with pytest.raises(JSONInputError, match="larger than"):
        load_json(big, "results file")


# ---------------------------------------------------------------- the results schema


def _doc(**result: Any) -> dict[str, Any]:
    r = Result(
        claim_id="zz.a", paper="zz", reference="r", kind=Kind.UPPER, provenance=Provenance.EXACT,
        statement="s", profile="quick", params={}, seeds=[0], theory=1.0, measured=0.5, slack=0.3,
        verdict=Verdict.HOLDS, expected=Verdict.HOLDS,
    )  # fmt: skip
    return {"schema": RESULTS_SCHEMA, "profile": "quick", "seed": 0, "results": [result_to_dict(r) | result]}


def test_a_valid_results_document_reads() -> None:
    """The baseline the refusals below differ from by one field; seed 0 and times 0 are allowed."""
    doc = validate_results(_doc(wall_time=0.0, seeds=[0]))
    assert doc.complete and doc.seed == 0 and doc.results[0].claim_id == "zz.a"


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"seeds": [-1]}, r"seeds\[0\]: must be an integer >= 0"),
        ({"wall_time": -1e-9}, r"wall_time: must be >= 0"),
        ({"cpu_time": -1.0}, r"cpu_time: must be >= 0"),
        ({"slack": float("nan")}, r"slack: nan is not allowed"),
        ({"measured": [1.0, float("inf")]}, r"measured\[1\]: inf is not allowed"),
        ({"theory": {"$mpf": "nan"}}, r"theory: \$mpf .* \(NaN\)"),
        ({"theory": {"$mpf": "1e400", "x": 1}}, r"theory: an \$mpf value is"),
        ({"params": {"$mpf": "1"}}, r"params: must be an object, got an \$mpf value"),
        ({"paper": "yy"}, r"paper: 'yy' is not the prefix of claim id"),
        ({"paper": "z-z", "claim_id": "z-z.a"}, r"is not a paper name"),
        ({"profile": "huge"}, r"profile: 'huge' is not one of"),
        ({"headline": {"theory": 1.0}}, r"headline: must have theory and measured"),
        ({"extra": 1}, r"unknown field 'extra'"),
        ({"verdict": "fine"}, r"verdict: 'fine' is not a Verdict"),
    ],
)
def test_one_bad_field_of_a_result_is_refused_naming_it(change: dict[str, Any], match: str) -> None:
    """Each field check of result_from_dict."""
    with pytest.raises(ResultsError, match=match):
        validate_results(_doc(**change))


def test_a_missing_field_and_file_level_checks_are_refused() -> None:
    """Missing result field; file seed < 0; unknown file field; duplicate ids; profile mismatch; run field."""
    doc = _doc()
    del doc["results"][0]["verdict"]
    with pytest.raises(ResultsError, match="missing field 'verdict'"):
        validate_results(doc)
    with pytest.raises(ResultsError, match="seed: must be an integer >= 0"):
        validate_results(_doc() | {"seed": -1})
    with pytest.raises(ResultsError, match="unknown field 'extra'"):
        validate_results(_doc() | {"extra": 1})
    twice = _doc()
    twice["results"] *= 2
    with pytest.raises(ResultsError, match="appears twice"):
        validate_results(twice)
    with pytest.raises(ResultsError, match=r"results\[0\]\.profile: 'quick', the file's profile is 'paper'"):
        validate_results(_doc() | {"profile": "paper"})
    with pytest.raises(ResultsError, match="run: unknown field 'nope'"):
        validate_results(_doc() | {"run": {"nope": 1}})


# ---------------------------------------------------------------- the --json lock


def test_the_json_lock_is_held_for_the_whole_run(toy_claims, tmp_path: Path, monkeypatch, capsys) -> None:
    """From inside the run (cli._run patched), another writer of the same path is refused; afterwards
    the lock is free again."""
    out = tmp_path / "r.json"
    run = cli._run
    seen: list[str] = []

    def checked(args: Any, claims: Any) -> list[Result]:
        with pytest.raises(ResultsLocked):
            with results_lock(out):
                pass
        seen.append("locked")
        return run(args, claims)

    monkeypatch.setattr(cli, "_run", checked)
    assert cli.main(["run", "toy.upper", "--quiet", "--json", str(out)]) == 0
    assert seen == ["locked"] and out.exists()
    with results_lock(out):  # released after the run
        pass
    capsys.readouterr()


# ---------------------------------------------------------------- command-line limits


def test_at_most_max_seeds_seeds() -> None:
    """--seeds: MAX_SEEDS = 10 000 seeds accepted (inclusive), one more refused."""
    assert cli.MAX_SEEDS == 10_000
    assert len(cli.parse_seeds("0-9999")) == 10_000
    assert len(cli.parse_seeds("0-9998,20000")) == 10_000
    for text in ("0-10000", "0-9999,20000"):
        with pytest.raises(cli.UsageError, match="at most 10000 seeds"):
            cli.parse_seeds(text)


@pytest.mark.parametrize(
    ("argv", "ok"),
    [
        (["run", "--seed", "0"], True),
        (["run", "--seed", "-1"], False),
        (["run", "--jobs", "1"], True),
        (["run", "--jobs", "0"], False),
        (["run", "--dask-timeout", "1e-9"], True),
        (["run", "--dask-timeout", "0"], False),
        (["run", "--dask-timeout", "inf"], False),
        (["baseline", "check", "--tolerance", "0"], True),
        (["baseline", "check", "--tolerance=-1e-12"], False),
        (["baseline", "check", "--tolerance", "nan"], False),
    ],
)
def test_run_option_bounds(argv: list[str], ok: bool) -> None:
    """--seed >= 0, --jobs >= 1, --dask-timeout finite > 0, --tolerance finite >= 0 (edges inclusive
    where the message says >=), checked when the options are parsed."""
    if ok:
        cli._parser().parse_args(argv)
    else:
        with pytest.raises(cli.UsageError, match="must be"):
            cli._parser().parse_args(argv)
