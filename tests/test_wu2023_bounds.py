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
    mf = B.init_variances(B.MEAN_FIELD, 8, 100)  # not one of the paper's inits: never in INITS
    assert (mf.eta_V, mf.eta_O, mf.tau1) == (1 / 8, 1.0, 1 / 100) and B.MEAN_FIELD not in B.INITS
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


# -------------------------------------------------------------------------------------------------
# pinned formulas (issue 14, item 7): every formula of bounds/wu2023.py against an independent mpmath
# evaluation written out here from the reconstruction's equations (verify/wu2023/derivations.md
# Sect. 2.1, 5.1-5.5), at a small point and at a paper-scale one (N = 100, d = 128, d_s = 8,
# d_m = 8192, the replication defaults of the paper's Sect. 5.1 setting). A changed exponent or
# constant fails.
# -------------------------------------------------------------------------------------------------

DPS = 40
REL = 1e-12  # float64 evaluation against 40-digit references
#: kappa1 and kappa0 have infinite slope at u = 1 (sqrt(1 - u^2), arccos u): a cosine computed in
#: float64 (1 - 2e-16 for a token with itself) moves them by ~1e-8, so kernels of data compare to
#: 1e-6 (a changed constant or exponent moves them by far more).
REL_KERNEL = 1e-6
PI = mpmath.pi


def _mp(x):
    return mpmath.mpf(float(x)) if not isinstance(x, mpmath.mpf) else x


def _pin(got, want, rel: float = REL) -> None:
    """``got`` (float, mpf, array, tuple, list, dict, dataclass) equals the reference ``want``.

    Arrays compare with an absolute floor of rel * max |want| (entries that cancel to ~0)."""
    if hasattr(got, "__dataclass_fields__"):
        got = {k: getattr(got, k) for k in got.__dataclass_fields__}
    if isinstance(want, dict):
        assert set(got) >= set(want), (sorted(got), sorted(want))
        for k in want:
            _pin(got[k], want[k], rel)
        return
    if isinstance(got, np.ndarray) or isinstance(want, list | np.ndarray):
        g = np.asarray(got, dtype=np.float64)
        w = np.asarray(want, dtype=object)
        assert g.shape == w.shape, (g.shape, w.shape)
        scale = max((abs(_mp(v)) for v in w.ravel()), default=mpmath.mpf(0))
        for gv, wv in zip(g.ravel(), w.ravel(), strict=True):
            assert abs(_mp(gv) - _mp(wv)) <= rel * max(abs(_mp(wv)), scale), (gv, wv)
        return
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for a, b in zip(got, want, strict=True):
            _pin(a, b, rel)
        return
    g, w = _mp(got), _mp(want)
    assert abs(g - w) <= rel * abs(w) if w != 0 else g == 0, (g, w)


def _rows_with_cosine(N: int, d: int, a: float, norms: np.ndarray) -> np.ndarray:
    """N rows in R^d (d >= N + 1) of the given norms with every pairwise cosine exactly a:
    x_n = norm_n (sqrt(1 - a) e_n + sqrt(a) e_N). Their Gram is D((1 - a) I + a 11^T)D."""
    X = np.zeros((N, d))
    X[np.arange(N), np.arange(N)] = math.sqrt(1 - a)
    X[:, N] = math.sqrt(a)
    return X * norms[:, None]


def _known_sv(rng: np.random.Generator, rows: int, cols: int, sv: np.ndarray) -> np.ndarray:
    """A rows x cols matrix (rows <= cols) with singular values sv (orthonormal factors by QR)."""
    U, _ = np.linalg.qr(rng.standard_normal((rows, rows)))
    V, _ = np.linalg.qr(rng.standard_normal((cols, rows)))
    return (U * sv) @ V.T


def _norm(v) -> mpmath.mpf:
    return mpmath.sqrt(mpmath.fsum(_mp(x) ** 2 for x in np.ravel(v)))


def _kappa1_ref(u):
    u = max(mpmath.mpf(-1), min(mpmath.mpf(1), _mp(u)))  # a cosine; 40-digit round-off can pass 1
    return (mpmath.sqrt(1 - u * u) + u * (PI - mpmath.acos(u))) / (2 * PI)


