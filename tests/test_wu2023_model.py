"""Reference model of Wu et al. 2023: hand gradients vs finite differences, NTK two ways, invariances,
data generators and input validation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.numerics.gradcheck import assert_grad_ok, check_grad
from verify.wu2023 import data as Dt
from verify.wu2023 import experiments as E
from verify.wu2023 import model as M

INITS = ("lecun", "he", "ntk")


def _setup(seed: int, init: str, p: float, *, N=4, d=6, d_s=5, d_m=40, **kw) -> tuple:
    rng = np.random.default_rng(seed)
    cfg = M.Config(d=d, d_s=d_s, d_m=d_m, tau0_power=p, init=init, **kw)
    for _ in range(50):
        X = rng.standard_normal((N, d_s, d))
        th = M.init_params(cfg, rng)
        if np.min(np.abs(M.forward(cfg, th, X).A)) > 1e-4:  # keep away from the ReLU kink
            break
    y = rng.choice([-1.0, 1.0], N)
    return cfg, th, X, y


@pytest.mark.parametrize("init", INITS)
@pytest.mark.parametrize("p", [0.5, 1.0])
@pytest.mark.parametrize("loss_norm", ["sum", "mean"])
def test_gradients_match_finite_differences(init: str, p: float, loss_norm: str) -> None:
    cfg, th, X, y = _setup(1, init, p, loss_norm=loss_norm)
    _, g = M.loss_and_grad(cfg, th, X, y)
    assert_grad_ok(check_grad(lambda q: M.loss(cfg, q, X, y), th, g, mode="full", rtol=1e-6, atol=1e-8))


@pytest.mark.parametrize("flags", [dict(use_WH=True), dict(pooling=True), dict(ntk_input_scale=True)])
def test_gradients_with_options(flags: dict) -> None:
    cfg, th, X, y = _setup(2, "ntk", 0.5, **flags)
    _, g = M.loss_and_grad(cfg, th, X, y)
    assert_grad_ok(check_grad(lambda q: M.loss(cfg, q, X, y), th, g, mode="full", rtol=1e-6, atol=1e-8))
    if flags.get("pooling"):
        assert np.all(g["W_Q"] == 0) and np.all(g["W_K"] == 0)


@given(
    seed=st.integers(0, 10_000),
    init=st.sampled_from(INITS),
    p=st.sampled_from([0.5, 1.0]),
    N=st.integers(1, 6),
    d_s=st.integers(1, 5),
    d=st.integers(1, 7),
    d_m=st.integers(1, 12),
)
def test_gradients_property(seed: int, init: str, p: float, N: int, d_s: int, d: int, d_m: int) -> None:
    cfg, th, X, y = _setup(seed, init, p, N=N, d=d, d_s=d_s, d_m=d_m)
    if np.min(np.abs(M.forward(cfg, th, X).A)) <= 1e-4:
        return  # too close to the kink for finite differences
    _, g = M.loss_and_grad(cfg, th, X, y)
    assert_grad_ok(
        check_grad(lambda q: M.loss(cfg, q, X, y), th, g, mode="directional", rtol=1e-5, atol=1e-8, seed=seed)
    )


@pytest.mark.parametrize("init", INITS)
@pytest.mark.parametrize("p", [0.5, 1.0])
def test_jacobian_rows_are_per_example_gradients(init: str, p: float) -> None:
    cfg, th, X, _ = _setup(3, init, p)
    J = M.jacobian(cfg, th, X)
    for n in range(X.shape[0]):
        # the loss gradient with residual e_n (sum loss, y = f - e_n) is row n of J
        f = M.forward(cfg, th, X).f
        y = f.copy()
        y[n] -= 1.0
        _, g = M.loss_and_grad(cfg, th, X, y)
        np.testing.assert_allclose(J[n], M.flat(g), rtol=1e-12, atol=1e-14)


@given(
    seed=st.integers(0, 10_000),
    init=st.sampled_from(INITS),
    p=st.sampled_from([0.5, 1.0]),
    N=st.integers(1, 7),
    d_s=st.integers(1, 5),
    d=st.integers(1, 8),
    d_m=st.integers(1, 24),
)
def test_ntk_two_ways_agree(seed: int, init: str, p: float, N: int, d_s: int, d: int, d_m: int) -> None:
    cfg, th, X, _ = _setup(seed, init, p, N=N, d=d, d_s=d_s, d_m=d_m)
    K1, K2 = M.ntk(cfg, th, X, "contract"), M.ntk(cfg, th, X, "jacobian")
    np.testing.assert_allclose(K1, K2, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(K2).max()))
    np.testing.assert_allclose(K1, K1.T, rtol=1e-12, atol=1e-14 * max(1.0, np.abs(K1).max()))


def test_ntk_blocks_sum_and_output_block() -> None:
    cfg, th, X, _ = _setup(4, "lecun", 0.5)
    Kb = M.ntk_blocks(cfg, th, X)
    h = M.features(cfg, th, X)
    np.testing.assert_allclose(Kb["w_O"], cfg.tau1**2 * h @ h.T, rtol=1e-13)
    jb = M.jacobian_blocks(cfg, th, X)
    for b in M.BLOCKS:
        Jb = jb[b].reshape(X.shape[0], -1)
        np.testing.assert_allclose(Kb[b], Jb @ Jb.T, rtol=1e-10, atol=1e-14)


@given(seed=st.integers(0, 10_000), p=st.sampled_from([0.5, 1.0]))
def test_permuting_examples_leaves_the_loss_trajectory_unchanged(seed: int, p: float) -> None:
    s = E.make_setup(seed, 0, N=6, d=8, d_s=3, d_m=16, tau0_power=p, regime="active")
    perm = np.random.default_rng(seed).permutation(6)
    sp = E.Setup(s.cfg, s.X[perm], s.y[perm], s.theta0)
    g = 1.0 / E.lam_max(s.cfg, s.theta0, s.X)
    a, b = E.run_gd(s, g, 20).loss, E.run_gd(sp, g, 20).loss
    np.testing.assert_allclose(a, b, rtol=1e-10)


@given(seed=st.integers(0, 10_000), init=st.sampled_from(INITS), p=st.sampled_from([0.5, 1.0]))
def test_permuting_tokens_leaves_f_unchanged(seed: int, init: str, p: float) -> None:
    cfg, th, X, _ = _setup(seed, init, p)
    perm = np.random.default_rng(seed + 1).permutation(X.shape[1])
    np.testing.assert_allclose(
        M.forward(cfg, th, X).f, M.forward(cfg, th, X[:, perm]).f, rtol=1e-11, atol=1e-13
    )


@given(seed=st.integers(0, 10_000), c=st.floats(0.1, 10.0), p=st.sampled_from([0.5, 1.0]))
def test_rescaling_tau0_against_W_Q_leaves_f_unchanged(seed: int, c: float, p: float) -> None:
    cfg, th, X, _ = _setup(seed, "lecun", p)
    th2 = dict(th, W_Q=th["W_Q"] / c)
    f1 = M.forward(cfg, th, X).f
    f2 = M.forward(cfg.with_(tau0_mult=c), th2, X).f
    np.testing.assert_allclose(f1, f2, rtol=1e-10, atol=1e-13)


def test_identity_W_H_changes_nothing() -> None:
    cfg, th, X, y = _setup(5, "he", 0.5)
    a, b = M.loss_and_grad(cfg, th, X, y), M.loss_and_grad(cfg.with_(use_WH=True), th, X, y)
    assert a[0] == pytest.approx(b[0], rel=1e-14)
    for k in M.BLOCKS:
        np.testing.assert_allclose(a[1][k], b[1][k], rtol=1e-13, atol=1e-16)


def test_mean_loss_is_sum_loss_over_N() -> None:
    cfg, th, X, y = _setup(6, "lecun", 1.0)
    ls, gs = M.loss_and_grad(cfg, th, X, y)
    lm, gm = M.loss_and_grad(cfg.with_(loss_norm="mean"), th, X, y)
    assert lm == pytest.approx(ls / X.shape[0], rel=1e-14)
    np.testing.assert_allclose(gm["W_V"], gs["W_V"] / X.shape[0], rtol=1e-13)


def test_seeds_are_bit_identical() -> None:
    a = E.make_setup(3, 1, N=5, d=8, d_s=3, d_m=16)
    b = E.make_setup(3, 1, N=5, d=8, d_s=3, d_m=16)
    assert np.array_equal(a.X, b.X) and all(np.array_equal(a.theta0[k], b.theta0[k]) for k in M.BLOCKS)


def test_init_variances_are_respected() -> None:
    rng = np.random.default_rng(0)
    for init, var_v, var_o in (("lecun", 1 / 64, 1 / 2048), ("he", 2 / 64, 2 / 2048), ("ntk", 1, 1)):
        th = M.init_params(M.Config(d=64, d_s=2, d_m=2048, init=init), rng)
        assert th["W_V"].var() == pytest.approx(var_v, rel=0.03)
        assert th["w_O"].var() == pytest.approx(var_o, rel=0.1)


def test_data_generators() -> None:
    rng = np.random.default_rng(0)
    X, y = Dt.gaussian_data(rng, 50, 4, 64, "paper")
    assert X.shape == (50, 4, 64) and set(np.unique(y)) <= {-1.0, 1.0}
    assert np.mean(np.linalg.norm(X, axis=-1)) == pytest.approx(1.0, rel=0.05)
    Xa = Dt.gaussian_tokens(rng, 50, 4, 64, "active")
    assert np.mean(np.sum(Xa**2, axis=-1)) == pytest.approx(64, rel=0.05)


def test_digits_tokens() -> None:
    pytest.importorskip("sklearn")
    X, y = Dt.digits_tokens(np.random.default_rng(0), 10, "rows")
    assert X.shape == (10, 8, 8) and np.all(np.abs(y) == 1)
    Xp, _ = Dt.digits_tokens(np.random.default_rng(0), 10, "patches")
    assert Xp.shape == (10, 16, 4)
    np.testing.assert_allclose(np.sort(Xp[0].ravel()), np.sort(X[0].ravel()))


@pytest.mark.parametrize(
    ("kw", "err"),
    [
        (dict(d=0, d_s=2, d_m=3), ValueError),
        (dict(d=2, d_s=2, d_m=3, tau0_power=0.7), ValueError),
        (dict(d=2, d_s=2, d_m=3, init="xavier"), ValueError),
        (dict(d=2, d_s=2, d_m=3, loss_norm="max"), ValueError),
        (dict(d=2.5, d_s=2, d_m=3), TypeError),
        (dict(d=2, d_s=2, d_m=3, tau0_mult=-1.0), ValueError),
    ],
)
def test_bad_config_raises(kw: dict, err: type) -> None:
    with pytest.raises(err):
        M.Config(**kw)


def test_bad_inputs_raise() -> None:
    cfg = M.Config(d=3, d_s=2, d_m=4)
    with pytest.raises(ValueError, match="X"):
        M.check_inputs(cfg, np.zeros((5, 3, 3)))
    with pytest.raises(ValueError, match="finite"):
        M.check_inputs(cfg, np.full((5, 2, 3), np.nan))
    with pytest.raises(ValueError, match="y"):
        M.check_inputs(cfg, np.zeros((5, 2, 3)), np.zeros(4))
    with pytest.raises(ValueError, match="method"):
        M.ntk(cfg, M.init_params(cfg, np.random.default_rng(0)), np.zeros((1, 2, 3)), method="autodiff")
    with pytest.raises(ValueError, match="regime"):
        Dt.gaussian_tokens(np.random.default_rng(0), 2, 2, 2, "weird")
