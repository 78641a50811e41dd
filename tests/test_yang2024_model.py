"""Unit tests of the yang2024 reference model and data: hand gradients, invariances, closed form,
noise model, bad inputs. Property-based over (K, N, m, d, H, tau, beta) with hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.numerics.gradcheck import assert_grad_ok, check_grad
from verify.numerics.softmax import softmax
from verify.yang2024 import data as D
from verify.yang2024 import experiments as E
from verify.yang2024 import model as M

EPS = float(np.finfo(np.float64).eps)


@st.composite
def instances(draw: st.DrawFn) -> tuple[D.Problem, M.Params, int]:
    """A small random problem (K, N, m, d, tau) with a random theta (H heads, Q ~ N(0, beta^2))."""
    K = draw(st.integers(4, 16))
    N = draw(st.integers(2, K - 1))
    m = draw(st.integers(1, 6))
    d = draw(st.integers(2, 6))
    H = draw(st.integers(1, 5))
    tau = draw(st.floats(1e-3, 1.0))
    beta = draw(st.floats(0.1, 3.0))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    p = D.make_problem(K, N, d, m, tau, rng)
    th = M.Transformer(H).init(p, beta, rng)
    return p, th.replace(w=rng.standard_normal(th.w.shape)), seed


@given(instances())
def test_gradients_both_blocks(inst: tuple) -> None:
    p, th, seed = inst
    model = M.Transformer(th.Q.shape[0], excess=True)
    Delta, g = model.loss_and_grad(th, p)
    h = 1e-5
    rep = check_grad(
        lambda t: model.loss_and_grad(M.Params.from_blocks(t), p)[0], th.blocks(), g.blocks(),
        mode="directional", eps=h, rtol=1e-6, atol=50 * EPS * max(Delta, 1.0) / h, n_dirs=4, seed=seed,
    )  # fmt: skip
    assert_grad_ok(rep)


def test_gradients_full_coordinates_small() -> None:
    rng = np.random.default_rng(5)
    p = D.make_problem(rng=rng, **D.SMALL)
    model = M.Transformer(6)
    th = model.init(p, 1.0, rng)
    th = th.replace(w=0.3 * rng.standard_normal(th.w.shape))
    _, g = model.loss_and_grad(th, p)
    rep = check_grad(
        lambda t: model.loss(M.Params.from_blocks(t), p),
        th.blocks(),
        g.blocks(),
        mode="full",
        eps=1e-3,
        rtol=1e-6,
    )
    assert_grad_ok(rep)


@given(instances())
def test_loss_value_consistent(inst: tuple) -> None:
    p, th, _ = inst
    model = M.Transformer(th.Q.shape[0])
    L, _ = model.loss_and_grad(th, p)
    Delta, _ = M.Transformer(th.Q.shape[0], excess=True).loss_and_grad(th, p)
    assert L == pytest.approx(model.loss(th, p), rel=1e-12)
    assert Delta == pytest.approx(model.excess_loss(th, p), rel=1e-12, abs=1e-12)
    assert L == pytest.approx(Delta + p.Lstar, rel=1e-12)
    assert Delta >= 0.0


@given(instances())
def test_head_permutation_invariance(inst: tuple) -> None:
    p, th, seed = inst
    model = M.Transformer(th.Q.shape[0])
    perm = np.random.default_rng(seed).permutation(th.Q.shape[0])
    th2 = M.Params(Q=th.Q[perm], w=th.w[perm])
    np.testing.assert_allclose(model.forward(th2, p), model.forward(th, p), rtol=1e-12, atol=1e-14)


@given(instances())
def test_duplicated_head_with_halved_weights_invariance(inst: tuple) -> None:
    p, th, _ = inst
    H = th.Q.shape[0]
    Q = np.concatenate([th.Q, th.Q[:1]])
    w = np.concatenate([th.w, th.w[:1] / 2])
    w[0] /= 2
    y = np.random.default_rng(0).standard_normal((3, p.N))
    np.testing.assert_allclose(
        M.Transformer(H + 1).predict(M.Params(Q, w), p, y), M.Transformer(H).predict(th, p, y),
        rtol=1e-11, atol=1e-12,
    )  # fmt: skip


@given(instances())
def test_attention_is_column_stochastic_and_matches_shared_softmax(inst: tuple) -> None:
    p, th, _ = inst
    S = M.Transformer(th.Q.shape[0]).attention(th.Q, p)
    np.testing.assert_allclose(S.sum(axis=1), 1.0, rtol=1e-13)
    U = np.einsum("dn,hde,ek->hnk", p.V, th.Q, p.V_all)
    np.testing.assert_allclose(S, softmax(U, axis=1), rtol=1e-12)
    np.testing.assert_allclose(softmax(U.copy(), axis=1, overwrite=True), S, rtol=1e-12)


def test_prediction_is_linear_in_prompt_labels() -> None:
    rng = np.random.default_rng(1)
    p = D.make_problem(rng=rng, **D.SMALL)
    model = M.Transformer(4)
    th = model.init(p, 1.0, rng)
    th = th.replace(w=rng.standard_normal(th.w.shape))
    y1, y2 = rng.standard_normal((2, 1, p.N))
    lhs = model.predict(th, p, 2 * y1 - 3 * y2)
    np.testing.assert_allclose(lhs, 2 * model.predict(th, p, y1) - 3 * model.predict(th, p, y2))


def test_w_zero_gives_zero_Q_gradient() -> None:
    rng = np.random.default_rng(2)
    p = D.make_problem(rng=rng, **D.SMALL)
    model = M.Transformer(3)
    _, g = model.loss_and_grad(model.init(p, 1.0, rng), p)
    assert np.all(g.Q == 0.0)


def test_noise_modes_agree_in_distribution() -> None:
    rng = np.random.default_rng(3)
    p = D.make_problem(rng=rng, **D.SMALL)
    lam = np.tile(D.sample_tasks(1, p.m, rng), (40_000, 1))
    a = D.sample_labels(p, lam, rng, "representation") - lam @ p.Zt
    b = D.sample_labels(p, lam, rng, "scalar") - lam @ p.Zt
    var = p.tau * float(lam[0] @ lam[0])
    for x in (a, b):
        assert abs(x.mean()) < 5 * np.sqrt(var / x.size)
        assert x.var() == pytest.approx(var, rel=0.02)


def test_ood_tasks_have_the_stated_moments() -> None:
    lam = D.sample_tasks(200_000, 3, np.random.default_rng(4), "ood")
    np.testing.assert_allclose(lam.mean(axis=0), 1.0, atol=0.02)
    np.testing.assert_allclose(lam.var(axis=0), 4.0, rtol=0.02)


def test_token_kinds_and_assumption3() -> None:
    rng = np.random.default_rng(6)
    for kind, a3 in (("gaussian", True), ("orthonormal", False), ("hypercube", False)):
        V = D.make_tokens(8, 20, 6, rng, kind)
        np.testing.assert_allclose(np.linalg.norm(V, axis=0), 1.0, rtol=1e-13)
        assert D.satisfies_assumption3(V[:, :6]) == a3
    V = D.make_tokens(8, 20, 6, rng, "duplicate")
    assert np.array_equal(V[:, 0], V[:, 1])


def test_lstsq_w_reaches_the_floor() -> None:
    p = E.problem_for(0, D.Config.named("small"))
    Q = E.init_for(0, p, 12, 1.0).Q
    model = M.Transformer(12)
    assert model.excess_loss(M.Params(Q, model.lstsq_w(Q, p)), p) < 1e-20


def test_gd_run_is_cached_and_reproducible() -> None:
    cfg = D.Config.named("small")
    r1 = E.run_gd(0, cfg, 6, steps=50)
    r2 = E.run_gd(0, cfg, 6, gamma=3.0, steps=50)
    assert r1 is r2
    E._run_gd.cache_clear()
    r3 = E.run_gd(0, cfg, 6, steps=50)
    assert np.array_equal(r1.traj.loss, r3.traj.loss)
    assert not r3.traj.loss.flags.writeable


def test_adam_decreases_the_loss() -> None:
    p = E.problem_for(0, D.Config.named("small"))
    th0 = E.init_for(0, p, 12, 1.0)
    model = M.Transformer(12, excess=True)
    _, ts, losses, _ = E.adam(th0, lambda t: model.loss_and_grad(t, p), 1e-2, 200)
    assert ts[-1] == 200 and losses[-1] < 0.1 * losses[0]


@pytest.mark.parametrize(
    ("kwargs", "exc"),
    [
        ({"K": 5, "N": 5, "d": 3, "m": 2, "tau": 0.1}, ValueError),
        ({"K": 5, "N": 2, "d": 3, "m": 2, "tau": 0.0}, ValueError),
        ({"K": 5, "N": 2, "d": 3, "m": 0, "tau": 0.1}, ValueError),
        ({"K": 5, "N": 2.0, "d": 3, "m": 2, "tau": 0.1}, TypeError),
    ],
)
def test_bad_problem_inputs(kwargs: dict, exc: type[Exception]) -> None:
    with pytest.raises(exc):
        D.make_problem(rng=np.random.default_rng(0), **kwargs)


def test_bad_model_inputs() -> None:
    rng = np.random.default_rng(0)
    p = D.make_problem(rng=rng, **D.SMALL)
    with pytest.raises(ValueError, match="H"):
        M.Transformer(0)
    model = M.Transformer(2)
    with pytest.raises(ValueError, match="beta"):
        model.init(p, -1.0, rng)
    th = model.init(p, 1.0, rng)
    with pytest.raises(ValueError, match="w"):
        model.forward(M.Params(th.Q, np.zeros((3, p.K))), p)
    with pytest.raises(ValueError, match="y_prompt"):
        model.predict(th, p, np.zeros((2, p.N + 1)))
    with pytest.raises(ValueError, match="kind"):
        D.make_tokens(4, 10, 3, rng, "sphere")
    with pytest.raises(ValueError, match="orthonormal"):
        D.make_tokens(4, 10, 6, rng, "orthonormal")
    with pytest.raises(ValueError, match="domain"):
        D.sample_tasks(3, 2, rng, "test")
    with pytest.raises(ValueError, match="config"):
        D.Config.named("large")


@given(
    st.integers(2, 6),
    st.integers(0, 4),
    st.floats(0.2, 3.0),
    st.integers(0, 2**16),
)
def test_prop1_rank_property(N: int, extra: int, beta: float, seed: int) -> None:
    """Proposition 1 as a property: Gaussian tokens, H >= N gives every C_k rank N relative to machine
    precision; H < N gives rank <= H (lambda_min(B_k B_k^T) numerically 0)."""
    rng = np.random.default_rng(seed)
    p = D.make_problem(N + 8, N, 6, 3, 0.1, rng)
    assert D.satisfies_assumption3(p.V)
    for H in (N + extra, max(N - 1 - extra, 1)):
        model = M.Transformer(H)
        C = model.C_matrices(model.init(p, beta, rng), p)
        if H >= N:
            s = np.linalg.svd(C, compute_uv=False)
            assert np.all(s[:, N - 1] > 1e3 * EPS * s[:, 0])
            assert model.zeta(model.init(p, beta, rng), p) > 0
        else:
            Bm = np.matmul(p.Zbar, C)
            assert np.max(np.abs(np.linalg.eigvalsh(Bm @ Bm.transpose(0, 2, 1))[:, 0])) <= 1e-12