def _kappa0_ref(u):
    u = max(mpmath.mpf(-1), min(mpmath.mpf(1), _mp(u)))
    return (PI - mpmath.acos(u)) / (2 * PI)


def _paper_X() -> tuple[np.ndarray, np.ndarray]:
    """Paper-scale tokens X (100, 8, 128) with known spectral norms X2_n (by construction)."""
    rng = np.random.default_rng(2023)
    sv = rng.uniform(0.5, 2.0, (100, 8))
    return np.stack([_known_sv(rng, 8, 128, s) for s in sv]), sv.max(axis=1)


PAPER_X, PAPER_X2 = _paper_X()
SMALL_X = np.random.default_rng(5).standard_normal((3, 2, 4))


def _token_ref(X: np.ndarray) -> list:
    return [max(_norm(t) for t in Xn) for Xn in X]


with mpmath.workdps(DPS):
    PAPER_C = _token_ref(PAPER_X)


@pytest.mark.parametrize(
    ("init", "d", "d_m"),
    [
        ("lecun", 6, 40),
        ("he", 6, 40),
        ("ntk", 6, 40),
        ("lecun", 128, 8192),
        ("he", 128, 8192),
        ("ntk", 128, 8192),
    ],
)
def test_pinned_init_table_and_tau0(init: str, d: int, d_m: int) -> None:
    with mpmath.workdps(DPS):
        k = {"lecun": 1, "he": 2}.get(init)
        want = (
            (mpmath.mpf(k) / d,) * 3 + (mpmath.mpf(k) / d_m, mpmath.mpf(1))
            if k
            else (mpmath.mpf(1),) * 4 + (1 / mpmath.sqrt(d_m),)
        )
        v = B.init_variances(init, d, d_m)
        _pin((v.eta_Q, v.eta_K, v.eta_V, v.eta_O, v.tau1), want)
        _pin(B.tau0(d_m, 0.5), mpmath.mpf(d_m) ** mpmath.mpf(-0.5))
        _pin(B.tau0(d_m, 1.0), 1 / mpmath.mpf(d_m))


def test_pinned_arccos_kernels_and_hermite_coefficients() -> None:
    u = np.concatenate([np.linspace(-1, 1, 201), [-0.999999, 0.999999, 1e-9]])
    with mpmath.workdps(DPS):
        _pin(B.kappa1(u), [_kappa1_ref(x) for x in u])
        _pin(B.kappa0(u), [_kappa0_ref(x) for x in u])
        for r in (2, 4, 6, 10, 50, 170):  # mu_r^2 = ((r-3)!!)^2 / (2 pi r!), (-1)!! = 1
            _pin(B.relu_hermite_sq(r), mpmath.fac2(r - 3) ** 2 / (2 * PI * mpmath.factorial(r)))
        _pin(B.relu_hermite_sq(2), 1 / (4 * PI))
        _pin(B.relu_hermite_sq(4), 1 / (48 * PI))


def _gram_entry(Z: np.ndarray, eta: float, n: int, m: int):
    d_s = Z.shape[1]
    total = mpmath.fsum(
        _norm(a)
        * _norm(b)
        * _kappa1_ref(mpmath.fsum(_mp(x) * _mp(y) for x, y in zip(a, b, strict=True)) / (_norm(a) * _norm(b)))
        for a in Z[n]
        for b in Z[m]
    )
    return _mp(eta) / d_s**2 * total


def _floor_entry(Z: np.ndarray, eta: float, n: int, m: int):
    """(eta/4) <zbar_n, zbar_m> + (eta/2pi) r_n r_m, zbar_n = mean_s z_ns, r_n = mean_s |z_ns|."""
    d_s = Z.shape[1]
    rn = mpmath.fsum(_norm(t) for t in Z[n]) / d_s
    rm = mpmath.fsum(_norm(t) for t in Z[m]) / d_s
    zn = [mpmath.fsum(_mp(t[k]) for t in Z[n]) / d_s for k in range(Z.shape[2])]
    zm = [mpmath.fsum(_mp(t[k]) for t in Z[m]) / d_s for k in range(Z.shape[2])]
    return (
        _mp(eta) / 4 * mpmath.fsum(a * b for a, b in zip(zn, zm, strict=True)) + _mp(eta) / (2 * PI) * rn * rm
    )


