"""``attncheck stability``: each seeded claim's verdict at fresh seed sets against its expected one
(:mod:`verify.core.stability`), on toy claims whose verdict changes at known seeds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from verify.cli import main
from verify.core import (
    Ctx,
    Evidence,
    Expect,
    Kind,
    Profiles,
    Provenance,
    SeedPlan,
    Seeds,
    Source,
    Verdict,
    claim,
    run_claim,
)
from verify.core.registry import _unregister, get_claim
from verify.core.results import ResultsError, result_from_dict, result_from_json, result_to_json
from verify.core.stability import STEP, seed_bases, survey
from verify.docs import claim_section

IDS = ("toy.st.flaky", "toy.st.steady", "toy.st.fixed", "toy.st.border")
#: toy.st.flaky is violated at a set holding this seed (the second set of a survey from 100000).
BAD_SEED = 101_002


@pytest.fixture
def toys() -> Iterator[None]:
    def toy(cid: str, **kw: object):
        return claim(cid, Source("--", Provenance.DERIVED), kind=Kind.UPPER, statement="toy", **kw)

    @toy("toy.st.flaky", seeds=SeedPlan(Seeds.EVERY), profiles=Profiles(quick=dict(x=0.5)))
    def flaky(ctx: Ctx, *, x: float) -> Evidence:
        """x <= 1, but 2 at one seed."""
        return Evidence(theory=1.0, measured=2.0 if ctx.seed == BAD_SEED else x)

    @toy("toy.st.steady", seeds=SeedPlan(Seeds.EVERY), profiles=Profiles(quick=dict(x=0.5)))
    def steady(ctx: Ctx, *, x: float) -> Evidence:
        """x <= 1 at every seed."""
        return Evidence(theory=1.0, measured=x)

    @toy(
        "toy.st.border",
        seeds=SeedPlan(Seeds.EVERY),
        profiles=Profiles(quick=dict(x=0.5)),
        expect=Expect(Verdict.HOLDS, also=Verdict.INCONCLUSIVE, why="toy: inconclusive at one seed"),
    )
    def border(ctx: Ctx, *, x: float) -> Evidence:
        """x <= 1, undecided at one seed: holds or inconclusive are both as expected."""
        return Evidence(
            theory=1.0,
            measured=None if ctx.seed == BAD_SEED else x,
            inconclusive=("toy" if ctx.seed == BAD_SEED else None),
        )

    @toy("toy.st.fixed", profiles=Profiles(quick=dict(x=0.5)))
    def fixed(ctx: Ctx, *, x: float) -> Evidence:
        """x <= 1, deterministic."""
        return Evidence(theory=1.0, measured=x)

    try:
        yield
    finally:
        for cid in IDS:
            _unregister(cid)


def test_seed_bases_are_disjoint_sets_from_first() -> None:
    assert seed_bases(100_000, 3) == [100_000, 100_000 + STEP, 100_000 + 2 * STEP]
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="first"):
            seed_bases(bad, 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sets must be an integer >= 1, got 0"):
        seed_bases(0, 0)


def test_survey_finds_the_set_where_a_verdict_changes(toys: None) -> None:
    tallies = survey([get_claim(c) for c in IDS], first=100_000, sets=3)
    by_id = {t.claim_id: t for t in tallies}
    assert set(by_id) == {"toy.st.flaky", "toy.st.steady", "toy.st.border"}  # a deterministic one is not
    flaky = by_id["toy.st.flaky"]
    assert flaky.expected == "holds" and flaky.unexpected == [101_000]
    assert flaky.verdicts == {100_000: "holds", 101_000: "violated", 102_000: "holds"}
    assert flaky.counts() == "holds 2, violated 1"
    assert by_id["toy.st.steady"].unexpected == []
    border = by_id["toy.st.border"]  # a borderline claim: its second verdict is as expected
    assert border.verdicts[101_000] == "inconclusive" and border.also == "inconclusive"
    assert border.unexpected == [] and border.to_dict()["also"] == "inconclusive"


def test_a_borderline_result_is_as_expected_at_either_verdict(toys: None) -> None:
    r = run_claim("toy.st.border", seed=101_000)
    assert (r.verdict, r.expected, r.also, r.as_expected) == ("inconclusive", "holds", "inconclusive", True)
    back = result_from_json(result_to_json(r))
    assert back.also == Verdict.INCONCLUSIVE and back.as_expected
    flaky = run_claim("toy.st.flaky", seed=101_000)
    assert flaky.also is None and not flaky.as_expected
    assert result_from_json(result_to_json(flaky)).also is None
    bad = json.loads(result_to_json(r)) | {"also": "maybe"}
    with pytest.raises(ResultsError, match=r"result\.also: 'maybe' is not a Verdict or null"):
        result_from_dict(bad)
    assert "borderline: `inconclusive` is as expected as `holds`" in claim_section(get_claim("toy.st.border"))


def test_cli_exit_status_table_and_json(toys: None, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "st.json"
    assert main(["stability", "toy.st.*", "--sets", "3", "--json", str(out), "--quiet"]) == 1
    text = capsys.readouterr().out
    assert "toy.st.flaky" in text and "101000" in text and "1 of 3 seeded claims" in text
    assert "holds or inconclusive" in text
    doc = json.loads(out.read_text())
    assert doc["schema"] == "attncheck.stability/1" and doc["sets"] == 3 and doc["first"] == 100_000
    assert {c["claim_id"]: c["verdicts"]["101000"] for c in doc["claims"]} == {
        "toy.st.flaky": "violated",
        "toy.st.steady": "holds",
        "toy.st.border": "inconclusive",
    }
    assert main(["stability", "toy.st.steady", "--sets", "2", "--quiet"]) == 0
    assert main(["stability", "toy.st.flaky", "--first", "102000", "--sets", "2", "--quiet"]) == 0
    assert main(["stability", "toy.st.fixed", "--quiet"]) == 2
    assert "no matched claim is seeded" in capsys.readouterr().err
