"""Verdicts robust to our own choices: the Choice record, its registry checks, the robustness rule
(points judged, bisection, depends_on), and its JSON."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reports.latex import paper_table
from verify.cli import main, match_claims
from verify.core import (
    Choice,
    Ctx,
    Evidence,
    Expect,
    Kind,
    Profiles,
    Provenance,
    Result,
    Rule,
    Source,
    Verdict,
    claim,
    experiment,
    run_claim,
)
from verify.core.choices import RESOLUTION
from verify.core.parallel import run_claims
from verify.core.registry import _unregister, get_claim
from verify.core.results import (
    ResultsError,
    read_results,
    result_from_dict,
    result_from_json,
    result_to_dict,
    result_to_json,
)
from verify.core.summary import summarise, summary_table

IDS = ("toy.ch.linear", "toy.ch.geometric", "toy.ch.int", "toy.ch.robust", "toy.ch.set", "toy.ch.rule")
IDS += ("toy.ch.none", "toy.ch.crash", "toy.ch.broken", "toy.ch.small", "toy.ch.finding", "toy.ch.unsettled")
IDS += ("toy.ch.profile", "toy.ch.partial", "toy.ch.sweep", "toy.ch.grid", "toy.ch.kept", "toy.ch.reads")
#: The values each toy claim was run at, in order (the bisection's path).
SEEN: dict[str, list[Any]] = {}


def _seen(cid: str, value: Any) -> None:
    SEEN.setdefault(cid, []).append(value)


def _toy(cid: str, kind: Kind = Kind.UPPER, **kw: Any) -> Any:
    return claim(cid, Source("--", Provenance.DERIVED), kind=kind, statement="toy", **kw)


def _register() -> None:
    @_toy("toy.ch.linear", choices={"x": Choice(0.5, range=(0.0, 2.0), reason="r", basis="pilot")})
    def linear(ctx: Ctx, *, x: float) -> Evidence:
        """x <= 1: holds below 1, violated above."""
        _seen("toy.ch.linear", x)
        return Evidence(theory=1.0, measured=x)

    @_toy("toy.ch.geometric", choices={"eps": Choice(1e-3, range=(1e-6, 1e-1), reason="r")})
    def geometric(ctx: Ctx, *, eps: float) -> Evidence:
        """eps <= 1e-2, over a range spanning 1e5."""
        _seen("toy.ch.geometric", eps)
        return Evidence(theory=1e-2, measured=eps)

    @_toy(
        "toy.ch.int",
        kind=Kind.LOWER,
        choices={"n": Choice(150, range=(50, 300), reason="r", basis="paper's range")},
    )
    def integer(ctx: Ctx, *, n: int) -> Evidence:
        """n >= 97 (integer n)."""
        assert isinstance(n, int)
        _seen("toy.ch.int", n)
        return Evidence(theory=97, measured=n)

    @_toy("toy.ch.robust", choices={"x": Choice(0.5, range=(0.1, 0.9), reason="r", basis="paper")})
    def robust(ctx: Ctx, *, x: float) -> Evidence:
        """x <= 1 over [0.1, 0.9]: holds at every point."""
        return Evidence(theory=1.0, measured=x)

    @_toy(
        "toy.ch.set",
        choices={
            "metric": Choice("iterations", options=("iterations", "multiply-adds"), reason="r"),
            "x": Choice(0.5, basis="single", reason="the paper's value"),
        },
    )
    def options(ctx: Ctx, *, metric: str, x: float) -> Evidence:
        """Holds by iterations, violated by multiply-adds."""
        return Evidence(theory=1.0, measured=x if metric == "iterations" else 3.0)

    @_toy(
        "toy.ch.rule",
        choices={"cap": Choice(Rule(2.0, "a cap"), range=(0.5, 4.0), reason="r")},
    )
    def rule(ctx: Ctx) -> Evidence:
        """1 <= cap: holds for cap >= 1."""
        return Evidence(theory=ctx.rule("cap"), measured=1.0)

    @_toy("toy.ch.small", kind=Kind.LOWER, choices={"n": Choice(8, range=(1, 10), reason="r", basis="pilot")})
    def small(ctx: Ctx, *, n: int) -> Evidence:
        """n >= 4 over a range of 9 integers."""
        _seen("toy.ch.small", n)
        return Evidence(theory=4, measured=n)

    @_toy("toy.ch.broken", choices={"x": Choice(0.5, range=(0.0, 1.0), reason="r", basis="pilot")})
    def broken(ctx: Ctx, *, x: float) -> Evidence:
        """Raises at every x."""
        raise RuntimeError("never runs")

    @_toy("toy.ch.none", profiles=Profiles(quick={"x": 0.5}))
    def none(ctx: Ctx, *, x: float) -> Evidence:
        """No choices declared."""
        return Evidence(theory=1.0, measured=x)

    @_toy("toy.ch.crash", choices={"x": Choice(0.5, range=(0.0, 2.0), reason="r", basis="pilot")})
    def crash(ctx: Ctx, *, x: float) -> Evidence:
        """Raises above 1.5."""
        if x > 1.5:
            raise RuntimeError("too far")
        return Evidence(theory=1.0, measured=x)

    metered = {  # n, and a metric the paper profile moves off its options ("wall-clock")
        "n": Choice(100, range=(50, 300), reason="half to three times ours"),
        "metric": Choice("iterations", options=("iterations", "multiply-adds"), reason="r", basis="pilot"),
    }

    @_toy(
        "toy.ch.profile",
        kind=Kind.LOWER,
        profiles=Profiles(paper={"n": 1000, "metric": "wall-clock"}),
        choices=metered,
    )
    def profiled(ctx: Ctx, *, n: int, metric: str) -> Evidence:
        """n >= 600: violated at the quick n = 100 over its whole range, holds at the paper's n = 1000
        but not over the range moved with it (500 to 3000)."""
        _seen("toy.ch.profile", n)
        return Evidence(theory=600, measured=n)

    @_toy(
        "toy.ch.partial",
        kind=Kind.LOWER,
        profiles=Profiles(paper={"n": 5000, "metric": "wall-clock"}),
        choices=metered,
    )
    def partial(ctx: Ctx, *, n: int, metric: str) -> Evidence:
        """n >= 600: holds over the paper profile's moved range (2500 to 15000)."""
        return Evidence(theory=600, measured=n)

    @_toy(
        "toy.ch.grid",
        profiles=Profiles(paper={"grid": (16, 32, 64)}),
        choices={"grid": Choice((8, 16), options=((8, 16), (8, 16, 32), (4, 8)), reason="r", basis="pilot")},
    )
    def grid(ctx: Ctx, *, grid: tuple) -> Evidence:
        """max(grid) <= 64."""
        _seen("toy.ch.grid", grid)
        return Evidence(theory=64, measured=max(grid))

    @_toy(
        "toy.ch.sweep",
        kind=Kind.LOWER,
        profiles=Profiles(quick={"grid": (1, 2, 3)}),
        choices={"cap": Choice(Rule(10.0, "a cap"), range=(5.0, 20.0), reason="r")},
    )
    def sweep(ctx: Ctx, *, grid: tuple) -> Evidence:
        """sum of the points' squares >= cap: 14 >= 10; ctx.map over hashable and unhashable points."""
        vals = ctx.map(_square, [(x,) for x in grid])
        total = sum(v[1] for v in vals)
        _seen("toy.ch.sweep.read", vals[0][1])
        vals[0][1] = -1.0  # a consumer that mutates what it got must not change what the next one reads
        ctx.map(_square, [[x] for x in grid])  # lists: no frozen value, computed every time
        return Evidence(theory=ctx.rule("cap"), measured=total)

    @_toy(
        "toy.ch.kept",
        kind=Kind.LOWER,
        choices={
            "cap": Choice(Rule(4.0, "a cap"), range=(2.0, 16.0), reason="r"),
            "n": Choice(2, range=(1, 4), reason="r"),
        },
    )
    def kept(ctx: Ctx, *, n: int) -> Evidence:
        """3 n >= cap, 3 n from an experiment of n (kept across the choice points: n is a call of its
        own, cap is none)."""
        out = _grid_sum(ctx, n, grid=[1, 2])
        total, out["sum"] = out["sum"], -1.0  # a consumer that mutates its copy changes no other read
        return Evidence(theory=ctx.rule("cap"), measured=total)

    @_toy("toy.ch.reads", choices={"cap": Choice(Rule(4.0, "a cap"), range=(2.0, 16.0), reason="r")})
    def reads(ctx: Ctx) -> Evidence:
        """An experiment that reads a pass rule: an error naming the experiment and the rule."""
        return Evidence(theory=1.0, measured=_reads_cap(ctx))

    for cid, lo in (("toy.ch.finding", 0.1), ("toy.ch.unsettled", 2.0)):

        @claim(
            cid,
            Source("--", Provenance.EXACT),
            kind=Kind.LOWER,
            statement="toy: m >= 3",
            expect=Expect(Verdict.VIOLATED),
            choices={"m": Choice(2.5, range=(lo, 4.0 if lo > 1 else 2.9), reason="r", basis="pilot")},
        )
        def finding(ctx: Ctx, *, m: float) -> Evidence:
            """A violation of the paper's own m >= 3: for every m of toy.ch.finding's range, and only
            below 3 in toy.ch.unsettled's."""
            return Evidence(theory=3.0, measured=m)


