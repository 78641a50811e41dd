"""Claims of Wu et al. 2023 as tests: the claim battery (:mod:`verify.testing`) on every claim,
property-based runs of the exact claims, and for every claim that is not a consistency check a
measurement-side change (a wrong model, a wrong data law, a perturbed measured quantity) that flips its
verdict (``FALSIFIERS``)."""

from __future__ import annotations

import dataclasses
import math

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bounds import wu2023 as B
from verify.core import Verdict, run_claim
from verify.numerics import gd as G
from verify.testing import Check, cached_run, parametrize_with_claims
from verify.wu2023 import data as Dt
from verify.wu2023 import experiments as E
from verify.wu2023 import model as M


@parametrize_with_claims("wu2023")
def test_claim(check: Check) -> None:
    check()


#: claim id -> the test below that flips its verdict by a measurement-side change.
FALSIFIERS: dict[str, str] = {
    "wu2023.alpha.conc": "test_alpha_concentration_catches_biased_features",
    "wu2023.alpha.conc.rate": "test_alpha_concentration_catches_biased_features",
    "wu2023.alpha.he_lecun": "test_alpha_he_lecun_catches_a_wrong_he_variance",
    "wu2023.alpha.width": "test_alpha_width_catches_width_independent_features",
    "wu2023.assump3.tail": "test_assumption3_tail_holds_for_dissimilar_images",
    "wu2023.review.d_below_N": "test_d_below_n_catches_contradictory_labels",
    "wu2023.attn.degenerate": "test_scaling_claims_catch_the_other_scaling",
    "wu2023.attn.degenerate.sqrt": "test_scaling_claims_catch_the_other_scaling",
    "wu2023.qk.vanish": "test_scaling_claims_catch_the_other_scaling",
    "wu2023.qk.vanish.sqrt": "test_scaling_claims_catch_the_other_scaling",
    "wu2023.review.pooling": "test_scaling_claims_catch_the_other_scaling",
    "wu2023.scaling.rate": "test_scaling_rate_catches_swapped_scalings",
    "wu2023.emp.width": "test_emp_width_and_lazy_catch_wrong_trends",
    "wu2023.init.rate": "test_init_rate_catches_identical_inits",
    "wu2023.ntk.limit": "test_ntk_limit_catches_a_wrong_ntk_init",
    "wu2023.ntk.rate": "test_rate_claims_catch_a_slower_loss",
    "wu2023.prop1.vacuous": "test_vacuity_is_measured_not_hard_coded",
    "wu2023.thm1.width": "test_vacuity_is_measured_not_hard_coded",
    "wu2023.thm2.width": "test_vacuity_is_measured_not_hard_coded",
    "wu2023.review.stepsize": "test_stepsize_catches_a_sublinear_lambda_max",
    "wu2023.thm1.order": "test_order_claims_hold_for_a_threshold_of_the_claimed_order",
    "wu2023.thm2.order": "test_order_claims_hold_for_a_threshold_of_the_claimed_order",
    "wu2023.thm1.order.cubic": "test_order_claims_hold_for_a_threshold_of_the_claimed_order",
    "wu2023.fig9.linear": "test_fig9_linear_catches_a_polynomial_decay",
    "wu2023.fig9.weights": "test_fig9_weights_catch_weights_that_keep_moving",
    "wu2023.fig9.ntk": "test_fig9_ntk_catches_a_kernel_that_keeps_changing",
    "wu2023.fig9.ntk.width": "test_fig9_ntk_width_catches_a_width_independent_drift",
    "wu2023.thm1.tight": "test_tightness_claims_follow_the_training_law",
    "wu2023.thm2.tight": "test_tightness_claims_follow_the_training_law",
    "wu2023.thm1.tight.dgrow": "test_tightness_claims_follow_the_training_law",
}


# -------------------------------------------------------------------------------------------------
# property-based runs of the exact claims (one seed per example: hypothesis draws the seeds)
# -------------------------------------------------------------------------------------------------


def _holds(cid: str, seed: int, **kw) -> bool:
    return run_claim(cid, seed_set=[seed], **kw).verdict == Verdict.HOLDS


@settings(max_examples=4)
@given(seed=st.integers(0, 1000), d_m=st.integers(3, 24), N=st.integers(1, 4))
def test_grad_property(seed: int, d_m: int, N: int) -> None:
    assert _holds("wu2023.grad", seed, d_m=d_m, N=N, d=4, d_s=3)


