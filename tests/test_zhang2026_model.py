"""Unit tests of the zhang2026 reference model: hand gradients, reductions, invariances, bad inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from verify.numerics.gradcheck import check_grad as _check_grad
from verify.numerics.softmax import softmax
from verify.zhang2026 import data as Da
from verify.zhang2026 import experiments as E
from verify.zhang2026 import model as Mo

LEAKY = Mo.Act("leaky", 0.1)

sizes = st.tuples(st.integers(3, 9), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2**31 - 1))


def check_grad(f, th, grad):
    """check_grad with the absolute floor scaled to the loss: central differences of a loss of size |f|
    carry round-off ~1e-16 |f| / eps."""
    return _check_grad(f, th, grad, eps=1e-5, atol=1e-9 * max(1.0, abs(f(th))))


def _setup(D: int, M: int, d: int, seed: int, K: int | None = None):
    rng = np.random.default_rng(seed)
    K = K if K is not None else max(1, D // 3)
    S = Da.s_circulant(D, K)
    V = Da.random_v(M, d, rng, 1.0 + 2.0 * rng.random())
    P = Mo.random_orthogonal(D, rng)
    th = {"W_V": rng.standard_normal((M, d)), "W_KQ": rng.standard_normal((D, D))}
    return rng, S, V, P, th


@given(sizes, st.floats(0.3, 2.0), st.floats(-1.0, 1.0))
def test_linear_gradient(sz, sx2, mu) -> None:
    D, M, d, seed = sz
    _, S, V, P, th = _setup(D, M, d, seed)

    def f(t):
        return Mo.linear_loss_grad(t["W_V"], t["W_KQ"], P, V, S, sx2, mu)[0]

    rep = check_grad(f, th, Mo.linear_loss_grad(th["W_V"], th["W_KQ"], P, V, S, sx2, mu)[1])
    assert rep.ok, rep.summary()


@given(sizes, st.floats(0.0, 0.9), st.floats(0.3, 2.0))
def test_dual_kernel_gradient(sz, alpha, sx2) -> None:
    D, M, d, seed = sz
    _, S, V, P, th = _setup(D, M, d, seed)

    def f(t):
        return Mo.dual_loss_grad(t["W_V"], t["W_KQ"], P, V, S, alpha, sx2)[0]

    rep = check_grad(f, th, Mo.dual_loss_grad(th["W_V"], th["W_KQ"], P, V, S, alpha, sx2)[1])
    assert rep.ok, rep.summary()


@given(st.tuples(st.integers(3, 6), st.integers(1, 2), st.integers(1, 3), st.integers(0, 2**31 - 1)))
def test_empirical_gradient(sz) -> None:
    D, M, d, seed = sz
    rng, S, V, P, th = _setup(D, M, d, seed)
    X = rng.standard_normal((50, d, D))
    Y = LEAKY(np.matmul(V, X) @ S) + 0.1 * rng.standard_normal((50, M, D))

    def f(t):
        return Mo.mc_loss_grad(t["W_V"], t["W_KQ"], P, X, Y, LEAKY)[0]

    rep = check_grad(f, th, Mo.mc_loss_grad(th["W_V"], th["W_KQ"], P, X, Y, LEAKY)[1])
    assert rep.ok, rep.summary()


def test_dual_kernel_matches_linear_when_alpha_is_one() -> None:
    _, S, V, P, th = _setup(6, 2, 3, 0)
    lin = Mo.linear_loss_grad(th["W_V"], th["W_KQ"], P, V, S)
    dual = Mo.dual_loss_grad(th["W_V"], th["W_KQ"], P, V, S, 1.0)
    assert math.isclose(lin[0], dual[0], rel_tol=1e-12)
    for k in lin[1]:
        np.testing.assert_allclose(lin[1][k], dual[1][k], rtol=1e-10, atol=1e-12)


def test_kronecker_form_equals_closed_form() -> None:
    _, S, V, P, th = _setup(7, 2, 3, 1)
    A = Mo.attention(th["W_KQ"], P)
    assert math.isclose(
        Mo.linear_excess_residual(th["W_V"], A, V, S, 1.3),
        Mo.linear_loss_grad(th["W_V"], th["W_KQ"], P, V, S, 1.3)[0],
        rel_tol=1e-12,
    )


def test_monte_carlo_matches_closed_form_leaky() -> None:
    rng, S, V, P, th = _setup(6, 2, 3, 2)
    A = Mo.attention(th["W_KQ"], P)
    X = rng.standard_normal((100_000, 3, 6))
    mc, se = Mo.mc_excess(th["W_V"], A, V, S, LEAKY, X)
    assert abs(mc - Mo.dual_loss(th["W_V"], A, V, S, 0.1)) < 4 * se


@given(
    st.integers(4, 10),
    st.integers(1, 3),
    st.floats(0.02, 0.1),
    st.floats(0.5, 2.0),
    st.floats(0.5, 4.0),
    st.sampled_from(["linear", "leaky", "relu"]),
    st.integers(0, 2**31 - 1),
)
def test_scalar_reduction_equals_full_matrix(D, K, eta, sx2, vnorm, act_name, seed) -> None:
    K = min(K, D - 1)
    rng = np.random.default_rng(seed)
    S, P = Da.s_circulant(D, K), Mo.random_orthogonal(D, rng)
    V = Da.random_v(2, 3, rng, vnorm)
    act = Mo.Act(act_name, 0.1)
    times = [0, 1, 2, 10, 40]
    full = E.population_gd(V, S, P, eta, times, act=act, sx2=sx2)
    sc = E.scalar_run(D, K, eta, times, sx2, vnorm**2, act)
    np.testing.assert_allclose(full.excess, sc.excess, rtol=1e-10, atol=1e-12)
    C1 = np.einsum("tmd,md->t", full.W_V, V) / vnorm**2
    np.testing.assert_allclose(C1, sc.C1, rtol=0, atol=1e-12)
    g = [Mo.scalar_from_matrix(w, P, S)[2] for w in full.W_KQ[2:]]
    np.testing.assert_allclose(g, sc.g[2:], rtol=1e-9, atol=1e-13)


@given(st.integers(4, 9), st.integers(1, 3), st.integers(0, 2**31 - 1))
def test_kq_invariant_K_C2_equals_DmK_C3(D, K, seed) -> None:
    K = min(K, D - 1)
    rng = np.random.default_rng(seed)
    S, P, V = Da.s_circulant(D, K), Mo.random_orthogonal(D, rng), Da.random_v(2, 2, rng, 2.0)
    run = E.population_gd(V, S, P, 0.1, [30])
    C2, C3, _ = Mo.scalar_from_matrix(run.W_KQ[-1], P, S)
    assert math.isclose(K * C2, (D - K) * C3, rel_tol=1e-10)


@given(st.integers(3, 8), st.integers(0, 2**31 - 1), st.sampled_from(["linear", "leaky"]))
def test_any_orthogonal_P_same_trajectory(D, seed, act_name) -> None:
    rng = np.random.default_rng(seed)
    S, V = Da.s_circulant(D, 1 + D // 3), Da.random_v(2, 3, rng, 2.0)
    act = Mo.Act(act_name, 0.1)
    r1 = E.population_gd(V, S, Mo.random_orthogonal(D, rng), 0.1, [5, 25], act=act)
    r2 = E.population_gd(V, S, Mo.random_orthogonal(D, rng), 0.1, [5, 25], act=act)
    np.testing.assert_allclose(r1.A, r2.A, atol=1e-12)
    np.testing.assert_allclose(r1.W_V, r2.W_V, atol=1e-12)


@given(st.integers(3, 8), st.integers(0, 2**31 - 1))
def test_permuting_positions_in_P_and_S(D, seed) -> None:
    """Relabel positions by a permutation pi: S' = Pi^T S Pi, P' = P Pi gives A'(t) = Pi^T A(t) Pi."""
    rng = np.random.default_rng(seed)
    S = Da.s_weighted(D, np.array([0.7, 0.3])) if D > 2 else Da.s_circulant(D, 1)
    V, P = Da.random_v(2, 3, rng, 2.0), Mo.random_orthogonal(D, rng)
    Pi = np.eye(D)[:, rng.permutation(D)]
    r1 = E.population_gd(V, S, P, 0.1, [20])
    r2 = E.population_gd(V, Pi.T @ S @ Pi, P @ Pi, 0.1, [20])
    np.testing.assert_allclose(r2.A[-1], Pi.T @ r1.A[-1] @ Pi, atol=1e-12)
    np.testing.assert_allclose(r2.W_V, r1.W_V, atol=1e-12)


