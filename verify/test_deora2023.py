"""Claims of Deora et al. 2023/24 as tests: every claim's verdict at seed 0 (the recorded expectation),
property-based runs of the DERIVED claims over seeds and sizes, and for every claim a deliberately
wrong bound or perturbed model that the check must catch."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounds import deora2023 as B
from tests.support import cached_run
from verify.core import Provenance, Verdict, run_claim
from verify.core.registry import registry
from verify.deora2023 import experiments as E
from verify.deora2023 import model as M

IDS = sorted(cid for cid in registry() if cid.startswith("deora2023."))
SPEC_IDS = {
    "grad", "hvp", "softmax", "gradbound", "hessbound", "scaling.H", "sbgrad", "sbwc", "smooth",
    "quasiconvex", "train.logic", "train.paperform", "train.Hmono", "rate.K", "lazy", "real.Ulinear",
    "real.taylor", "real.eps", "mixture.margin", "ntk.concentration", "onestep", "gen.derived",
    "gen.rate",
}  # fmt: skip


def test_every_spec_claim_is_registered() -> None:
    assert {f"deora2023.{c}" for c in SPEC_IDS} <= set(IDS)
    for cid in IDS:
        rec = registry()[cid].record
        assert isinstance(rec.provenance, Provenance)
        assert rec.provenance in (Provenance.DERIVED, Provenance.RECONSTRUCTED)


@pytest.mark.parametrize("cid", IDS)
def test_claim_verdict_at_seed0(cid: str, profile: str) -> None:
    """The claim reaches its recorded verdict (``holds``, or ``vacuous`` for the head-count condition)."""
    r = cached_run(cid, profile, 0)
    assert r.verdict != Verdict.ERROR, r.notes
    assert r.verdict == registry()[cid].record.expect, r.notes


def test_runs_are_bit_identical() -> None:
    a = run_claim("deora2023.quasiconvex", seed=3, pairs=6)
    b = run_claim("deora2023.quasiconvex", seed=3, pairs=6)
    assert a.measured == b.measured and a.notes == b.notes


@pytest.fixture
def fresh() -> None:
    """Claims share measurements through cached sweeps; a perturbed model must not see cached ones."""
    E.clear_caches()
    yield
    E.clear_caches()


def _verdict(cid: str, **kw) -> Verdict:
    return run_claim(cid, raise_errors=True, **kw).verdict


@settings(max_examples=5)
@given(seed=st.integers(0, 10_000))
def test_derivative_claims_property(seed: int) -> None:
    assert _verdict("deora2023.grad", seed=seed, cases=2) == Verdict.HOLDS
    assert _verdict("deora2023.hvp", seed=seed, cases=2) == Verdict.HOLDS


@settings(max_examples=5)
@given(seed=st.integers(0, 10_000), cases=st.integers(1, 6), steps=st.integers(0, 50))
def test_model_bound_claims_property(seed: int, cases: int, steps: int) -> None:
    assert _verdict("deora2023.gradbound", seed=seed, cases=cases, trained_steps=steps) == Verdict.HOLDS
    assert _verdict("deora2023.hessbound", seed=seed, cases=cases, trained_steps=steps) == Verdict.HOLDS


@settings(max_examples=4)
@given(seed=st.integers(0, 10_000), H=st.sampled_from([2, 4, 6]), n=st.integers(4, 16))
def test_loss_level_claims_property(seed: int, H: int, n: int) -> None:
    assert _verdict("deora2023.sbgrad", seed=seed, H=H, n=n, steps=20, random_points=1) == Verdict.HOLDS
    assert _verdict("deora2023.quasiconvex", seed=seed, H=H, n=n, pairs=5, seg_points=21) in (
        Verdict.HOLDS,
        Verdict.INCONCLUSIVE,  # no pair with c < 1 at this draw
    )
    wc = dict(Hs=(H,), n=n, ks=(0, 10), random_points=1, dense_max=1000)
    assert _verdict("deora2023.sbwc", seed=seed, **wc) == Verdict.HOLDS
    assert _verdict("deora2023.smooth", seed=seed, **wc) == Verdict.HOLDS


@settings(max_examples=4)
@given(seed=st.integers(0, 10_000), H=st.sampled_from([2, 4, 8]), n=st.integers(6, 30))
def test_realizability_claims_property(seed: int, H: int, n: int) -> None:
    assert _verdict("deora2023.real.Ulinear", seed=seed, n=n, H=H) == Verdict.HOLDS
    assert _verdict("deora2023.real.taylor", seed=seed, n=n, H=H, lam_max=20.0, n_lams=6) == Verdict.HOLDS
    assert _verdict("deora2023.real.eps", seed=seed, n=n, H=H) == Verdict.HOLDS


@settings(max_examples=4)
@given(seed=st.integers(0, 10_000), S=st.floats(0.3, 3.0), n=st.integers(4, 30))
def test_mixture_margin_property(seed: int, S: float, n: int) -> None:
    """sigma = 0: the U-part SVM margin equals the closed form (unless the finite sample happens to
    let the irrelevant-token counts help, which would raise the margin: never lower it)."""
    r = run_claim("deora2023.mixture.margin", seed=seed, n=n, H=2, S=S, raise_errors=True)
    assert r.measured >= r.theory * (1 - 1e-4)


def _scaled(monkeypatch: pytest.MonkeyPatch, name: str, factor: float) -> None:
    orig = getattr(B, name)
    monkeypatch.setattr(B, name, lambda *a, **k: factor * orig(*a, **k))


def test_grad_catches_wrong_gradient(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = M._weighted_grad
    monkeypatch.setattr(M, "_weighted_grad", lambda cache, c: {
        k: v * (1.001 if k == "W" else 1.0) for k, v in orig(cache, c).items()})  # fmt: skip
    assert _verdict("deora2023.grad", cases=2) == Verdict.VIOLATED


def test_hvp_catches_wrong_hvp(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = M._second_order
    monkeypatch.setattr(M, "_second_order", lambda *a: {k: 1.001 * v for k, v in orig(*a).items()})
    assert _verdict("deora2023.hvp", cases=2) == Verdict.VIOLATED


def test_hvp_catches_wrong_quadratic_form(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = M.quadratic_form
    monkeypatch.setattr(M, "quadratic_form", lambda p, x, v: 1.001 * orig(p, x, v))
    assert _verdict("deora2023.hvp", cases=2) == Verdict.VIOLATED


def test_hvp_catches_cross_head_coupling(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = M.hessian_phi

    def coupled(params, x):
        Hm = orig(params, x).copy()
        Hm[0, -1] += 1e-6
        return Hm

    monkeypatch.setattr(M, "hessian_phi", coupled)
    assert _verdict("deora2023.hvp", cases=3) == Verdict.VIOLATED


def test_softmax_catches_wrong_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(B, "SOFTMAX_JACOBIAN_NORM", 0.499)
    assert _verdict("deora2023.softmax", draws=200) == Verdict.VIOLATED
    monkeypatch.undo()
    _scaled(monkeypatch, "kappa3_bound", 0.3)
    assert _verdict("deora2023.softmax", draws=200) == Verdict.VIOLATED


def test_gradbound_catches_halved_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    _scaled(monkeypatch, "grad_bound_sq", 0.5)
    assert _verdict("deora2023.gradbound") == Verdict.VIOLATED


def test_hessbound_catches_small_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    _scaled(monkeypatch, "hess_bound", 0.3)
    assert _verdict("deora2023.hessbound") == Verdict.VIOLATED


def test_scaling_claims_catch_wrong_H_law(monkeypatch: pytest.MonkeyPatch, fresh: None) -> None:
    hn, gn = M.phi_hessian_norms, M.grad_norms
    monkeypatch.setattr(M, "phi_hessian_norms", lambda p, X: hn(p, X) * math.sqrt(p["U"].shape[0]))
    monkeypatch.setattr(M, "grad_norms", lambda p, X: gn(p, X) * p["U"].shape[0] ** 0.3)
    kw = dict(Hs=(2, 8, 32), seeds=1, n_inputs=2)
    assert _verdict("deora2023.scaling.H", **kw) == Verdict.VIOLATED
    assert _verdict("deora2023.scaling.H.grad", **kw) == Verdict.VIOLATED


def test_sbgrad_catches_small_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    _scaled(monkeypatch, "sb_grad_bound", 0.2)
    assert _verdict("deora2023.sbgrad", steps=20) == Verdict.VIOLATED


_WC_SMALL = dict(Hs=(2, 8), n=12, ks=(0, 20), random_points=1, dense_max=1000)


def test_sbwc_and_smooth_catch_small_moduli(monkeypatch: pytest.MonkeyPatch) -> None:
    _scaled(monkeypatch, "weak_convexity_modulus", 1e-3)
    assert _verdict("deora2023.sbwc", **_WC_SMALL) == Verdict.VIOLATED
    orig = B.smoothness_bounds
    monkeypatch.setattr(B, "smoothness_bounds", lambda *a: tuple(0.05 * v for v in orig(*a)))
    assert _verdict("deora2023.smooth", **_WC_SMALL) == Verdict.VIOLATED


def test_sbwc_Hlaw_catches_wrong_H_law(monkeypatch: pytest.MonkeyPatch, fresh: None) -> None:
    orig = M.curvature_blocks
    monkeypatch.setattr(M, "curvature_blocks", lambda p, X, y: orig(p, X, y) * p["U"].shape[0] ** 0.5)
    kw = dict(Hs=(2, 8, 32), n=12, ks=(0, 20), random_points=0, dense_max=0)
    assert _verdict("deora2023.sbwc.Hlaw", **kw) == Verdict.VIOLATED


def test_quasiconvex_catches_tighter_segment_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    _scaled(monkeypatch, "qc_segment_max", 0.99)
    assert _verdict("deora2023.quasiconvex", pairs=10) == Verdict.VIOLATED


def test_quasiconvex_catches_wrong_a(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(B, "qc_a", lambda c: -0.5)  # a < 0 makes the inner-product bound too strong
    assert _verdict("deora2023.quasiconvex", pairs=10) == Verdict.VIOLATED


def test_real_Ulinear_catches_nonlinear_model(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = M.phi
    monkeypatch.setattr(M, "phi", lambda p, X: orig(p, X) + 1e-6 * float(np.sum(p["U"] ** 2)))
    assert _verdict("deora2023.real.Ulinear") == Verdict.VIOLATED


def test_real_taylor_catches_small_remainder(monkeypatch: pytest.MonkeyPatch) -> None:
    _scaled(monkeypatch, "taylor_remainder_bound", 1e-7)
    assert _verdict("deora2023.real.taylor") == Verdict.VIOLATED


def test_real_eps_catches_short_lambda(monkeypatch: pytest.MonkeyPatch) -> None:
    _scaled(monkeypatch, "g_eps_U", 0.5)
    assert _verdict("deora2023.real.eps") == Verdict.VIOLATED


def test_mixture_margin_catches_wrong_formula(monkeypatch: pytest.MonkeyPatch) -> None:
    _scaled(monkeypatch, "mixture_margin_U", 1.001)
    assert _verdict("deora2023.mixture.margin") == Verdict.VIOLATED


def test_mixture_noisy_catches_high_lower_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = B.mixture_margin_noisy_lower
    monkeypatch.setattr(B, "mixture_margin_noisy_lower", lambda *a: orig(*a) + 0.15)
    assert _verdict("deora2023.mixture.margin.noisy", trials=20) == Verdict.VIOLATED


def test_ntk_concentration_catches_non_concentrating_kernel(
    monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    orig = E.ntk_gram_point

    def noisy(p: E.NtkGramPoint):
        g, m = orig(p)
        r = np.random.default_rng([p.data_seed, p.init_seed, p.H])
        return g * (1 + 0.05 * r.standard_normal()), m * (1 + 0.01 * p.H**0.5 * r.standard_normal())

    monkeypatch.setattr(E, "ntk_gram_point", noisy)
    kw = dict(Hs=(4, 16, 64), seeds=6)
    assert _verdict("deora2023.ntk.concentration", **kw) == Verdict.VIOLATED
    assert _verdict("deora2023.ntk.concentration.margin", **kw) == Verdict.VIOLATED


def test_onestep_catches_small_step() -> None:
    assert _verdict("deora2023.onestep", eta1=1e-3) == Verdict.VIOLATED


def test_train_claims_catch_wrong_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    _scaled(monkeypatch, "dtrain_bound", 0.1)
    _scaled(monkeypatch, "paper_form_train_bound", 0.01)
    monkeypatch.setattr(B, "required_heads", lambda *a, **k: 1.0)
    assert _verdict("deora2023.train.logic") == Verdict.VIOLATED
    assert _verdict("deora2023.train.paperform") == Verdict.VIOLATED
    assert _verdict("deora2023.train.Hcond") == Verdict.HOLDS  # a too-small requirement is satisfied


def test_train_logic_reports_out_of_regime_without_premises(fresh: None) -> None:
    """At H = 2 the measured c exceeds 1 for every reference point: no verdict on the bound."""
    r = run_claim("deora2023.train.logic", H=2, K=60, every=30, seg_points=3, raise_errors=True)
    assert r.verdict == Verdict.OUT_OF_REGIME


def test_train_Hmono_catches_increasing_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = B.dtrain_worst_case
    monkeypatch.setattr(B, "dtrain_worst_case", lambda H, *a: orig(H, *a) * (1 + 1e-3 * math.log2(H)))
    assert _verdict("deora2023.train.Hmono") == Verdict.VIOLATED


def test_rate_K_catches_slow_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = E.run_gd

    def slow(*a, **k):
        traj, snaps = orig(*a, **k)
        traj.loss = traj.loss**0.5
        return traj, snaps

    monkeypatch.setattr(E, "run_gd", slow)
    assert _verdict("deora2023.rate.K", K_max=1000, K_min=100) == Verdict.VIOLATED


def test_lazy_claims_catch_wrong_movement(monkeypatch: pytest.MonkeyPatch, fresh: None) -> None:
    orig = E.lazy_point

    def moved(p: E.LazyPoint):
        out = orig(p)
        return (out[0] * p.H**0.3, *out[1:])

    monkeypatch.setattr(E, "lazy_point", moved)
    kw = dict(Hs=(2, 8, 32), K=100)
    assert _verdict("deora2023.lazy", **kw) == Verdict.VIOLATED
    assert _verdict("deora2023.lazy.abs", **kw) == Verdict.VIOLATED


def test_gen_derived_catches_small_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    _scaled(monkeypatch, "gen_bound", 0.01)
    kw = dict(ns=(20, 40), datasets=10, test_size=300, gamma_datasets=1)
    assert _verdict("deora2023.gen.derived", **kw) == Verdict.VIOLATED


def test_gen_rate_catches_flat_test_loss(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = E.gen_rate_point
    monkeypatch.setattr(E, "gen_rate_point", lambda p: orig(p) * p.n**1.2)
    kw = dict(ns=(10, 20, 40), seeds=1, K_per_n=5, test_size=300)
    assert _verdict("deora2023.gen.rate", **kw) == Verdict.VIOLATED
