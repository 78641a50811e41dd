"""The claim battery (:mod:`verify.testing`) on toy claims: the checks each kind of claim gets, an
expected violation as a strict xfail with its record's reason, and checks that fail when the claim
does not do what its record says."""

from __future__ import annotations

import pytest

from tests.support import toy_claim, toy_cleanup  # noqa: F401 (toy_cleanup: autouse fixture)
from verify.core import Alternative, Choice, Ctx, Evidence, Expect, Kind, Profiles, SeedPlan, Seeds, Verdict
from verify.testing import STABILITY_BASES, Check, claim_checks, default_base

EVERY = dict(seeds=SeedPlan(Seeds.EVERY, quick=3, paper=10))


def _checks(paper: str, profile: str = "quick") -> dict[str, Check]:
    return {c.name: c for c in claim_checks(paper, profile)}


def _marks(check: Check) -> list[str]:
    return [m.name for m in check.param().marks]  # type: ignore[attr-defined]


def test_a_deterministic_consistency_check_gets_its_verdict_and_paper_profile() -> None:
    @toy_claim("toyb1.identity", kind=Kind.IDENTITY, expect=Expect(consistency=True))
    def identity(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=1.0, rtol=1e-12)

    checks = _checks("toyb1")
    assert list(checks) == ["verdict", "paper"]
    checks["verdict"]()
    assert checks["verdict"].id == "toyb1.identity-verdict" and _marks(checks["verdict"]) == []
    assert checks["paper"].slow and _marks(checks["paper"]) == ["slow", "skipif"]


def test_a_seeded_claim_about_a_paper_gets_stability_and_its_alternative_world() -> None:
    @toy_claim("toyb2.upper", alternative=Alternative("the bound 4x tighter", factor=4.0), **EVERY)
    def upper(ctx: Ctx) -> Evidence:
        """toy: measured 0.5 of a bound 1 at every seed"""
        return Evidence(theory=1.0, measured=0.5)

    checks = _checks("toyb2")
    assert list(checks) == [
        "verdict",
        "stability@1000",
        "stability@2000",
        "stability@3000",
        "alternative",
        "paper",
    ]
    for name in ("verdict", "stability@1000", "alternative"):
        checks[name]()
    # one further seed set by default, fixed by the claim's id; the other two with --runslow
    slow = {b for b in STABILITY_BASES if checks[f"stability@{b}"].slow}
    assert slow == set(STABILITY_BASES) - {default_base("toyb2.upper")}
    assert _marks(checks[f"stability@{min(slow)}"]) == ["slow", "skipif"]


def test_an_alternative_world_that_fails_only_at_the_default_seeds_fails_a_stability_check() -> None:
    """The falsifier is judged at every stability set: a world violated at seeds 0-2 but not from 2000 on
    (its measurement crosses the bound there) fails ``stability@2000``, not ``alternative``."""

    @toy_claim(
        "toyb5.upper",
        alternative=Alternative("m above the bound", overrides={"m": 2.0}),
        choices={"m": Choice(0.5, range=(0.4, 0.6), reason="a toy's measurement")},
        **EVERY,
    )
    def upper(ctx: Ctx, *, m: float) -> Evidence:
        """toy: measured m at seeds below 2000, 0.5 from 2000 on, against a bound 1"""
        return Evidence(theory=1.0, measured=m if ctx.seed < 2000 else 0.5)

    checks = _checks("toyb5")
    for name in ("verdict", "alternative", "stability@1000"):
        checks[name]()
    with pytest.raises(AssertionError, match=r"toyb5\.upper at seeds from 2000: in its alternative world"):
        checks["stability@2000"]()


def test_the_default_stability_bases_spread_over_the_three() -> None:
    from tests.support import builtin_registry

    ids = [cid for cid, c in builtin_registry().items() if c.record.seeds != Seeds.NONE]
    counts = [sum(default_base(cid) == b for cid in ids) for b in STABILITY_BASES]
    assert min(counts) >= len(ids) // 5, counts