def test_circulant_reduction_matches_full_matrix_with_mean() -> None:
    rng = np.random.default_rng(0)
    S, V, P = (
        Da.s_weighted(8, np.array([0.5, 0.3, 0.2])),
        Da.random_v(2, 3, rng, 3.0),
        Mo.random_orthogonal(8, rng),
    )
    for mu in (0.0, 0.6):
        full = E.population_gd(V, S, P, 0.05, [0, 3, 60], sx2=1.2, mu=mu)
        ex, W, a = E.circulant_run(S[:, 0], V, 0.05, [0, 3, 60], 1.2, mu)
        np.testing.assert_allclose(full.excess, ex, rtol=1e-10)
        np.testing.assert_allclose(full.W_V, W, atol=1e-13)
        np.testing.assert_allclose(full.A[:, :, 0], a, atol=1e-13)


def test_first_steps_linear_and_leaky() -> None:
    rng = np.random.default_rng(0)
    S, V, P = Da.s_circulant(8, 2), Da.random_v(2, 3, rng, 2.0), Mo.random_orthogonal(8, rng)
    lin = E.population_gd(V, S, P, 0.1, [1], sx2=1.5)
    np.testing.assert_allclose(lin.W_V[-1], 0.1 * 1.5 * V, rtol=1e-14)
    assert np.all(lin.W_KQ[-1] == 0.0)
    lk = E.population_gd(V, S, P, 0.1, [1], act=Mo.Act("leaky", 0.2))
    np.testing.assert_allclose(lk.W_V[-1], 0.1 * 0.6 * V, rtol=1e-14)
    dead = E.population_gd(V, S, P, 0.1, [3], act=Mo.Act("relu", dprime0=0.0))
    assert np.all(dead.W_V[-1] == 0.0)  # sigma'(0) = 0: a zero-initialised ReLU student never moves


