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


# -------------------------------------------------------------------------------------------------
# pinned formulas (issue 14, item 7): every formula of bounds/yang2024.py against an independent mpmath
# evaluation written out here (Lemma 5, Theorems 1-2, eqs. 18-25, Laurent-Massart), at a small point
# and at the paper's configuration (K = 200, N = 30, m = 20, tau = 0.01, H = 64). A changed exponent
# or constant fails.
# -------------------------------------------------------------------------------------------------

DPS = 40


def _mp(x):
    return x if isinstance(x, mpmath.mpf) else mpmath.mpf(float(x))


def _M(a) -> mpmath.matrix:
    return mpmath.matrix(np.atleast_2d(np.asarray(a, dtype=np.float64)).tolist())


def _pin(got, want, rel: float = 1e-10) -> None:
    """``got`` (float, mpf, array, list of mpf) equals the mpmath reference ``want`` (scalar, list or
    mpmath.matrix); arrays compare with an absolute floor of rel * max |want| (cancelling entries)."""
    if isinstance(want, mpmath.matrix):
        want = [[want[i, j] for j in range(want.cols)] for i in range(want.rows)]
    if isinstance(want, list):
        g = np.asarray([_mp(v) for v in np.ravel(np.asarray(got, dtype=object))], dtype=object)
        w = np.asarray(want, dtype=object).ravel()
        assert g.size == w.size, (np.shape(got), np.shape(want))
        scale = max(abs(_mp(v)) for v in w)
        for gv, wv in zip(g, w, strict=True):
            assert abs(_mp(gv) - _mp(wv)) <= rel * max(abs(_mp(wv)), scale), (gv, wv)
        return
    g, w = _mp(got), _mp(want)
    assert abs(g - w) <= rel * abs(w), (g, w)


def _problem(m: int, N: int, K: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, N)), rng.standard_normal((m, K - N))


CONFIGS = {"small": (4, 6, 40, 0.1), "paper": (20, 30, 200, 0.01)}  # m, N, K, tau


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def lemma5(request: pytest.FixtureRequest) -> dict:
    """Z, Z_Q, tau and the Lemma 5 objects in mpmath: G = Z^T Z + m tau I, G^-1, A = G^-1 (Z^T Z~ +
    m tau [I, 0]), L* = 1/2 sum_{k > N} (|z_k|^2 + m tau - z_k^T Z G^-1 Z^T z_k)."""
    m, N, K, tau = CONFIGS[request.param]
    Z, ZQ = _problem(m, N, K, m)
    with mpmath.workdps(DPS):
        Zm, ZQm, t = _M(Z), _M(ZQ), _mp(tau)
        G = Zm.T * Zm + m * t * mpmath.eye(N)
        Gi = mpmath.inverse(G)
        Zt = _M(np.concatenate([Z, ZQ], axis=1))
        E = mpmath.zeros(N, K)
        for i in range(N):
            E[i, i] = 1
        A = Gi * (Zm.T * Zt + m * t * E)
        P = Zm.T * ZQm
        GiP = Gi * P
        quad = [mpmath.fsum(P[i, k] * GiP[i, k] for i in range(N)) for k in range(K - N)]
        zq2 = [mpmath.fsum(ZQm[i, k] ** 2 for i in range(m)) for k in range(K - N)]
        Lstar = mpmath.fsum(zq2[k] + m * t - quad[k] for k in range(K - N)) / 2
    return dict(Z=Z, ZQ=ZQ, tau=tau, m=m, N=N, K=K, G=G, Gi=Gi, A=A, Lstar=Lstar, Zt=Zt, E=E)


def test_pinned_lemma5(lemma5: dict) -> None:
    c = lemma5
    Z, ZQ, tau, N = c["Z"], c["ZQ"], c["tau"], c["N"]
    with mpmath.workdps(DPS):
        _pin(B.gram(Z, tau), c["G"], 1e-13)
        _pin(B.target_matrix(Z, ZQ, tau), c["A"], 1e-9)
        _pin(B.loss_floor(Z, ZQ, tau), c["Lstar"], 1e-9)
        # c_k = -(Z^T z_k + m tau e_k)^T G^-1 (Z^T z_k + m tau e_k) + |z_k|^2 + m tau, every k
        Zt, E, m, t = c["Zt"], c["E"], c["m"], _mp(tau)
        P = _M(Z).T * Zt + m * t * E
        GiP = c["Gi"] * P
        ck = [
            mpmath.fsum(Zt[i, k] ** 2 for i in range(m))
            + m * t
            - mpmath.fsum(P[i, k] * GiP[i, k] for i in range(N))
            for k in range(c["K"])
        ]
        got = B.const_terms(Z, ZQ, tau)
        scale = max(abs(v) for v in ck)
        for g, w in zip(got, ck, strict=True):
            assert abs(_mp(g) - w) <= 1e-9 * scale
        # closed-form loss 1/2 tr(R^T G R) + L* at a perturbed A-hat
        Ahat = np.asarray(c["A"].tolist(), dtype=np.float64) + 0.01 * np.cos(np.arange(N * c["K"])).reshape(
            N, -1
        )
        Rm = _M(Ahat) - c["A"]
        GR = c["G"] * Rm
        want = mpmath.fsum(Rm[i, k] * GR[i, k] for i in range(N) for k in range(c["K"])) / 2 + c["Lstar"]
        Gf = np.asarray(c["G"].tolist(), dtype=np.float64)
        _pin(
            B.closed_form_loss(Ahat, np.asarray(c["A"].tolist(), dtype=np.float64), Gf, float(c["Lstar"])),
            want,
            1e-9,
        )


