"""Claim tests for zhang2026: every claim gives its expected verdict at the session's profile, and a wrong
bound or a perturbed model flips it (each claim can fail)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bounds import zhang2026 as B
from tests.support import cached_run
from verify.core import Verdict, get_claim, run_claim
from verify.core.registry import match_claims
from verify.zhang2026 import experiments as E
from verify.zhang2026 import model as Mo

IDS = [c.id for c in match_claims(["zhang2026.*"])]


def _run(cid: str, profile: str):
    """The session-cached run at the profile's defaults, seed 0 (shared with the baseline gate)."""
    return cached_run(cid, profile, 0)


def test_all_spec_ids_registered() -> None:
    spec = {
        "closedform",
        "P_invariance",
        "scalar_reduction",
        "lemC2",
        "kq_structure",
        "thm31.recovery",
        "thm31.rate",
        "thm31.const",
        "thm31.bounds",
        "thm31.Dexp",
        "thm31.Tstar",
        "DeqK",
        "K0",
        "nongauss",
        "nonuniformS",
        "thm32.ood",
        "examples",
        "mnist",
        "fullTF",
        "stepsize",
    }
    assert {i.split(".", 1)[1] for i in IDS} == spec


@pytest.mark.parametrize("cid", [i for i in IDS if i != "zhang2026.mnist"])
def test_claim_verdict(cid: str, profile: str) -> None:
    r = _run(cid, profile)
    assert r.verdict == r.expected == Verdict.HOLDS, r.notes
    assert r.provenance and r.reference
    assert get_claim(cid).fn.__doc__


@pytest.mark.parametrize("cid", ["zhang2026.mnist"])
def test_exploratory_claims_are_inconclusive_not_errors(cid: str, profile: str) -> None:
    r = _run(cid, profile)
    assert r.verdict == r.expected == Verdict.INCONCLUSIVE
    assert any("inconclusive" in n for n in r.notes)


def test_same_seed_bit_identical() -> None:
    a = run_claim("zhang2026.closedform", seed=3, N=5000)
    b = run_claim("zhang2026.closedform", seed=3, N=5000)
    assert a.measured == b.measured and a.notes == b.notes


# --------------------------------------------------------------------------------------- can fail
def _scaled(fn, factor):
    return lambda *a, **k: fn(*a, **k) * factor


def _flips(monkeypatch, cid: str, target, attr: str, value, **overrides) -> None:
    """The claim holds at these overrides, and setting ``target.attr = value`` makes it violated."""
    r0 = run_claim(cid, raise_errors=True, **overrides)
    assert r0.verdict == Verdict.HOLDS, (r0.verdict, r0.notes)
    monkeypatch.setattr(target, attr, value)
    r = run_claim(cid, raise_errors=True, **overrides)
    assert r.verdict == Verdict.VIOLATED, (r.verdict, r.notes)


def _wrap_out(fn, f):
    return lambda *a: f(fn(*a))


def test_closedform_catches_wrong_loss(monkeypatch) -> None:
    bad = _wrap_out(Mo.linear_loss_grad, lambda out: (out[0] * 1.02, out[1]))
    _flips(monkeypatch, "zhang2026.closedform", Mo, "linear_loss_grad", bad, N=20_000)


def test_closedform_catches_wrong_gradient(monkeypatch) -> None:
    bad = _wrap_out(
        Mo.dual_loss_grad, lambda out: (out[0], {"W_V": out[1]["W_V"] * 1.001, "W_KQ": out[1]["W_KQ"]})
    )
    _flips(monkeypatch, "zhang2026.closedform", Mo, "dual_loss_grad", bad, N=5000)


def test_P_invariance_catches_P_dependent_model(monkeypatch) -> None:
    def bad(A, G, P):  # transposes swapped: the logit step then depends on P
        return P.T @ Mo.softmax_vjp(A, G, axis=-2) @ P

    _flips(monkeypatch, "zhang2026.P_invariance", Mo, "kq_backward", bad, steps=100)


def test_scalar_reduction_catches_perturbed_recursion(monkeypatch) -> None:
    orig = E.scalar_run
    bad = lambda D, K, eta, *a, **k: orig(D, K, eta * (1 + 1e-6), *a, **k)  # noqa: E731
    _flips(monkeypatch, "zhang2026.scalar_reduction", E, "scalar_run", bad, steps=200)


def test_lemC2_catches_wrong_first_step(monkeypatch) -> None:
    bad = _scaled(B.c1_first_step, 1.01)
    _flips(monkeypatch, "zhang2026.lemC2", B, "c1_first_step", bad, steps=50, N_mc=500, steps_mc=100)


def test_kq_structure_catches_wrong_ratio(monkeypatch) -> None:
    bad = lambda D, K: B.mp(K) / (D - K)  # noqa: E731
    _flips(monkeypatch, "zhang2026.kq_structure", B, "kq_level_ratio", bad, steps=50)


def test_recovery_catches_wrong_exponent(monkeypatch) -> None:
    _flips(monkeypatch, "zhang2026.thm31.recovery", B, "RECOVERY_EXPONENT", -1.0)