#: Worst-case search budgets of one start and no local iteration (the starting draw only): the property
#: runs below check the random draws at many seeds; the searches have their own tests further down.
_NO_SEARCH: dict[str, tuple[int, ...]] = {
    "wu2023.softmax.lip": (2, 1, 0),
    "wu2023.alpha.psd": (2, 2, 2, 1, 0),
    "wu2023.ntk.mineig": (2, 2, 1, 0),
    "wu2023.pl": (2, 2, 2, 2, 1, 0),
    "wu2023.ntk.floor": (2, 2, 2, 2, 1, 0),
    "wu2023.lipschitz": (1, 2, 1, 1, 1, 0, 0),
}


@given(seed=st.integers(0, 10_000), k=st.integers(2, 9))
def test_softmax_lip_property(seed: int, k: int) -> None:
    assert _holds("wu2023.softmax.lip", seed, k=k, samples=500, search=_NO_SEARCH["wu2023.softmax.lip"])


@given(seed=st.integers(0, 10_000))
def test_alpha_psd_and_ntk_mineig_property(seed: int) -> None:
    assert _holds("wu2023.alpha.psd", seed, sets=10, search=_NO_SEARCH["wu2023.alpha.psd"])
    assert _holds("wu2023.ntk.mineig", seed, sets=20, search=_NO_SEARCH["wu2023.ntk.mineig"])


@settings(max_examples=5)
@given(seed=st.integers(0, 10_000), N=st.integers(2, 8), d_m=st.sampled_from([16, 32, 64]))
@example(seed=231, N=7, d_m=16)  # a rank-deficient F at an iterate: sigma_min(F) = 0, a zero floor
def test_pl_and_ntk_floor_property(seed: int, N: int, d_m: int) -> None:
    kw = dict(N=N, d=2 * N, d_m=d_m, steps=20)
    assert _holds("wu2023.pl", seed, search=_NO_SEARCH["wu2023.pl"], **kw)
    assert _holds("wu2023.ntk.floor", seed, every=10, search=_NO_SEARCH["wu2023.ntk.floor"], **kw)


@settings(max_examples=5)
@given(seed=st.integers(0, 10_000), d_m=st.sampled_from([8, 16, 32]))
def test_lipschitz_property(seed: int, d_m: int) -> None:
    kw = dict(d_m=d_m, configs=6, pairs=3, search=_NO_SEARCH["wu2023.lipschitz"])
    assert _holds("wu2023.lipschitz", seed, **kw)


@settings(max_examples=6)
@given(
    seed=st.integers(0, 10_000),
    p=st.sampled_from([0.5, 1.0]),
    init=st.sampled_from(B.INITS),
    regime=st.sampled_from(Dt.REGIMES),
    N=st.integers(2, 10),
)
def test_prop1_property(seed: int, p: float, init: str, regime: str, N: int) -> None:
    """Prop. 1 is a logical consequence of checked premises: never violated, whatever the setting."""
    r = run_claim(
        "wu2023.prop1",
        seed_set=[seed],
        tau0_power=p,
        init=init,
        regime=regime,
        N=N,
        d=2 * N,
        d_m=64,
        steps=60,
    )
    assert r.verdict in (Verdict.HOLDS, Verdict.OUT_OF_REGIME), r.notes


@given(seed=st.integers(0, 10_000))
def test_rank_and_loss0_property(seed: int) -> None:
    assert _holds("wu2023.assump3.rank", seed)
    assert _holds("wu2023.norms", seed, trials=100)


# -------------------------------------------------------------------------------------------------
# consistency checks catch a wrong formula or a wrong derivative
# -------------------------------------------------------------------------------------------------


def _wrap(monkeypatch, module, name: str, make):
    orig = getattr(module, name)
    monkeypatch.setattr(module, name, make(orig))


def _verdict(cid: str, **kw) -> Verdict:
    return run_claim(cid, raise_errors=True, **kw).verdict


def _violated(cid: str, **kw) -> None:
    r = run_claim(cid, raise_errors=True, **kw)
    assert r.verdict == Verdict.VIOLATED, (r.verdict, r.measured, r.notes)


def _no_longer_holds(cid: str, **kw) -> None:
    """A rate claim under a wrong model: its exponent's interval leaves the band (violated) or, when it
    straddles the band's edge, the rule says inconclusive; either way the claim no longer holds, and an
    inconclusive interval must not contain the claimed exponent."""
    r = run_claim(cid, raise_errors=True, **kw)
    assert r.verdict in (Verdict.VIOLATED, Verdict.INCONCLUSIVE), (r.verdict, r.measured, r.notes)
    if r.verdict == Verdict.INCONCLUSIVE and isinstance(r.measured, dict):
        assert not r.measured["lo"] <= r.theory <= r.measured["hi"], r.measured