def test_pinned_ridges_and_predictors(lemma5: dict) -> None:
    c = lemma5
    Z, ZQ, tau, m, N = c["Z"], c["ZQ"], c["tau"], c["m"], c["N"]
    y = np.random.default_rng(1).standard_normal((3, N))
    with mpmath.workdps(DPS):
        Zm, t = _M(Z), _mp(tau)
        for fn, pen in (
            (B.transformer_ridge, m * t),
            (B.best_ridge, N * t),
        ):  # eq. 20 (m tau), eq. 25 (N tau)
            lam = [mpmath.lu_solve(Zm * Zm.T + pen * mpmath.eye(m), Zm * _M(row).T) for row in y]
            _pin(fn(Z, y, tau), [[v[i] for i in range(m)] for v in lam])
            _pin(B.ridge(Z, y, float(pen)), [[v[i] for i in range(m)] for v in lam])
        lam = np.asarray(B.transformer_ridge(Z, y, tau))
        pred = [list(_M(y[i]).T) + list(_M(ZQ).T * _M(lam[i]).T) for i in range(3)]
        _pin(B.ridge_predictions(Z, ZQ, y, lam), [[x for x in row] for row in pred])
        star = _M(y) * c["A"]  # y-hat* = A^T y, per prompt
        _pin(B.limit_predictor(np.asarray(c["A"].tolist(), dtype=np.float64), y), star, 1e-9)
        # Lemma 4 / eq. 25: (1/2N) |y - Z^T lam|^2 + (tau/2) |lam|^2
        lam_g = np.random.default_rng(2).standard_normal((4, m))
        want = []
        for row in lam_g:
            r = _M(y[0]).T - Zm.T * _M(row).T
            want.append(
                mpmath.fsum(v**2 for v in r) / (2 * N) + t / 2 * mpmath.fsum(_mp(v) ** 2 for v in row)
            )
        _pin(B.lemma4_objective(Z, y[0], lam_g, tau), want)


def _ridge_map(Zm: mpmath.matrix, pen) -> mpmath.matrix:
    return mpmath.inverse(Zm * Zm.T + pen * mpmath.eye(Zm.rows)) * Zm


def test_pinned_fig3_gap_and_expected_error(lemma5: dict) -> None:
    c = lemma5
    Z, ZQ, tau, m, N, K = c["Z"], c["ZQ"], c["tau"], c["m"], c["N"], c["K"]
    with mpmath.workdps(DPS):
        Zm, ZQm, t = _M(Z), _M(ZQ), _mp(tau)
        D = ZQm.T * (_ridge_map(Zm, m * t) - _ridge_map(Zm, N * t))
        DG = D * c["G"]
        gap = mpmath.fsum(D[i, j] * DG[i, j] for i in range(D.rows) for j in range(D.cols)) / K
        _pin(B.fig3_gap(Z, ZQ, tau), gap, 1e-8)
        for pen in (m * t, N * t, mpmath.mpf("0.3")):
            M = _ridge_map(Zm, pen)
            Em = M * Zm.T - mpmath.eye(m)
            S = Em * Em.T + m * t * (M * M.T)
            SZ = S * ZQm
            err = mpmath.fsum(ZQm[i, j] * SZ[i, j] for i in range(m) for j in range(K - N)) / K
            _pin(B.expected_error(Z, ZQ, tau, float(pen)), err, 1e-9)


