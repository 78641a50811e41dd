"""Claim framework: records, verdict rules, JSON round-trip, GD loop, input validation, mpmath."""

from __future__ import annotations

import copy
import json
import pickle

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bounds.checks import check_array, check_choice, check_int, check_positive, check_prob
from bounds.mp import log10, to_float
from verify.core import (
    Ctx,
    Evidence,
    Expect,
    Kind,
    Profiles,
    Provenance,
    Result,
    SeedPlan,
    Source,
    Verdict,
    claim,
)
from verify.core.format import fmt_sci
from verify.core.judge import ROUNDOFF_RTOL, judge
from verify.core.record import to_jsonable
from verify.core.results import result_from_dict, result_from_json, result_to_json
from verify.numerics.fit import RateFit, SlopeFit
from verify.numerics.gd import gradient_descent

# ---------------------------------------------------------------- verdict rules


def test_upper_lower_with_roundoff_margin_only() -> None:
    assert judge(Kind.UPPER, Evidence(theory=1.0, measured=1.0 + 0.5 * ROUNDOFF_RTOL))[0] == Verdict.HOLDS
    assert judge(Kind.UPPER, Evidence(theory=1.0, measured=1.0 + 2 * ROUNDOFF_RTOL))[0] == Verdict.VIOLATED
    assert judge(Kind.LOWER, Evidence(theory=1.0, measured=0.999))[0] == Verdict.VIOLATED
    v, slack, _ = judge(Kind.UPPER, Evidence(theory=100.0, measured=1.0))
    assert v == Verdict.HOLDS and slack == pytest.approx(2.0)
    v, slack, _ = judge(Kind.LOWER, Evidence(theory=100.0, measured=1.0))
    assert v == Verdict.VIOLATED and slack == pytest.approx(-2.0)


def test_slack_of_negative_bounds_keeps_its_orientation() -> None:
    v, slack, _ = judge(Kind.UPPER, Evidence(theory=-0.3, measured=-0.6))
    assert v == Verdict.HOLDS and slack == pytest.approx(np.log10(2))
    v, slack, _ = judge(Kind.UPPER, Evidence(theory=-0.6, measured=-0.3))
    assert v == Verdict.VIOLATED and slack == pytest.approx(-np.log10(2))
    v, slack, _ = judge(Kind.LOWER, Evidence(theory=-0.6, measured=-0.3))
    assert v == Verdict.HOLDS and slack == pytest.approx(np.log10(2))
    assert judge(Kind.UPPER, Evidence(theory=0.5, measured=-0.3))[1] is None


def test_upper_bound_beyond_the_trivial_value_is_vacuous() -> None:
    v, _, notes = judge(Kind.UPPER, Evidence(theory=5.0, measured=0.1, trivial=1.0))
    assert v == Verdict.VACUOUS and "trivial" in notes[0]


def test_bounds_at_mpmath_magnitudes() -> None:
    huge = mpmath.mpf("1e400")
    v, slack, _ = judge(Kind.UPPER, Evidence(theory=huge, measured=1.0))
    assert v == Verdict.HOLDS and slack == pytest.approx(400.0)
    v, slack, _ = judge(Kind.CONDITION, Evidence(theory=mpmath.mpf("1e41"), measured=1e6))
    assert v == Verdict.VACUOUS and slack == pytest.approx(-35.0)
    assert judge(Kind.CONDITION, Evidence(theory=512, measured=1e6))[0] == Verdict.HOLDS


