"""How seeds combine, and how the summary attributes verdicts, pinned branch by branch.

``every``: PRECEDENCE order, slack = min over seeds, the representative seed, a finding at some seeds
only -> inconclusive (also in the paper profile and in the alternative world); ``binomial``: k and n
over the seeds whose premises held; the seed set; the tolerance check of a rate claim against its
competing exponent; findings / answers / mismatches / consistency and rival readings in the summary.
"""

from __future__ import annotations

import itertools

import pytest

from tests.support import toy_claim, toy_cleanup  # noqa: F401 (toy_cleanup: autouse fixture)
from verify.core import Alternative, Ctx, Evidence, Expect, Kind, Provenance, SeedPlan, Verdict, run_claim
from verify.core.record import ClaimRecord, Result, Seeds, to_jsonable
from verify.core.seeds import PRECEDENCE, Judged, _binomial, _check_tolerance, _every, claim_seeds
from verify.core.summary import readings, summarise, summary_table
from verify.numerics.fit import RateFit


def _j(verdict: Verdict, slack: float | None = None, measured: float = 0.0) -> Judged:
    return Judged(verdict, slack, 1.0, measured, [0], decision={"branch": str(verdict)})


def _every_of(*judged: Judged, expect: Verdict = Verdict.HOLDS) -> Judged:
    return _every(Kind.UPPER, list(enumerate(judged)), expect)


# ---------------------------------------------------------------- every


def test_precedence_order_is_error_violated_out_of_regime_inconclusive_vacuous_holds() -> None:
    """PRECEDENCE, and every pair of verdicts decided by it whatever the seed order."""
    order = [Verdict.ERROR, Verdict.VIOLATED, Verdict.OUT_OF_REGIME, Verdict.INCONCLUSIVE, Verdict.VACUOUS]
    assert PRECEDENCE == (*order, Verdict.HOLDS)
    for hi, lo in itertools.combinations(PRECEDENCE, 2):
        assert _every_of(_j(lo), _j(hi)).verdict == hi
        assert _every_of(_j(hi), _j(lo), _j(lo)).verdict == hi


def test_every_slack_is_the_minimum_over_all_seeds() -> None:
    """slack = min over seeds (not the shown seed's, not the first seed's); None when no seed has one."""
    assert _every_of(_j(Verdict.HOLDS, 2.0), _j(Verdict.HOLDS, 0.5), _j(Verdict.HOLDS, 1.0)).slack == 0.5
    v = _every_of(_j(Verdict.HOLDS, 1.0), _j(Verdict.VIOLATED, -0.1), _j(Verdict.VIOLATED, -0.3))
    assert v.verdict == Verdict.VIOLATED and v.slack == -0.3
    assert _every_of(_j(Verdict.HOLDS), _j(Verdict.HOLDS)).slack is None


def test_every_shows_the_tightest_holding_or_vacuous_seed_and_the_first_violating_one() -> None:
    """Representative: holds / vacuous -> the smallest slack; violated -> the first violating seed."""
    h = _every_of(_j(Verdict.HOLDS, 2.0, 1.0), _j(Verdict.HOLDS, 0.5, 2.0), _j(Verdict.HOLDS, None, 3.0))
    assert h.measured == 2.0 and h.decision["seed"] == 1
    v = _every_of(_j(Verdict.VACUOUS, 2.0, 1.0), _j(Verdict.VACUOUS, 0.5, 2.0), _j(Verdict.VACUOUS, 1.0, 3.0))
    assert v.verdict == Verdict.VACUOUS and v.measured == 2.0 and v.decision["seed"] == 1
    x = _every_of(
        _j(Verdict.HOLDS, 1.0, 1.0), _j(Verdict.VIOLATED, -0.1, 2.0), _j(Verdict.VIOLATED, -0.5, 3.0)
    )
    assert x.measured == 2.0 and x.decision["seed"] == 1 and "(2 of 3 violate)" in x.notes[0]
    assert [row["verdict"] for row in x.per_seed] == ["holds", "violated", "violated"]


