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
    assert B.mixture_margin_U(1 / 3, 2.0, 6, "O") == pytest.approx(2 / math.sqrt(3))  # pilot 1.1547
    assert B.mixture_margin_U(1 / 3, 2.0, 6, "A") == pytest.approx(2 / 3 * math.sqrt(6))
    assert B.ideal_attention_margin(2.0, 6) == pytest.approx(B.mixture_margin_U(1 / 3, 2.0, 6, "O") * 3)
    assert B.g_eps_full(0.0, math.exp(-1), 0.5) == pytest.approx(4.0)
    assert B.g_eps_U(1.0, math.exp(-1), 0.5) == pytest.approx(4.0)
    assert B.qc_a(0.0) == 0.0 and B.qc_a(0.5) == pytest.approx(1 / 3)


def test_dtrain_special_cases() -> None:
    # c = 1/2: 2 L_ref + 3 D^2/(4 eta K) + 3 (L0 - LK)/(2K)  (derivation Sect. 5.2)
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


# -------------------------------------------------------------------------------------------------
# pinned formulas (issue 14, item 7): every formula of bounds/deora2023.py against an independent mpmath
# evaluation written out here (Sect. 3-7 and 9 of the reconstruction: beta_2, beta_3, the self-bounded
# constants, quasi-convexity, Theorems D-train / D-gen, the NTK rates and the mixture margins), at a
# small point and at a paper-scale one (T = 6, n = 40, H = 1024, K = 12000, the claims' sizes).
# A changed exponent or constant fails.
# -------------------------------------------------------------------------------------------------

DPS = 40
M_ = mpmath.mpf


def _pin(got, want, rel: float = 1e-13) -> None:
    if isinstance(want, tuple):
        for g, w in zip(got, want, strict=True):
            _pin(g, w, rel)
        return
    g = got if isinstance(got, mpmath.mpf) else M_(float(got))
    assert abs(g - want) <= rel * abs(want), (g, want)


POINTS = {
    "small": dict(
        T=4, R=1.5, u=2.0, U0=2.5, r=0.5, H=8, K=100, n=50, eta=0.5, D0=2.0, L_ref=0.1, L0=0.7, LK=0.05
    ),
    "paper": dict(
        T=6,
        R=1.12,
        u=1.3,
        U0=4.1,
        r=6.0,
        H=1024,
        K=12000,
        n=40,
        eta=1.0,
        D0=6.5,
        L_ref=0.01,
        L0=0.693,
        LK=0.002,
    ),
}


def _beta3_ref(T, R, u):
    return mpmath.sqrt(T) * R**3 * (1 + 2 * R**2 * u)  # Sect. 3.3


def _dbar_sq_ref(D0, eta, a, K, L_ref, L0):
    return D0**2 + 2 * eta * (1 + a) * K * L_ref + 2 * eta * L0  # Theorem D-train


def _dtrain_ref(L_ref, D0, eta, K, c, L0, LK):
    a = c / (2 - c)
    return (1 + a) / (1 - a) * L_ref + D0**2 / (2 * eta * (1 - a) * K) + (L0 - LK) / ((1 - a) * K)


@pytest.mark.parametrize("point", sorted(POINTS))
def test_pinned_model_level_bounds(point: str) -> None:
    p = POINTS[point]
    with mpmath.workdps(DPS):
        T, R, u, U0, r, H = p["T"], M_(p["R"]), M_(p["u"]), M_(p["U0"]), M_(p["r"]), p["H"]
        _pin(B.variance_bound(p["R"]), R**2 / 4)
        _pin(B.kappa3_bound(p["R"], p["u"]), R * u**2 / 4)
        _pin(B.grad_bound_sq(T, p["R"], p["u"]), T * R**2 + T * R**6 * u)  # Sect. 3.2
        _pin(B.beta3(T, p["R"], p["u"]), _beta3_ref(T, R, u))
        _pin(B.hess_bound(T, p["R"], p["u"], H), _beta3_ref(T, R, u) / mpmath.sqrt(H))
        _pin(
            B.beta2_ball(T, p["R"], p["U0"], p["r"], H), mpmath.sqrt(T * R**2 + T * R**6 * (U0 + r) ** 2 / H)
        )
        _pin(B.beta3_ball(T, p["R"], p["u"], p["r"]), _beta3_ref(T, R, u + r))
        b2, b3, L = M_(1.7), M_(40.0), M_(0.3)
        _pin(B.sb_grad_bound(1.7, 0.3), b2 * L)
        _pin(B.weak_convexity_modulus(40.0, H), b3 / mpmath.sqrt(H))
        _pin(
            B.smoothness_bounds(1.7, 40.0, H, 0.3),
            ((b2**2 + b3 / mpmath.sqrt(H)) * L, b2**2 / 4 + b3 / mpmath.sqrt(H)),
        )


@pytest.mark.parametrize("c", [0.0, 0.3, 0.5, 0.99])
def test_pinned_quasi_convexity(c: float) -> None:
    with mpmath.workdps(DPS):
        C = M_(c)
        a = C / (2 - C)
        if c:
            _pin(B.qc_a(c), a)
        else:
            assert B.qc_a(c) == 0.0
        _pin(B.qc_segment_max(1.3, c), M_(1.3) / (1 - C / 2))
        _pin(B.qc_inner_lower(1.3, 0.4, c), (1 - a) * M_(1.3) - (1 + a) * M_(0.4))


