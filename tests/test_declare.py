"""The value objects of a claim declaration (:mod:`verify.core.declare`, ``Plot.rate``): what they hold,
and a one-line error naming the parameter for bad input."""

from __future__ import annotations

from typing import Any

import pytest

from verify.core import (
    Ctx,
    Evidence,
    Expect,
    Kind,
    Plot,
    Profiles,
    Provenance,
    Report,
    SeedPlan,
    Seeds,
    Source,
    Verdict,
    claim,
)

_PLOT = Plot(x="t", curves=[("loss", "loss")], xlabel="$t$", ylabel="loss")


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: Source(1, Provenance.EXACT), TypeError, "Source.reference must be a string, got int"),
        (lambda: Source("Thm 1", "EXACTLY"), ValueError, "'EXACTLY' is not a valid Provenance"),
        (
            lambda: Source("Thm 1", Provenance.QUESTION, quote=None),
            TypeError,
            "Source.quote must be a string",
        ),
        (
            lambda: Profiles(quick=[("n", 1), 2]),
            TypeError,
            "Profiles.quick must map parameter names to values",
        ),
        (lambda: Profiles(paper={1: 2}), TypeError, "Profiles.paper must map parameter names to values"),
        (lambda: SeedPlan("often"), ValueError, "'often' is not a valid Seeds"),
        (lambda: SeedPlan(Seeds.EVERY, quick=2), ValueError, "SeedPlan.quick must be an int >= 3, got 2"),
        (
            lambda: SeedPlan(Seeds.POOLED, paper=9.5),
            ValueError,
            "SeedPlan.paper must be an int >= 10, got 9.5",
        ),
        (lambda: SeedPlan(quick=5), ValueError, "SeedPlan.quick: a seed count for a deterministic claim"),
        (lambda: SeedPlan(Seeds.POOLED, batched=True), ValueError, "SeedPlan.batched: only an 'every' or"),
        (lambda: SeedPlan(Seeds.EVERY, batched=1), TypeError, "SeedPlan.batched must be a bool, got int"),
        (lambda: Expect("fine"), ValueError, "'fine' is not a valid Verdict"),
        (lambda: Expect(consistency="yes"), TypeError, "Expect.consistency must be a bool, got str"),
        (lambda: Expect(readings=3), TypeError, "Expect.readings must be a string, got int"),
        (lambda: Expect(Verdict.INCONCLUSIVE, also="violated"), ValueError, "Expect.also needs Expect.why"),
        (lambda: Expect(why="a rate at its threshold"), ValueError, "Expect.why goes with Expect.also"),
        (
            lambda: Expect(Verdict.HOLDS, also=Verdict.VIOLATED, why="w"),
            ValueError,
            "Expect.also: a borderline claim expects inconclusive and one of holds / violated, got holds",
        ),
        (
            lambda: Expect(Verdict.INCONCLUSIVE, also=Verdict.ERROR, why="w"),
            ValueError,
            "Expect.also: a borderline claim expects inconclusive and one of holds / violated",
        ),
        (lambda: Report(" "), ValueError, "Report.tex must be a non-empty string or None"),
        (lambda: Report("x", {"x": "t"}), TypeError, "Report: each panel must be a Plot, got dict"),
        (lambda: Plot.rate("1/2", "n", [("y", "y")], "$n$", "y"), TypeError, "Plot.rate: exponent must be"),
        (
            lambda: Plot.rate(-1, "n", [("y", "y")], "size", "y"),
            ValueError,
            "Plot.rate: xlabel 'size' has no",
        ),
    ],
)
def test_bad_input_is_one_line_naming_the_parameter(make: Any, error: type, message: str) -> None:
    with pytest.raises(error) as err:
        make()
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        (dict(source="Thm 1"), "claim 'toyd.x': source must be Source(...), got str"),
        (dict(profiles={"n": 1}), "claim 'toyd.x': profiles must be Profiles(...), got dict"),
        (dict(seeds=Seeds.EVERY), "claim 'toyd.x': seeds must be SeedPlan(...), got Seeds"),
        (dict(expect=Verdict.VIOLATED), "claim 'toyd.x': expect must be Expect(...), got Verdict"),
        (dict(report=_PLOT), "claim 'toyd.x': report must be Report(...), got Plot"),
    ],
)
def test_claim_takes_the_value_objects_only(kw: dict, message: str) -> None:
    kw = dict(source=Source("Thm 1", Provenance.DERIVED)) | kw
    with pytest.raises(TypeError) as err:
        claim("toyd.x", kind=Kind.UPPER, statement="s", **kw)
    assert str(err.value) == message


def test_the_value_objects_hold_what_the_record_keeps() -> None:
    assert Source(" Thm 1 ", "EXACT", quote=" a review ") == Source("Thm 1", Provenance.EXACT, "a review")
    assert Profiles(quick={"n": 2, "d": 1}).quick == (("d", 1), ("n", 2))
    assert SeedPlan().counts == {} and SeedPlan(Seeds.BINOMIAL, quick=20).counts == {"quick": 20, "paper": 10}
    assert Expect(Verdict.VIOLATED, paper="holds").paper == Verdict.HOLDS
    assert Report().tex == "" and Report("  $x$ ", _PLOT).plots == (_PLOT,)

    @claim(
        "toyd.whole",
        Source("Thm 1", Provenance.QUESTION, quote="a review"),
        kind=Kind.UPPER,
        statement="s",
        profiles=Profiles(quick=dict(n=3), paper=dict(n=30)),
        seeds=SeedPlan(Seeds.EVERY, quick=4, experiment="shared"),
        expect=Expect(Verdict.VIOLATED, paper=Verdict.HOLDS, readings="n's order"),
        report=Report("$n$", _PLOT),
    )
    def whole(ctx: Ctx, *, n: int) -> Evidence:
        """A toy whose record holds every value object."""
        return Evidence(theory=1.0, measured=n)

    from verify.core.registry import _unregister

    try:
        rec = whole.record  # type: ignore[attr-defined]
        assert (rec.reference, rec.provenance, rec.source) == ("Thm 1", Provenance.QUESTION, "a review")
        assert (rec.quick, rec.paper_params, rec.n_seeds) == (
            (("n", 3),),
            (("n", 30),),
            (("paper", 10), ("quick", 4)),
        )
        assert (rec.seeds, rec.batched, rec.experiment) == (Seeds.EVERY, False, "shared")
        assert (rec.expect, rec.expect_paper, rec.consistency, rec.readings) == (
            "violated",
            "holds",
            False,
            "n's order",
        )
        assert (rec.tex, rec.plot) == ("$n$", (_PLOT,))
    finally:
        _unregister("toyd.whole")


def test_a_rate_panel_takes_its_slope_axes_and_legend_from_the_exponent() -> None:
    p = Plot.rate(-0.5, "t", [("err", "error")], "GD steps $T$", "error")
    assert (p.slope, p.logx, p.logy, p.theory_label) == (-0.5, True, True, "theory: $T^{-1/2}$")
    assert Plot.rate(2, "d", [("w", "w")], r"width $d_m$ ($d=2N$)", "w", logy=False).theory_label == (
        "theory: $d_m^{2}$"
    )
    assert Plot.rate(-1, "t", [("e", "e")], r"$T/T_0$", "e", symbol="T").theory_label == "theory: $T^{-1}$"
    assert Plot.rate(0.0, "H", [("e", "e")], "$H$", "e", theory_label="constant").theory_label == "constant"
    assert isinstance(Plot.rate(-1, "n", [("e", "e")], "$n$", "e").slope, float)
