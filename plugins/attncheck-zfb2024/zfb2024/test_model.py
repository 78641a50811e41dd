"""Property tests of the model, its gradients, the closed forms and the dynamics (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verify.numerics.gradcheck import check_grad
from zfb2024 import data, dynamics, model, theory

SIZES = st.tuples(st.integers(1, 4), st.integers(1, 8), st.integers(0, 2**31 - 1))


def _prompts(seed: int, d: int, n: int, B: int = 6) -> tuple[np.ndarray, data.Prompts]:
    rng = np.random.default_rng(seed)
    lam = data.random_lambda(rng, d)
    return lam, data.prompts(rng, lam, B, n)


@settings(max_examples=25, deadline=None)
@given(SIZES)
@example((3, 5, 2**31 - 1))  # loss 47.8: its round-off scatters differences at eps / 4 by 3e-8, above atol
def test_the_empirical_gradient_matches_central_differences(sizes: tuple[int, int, int]) -> None:
    d, n, seed = sizes
    _, p = _prompts(seed, d, n)
    rng = np.random.default_rng(seed + 1)
    # parameters at scale 0.5 keep the loss O(1-100); the checker judges larger ones at their round-off floor
    params = {
        "pv": 0.5 * rng.standard_normal((d + 1, d + 1)),
        "kq": 0.5 * rng.standard_normal((d + 1, d + 1)),
    }
    E = model.embed(p.X, p.y, p.xq)
    _, g_pv, g_kq = model.loss_and_grad(params["pv"], params["kq"], E, p.yq, n)
    report = check_grad(
        lambda q: model.loss_and_grad(q["pv"], q["kq"], E, p.yq, n)[0], params, {"pv": g_pv, "kq": g_kq}
    )
    assert report.ok, report.summary()


@settings(max_examples=25, deadline=None)
@given(SIZES)
def test_the_population_gradient_matches_central_differences(sizes: tuple[int, int, int]) -> None:
    d, n, seed = sizes
    lam = data.random_lambda(np.random.default_rng(seed), d)
    rng = np.random.default_rng(seed + 1)
    params = {
        "pv": 0.5 * rng.standard_normal((d + 1, d + 1)),
        "kq": 0.5 * rng.standard_normal((d + 1, d + 1)),
    }
    _, g_pv, g_kq = model.population_loss_and_grad(params["pv"], params["kq"], lam, n)
    report = check_grad(
        lambda q: model.population_loss_and_grad(q["pv"], q["kq"], lam, n)[0],
        params,
        {"pv": g_pv, "kq": g_kq},
    )
    assert report.ok, report.summary()


def test_a_wrong_gradient_is_caught_by_the_checker() -> None:
    lam = data.random_lambda(np.random.default_rng(0), 3)
    rng = np.random.default_rng(1)
    params = {"pv": 0.5 * rng.standard_normal((4, 4)), "kq": 0.5 * rng.standard_normal((4, 4))}
    _, g_pv, g_kq = model.population_loss_and_grad(params["pv"], params["kq"], lam, 6)
    g_kq = g_kq.copy()
    g_kq[3, 0] *= 1.01  # one entry of the w^KQ_21 block 1% off
    report = check_grad(
        lambda q: model.population_loss_and_grad(q["pv"], q["kq"], lam, 6)[0],
        params,
        {"pv": g_pv, "kq": g_kq},
    )
    assert not report.ok


@pytest.mark.parametrize("seed", [0, 1])
def test_the_closed_form_population_loss_matches_the_model_by_monte_carlo(seed: int) -> None:
    """Every block non-zero (the derivation's cross terms all active): 4 standard errors."""
    d, N, B = 2, 3, 400_000
    rng = np.random.default_rng(seed)
    lam = data.random_lambda(rng, d)
    Wpv, Wkq = 0.4 * rng.standard_normal((d + 1, d + 1)), 0.4 * rng.standard_normal((d + 1, d + 1))
    p = data.prompts(rng, lam, B, N)
    r = model.predict(Wpv, Wkq, model.embed(p.X, p.y, p.xq), N) - p.yq
    loss = 0.5 * r * r
    closed = model.population_loss_and_grad(Wpv, Wkq, lam, N)[0]
    assert abs(loss.mean() - closed) <= 4 * loss.std() / np.sqrt(B)


@settings(max_examples=20, deadline=None)
@given(SIZES)
def test_on_the_invariant_set_the_full_loss_is_the_reduced_one_plus_tr_lambda_over_2(
    sizes: tuple[int, int, int],
) -> None:
    """Lemma A.1 with (A.7): the full closed form and (5.5) are independent derivations."""
    d, n, seed = sizes
    rng = np.random.default_rng(seed)
    lam = data.random_lambda(rng, d)
    U, u = rng.standard_normal((d, d)), float(rng.standard_normal())
    Wpv, Wkq = np.zeros((d + 1, d + 1)), np.zeros((d + 1, d + 1))
    Wpv[d, d], Wkq[:d, :d] = u, U
    loss, g_pv, g_kq = model.population_loss_and_grad(Wpv, Wkq, lam, n)
    gU, gu = dynamics.reduced_grad(lam, n, U, u)
    assert loss == pytest.approx(
        theory.reduced_loss(lam, n, U, u) + 0.5 * np.trace(lam), rel=1e-12, abs=1e-12
    )
    np.testing.assert_allclose(g_kq[:d, :d], gU, rtol=1e-10, atol=1e-12)
    assert g_pv[d, d] == pytest.approx(gu, rel=1e-10, abs=1e-12)
    assert not np.any(g_pv[d, :d]) and not np.any(g_kq[d, :d])


@settings(max_examples=20, deadline=None)
@given(SIZES, st.floats(0.2, 5.0))
def test_the_prediction_is_gauge_invariant(sizes: tuple[int, int, int], c: float) -> None:
    """(W^PV, W^KQ) -> (c W^PV, W^KQ / c) leaves y_hat unchanged (the remark after Theorem 4.1)."""
    d, n, seed = sizes
    _, p = _prompts(seed, d, n)
    rng = np.random.default_rng(seed + 2)
    Wpv, Wkq = rng.standard_normal((d + 1, d + 1)), rng.standard_normal((d + 1, d + 1))
    E = model.embed(p.X, p.y, p.xq)
    np.testing.assert_allclose(
        model.predict(c * Wpv, Wkq / c, E, n), model.predict(Wpv, Wkq, E, n), rtol=1e-10, atol=1e-10
    )


@settings(max_examples=20, deadline=None)
@given(SIZES)
def test_the_limit_predicts_with_gamma_inverse(sizes: tuple[int, int, int]) -> None:
    """(4.2): at (4.1), y_hat = x_q^T Gamma^-1 (sum y_i x_i / M) w on a length-M prompt."""
    d, n, seed = sizes
    lam, p = _prompts(seed, d, n)
    U, u = theory.limit(lam, 7)
    Wpv, Wkq = np.zeros((d + 1, d + 1)), np.zeros((d + 1, d + 1))
    Wpv[d, d], Wkq[:d, :d] = u, U
    yhat = model.predict(Wpv, Wkq, model.embed(p.X, p.y, p.xq), n)
    g = np.einsum("bn,bnd->bd", p.y, p.X) / n
    np.testing.assert_allclose(
        yhat, np.einsum("bd,de,be->b", p.xq, np.linalg.inv(theory.gamma(lam, 7)), g), rtol=1e-10
    )


def test_the_exponential_moments_match_monte_carlo() -> None:
    """(C.3) for Exp(1): alpha, beta, gamma against 10^6 draws (5 standard errors)."""
    d, N, B = 3, 10, 1_000_000
    lam = np.random.default_rng(0).exponential(1.0, (B, d))
    s = lam.sum(axis=1)
    a = ((N + 1) / N) * lam[:, 0] ** 3 + lam[:, 0] ** 2 * s / N
    g = ((N + 1) / N) * lam[:, 0] ** 2 * lam[:, 1] + lam[:, 0] * lam[:, 1] * s / N
    alpha, beta, gam = theory.exp1_moments(d, N)
    for x, want in ((a, alpha[0]), (lam[:, 0] ** 2, beta[0]), (g, gam[0, 1])):
        assert abs(x.mean() - want) <= 5 * x.std() / np.sqrt(B)


def test_the_lambda_identity_closed_forms() -> None:
    """Lambda = I: L* = d (d + 1) / (2 (N + d + 1)); the noiseless risk
    d (d + 1) g^2 / M + d (d + 1)^2 / (N + d + 1)^2; the covariate-shift slope at Lambda = I, N = 6, c = 2."""
    d, N, M = 3, 6, 10
    g = N / (N + d + 1)
    assert theory.min_loss(np.eye(d), N) == pytest.approx(d * (d + 1) / (2 * (N + d + 1)), rel=1e-14)
    want = d * (d + 1) * g**2 / M + d * (d + 1) ** 2 / (N + d + 1) ** 2
    assert theory.cor43_risk(np.eye(d), N, M) == pytest.approx(want, rel=1e-14)
    # c^2 tr(Gamma^-1) / d with Gamma = 5/3 I: 4 (9/5) / 3
    assert theory.shift_slope(np.eye(3), 6, 2.0) == pytest.approx(2.4, rel=1e-14)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: theory.gamma(np.array([[1.0, 2.0], [2.0, 1.0]]), 3), "lam must be positive definite"),
        (lambda: theory.gamma(np.eye(2), 0), "N must be >= 1"),
        (lambda: theory.gamma(np.eye(2), 2.5), "N must be an int"),
        (lambda: theory.cor43_bound(np.ones((2, 3)), 3, 4), "lam must be a square"),
        (lambda: theory.u_lower(np.eye(2), 3, np.eye(2) / np.sqrt(2), 5.0), "sigma must satisfy"),
        (lambda: data.covariates(np.random.default_rng(0), np.eye(2), (3,), "cauchy"), "law must be one of"),
        (lambda: dynamics.full_gd(np.eye(2), 3, np.eye(2), 1.0, -0.1, 10), "eta must be > 0"),
    ],
)
def test_bad_inputs_raise_naming_the_parameter(call, match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        call()