def _square(point: Any) -> list[float]:
    """A sweep worker: [x, x^2] of a point (x,), counted in SEEN."""
    _seen("toy.ch.sweep", type(point).__name__)
    return [float(point[0]), float(point[0]) ** 2]


@experiment
def _grid_sum(ctx: Ctx, n: int, grid: list[int]) -> dict[str, float]:
    """An experiment: n times the grid's sum, counted in SEEN (ctx.seed, n)."""
    _seen("toy.ch.kept", (ctx.seed, n))
    return {"sum": float(n * sum(grid))}


@experiment
def _reads_cap(ctx: Ctx) -> float:
    return ctx.rule("cap")


@pytest.fixture
def toys() -> Iterator[None]:
    _register()
    SEEN.clear()
    yield
    for cid in IDS:
        _unregister(cid)


def _robust(cid: str, **kw: Any) -> Result:
    return run_claim(cid, robust=True, raise_errors=True, **kw)


# ---------------------------------------------------------------- the rule


def test_linear_range_flips_at_its_breakpoint(toys: None) -> None:
    r = _robust("toy.ch.linear")
    assert r.verdict == Verdict.HOLDS and r.robust is False
    [e] = r.depends_on  # the end 0 holds: no entry for it
    assert (e["choice"], e["end"], e["verdict"], e["below"], e["above"]) == (
        "x",
        2.0,
        "violated",
        "holds",
        "violated",
    )
    assert 1.0 < e["at"] <= 1.0 + RESOLUTION * 1.5  # upper end of the final bracket, span 0.5 -> 2
    path = SEEN["toy.ch.linear"]
    assert path[:4] == [0.5, 0.0, 2.0, 1.25]  # the value, the ends, then linear midpoints
    assert len(path) == 3 + 6  # 6 bisection steps to 1/64 of the span
    assert any("depends on x: violated for x >= 1." in n and "holds below" in n for n in r.notes)


