"""Unit tests of the yang2024 reference model and data: hand gradients, invariances, closed form,
noise model, bad inputs. Property-based over (K, N, m, d, H, tau, beta) with hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.numerics.gradcheck import assert_grad_ok, check_grad
from verify.numerics.softmax import softmax
from verify.yang2024 import data, model, train

EPS = float(np.finfo(np.float64).eps)


@st.composite
def instances(draw: st.DrawFn) -> tuple[data.Problem, dict[str, np.ndarray], int]:
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
    p = data.make_problem(K, N, d, m, tau, rng)
    th = model.init_params(H, p, beta, rng)
    th["w"] = rng.standard_normal(th["w"].shape)
    return p, th, seed


@given(instances())
def test_gradients_both_blocks(inst: tuple) -> None:
    p, th, seed = inst
    D, g = model.loss_and_grad(th, p, excess=True)
    h = 1e-5
    rep = check_grad(
        lambda t: model.loss_and_grad(t, p, excess=True)[0], th, g,
        mode="directional", eps=h, rtol=1e-6, atol=50 * EPS * max(D, 1.0) / h, n_dirs=4, seed=seed,
    )  # fmt: skip
    assert_grad_ok(rep)


def test_gradients_full_coordinates_small() -> None:
    rng = np.random.default_rng(5)
    p = data.make_problem(rng=rng, **data.SMALL)
    th = model.init_params(6, p, 1.0, rng)
    th["w"] = 0.3 * rng.standard_normal(th["w"].shape)
    _, g = model.loss_and_grad(th, p)
    rep = check_grad(lambda t: model.loss(t, p), th, g, mode="full", eps=1e-3, rtol=1e-6)
    assert_grad_ok(rep)


@given(instances())
def test_loss_value_consistent(inst: tuple) -> None:
    p, th, _ = inst
    L, _ = model.loss_and_grad(th, p)
    D, _ = model.loss_and_grad(th, p, excess=True)
    assert L == pytest.approx(model.loss(th, p), rel=1e-12)
    assert D == pytest.approx(model.excess_loss(th, p), rel=1e-12, abs=1e-12)
    assert L == pytest.approx(D + p.Lstar, rel=1e-12)
    assert D >= 0.0


@given(instances())
def test_head_permutation_invariance(inst: tuple) -> None:
    p, th, seed = inst
    perm = np.random.default_rng(seed).permutation(th["Q"].shape[0])
    th2 = {"Q": th["Q"][perm], "w": th["w"][perm]}
    np.testing.assert_allclose(model.ahat(th2, p), model.ahat(th, p), rtol=1e-12, atol=1e-14)


@given(instances())
def test_duplicated_head_with_halved_weights_invariance(inst: tuple) -> None:
    p, th, _ = inst
    Q = np.concatenate([th["Q"], th["Q"][:1]])
    w = np.concatenate([th["w"], th["w"][:1] / 2])
    w[0] /= 2
    y = np.random.default_rng(0).standard_normal((3, p.N))
    np.testing.assert_allclose(
        model.predict({"Q": Q, "w": w}, p, y), model.predict(th, p, y), rtol=1e-11, atol=1e-12
    )


@given(instances())
def test_attention_is_column_stochastic_and_matches_shared_softmax(inst: tuple) -> None:
    p, th, _ = inst
    S = model.attention(th["Q"], p)
    np.testing.assert_allclose(S.sum(axis=1), 1.0, rtol=1e-13)
    U = np.einsum("dn,hde,ek->hnk", p.V, th["Q"], p.V_all)
    np.testing.assert_allclose(S, softmax(U, axis=1), rtol=1e-12)
    np.testing.assert_allclose(softmax(U.copy(), axis=1, overwrite=True), S, rtol=1e-12)


def test_prediction_is_linear_in_prompt_labels() -> None:
    rng = np.random.default_rng(1)
    p = data.make_problem(rng=rng, **data.SMALL)
    th = model.init_params(4, p, 1.0, rng)
    th["w"] = rng.standard_normal(th["w"].shape)
    y1, y2 = rng.standard_normal((2, 1, p.N))
    lhs = model.predict(th, p, 2 * y1 - 3 * y2)
    np.testing.assert_allclose(lhs, 2 * model.predict(th, p, y1) - 3 * model.predict(th, p, y2))


def test_w_zero_gives_zero_Q_gradient() -> None:
    rng = np.random.default_rng(2)
    p = data.make_problem(rng=rng, **data.SMALL)
    th = model.init_params(3, p, 1.0, rng)
    _, g = model.loss_and_grad(th, p)
    assert np.all(g["Q"] == 0.0)


def test_noise_modes_agree_in_distribution() -> None:
    rng = np.random.default_rng(3)
    p = data.make_problem(rng=rng, **data.SMALL)
    lam = np.tile(data.sample_tasks(1, p.m, rng), (40_000, 1))
    a = data.sample_labels(p, lam, rng, "representation") - lam @ p.Zt
    b = data.sample_labels(p, lam, rng, "scalar") - lam @ p.Zt
    var = p.tau * float(lam[0] @ lam[0])
    for x in (a, b):
        assert abs(x.mean()) < 5 * np.sqrt(var / x.size)
        assert x.var() == pytest.approx(var, rel=0.02)


def test_ood_tasks_have_the_stated_moments() -> None:
    lam = data.sample_tasks(200_000, 3, np.random.default_rng(4), "ood")
    np.testing.assert_allclose(lam.mean(axis=0), 1.0, atol=0.02)
    np.testing.assert_allclose(lam.var(axis=0), 4.0, rtol=0.02)


def test_token_kinds_and_assumption3() -> None:
    rng = np.random.default_rng(6)
    for kind, a3 in (("gaussian", True), ("orthonormal", False), ("hypercube", False)):
        V = data.make_tokens(8, 20, 6, rng, kind)
        np.testing.assert_allclose(np.linalg.norm(V, axis=0), 1.0, rtol=1e-13)
        assert data.satisfies_assumption3(V[:, :6]) == a3
    V = data.make_tokens(8, 20, 6, rng, "duplicate")
    assert np.array_equal(V[:, 0], V[:, 1])


def test_lstsq_w_reaches_the_floor() -> None:
    p = train.problem_for(0, train.config_tuple(data.SMALL))
    Q = train.init_for(0, p, 12, 1.0)["Q"]
    assert model.excess_loss({"Q": Q, "w": model.lstsq_w(Q, p)}, p) < 1e-20


def test_gd_run_is_cached_and_reproducible() -> None:
    cfg = train.config_tuple(data.SMALL)
    r1 = train.run_gd(0, cfg, 6, steps=50)
    r2 = train.run_gd(0, cfg, 6, gamma=3.0, steps=50)
    assert r1 is r2
    train._run_gd.cache_clear()
    r3 = train.run_gd(0, cfg, 6, steps=50)
    assert np.array_equal(r1.traj.loss, r3.traj.loss)
    assert not r3.traj.loss.flags.writeable


def test_adam_decreases_the_loss() -> None:
    p = train.problem_for(0, train.config_tuple(data.SMALL))
    th0 = train.init_for(0, p, 12, 1.0)
    _, ts, losses, _ = train.adam(th0, lambda t: model.loss_and_grad(t, p, excess=True), 1e-2, 200)
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
        data.make_problem(rng=np.random.default_rng(0), **kwargs)


def test_bad_model_inputs() -> None:
    rng = np.random.default_rng(0)
    p = data.make_problem(rng=rng, **data.SMALL)
    with pytest.raises(ValueError, match="H"):
        model.init_params(0, p, 1.0, rng)
    with pytest.raises(ValueError, match="beta"):
        model.init_params(2, p, -1.0, rng)
    th = model.init_params(2, p, 1.0, rng)
    with pytest.raises(ValueError, match="w"):
        model.ahat({"Q": th["Q"], "w": np.zeros((3, p.K))}, p)
    with pytest.raises(ValueError, match="y_prompt"):
        model.predict(th, p, np.zeros((2, p.N + 1)))
    with pytest.raises(ValueError, match="kind"):
        data.make_tokens(4, 10, 3, rng, "sphere")
    with pytest.raises(ValueError, match="orthonormal"):
        data.make_tokens(4, 10, 6, rng, "orthonormal")
    with pytest.raises(ValueError, match="domain"):
        data.sample_tasks(3, 2, rng, "test")


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
    p = data.make_problem(N + 8, N, 6, 3, 0.1, rng)
    assert data.satisfies_assumption3(p.V)
    for H in (N + extra, max(N - 1 - extra, 1)):
        C = model.C_matrices(model.init_params(H, p, beta, rng), p)
        if H >= N:
            s = np.linalg.svd(C, compute_uv=False)
            assert np.all(s[:, N - 1] > 1e3 * EPS * s[:, 0])
            assert model.zeta(model.init_params(H, p, beta, rng), p) > 0
        else:
            Bm = np.matmul(p.Zbar, C)
            assert np.max(np.abs(np.linalg.eigvalsh(Bm @ Bm.transpose(0, 2, 1))[:, 0])) <= 1e-12