def test_grad_catches_a_wrong_gradient(monkeypatch) -> None:
    def make(orig):
        def wrong(
            model: M.ShallowTransformer, th: M.Params, batch: Dt.Batch, cache: M.Cache | None = None
        ) -> tuple[float, M.Params]:
            loss, g = orig(model, th, batch, cache)
            return loss, g.replace(W_Q=g.W_Q * 1.001)

        return wrong

    _wrap(monkeypatch, M.ShallowTransformer, "loss_and_grad", make)
    _violated("wu2023.grad", seed_set=[0])


def test_softmax_lip_catches_a_smaller_constant(monkeypatch) -> None:
    monkeypatch.setattr(B, "SOFTMAX_LIP", 0.45)
    _violated("wu2023.softmax.lip", seed_set=[0])


def test_alpha_gram_catches_a_wrong_gram(monkeypatch) -> None:
    _wrap(monkeypatch, B, "expected_gram", lambda orig: lambda Z, eta: 1.2 * orig(Z, eta))
    _violated("wu2023.alpha.gram", seed_set=[0])


def test_alpha_psd_catches_a_too_high_floor(monkeypatch) -> None:
    _wrap(monkeypatch, B, "hermite_floor", lambda orig: lambda Z, eta: 2.0 * orig(Z, eta))
    _violated("wu2023.alpha.psd", seed_set=[0])


def test_pl_and_floor_catch_an_inflated_sigma_min(monkeypatch) -> None:
    _wrap(monkeypatch, M, "sigma_min_sq", lambda orig: lambda F: 4.0 * orig(F))
    _violated("wu2023.pl", seed_set=[0])
    _violated("wu2023.ntk.floor", seed_set=[0])


def test_prop1_catches_a_too_fast_rate(monkeypatch) -> None:
    """alpha doubled is NOT caught: the bound's exponent gamma alpha^2/4 is ~16x below the measured
    decay (wu2023.review.logplot), so only alpha x6 (exponent x36) makes the bound false."""
    _wrap(monkeypatch, B, "rate_bound", lambda orig: lambda l0, g, t1, a, t: orig(l0, g, t1, 2.0 * a, t))
    assert _verdict("wu2023.prop1", seed_set=[0]) == Verdict.HOLDS
    monkeypatch.undo()
    _wrap(monkeypatch, B, "rate_bound", lambda orig: lambda l0, g, t1, a, t: orig(l0, g, t1, 6.0 * a, t))
    _violated("wu2023.prop1", seed_set=[0])


def test_ntk_mineig_catches_too_high_bounds(monkeypatch) -> None:
    _wrap(monkeypatch, B, "ntk_mineig_linear", lambda orig: lambda X, **k: 3.0 * orig(X, **k))
    _wrap(monkeypatch, B, "ntk_mineig_hermite", lambda orig: lambda X, r=2, **k: 3.0 * orig(X, r, **k))
    _violated("wu2023.ntk.mineig", seed_set=[0])


def test_norm_claims_catch_wrong_constants(monkeypatch) -> None:
    _wrap(monkeypatch, B, "gaussian_norm_bound", lambda orig: lambda *a: 0.8 * orig(*a))
    _violated("wu2023.norms")
    _wrap(monkeypatch, B, "expected_loss0", lambda orig: lambda *a: 1.1 * orig(*a))
    _violated("wu2023.norms.loss0", seed_set=[0])


def test_rank_check_catches_a_nonzero_quantity(monkeypatch) -> None:
    monkeypatch.setattr(B, "assumption3_pooled", lambda Z: 1e-3)
    _violated("wu2023.assump3.rank", seed_set=[0])


# -------------------------------------------------------------------------------------------------
# FALSIFIERS: every paper claim flips under a measurement-side change
# -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cid", "forced"),
    [
        ("wu2023.attn.degenerate", 0.5),
        ("wu2023.attn.degenerate.sqrt", 1.0),
        ("wu2023.qk.vanish", 0.5),
        ("wu2023.qk.vanish.sqrt", 1.0),
        ("wu2023.review.pooling", 0.5),
    ],
)
def test_scaling_claims_catch_the_other_scaling(monkeypatch, cid: str, forced: float) -> None:
    """A model that ignores tau0_power (always the other scaling) fails the scaling claims."""
    _wrap(monkeypatch, B, "tau0", lambda orig: lambda d_m, power: orig(d_m, forced))
    _no_longer_holds(cid)