@pytest.mark.parametrize("paper", [False, True])
def test_pinned_expected_gram_and_hermite_floor(paper: bool) -> None:
    Z, eta = (PAPER_X[:40], 2 / 128) if paper else (SMALL_X, 0.7)
    G, F = B.expected_gram(Z, eta), B.hermite_floor(Z, eta)
    pairs = [(0, 0), (3, 17), (39, 21)] if paper else [(n, m) for n in range(3) for m in range(3)]
    with mpmath.workdps(DPS):
        for n, m in pairs:
            _pin(G[n, m], _gram_entry(Z, eta, n, m), REL_KERNEL)
            _pin(F[n, m], _floor_entry(Z, eta, n, m), 1e-11)


@pytest.mark.parametrize(("N", "d", "a", "c", "d_m"), [(5, 8, 0.3, 1.5, 64), (100, 128, 0.45, 0.8, 8192)])
def test_pinned_minimum_eigenvalue_floors(N: int, d: int, a: float, c: float, d_m: int) -> None:
    """Rows of equal norm c with pairwise cosine a: lambda_min(Z Z^T) = c^2 (1 - a), and the Hadamard
    power U^{o r} = (1 - a^r) I + a^r 11^T has lambda_min = 1 - a^r (all exact)."""
    Z = _rows_with_cosine(N, d, a, np.full(N, c))
    with mpmath.workdps(DPS):
        c2, A = _mp(c) ** 2, _mp(a)
        lam = c2 * (1 - A)
        _pin(B.alpha_sq_floor(Z, 0.25, d_m), d_m * mpmath.mpf("0.25") / 4 * lam, 1e-10)
        _pin(
            B.ntk_mineig_linear(Z, scale_O=1.5, scale_V=0.5),
            (mpmath.mpf("1.5") + mpmath.mpf("0.5")) / 4 * lam,
            1e-10,
        )
        _pin(B.assumption3_pooled(Z), N * lam / (N * c2), 1e-10)
        _pin(B.assumption4(Z), 1 - A, 1e-10)
        for r in (2, 4):
            mu = mpmath.fac2(r - 3) ** 2 / (2 * PI * mpmath.factorial(r))
            _pin(B.ntk_mineig_hermite(Z, r, scale_O=2.0), 2 * mu * c2 * (1 - A**r), 1e-10)


@pytest.mark.parametrize("paper", [False, True])
def test_pinned_token_stats_rho_z_and_prop1(paper: bool) -> None:
    if paper:
        X, X2, c = PAPER_X, PAPER_X2, PAPER_C
        norms, alpha, loss0, t0, t1 = {"Q": 3.1, "K": 2.9, "V": 3.0, "O": 1.4}, 17.3, 13.7, 8192**-0.5, 1.0
    else:
        X, t0, t1 = SMALL_X, 0.5, 1.0
        with mpmath.workdps(DPS):
            c = _token_ref(X)
            X2 = [mpmath.sqrt(max(mpmath.eigsy(mpmath.matrix((Xn @ Xn.T).tolist()))[0])) for Xn in X]
        norms, alpha, loss0 = {"Q": 1.0, "K": 2.0, "V": 3.0, "O": 4.0}, 2.0, 3.0
    radii = {k: v / 2 for k, v in norms.items()}
    d_s = X.shape[1]
    with mpmath.workdps(DPS):
        got_c, got_X2 = B.token_stats(X)
        _pin(got_c, c)
        _pin(got_X2, list(X2), 1e-11)
        lam = {k: _mp(norms[k]) + _mp(radii[k]) for k in norms}
        T0, T1 = _mp(t0), _mp(t1)
        a = [T0 * _mp(x) ** 3 * lam["V"] * lam["K"] / (2 * mpmath.sqrt(d_s)) for x in X2]
        b = [T0 * _mp(x) ** 3 * lam["V"] * lam["Q"] / (2 * mpmath.sqrt(d_s)) for x in X2]
        rho = mpmath.sqrt(mpmath.fsum(ai**2 + bi**2 + ci**2 for ai, bi, ci in zip(a, b, c, strict=True)))
        z = T1 * mpmath.sqrt(
            mpmath.fsum(
                ci**2 * lam["V"] ** 2 + lam["O"] ** 2 * (ci**2 + ai**2 + bi**2)
                for ai, bi, ci in zip(a, b, c, strict=True)
            )
        )
        _pin(B.rho_z(got_c, got_X2, {k: float(v) for k, v in lam.items()}, t0, t1, d_s), (rho, z), 1e-11)
        q = B.prop1_quantities(X, norms, alpha, loss0, tau0=t0, tau1=t1, radii=radii)
        A, L0 = _mp(alpha), _mp(loss0)
        path = 8 * z * mpmath.sqrt(2 * L0) / (T1**2 * A**2)  # (C1) path-length bound
        want = {
            "lam_bar": lam,
            "rho": rho,
            "z": z,
            "path": path,
            "c1": min(_mp(v) for v in radii.values()) / path,
            "c2": T1**2 * A**3 / (16 * rho * z * mpmath.sqrt(2 * L0)),  # (C2)
        }
        _pin(q, want, 1e-11)


