"""Unit tests of bounds/deora2023.py: values, algebra, mpmath magnitudes, bad input; and
hypothesis searches that try to break the DERIVED gradient / Hessian / softmax bounds
(``hypothesis.target`` maximises the ratio to the bound; the worst ratios are reported)."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, target
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from bounds import deora2023 as B
from verify.deora2023 import model as M
from verify.deora2023.data import token_radius
from verify.numerics.softmax import softmax

WORST: dict[str, float] = {}


def _track(label: str, ratio: float) -> None:
    target(ratio, label=label)
    WORST[label] = max(WORST.get(label, 0.0), ratio)


def _arrays(shape: tuple[int, ...], bound: float) -> st.SearchStrategy:
    return hnp.arrays(np.float64, shape, elements=st.floats(-bound, bound, allow_nan=False, width=64))


@st.composite
def model_points(draw: st.DrawFn) -> tuple[dict[str, np.ndarray], np.ndarray]:
    H, T, d = draw(st.integers(1, 3)), draw(st.integers(2, 5)), draw(st.integers(2, 4))
    U = draw(_arrays((H, T, d), 3.0))
    W = draw(_arrays((H, d, d), draw(st.sampled_from([0.1, 1.0, 5.0]))))
    X = draw(_arrays((1, T, d), draw(st.sampled_from([0.5, 1.0, 2.0]))))
    return {"U": U, "W": W}, X


@given(model_points())
def test_gradient_bound_search(point: tuple[dict[str, np.ndarray], np.ndarray]) -> None:
    params, X = point
    _H, T, _ = M.check_params(params)
    R = token_radius(X)
    bound = B.grad_bound_sq(T, R, float(np.mean(np.sum(params["U"] ** 2, axis=(1, 2)))))
    g2 = float(M.grad_norms(params, X)[0] ** 2)
    ratio = g2 / bound if bound > 0 else 0.0
    _track("gradient bound ratio", ratio)
    assert g2 <= bound * (1 + 1e-10) + 1e-300


@given(model_points())
def test_hessian_bound_search(point: tuple[dict[str, np.ndarray], np.ndarray]) -> None:
    params, X = point
    H, T, _d = M.check_params(params)
    R = token_radius(X)
    u = float(np.max(np.linalg.norm(params["U"].reshape(H, -1), axis=1)))
    bound = B.hess_bound(T, R, u, H)
    norm = float(M.phi_hessian_norms(params, X)[0])
    _track("Hessian bound ratio", norm / bound if bound > 0 else 0.0)
    assert norm <= bound * (1 + 1e-10) + 1e-300


@given(T=st.integers(2, 50), scale=st.floats(0.0, 50.0), seed=st.integers(0, 2**31))
def test_softmax_facts_search(T: int, scale: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    s = softmax(scale * rng.standard_normal(T))
    J = np.diag(s) - np.outer(s, s)
    jn = float(np.max(np.abs(np.linalg.eigvalsh(J))))
    _track("softmax Jacobian / (1/2)", jn / B.SOFTMAX_JACOBIAN_NORM)
    assert jn <= B.SOFTMAX_JACOBIAN_NORM + 1e-12
    a, b = rng.standard_normal(T) * 10, rng.standard_normal(T)
    var = float(s @ a**2 - (s @ a) ** 2)
    assert var <= B.variance_bound(float(np.ptp(a))) * (1 + 1e-12) + 1e-12
    k3 = float(s @ ((a - s @ a) * (b - s @ b) ** 2))
    assert abs(k3) <= B.kappa3_bound(float(np.ptp(a)), float(np.ptp(b))) * (1 + 1e-12) + 1e-12


def test_report_worst_ratios(record_property: pytest.RecordProperty) -> None:
    """Runs after the searches above (file order): the worst ratios found stay <= 1."""
    for k, v in WORST.items():
        record_property(k, v)
        print(f"deora2023 worst {k}: {v:.6f}")
        assert v <= 1 + 1e-10


# -------------------------------------------------------------------------------------------------
# values and algebra
# -------------------------------------------------------------------------------------------------


def test_closed_forms() -> None:
    assert B.grad_bound_sq(4, 1.0, 1.0) == 8.0
    assert B.beta3(4, 1.0, 1.0) == pytest.approx(6.0)
    assert B.hess_bound(4, 1.0, 1.0, 4) == pytest.approx(3.0)
    assert B.beta2_ball(1, 1.0, 0.0, 1.0, 1) == pytest.approx(math.sqrt(2.0))
    assert B.mixture_margin_U(1 / 3, 2.0, 6, "O") == pytest.approx(2 / math.sqrt(3))  # spec pilot 1.1547
    assert B.mixture_margin_U(1 / 3, 2.0, 6, "A") == pytest.approx(2 / 3 * math.sqrt(6))
    assert B.ideal_attention_margin(2.0, 6) == pytest.approx(B.mixture_margin_U(1 / 3, 2.0, 6, "O") * 3)
    assert B.g_eps_full(0.0, math.exp(-1), 0.5) == pytest.approx(4.0)
    assert B.g_eps_U(1.0, math.exp(-1), 0.5) == pytest.approx(4.0)
    assert B.qc_a(0.0) == 0.0 and B.qc_a(0.5) == pytest.approx(1 / 3)


def test_dtrain_special_cases() -> None:
    # c = 1/2: 2 L_ref + 3 D^2/(4 eta K) + 3 (L0 - LK)/(2K)  (spec Sec. 5.2)
    got = B.dtrain_bound(0.1, 2.0, 0.5, 10, 0.5, 0.7, 0.2)
    assert got == pytest.approx(2 * 0.1 + 3 * 4 / (4 * 0.5 * 10) + 3 * 0.5 / 20)
    assert B.convex_limit(0.1, 2.0, 0.5, 10, 0.7, 0.2) == pytest.approx(0.1 + 4 / 10 + 0.5 / 10)
    assert B.dtrain_dbar_sq(2.0, 0.5, 1 / 3, 10, 0.1, 0.7) == pytest.approx(
        4 + 2 * 0.5 * (4 / 3) * 10 * 0.1 + 2 * 0.5 * 0.7
    )
    assert B.paper_form_train_bound(0.1, 2.0, 0.5, 10) == pytest.approx(0.2 + 1.25 * 4 / 5)
    assert B.gen_bound(1.0, 1.0, 1.0, 4, 2.0) == 2.0
    assert B.gen_premise(1.0, 1.0, 1.0, 2, 4) and not B.gen_premise(1.0, 1.0, 1.0, 3, 4)
    assert B.ntk_train_rate(10, 0.0, 1.0, 1.0, 0.0, U_only=True) == pytest.approx(
        (2 + 0.75 * math.log(10) ** 2) / 10
    )


@settings(max_examples=20)
@given(D0=st.floats(0.1, 10), L_ref=st.floats(1e-4, 0.5), K=st.integers(10, 10_000), u=st.floats(0.1, 5))
def test_worst_case_bound_is_non_increasing_in_H(D0: float, L_ref: float, K: int, u: float) -> None:
    vals = [B.dtrain_worst_case(2**j, 6, 1.1, u, D0, 1.0, K, L_ref, math.log(2)) for j in range(1, 90, 4)]
    assert all(b2 <= b1 * (1 + 1e-12) for b1, b2 in itertools.pairwise(vals))
    assert vals[-1] == pytest.approx(B.convex_limit(L_ref, D0, 1.0, K, math.log(2)), rel=1e-3)


def test_required_heads_is_huge_mpf() -> None:
    req = B.required_heads(6, 1.1, 1.0, 6.0, 1.0, 1000, 0.01, math.log(2))
    assert isinstance(req, mpmath.mpf) and req > 1e7
    assert B.dtrain_worst_case(2, 6, 1.1, 1.0, 6.0, 1.0, 1000, 0.01, math.log(2)) == mpmath.inf
    need = B.realizability_heads(1e3, 1e200, 1e-100)
    assert isinstance(need, mpmath.mpf) and mpmath.log10(need) > 600


def test_noisy_margin_lower_bound() -> None:
    lb = B.mixture_margin_noisy_lower(1 / 3, 1.0, 6, 0.05, 40, 0.1)
    assert lb == pytest.approx(1 / math.sqrt(3) - 0.05 * math.sqrt(2 * math.log(400)))
    assert B.mixture_margin_noisy_lower(1 / 3, 1.0, 6, 0.0, 40, 0.1) == B.mixture_margin_U(1 / 3, 1.0, 6, "O")


@given(c=st.floats(0, 0.999), L=st.floats(0, 10), Lp=st.floats(0, 10))
def test_quasiconvex_bounds_are_consistent(c: float, L: float, Lp: float) -> None:
    a = B.qc_a(c)
    assert 0 <= a < 1
    assert B.qc_segment_max(max(L, Lp), c) >= max(L, Lp)
    assert B.qc_inner_lower(L, Lp, c) <= L - Lp + 1e-12  # never stronger than convexity


# -------------------------------------------------------------------------------------------------
# bad input
# -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fn", "args", "exc", "name"),
    [
        (B.grad_bound_sq, (0, 1.0, 1.0), ValueError, "T"),
        (B.grad_bound_sq, (2.0, 1.0, 1.0), TypeError, "T"),
        (B.beta3, (2, -1.0, 1.0), ValueError, "R"),
        (B.hess_bound, (2, 1.0, 1.0, 0), ValueError, "H"),
        (B.variance_bound, (float("nan"),), ValueError, "value_range"),
        (B.qc_a, (1.0,), ValueError, "c"),
        (B.dtrain_bound, (0.1, 1.0, 0.0, 10, 0.5, 0.7, 0.1), ValueError, "eta"),
        (B.dtrain_bound, (0.1, 1.0, 1.0, 0, 0.5, 0.7, 0.1), ValueError, "K"),
        (B.gen_bound, (0.5, 1.0, 1.0, 4, 1.0), ValueError, "Gamma"),
        (B.g_eps_full, (0.0, 1.5, 1.0), ValueError, "eps"),
        (B.g_eps_U, (0.0, 0.5, 0.0), ValueError, "gamma_U"),
        (B.mixture_margin_U, (0.5, 1.0, 6, "C"), ValueError, "variant"),
        (B.mixture_margin_noisy_lower, (0.5, 1.0, 6, 0.1, 10, 1.0), ValueError, "delta"),
        (B.required_heads, (6, 1.0, 1.0, 1.0, 1.0, 10, 0.1, 0.7, 1.0), ValueError, "c"),
        (B.taylor_remainder_bound, (-1.0, 4, 1.0), ValueError, "lam"),
    ],
)
def test_bad_input_names_the_parameter(fn, args, exc, name) -> None:
    with pytest.raises(exc, match=name):
        fn(*args)