def test_geometric_range_bisects_in_log(toys: None) -> None:
    r = _robust("toy.ch.geometric")
    [e] = r.depends_on
    assert (e["end"], e["below"], e["above"]) == (0.1, "holds", "violated")
    path = SEEN["toy.ch.geometric"]
    assert path[3] == pytest.approx(1e-2)  # sqrt(1e-3 * 1e-1), not the linear 0.0505
    assert len(path) == 3 + 6
    assert 1e-2 < e["at"] <= 1e-2 * math.exp(RESOLUTION * math.log(100)) * (1 + 1e-12)


def test_integer_range_finds_the_integer_breakpoint(toys: None) -> None:
    r = _robust("toy.ch.int")
    assert r.robust is False
    [e] = r.depends_on
    assert (e["end"], e["verdict"], e["at"], e["below"], e["above"]) == (
        50,
        "violated",
        97,
        "violated",
        "holds",
    )
    assert type(e["at"]) is int
    assert SEEN["toy.ch.int"] == [150, 50, 100, 75, 88, 94, 97, 96, 300]  # rounded midpoints, to 1 apart
    assert any("holds for n >= 97, violated below" in n for n in r.notes)
    assert _robust("toy.ch.small").depends_on[0]["at"] == 4  # a span under 64 integers: down to 1 apart
    assert SEEN["toy.ch.small"] == [8, 1, 4, 2, 3, 10]