def test_two_sided_rate_identity_probability_qualitative() -> None:
    assert judge(Kind.TWO_SIDED, Evidence(theory=[-0.65, -0.35], measured=-0.5))[0] == Verdict.HOLDS
    assert judge(Kind.TWO_SIDED, Evidence(theory=[-0.65, -0.35], measured=-0.3))[0] == Verdict.VIOLATED
    fit = RateFit(-0.98, 0.0, -1.02, -0.94, 0.95, 10, "t", local=(-0.9, -0.95, -0.98))
    assert judge(Kind.RATE, Evidence(theory=-1, measured=fit, tol=0.06))[0] == Verdict.HOLDS
    assert judge(Kind.RATE, Evidence(theory=-1, measured=fit, tol=0.05))[0] == Verdict.INCONCLUSIVE
    assert judge(Kind.RATE, Evidence(theory=-0.5, measured=fit, tol=0.05))[0] == Verdict.VIOLATED
    v, slack, _ = judge(Kind.IDENTITY, Evidence(theory=2.0, measured=2.0 + 2e-13, rtol=1e-12))
    assert v == Verdict.HOLDS and slack == pytest.approx(1.0, abs=0.01)
    assert judge(Kind.IDENTITY, Evidence(theory=2.0, measured=2.1, rtol=1e-3))[0] == Verdict.VIOLATED
    assert judge(Kind.PROBABILITY, Evidence(theory=0.9, measured=[29, 29]))[0] == Verdict.HOLDS
    assert judge(Kind.PROBABILITY, Evidence(theory=0.9, measured=[20, 20]))[0] == Verdict.INCONCLUSIVE
    assert judge(Kind.PROBABILITY, Evidence(theory=0.9, measured=[10, 20]))[0] == Verdict.VIOLATED
    assert judge(Kind.QUALITATIVE, Evidence(theory="monotone", measured=True))[0] == Verdict.HOLDS
    assert judge(Kind.QUALITATIVE, Evidence(theory="monotone", measured=False))[0] == Verdict.VIOLATED


def test_assumption_failures_and_inconclusive_come_first() -> None:
    v, _, notes = judge(Kind.UPPER, Evidence(theory=1.0, measured=2.0, failed=["N <= d_m: 40 > 16"]))
    assert v == Verdict.OUT_OF_REGIME and "N <= d_m" in notes[0]
    v, _, notes = judge(Kind.UPPER, Evidence(theory=1.0, measured=2.0, inconclusive="constant unknown"))
    assert v == Verdict.INCONCLUSIVE


def test_judge_refuses_malformed_evidence() -> None:
    with pytest.raises(TypeError, match="RateFit"):
        judge(Kind.RATE, Evidence(theory=-1, measured=-1.0))
    with pytest.raises(TypeError, match="RateFit"):  # a plain log-log fit carries no local slopes
        judge(Kind.RATE, Evidence(theory=-1, measured=SlopeFit(-1.0, 0.0, -1.1, -0.9, 0.95, 5, "t"), tol=0.1))
    with pytest.raises(ValueError, match="rtol"):
        judge(Kind.IDENTITY, Evidence(theory=1.0, measured=1.0))
    with pytest.raises(TypeError, match="bool"):
        judge(Kind.QUALITATIVE, Evidence(theory=None, measured=1))


# ---------------------------------------------------------------- JSON round-trip


def _result(theory, measured) -> Result:
    return Result(
        claim_id="toy.x",
        paper="toy",
        reference="Thm 1",
        kind=Kind.UPPER,
        provenance="DERIVED",
        statement="s",
        profile="quick",
        params={"N": 3, "tau0": 0.5},
        seeds=[0, 1],
        theory=theory,
        measured=measured,
        slack=1.5,
        verdict=Verdict.HOLDS,
        expected=Verdict.HOLDS,
        notes=["n"],
        series={"t": [0, 1], "loss": [1.0, 0.5]},
        wall_time=0.1,
        versions={"numpy": "x"},
    )


@given(
    st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(), st.booleans(), st.none()),
    st.lists(st.floats(-1e300, 1e300), max_size=4),
)
def test_result_json_round_trip(theory, measured) -> None:
    r = _result(to_jsonable(theory), to_jsonable(measured))
    back = result_from_json(result_to_json(r))
    assert back == r
    assert result_to_json(back) == result_to_json(r)


def test_mpf_beyond_float_range_round_trips() -> None:
    r = _result(to_jsonable(mpmath.mpf("1.5e400")), to_jsonable(mpmath.mpf("2e-500")))
    text = result_to_json(r)
    assert '"$mpf"' in text and "inf" not in text.lower()
    back = result_from_json(text)
    assert log10(back.theory) == pytest.approx(400 + np.log10(1.5))
    assert result_from_json(result_to_json(back)) == back


def test_result_json_refuses_nan_and_wrong_schema() -> None:
    with pytest.raises(ValueError, match="non-finite"):
        to_jsonable(float("nan"))
    d = json.loads(result_to_json(_result(1.0, 0.5)))
    d["schema"] = "other/9"
    with pytest.raises(ValueError, match="schema"):
        result_from_dict(d)


# ---------------------------------------------------------------- GD loop