def test_a_finding_at_some_seeds_only_is_inconclusive() -> None:
    """expect violated + violated at some but not all seeds -> inconclusive; at every seed -> violated;
    an unexpected violation at some seeds stays violated."""
    some = (_j(Verdict.VIOLATED, -1.0), _j(Verdict.HOLDS, 1.0))
    assert _every_of(*some, expect=Verdict.VIOLATED).verdict == Verdict.INCONCLUSIVE
    assert _every_of(*some, expect=Verdict.HOLDS).verdict == Verdict.VIOLATED
    every = (_j(Verdict.VIOLATED, -1.0), _j(Verdict.VIOLATED, -2.0))
    assert _every_of(*every, expect=Verdict.VIOLATED).verdict == Verdict.VIOLATED
    mixed = (_j(Verdict.VIOLATED, -1.0), _j(Verdict.INCONCLUSIVE))
    assert _every_of(*mixed, expect=Verdict.VIOLATED).verdict == Verdict.INCONCLUSIVE


def test_the_paper_profile_expectation_decides_the_split_finding() -> None:
    """The every-seed finding rule uses the profile's expectation (``expect_paper`` in the paper profile)."""

    @toy_claim(
        "toyp.split", seeds=SeedPlan(Seeds.EVERY), expect=Expect(Verdict.HOLDS, paper=Verdict.VIOLATED)
    )
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=2.0 if ctx.seed == 0 else 0.5)

    assert run_claim("toyp.split", seed_set=[0, 1, 2]).verdict == Verdict.VIOLATED
    assert run_claim("toyp.split", profile="paper", seed_set=[0, 1, 2]).verdict == Verdict.INCONCLUSIVE


def test_the_alternative_world_needs_its_violation_at_every_seed() -> None:
    """The alternative (rejudged alongside or run as the falsifier) is judged with ``alt.expect``."""

    @toy_claim(
        "toyp.altsplit", seeds=SeedPlan(Seeds.EVERY), alternative=Alternative("4x tighter", factor=4.0)
    )
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=0.1 if ctx.seed == 1 else 0.5)  # 0.5 > 1/4, 0.1 < 1/4

    r = run_claim("toyp.altsplit", seed_set=[0, 1, 2])
    assert r.verdict == Verdict.HOLDS and r.alternative["verdict"] == "inconclusive"
    assert run_claim("toyp.altsplit", seed_set=[0, 1, 2], world="alternative").verdict == Verdict.INCONCLUSIVE
    assert run_claim("toyp.altsplit", seed_set=[0, 2, 3], world="alternative").verdict == Verdict.VIOLATED


# ---------------------------------------------------------------- binomial


def _ev(ok: bool, p: float = 0.9, failed: tuple[str, ...] = ()) -> Evidence:
    return Evidence(theory=p, measured=ok, failed=list(failed))


def test_binomial_counts_successes_over_the_seeds_whose_premises_held() -> None:
    """k successes of n seeds, seeds with a failed premise counted in neither (and -> out_of_regime)."""
    j = _binomial([(0, _ev(True)), (1, _ev(False)), (2, _ev(True)), (3, _ev(True))])
    assert j.measured == [3, 4] and j.notes[0] == "seeds [0, 1, 2, 3]: failures at [1]"
    assert [row["verdict"] for row in j.per_seed] == ["success", "failure", "success", "success"]
    f = _binomial([(0, _ev(True)), (1, _ev(True, failed=("N > d",))), (2, _ev(False))])
    assert f.measured == [1, 2] and f.verdict == Verdict.OUT_OF_REGIME
    assert "assumption failed: seed 1: N > d" in f.notes
    many = _binomial([(s, _ev(True)) for s in range(29)])
    assert many.verdict == Verdict.HOLDS and many.measured == [29, 29]


def test_binomial_needs_a_bool_and_one_probability() -> None:
    """A non-bool success, or two claimed probabilities, are refused."""
    with pytest.raises(TypeError, match="bool"):
        _binomial([(0, _ev(True)), (1, Evidence(theory=0.9, measured=1))])
    with pytest.raises(ValueError, match="one probability"):
        _binomial([(0, _ev(True, 0.9)), (1, _ev(True, 0.8))])


# ---------------------------------------------------------------- seed sets


