"""The resolution of an alternative world (verify/core/resolution.py) on toy claims whose switch points
are known: a tightening factor and an exponent shift from the claim's own evidence (every run), a
numeric override bisected by runs (on demand), a categorical override (none); its JSON, the command
and the docs line."""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support import toy_claim, toy_cleanup  # noqa: F401 (toy_cleanup: autouse fixture)
from verify.cli import main
from verify.core import (
    Alternative,
    Ctx,
    Evidence,
    Expect,
    Interval,
    Kind,
    Profiles,
    SeedPlan,
    Seeds,
    Verdict,
    run_claim,
)
from verify.core.falsifier import resolve_alternative
from verify.core.format import fmt_resolution
from verify.core.registry import get_claim
from verify.core.resolution import (
    CATEGORICAL,
    FACTOR_RTOL,
    OVERRIDE_STEPS,
    SHIFT_RTOL,
)
from verify.core.results import read_results, result_from_dict, result_to_dict, write_results
from verify.docs import claim_section
from verify.numerics.fit import RateFit


def _within_factor(res: dict, true: float) -> None:
    """The bisection's value is a detected factor at most FACTOR_RTOL above the true switch point."""
    assert res["kind"] == "factor" and res["value"] is not None, res
    assert true * (1 - 1e-9) <= res["value"] <= true * (1 + FACTOR_RTOL) * (1 + 1e-9), (res, true)


# --- factor= : an upper bound whose worst ratio is known ------------------------------------------


def test_an_upper_bound_resolves_the_inverse_of_its_worst_ratio() -> None:
    @toy_claim("toyr.upper", alternative=Alternative("the bound 100x tighter", factor=100.0))
    def f(ctx: Ctx) -> Evidence:
        """worst ratio measured / bound = 0.2: any bound tightened more than 5-fold is violated."""
        return Evidence(theory=1.0, measured=0.2)

    r = run_claim("toyr.upper")
    assert r.verdict == Verdict.HOLDS and r.alternative["verdict"] == "violated"
    _within_factor(r.alternative["resolution"], 5.0)
    assert r.alternative["resolution"]["declared"] == 100.0
    assert any(n.startswith("resolution of the alternative world: 5") for n in r.notes), r.notes
    assert fmt_resolution(r.alternative["resolution"]).endswith("x of 100x")
    # it round-trips through a result and a results file
    assert result_from_dict(json.loads(json.dumps(result_to_dict(r)))).alternative == r.alternative


def test_every_seed_must_detect_the_factor_and_the_hard_side_decides(tmp_path: Path) -> None:
    """An ``every`` claim: the alternative needs violated at every seed, so the seed with the smallest
    ratio decides (1 / 0.25 = 4); with intervals the lower end must clear the tightened bound."""
    ms = {0: 0.5, 1: 0.25, 2: 0.4}

    @toy_claim("toyr.every", seeds=SeedPlan(Seeds.EVERY), alternative=Alternative("30x tighter", factor=30.0))
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=2.0, measured=2.0 * ms[ctx.seed])

    r = run_claim("toyr.every", seed_set=[0, 1, 2])
    _within_factor(r.alternative["resolution"], 4.0)
    write_results(tmp_path / "r.json", [r], "quick", 0)
    assert read_results(tmp_path / "r.json")[0].alternative == r.alternative

    @toy_claim("toyr.iv", seeds=SeedPlan(Seeds.EVERY), alternative=Alternative("30x tighter", factor=30.0))
    def g(ctx: Ctx) -> Evidence:
        """toy: lower ends 0.1, 0.125, 0.2 of a bound 1"""
        lo = {0: 0.2, 1: 0.1, 2: 0.125}[ctx.seed]
        return Evidence(theory=1.0, measured=0.3, interval=Interval(lo, 0.4, 0.95, "two-sided"), rtol=0.0)

    _within_factor(run_claim("toyr.iv", seed_set=[0, 1, 2]).alternative["resolution"], 10.0)


def test_a_lower_bound_resolves_too() -> None:
    @toy_claim("toyr.lower", kind=Kind.LOWER, alternative=Alternative("8x higher", factor=8.0))
    def f(ctx: Ctx) -> Evidence:
        """measured / bound = 3: a bound raised more than 3-fold is violated."""
        return Evidence(theory=1.0, measured=3.0)

    _within_factor(run_claim("toyr.lower").alternative["resolution"], 3.0)