def test_scaling_rate_catches_swapped_scalings(monkeypatch) -> None:
    _wrap(monkeypatch, B, "tau0", lambda orig: lambda d_m, power: orig(d_m, 1.5 - power))
    _violated("wu2023.scaling.rate")


def test_alpha_concentration_catches_biased_features(monkeypatch) -> None:
    """Features whose sigma_min is off by 30% never concentrate at lambda_min(G)."""
    _wrap(monkeypatch, M, "sigma_min_sq", lambda orig: lambda F: 1.3 * orig(F))
    _violated("wu2023.alpha.conc")
    _no_longer_holds("wu2023.alpha.conc.rate")


def test_alpha_width_catches_width_independent_features(monkeypatch) -> None:
    def make(orig):
        return lambda init, d, d_m: dataclasses.replace(
            orig(init, d, d_m), eta_V=orig(init, d, d_m).eta_V * 64 / d_m
        )

    _wrap(monkeypatch, B, "init_variances", make)
    _no_longer_holds("wu2023.alpha.width")


def test_alpha_he_lecun_catches_a_wrong_he_variance(monkeypatch) -> None:
    def make(orig):
        def wrong(init, d, d_m):
            v = orig(init, d, d_m)
            return dataclasses.replace(v, eta_V=3.0 / d) if init == "he" else v

        return wrong

    _wrap(monkeypatch, B, "init_variances", make)
    _violated("wu2023.alpha.he_lecun")


def test_assumption3_claims_catch_degenerate_data(monkeypatch) -> None:
    """Tokens on one line (Gaussian) or one repeated image (digits) make the pooled inputs rank one."""

    def one_line(orig):
        def wrong(rng, N, d_s, d, regime="paper"):
            b = orig(rng, N, d_s, d, regime)
            return Dt.Batch(b.X[..., :1] * np.ones(d), b.y)

        return wrong

    _wrap(monkeypatch, Dt, "gaussian_data", one_line)
    _violated("wu2023.assump3")

    def one_image(orig):
        def wrong(rng, N, tokens="rows"):
            b = orig(rng, N, tokens)
            return Dt.Batch(np.repeat(b.X[:1], N, axis=0) * rng.uniform(0.5, 1.5, (N, 1, 1)), b.y)

        return wrong

    if Dt.digits_available():
        _wrap(monkeypatch, Dt, "digits_tokens", one_image)
        _violated("wu2023.assump3.digits")


@pytest.mark.parametrize("cid", ["wu2023.assump3.digits", "wu2023.assump3.tail", "wu2023.review.d_below_N"])
def test_digits_without_sklearn_is_inconclusive(monkeypatch, cid: str) -> None:
    monkeypatch.setattr(Dt, "digits_available", lambda: False)
    r = run_claim(cid, seed_set=[0])
    assert r.verdict == Verdict.INCONCLUSIVE
    assert any("pip install 'attncheck[data]'" in n for n in r.notes)


def test_assumption3_tail_holds_for_dissimilar_images(monkeypatch) -> None:
    """The finding is not built in: "images" whose tokens are rank one along a random direction per
    image (covariance cosines (b_i . b_j)^2, mean 1/d) are more dissimilar than Gaussian tokens, and
    the tail claim holds at every seed, for rows and for 4x4 patches."""
    pytest.importorskip("sklearn")

    def rank_one(orig):
        def wrong(rng, N, tokens="rows"):
            b = orig(rng, N, tokens)
            _, d_s, d = b.X.shape
            return Dt.Batch(rng.standard_normal((N, d_s, 1)) * rng.standard_normal((N, 1, d)), b.y)

        return wrong

    _wrap(monkeypatch, Dt, "digits_tokens", rank_one)
    assert _verdict("wu2023.assump3.tail") == Verdict.HOLDS


def test_d_below_n_catches_contradictory_labels(monkeypatch) -> None:
    """A wrong data law: the second half of the images repeats the first with the labels flipped, so no
    model fits them and GD stalls far above 1e-2 l_0."""
    pytest.importorskip("sklearn")

    def contradictory(orig):
        def wrong(rng, N, tokens="rows"):
            b = orig(rng, N, tokens)
            h = N // 2
            return Dt.Batch(np.concatenate([b.X[:h], b.X[:h]]), np.concatenate([b.y[:h], -b.y[:h]]))

        return wrong

    _wrap(monkeypatch, Dt, "digits_tokens", contradictory)
    _violated("wu2023.review.d_below_N", seed_set=[0])