def _rec(seeds: Seeds = Seeds.EVERY, kind: Kind = Kind.UPPER, **kw: object) -> ClaimRecord:
    return ClaimRecord(
        id="toyp.rec", paper="toyp", reference="r", kind=kind, provenance=Provenance.EXACT, statement="s",
        seeds=seeds, n_seeds=(("quick", 3), ("paper", 10)), **kw,  # type: ignore[arg-type]
    )  # fmt: skip


def test_the_seed_set() -> None:
    """n_seeds consecutive seeds from the base; an override is distinct seeds >= 0 (0 allowed); a
    deterministic claim runs at the first seed only."""
    assert claim_seeds(_rec(), "quick", 5) == [5, 6, 7]
    assert claim_seeds(_rec(), "paper", 0) == list(range(10))
    assert claim_seeds(_rec(), "quick", 0, [0, 4]) == [0, 4]
    assert claim_seeds(_rec(Seeds.NONE), "quick", 2) == [2]
    assert claim_seeds(_rec(Seeds.NONE), "quick", 0, [3, 4]) == [3]
    for bad in ([], [-1, 2], [1, 1]):
        with pytest.raises(ValueError, match="distinct"):
            claim_seeds(_rec(), "quick", 0, bad)


# ---------------------------------------------------------------- a rate's tolerance and its rival


def _rate_ev(tol: float) -> Evidence:
    fit = RateFit(-1.0, 0.0, -1.01, -0.99, 0.95, 6, "t", local=(-1.0,), window=3)
    return Evidence(theory=-1.0, measured=fit, tol=tol)


def test_a_rate_tolerance_may_be_at_most_half_the_distance_to_the_competing_exponent() -> None:
    """tol <= |p - q| / 2 (inclusive, 1e-12 relative slack); larger refused; only rate claims checked."""
    rec = _rec(Seeds.POOLED, Kind.RATE, alternative=Alternative("the other rate", exponent=-0.5))
    _check_tolerance(rec, _rate_ev(0.25))
    _check_tolerance(rec, _rate_ev(0.25 * (1 + 1e-13)))
    for tol in (0.25 * (1 + 1e-9), 0.3, 0.49):
        with pytest.raises(ValueError, match="half the distance"):
            _check_tolerance(rec, _rate_ev(tol))
    upper = _rec(Seeds.POOLED, Kind.UPPER, alternative=Alternative("x", exponent=-0.5))
    _check_tolerance(upper, _rate_ev(0.49))


# ---------------------------------------------------------------- summary: findings and rival readings


def _result(
    cid: str, verdict: Verdict, prov: Provenance = Provenance.EXACT, consistency: bool = False
) -> Result:
    return Result(
        claim_id=cid, paper=cid.split(".")[0], reference="r", kind=Kind.UPPER, provenance=prov,
        statement="s", profile="quick", params={}, seeds=[0], theory=1.0, measured=0.5, slack=0.3,
        verdict=verdict, expected=Verdict.HOLDS, consistency=consistency,
    )  # fmt: skip