def test_same_verdict_over_the_range_is_robust(toys: None) -> None:
    r = _robust("toy.ch.robust")
    assert r.robust is True and r.depends_on == []
    assert r.notes[-1] == "robust: holds at every choice point (x at 0.1, 0.9; 2 runs)"


def test_set_choice_names_the_option(toys: None) -> None:
    r = _robust("toy.ch.set")
    assert r.robust is False
    assert r.depends_on == [
        {
            "choice": "metric",
            "end": "multiply-adds",
            "verdict": "violated",
            "at": None,
            "below": None,
            "above": None,
        }
    ]
    assert "depends on metric: holds as run, violated at metric='multiply-adds'" in r.notes


def test_rule_choice_overrides_the_rule(toys: None) -> None:
    assert run_claim("toy.ch.rule", rules={"cap": 0.5}).verdict == Verdict.VIOLATED
    with pytest.raises(ValueError, match="no pass rules \\['kap'\\]"):
        run_claim("toy.ch.rule", rules={"kap": 1.0})
    r = _robust("toy.ch.rule")
    [e] = r.depends_on
    assert (e["end"], e["below"], e["above"]) == (0.5, "violated", "holds")
    assert 1.0 <= e["at"] <= 1.0 + RESOLUTION * 1.5


def test_no_choices_is_not_robust_but_unjudged(toys: None) -> None:
    r = _robust("toy.ch.none")
    assert r.robust is None and r.depends_on == []
    assert r.notes[-1] == "robustness: not judged, no choices declared"
    assert run_claim("toy.ch.robust").robust is None  # a plain run judges nothing


def test_an_error_at_a_point_is_a_note(toys: None) -> None:
    r = _robust("toy.ch.crash")
    assert r.verdict == Verdict.HOLDS and r.robust is None and r.depends_on == []
    assert r.notes[-1] == "robustness: not judged, x=2.0 gave error: RuntimeError: too far"


def test_an_error_at_the_value_is_not_judged(toys: None) -> None:
    r = run_claim("toy.ch.broken", robust=True)
    assert r.verdict == Verdict.ERROR and r.robust is None
    assert r.notes[-1] == "robustness: not judged, the verdict at the values is error"


def test_a_run_off_the_declared_value_is_not_judged(toys: None) -> None:
    r = _robust("toy.ch.linear", x=0.7)
    assert r.robust is None and "this run moves x=0.7 (declared 0.5)" in r.notes[-1]
    with pytest.raises(ValueError, match="paper world only"):
        run_claim("toy.ch.linear", robust=True, world="alternative")


def test_a_range_moves_with_the_value_a_profile_moves(toys: None) -> None:
    quick = _robust("toy.ch.profile")
    assert quick.verdict == Verdict.VIOLATED and quick.robust is True
    assert SEEN["toy.ch.profile"] == [100, 100, 50, 300]  # the value, the other metric, the ends of n
    paper = _robust("toy.ch.profile", profile="paper")
    assert paper.verdict == Verdict.HOLDS and paper.robust is False
    [e] = paper.depends_on  # the range (50, 300) moved x10 with n: its end 500 is violated
    assert (e["choice"], e["end"], e["below"], e["above"]) == ("n", 500, "violated", "holds")
    assert 600 <= e["at"] <= 600 + RESOLUTION * 500  # the bisection of the moved range
    assert paper.notes[-1] == (
        "not judged over what this profile moves and no range carries: metric='wall-clock' "
        "(declared 'iterations', {'iterations', 'multiply-adds'})"
    )
    partial = _robust("toy.ch.partial", profile="paper")  # robust over n, the metric left out
    assert partial.verdict == Verdict.HOLDS and partial.robust is None and partial.depends_on == []
    assert partial.notes[-1].startswith(
        "robustness: not judged in full: holds at every choice point judged (n at 2500, 15000; 2 runs), "
        "not judged over what this profile moves and no range carries: metric='wall-clock'"
    )