def test_lipschitz_catches_a_steeper_model(monkeypatch) -> None:
    """Features 30x steeper than the model the constants rho, z were derived for."""
    _wrap(
        monkeypatch,
        M.ShallowTransformer,
        "features",
        lambda orig: lambda self, th, b: 30.0 * orig(self, th, b),
    )
    _violated("wu2023.lipschitz", seed_set=[0])


def test_ntk_limit_catches_a_wrong_ntk_init(monkeypatch) -> None:
    """An NTK init with a 30% larger value variance has a kernel that never reaches K_inf."""

    def make(orig):
        def wrong(init, d, d_m):
            v = orig(init, d, d_m)
            return dataclasses.replace(v, eta_V=1.3 * v.eta_V) if init == "ntk" else v

        return wrong

    _wrap(monkeypatch, B, "init_variances", make)
    _no_longer_holds("wu2023.ntk.limit")


def test_rate_claims_catch_a_slower_loss(monkeypatch) -> None:
    """A loss that decays slower than the claimed rates (1.5^t times the true one) breaks both bounds."""

    def make(orig):
        def slow(*a, **k):
            tr = orig(*a, **k)
            return dataclasses.replace(tr, loss=tr.loss * 1.5 ** np.arange(tr.loss.size))

        return slow

    _wrap(monkeypatch, E.ntk, "run_gd", make)  # ntk_rate_run's
    _wrap(monkeypatch, E, "run_gd", make)  # the claim review.logplot's
    _violated("wu2023.ntk.rate", seed_set=[0])
    _violated("wu2023.review.logplot", seed_set=[0])


def test_vacuity_is_measured_not_hard_coded(monkeypatch) -> None:
    """Measured condition ratios 1e8 larger, or data with a 1e9 larger lambda_min(G) and 1e-6 of the
    token moments, make the conditions reachable."""

    def make(orig):
        def better(s):
            q = orig(s)
            return dataclasses.replace(q, c1=q.c1 * 1e8, c2=q.c2 * 1e8)

        return better

    _wrap(monkeypatch, E.runs, "prop1_at_init", make)
    assert _verdict("wu2023.prop1.vacuous") == Verdict.HOLDS
    monkeypatch.undo()

    def easy(orig):
        def summary(*a):
            s = orig(*a)
            return dataclasses.replace(s, lam0=s.lam0 * 1e9, sum_c2=s.sum_c2 * 1e-6, sum_x6=s.sum_x6 * 1e-6)

        return summary

    _wrap(monkeypatch, E, "data_summary", easy)
    assert _verdict("wu2023.thm1.width") == Verdict.HOLDS
    assert _verdict("wu2023.thm2.width") == Verdict.HOLDS


def test_stepsize_catches_a_sublinear_lambda_max(monkeypatch) -> None:
    """lambda_max growing like N^0.6 gives a stable step like N^-0.6: violated; exactly like N holds."""
    monkeypatch.setattr(
        E.stepsize, "lam_max", lambda model, th, batch: batch.N**0.6 * (1 + 0.01 * abs(batch.X[0, 0, 0]))
    )
    _no_longer_holds("wu2023.review.stepsize")
    monkeypatch.setattr(
        E.stepsize, "lam_max", lambda model, th, batch: batch.N * (1 + 0.01 * abs(batch.X[0, 0, 0]))
    )
    assert _verdict("wu2023.review.stepsize") == Verdict.HOLDS


def test_order_claims_hold_for_a_threshold_of_the_claimed_order(monkeypatch) -> None:
    """The VIOLATED findings are not built in: width functions of exactly the claimed order pass."""
    monkeypatch.setattr(B, "thm1_width", lambda s, **k: mpmath.mpf(s.N) ** 2 * 1e6 * s.trG / s.N)
    monkeypatch.setattr(B, "thm2_width", lambda s, **k: mpmath.mpf(s.N) * 1e6 * s.trG / s.N)
    assert _verdict("wu2023.thm1.order") == Verdict.HOLDS
    assert _verdict("wu2023.thm2.order") == Verdict.HOLDS
    monkeypatch.setattr(B, "thm1_width", lambda s, **k: mpmath.mpf(s.N) ** 3 * 1e6 * s.trG / s.N)
    cheap = lambda seed, key, N, d, d_s, *a: B.DataSummary(N, d, d_s, 1.0, 1.0, 1.0, 1.0, float(N))  # noqa: E731
    monkeypatch.setattr(E.width_order, "data_summary", cheap)
    big = dict(Ns=[128, 256, 512, 1024], d_fixed=1024)
    assert _verdict("wu2023.thm1.order.cubic", **big) == Verdict.HOLDS
    monkeypatch.setattr(B, "thm1_width", lambda s, **k: mpmath.mpf(s.N) ** 2 * 1e6)
    _violated("wu2023.thm1.order.cubic", **big)