def test_a_declared_factor_too_small_or_a_violated_bound_has_no_resolution() -> None:
    @toy_claim("toyr.short", alternative=Alternative("2x tighter", factor=2.0))
    def f(ctx: Ctx) -> Evidence:
        """ratio 0.1: 2x tighter still holds"""
        return Evidence(theory=1.0, measured=0.1)

    res = run_claim("toyr.short").alternative["resolution"]
    assert res["value"] is None and "not resolved" in res["note"] and res["declared"] == 2.0

    @toy_claim(
        "toyr.finding", expect=Expect(Verdict.VIOLATED), alternative=Alternative("2x tighter", factor=2.0)
    )
    def g(ctx: Ctx) -> Evidence:
        """ratio 3: the bound itself is violated"""
        return Evidence(theory=1.0, measured=3.0)

    res = run_claim("toyr.finding").alternative["resolution"]
    assert res["value"] is None and "already gives violated" in res["note"]


@given(
    ms=st.lists(st.floats(0.002, 0.9), min_size=1, max_size=4),
    scale=st.floats(1.0, 10.0),
)
def test_the_factor_resolution_is_monotone(ms: list[float], scale: float) -> None:
    """Against the true switch point (1 / the smallest ratio over the seeds, all of which must detect
    it) within the tolerance; and no larger when every ratio grows (a measurement nearer its bound
    resolves a nearer world)."""
    cid = "toyr.prop"
    try:
        get_claim(cid)
    except KeyError:

        @toy_claim(
            cid,
            profiles=Profiles(quick={"ms": (0.5,)}),
            seeds=SeedPlan(Seeds.EVERY),
            alternative=Alternative("1000x tighter", factor=1000.0),
        )
        def f(ctx: Ctx, *, ms: tuple[float, ...]) -> Evidence:
            """toy: seed i measures ms[i] against the bound 1"""
            return Evidence(theory=1.0, measured=ms[ctx.seed_set.index(ctx.seed)], rtol=0.0)

    seeds = list(range(len(ms)))
    base = run_claim(cid, seed_set=seeds, ms=tuple(ms)).alternative["resolution"]
    _within_factor(base, 1 / min(ms))
    higher = tuple(min(m * scale, 0.95) for m in ms)
    nearer = run_claim(cid, seed_set=seeds, ms=higher).alternative["resolution"]
    assert nearer["value"] <= base["value"]


# --- exponent= : a rate with a known interval -----------------------------------------------------


def _fit(lo: float, hi: float) -> RateFit:
    return RateFit((lo + hi) / 2, 0.0, lo, hi, 0.95, 9, "t", local=(-1.0,), window=3)


def test_a_rate_resolves_the_shift_at_which_its_interval_leaves_the_band() -> None:
    """p = -1, tol 0.25, interval [-1.05, -0.95]: against p + d (toward q = -0.5) the interval lies
    below the band [p + d - 0.25, p + d + 0.25] once -0.95 < -1.25 + d, i.e. d > 0.3 (declared 0.5:
    a shift the tolerance check would refuse as a competing exponent is judged all the same)."""

    @toy_claim(
        "toyr.rate",
        kind=Kind.RATE,
        seeds=SeedPlan(Seeds.POOLED),
        alternative=Alternative("a T^-1/2 law", exponent=-0.5),
    )
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=-1.0, measured=_fit(-1.05, -0.95), tol=0.25)

    r = run_claim("toyr.rate")
    res = r.alternative["resolution"]
    assert r.verdict == Verdict.HOLDS and res["kind"] == "exponent shift" and res["declared"] == 0.5
    assert 0.3 < res["value"] <= 0.3 + SHIFT_RTOL * 0.5 * (1 + 1e-9), res
    assert fmt_resolution(res).startswith("shift 0.3")

    @toy_claim("toyr.rate.down", kind=Kind.RATE, alternative=Alternative("a T^-2 law", exponent=-2.0))
    def g(ctx: Ctx) -> Evidence:
        """toy: toward q = -2 the band leaves the interval once -1.05 > -1 - d + 0.1, d > 0.15"""
        return Evidence(theory=-1.0, measured=_fit(-1.05, -0.95), tol=0.1)

    res = run_claim("toyr.rate.down").alternative["resolution"]
    assert 0.15 < res["value"] <= 0.15 + SHIFT_RTOL * 1.0 * (1 + 1e-9), res