@pytest.mark.parametrize(
    ("gamma", "tau1", "alpha", "loss0", "steps"),
    [(0.1, 1.0, 2.0, 3.0, 5), (1e-3, 8192**-0.5, 17.3, 13.7, 400)],
)
def test_pinned_rates(gamma: float, tau1: float, alpha: float, loss0: float, steps: int) -> None:
    t = np.arange(steps)
    with mpmath.workdps(DPS):
        q = 1 - _mp(gamma) * _mp(tau1) ** 2 * _mp(alpha) ** 2 / 4
        _pin(B.rate_factor(gamma, tau1, alpha), q)
        _pin(B.rate_bound(loss0, gamma, tau1, alpha, t), [_mp(loss0) * q**k for k in range(steps)])
        lam0 = alpha / 10
        qn = 1 - _mp(gamma) * _mp(lam0) / 2
        _pin(B.ntk_rate_bound(loss0, gamma, lam0, t), [_mp(loss0) * qn**k for k in range(steps)])
        _pin(B.sum_loss_gamma(gamma, 100, "mean"), _mp(gamma) / 100)
        _pin(B.sum_loss_gamma(gamma, 100, "sum"), _mp(gamma))


@pytest.mark.parametrize(("N", "d_m", "tau1", "eta_O"), [(3, 6, 1.0, 0.5), (100, 512, 512**-0.5, 1.0)])
def test_pinned_expected_loss0_and_norm_bound(N: int, d_m: int, tau1: float, eta_O: float) -> None:
    rng = np.random.default_rng(N)
    y, F = rng.choice([-1.0, 1.0], N), rng.standard_normal((N, d_m))
    with mpmath.workdps(DPS):
        fro2 = mpmath.fsum(_mp(x) ** 2 for x in F.ravel())
        _pin(B.expected_loss0(y, F, tau1, eta_O), (N + _mp(tau1) ** 2 * _mp(eta_O) * fro2) / 2, 1e-11)
        for eta, rows, cols, t in ((4.0, 9, 16, 1.0), (1 / 128, 8192, 128, 2.0)):
            want = mpmath.sqrt(_mp(eta)) * (mpmath.sqrt(rows) + mpmath.sqrt(cols) + _mp(t))
            _pin(B.gaussian_norm_bound(eta, rows, cols, t), want)
        _pin(B.thm2_min_dim(N), mpmath.mpf(N) ** 4)


SUMMARIES = {
    "small": B.DataSummary(N=16, d=32, d_s=4, sum_c2=16.0, sum_x6=128.0, y_sq=16.0, lam0=0.03, trG=0.5),
    "paper": B.DataSummary(N=100, d=128, d_s=8, sum_c2=100.0, sum_x6=812.5, y_sq=100.0, lam0=0.0021, trG=2.3),
}


