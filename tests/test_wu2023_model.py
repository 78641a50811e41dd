"""Reference model of Wu et al. 2023: hand gradients vs finite differences, NTK two ways, invariances,
data generators and input validation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.numerics.gradcheck import GradReport, assert_grad_ok, check_grad
from verify.numerics.model import Model
from verify.wu2023 import data as Dt
from verify.wu2023 import experiments as E
from verify.wu2023 import model as M

INITS = ("lecun", "he", "ntk")


def _setup(
    seed: int, init: str, p: float, *, N: int = 4, d: int = 6, d_s: int = 5, d_m: int = 40, **kw: object
) -> tuple[M.ShallowTransformer, M.Params, Dt.Batch]:
    """A model with tau0 = d_m^-p, weights of ``init`` and standard-normal tokens (redrawn, up to 50
    times, until every ReLU pre-activation is 1e-4 away from the kink), +-1 labels."""
    rng = np.random.default_rng(seed)
    model = M.ShallowTransformer(d=d, d_s=d_s, d_m=d_m, tau0_power=p, init=init, **kw)
    for _ in range(50):
        X = rng.standard_normal((N, d_s, d))
        th = model.init_params(rng)
        if np.min(np.abs(model.forward(th, Dt.Batch(X, np.zeros(N))).A)) > 1e-4:
            break
    y = rng.choice([-1.0, 1.0], N)
    return model, th, Dt.Batch(X, y)


def _check_grad(
    model: M.ShallowTransformer, th: M.Params, batch: Dt.Batch, g: M.Params, **kw: object
) -> GradReport:
    """``check_grad`` of the model's loss at ``th`` (blocks as a dict) against the analytic ``g``."""
    return check_grad(lambda q: model.loss(M.Params.from_blocks(q), batch), th.blocks(), g.blocks(), **kw)


@pytest.mark.parametrize("init", INITS)
@pytest.mark.parametrize("p", [0.5, 1.0])
@pytest.mark.parametrize("loss_norm", ["sum", "mean"])
def test_gradients_match_finite_differences(init: str, p: float, loss_norm: str) -> None:
    model, th, batch = _setup(1, init, p, loss_norm=loss_norm)
    _, g = model.loss_and_grad(th, batch)
    assert isinstance(g, M.Params)
    assert_grad_ok(_check_grad(model, th, batch, g, mode="full", rtol=1e-6, atol=1e-8))


@pytest.mark.parametrize("flags", [dict(use_WH=True), dict(pooling=True), dict(ntk_input_scale=True)])
def test_gradients_with_options(flags: dict) -> None:
    model, th, batch = _setup(2, "ntk", 0.5, **flags)
    _, g = model.loss_and_grad(th, batch)
    assert_grad_ok(_check_grad(model, th, batch, g, mode="full", rtol=1e-6, atol=1e-8))
    if flags.get("pooling"):
        assert np.all(g.W_Q == 0) and np.all(g.W_K == 0)


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
    model, th, batch = _setup(seed, init, p, N=N, d=d, d_s=d_s, d_m=d_m)
    if np.min(np.abs(model.forward(th, batch).A)) <= 1e-4:
        return  # too close to the kink for finite differences
    _, g = model.loss_and_grad(th, batch)
    assert_grad_ok(_check_grad(model, th, batch, g, mode="directional", rtol=1e-5, atol=1e-8, seed=seed))


@pytest.mark.parametrize("init", INITS)
@pytest.mark.parametrize("p", [0.5, 1.0])
def test_jacobian_rows_are_per_example_gradients(init: str, p: float) -> None:
    model, th, batch = _setup(3, init, p)
    J = model.jacobian(th, batch)
    for n in range(batch.N):
        # the loss gradient with residual e_n (sum loss, y = f - e_n) is row n of J
        f = model.forward(th, batch).f
        y = f.copy()
        y[n] -= 1.0
        _, g = model.loss_and_grad(th, Dt.Batch(batch.X, y))
        np.testing.assert_allclose(J[n], g.flat(), rtol=1e-12, atol=1e-14)


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
    model, th, batch = _setup(seed, init, p, N=N, d=d, d_s=d_s, d_m=d_m)
    K1, K2 = model.ntk(th, batch, "contract"), model.ntk(th, batch, "jacobian")
    np.testing.assert_allclose(K1, K2, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(K2).max()))
    np.testing.assert_allclose(K1, K1.T, rtol=1e-12, atol=1e-14 * max(1.0, np.abs(K1).max()))