def test_options_follow_a_grid_the_profile_moves(toys: None) -> None:
    r = _robust("toy.ch.grid", profile="paper")
    assert r.verdict == Verdict.HOLDS and r.robust is False
    # the grid (8, 16) moved to (16, 32, 64): its options (8, 16, 32) (append x2) and (4, 8) (scale x0.5)
    # became (16, 32, 64, 128) and (8, 16, 32); the verdict (max grid <= 64) flips at the first
    [e] = r.depends_on
    assert (e["choice"], e["end"], e["verdict"]) == ("grid", [16, 32, 64, 128], "violated")
    assert SEEN["toy.ch.grid"] == [(16, 32, 64), (16, 32, 64, 128), (8, 16, 32)]  # tuples, as declared


def test_a_judged_claim_computes_each_sweep_point_once(toys: None) -> None:
    plain = run_claim("toy.ch.sweep")
    assert plain.robust is None and len(SEEN["toy.ch.sweep"]) == 6  # no memo outside a judged run
    SEEN.clear()
    r = _robust("toy.ch.sweep")
    [e] = r.depends_on  # 14 >= cap: holds up to 14, violated at the end 20
    assert (e["end"], e["below"], e["above"]) == (20.0, "holds", "violated")
    runs = 1 + 2 + 6  # the run, the two ends, the bisection toward 20
    assert SEEN["toy.ch.sweep"].count("tuple") == 3  # frozen points: once over all runs
    assert SEEN["toy.ch.sweep"].count("list") == 3 * runs  # unhashable points: at every run
    assert r.measured == plain.measured == 14.0
    assert SEEN["toy.ch.sweep.read"] == [1.0] * runs  # read back after a run mutated its copy: the same


def test_an_experiment_is_computed_once_per_call_over_the_choice_points(toys: None) -> None:
    """A choice point that moves a rule reruns no experiment; one that moves the experiment's argument
    computes that call once; outside a judged run every run computes it."""
    plain = run_claim("toy.ch.kept")
    assert plain.verdict == Verdict.HOLDS and SEEN["toy.ch.kept"] == [(0, 2)]
    SEEN.clear()
    r = _robust("toy.ch.kept")
    assert r.measured == plain.measured == 6.0 and r.robust is False
    cap, n = r.depends_on  # 6 >= cap up to 6 (the copies read back unchanged); n = 1 gives 3 < 4
    assert (cap["choice"], cap["below"], cap["above"]) == ("cap", "holds", "violated")
    assert 6.0 <= cap["at"] <= 6.0 + RESOLUTION * 12.0 and (n["choice"], n["at"]) == ("n", 2)
    assert r.notes[0].startswith("not robust (10 runs: cap at 2, 16, n at 1, 4 and bisections)")
    assert SEEN["toy.ch.kept"] == [(0, 2), (0, 1), (0, 4)]  # each n once over the 10 runs


def test_an_experiment_that_reads_a_rule_is_an_error(toys: None) -> None:
    with pytest.raises(RuntimeError, match=r"experiment _reads_cap read the pass rule 'cap'"):
        run_claim("toy.ch.reads", raise_errors=True)