def test_mc_sgd_from_zero_uses_dprime0() -> None:
    rng = np.random.default_rng(1)
    S, V, P = Da.s_circulant(6, 2), Da.random_v(2, 3, rng, 2.0), Mo.random_orthogonal(6, rng)
    X = rng.standard_normal((200, 3, 6))
    Y = np.maximum(np.matmul(V, X) @ S, 0)
    z = {"W_V": np.zeros((2, 3)), "W_KQ": np.zeros((6, 6))}
    g0 = Mo.mc_loss_grad(z["W_V"], z["W_KQ"], P, X, Y, Mo.Act("relu", dprime0=0.0))[1]["W_V"]
    g1 = Mo.mc_loss_grad(z["W_V"], z["W_KQ"], P, X, Y, Mo.Act("relu", dprime0=1.0))[1]["W_V"]
    assert np.all(g0 == 0.0) and np.linalg.norm(g1) > 0


def test_bad_inputs_raise() -> None:
    rng = np.random.default_rng(0)
    S, V, P = Da.s_circulant(6, 2), Da.random_v(2, 3, rng), Mo.random_orthogonal(6, rng)
    with pytest.raises(ValueError, match="eta"):
        E.population_gd(V, S, P, -0.1, [3])
    with pytest.raises(ValueError, match="increasing"):
        E.population_gd(V, S, P, 0.1, [3, 2])
    with pytest.raises(ValueError, match="K must"):
        E.scalar_run(4, 4, 0.1, [3])
    with pytest.raises(TypeError, match="D"):
        E.scalar_run(4.0, 2, 0.1, [3])
    with pytest.raises(ValueError, match="activation"):
        Mo.Act("tanh")
    with pytest.raises(ValueError, match="zero row"):
        Mo.dual_loss_grad(np.zeros((2, 3)), np.zeros((6, 6)), P, V, S, 0.1)
    with pytest.raises(ValueError, match="sum to 1"):
        E.circulant_run(np.array([0.5, 0.2, 0.0]), V, 0.1, [3])
    with pytest.raises(ValueError, match="S and P"):
        E.population_gd(V, S, np.eye(5), 0.1, [3])