@pytest.mark.parametrize(("N", "H", "K"), [(3, 7, 4), (30, 64, 200)])
def test_pinned_zeta0_and_zbar(N: int, H: int, K: int) -> None:
    """B_k with known singular values: zeta_0 = min_k sigma_min(B_k)^2; G with known eigenvalues:
    G^{1/2} = Q diag(sqrt lambda) Q^T."""
    rng = np.random.default_rng(N)
    sv = rng.uniform(0.05, 3.0, (K, N))
    Bk = []
    for s in sv:
        U, _ = np.linalg.qr(rng.standard_normal((N, N)))
        V, _ = np.linalg.qr(rng.standard_normal((H, N)))
        Bk.append((U * s) @ V.T)
    lam = rng.uniform(0.01, 5.0, N)
    Q, _ = np.linalg.qr(rng.standard_normal((N, N)))
    G = (Q * lam) @ Q.T
    with mpmath.workdps(DPS):
        _pin(B.zeta0(np.stack(Bk)), _mp(sv.min()) ** 2, 1e-9)
        Qm = _M(Q)
        root = Qm * mpmath.diag([mpmath.sqrt(_mp(v)) for v in lam]) * Qm.T
        _pin(B.zbar(G), root, 1e-11)


@pytest.mark.parametrize(
    ("eta_Q", "gamma", "zeta_0", "delta0", "steps"),
    [(1.0, 3.0, 0.02, 77.0, 6), (0.05, 30.0, 4e-12, 1.3e3, 20000)],
)
def test_pinned_theorem1_rate(eta_Q: float, gamma: float, zeta_0: float, delta0: float, steps: int) -> None:
    t = np.array([0, 1, 2, steps // 2, steps])
    with mpmath.workdps(DPS):
        rho = 1 - _mp(eta_Q) * _mp(gamma) ** 2 * _mp(zeta_0) / 2  # eq. 18
        assert abs(B.rate_factor(eta_Q, gamma, zeta_0) - rho) <= mpmath.mpf("1e-28")
        _pin(B.rate_bound(delta0, rho, t), [_mp(delta0) * rho ** int(k) for k in t], 1e-25)


@pytest.mark.parametrize(
    ("B_", "Z2", "tau", "N", "delta", "K", "lam_min", "eps"),
    [(1.0, 3.0, 0.1, 6, 0.1, 40, 0.4, 1e-3), (2.0, 80.0, 0.01, 30, 0.01, 200, 0.2, 1e-6)],
)
def test_pinned_theorem2(
    B_: float, Z2: float, tau: float, N: int, delta: float, K: int, lam_min: float, eps: float
) -> None:
    y2 = np.array([0.5, 3.0, 40.0])
    with mpmath.workdps(DPS):
        x = mpmath.log(1 / _mp(delta))
        Y = 2 * _mp(B_) ** 2 * (_mp(Z2) + _mp(tau) * (N + 2 * mpmath.sqrt(N * x) + 2 * x))  # Laurent-Massart
        _pin(B.prob_bound(B_, Z2, tau, N, delta), Y, 1e-13)
        D = mpmath.mpf("0.7")
        _pin(B.inference_bound(0.7, y2, K, lam_min), [D * _mp(v) / (K * _mp(lam_min)) for v in y2], 1e-13)
        _pin(B.copy_bound(0.7, y2, lam_min), [mpmath.sqrt(2 * D * _mp(v) / _mp(lam_min)) for v in y2], 1e-13)
        rho = 1 - mpmath.mpf("1e-7")
        T = mpmath.log(_mp(1e3) * Y / (K * _mp(lam_min) * _mp(eps))) / mpmath.log(
            1 / rho
        )  # eq. 21 re-derived
        _pin(B.iterations_needed(1e3, float(Y), K, lam_min, eps, rho), T, 1e-13)


def test_pinned_orthant_floor() -> None:
    """1/2 sum_k min(NNLS(Zbar, Zbar A_k), NNLS(Zbar, -Zbar A_k))^2 with the NNLS residuals found by
    enumerating the active sets in mpmath (exact for these sizes), at N = 3 and at N = 6."""
    import itertools

    def nnls_residual(M: mpmath.matrix, b: mpmath.matrix):
        best = mpmath.sqrt(mpmath.fsum(v**2 for v in b))  # x = 0
        for r in range(1, M.cols + 1):
            for S in itertools.combinations(range(M.cols), r):
                MS = mpmath.matrix([[M[i, j] for j in S] for i in range(M.rows)])
                try:
                    x = mpmath.lu_solve(MS.T * MS, MS.T * b)
                except ZeroDivisionError:
                    continue
                if all(v >= 0 for v in x):
                    res = b - MS * x
                    best = min(best, mpmath.sqrt(mpmath.fsum(v**2 for v in res)))
        return best

    for N, K in ((3, 4), (6, 8)):
        rng = np.random.default_rng(N)
        Zb = B.zbar(B.gram(rng.standard_normal((4, N)), 0.1))
        A = rng.standard_normal((N, K))
        with mpmath.workdps(DPS):
            Zm = _M(Zb)
            total = mpmath.mpf(0)
            for k in range(K):
                b = Zm * _M(A[:, k]).T
                total += min(nnls_residual(Zm, b), nnls_residual(Zm, -b)) ** 2
            _pin(B.orthant_floor(Zb, A), total / 2, 1e-9)