def test_at_value_moves_a_range_and_a_set_of_options() -> None:
    ch = Choice(100, range=(50, 300), reason="r")
    assert ch.at_value(100) is ch
    moved = ch.at_value(1000)
    assert (moved.value, moved.range, moved.basis) == (1000, (500, 3000), "plausible")  # the default
    assert moved.reason == "r (range moved with the value, x10)"
    assert ch.at_value(150).range == (75, 450)
    assert Choice(3, range=(2, 5), reason="r", basis="pilot").at_value(4).range == (2, 7)  # rounded outwards
    assert Choice(0.5, range=(0.25, 1.0), reason="r", basis="pilot").at_value(0.05).range == pytest.approx(
        (0.025, 0.1)
    )
    at_end = Choice(0.3, range=(0.1, 0.3), reason="r").at_value(0.9)  # 0.3 * (0.9 / 0.3) < 0.9
    assert at_end.range[1] == at_end.value == 0.9 and at_end.range[0] == pytest.approx(0.3)
    kept = Choice("a", options=("a", "b"), reason="r", basis="pilot").at_value("b")
    assert (kept.value, kept.options) == ("b", ("a", "b"))  # the profile's value is one of the options
    assert kept.reason == "r (the profile's value is one of the options)"
    ks = Choice((0, 50, 200), options=((0, 50, 200), (0, 100, 400), (0, 50, 200, 800)), reason="r")
    grid = ks.at_value((0, 30, 90))
    assert grid.options == ((0, 30, 90), (0, 60, 180), (0, 30, 90, 360))
    assert grid.reason == "r (options moved with the value: scale x2, append x4)"
    search = Choice([2, 1, 20], options=([2, 1, 20], [2, 1, 40], [3, 1, 20]), reason="r")
    search = search.at_value([4, 8, 200])
    assert search.options == ([4, 8, 200], [4, 8, 400], [6, 8, 200])  # an entry x2, an entry x1.5
    assert Choice(8, options=(4, 8, 16), reason="r").at_value(32).options == (32, 16, 64)
    fig3 = Choice((10, 14, 18), options=((10, 14, 18), (10, 12, 14, 16, 18)), reason="r").at_value(
        (50, 70, 90)
    )
    assert fig3.options == ((50, 70, 90), (50, 60, 70, 80, 90))  # the value x5: every option x5, as a range
    assert fig3.reason == "r (options scaled with the value, x5)"
    for ch, value in (
        (Choice(1.0, range=(0.5, 2.0), reason="r", basis="pilot"), -1.0),  # a change of sign
        (Choice(0.0, range=(-1.0, 1.0), reason="r", basis="pilot"), 0.5),  # no factor from 0
        (Choice(4, range=(2, 8), reason="r", basis="pilot"), 4.5),  # an int choice moved off the integers
        (Choice("a", options=("a", "b"), reason="r", basis="pilot"), "c"),  # not an option
        (Choice((1, 2), options=((1, 2), (1, 3, 5)), reason="r", basis="pilot"), (3, 4)),  # no one change
        (Choice(1.0, basis="single", reason="the paper's"), 2.0),
    ):
        assert ch.at_value(value) is None, (ch, value)


# ---------------------------------------------------------------- JSON


def test_results_json_round_trips_robustness(toys: None) -> None:
    for cid in ("toy.ch.int", "toy.ch.set", "toy.ch.robust", "toy.ch.none"):
        r = _robust(cid)
        back = result_from_json(result_to_json(r))
        assert (back.robust, back.depends_on) == (r.robust, r.depends_on)
    d = result_to_dict(_robust("toy.ch.int"))
    old = {k: v for k, v in d.items() if k not in ("robust", "depends_on")}
    assert (result_from_dict(old).robust, result_from_dict(old).depends_on) == (None, [])
    with pytest.raises(ResultsError, match="depends_on: entries go with robust false"):
        result_from_dict(d | {"robust": True})
    with pytest.raises(ResultsError, match=r"depends_on\[0\].above: 'maybe' is not a Verdict"):
        result_from_dict(d | {"depends_on": [d["depends_on"][0] | {"above": "maybe"}]})
    with pytest.raises(ResultsError, match=r"depends_on\[0\]: must have the keys"):
        result_from_dict(d | {"depends_on": [{"choice": "n"}]})
    with pytest.raises(ResultsError, match="robust: must be a bool"):
        result_from_dict(old | {"robust": "yes"})