def test_a_rate_finding_has_no_shift_to_resolve() -> None:
    @toy_claim(
        "toyr.rate.finding",
        kind=Kind.RATE,
        expect=Expect(Verdict.VIOLATED),
        alternative=Alternative("cubic", exponent=3.0),
    )
    def f(ctx: Ctx) -> Evidence:
        """toy: slope 1.5 against 2 +- 0.2 and 3 +- 0.2"""
        return Evidence(theory=2.0, measured=_fit(1.45, 1.55), tol=0.2)

    r = run_claim("toyr.rate.finding")
    assert r.alternative["verdict"] == "violated"
    res = r.alternative["resolution"]
    assert res["value"] is None and "already gives violated" in res["note"]


# --- overrides: on demand, by runs ------------------------------------------------------------------


def test_a_numeric_override_bisects_to_the_switch_point() -> None:
    """x <= 3.7 holds: the world x = 10 is violated, and the bisection from the paper's x = 1 (linear:
    10 / 1 is not more than 10x) ends within (10 - 1) / 2^6 above 3.7, in 6 runs."""
    seen: list[float] = []

    @toy_claim(
        "toyr.override", profiles=Profiles(quick={"x": 1.0}), alternative=Alternative("x = 10", {"x": 10.0})
    )
    def f(ctx: Ctx, *, x: float) -> Evidence:
        """toy"""
        seen.append(x)
        return Evidence(theory=3.7, measured=x)

    out = resolve_alternative("toyr.override", profile="quick", seed=0)
    res = out["resolution"]
    assert out["verdict"] == out["expected"] == "violated" and out["rejudged"] is False
    assert out["runs"] == 1 + OVERRIDE_STEPS and len(seen) == 1 + OVERRIDE_STEPS
    assert res["kind"] == "parameter" and res["parameter"] == "x" and res["paper"] == 1.0
    assert res["declared"] == 10.0
    assert 3.7 < res["value"] <= 3.7 + 9 / 2**OVERRIDE_STEPS, res
    assert fmt_resolution(res).startswith("x=3.")


def test_a_geometric_and_an_integer_override() -> None:
    @toy_claim(
        "toyr.geo", profiles=Profiles(quick={"eps": 1e-3}), alternative=Alternative("eps = 10", {"eps": 10.0})
    )
    def f(ctx: Ctx, *, eps: float) -> Evidence:
        """eps <= 0.05 (a 1e4 span: geometric)"""
        return Evidence(theory=0.05, measured=eps)

    res = resolve_alternative("toyr.geo")["resolution"]
    step = (10.0 / 1e-3) ** (1 / 2**OVERRIDE_STEPS)
    assert 0.05 < res["value"] <= 0.05 * step and "geometric" in res["note"]

    @toy_claim(
        "toyr.int",
        kind=Kind.LOWER,
        profiles=Profiles(quick={"n": 40}),
        alternative=Alternative("n = 2", {"n": 2}),
    )
    def g(ctx: Ctx, *, n: int) -> Evidence:
        """n >= 13 (integer n: the switch is n = 12)"""
        assert isinstance(n, int)
        return Evidence(theory=13, measured=n)

    out = resolve_alternative("toyr.int")
    assert out["resolution"]["value"] == 12 and isinstance(out["resolution"]["value"], int)
    assert out["runs"] <= 1 + OVERRIDE_STEPS


def test_an_override_the_claim_errs_between_or_resolves_only_at() -> None:
    @toy_claim(
        "toyr.only", profiles=Profiles(quick={"x": 1.0}), alternative=Alternative("x = 10", {"x": 10.0})
    )
    def f(ctx: Ctx, *, x: float) -> Evidence:
        """x < 9.99: every midpoint holds, only the override is violated"""
        return Evidence(theory=9.99, measured=x)

    res = resolve_alternative("toyr.only")["resolution"]
    assert res["value"] == 10.0 and "only the override gives violated" in res["note"]

    @toy_claim(
        "toyr.err", profiles=Profiles(quick={"x": 1.0}), alternative=Alternative("x = 10", {"x": 10.0})
    )
    def g(ctx: Ctx, *, x: float) -> Evidence:
        """the model takes x = 1 or 10 only"""
        if x not in (1.0, 10.0):
            raise ValueError(f"x must be 1 or 10, got {x}")
        return Evidence(theory=2.0, measured=x)

    out = resolve_alternative("toyr.err")
    assert out["verdict"] == "violated" and out["runs"] == 2
    assert out["resolution"]["value"] is None and "errs at x=5.5" in out["resolution"]["note"]
    assert "x must be 1 or 10" in out["resolution"]["note"]