def _fig9_wrong(monkeypatch, change) -> None:
    """Every Fig. 9 run passes through ``change(point, record) -> record`` (a wrong world)."""
    _wrap(monkeypatch, E, "fig9_runs", lambda orig: lambda pts: list(map(change, pts, orig(pts))))


def test_fig9_linear_catches_a_polynomial_decay(monkeypatch) -> None:
    """A loss that decays like l_0 (1 + t)^-2 (sublinear convergence) is violated; the true run holds."""
    _fig9_wrong(monkeypatch, lambda p, r: r | {"loss": (1.0 + np.arange(len(r["loss"]))) ** -2.0})
    _violated("wu2023.fig9.linear", seed_set=[0, 1, 2])


#: 20 seeds: 20 of 20 successes hold (Clopper-Pearson lower bound 0.86 >= 0.8), 0 of 20 violate (upper 0.14)
_FIG9_SEEDS = list(range(20))


def test_fig9_weights_catch_weights_that_keep_moving(monkeypatch) -> None:
    """Weights whose per-step movement decays only like 1/(1 + t) (2% of the first step's at t = 50):
    no draw settles, violated; the true runs hold on the same draws."""
    assert _verdict("wu2023.fig9.weights", seed_set=_FIG9_SEEDS) == Verdict.HOLDS
    _fig9_wrong(
        monkeypatch, lambda p, r: r | {"move": (r["move"][0] / (1.0 + np.arange(len(r["move"])))).tolist()}
    )
    _violated("wu2023.fig9.weights", seed_set=_FIG9_SEEDS)


def test_fig9_ntk_catches_a_kernel_that_keeps_changing(monkeypatch) -> None:
    """An NTK that changes as much after epoch 50 as before it (late / early change 1): violated."""
    _fig9_wrong(monkeypatch, lambda p, r: r | {"late": [1.0]})
    _violated("wu2023.fig9.ntk", seed_set=_FIG9_SEEDS)


def test_fig9_ntk_width_catches_a_width_independent_drift(monkeypatch) -> None:
    """A drift that does not depend on the width (each draw's drift at every width is its drift at the
    narrowest): no draw's width exponent is below 0, violated; the true runs hold on the same draws."""
    assert _verdict("wu2023.fig9.ntk.width", seed_set=_FIG9_SEEDS) == Verdict.HOLDS
    first: dict[int, float] = {}
    _fig9_wrong(
        monkeypatch, lambda p, r: r | {"ntk": [*r["ntk"][:-1], first.setdefault(p.seed, r["ntk"][-1])]}
    )
    _violated("wu2023.fig9.ntk.width", seed_set=_FIG9_SEEDS)


def test_tightness_claims_follow_the_training_law(monkeypatch) -> None:
    """A training law that succeeds exactly when d_m >= N^2 / 2 (resp. 2 N) gives minimal widths of
    the claimed order: the tightness claims then hold; one that needs d_m >= 2^N (local exponents
    N ln 2, growing) is violated."""

    def law(need):
        return lambda p: {"success": float(p.d_m >= need(p.N)), "failed": "", "steps": 1.0, "radius": 0.0}

    kw = dict(Ns=[2, 4, 8, 16, 32], widths=[2**k for k in range(1, 17)])
    monkeypatch.setattr(E.tightness, "premise_run", law(lambda n: n * n / 2))
    assert _verdict("wu2023.thm1.tight", **kw) == Verdict.HOLDS
    monkeypatch.setattr(E.tightness, "premise_run", law(lambda n: 2 * n))
    assert _verdict("wu2023.thm2.tight", **kw) == Verdict.HOLDS
    monkeypatch.setattr(E.tightness, "premise_run", law(lambda n: n * n / 2))
    assert _verdict("wu2023.thm1.tight.dgrow", **kw) == Verdict.HOLDS
    monkeypatch.setattr(E.tightness, "premise_run", law(lambda n: 2.0**n))
    _violated("wu2023.thm1.tight", **dict(kw, Ns=[2, 3, 4, 6, 8, 11, 16]))


