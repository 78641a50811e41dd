"""Unit tests of bounds.yang2024: the Lemma 5 quantities, ridge identities, the reconstructed rate and
iteration count, the inference bounds (property tests over random theta), bad inputs."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bounds import yang2024 as B
from verify.yang2024 import data, model


@st.composite
def zcases(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    m, N, KQ = draw(st.integers(1, 12)), draw(st.integers(1, 15)), draw(st.integers(1, 10))
    tau = draw(st.floats(1e-3, 2.0))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    return rng.standard_normal((m, N)), rng.standard_normal((m, KQ)), rng.standard_normal((4, N)), tau


@given(zcases())
def test_A_is_identity_on_prompt_tokens_and_ridge_outside(case: tuple) -> None:
    Z, Z_Q, y, tau = case
    N = Z.shape[1]
    A = B.target_matrix(Z, Z_Q, tau)
    np.testing.assert_allclose(A[:, :N], np.eye(N), atol=1e-10)
    ref = B.ridge_predictions(Z, Z_Q, y, B.transformer_ridge(Z, y, tau))
    got = B.limit_predictor(A, y)
    np.testing.assert_allclose(got, ref, atol=1e-9 * max(1.0, float(np.abs(ref).max())))
    c = B.const_terms(Z, Z_Q, tau)
    assert np.max(np.abs(c[:N])) <= 1e-10 * (1 + float(np.max(np.sum(Z * Z, axis=0))))
    assert B.loss_floor(Z, Z_Q, tau) == pytest.approx(0.5 * float(c[N:].sum()), rel=1e-10)


@given(zcases())
def test_transformer_ridge_is_lmmse(case: tuple) -> None:
    Z, Z_Q, _, tau = case
    m, N = Z.shape
    e_tf = B.expected_error(Z, Z_Q, tau, m * tau)
    for pen in (N * tau, 0.5 * m * tau, 2 * m * tau):
        assert e_tf <= B.expected_error(Z, Z_Q, tau, pen) * (1 + 1e-10)


@given(zcases())
def test_fig3_gap_zero_iff_same_penalty(case: tuple) -> None:
    Z, Z_Q, _, tau = case
    gap = B.fig3_gap(Z, Z_Q, tau)
    assert gap >= 0
    if Z.shape[0] == Z.shape[1]:
        assert gap == 0.0


@given(zcases())
def test_ridge_norm_ordering(case: tuple) -> None:
    Z, _, y, tau = case
    m, N = Z.shape
    a = np.linalg.norm(B.transformer_ridge(Z, y, tau), axis=1)
    b = np.linalg.norm(B.best_ridge(Z, y, tau), axis=1)
    if N < m:
        assert np.all(a <= b * (1 + 1e-12))
    elif N > m:
        assert np.all(a >= b * (1 - 1e-12))


def test_lemma4_objective_is_the_exact_expectation() -> None:
    """E_eps ||y - (Z + E)^T lam||^2 / (2N) = ||y - Z^T lam||^2/(2N) + tau ||lam||^2 / 2, exactly."""
    rng = np.random.default_rng(0)
    Z, y, lam = rng.standard_normal((3, 5)), rng.standard_normal(5), rng.standard_normal((2, 3))
    tau = 0.3
    direct = 0.5 * np.sum((y - lam @ Z) ** 2, axis=1) / 5 + 0.5 * 5 * tau * np.sum(lam**2, 1) / 5
    np.testing.assert_allclose(B.lemma4_objective(Z, y, lam, tau), direct, rtol=1e-14)


@st.composite
def thetas(draw: st.DrawFn) -> tuple[data.Problem, model.Params, np.ndarray]:
    K, m, d, H = (
        draw(st.integers(4, 14)),
        draw(st.integers(1, 5)),
        draw(st.integers(2, 5)),
        draw(st.integers(1, 6)),
    )
    N = draw(st.integers(2, K - 1))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    p = data.make_problem(K, N, d, m, draw(st.floats(1e-3, 1.0)), rng)
    th = model.Transformer(H).init(p, draw(st.floats(0.1, 3.0)), rng)
    th = th.replace(w=draw(st.floats(0.01, 3.0)) * rng.standard_normal(th.w.shape))
    lam = data.sample_tasks(5, m, rng, "ood")
    return p, th, data.sample_labels(p, lam, rng)[:, :N]


@given(thetas())
def test_inference_and_copy_bounds_hold_for_any_theta(case: tuple) -> None:
    """Theorem 2's deterministic step holds for every theta, not only GD iterates."""
    p, th, y = case
    D = model.Transformer(th.Q.shape[0]).excess_loss(th, p)
    pred = model.Transformer(th.Q.shape[0]).predict(th, p, y)
    star = B.limit_predictor(p.A, y)
    lhs = 0.5 * np.sum((pred - star) ** 2, axis=1) / p.K
    y2 = np.sum(y * y, axis=1)
    assert np.all(lhs <= B.inference_bound(D, y2, p.K, p.lam_min_G) * (1 + 1e-12))
    copy = np.max(np.abs(pred[:, : p.N] - y), axis=1)
    assert np.all(copy <= B.copy_bound(D, y2, p.lam_min_G) * (1 + 1e-12))