def test_divergence_reported_not_nan() -> None:
    rng = np.random.default_rng(0)
    S, V, P = Da.s_circulant(6, 2), Da.random_v(2, 3, rng, 2.0), Mo.random_orthogonal(6, rng)
    with np.errstate(all="ignore"):
        run = E.population_gd(V, S, P, 5.0, [2000])
    assert run.stopped is not None and "non-finite" in run.stopped


@given(
    st.integers(4, 9),
    st.integers(1, 3),
    st.floats(0.2, 1.0),
    st.floats(0.5, 1.8),
    st.integers(0, 2**31 - 1),
)
def test_mean_reduction_equals_full_matrix(D, K, mu, sx2, seed) -> None:
    K = min(K, D - 1)
    rng = np.random.default_rng(seed)
    S, P, V = Da.s_circulant(D, K), Mo.random_orthogonal(D, rng), Da.random_v(2, 3, rng, 1.5)
    times = [0, 1, 5, 40]
    full = E.population_gd(V, S, P, 0.02, times, sx2=sx2, mu=mu)
    ex, al, be, _ = E.scalar_run_mean(V, D, K, 0.02, times, sx2, mu)
    J = V.sum(axis=1, keepdims=True) * np.ones((1, 3))
    np.testing.assert_allclose(full.excess, ex, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(full.W_V, al[:, None, None] * V + be[:, None, None] * J, atol=1e-12)
    assert mu == 0 or abs(be[1]) > 0  # the mean term breaks Lemma C.2 alignment at t = 1


@given(st.tuples(st.integers(3, 5), st.integers(1, 2), st.integers(1, 3), st.integers(0, 2**31 - 1)))
def test_full_tf_gradient(sz) -> None:
    D, M, d, seed = sz
    rng, S, V, P, _ = _setup(D, M, d, seed)
    X = rng.standard_normal((20, d, D))
    Y = LEAKY(np.matmul(V, X) @ S)
    th = {"W_V": 0.5 * rng.standard_normal((M, d + D)), "W_KQ": 0.5 * rng.standard_normal((d + D, d + D))}
    # finite differences are invalid across the leaky-ReLU kink: skip draws with a pre-activation near 0
    Z = np.concatenate([X, np.broadcast_to(P, (20, D, D))], axis=1)
    A = softmax(np.swapaxes(Z, 1, 2) @ th["W_KQ"] @ Z / math.sqrt(D), axis=-2)
    assume(np.min(np.abs(th["W_V"] @ Z @ A)) > 1e-4)

    def f(t):
        return Mo.full_tf_loss_grad(t["W_V"], t["W_KQ"], P, X, Y, LEAKY)[0]

    rep = check_grad(f, th, Mo.full_tf_loss_grad(th["W_V"], th["W_KQ"], P, X, Y, LEAKY)[1])
    assert rep.ok, rep.summary()


def test_full_tf_reduces_to_position_only_model() -> None:
    """W_V = [W, 0] and W_KQ = [[0, 0], [0, W_pp]] give the position-only student exactly."""
    rng, S, V, P, th = _setup(6, 2, 3, 4)
    X = rng.standard_normal((30, 3, 6))
    Y = np.matmul(V, X) @ S
    Wv = np.concatenate([th["W_V"], np.zeros((2, 6))], axis=1)
    Wk = np.zeros((9, 9))
    Wk[3:, 3:] = th["W_KQ"]
    lf, gf = Mo.full_tf_loss_grad(Wv, Wk, P, X, Y, Mo.Act("linear"))
    lp, gp = Mo.mc_loss_grad(th["W_V"], th["W_KQ"], P, X, Y, Mo.Act("linear"))
    assert math.isclose(lf, lp, rel_tol=1e-12)
    np.testing.assert_allclose(gf["W_V"][:, :3], gp["W_V"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gf["W_KQ"][3:, 3:], gp["W_KQ"], rtol=1e-10, atol=1e-12)


@given(
    st.sampled_from(
        [
            ("conv_pool", 16, 4),
            ("conv_pool", 36, 9),
            ("gcn_cycle", 7, 3),
            ("gcn_cycle", 9, 5),
            ("selection", 6, 2),
            ("group_sparse", 5, 1),
            ("circulant", 7, 3),
        ]
    ),
    st.sampled_from(["linear", "leaky"]),
    st.floats(0.02, 0.1),
    st.integers(0, 2**31 - 1),
)
def test_teacher_family_reduces_to_scalars(case, act_name, eta, seed) -> None:
    """Every uniform-K teacher of the class follows the (C1, g) recursion, whatever its support pattern."""
    name, D, K = case
    rng = np.random.default_rng(seed)
    S = Da.example(name, D, K)
    V, P = Da.random_v(2, 3, rng, 3.0), Mo.random_orthogonal(D, rng)
    act = Mo.Act(act_name, 0.1)
    full = E.population_gd(V, S, P, eta, [1, 7, 30], act=act)
    sc = E.scalar_run(D, K, eta, [1, 7, 30], 1.0, 9.0, act)
    A = np.array([Mo.two_level_attention(g, S) for g in sc.g])
    np.testing.assert_allclose(full.A, A, atol=1e-13)
    np.testing.assert_allclose(full.W_V, sc.C1[:, None, None] * V, atol=1e-12)


# --- the second-moment form, the batched full-matrix GD, online SGD, the digits stand-in, rate helpers


@given(st.tuples(st.integers(3, 6), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2**31 - 1)))
def test_moment_form_equals_empirical_loss(sz) -> None:
    """Full-batch GD through the data's second moments is the empirical loss and gradient, exactly."""
    D, M, d, seed = sz
    rng, S, V, P, th = _setup(D, M, d, seed)
    X = rng.exponential(1.0, (40, d, D))  # non-centred, non-Gaussian: only moments enter
    loss, g = Mo.moment_loss_grad(th["W_V"], th["W_KQ"], P, V, S, Mo.second_moments(X))
    loss2, g2 = Mo.mc_loss_grad(th["W_V"], th["W_KQ"], P, X, np.matmul(V, X) @ S, Mo.Act("linear"))
    assert math.isclose(loss, loss2, rel_tol=1e-12)
    for k in ("W_V", "W_KQ"):
        np.testing.assert_allclose(g[k], g2[k], rtol=1e-10, atol=1e-12 * max(1.0, abs(loss)))


def test_batched_gd_equals_population_gd() -> None:

    rng = np.random.default_rng(3)
    Vs = np.stack([Da.random_v(2, 3, rng, 4.0) for _ in range(2)])
    Ss = np.stack([Da.example("gcn_cycle", 8, 3), Da.s_selection(8, 2, np.array([1, 6]))])
    ex, W, A = E.batched_population_gd(Vs, Ss, 0.1, [1, 10, 60])
    for k in range(2):
        ref = E.population_gd(Vs[k], Ss[k], Mo.random_orthogonal(8, rng), 0.1, [1, 10, 60])
        np.testing.assert_allclose(ex[:, k], ref.excess, rtol=1e-11)
        np.testing.assert_allclose(W[:, k], ref.W_V, atol=1e-12)
        np.testing.assert_allclose(A[:, k], ref.A, atol=1e-12)


def _bits(a: np.ndarray) -> bytes:
    return np.asarray(a, dtype=np.float64).tobytes()


def test_each_run_of_a_batched_model_is_its_batch_of_one() -> None:
    """The batched closed forms, Monte Carlo losses, full TF and population GD give each run the bits of
    its batch of one (a leaky batch mixing runs at and off the zero init; a population GD batch with a
    diverging run)."""
    rng = np.random.default_rng(7)
    n, M_, d, D, N = 3, 2, 3, 8, 40
    S = np.stack([Da.s_circulant(D, 2)] * n)
    V, P = rng.standard_normal((n, M_, d)), np.stack([Mo.random_orthogonal(D, rng) for _ in range(n)])
    W, KQ = rng.standard_normal((n, M_, d)), rng.standard_normal((n, D, D))
    X, Y = rng.standard_normal((n, N, d, D)), rng.standard_normal((n, N, M_, D))
    Wz = W.copy()
    Wz[1] = 0.0  # run 1 at the zero init
    pop = Da.Population(V, S, P)
    cases = [
        (Mo.linear_loss_grad_batched, (W, KQ, P, V, S), dict(sx2=1.3, mu=0.6)),
        (Mo.dual_loss_grad_batched, (W, KQ, P, V, S), dict(alpha=0.1, sx2=1.3)),
        (Mo.mc_loss_grad_batched, (W, KQ, P, X, Y), dict(act=LEAKY)),
        (
            Mo.full_tf_loss_grad_batched,
            (rng.standard_normal((n, M_, d + D)), rng.standard_normal((n, d + D, d + D)), P, X, Y),
            dict(act=LEAKY),
        ),
    ]
    for fn, args, kw in cases:
        loss, g = fn(*args, **kw)
        for s in range(n):
            loss1, g1 = fn(*(a[s : s + 1] for a in args), **kw)
            assert _bits(loss[s]) == _bits(loss1[0]) and all(_bits(g[k][s]) == _bits(g1[k][0]) for k in g)
    model = Mo.PositionAttention(LEAKY)
    loss, g = model.loss_and_grad_batched({"W_V": Wz, "W_KQ": KQ}, pop)
    for s in range(n):
        loss1, g1 = model.loss_and_grad(Mo.Params(Wz[s], KQ[s]), Da.Population(V[s], S[s], P[s]))
        assert _bits(loss[s]) == _bits(loss1) and _bits(g["W_V"][s]) == _bits(g1.W_V)
    assert np.all(g["W_KQ"][1] == 0.0)  # the sigma'(0) convention at the zero init
    Vd = V.copy()
    Vd[2] *= 40.0  # this run diverges at the shared step
    with np.errstate(all="ignore"):
        runs = E.population_gd_batched(Vd, S, P, 1.0, [5, 50, 400], act=LEAKY)
        for s in range(n):
            one = E.population_gd(Vd[s], S[s], P[s], 1.0, [5, 50, 400], act=LEAKY)
            assert runs[s].stopped == one.stopped
            for f in ("excess", "W_V", "W_KQ", "A", "loss"):
                assert _bits(getattr(runs[s], f)) == _bits(getattr(one, f)), (s, f)
    assert runs[2].stopped is not None and runs[0].stopped is None


def test_a_fixed_sample_laid_out_once_gives_the_reference_loss_and_gradients() -> None:
    """The Monte Carlo loss on a :class:`Sample` (its X and Y laid out once, ``Sample.tokens``) against
    the definition written per sample (H_k = W_V X_k A, R_k = Y_k - sigma(H_k), grad_{W_V} = -mean
    (R_k * sigma'(H_k)) (X_k A)^T, grad_A = -mean X_k^T W_V^T (R_k * sigma'(H_k))), for each activation
    and sigma'(0) convention, with exact zeros in H (half the inputs zero; W_V = 0); and
    ``Act.times_prime`` against R * sigma'(H), to the bit."""
    rng = np.random.default_rng(11)
    n, M_, d, D, N = 2, 3, 4, 6, 50
    X, Y = rng.standard_normal((n, N, d, D)), rng.standard_normal((n, N, M_, D))
    X[:, : N // 2] = 0.0
    P = np.stack([Mo.random_orthogonal(D, rng) for _ in range(n)])
    KQ = rng.standard_normal((n, D, D))
    A = Mo.attention(KQ, P)
    for W in (rng.standard_normal((n, M_, d)), np.zeros((n, M_, d))):
        for act in (
            Mo.Act(name, dprime0=p0) for name in ("linear", "relu", "leaky") for p0 in (0.0, 0.5, 1.0)
        ):
            XA = np.einsum("nkde,nef->nkdf", X, A)  # X_k A
            H = np.einsum("nmd,nkdf->nkmf", W, XA)
            R = Y - act(H)
            Rp = R * act.prime(H)
            assert _bits(act.times_prime(R, H)) == _bits(Rp)
            loss, g = Mo.PositionAttention(act).loss_and_grad_batched(
                {"W_V": W, "W_KQ": KQ}, Da.Sample(X, Y, P)
            )
            g_v = -np.einsum("nkmf,nkdf->nmd", Rp, XA) / N
            g_a = -np.einsum("nkde,nmd,nkmf->nef", X, W, Rp) / N
            np.testing.assert_allclose(loss, 0.5 * np.sum(R * R, axis=(1, 2, 3)) / N, rtol=1e-12)
            np.testing.assert_allclose(g["W_V"], g_v, rtol=1e-10, atol=1e-14)
            np.testing.assert_allclose(g["W_KQ"], Mo.kq_backward(A, g_a, P), rtol=1e-10, atol=1e-14)


def test_scalar_run_continues_bit_identically() -> None:
    times = [1, 10, 100, 1000, 3000]
    for act in (E.LIN, E.LEAKY):
        whole = E.scalar_run(8, 2, 0.1, times, 1.0, 16.0, act)
        head = E.scalar_run(8, 2, 0.1, times[:3], 1.0, 16.0, act)
        tail = E.scalar_run(
            8, 2, 0.1, times[3:], 1.0, 16.0, act, start=(100, float(head.C1[-1]), float(head.g[-1]))
        )
        for f in ("C1", "g", "excess"):
            assert _bits(getattr(whole, f)) == _bits(np.concatenate([getattr(head, f), getattr(tail, f)]))
    with pytest.raises(ValueError, match="zero init"):
        E.scalar_run(8, 2, 0.1, times, start=(0, 1.0, 0.0))
    with pytest.raises(ValueError, match="time"):
        E.scalar_run(8, 2, 0.1, [50], start=(100, 1.0, 0.5))


def test_sgd_with_huge_batches_tracks_population_gd() -> None:

    p = E.SgdPoint(0, "t5", 4, 2, 2, 3, 0.1, 4.0, 20_000, 0.0, (1, 5, 20))
    r = E.sgd_curve(p)
    rng = np.random.default_rng([0, 1])
    S, V = Da.s_circulant(4, 2), Da.random_v(2, 3, rng, 4.0)
    ref = E.scalar_run(4, 2, 0.1, [1, 5, 20], 1.0, 16.0)
    np.testing.assert_allclose(r["excess"], ref.excess, rtol=0.05)
    assert np.all(np.isfinite(r["resid"])) and S.shape == (4, 4) and V.shape == (2, 3)


def test_asym_init_starts_off_the_two_level_form() -> None:

    r = E.asym_curve(E.AsymPoint(0, 6, 2, 2, 3, 0.1, 4.0, 0.1, (1, 50)))
    assert r["resid"][0] > 1e-6 and r["spread_off"][0] > 1e-3
    assert r["resid"][-1] < r["resid"][0]


def test_digits_stand_in_geometry() -> None:
    pytest.importorskip("sklearn")

    X = Da.load_patches()
    assert X.shape == (1797, 9, 36) and 0.0 <= X.min() and X.max() <= 1.0
    V = Da.pca_filters(X, 4, 2.0)
    np.testing.assert_allclose(V @ V.T, 4.0 * np.eye(4), atol=1e-12)
    assert Da.border_rows().sum() == 20 and Da.is_uniform_teacher(Da.s_conv_pool(6, 3), 9)


def test_rate_parts_never_mask_a_violation() -> None:
    from verify.core.judge import judge
    from verify.core.record import Kind, Verdict
    from verify.zhang2026.claims.common import RateParts, fit_decades, rate_times

    x = rate_times(1.0, 10, 1e4)
    good, flat = x**-1.0, x**-1.0 + 1e-3
    parts = RateParts()
    parts.rate("good", fit_decades(x, good), -1.0, 0.05)
    assert judge(Kind.UPPER, parts.evidence())[0] == Verdict.HOLDS
    parts.rate("floor", fit_decades(x, flat), -1.0, 0.05)
    ev = parts.evidence()
    assert judge(Kind.UPPER, ev)[0] == Verdict.VIOLATED and ev.headline["name"] == "floor"
    # an interval straddling the band edge (slope -1.05, alternating residuals): the rate rule is
    # inconclusive, which the other conditions cannot turn into holds, only a violated one into violated
    slow = RateParts()
    edge = x**-1.05 * np.exp(0.02 * (-1.0) ** np.arange(x.size))
    slow.rate("slow", fit_decades(x, edge), -1.0, 0.05)
    slow.tol("other", 0.5, 1.0)
    assert judge(Kind.UPPER, slow.evidence())[0] == Verdict.INCONCLUSIVE
    slow.tol("broken", 2.0, 1.0)
    assert judge(Kind.UPPER, slow.evidence())[0] == Verdict.VIOLATED


def test_log_grid_never_passes_the_last_step() -> None:
    """The paper profile's 3000 steps: 10^(14/4) = 3162 must not index past the run (fullTF erred)."""
    from verify.zhang2026.experiments import log_grid

    assert log_grid(3000).tolist()[-2:] == [1778, 3000] and log_grid(1000).tolist()[-1] == 1000