def _proxy_ref(d_m, s: B.DataSummary, power: float, init: str, delta: float = 0.5):
    """(C1, C2) ratios written out from Prop. 1 with ||W_b^0|| -> sqrt(eta_b) (sqrt(d_m) + sqrt(d)),
    ||w_O^0|| -> sqrt(eta_O d_m), C_b = ||W_b^0||, alpha^2 -> (1 - delta) d_m lam0 eta_V,
    l_0 -> (|y|^2 + tau1^2 eta_O d_m tr(G/eta_V) eta_V) / 2 (derivations.md Sect. 2.1, 5.2-5.4)."""
    dm, d, d_s = _mp(d_m), mpmath.mpf(s.d), mpmath.mpf(s.d_s)
    eta = {"lecun": 1 / d, "he": 2 / d, "ntk": mpmath.mpf(1)}[init]
    eta_O = {"lecun": 1 / dm, "he": 2 / dm, "ntk": mpmath.mpf(1)}[init]
    tau1_sq = 1 / dm if init == "ntk" else mpmath.mpf(1)
    W0 = mpmath.sqrt(eta) * (mpmath.sqrt(dm) + mpmath.sqrt(d))  # Q, K and V alike
    O0 = mpmath.sqrt(eta_O * dm)
    lam_W, lam_O = 2 * W0, 2 * O0
    tau0 = dm ** (-mpmath.mpf(power))
    ab = 2 * tau0**2 * _mp(s.sum_x6) * lam_W**4 / (4 * d_s)  # sum_n a_n^2 + b_n^2
    rho = mpmath.sqrt(ab + _mp(s.sum_c2))
    z = mpmath.sqrt(tau1_sq * (_mp(s.sum_c2) * lam_W**2 + lam_O**2 * (_mp(s.sum_c2) + ab)))
    alpha_sq = (1 - _mp(delta)) * dm * _mp(s.lam0) * eta
    loss0 = (_mp(s.y_sq) + tau1_sq * eta_O * dm * _mp(s.trG) * eta) / 2
    c1 = min(W0, O0) / (8 * z * mpmath.sqrt(2 * loss0) / (tau1_sq * alpha_sq))
    c2 = tau1_sq * alpha_sq ** mpmath.mpf(1.5) / (16 * rho * z * mpmath.sqrt(2 * loss0))
    return c1, c2


@pytest.mark.parametrize("which", ["small", "paper"])
@pytest.mark.parametrize("init", ["lecun", "he", "ntk"])
@pytest.mark.parametrize("power", [0.5, 1.0])
def test_pinned_proxy_ratios(which: str, init: str, power: float) -> None:
    s = SUMMARIES[which]
    with mpmath.workdps(DPS):
        for d_m in (mpmath.mpf(64), mpmath.mpf(8192), mpmath.mpf(10) ** 9):
            _pin(B.proxy_ratios(d_m, s, tau0_power=power, init=init), _proxy_ref(d_m, s, power, init), 1e-20)


@pytest.mark.parametrize("which", ["small", "paper"])
@pytest.mark.parametrize("power", [0.5, 1.0])
def test_pinned_width_thresholds(which: str, power: float) -> None:
    """The threshold is where the reference ratios cross 1 (to the bisection's 1e-7): both hold at w and
    one fails at w (1 - 1e-6); Theorem 1 is the tau0 = d_m^-1/2 threshold, Theorem 2 the d_m^-1 one."""
    s = SUMMARIES[which]
    fn = B.thm1_width if power == 0.5 else B.thm2_width
    w = fn(s)
    assert w == B.required_width(s, tau0_power=power)
    with mpmath.workdps(DPS):
        assert min(_proxy_ref(w, s, power, "lecun")) >= 1
        assert min(_proxy_ref(w * (1 - mpmath.mpf("1e-6")), s, power, "lecun")) < 1