def test_gradient_descent_on_a_quadratic() -> None:
    H = np.diag([1.0, 4.0])
    lg = lambda p: (0.5 * float(p["x"] @ H @ p["x"]), {"x": H @ p["x"]})  # noqa: E731
    tr = gradient_descent({"x": np.ones(2)}, lg, 0.1, 20, record={"x0": lambda p, g, l, t: p["x"][0]})
    np.testing.assert_allclose(tr.extras["x0"], 0.9 ** np.arange(21))
    assert tr.loss.shape == (21,) and np.all(np.diff(tr.loss) < 0)
    assert tr.drift[0] == 0 and tr.drift[-1] == pytest.approx(np.linalg.norm(tr.params["x"] - 1))


def test_gradient_descent_per_block_steps_and_stops() -> None:
    lg = lambda p: (float(p["a"] ** 2 + p["b"] ** 2), {"a": 2 * p["a"], "b": 2 * p["b"]})  # noqa: E731
    tr = gradient_descent({"a": np.array(1.0), "b": np.array(1.0)}, lg, {"a": 0.25, "b": 0.0 + 1e-9}, 1)
    assert tr.params["a"] == pytest.approx(0.5) and tr.params["b"] == pytest.approx(1.0)
    tr = gradient_descent({"a": np.array(1.0), "b": np.array(1.0)}, lg, 0.25, 100, stop_below=1e-3)
    assert tr.stopped and tr.loss[-1] < 1e-3 and tr.loss.size < 101
    tr = gradient_descent({"a": np.array(1.0), "b": np.array(1.0)}, lg, 1e200, 5)  # overflows
    assert "non-finite" in tr.stopped and np.all(np.isfinite(tr.loss))


@pytest.mark.parametrize(
    "eta, steps, msg",
    [(0.0, 3, r"eta must lie in \(0, inf\)"), (-1.0, 3, "eta must lie in"), (0.1, -1, "steps must be")],
)
def test_gradient_descent_bad_input(eta, steps, msg) -> None:
    with pytest.raises(ValueError, match=msg):
        gradient_descent({"a": np.array(1.0)}, lambda p: (0.0, {"a": 0.0}), eta, steps)


# ---------------------------------------------------------------- validation and mpmath


def test_checks_name_the_parameter_and_range() -> None:
    with pytest.raises(ValueError, match=r"N must be an integer in \[1, inf\], got -3"):
        check_int("N", -3)
    with pytest.raises(TypeError, match="N must be an integer"):
        check_int("N", 2.5)
    with pytest.raises(TypeError, match="N must be an integer"):
        check_int("N", True)
    with pytest.raises(ValueError, match=r"eta must lie in \(0, inf\)"):
        check_positive("eta", 0)
    with pytest.raises(ValueError, match="eta must be finite"):
        check_positive("eta", float("inf"))
    with pytest.raises(ValueError, match=r"delta must lie in \(0, 1\)"):
        check_prob("delta", 1.0)
    with pytest.raises(ValueError, match=r"init must be one of \('lecun', 'he', 'ntk'\)"):
        check_choice("init", "xavier", ("lecun", "he", "ntk"))
    with pytest.raises(ValueError, match="X must be finite; it has 1 NaN"):
        check_array("X", [1.0, np.nan])
    with pytest.raises(ValueError, match=r"X must have shape \(\*, 3\)"):
        check_array("X", np.zeros((2, 2)), shape=(None, 3))


def test_mp_helpers_keep_extreme_magnitudes() -> None:
    assert fmt_sci(mpmath.mpf("1.234e41")) == "1.23e+41"
    assert fmt_sci(mpmath.mpf("4e-400")) == "4.00e-400"
    assert fmt_sci(9.996) == "1.00e+01"
    assert fmt_sci(mpmath.inf) == "inf" and fmt_sci(-mpmath.inf) == "-inf" and fmt_sci(mpmath.nan) == "nan"
    assert log10(mpmath.mpf("1e-400")) == pytest.approx(-400)
    with pytest.raises(OverflowError, match="outside float64 range"):
        to_float(mpmath.mpf("1e400"))
    with pytest.raises(ValueError, match="positive"):
        log10(0.0)


def test_an_mpf_crosses_a_process_boundary_unrounded() -> None:
    """A bound at DPS digits pickled to a worker (or kept as a sweep point) keeps every digit: mpmath's
    own pickling rounds it to the unpickling precision, and a slack then differed in its last bit
    between a serial and a parallel run (yang2024.thm2.iters, seed 2: 2.2302018857433925 / ...393)."""
    with mpmath.workdps(30):
        x = mpmath.mpf(85121) + mpmath.mpf(1) / 7
    for y in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x)):
        assert y._mpf_ == x._mpf_ and type(y) is type(x)
    assert mpmath.mp.prec == 53  # nothing changed the global precision
    assert log10(pickle.loads(pickle.dumps(x)) / 501) == log10(x / 501)


