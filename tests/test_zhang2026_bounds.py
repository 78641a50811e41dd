"""Unit tests of bounds/zhang2026.py and verify/zhang2026/data.py: values, mpmath range, bad inputs."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bounds import zhang2026 as B
from bounds.mp import in_float_range, log10
from verify.zhang2026 import data as Da
from verify.zhang2026 import model as Mo


def test_tail_constant_reference_table() -> None:
    # derivations.md Sect. 6.3: D K (D-K) / (4 eta) at eta = 0.05
    for (D, K), c in {(8, 2): 480, (8, 3): 600, (12, 3): 1620, (16, 4): 3840}.items():
        assert float(B.tail_constant(D, K, 0.05)) == pytest.approx(c, rel=1e-15)


def test_tail_constant_per_column_sizes() -> None:
    ks = [1, 2, 3, 2, 1, 2, 3, 2]
    assert float(B.tail_constant(8, ks, 0.1)) == pytest.approx(sum(k * (8 - k) for k in ks) / 0.4)


@given(
    st.integers(3, 40), st.integers(1, 39), st.floats(1e-3, 1.0), st.floats(0.1, 10.0), st.floats(0.01, 100.0)
)
def test_onset_is_half_inverse_kappa(D, K, eta, sx2, v2) -> None:
    K = min(K, D - 1)
    T0 = B.onset_T0(D, K, eta, sx2, v2)
    assert T0 * 2 * B.kappa(D, K, eta, sx2, v2) == pytest.approx(1.0, rel=1e-25)
    assert float(T0) == pytest.approx(K * (D - K) ** 2 / (2 * eta * sx2 * v2), rel=1e-12)


def test_deqk_excess_stays_in_mpmath_range() -> None:
    tiny = B.deqk_excess(10**5, 0.1, 1.0, 1.0)
    assert not in_float_range(tiny) and tiny > 0
    assert log10(tiny) == pytest.approx(2 * 10**5 * math.log10(0.9) + math.log10(0.5), rel=1e-12)


def test_ood_bounds_and_cauchy_schwarz() -> None:
    assert float(B.ood_upper(1.0, 0.0)) == 1.0
    assert float(B.ood_upper(1.0, 0.25)) == pytest.approx(2.25)
    assert float(B.ood_upper(0.3, 0.2)) >= 0.5
    assert float(B.ood_B_op_bound(2.0, 0.5, 3.0)) == pytest.approx(1.5)
    # exact B with centred isotropic tokens equals the in-distribution excess
    assert float(B.ood_B_exact(4.0, 1.0, 4.0, 0.01, 8, 1.0, 0.0)) == pytest.approx(0.01)
    assert float(B.ood_B_exact(4.0, 1.0, 4.0, 0.0, 8, 0.9, 2.0)) == pytest.approx(4 * 0.01 * 2.0)


def test_ood_B_exact_matches_monte_carlo() -> None:
    rng = np.random.default_rng(0)
    D, K = 6, 2
    S, V = Da.s_circulant(D, K), Da.random_v(2, 3, rng, 2.0)
    C1, g = 1.05, 2.0
    A = Mo.two_level_attention(g, S)
    X = Da.sample_inputs("exp", 200_000, 3, D, rng)
    diff = np.matmul(V, X) @ (S - C1 * A)
    b = 0.5 * np.sum(diff**2, axis=(1, 2))
    ex = Mo.scalar_excess(C1, g, D, K, 1.0, 4.0)
    Bex = float(B.ood_B_exact(4.0, 1.0, 4.0, ex, D, C1, float(np.sum(V.sum(axis=1) ** 2))))
    assert abs(b.mean() - Bex) < 4 * b.std() / math.sqrt(b.size)


def test_step_size_conditions() -> None:
    assert float(B.eta_paper(2, 8)) == pytest.approx(1 / (2 * 8**2.5))
    assert float(B.eta_heuristic(8, 2, 1.0, 4.0)) == pytest.approx(0.125)
    assert float(B.c1_first_step(0.1, 1.3)) == pytest.approx(0.13)
    assert float(B.kq_level_ratio(8, 2)) == 3.0
    with pytest.raises(NotImplementedError, match="NOT RECOVERED"):
        B.dimension_condition(2, 3)


@pytest.mark.parametrize(
    ("fn", "args", "exc", "name"),
    [
        (B.tail_constant, (8, 8, 0.1), ValueError, "K"),
        (B.tail_constant, (8, 2, -0.1), ValueError, "eta"),
        (B.tail_constant, (8, [2, 2], 0.1), ValueError, "D = 8"),
        (B.onset_T0, (8, 0, 0.1, 1.0, 1.0), ValueError, "K"),
        (B.onset_T0, (8.5, 2, 0.1, 1.0, 1.0), TypeError, "D"),
        (B.deqk_excess, (-1, 0.1, 1.0, 1.0), ValueError, "t"),
        (B.ood_upper, (-1.0, 0.1), ValueError, "A_T"),
        (B.ood_B_op_bound, (1.0, float("nan"), 1.0), ValueError, "delta_op"),
        (B.eta_paper, (0, 8), ValueError, "M"),
        (B.eta_heuristic, (8, 2, 0.0, 1.0), ValueError, "sx2"),
    ],
)
def test_bad_inputs(fn, args, exc, name) -> None:
    with pytest.raises(exc, match=name):
        fn(*args)


def test_constants_are_mpf() -> None:
    assert isinstance(B.tail_constant(8, 2, 0.1), mpmath.mpf)
    assert isinstance(B.onset_T0(8, 2, 0.1, 1.0, 1.0), mpmath.mpf)


# --------------------------------------------------------------------------------------- data
@given(st.integers(2, 30), st.integers(1, 30))
def test_circulant_and_selection_are_uniform_teachers(D, K) -> None:
    K = min(K, D)
    for S in (Da.s_circulant(D, K), Da.s_selection(D, K)):
        assert Da.is_uniform_teacher(S, K)
        np.testing.assert_allclose(S.sum(axis=0), 1.0)
        assert np.sum(S * S) == pytest.approx(D / K)


def test_named_examples() -> None:
    S = Da.example("conv_pool", 16, 4)
    assert Da.is_uniform_teacher(S, 4)
    grid_groups = {tuple(np.nonzero(S[:, i])[0]) for i in range(16)}
    assert len(grid_groups) == 4 and (0, 1, 4, 5) in grid_groups  # 2x2 blocks of the 4x4 patch grid
    G = Da.example("gcn_cycle", 8, 3)
    assert Da.is_uniform_teacher(G, 3) and np.allclose(G, G.T)
    assert set(np.nonzero(G[:, 0])[0]) == {7, 0, 1}
    Z = Da.example("group_sparse", 8, 1)
    assert np.all(Z[0] == 1.0) and Z.sum() == 8
    with pytest.raises(ValueError, match="odd"):
        Da.s_gcn_cycle(8, 2)
    with pytest.raises(ValueError, match="square"):
        Da.example("conv_pool", 12, 4)
    with pytest.raises(ValueError, match="name"):
        Da.example("attention", 8, 2)


@pytest.mark.parametrize("kind", Da.INPUTS)
def test_input_moments(kind: str) -> None:
    X = Da.sample_inputs(kind, 40_000, 2, 3, np.random.default_rng(0))
    mu, var = Da.input_moments(kind)
    se = math.sqrt(var / X.size)
    assert abs(X.mean() - mu) < 5 * se
    assert X.var() == pytest.approx(var, rel=0.05)


def test_sample_inputs_bad_kind() -> None:
    with pytest.raises(ValueError, match="kind"):
        Da.sample_inputs("cauchy", 10, 2, 3, np.random.default_rng(0))


# -------------------------------------------------------------------------------------------------
# pinned formulas (issue 14, item 7): every formula of bounds/zhang2026.py against an independent mpmath
# evaluation written out here (Sect. 5.3, 5.4, 6.2-6.5 and 10 of the reconstruction), at a small point
# and at paper scale (D = 81, K = 9: the MNIST pooling teacher; D = 32). A changed exponent or constant
# fails.
# -------------------------------------------------------------------------------------------------

DPS = 40
M_ = mpmath.mpf


def _pin(got, want, rel: float = 1e-25) -> None:
    g = got if isinstance(got, mpmath.mpf) else M_(float(got))
    assert abs(g - want) <= rel * abs(want), (g, want)


@pytest.mark.parametrize(
    ("D", "K", "M", "eta", "sx2", "v2"),
    [(8, 2, 2, 0.05, 1.0, 4.0), (81, 9, 16, 0.003, 1.7, 16.0), (32, 2, 4, 0.05, 1.0, 2.5)],
)
def test_pinned_tail_mechanism(D: int, K: int, M: int, eta: float, sx2: float, v2: float) -> None:
    with mpmath.workdps(DPS):
        e, s, v = M_(eta), M_(sx2), M_(v2)
        _pin(B.tail_constant(D, K, eta), M_(D) * K * (D - K) / (4 * e))  # Sect. 6.3
        ks = [1 + (i % (D - 1)) for i in range(D)]
        _pin(B.tail_constant(D, ks, eta), mpmath.fsum(M_(k) * (D - k) for k in ks) / (4 * e))
        kap = e * s * v / (K * M_(D - K) ** 2)  # Sect. 6.2
        _pin(B.kappa(D, K, eta, sx2, v2), kap)
        _pin(B.onset_T0(D, K, eta, sx2, v2), M_(K) * (D - K) ** 2 / (2 * e * s * v))  # Sect. 6.4
        for T in (1e3, 1e7):
            _pin(B.eps_asymptotic(T, D, K, eta, sx2, v2), (2 * kap * M_(T)) ** M_(-0.5))
        _pin(B.kq_level_ratio(D, K), M_(D - K) / K)  # Sect. 5.3
        _pin(B.c1_first_step(eta, sx2), e * s)
        _pin(B.eta_paper(M, D), 1 / (M * M_(D) ** (M_(5) / 2)))  # A5: 1 / (M D^(5/2))
        _pin(B.eta_paper(M, D, 0.3), M_(0.3) / (M * M_(D) ** (M_(5) / 2)))
        want = min(M_(K) / (s * D), M_(D) * K / (s * v)) / 2  # Sect. 10 stepsize heuristic
        _pin(B.eta_heuristic(D, K, sx2, v2), want, 1e-15)  # sx2 * D is a float64 product there


@pytest.mark.parametrize(
    ("t", "eta", "sx2", "v2"), [(0, 0.1, 1.0, 4.0), (200, 0.1, 1.0, 4.0), (10**5, 0.02, 1.3, 9.0)]
)
def test_pinned_deqk_excess(t: int, eta: float, sx2: float, v2: float) -> None:
    with mpmath.workdps(DPS):
        want = M_(sx2) * M_(v2) / 2 * (1 - M_(eta) * M_(sx2)) ** (2 * t)  # Sect. 6.5, exact
        _pin(B.deqk_excess(t, eta, sx2, v2), want, 1e-24)


@pytest.mark.parametrize(
    ("v_op", "d_op", "ex2", "A_T", "D", "C1"),
    [(2.0, 0.5, 3.0, 1.0, 8, 0.9), (5.3, 0.013, 81 * 5.0, 0.37, 81, 1.004)],
)
def test_pinned_ood_bounds(v_op: float, d_op: float, ex2: float, A_T: float, D: int, C1: float) -> None:
    with mpmath.workdps(DPS):
        Bop = M_(v_op) ** 2 * M_(d_op) ** 2 * M_(ex2) / 2  # Sect. 5.4 (ii)
        _pin(B.ood_B_op_bound(v_op, d_op, ex2), Bop)
        tr, sx2, v2, ex, vmu2 = M_(3.5), M_(1.2), M_(4.0), M_(0.004), M_(2.5)
        want = tr / (sx2 * v2) * ex + M_(D) / 2 * (1 - M_(C1)) ** 2 * vmu2  # Sect. 5.4 (iii)
        _pin(B.ood_B_exact(3.5, 1.2, 4.0, 0.004, D, C1, 2.5), want, 1e-15)
        _pin(B.ood_upper(A_T, float(Bop)), (mpmath.sqrt(M_(A_T)) + mpmath.sqrt(M_(float(Bop)))) ** 2)
    assert (B.RATE_EXPONENT, B.RECOVERY_EXPONENT, B.NOTE_D_EXPONENT) == (-1.0, -0.5, 4.0)
    assert (B.TSTAR_D_EXPONENT, B.TSTAR_V_EXPONENT) == (2.0, -2.0)
    assert (B.OOD_SLOPE_INDEPENDENT, B.OOD_SLOPE_WORST) == (-1.0, -0.5)