@pytest.mark.parametrize(("N", "d"), [(4, 12), (100, 128)])
def test_pinned_limiting_ntk(N: int, d: int) -> None:
    rng = np.random.default_rng(d)
    Xb = rng.standard_normal((N, d)) / math.sqrt(d)
    K = B.limiting_ntk(Xb, scale_O=1.5, scale_V=0.5)
    pairs = [(n, m) for n in range(N) for m in range(N)] if N < 10 else [(0, 0), (7, 93), (99, 1)]
    with mpmath.workdps(DPS):
        for n, m in pairs:
            nn, nm = _norm(Xb[n]), _norm(Xb[m])
            dot = mpmath.fsum(_mp(a) * _mp(b) for a, b in zip(Xb[n], Xb[m], strict=True))
            u = dot / (nn * nm)
            ko = mpmath.mpf("1.5") * nn * nm * _kappa1_ref(u)
            kv = mpmath.mpf("0.5") * dot * _kappa0_ref(u)
            _pin(K["K_O"][n, m], ko, REL_KERNEL)
            _pin(K["K_V"][n, m], kv, REL_KERNEL)
            _pin(K["K"][n, m], ko + kv, REL_KERNEL)


@pytest.mark.parametrize(("N", "d_s", "d"), [(3, 2, 4), (100, 8, 128)])
def test_pinned_assumption_checkers(N: int, d_s: int, d: int) -> None:
    X = SMALL_X if N == 3 else PAPER_X
    rng = np.random.default_rng(N)
    sv = rng.uniform(0.3, 2.0, (N, d_s))
    Xs = np.stack([_known_sv(rng, d_s, d, s) for s in sv])
    cov = B.assumption3_covariance(X)
    iu = list(zip(*np.triu_indices(N, k=1), strict=True))
    with mpmath.workdps(DPS):
        _pin(B.assumption1(X), max(PAPER_C if N == 100 else _token_ref(X)))
        _pin(B.assumption2(Xs), _mp(sv.min()), 1e-11)  # min_n sigma_min(X_n), known by construction
        for idx in [0, 1, len(iu) - 1] if N > 10 else range(len(iu)):
            i, j = iu[idx]
            # <X_i^T X_i, X_j^T X_j>_F = ||X_i X_j^T||_F^2
            cross = mpmath.fsum(_mp(v) ** 2 for v in (X[i] @ X[j].T).ravel())
            ni = mpmath.sqrt(mpmath.fsum(_mp(v) ** 2 for v in (X[i] @ X[i].T).ravel()))
            nj = mpmath.sqrt(mpmath.fsum(_mp(v) ** 2 for v in (X[j] @ X[j].T).ravel()))
            _pin(cov[idx], cross / (ni * nj), 1e-11)
    assert B.slope_window(2.0, 0.3) == [1.7, 2.3]
    assert (B.THM1_WIDTH_ORDER, B.THM2_WIDTH_ORDER, B.THM2_DIM_ORDER, B.SOFTMAX_LIP) == (2.0, 1.0, 4.0, 0.5)


@pytest.mark.parametrize("paper", [False, True])
def test_pinned_data_summary(paper: bool) -> None:
    """summarise: sum_n c_n^2, sum_n X2_n^6 (the sixth power the width conditions use), |y|^2,
    lambda_min and trace of G / eta_V (here a matrix with known eigenvalues)."""
    rng = np.random.default_rng(11)
    if paper:
        X, X2, c = PAPER_X, list(PAPER_X2), PAPER_C
    else:
        X = SMALL_X
        with mpmath.workdps(DPS):
            c = _token_ref(X)
            X2 = [mpmath.sqrt(max(mpmath.eigsy(mpmath.matrix((Xn @ Xn.T).tolist()))[0])) for Xn in X]
    N = X.shape[0]
    y = rng.standard_normal(N)
    lam = rng.uniform(0.01, 2.0, N)
    Q, _ = np.linalg.qr(rng.standard_normal((N, N)))
    G = (Q * lam) @ Q.T
    s = B.summarise(X, y, G)
    assert (s.N, s.d, s.d_s) == (N, X.shape[2], X.shape[1])
    with mpmath.workdps(DPS):
        _pin(s.sum_c2, mpmath.fsum(v**2 for v in c))
        _pin(s.sum_x6, mpmath.fsum(_mp(v) ** 6 for v in X2), 1e-11)
        _pin(s.y_sq, mpmath.fsum(_mp(v) ** 2 for v in y))
        _pin(s.lam0, _mp(lam.min()), 1e-10)
        _pin(s.trG, mpmath.fsum(_mp(v) for v in lam), 1e-12)
    assert B.slope_window(-0.5, 0.15) == [-0.65, -0.35]