def test_zeta0_paths_agree_and_resolve_tiny_values() -> None:
    rng = np.random.default_rng(1)
    Bm = rng.standard_normal((4, 3, 7))
    s = np.linalg.svd(Bm, compute_uv=False)
    assert B.zeta0(Bm) == pytest.approx(float(np.min(s[:, 2]) ** 2), rel=1e-10)
    U, _, Vt = np.linalg.svd(Bm[0], full_matrices=False)
    Bm[0] = U @ np.diag([1.0, 1e-3, 1e-9]) @ Vt  # lambda_min 1e-18: below eigvalsh resolution
    assert B.zeta0(Bm) == pytest.approx(1e-18, rel=1e-4)
    assert B.zeta0(Bm[:, :, :2]) == 0.0


def test_rate_factor_keeps_tiny_gaps_and_rate_bound() -> None:
    rho = B.rate_factor(1.0, 1.0, 2e-20)
    assert 1 - rho == pytest.approx(mpmath.mpf("1e-20"), rel=1e-10)
    b = B.rate_bound(2.0, mpmath.mpf("0.5"), np.array([0, 1, 10]))
    assert [float(x) for x in b] == [2.0, 1.0, 2.0 / 1024]
    with pytest.raises(ValueError, match="step too large"):
        B.rate_factor(1.0, 10.0, 1.0)


def test_iterations_needed() -> None:
    rho = mpmath.mpf("0.99")
    T = B.iterations_needed(10.0, 5.0, 4, 0.5, 1e-3, rho)
    assert float(T) == pytest.approx(math.log(10 * 5 / (4 * 0.5 * 1e-3)) / -math.log(0.99))
    assert B.iterations_needed(10.0, 5.0, 4, 0.5, 1e-3, mpmath.mpf(1)) == mpmath.inf
    assert B.iterations_needed(1e-9, 1.0, 4, 0.5, 1.0, rho) == 0


def test_prob_bound_monotone_and_checked() -> None:
    a, b = B.prob_bound(1.0, 3.0, 0.1, 6, 0.1), B.prob_bound(1.0, 3.0, 0.1, 6, 0.01)
    assert b > a > 2 * 3.0
    with pytest.raises(ValueError, match="delta"):
        B.prob_bound(1.0, 3.0, 0.1, 6, 1.0)


def test_orthant_floor() -> None:
    rng = np.random.default_rng(2)
    G = B.gram(rng.standard_normal((3, 4)), 0.1)
    Zb = B.zbar(G)
    np.testing.assert_allclose(Zb @ Zb, G, rtol=1e-12)
    assert B.orthant_floor(Zb, np.abs(rng.standard_normal((4, 5)))) == pytest.approx(0, abs=1e-20)
    assert B.orthant_floor(Zb, np.array([[1.0], [-1.0], [1.0], [-1.0]])) > 0


def test_bad_inputs() -> None:
    Z = np.ones((2, 3))
    with pytest.raises(ValueError, match="tau"):
        B.gram(Z, -1.0)
    with pytest.raises(ValueError, match="Z_Q"):
        B.target_matrix(Z, np.ones((3, 2)), 0.1)
    with pytest.raises(ValueError, match="y"):
        B.ridge(Z, np.ones(4), 1.0)
    with pytest.raises(ValueError, match="finite"):
        B.ridge(Z, np.array([1.0, np.nan, 0.0]), 1.0)
    with pytest.raises(ValueError, match="positive definite"):
        B.zbar(-np.eye(2))
    with pytest.raises(TypeError, match="K"):
        B.inference_bound(1.0, np.ones(2), 2.5, 1.0)
    with pytest.raises(ValueError, match="zeta_0"):
        B.rate_factor(1.0, 1.0, -1.0)