def test_violations_are_attributed_by_provenance() -> None:
    """Violated EXACT / EXACT-from-reviews / THIRD-PARTY -> findings when robust to our choices, else
    unsettled; QUESTION -> answers; DERIVED / RECONSTRUCTED -> mismatches; other verdicts are none of
    these; consistency checks counted apart."""
    P = Provenance
    results = [
        _result("zz.exact", Verdict.VIOLATED, P.EXACT),
        _result("zz.reviews", Verdict.VIOLATED, P.EXACT_FROM_REVIEWS),
        _result("zz.third", Verdict.VIOLATED, P.THIRD_PARTY),
        _result("zz.loose", Verdict.VIOLATED, P.EXACT),
        _result("zz.unjudged", Verdict.VIOLATED, P.EXACT),
        _result("zz.question", Verdict.VIOLATED, P.QUESTION),
        _result("zz.derived", Verdict.VIOLATED, P.DERIVED),
        _result("zz.recon", Verdict.VIOLATED, P.RECONSTRUCTED),
        _result("zz.error", Verdict.ERROR, P.EXACT),
        _result("zz.vacuous", Verdict.VACUOUS, P.QUESTION),
        _result("zz.cons", Verdict.VIOLATED, P.EXACT, consistency=True),
        _result("zz.cons2", Verdict.HOLDS, P.DERIVED, consistency=True),
        _result("zz.cons3", Verdict.HOLDS, P.QUESTION, consistency=True),
        _result("aa.one", Verdict.HOLDS, P.EXACT),
    ]
    for r in results[:3]:
        r.robust = True
    results[3].robust = False
    results[3].depends_on = [dict(choice="n", end=9, verdict="holds", at=None, below=None, above=None)]
    aa, zz = summarise(results)
    assert (aa.paper, zz.paper) == ("aa", "zz") and aa.claims == 1
    assert zz.findings == ["zz.exact", "zz.reviews", "zz.third"]
    assert zz.unsettled == ["zz.loose", "zz.unjudged"]
    assert zz.answers == ["zz.question"] and zz.mismatches == ["zz.derived", "zz.recon"]
    assert zz.claims == 10 and zz.verdicts["violated"] == 8 and zz.verdicts["error"] == 1
    assert dict(zz.consistency) == {"violated": 1, "holds": 2}
    table = summary_table(results)
    row = next(line for line in table.splitlines() if line.startswith("zz "))
    assert row.split()[-7:] == ["10", "3", "2", "1", "2", "2/3", "3/4"]  # robust/judged: 3 of 4
    assert "THIRD-PARTY), robust to our choices: zz.exact, zz.reviews, zz.third" in table
    assert "  zz.loose: depends on n: violated as run, holds at n=9" in table
    assert "  zz.unjudged: robustness: not judged" in table
    assert "(QUESTION): zz.question" in table and "(DERIVED, RECONSTRUCTED): zz.derived, zz.recon" in table


def test_expectation_and_attribution_of_a_result() -> None:
    """as_expected compares with the record's expectation; attribution: consistency before provenance."""
    r = _result("zz.a", Verdict.VACUOUS)
    assert not r.as_expected and r.unexpected_failure
    r.expected = Verdict.VACUOUS
    assert r.as_expected
    assert _result("zz.b", Verdict.HOLDS, Provenance.QUESTION, consistency=True).attribution == "consistency"
    assert _result("zz.c", Verdict.HOLDS, Provenance.QUESTION).attribution == "question"
    assert _result("zz.d", Verdict.HOLDS, Provenance.THIRD_PARTY).attribution == "paper"
    with pytest.raises(ValueError, match="non-finite"):
        to_jsonable(float("nan"))


def _records(**by_id: str) -> dict[str, ClaimRecord]:
    return {
        cid: ClaimRecord(
            id=cid,
            paper="zz",
            reference="r",
            kind=Kind.UPPER,
            provenance=Provenance.EXACT,
            statement="s",
            readings=text,
        )
        for cid, text in by_id.items()
    }


def test_rival_readings_group_two_or_more_claims_and_say_which_is_supported() -> None:
    """Groups of >= 2 claims sharing ``readings=`` (claim-id order); holds = supported, violated =
    refuted, the rest left open; a single reading or claims without readings form no group."""
    recs = _records(**{"zz.c": "W", "zz.a": "W", "zz.b": "W", "zz.d": "V", "zz.e": "", "zz.f": ""})
    results = [
        _result("zz.c", Verdict.INCONCLUSIVE),
        _result("zz.b", Verdict.VIOLATED),
        _result("zz.a", Verdict.HOLDS),
        _result("zz.d", Verdict.HOLDS),
        _result("zz.e", Verdict.HOLDS),
        _result("zz.f", Verdict.HOLDS),
    ]
    (g,) = readings(results, recs)
    assert g.statement == "W" and [m[0] for m in g.members] == ["zz.a", "zz.b", "zz.c"]
    assert g.verdict_text == "the measurements support zz.a; refute zz.b; leave open zz.c (inconclusive)"
    two = [_result("zz.a", Verdict.HOLDS), _result("zz.b", Verdict.HOLDS)]
    assert readings(two, recs)[0].verdict_text == "the measurements support zz.a, zz.b"
    none = [_result("zz.a", Verdict.VIOLATED), _result("zz.b", Verdict.ERROR)]
    assert readings(none, recs)[0].verdict_text == (
        "the measurements support no reading at these sizes; refute zz.a; leave open zz.b (error)"
    )
    assert "rival readings of W: the measurements support zz.a;" in summary_table(results, recs)