def test_a_claim_leaving_its_premises_is_marked_not_failed(tmp_path: Path) -> None:
    @toy_claim(
        "toyr.prem",
        expect=Expect(Verdict.OUT_OF_REGIME, paper=Verdict.HOLDS),
        alternative=Alternative("2x tighter", factor=2.0),
    )
    def f(ctx: Ctx) -> Evidence:
        """premises fail at quick sizes"""
        return Evidence(theory=1.0, measured=0.1, failed=[] if ctx.profile == "paper" else ["n large"])

    out = resolve_alternative("toyr.prem")
    assert out["premises"] is False and out["verdict"] == "out_of_regime"
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["alternatives", "toyr.prem", "--quiet"]) == 0
    assert "out_of_regime (premises)" in buf.getvalue()


def test_a_categorical_override_has_no_resolution() -> None:
    @toy_claim(
        "toyr.law",
        profiles=Profiles(quick={"law": "gauss", "decay": False}),
        alternative=Alternative("a heavy-tailed law", {"law": "cauchy"}),
    )
    def f(ctx: Ctx, *, law: str, decay: bool) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=0.5 if law == "gauss" else 2.0)

    out = resolve_alternative("toyr.law")
    assert out["verdict"] == "violated" and out["runs"] == 1
    assert out["resolution"]["value"] is None and out["resolution"]["note"] == CATEGORICAL

    @toy_claim(
        "toyr.flag",
        profiles=Profiles(quick={"decay": False}),
        alternative=Alternative("a decaying step", {"decay": True}),
    )
    def g(ctx: Ctx, *, decay: bool) -> Evidence:
        """a flag is no number"""
        return Evidence(theory=1.0, measured=2.0 if decay else 0.5)

    res = resolve_alternative("toyr.flag")["resolution"]
    assert res["value"] is None and res["note"] == CATEGORICAL
    assert fmt_resolution(res) == f"-- ({CATEGORICAL})"


# --- the command and the docs -----------------------------------------------------------------------


def test_the_alternatives_command_prints_and_writes_the_resolutions(tmp_path: Path) -> None:
    @toy_claim("toyr.cmd.upper", alternative=Alternative("the bound 100x tighter", factor=100.0))
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=0.2)

    @toy_claim(
        "toyr.cmd.law",
        profiles=Profiles(quick={"law": "gauss"}),
        alternative=Alternative("cauchy", {"law": "cauchy"}),
    )
    def g(ctx: Ctx, *, law: str) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=0.5 if law == "gauss" else 2.0)

    out = tmp_path / "alt.json"
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(["alternatives", "toyr.cmd.*", "--json", str(out), "--quiet"])
    assert code == 0
    text = buf.getvalue()
    assert "resolution" in text and "x of 100x" in text and CATEGORICAL in text
    doc = json.loads(out.read_text())
    assert doc["schema"] == "attncheck.alternatives/1" and doc["seed"] == 0
    rows = {r["claim"]: r for r in doc["alternatives"]}
    assert math.isclose(rows["toyr.cmd.upper"]["resolution"]["value"], 5.0, rel_tol=FACTOR_RTOL)
    assert rows["toyr.cmd.law"]["resolution"]["value"] is None


def test_the_docs_say_how_the_resolution_is_measured() -> None:
    @toy_claim("toyr.doc.fac", alternative=Alternative("5x tighter", factor=5.0))
    def f(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=1.0, measured=0.1)

    @toy_claim(
        "toyr.doc.run", profiles=Profiles(quick={"x": 1.0}), alternative=Alternative("x = 9", {"x": 9.0})
    )
    def g(ctx: Ctx, *, x: float) -> Evidence:
        """toy"""
        return Evidence(theory=2.0, measured=x)

    fac = claim_section(get_claim("toyr.doc.fac"))
    assert "resolution of the alternative world: measured in every run" in fac and "(1, 5]" in fac
    run = claim_section(get_claim("toyr.doc.run"))
    assert "on demand, `attncheck alternatives toyr.doc.run`" in run and "`x`" in run


@pytest.mark.parametrize("res", [None, {"kind": "factor", "value": None, "declared": 2.0, "note": "why"}])
def test_no_resolution_prints_as_a_dash(res: dict | None) -> None:
    assert fmt_resolution(res).startswith("--")