def test_emp_width_and_lazy_catch_wrong_trends(monkeypatch) -> None:
    def make(orig):
        def wrong(item):
            r = orig(item)
            return dict(r, steps=float(item.d_m), drift=item.d_m**0.5, ntk_drift=item.d_m**0.5)

        return wrong

    _wrap(monkeypatch, E.training, "gd_point", make)
    _violated("wu2023.emp.width", widths=[32, 64, 128], seed_set=[0, 1])
    _violated("wu2023.lazy", seed_set=[0, 1], steps=40)


def test_emp_width_reads_a_rise_within_the_seeds_spread_as_no_evidence(monkeypatch) -> None:
    """Mean steps 50, 50.5, 30 over four seeds, the rise from d_m = 32 to 64 made of per-seed changes
    +10, -10, +10, -8: the means rise, but the change's interval holds 0, so the verdict is inconclusive
    (not violated, as a comparison of the means as numbers would say); a rise of +10 at every seed is
    violated."""

    def steps_at(rise):
        def make(orig):
            def fake(item):
                r = orig(item)
                s = {32: 50.0, 64: 50.0 + rise[item.seed], 128: 30.0}[item.d_m]
                return dict(r, steps=s)

            return fake

        return make

    kw = dict(widths=[32, 64, 128], seed_set=[0, 1, 2, 3], steps=20)
    _wrap(monkeypatch, E.training, "gd_point", steps_at({0: 10.0, 1: -10.0, 2: 10.0, 3: -8.0}))
    assert _verdict("wu2023.emp.width", **kw) == Verdict.INCONCLUSIVE
    monkeypatch.undo()
    _wrap(monkeypatch, E.training, "gd_point", steps_at({0: 10.0, 1: 10.0, 2: 10.0, 3: 10.0}))
    _violated("wu2023.emp.width", **kw)


def test_init_rate_catches_identical_inits(monkeypatch) -> None:
    _wrap(
        monkeypatch,
        B,
        "init_variances",
        lambda orig: lambda init, d, d_m: orig("lecun" if init == "ntk" else init, d, d_m),
    )
    _violated("wu2023.init.rate", seed_set=[0])


def test_out_of_regime_names_the_assumption() -> None:
    r = run_claim("wu2023.alpha.conc", d_m=128)
    assert r.verdict == Verdict.OUT_OF_REGIME and any("64 N" in n for n in r.notes)
    r = run_claim("wu2023.thm1.tight", seed_set=[0], Ns=[4, 64], d=32)
    assert r.verdict == Verdict.OUT_OF_REGIME and any("d >= N_max" in n for n in r.notes)
    assert math.isfinite(cached_run("wu2023.prop1").slack)


def test_premise_run_reports_the_first_failed_premise() -> None:
    """d_m < N fails alpha > 0 without running; a wide model reaches the target with every premise."""
    kw = dict(seed=0, key=0, N=8, d=16, d_s=4, tau0_power=0.5, steps=500, frac=1e-2, decrease_rtol=1e-12)
    assert E.premise_run(E.PremisePoint(d_m=4, step_factor=0.25, **kw))["failed"].startswith("alpha = 0")
    r = E.premise_run(E.PremisePoint(d_m=256, step_factor=0.25, **kw))
    assert r["success"] == 1.0 and r["failed"] == "" and r["radius"] > 0
    huge = E.premise_run(E.PremisePoint(d_m=256, step_factor=50.0, **kw))
    assert huge["success"] == 0.0 and huge["failed"] == "sufficient decrease"
    assert G.RunState.CONVERGED == "converged"


# -------------------------------------------------------------------------------------------------
# worst-case searches (issue 17): each finds what the random draws miss
# -------------------------------------------------------------------------------------------------


def _search_catches(cid: str, **kw) -> None:
    """``cid`` at seed 0 holds without its search (the starting draws only) and is violated with it, the
    search recording a counterexample (worst ratio > 1) whose argument replays."""
    r0 = run_claim(cid, seed_set=[0], raise_errors=True, search=_NO_SEARCH[cid], **kw)
    assert r0.verdict == Verdict.HOLDS, (r0.measured, r0.notes)
    r = run_claim(cid, seed_set=[0], raise_errors=True, **kw)
    assert r.verdict == Verdict.VIOLATED and r.worst["ratio"] > 1, (r.measured, r.notes)
    assert any("counterexample" in n for n in r.notes)