def test_multi_condition_claims_hold_only_when_every_condition_holds() -> None:
    from verify.core.conditions import Conditions

    c = Conditions()
    c.window("slope", -0.98, -1.05, -0.95)
    c.tol("residual", 1e-14, 1e-12)
    c.atleast("margin", 2.0, 1.0)
    c.exact("rank", True)
    v, slack, _ = judge(Kind.UPPER, c.evidence())
    assert v == Verdict.HOLDS and slack == pytest.approx(np.log10(2))  # tightest: margin, r = 0.5
    c.window("second slope", -0.9, -1.05, -0.95)
    v, _, _ = judge(Kind.UPPER, c.evidence(notes=["context"]))
    assert v == Verdict.VIOLATED
    c2 = Conditions()
    c2.exact("rank", False)
    assert judge(Kind.UPPER, c2.evidence())[0] == Verdict.VIOLATED
    with pytest.raises(ValueError, match="at least one condition"):
        Conditions().evidence()


def test_a_batched_claim_runs_its_seeds_at_once_serially_and_one_by_one_in_parallel() -> None:
    from verify.core.record import Seeds
    from verify.core.registry import _unregister
    from verify.core.runner import run_claim

    calls: list[tuple[int, ...]] = []

    @claim(
        "toyb.batch",
        Source("toy", Provenance.DERIVED),
        kind=Kind.UPPER,
        statement="toy",
        profiles=Profiles(quick={"short": False}),
        seeds=SeedPlan(Seeds.EVERY, batched=True),
        expect=Expect(consistency=True),
    )
    def batch(ctx: Ctx, *, short: bool) -> list[Evidence]:
        """Toy batched claim: one draw per seed of ctx.seed_set (one too few when ``short``)."""
        calls.append(ctx.seed_set)
        draws = [float(ctx.for_seed(s).rng(7).uniform()) for s in ctx.seed_set]
        return [Evidence(theory=1.0, measured=x) for x in draws[: len(draws) - short]]

    try:
        serial = run_claim("toyb.batch", seed=5)
        assert calls == [(5, 6, 7)]
        parallel = run_claim("toyb.batch", seed=5, mapper=lambda fn, items: [fn(x) for x in items])
        assert calls[1:] == [(5,), (6,), (7,)]
        assert serial.per_seed == parallel.per_seed and serial.verdict == Verdict.HOLDS
        with pytest.raises(TypeError, match="must return a list of 3 Evidence"):
            run_claim("toyb.batch", short=True, raise_errors=True)
    finally:
        _unregister("toyb.batch")
    with pytest.raises(ValueError, match="only an 'every' or 'binomial' claim runs batched"):
        claim(
            "toyb.pooled",
            Source("toy", Provenance.DERIVED),
            kind=Kind.UPPER,
            statement="t",
            seeds=SeedPlan(Seeds.POOLED, batched=True),
        )
    with pytest.raises(ValueError, match="not in the seed set"):
        Ctx(seed=1, seed_set=(1, 2)).for_seed(3)


def test_a_record_may_expect_another_verdict_in_the_paper_profile() -> None:
    from verify.core.registry import _unregister
    from verify.core.runner import run_claim

    @claim(
        "toyb.profiles",
        Source("toy", Provenance.DERIVED),
        kind=Kind.UPPER,
        statement="toy",
        profiles=Profiles(quick={"x": 0.5}, paper={"x": 2.0}),
        expect=Expect(paper=Verdict.VIOLATED, consistency=True),
    )
    def profiles(ctx: Ctx, *, x: float) -> Evidence:
        """Toy claim violated at paper sizes only."""
        return Evidence(theory=1.0, measured=x)

    try:
        quick, paper = run_claim("toyb.profiles"), run_claim("toyb.profiles", profile="paper")
        assert (quick.verdict, quick.expected) == (Verdict.HOLDS, Verdict.HOLDS) and quick.as_expected
        assert (paper.verdict, paper.expected) == (Verdict.VIOLATED, Verdict.VIOLATED) and paper.as_expected
    finally:
        _unregister("toyb.profiles")