@pytest.mark.parametrize("point", sorted(POINTS))
def test_pinned_training_theorems(point: str) -> None:
    p = POINTS[point]
    with mpmath.workdps(DPS):
        L_ref, D0, eta, K, L0, LK = (M_(p[k]) for k in ("L_ref", "D0", "eta", "K", "L0", "LK"))
        for c in (0.0, 0.5, 0.9):
            _pin(
                B.dtrain_bound(p["L_ref"], p["D0"], p["eta"], p["K"], c, p["L0"], p["LK"]),
                _dtrain_ref(L_ref, D0, eta, K, M_(c), L0, LK),
            )
        _pin(
            B.dtrain_dbar_sq(p["D0"], p["eta"], 0.25, p["K"], p["L_ref"], p["L0"]),
            _dbar_sq_ref(D0, eta, M_(0.25), K, L_ref, L0),
        )
        _pin(
            B.convex_limit(p["L_ref"], p["D0"], p["eta"], p["K"], p["L0"], p["LK"]),
            L_ref + D0**2 / (2 * eta * K) + (L0 - LK) / K,
        )
        _pin(
            B.paper_form_train_bound(p["L_ref"], p["D0"], p["eta"], p["K"]),
            2 * L_ref + M_(5) / 4 * D0**2 / (eta * K),
        )
        # worst case: c(H) = beta_3(D0 + Dbar) Dbar^2 / sqrt(H), Dbar with a = 1; H = ((beta_3 Dbar^2)/c)^2
        T, R, ub = p["T"], M_(p["R"]), M_(p["u"])
        dbar1 = _dbar_sq_ref(D0, eta, M_(1), K, L_ref, L0)
        for H in (2**10, 2**60):
            cH = _beta3_ref(T, R, ub + D0 + mpmath.sqrt(dbar1)) * dbar1 / mpmath.sqrt(H)
            got = B.dtrain_worst_case(H, T, p["R"], p["u"], p["D0"], p["eta"], p["K"], p["L_ref"], p["L0"])
            if cH >= 1:
                assert got == mpmath.inf
            else:
                _pin(got, _dtrain_ref(L_ref, D0, eta, K, cH, L0, M_(0)), 1e-12)
        for c in (0.5, 0.25):
            a = M_(c) / (2 - M_(c))
            dbar = _dbar_sq_ref(D0, eta, a, K, L_ref, L0)
            want = (_beta3_ref(T, R, ub + D0 + mpmath.sqrt(dbar)) * dbar / M_(c)) ** 2
            _pin(
                B.required_heads(T, p["R"], p["u"], p["D0"], p["eta"], p["K"], p["L_ref"], p["L0"], c),
                want,
                1e-12,
            )


@pytest.mark.parametrize("point", sorted(POINTS))
def test_pinned_generalization_and_ntk_rates(point: str) -> None:
    p = POINTS[point]
    K, n = p["K"], p["n"]
    with mpmath.workdps(DPS):
        G, b2, eta, S = M_(1.5), M_(1.1), M_(p["eta"]), M_(3.2)
        _pin(B.gen_bound(1.5, 1.1, p["eta"], n, 3.2), 4 * G * b2**2 * eta / n * S)  # Theorem D-gen
        assert B.gen_premise(1.5, 1.1, p["eta"], K, n) == bool(G * b2**2 * eta * K <= M_(n) / 2)
        assert B.gen_premise(1.0, 1.0, 1.0, n // 2, n) and not B.gen_premise(1.0, 1.0, 1.0, n // 2 + 1, n)
        g = M_(5.0)
        _pin(B.paper_form_gen_rate(5.0, p["eta"], K, n, 1.1), g**2 / (eta * K) + b2**2 * (eta + g**2) / n)
        B0, gam, eps, L0 = M_(0.4), M_(1.15), M_(1) / K, M_(p["L0"])
        _pin(B.g_eps_full(0.4, 1 / K, 1.15), 2 * (B0 + mpmath.log(1 / eps)) / gam, 1e-12)
        _pin(B.g_eps_U(0.4, 1 / K, 1.15), (B0 + mpmath.log(1 / eps)) / gam, 1e-12)
        for U_only, coef in ((False, M_(3)), (True, M_(3) / 4)):  # Sect. 7.2 with c = 1/2, eps = 1/K
            want = (2 + coef * (B0 + mpmath.log(K)) ** 2 / (eta * gam**2) + M_(3) / 2 * L0) / K
            _pin(B.ntk_train_rate(K, 0.4, 1.15, p["eta"], p["L0"], U_only=U_only), want, 1e-12)
        lam, b3 = M_(7.5), M_(60.0)
        _pin(B.taylor_remainder_bound(7.5, p["H"], 60.0), lam**2 / (2 * mpmath.sqrt(p["H"])) * b3)
        _pin(B.realizability_heads(7.5, 60.0, 1.15), (lam * b3 / gam) ** 2)


@pytest.mark.parametrize(("zeta", "S", "T", "n"), [(1 / 3, 2.0, 6, 40), (0.25, 1.0, 64, 1000)])
def test_pinned_mixture_margins(zeta: float, S: float, T: int, n: int) -> None:
    with mpmath.workdps(DPS):
        z, s = M_(zeta), M_(S)
        _pin(B.mixture_margin_U(zeta, S, T, "O"), z * s * mpmath.sqrt(M_(T) / 2))  # Sect. 9.2
        _pin(B.mixture_margin_U(zeta, S, T, "A"), z * s * mpmath.sqrt(T))
        _pin(B.ideal_attention_margin(S, T), s * mpmath.sqrt(M_(T) / 2))
        sig, dl = M_(0.05), M_(0.1)
        want = mpmath.sqrt(T) * z * s / mpmath.sqrt(2) - sig * mpmath.sqrt(2 * mpmath.log(n / dl))
        _pin(B.mixture_margin_noisy_lower(zeta, S, T, 0.05, n, 0.1), want, 1e-12)
    assert B.SOFTMAX_JACOBIAN_NORM == 0.5