def test_lipschitz_search_finds_a_rho_one_percent_too_small(monkeypatch) -> None:
    """rho made 1 % smaller: the random draws (max ratio 0.08 at seed 0) miss it; the search, which attains
    rho (worst ratio 1.000000 at N = 1, d_s = 2, d = d_m = 1: two equal tokens, W_Q, W_K -> 0 or W_V -> 0,
    where rho reduces to the W_V term sqrt(sum_n c_n^2)), finds the counterexample."""
    _wrap(monkeypatch, B, "rho_z", lambda orig: lambda *a: (0.99 * orig(*a)[0], orig(*a)[1]))
    _search_catches("wu2023.lipschitz")


def test_softmax_lip_search_finds_a_constant_one_percent_too_small(monkeypatch) -> None:
    """1/2 made 1 % smaller: the random pairs of logit matrices (max Lipschitz ratio 0.42 of 1/2 at seed 0)
    miss it; the search over pairs, which attains 1/2 (ratio 0.999995: two equal logits in a row, L' -> L),
    finds it. (The claim's planted two-point p catches it too, through the Jacobian.)"""
    monkeypatch.setattr(B, "SOFTMAX_LIP", 0.495)
    r = run_claim("wu2023.softmax.lip", seed_set=[0], raise_errors=True)
    assert r.verdict == Verdict.VIOLATED and r.worst["ratio"] > 1 > r.worst["typical"], r.worst


def test_alpha_psd_search_finds_a_floor_one_percent_too_high(monkeypatch) -> None:
    """eta_V/4 sigma_min(Zbar)^2 made 1 % larger: the random token sets (ratio to lambda_min(G) at most 0.72
    at seed 0) miss it; the search, which attains the floor (ratio 1 - 5e-10 at N = d_s = d = 2: the second
    example's tokens are -c z_2, c z_1 for the first's z_1, z_2, so every even Hermite term of G is singular
    in the direction the linear term's minimum takes), finds it."""
    _wrap(monkeypatch, B, "alpha_sq_floor", lambda orig: lambda *a: 1.01 * orig(*a))
    _search_catches("wu2023.alpha.psd")


def test_ntk_mineig_search_finds_a_smaller_kernel(monkeypatch) -> None:
    """A limiting NTK 0.58 times ours: the random token-mean sets (lambda_min / bound >= 1.78 for ours at
    seed 0, so 1.03) miss it; the search (worst bound / lambda_min 0.5946 for the linear bound at N = d = 2,
    so lambda_min / bound 1.68 and 0.975) finds it."""
    _wrap(
        monkeypatch,
        B,
        "limiting_ntk",
        lambda orig: lambda X, **k: {b: 0.58 * v for b, v in orig(X, **k).items()},
    )
    _search_catches("wu2023.ntk.mineig")


def test_pl_and_floor_searches_find_a_floor_one_percent_too_high(monkeypatch) -> None:
    """sigma_min(F_pre)^2 made 1 % larger: GD and its iterates (measured / bound >= 1.8 for pl and 1.9 for the
    NTK floor at seed 0) miss it; the searches over theta, which attain both bounds (ratio 1: w_O -> 0
    removes the Q/K/V blocks of K and of the gradient, and the residual takes F_pre's smallest singular
    direction), find it."""
    _wrap(monkeypatch, M, "sigma_min_sq", lambda orig: lambda F: 1.01 * orig(F))
    _search_catches("wu2023.pl")
    _search_catches("wu2023.ntk.floor")


@pytest.mark.parametrize(
    "ratio, shape",
    [
        (lambda A: E.softmax_lip_ratio(A, 1e-12), (2, 2, 2)),
        (lambda A: E.hermite_gap(A, 1e-10)[0], (2, 2, 2)),
        (lambda A: E.ntk_mineig_ratio(A, 1e-10, "hermite"), (3, 3)),
    ],
)
def test_array_search_beats_its_draws_and_replays(ratio, shape: tuple[int, ...]) -> None:
    """A search improves on its starting draws, stays a bound (ratio <= 1) and its argument replays."""
    w = E.array_search(ratio, shape, np.random.default_rng(0), 2, 50)
    assert w.typical < w.ratio <= 1 and w.argument["shape"] == list(shape)
    assert ratio(np.reshape(w.z, shape)) == w.ratio
