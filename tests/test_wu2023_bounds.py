"""Theory side of Wu et al. 2023 (bounds/wu2023.py): kernels, Hermite coefficients, Prop. 1 pieces,
width thresholds, limiting NTK, assumption checkers and input validation."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, stats
from scipy.special import eval_hermitenorm

from bounds import wu2023 as B


def test_arccos_kernels_at_known_points() -> None:
    assert B.kappa1(1.0) == pytest.approx(0.5)
    assert B.kappa1(0.0) == pytest.approx(1 / (2 * math.pi))
    assert B.kappa1(-1.0) == pytest.approx(0.0, abs=1e-15)
    assert B.kappa0(1.0) == pytest.approx(0.5)
    assert B.kappa0(0.0) == pytest.approx(0.25)


@pytest.mark.parametrize("u", [-0.9, -0.3, 0.2, 0.7])
def test_kappa1_is_the_relu_correlation(u: float) -> None:
    # E[relu(x) relu(u x + b y)] = E_x[relu(x) (a Phi(a/b) + b phi(a/b))], a = u x, b = sqrt(1 - u^2)
    b = math.sqrt(1 - u * u)

    def inner(x: float) -> float:
        a = u * x
        return x * (a * stats.norm.cdf(a / b) + b * stats.norm.pdf(a / b)) * stats.norm.pdf(x)

    val, _ = integrate.quad(inner, 0, 40, epsabs=1e-13)
    assert B.kappa1(u) == pytest.approx(val, rel=1e-9)
    assert B.kappa0(u) == pytest.approx(0.25 + math.asin(u) / (2 * math.pi), rel=1e-12)


@pytest.mark.parametrize("r", [2, 4, 6])
def test_relu_hermite_coefficients_by_quadrature(r: int) -> None:
    val, _ = integrate.quad(lambda x: x * eval_hermitenorm(r, x) * math.exp(-x * x / 2), 0, 40)
    mu_sq = (val / math.sqrt(2 * math.pi)) ** 2 / math.factorial(r)
    assert B.relu_hermite_sq(r) == pytest.approx(mu_sq, rel=1e-8)
    with pytest.raises(ValueError):
        B.relu_hermite_sq(3)


@given(seed=st.integers(0, 10_000), N=st.integers(1, 6), d_s=st.integers(1, 4), d=st.integers(1, 8))
def test_gram_floor_is_psd_below_G(seed: int, N: int, d_s: int, d: int) -> None:
    Z = np.random.default_rng(seed).standard_normal((N, d_s, d))
    G = B.expected_gram(Z, 0.7)
    F = B.hermite_floor(Z, 0.7)
    assert np.linalg.eigvalsh(G - F)[0] >= -1e-10 * np.linalg.norm(G, 2)
    np.testing.assert_allclose(G, G.T, rtol=1e-13)


def test_prop1_quantities_and_rate() -> None:
    X = np.random.default_rng(0).standard_normal((5, 3, 4))
    norms = {"Q": 1.0, "K": 2.0, "V": 3.0, "O": 4.0}
    q = B.prop1_quantities(X, norms, alpha=2.0, loss0=3.0, tau0=0.5, tau1=1.0)
    assert q.lam_bar == {"Q": 2.0, "K": 4.0, "V": 6.0, "O": 8.0}
    assert q.path == pytest.approx(8 * q.z * math.sqrt(6.0) / 4.0)
    assert q.c1 == pytest.approx(1.0 / q.path)
    assert q.c2 == pytest.approx(8.0 / (16 * q.rho * q.z * math.sqrt(6.0)))
    t = np.arange(5)
    np.testing.assert_allclose(B.rate_bound(3.0, 0.1, 1.0, 2.0, t), 3.0 * 0.9**t)
    with pytest.raises(ValueError, match="C3"):
        B.rate_factor(10.0, 1.0, 2.0)
    assert B.sum_loss_gamma(1.0, 10, "mean") == pytest.approx(0.1)


def _summary(lam0: float = 0.03) -> B.DataSummary:
    return B.DataSummary(N=16, d=32, d_s=4, sum_c2=16.0, sum_x6=16 * 8.0, y_sq=16.0, lam0=lam0, trG=0.5)


def test_required_width_is_where_the_ratios_cross_one() -> None:
    s = _summary()
    for p in (0.5, 1.0):
        w = B.required_width(s, tau0_power=p)
        assert isinstance(w, mpmath.mpf) and w > 1
        c1, c2 = B.proxy_ratios(w, s, tau0_power=p)
        assert min(c1, c2) >= 1
        c1, c2 = B.proxy_ratios(w * 0.99, s, tau0_power=p)
        assert min(c1, c2) < 1
        assert w >= max(B.required_width(s, tau0_power=p, which=k) for k in ("c1", "c2")) - 1
    assert B.required_width(_summary(0.0), tau0_power=0.5) == mpmath.inf
    assert B.thm1_width(s) == B.required_width(s, tau0_power=0.5)


def test_required_width_grows_as_lambda_shrinks() -> None:
    assert B.thm2_width(_summary(0.001)) > B.thm2_width(_summary(0.1))


def test_limiting_ntk_bounds() -> None:
    Xbar = np.random.default_rng(1).standard_normal((6, 9))
    K = B.limiting_ntk(Xbar)
    lam = np.linalg.eigvalsh(K["K"])[0]
    assert lam >= B.ntk_mineig_linear(Xbar) * (1 - 1e-10)
    assert np.linalg.eigvalsh(K["K_O"])[0] >= B.ntk_mineig_hermite(Xbar, 2) * (1 - 1e-10)
    # d < N: the linear bound is 0, the Hermite one stays positive
    Xs = np.random.default_rng(2).standard_normal((6, 3))
    assert B.ntk_mineig_linear(Xs) == pytest.approx(0.0, abs=1e-12)
    assert B.ntk_mineig_hermite(Xs, 4) > 0


def test_assumption_checkers() -> None:
    rng = np.random.default_rng(3)
    X = rng.standard_normal((5, 3, 8))
    assert B.assumption1(X) == pytest.approx(np.max(np.linalg.norm(X, axis=-1)))
    assert B.assumption2(X) > 0
    assert B.assumption2(rng.standard_normal((5, 4, 2))) == 0.0
    c = B.assumption3_covariance(X)
    assert c.shape == (10,) and np.all(np.abs(c) <= 1 + 1e-12)
    assert B.assumption3_pooled(X.mean(axis=1)) > 0
    assert B.assumption4(rng.standard_normal((9, 4))) == pytest.approx(0.0, abs=1e-12)


def test_gaussian_norm_bound_and_init_table() -> None:
    assert B.gaussian_norm_bound(4.0, 9, 16, 1.0) == pytest.approx(2 * (3 + 4 + 1))
    v = B.init_variances("ntk", 8, 100)
    assert v.tau1 == pytest.approx(0.1) and v.eta_V == 1.0
    assert B.init_variances("he", 8, 100).eta_O == pytest.approx(0.02)
    assert B.tau0(64, 0.5) == pytest.approx(0.125) and B.tau0(64, 1.0) == pytest.approx(1 / 64)


@pytest.mark.parametrize(
    ("call", "err"),
    [
        (lambda: B.init_variances("glorot", 2, 2), ValueError),
        (lambda: B.tau0(0, 0.5), ValueError),
        (lambda: B.tau0(4, 0.25), ValueError),
        (lambda: B.expected_gram(np.zeros((2, 2)), 1.0), ValueError),
        (lambda: B.expected_gram(np.ones((2, 2, 2)), -1.0), ValueError),
        (lambda: B.rate_bound(1.0, 0.0, 1.0, 1.0, np.arange(3)), ValueError),
        (lambda: B.rate_bound(1.0, 0.1, 1.0, 1.0, np.array([-1])), ValueError),
        (lambda: B.required_width(_summary(), tau0_power=0.5, which="c3"), ValueError),
        (lambda: B.gaussian_norm_bound(1.0, 0, 2, 1.0), ValueError),
        (lambda: B.limiting_ntk(np.full((2, 2), np.inf)), ValueError),
        (lambda: B.sum_loss_gamma(1.0, 3, "median"), ValueError),
        (lambda: B.thm2_min_dim(1.5), TypeError),
    ],
)
def test_bad_inputs_raise(call, err: type) -> None:
    with pytest.raises(err):
        call()