def test_an_expected_violation_is_a_strict_xfail_with_its_records_reason() -> None:
    @toy_claim(
        "toyb3.finding",
        kind=Kind.LOWER,
        expect=Expect(Verdict.VIOLATED),
        choices={"m": Choice(0.5, range=(0.4, 0.6), reason="a toy's measurement")},
        alternative=Alternative("a measurement above the bound", overrides={"m": 2.0}, expect=Verdict.HOLDS),
        **EVERY,
    )
    def finding(ctx: Ctx, *, m: float) -> Evidence:
        """toy: measured m below the claimed lower bound 1, at every seed and every admissible m"""
        return Evidence(theory=1.0, measured=m)

    checks = _checks("toyb3")
    assert list(checks) == [
        "verdict", "holds", "stability@1000", "stability@2000", "stability@3000",
        "alternative", "robust", "paper",
    ]  # fmt: skip
    holds = checks["holds"]
    assert holds.xfail == "expected violated (EXACT, toy): toy; see the errata"
    (xfail,) = holds.param().marks  # type: ignore[attr-defined]
    assert xfail.name == "xfail" and xfail.kwargs == {"strict": True, "reason": holds.xfail}
    with pytest.raises(AssertionError, match=r"toyb3\.finding: violated"):
        holds()
    assert not any(checks[f"stability@{b}"].slow for b in STABILITY_BASES)  # a finding: every set
    for name in ("verdict", "stability@3000", "alternative", "robust"):
        checks[name]()


def test_a_violation_of_the_papers_own_statement_must_be_judged_over_its_choices() -> None:
    @toy_claim(
        "toyb4.bare",
        expect=Expect(Verdict.VIOLATED),
        profiles=Profiles(quick=dict(m=2.0)),
        alternative=Alternative("a measurement below the bound", overrides={"m": 0.5}, expect=Verdict.HOLDS),
    )
    def bare(ctx: Ctx, *, m: float) -> Evidence:
        """toy: violated, with no choices declared"""
        return Evidence(theory=1.0, measured=m)

    with pytest.raises(AssertionError, match="not judged over its choices"):
        _checks("toyb4")["robust"]()


def test_the_checks_fail_when_the_claim_does_not_reach_its_record() -> None:
    @toy_claim("toyb5.broken", alternative=Alternative("x", factor=4.0))
    def broken(ctx: Ctx) -> Evidence:
        """toy: violated, but its record expects holds"""
        return Evidence(theory=1.0, measured=2.0)

    @toy_claim("toyb5.crash", alternative=Alternative("x", factor=4.0))
    def crash(ctx: Ctx) -> Evidence:
        """toy: raises"""
        raise RuntimeError("boom")

    checks = {c.id: c for c in claim_checks("toyb5", "quick")}
    with pytest.raises(AssertionError, match=r"toyb5\.broken: violated, expected holds"):
        checks["toyb5.broken-verdict"]()
    with pytest.raises(AssertionError, match=r"toyb5\.crash errs"):
        checks["toyb5.crash-verdict"]()


def test_a_claim_out_of_its_regime_is_falsified_in_the_paper_profile_only() -> None:
    @toy_claim(
        "toyb6.regime",
        expect=Expect(Verdict.OUT_OF_REGIME, paper=Verdict.HOLDS),
        alternative=Alternative("x", factor=4.0),
    )
    def regime(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=0.5, failed=["a premise"])

    quick, paper = _checks("toyb6")["alternative"], _checks("toyb6", "paper")["alternative"]
    assert quick.skip.startswith(
        "toyb6.regime leaves its premises at quick sizes: it is judged, and falsified"
    )
    assert _marks(quick) == ["skip"] and not paper.skip


def test_an_unknown_paper_is_an_error() -> None:
    with pytest.raises(LookupError, match="no claims of paper 'nosuchpaper'"):
        claim_checks("nosuchpaper")