def test_record_lists_its_choices(toys: None) -> None:
    """A choice that names no basis is "plausible"."""
    d = get_claim("toy.ch.set").record.as_dict()["choices"]
    assert d["metric"] == {
        "value": "iterations",
        "range": None,
        "options": ["iterations", "multiply-adds"],
        "reason": "r",
        "basis": "plausible",
    }
    assert d["x"]["basis"] == "single" and d["x"]["range"] is None


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("kw", "error", "match"),
    [
        (dict(value=5, range=(0, 4)), ValueError, "outside its range"),
        (dict(value=1.0, range=(2.0, 2.0)), ValueError, "lo < hi"),
        (dict(value=1.0, range=(0.0, math.inf)), ValueError, "finite"),
        (dict(value=1, range=(0.5, 4)), TypeError, "integers"),
        (dict(value="a", range=(0, 1)), TypeError, "real number"),
        (dict(value=1.0, range=(0, 2), reason=" "), ValueError, "reason"),
        (dict(value=1.0, range=(0, 2), basis="taste"), ValueError, "basis must be one of"),
        (dict(value=1.0, range=(0, 2), basis="single"), ValueError, "'single' choice has no range"),
        (dict(value=1.0), ValueError, "exactly one of range"),
        (dict(value=1.0, range=(0, 2), options=(1.0, 2.0)), ValueError, "exactly one of range"),
        (dict(value="c", options=("a", "b")), ValueError, "not one of its options"),
        (dict(value="a", options=("a",)), ValueError, "at least two distinct"),
        (dict(value="a", options="ab"), TypeError, "sequence of values"),
    ],
)
def test_choice_validation(kw: dict[str, Any], error: type, match: str) -> None:
    value = kw.pop("value")
    with pytest.raises(error, match=match):
        Choice(value, **{"reason": "r"} | kw)


def test_geometric_only_for_positive_ranges_spanning_more_than_10x() -> None:
    geometric = lambda lo, hi: Choice(lo, range=(lo, hi), reason="r", basis="pilot").geometric  # noqa: E731
    assert geometric(1.0, 10.5) and not geometric(1.0, 10.0) and not geometric(0.0, 100.0)
    assert not geometric(-1.0, 100.0)


def test_choice_normalises_its_range() -> None:
    assert Choice(1.0, range=(0, 2), reason="r", basis="pilot").range == (0.0, 2.0)
    assert Choice(3, range=(1, 5), reason="r", basis="pilot").ends() == [1, 5]
    assert Choice(1, range=(1, 5), reason="r", basis="pilot").ends() == [5]


@pytest.mark.parametrize(
    ("choices", "rules", "error", "match"),
    [
        (
            {"y": Choice(0.5, range=(0, 1), reason="r", basis="pilot")},
            {},
            ValueError,
            r"choices \['y'\] name no keyword parameter of bad",
        ),
        (
            {"x": Choice(0.5, range=(0, 1), reason="r", basis="pilot")},
            {},
            ValueError,
            "'x' is declared twice, as a choice and in the quick profile",
        ),
        (
            {"t": Choice(Rule(0.2, "a"), range=(0, 1), reason="r", basis="pilot")},
            {"t": Rule(0.2, "a")},
            ValueError,
            "'t' is declared twice, as a choice and in rules=",
        ),
        ({"x": (0.0, 1.0)}, {}, TypeError, "must be a Choice"),
        (
            {"n": Choice(Rule(4, "a"), range=(1, 8), reason="r", basis="pilot")},
            {},
            ValueError,
            "choice 'n' names both a parameter and a rule",
        ),
    ],
)
def test_registry_checks_choices(choices: dict, rules: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):

        @_toy("toy.ch.bad", profiles=Profiles(quick={"x": 0.5, "n": 4}), rules=rules, choices=choices)
        def bad(ctx: Ctx, *, x: float, n: int) -> Evidence:
            """A bad declaration."""
            return Evidence(theory=1.0, measured=x)

    _unregister("toy.ch.bad")


