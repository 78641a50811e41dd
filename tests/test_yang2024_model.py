"""Unit tests of the yang2024 reference model and data: hand gradients, invariances, closed form,
noise model, bad inputs. Property-based over (K, N, m, d, H, tau, beta) with hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bounds import yang2024 as B
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


def _plain_loss_grad(
    th: M.Params, p: D.Problem, excess: bool
) -> tuple[float, M.Params, np.ndarray, M.Params]:
    """The loss, both gradients and S straight from the formulas (no restructuring, einsum only): the
    oracle the hot path is pinned to. S = softmax_n(V^T Q_h V_all) with the max shift, R = sum_h w_h S_h
    - A, L = 1/2 tr(R^T G R) (+ L*), dL/dw = sum_n S GR, dL/dQ_h = V [w (diag(s) - s s^T) GR] V_all^T.
    Also the gradients' term magnitudes (the same sums over absolute values): the scale of the round-off
    where the terms cancel (a saturated softmax makes dL/dQ cancel to round-off)."""
    S = softmax(np.einsum("dn,hde,ek->hnk", p.V, th.Q, p.V_all, optimize=True), axis=1)
    R = np.einsum("hnk,hk->nk", S, th.w) - p.A
    GR = p.G @ R
    value = 0.5 * float(np.sum(R * GR)) + (0.0 if excess else p.Lstar)
    gw = np.einsum("hnk,nk->hk", S, GR)
    jac_gr = S * GR[None] - S * gw[:, None, :]  # (diag(s) - s s^T) GR_k
    gQ = np.einsum("dn,hnk,hk,ek->hde", p.V, jac_gr, th.w, p.V_all, optimize=True)
    terms = S * (np.abs(GR)[None] + np.abs(gw)[:, None, :])
    scale = M.Params(
        Q=np.einsum("dn,hnk,hk,ek->hde", abs(p.V), terms, abs(th.w), abs(p.V_all), optimize=True),
        w=np.einsum("hnk,nk->hk", S, np.abs(GR)),
    )
    return value, M.Params(gQ, gw), S, scale


def _rel(a: np.ndarray, b: np.ndarray, scale: np.ndarray | None = None) -> float:
    """||a - b|| / ||scale|| (default scale: b)."""
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b if scale is None else scale), 1e-300))


@given(
    instances(), st.booleans(), st.sampled_from([1.0, 30.0, 300.0]), st.sampled_from([1.0, 1e-29, 0.0, 1e-40])
)
def test_hot_path_matches_the_plain_formulas(inst: tuple, excess: bool, scale: float, w0: float) -> None:
    """loss_grad_attention (unnormalised softmax folded into w / z, shift-free exponentials when the
    scores are bounded, S w kept instead of exp(U) when no |w| is below W_SCALED, work buffers) equals
    the direct formulas to 1e-12 relative, with Q scaled so that both the shift-free and the max-shifted
    path run (scale 300: scores far beyond SHIFT_FREE), and w_00 scaled so that both the scaled route
    (w_00 down to 1e-29 of its draw) and the unscaled one (a zero or 1e-40 weight) run. Gradients relative
    to their term magnitudes: with a saturated softmax dL/dQ itself is round-off."""
    p, th, _ = inst
    w = th.w.copy()
    w[0, 0] *= w0
    th = th.replace(Q=scale * th.Q, w=w)
    value, g, S = M.Transformer(th.Q.shape[0], excess=excess).loss_grad_attention(th, p)
    ref_value, ref_g, ref_S, terms = _plain_loss_grad(th, p, excess)
    assert value == pytest.approx(ref_value, rel=1e-12, abs=1e-12 * abs(p.Lstar))
    assert _rel(g.Q, ref_g.Q, terms.Q) <= 1e-12 and _rel(g.w, ref_g.w, terms.w) <= 1e-12
    assert _rel(S, ref_S) <= 1e-12


def test_hot_path_at_the_paper_size_both_shift_paths_and_routes() -> None:
    """At the benchmark configuration (K=200, N=30, d=100, H=64) the shift-free path runs at beta = 1 and
    the max shift at beta = 60, the scaled route (S w kept) with w ~ N(0, 0.09) and the unscaled one
    with a zero weight column (w = 0 is the start of GD); all four match the plain formulas to 1e-12
    relative, a repeated call gives the same bits, and the returned arrays are not the work buffers (a
    call at other parameters leaves the first results unchanged)."""
    rng = np.random.default_rng(0)
    p = D.make_problem(rng=rng, **D.PAPER)
    model = M.Transformer(64)
    th = model.init(p, 1.0, rng).replace(w=0.3 * rng.standard_normal((64, p.K)))
    w_zero = th.w.copy()
    w_zero[:, 7] = 0.0
    for beta, bounded in ((1.0, True), (60.0, False)):
        for w, scaled in ((th.w, True), (w_zero, False)):
            thb = th.replace(Q=beta * th.Q, w=w)
            P = np.matmul(p.VT, thb.Q).reshape(64, -1)
            assert M._scores_bounded(P, M._max_token_norm(p.V_all)) is bounded
            assert bool(np.min(np.abs(w)) >= M.W_SCALED) is scaled
            value, g, S = model.loss_grad_attention(thb, p)
            keep = (g.Q.copy(), g.w.copy(), S.copy())
            ref_value, ref_g, ref_S, _ = _plain_loss_grad(thb, p, excess=False)
            assert value == pytest.approx(ref_value, rel=1e-12)
            assert _rel(g.Q, ref_g.Q) <= 1e-12 and _rel(g.w, ref_g.w) <= 1e-12 and _rel(S, ref_S) <= 1e-12
            again = model.loss_grad_attention(thb, p)
            assert again[0] == value
            for a, b in zip((again[1].Q, again[1].w, again[2]), keep, strict=True):
                np.testing.assert_array_equal(a, b)
            model.loss_and_grad(th.replace(Q=-th.Q), p)
            for a, b in zip((g.Q, g.w, S), keep, strict=True):
                np.testing.assert_array_equal(a, b)


def test_score_bound_refuses_non_finite_and_degenerate_inputs() -> None:
    P = np.ones((2, 3))
    assert M._scores_bounded(P, 1.0) and not M._scores_bounded(P, 1e3)
    assert not M._scores_bounded(np.full((2, 3), np.nan), 1.0)
    assert M._scores_bounded(P, 0.0)  # zero tokens: every score is 0


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
    E.clear_runs()
    r3 = E.run_gd(0, cfg, 6, steps=50)
    assert np.array_equal(r1.traj.loss, r3.traj.loss)
    assert not r3.traj.loss.flags.writeable


def test_stable_losses_are_the_stable_runs_losses_sliced_or_continued() -> None:
    """The loss curves heads.stall reads: each seed's stable run's, whether computed in one batched GD
    over the seeds, cut from a longer completed run of the same start, or continued from a shorter one
    (the same iterates bit for bit in every case, against each seed's unbatched run)."""
    cfg, seeds = D.Config.named("small"), [1, 2, 3]
    E.clear_runs()
    want = {(s, T): E.stable_run(s, cfg, 5, T).traj.loss for s in seeds for T in (60, 120, 240)}
    gammas = {s: E.stable_run(s, cfg, 5, 60).gamma for s in seeds}
    E.clear_runs()
    E.stable_losses([2], cfg, 5, 60)  # seed 2 continues from 60 steps below, the others start at 0
    for T in (120, 60, 240):  # computed, then cut from the 120-step runs, then continued from them
        got = E.stable_losses(seeds, cfg, 5, T)
        for s, g in zip(seeds, got, strict=True):
            assert not g.diverged and g.gamma == gammas[s]
            assert np.array_equal(g.loss, want[s, T]) and len(g.loss) == T + 1
    assert all(len(E.fig4.batched_runs(s, cfg, 5, gammas[s])) >= 2 for s in seeds)  # kept by length
    E.clear_runs()


def test_batched_loss_and_gradients_are_each_runs_bit_for_bit() -> None:
    """Transformer.loss_grad_batched over S problems: each slice is loss_and_grad on its own problem, to
    the bit, on the batched route (scaled weights, bounded scores) and on the per-run route (w = 0)."""
    cfg = D.Config.named("small")
    problems = [E.problem_for(s, cfg) for s in range(3)]
    batch, model, rng = M.ProblemBatch(tuple(problems)), M.Transformer(5), np.random.default_rng(0)
    for w_scale in (1.0, 0.0):
        Q = 0.5 * rng.standard_normal((3, 5, cfg.d, cfg.d))
        w = w_scale * rng.standard_normal((3, 5, cfg.K))
        values, gQ, gw = model.loss_grad_batched(Q, w, batch)
        for s, p in enumerate(problems):
            v, g = model.loss_and_grad(M.Params(Q[s], w[s]), p)
            assert v == values[s] and np.array_equal(g.Q, gQ[s]) and np.array_equal(g.w, gw[s])
    with pytest.raises(ValueError, match="one shape"):
        M.ProblemBatch((problems[0], E.problem_for(0, D.Config.named("paper"))))


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


# ------------------------------------------------------------ experiment helpers (issue 11 claims)


@given(instances())
def test_fixed_Q_floor_is_the_minimum_over_w(inst: tuple) -> None:
    """floor(Q) = min_w Delta(Q, w): at most Delta at any w, reached by the least-squares w, and 0 to
    round-off when H >= N (rank C_k = N)."""
    p, th, _ = inst
    H = th.Q.shape[0]
    model = M.Transformer(H)
    floor = E.fixed_Q_floor(th.Q, p)
    assert 0.0 <= floor <= model.excess_loss(th, p) * (1 + 1e-9) + 1e-12
    C = model.C_matrices(th, p)  # (K, N, H)
    Bm = np.matmul(p.Zbar, C)
    w = np.einsum("khn,nk->hk", np.linalg.pinv(Bm), p.Zbar @ p.A)
    assert model.excess_loss(M.Params(th.Q, w), p) == pytest.approx(floor, rel=1e-7, abs=1e-10)
    if H >= p.N and np.min(np.linalg.svd(C, compute_uv=False)[:, p.N - 1]) > 1e-6:
        assert floor <= 1e-12 * max(model.excess_loss(th.replace(w=0 * th.w), p), 1.0)


def test_fixed_Q_floor_positive_below_N() -> None:
    p = E.problem_for(0, D.Config.named("small"))
    Q = E.init_for(0, p, p.N - 1, 1.0).Q
    assert E.fixed_Q_floor(Q, p) > 1e-3


def test_hessian_lmax_matches_the_dense_hessian() -> None:
    """The Lanczos value equals lambda_max of the dense Hessian in (Q, alpha = w / gamma) coordinates."""
    rng = np.random.default_rng(11)
    p = D.make_problem(6, 3, 2, 2, 0.2, rng)
    model = M.Transformer(2, excess=True)
    th = model.init(p, 1.0, rng)
    th = th.replace(w=rng.standard_normal(th.w.shape))
    gamma, h = 3.0, 1e-5
    nQ = th.Q.size

    def grad(x: np.ndarray) -> np.ndarray:
        g = model.loss_and_grad(M.Params(x[:nQ].reshape(th.Q.shape), gamma * x[nQ:].reshape(th.w.shape)), p)[
            1
        ]
        return np.concatenate([g.Q.ravel(), gamma * g.w.ravel()])

    x0 = np.concatenate([th.Q.ravel(), th.w.ravel() / gamma])
    eye = np.eye(x0.size)
    Hd = np.array([(grad(x0 + h * e) - grad(x0 - h * e)) / (2 * h) for e in eye])
    lam = float(np.linalg.eigvalsh((Hd + Hd.T) / 2)[-1])
    assert E.hessian_lmax(th, p, gamma) == pytest.approx(lam, rel=1e-5)


def test_fig3_gap_matches_monte_carlo() -> None:
    """bounds.fig3_gap (the expected gap over lambda ~ N(0, I) and the label noise) against its Monte
    Carlo (what the old single-draw fig3 claim checked): within 4 standard errors."""
    rng = np.random.default_rng(12)
    m, K, tau = 8, 30, 0.05
    for N in (5, 12):
        Zt = rng.standard_normal((m, K))
        Z, Z_Q = Zt[:, :N], Zt[:, N:]
        lam = rng.standard_normal((100_000, m))
        y = lam @ Z + np.sqrt(tau) * np.linalg.norm(lam, axis=1, keepdims=True) * rng.standard_normal(
            (100_000, N)
        )
        diff = (B.transformer_ridge(Z, y, tau) - B.best_ridge(Z, y, tau)) @ Z_Q
        g = np.sum(diff * diff, axis=1) / K
        assert abs(g.mean() - B.fig3_gap(Z, Z_Q, tau)) <= 4 * g.std(ddof=1) / np.sqrt(g.size)


def test_fig3_draws_are_nested_and_cached() -> None:
    a = E.fig3_draws(0, 20, 5, 0.1, (3, 5, 8), 4)
    assert a is E.fig3_draws(0, 20, 5, 0.1, (3, 5, 8), 4)
    assert not a.gap.flags.writeable and a.gap.shape == (4, 3)
    rng = np.random.default_rng([0, 20])  # ctx.rng(20) at seed 0: the same Z-tilde for every N
    Zt = rng.standard_normal((5, 20))
    for j, N in enumerate((3, 5, 8)):
        assert a.gap[0, j] == B.fig3_gap(Zt[:, :N], Zt[:, N:], 0.1)
        assert a.err_best[0, j] == B.expected_error(Zt[:, :N], Zt[:, N:], 0.1, N * 0.1)
    assert a.gap[0, 1] == 0.0  # N = m


def test_paired_steps() -> None:
    v = np.array([[1.0, 2.0, 4.0], [1.0, 3.0, 4.0]])
    out = E.paired_steps(v, [0, 1, 2], 2.0)
    assert [(a, b) for a, b, _, _ in out] == [(0, 1), (1, 2)]
    assert out[0][2] == pytest.approx(1.5) and out[1][2] == pytest.approx(1.5)
    assert out[0][3] == pytest.approx(2.0 * np.std([1.0, 2.0], ddof=1) / np.sqrt(2))


def test_sample_labels_first_tokens_only() -> None:
    p = E.problem_for(0, D.Config.named("small"))
    lam = D.sample_tasks(5, p.m, np.random.default_rng(1))
    full = D.sample_labels(p, lam, np.random.default_rng(2), "scalar")
    assert full.shape == (5, p.K)
    part = D.sample_labels(p, lam, np.random.default_rng(2), "representation", tokens=p.N)
    assert part.shape == (5, p.N)
    with pytest.raises(ValueError, match="tokens"):
        D.sample_labels(p, lam, np.random.default_rng(2), tokens=p.K + 1)


def test_run_gd_step_factor_and_stop() -> None:
    cfg = D.Config.named("small")
    full = E.run_gd(0, cfg, 12, steps=20)
    half = E.run_gd(0, cfg, 12, steps=20, step_factor=0.5)
    assert half.eta_Q == pytest.approx(0.5 * full.eta_Q, rel=1e-15)
    stop = E.run_gd(1, cfg, 48, steps=5000, stop_below=1e-2)
    assert stop.traj.loss[-1] < 1e-2 <= stop.traj.loss[-2] and len(stop.traj.loss) < 5001


def test_run_gd_records_norms_only_for_tracked_runs() -> None:
    """Plain runs skip the per-step gradient norms and drift (no claim reads them); tracked runs keep
    them (thm1 notes the Q drift). The loss trajectory does not depend on it (tests/test_numerics.py)."""
    cfg = D.Config.named("small")
    plain = E.run_gd(0, cfg, 6, steps=30)
    tracked = E.run_gd(0, cfg, 6, steps=30, track_B=True)
    assert plain.traj.grad_norm.size == plain.traj.drift.size == 0
    assert tracked.traj.drift_blocks["Q"].size == tracked.traj.loss.size == 31
    np.testing.assert_array_equal(plain.traj.loss, tracked.traj.loss)


def test_hot_path_work_buffers_are_per_thread() -> None:
    """Threads evaluating different models at once get the results of a sequential evaluation (the work
    buffers are thread-local)."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(3)
    p = D.make_problem(rng=rng, **D.SMALL)
    thetas = [E.random_theta(p, H, rng) for H in (3, 7, 12, 20)] * 8
    seq = [M.Transformer(th.Q.shape[0]).loss_and_grad(th, p) for th in thetas]
    with ThreadPoolExecutor(4) as pool:
        par = list(pool.map(lambda th: M.Transformer(th.Q.shape[0]).loss_and_grad(th, p), thetas))
    for (a, ga), (b, gb) in zip(seq, par, strict=True):
        assert a == b
        np.testing.assert_array_equal(ga.Q, gb.Q)
        np.testing.assert_array_equal(ga.w, gb.w)


def test_adam_in_place_update_is_bit_identical_to_the_textbook_form() -> None:
    rng = np.random.default_rng(3)
    p = D.make_problem(rng=rng, **D.SMALL)
    model = M.Transformer(4)
    th0 = model.init(p, 1.0, rng)
    lr, steps, (b1, b2), eps = 1e-2, 25, (0.9, 0.999), 1e-8
    th = {k: v.copy() for k, v in th0.blocks().items()}
    m1 = {k: np.zeros_like(v) for k, v in th.items()}
    m2 = {k: np.zeros_like(v) for k, v in th.items()}
    for t in range(steps):
        g = model.loss_and_grad(M.Params.from_blocks(th), p)[1].blocks()
        for k in th:
            m1[k] = b1 * m1[k] + (1 - b1) * g[k]
            m2[k] = b2 * m2[k] + (1 - b2) * g[k] ** 2
            th[k] -= lr * (m1[k] / (1 - b1 ** (t + 1))) / (np.sqrt(m2[k] / (1 - b2 ** (t + 1))) + eps)
    out = E.adam(th0, lambda t: model.loss_and_grad(t, p), lr, steps)[0].blocks()
    for k in th:
        np.testing.assert_array_equal(out[k], th[k])