def test_rate_catches_wrong_exponent(monkeypatch) -> None:
    _flips(monkeypatch, "zhang2026.thm31.rate", B, "RATE_EXPONENT", -0.5)


def test_const_catches_wrong_constant(monkeypatch) -> None:
    bad = _scaled(B.tail_constant, 1.05)
    _flips(monkeypatch, "zhang2026.thm31.const", B, "tail_constant", bad, tmax_T0=3000)


def test_bounds_catches_wrong_constant(monkeypatch) -> None:
    bad = _scaled(B.tail_constant, 0.4)
    _flips(monkeypatch, "zhang2026.thm31.bounds", B, "tail_constant", bad, tmax_T0=1000)


def test_Dexp_catches_D4_scaling(monkeypatch) -> None:
    orig = B.tail_constant
    bad = lambda D, K, eta: orig(D, K, eta) * (D / 8) ** 2  # noqa: E731
    _flips(monkeypatch, "zhang2026.thm31.Dexp", B, "tail_constant", bad, tmax_T0=1000)


def test_Tstar_catches_wrong_exponent(monkeypatch) -> None:
    _flips(monkeypatch, "zhang2026.thm31.Tstar", B, "TSTAR_V_EXPONENT", -1.0, horizon_T0=100)


def test_DeqK_catches_wrong_formula(monkeypatch) -> None:
    orig = B.deqk_excess
    bad = lambda t, eta, sx2, v2: orig(t, eta * 1.001, sx2, v2)  # noqa: E731
    _flips(monkeypatch, "zhang2026.DeqK", B, "deqk_excess", bad, steps=50)


def test_K0_catches_nonzero_drift(monkeypatch) -> None:
    bad = _wrap_out(
        Mo.linear_loss_grad, lambda out: (out[0], {"W_V": out[1]["W_V"] - 1e-12, "W_KQ": out[1]["W_KQ"]})
    )
    _flips(monkeypatch, "zhang2026.K0", Mo, "linear_loss_grad", bad, steps=5)


def test_nongauss_catches_wrong_constant(monkeypatch) -> None:
    bad = _scaled(B.tail_constant, 1.05)
    _flips(monkeypatch, "zhang2026.nongauss", B, "tail_constant", bad, N=2000, B_sgd=500, steps_sgd=2)


def test_nonuniformS_catches_wrong_constant(monkeypatch) -> None:
    bad = _scaled(B.tail_constant, 1.05)
    _flips(
        monkeypatch, "zhang2026.nonuniformS", B, "tail_constant", bad, steps_dense=5000, steps_floor=10_000
    )


def test_ood_catches_wrong_bound(monkeypatch) -> None:
    bad = _scaled(B.ood_upper, 0.5)
    _flips(monkeypatch, "zhang2026.thm32.ood", B, "ood_upper", bad, N=10_000)


def test_ood_catches_wrong_B_formula(monkeypatch) -> None:
    bad = _scaled(B.ood_B_exact, 1.1)
    _flips(monkeypatch, "zhang2026.thm32.ood", B, "ood_B_exact", bad)


def test_examples_catch_wrong_exponent(monkeypatch) -> None:
    _flips(monkeypatch, "zhang2026.examples", B, "RATE_EXPONENT", -2.0, check_steps=20)


def test_fullTF_catches_perturbed_gradient(monkeypatch) -> None:
    orig = Mo.full_tf_loss_grad

    def leaky_positions(*a):  # a wrong model: the W_V gradient leaks into the position block
        loss, g = orig(*a)
        gv = g["W_V"].copy()
        gv[:, 3:] += 0.5 * np.abs(gv[:, :3]).max()
        return loss, {"W_V": gv, "W_KQ": g["W_KQ"]}

    _flips(monkeypatch, "zhang2026.fullTF", Mo, "full_tf_loss_grad", leaky_positions, N=300, steps=100)


def test_stepsize_catches_unstable_threshold(monkeypatch) -> None:
    bad = _scaled(B.eta_heuristic, 40.0)
    _flips(monkeypatch, "zhang2026.stepsize", B, "eta_heuristic", bad, steps=300)


def test_rate_notes_report_ci_and_local_slopes(profile: str) -> None:
    r = _run("zhang2026.thm31.rate", profile)
    assert any("t-CI" in n for n in r.notes)
    slopes = [v for k, v in r.series.items() if k.endswith("_decade_slopes")]
    for s in slopes:  # the local slope converges to -1 monotonically over successive decades
        dev = [abs(x + 1.0) for x in s]
        assert dev == sorted(dev, reverse=True) and dev[-1] < 0.05
    assert math.isclose(B.RATE_EXPONENT, -1.0)


def test_Dexp_reports_exponent_near_two(profile: str) -> None:
    r = _run("zhang2026.thm31.Dexp", profile)
    lim = np.array(r.series["T_excess"])
    D = np.array(r.series["D"], float)
    slope = np.polyfit(np.log(D), np.log(lim), 1)[0]
    assert 1.9 < slope < 2.4