def test_a_choice_declares_its_parameter_or_its_rule_once() -> None:
    """A parameter's choice supplies its quick value; ``Choice(Rule(...))`` declares the rule: the record
    keeps the rule (value, reason, source) and the choice (value, range, basis, reason)."""

    @_toy(
        "toy.ch.once",
        choices={
            "x": Choice(0.5, range=(0, 1), reason="r", basis="pilot"),
            "cap": Choice(Rule(2.0, "a cap", "paper"), range=(1.0, 4.0), reason="why"),
        },
    )
    def once(ctx: Ctx, *, x: float) -> Evidence:
        """Reads its parameter and its rule."""
        return Evidence(theory=ctx.rule("cap"), measured=x)

    try:
        rec = get_claim("toy.ch.once").record
        assert dict(rec.quick) == {"x": 0.5} and dict(rec.rules) == {"cap": Rule(2.0, "a cap", "paper")}
        assert dict(rec.choices)["cap"].as_dict() == {
            "value": 2.0,
            "range": [1.0, 4.0],
            "options": None,
            "reason": "why",
            "basis": "plausible",
        }
        assert run_claim("toy.ch.once").verdict == Verdict.HOLDS
    finally:
        _unregister("toy.ch.once")


# ---------------------------------------------------------------- shown


def test_cli_marks_and_explains_a_non_robust_verdict(
    toys: None, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:

    out = tmp_path / "r.json"
    assert (
        main(["run", "toy.ch.int", "toy.ch.robust", "toy.ch.none", "--robust", "--wide", "--json", str(out)])
        == 0
    )
    text = capsys.readouterr().out
    assert "toy.ch.int     holds~" in text and "toy.ch.robust  holds " in text
    assert "    - depends on n: holds for n >= 97, violated below" in text
    header, row = text.split("\n\n")[1].splitlines()[:2]
    assert header.endswith("robust/judged") and row.endswith(" 1/2")  # toy.ch.none: not judged
    saved = read_results(out)  # the file holds what the table shows
    assert [r.robust for r in saved] == [False, None, True]
    tex = paper_table("toy", saved)
    assert r"holds$^{\sim}$\newline{\scriptsize depends on \texttt{n}}" in tex
    assert tex.count(r"$^{\sim}$") == 1
    main(["run", "toy.ch.int"])
    assert "robust/judged" not in capsys.readouterr().out  # a plain run judges nothing


# ---------------------------------------------------------------- findings must be robust


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_default_run_counts_a_finding_only_when_robust(toys: None, jobs: int) -> None:
    claims = match_claims(["toy.ch.finding", "toy.ch.unsettled", "toy.ch.linear"])
    results = {r.claim_id: r for r in run_claims(claims, jobs=jobs, robust="findings")}
    assert results["toy.ch.finding"].robust is True
    assert results["toy.ch.unsettled"].robust is False
    assert results["toy.ch.unsettled"].depends_on[0]["at"] == pytest.approx(3.0, abs=2.0 * RESOLUTION)
    assert results["toy.ch.linear"].robust is None  # it holds: the findings mode leaves it
    (s,) = summarise(list(results.values()))
    assert s.findings == ["toy.ch.finding"] and s.unsettled == ["toy.ch.unsettled"]
    text = summary_table(list(results.values()))
    assert "robust to our choices: toy.ch.finding\n" in text
    assert "  toy.ch.unsettled: depends on m: holds for m >= 3" in text


def test_robust_mode_is_checked(toys: None) -> None:
    with pytest.raises(ValueError, match="robust must be one of"):
        run_claims(match_claims(["toy.ch.linear"]), robust="all")


def test_a_parameter_named_like_run_claims_first_argument_can_move() -> None:
    """A claim parameter ``c`` (run_claim's own first argument, positional-only) takes overrides and is
    moved by a robust run (it raised "got multiple values for argument 'c'")."""

    @_toy("toy.ch.c", choices={"c": Choice(0.5, range=(0.1, 0.9), reason="r", basis="pilot")})
    def named_c(ctx: Ctx, *, c: float) -> Evidence:
        """c <= 1 over its whole range."""
        return Evidence(theory=1.0, measured=c)

    try:
        assert _robust("toy.ch.c").robust is True
        assert run_claim("toy.ch.c", c=2.0).verdict == Verdict.VIOLATED
    finally:
        _unregister("toy.ch.c")