def test_ntk_blocks_sum_and_output_block() -> None:
    model, th, batch = _setup(4, "lecun", 0.5)
    Kb = model.ntk_blocks(th, batch)
    h = model.features(th, batch)
    np.testing.assert_allclose(Kb["w_O"], model.tau1**2 * h @ h.T, rtol=1e-13)
    jb = model.jacobian_blocks(th, batch)
    for b in M.BLOCKS:
        Jb = jb[b].reshape(batch.N, -1)
        np.testing.assert_allclose(Kb[b], Jb @ Jb.T, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("init", INITS)
def test_feature_jacobian_matches_finite_differences(init: str) -> None:
    """Row (n, m) of ``feature_jacobian`` (what the wu2023.lipschitz search measures) is the gradient of
    F_pre[n, m] in (W_Q, W_K, W_V): central differences of the features; ``params_from_flat`` inverts
    ``Params.flat``."""
    model, th, batch = _setup(7, init, 0.5, N=2, d=3, d_s=3, d_m=4)
    flat = th.flat()
    assert np.array_equal(E.params_from_flat(flat, model.d, model.d_m).flat(), flat)
    J = E.feature_jacobian(model, th, batch)
    eps = 1e-6
    num = np.empty_like(J)
    for i in range(J.shape[1]):
        step = np.zeros_like(flat)
        step[i] = eps
        Fp, Fm = (
            model.features(E.params_from_flat(flat + s, model.d, model.d_m), batch) for s in (step, -step)
        )
        num[:, i] = ((Fp - Fm) / (2 * eps)).ravel()
    np.testing.assert_allclose(J, num, rtol=1e-6, atol=1e-8)


@given(seed=st.integers(0, 10_000), p=st.sampled_from([0.5, 1.0]))
def test_permuting_examples_leaves_the_loss_trajectory_unchanged(seed: int, p: float) -> None:
    s = E.make_setup(seed, 0, N=6, d=8, d_s=3, d_m=16, tau0_power=p, regime="active")
    perm = np.random.default_rng(seed).permutation(6)
    sp = E.Setup(s.model, Dt.Batch(s.batch.X[perm], s.batch.y[perm]), s.theta0)
    g = 1.0 / E.lam_max(s.model, s.theta0, s.batch)
    a, b = E.run_gd(s, g, 20).loss, E.run_gd(sp, g, 20).loss
    np.testing.assert_allclose(a, b, rtol=1e-10)


@given(seed=st.integers(0, 10_000), init=st.sampled_from(INITS), p=st.sampled_from([0.5, 1.0]))
def test_permuting_tokens_leaves_f_unchanged(seed: int, init: str, p: float) -> None:
    model, th, batch = _setup(seed, init, p)
    perm = np.random.default_rng(seed + 1).permutation(model.d_s)
    np.testing.assert_allclose(
        model.forward(th, batch).f,
        model.forward(th, Dt.Batch(batch.X[:, perm], batch.y)).f,
        rtol=1e-11,
        atol=1e-13,
    )


@given(seed=st.integers(0, 10_000), c=st.floats(0.1, 10.0), p=st.sampled_from([0.5, 1.0]))
def test_rescaling_tau0_against_W_Q_leaves_f_unchanged(seed: int, c: float, p: float) -> None:
    model, th, batch = _setup(seed, "lecun", p)
    th2 = th.replace(W_Q=th.W_Q / c)
    f1 = model.forward(th, batch).f
    f2 = model.with_(tau0_mult=c).forward(th2, batch).f
    np.testing.assert_allclose(f1, f2, rtol=1e-10, atol=1e-13)


def test_identity_W_H_changes_nothing() -> None:
    model, th, batch = _setup(5, "he", 0.5)
    (la, ga), (lb, gb) = model.loss_and_grad(th, batch), model.with_(use_WH=True).loss_and_grad(th, batch)
    assert la == pytest.approx(lb, rel=1e-14)
    for k in M.BLOCKS:
        np.testing.assert_allclose(getattr(ga, k), getattr(gb, k), rtol=1e-13, atol=1e-16)


def test_mean_loss_is_sum_loss_over_N() -> None:
    model, th, batch = _setup(6, "lecun", 1.0)
    ls, gs = model.loss_and_grad(th, batch)
    lm, gm = model.with_(loss_norm="mean").loss_and_grad(th, batch)
    assert lm == pytest.approx(ls / batch.N, rel=1e-14)
    np.testing.assert_allclose(gm.W_V, gs.W_V / batch.N, rtol=1e-13)


def test_seeds_are_bit_identical() -> None:
    a = E.make_setup(3, 1, N=5, d=8, d_s=3, d_m=16)
    b = E.make_setup(3, 1, N=5, d=8, d_s=3, d_m=16)
    assert np.array_equal(a.batch.X, b.batch.X) and np.array_equal(a.batch.y, b.batch.y)
    assert all(np.array_equal(getattr(a.theta0, k), getattr(b.theta0, k)) for k in M.BLOCKS)


def test_init_variances_are_respected() -> None:
    rng = np.random.default_rng(0)
    for init, var_v, var_o in (("lecun", 1 / 64, 1 / 2048), ("he", 2 / 64, 2 / 2048), ("ntk", 1, 1)):
        th = M.ShallowTransformer(d=64, d_s=2, d_m=2048, init=init).init_params(rng)
        assert th.W_V.var() == pytest.approx(var_v, rel=0.03)
        assert th.w_O.var() == pytest.approx(var_o, rel=0.1)


def test_data_generators() -> None:
    rng = np.random.default_rng(0)
    batch = Dt.gaussian_data(rng, 50, 4, 64, "paper")
    X, y = batch.X, batch.y
    assert X.shape == (50, 4, 64) and set(np.unique(y)) <= {-1.0, 1.0}
    assert np.mean(np.linalg.norm(X, axis=-1)) == pytest.approx(1.0, rel=0.05)
    Xa = Dt.gaussian_tokens(rng, 50, 4, 64, "active")
    assert np.mean(np.sum(Xa**2, axis=-1)) == pytest.approx(64, rel=0.05)


def test_digits_tokens() -> None:
    pytest.importorskip("sklearn")
    rows = Dt.digits_tokens(np.random.default_rng(0), 10, "rows")
    assert rows.X.shape == (10, 8, 8) and np.all(np.abs(rows.y) == 1)
    Xp = Dt.digits_tokens(np.random.default_rng(0), 10, "patches").X
    assert Xp.shape == (10, 16, 4)
    np.testing.assert_allclose(np.sort(Xp[0].ravel()), np.sort(rows.X[0].ravel()))
    X4 = Dt.digits_tokens(np.random.default_rng(0), 10, "patches4").X
    assert X4.shape == (10, 4, 16)
    np.testing.assert_array_equal(X4[:, 0, :4], rows.X[:, 0, :4])  # patch 0 starts with row 0's left half
    np.testing.assert_array_equal(X4[:, 3, -4:], rows.X[:, 7, 4:])  # patch 3 ends with row 7's right half


def test_tail_constant() -> None:
    """c = min_k ln(2n / (n - k + 1)) / u_(k)^p: one value u gives ln 2 / u^p; the bound 2 exp(-c t^p)
    holds at every sample point of the empirical tail and is attained at one; values <= 0 never bind."""
    assert E.tail_constant(np.array([0.5])) == pytest.approx(2 * np.log(2))
    assert E.tail_constant(np.array([0.5]), 2.0) == pytest.approx(4 * np.log(2))
    u = np.random.default_rng(0).uniform(0, 1, 500)
    c = E.tail_constant(u)
    tail = np.array([np.mean(u >= t) for t in np.sort(u)])
    ratio = tail / (2 * np.exp(-c * np.sort(u)))
    assert ratio.max() == pytest.approx(1.0) and np.all(ratio <= 1 + 1e-12)
    assert E.tail_constant(np.concatenate([u, -u])) > c  # the same positive tail, half as likely
    assert E.tail_constant(np.zeros(3)) == np.inf
    with pytest.raises(ValueError, match="at least one"):
        E.tail_constant(np.array([]))


def test_model_follows_the_protocol() -> None:
    """ShallowTransformer is a Model over Params: grads of the params' type, the same loss from
    ``loss`` and ``loss_and_grad``, a caller-supplied forward cache changes nothing, and the GD loop
    returns the container it was given."""
    model, th, batch = _setup(7, "lecun", 0.5)
    assert isinstance(model, Model)
    L, g = model.loss_and_grad(th, batch)
    Lc, gc = model.loss_and_grad(th, batch, cache=model.forward(th, batch))
    assert isinstance(g, M.Params) and L == Lc == model.loss(th, batch)
    for k in M.BLOCKS:
        np.testing.assert_array_equal(getattr(g, k), getattr(gc, k))
    s = E.Setup(model, batch, th)
    assert isinstance(E.run_gd(s, E.inverse_lam_max_step(s), 3).params, M.Params)


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
        M.ShallowTransformer(**kw)


def test_bad_inputs_raise() -> None:
    model = M.ShallowTransformer(d=3, d_s=2, d_m=4)
    with pytest.raises(ValueError, match="X"):
        model.check_inputs(Dt.Batch(np.zeros((5, 3, 3)), np.zeros(5)))
    with pytest.raises(ValueError, match="finite"):
        Dt.Batch(np.full((5, 2, 3), np.nan), np.zeros(5))
    with pytest.raises(ValueError, match="y"):
        Dt.Batch(np.zeros((5, 2, 3)), np.zeros(4))
    with pytest.raises(ValueError, match="method"):
        model.ntk(
            model.init_params(np.random.default_rng(0)),
            Dt.Batch(np.zeros((1, 2, 3)), np.zeros(1)),
            method="autodiff",
        )
    with pytest.raises(ValueError, match="regime"):
        Dt.gaussian_tokens(np.random.default_rng(0), 2, 2, 2, "weird")


def test_label_scale_scales_only_the_labels() -> None:
    """label_scale = 1 gives the same bits as before it existed; 0.01 scales y and nothing else."""
    a = E.make_setup(3, 0, N=4, d=8, d_s=2, d_m=16)
    b = E.make_setup(3, 0, N=4, d=8, d_s=2, d_m=16, label_scale=1.0)
    c = E.make_setup(3, 0, N=4, d=8, d_s=2, d_m=16, label_scale=0.01)
    assert np.array_equal(a.batch.y, b.batch.y) and np.array_equal(a.batch.X, c.batch.X)
    assert np.array_equal(c.batch.y, 0.01 * a.batch.y)
    assert np.array_equal(a.theta0.flat(), c.theta0.flat())


def test_fig9_runs_record_what_the_figure_shows(monkeypatch) -> None:
    """Loss relative to l_0 at every step, one weight movement per step (gamma |grad| / |theta_0|), the
    NTK drift at the checkpoints (0 at t = 0) and the late / early NTK change; bit-identical reruns (the
    process cache emptied in between)."""
    p = E.Fig9Point(
        seed=1, key=0, N=4, d=8, d_s=2, d_m=32, steps=60, step_factor=1.0, checkpoints=(0, 20, 60)
    )
    (r,) = E.fig9_runs([p])
    assert len(r["loss"]) == 61 and len(r["move"]) == 60 and len(r["ntk"]) == 3 and len(r["late"]) == 1
    assert r["ntk"][0] == 0.0 and r["loss"][0] == 1.0 and r["loss"][-1] < 1e-3
    monkeypatch.setattr(E.fig9, "RUNS", {})
    assert E.fig9_runs([p]) == [r]
    assert E.fig9_runs([E.Fig9Point(**{**p.__dict__, "checkpoints": (0,)})])[0]["late"] == []


def test_a_batch_of_runs_is_each_run_alone(monkeypatch) -> None:
    """run_gd_batched: every run's iterates and loss ratio are those of run_gd on its own set-up, bit for
    bit (its step folded into the gradient); fig9_runs: a batch of seeds gives each seed
    the record of its batch of one, bit for bit (the process cache emptied in between)."""
    setups = [E.make_setup(s, 0, N=6, d=8, d_s=3, d_m=32, tau0_power=1.0) for s in range(3)]
    gammas = [E.inverse_lam_max_step(s) for s in setups]
    batched = E.run_gd_batched(setups, gammas, 30)
    for s, g, tr in zip(setups, gammas, batched, strict=True):
        one = E.run_gd(s, g, 30)
        assert all(np.array_equal(one.params.blocks()[b], tr.params[b]) for b in M.BLOCKS)
        assert np.array_equal(one.loss / one.loss[0], tr.loss)
        np.testing.assert_allclose(tr.grad_norm, g * one.grad_norm, rtol=1e-14)
    kw = dict(key=0, N=5, d=8, d_s=3, d_m=32, steps=20, step_factor=1.0, checkpoints=(0, 10, 20))
    pts = [E.Fig9Point(seed=s, **kw) for s in range(4)]
    monkeypatch.setattr(E.fig9, "RUNS", {})
    together = E.fig9_runs(pts)
    monkeypatch.setattr(E.fig9, "RUNS", {})
    assert [E.fig9_runs([p])[0] for p in pts] == together
    with pytest.raises(ValueError, match="one model configuration"):
        E.stack_setups([setups[0], E.make_setup(0, 0, N=6, d=8, d_s=3, d_m=16)])


def test_batch_shapes() -> None:
    b = Dt.Batch.stack([Dt.gaussian_data(np.random.default_rng(s), 5, 3, 4) for s in range(2)])
    assert b.X.shape == (2, 5, 3, 4) and b.y.shape == (2, 5) and b.N == 5
    with pytest.raises(ValueError, match="S, N, d_s, d"):
        Dt.Batch(np.zeros((1, 2, 5, 3, 4)), np.zeros((1, 2, 5)))
    with pytest.raises(ValueError):
        Dt.Batch(np.zeros((2, 5, 3, 4)), np.zeros(5))
