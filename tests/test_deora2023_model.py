"""Unit tests of the deora2023 reference model: hand derivatives against finite differences
(property-based over T, d, H, n and scales), Hessian structure, invariances, data, bad input."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verify.deora2023 import data as D
from verify.deora2023 import experiments as E
from verify.deora2023 import model as M
from verify.numerics.gradcheck import assert_grad_ok, check_adjoint, check_grad, check_hvp
from verify.numerics.model import Model

sizes = dict(
    H=st.integers(1, 4), T=st.integers(2, 5), d=st.integers(2, 4), n=st.integers(1, 5),
    s=st.sampled_from([0.1, 1.0, 3.0]), xs=st.sampled_from([0.5, 1.0, 2.0]), seed=st.integers(0, 2**31),
)  # fmt: skip


def _case(H: int, T: int, d: int, n: int, s: float, xs: float, seed: int):
    rng = np.random.default_rng(seed)
    params = {"U": s * rng.standard_normal((H, T, d)), "W": s * rng.standard_normal((H, d, d))}
    X = D.random_tokens(rng, n, T, d, xs)
    y = rng.choice(np.array([-1.0, 1.0]), size=n)
    return params, X, y


@given(**sizes)
def test_phi_and_loss_gradients(H: int, T: int, d: int, n: int, s: float, xs: float, seed: int) -> None:
    params, X, y = _case(H, T, d, n, s, xs, seed)
    c = np.random.default_rng(seed + 1).standard_normal(n)
    g = M._weighted_grad(M.forward(params, X), c)
    assert_grad_ok(check_grad(lambda p: float(c @ M.phi(p, X)), params, g, rtol=1e-6, atol=1e-6))
    # the exponential loss is neither Lipschitz nor smooth: central differences of it are only reliable
    # at moderate scales (at s = 3 the eps and eps/4 differences disagree and gradcheck refuses them)
    for name in ("logistic", "exponential") if s * xs <= 1.0 else ("logistic",):
        _, gl = M.loss_and_grad(params, X, y, loss_name=name)
        f = lambda p, nm=name: M.loss(p, X, y, loss_name=nm)  # noqa: E731
        assert_grad_ok(check_grad(f, params, gl, rtol=1e-6, atol=1e-6))  # our pass criterion 1e-6 max(1, |g|)


@given(**sizes)
def test_per_sample_grads_sum_to_weighted_grad(
    H: int, T: int, d: int, n: int, s: float, xs: float, seed: int
) -> None:
    params, X, _ = _case(H, T, d, n, s, xs, seed)
    c = np.random.default_rng(seed).standard_normal(n)
    per = M.per_sample_grads(params, X)
    tot = M._weighted_grad(M.forward(params, X), c)
    for k in ("U", "W"):
        np.testing.assert_allclose(np.tensordot(c, per[k], axes=1), tot[k], rtol=1e-12, atol=1e-13)
    F = M.features(params, X)
    np.testing.assert_allclose(np.linalg.norm(F, axis=1), M.grad_norms(params, X), rtol=1e-12)


@settings(max_examples=6)
@given(**sizes)
def test_hvps_against_finite_differences(
    H: int, T: int, d: int, n: int, s: float, xs: float, seed: int
) -> None:
    params, X, y = _case(H, T, d, n, s, xs, seed)
    c = np.random.default_rng(seed).standard_normal(n)
    assert_grad_ok(
        check_hvp(lambda p: M.loss_and_grad(p, X, y)[1], params, lambda p, v: M.loss_hvp(p, X, y, v))
    )
    assert_grad_ok(check_hvp(lambda p: M._weighted_grad(M.forward(p, X), c), params,
                             lambda p, v: M.phi_hvp(p, X, v, c)))  # fmt: skip


@settings(max_examples=6)
@given(**sizes)
def test_hessian_structure_and_assemblies(
    H: int, T: int, d: int, n: int, s: float, xs: float, seed: int
) -> None:
    params, X, y = _case(H, T, d, n, s, xs, seed)
    Hp = M.hessian_phi(params, X[0])
    nu = H * T * d
    assert np.max(np.abs(Hp[:nu, :nu])) == 0.0  # Phi is linear in U
    np.testing.assert_allclose(Hp, Hp.T, atol=1e-10 * (1 + np.abs(Hp).max()))
    head = np.concatenate([np.repeat(np.arange(H), T * d), np.repeat(np.arange(H), d * d)])
    assert np.max(np.abs(Hp[head[:, None] != head[None, :]]), initial=0.0) == 0.0
    # per-head blocks reproduce the dense Hessian; dense loss Hessian = blocks + Gauss-Newton
    blocks = M.phi_head_blocks(params, X[:1])[0]
    scale = _hessian_scale(params, X[:1])
    for h in range(H):
        idx = np.flatnonzero(head == h)
        np.testing.assert_allclose(blocks[h], Hp[np.ix_(idx, idx)], rtol=1e-12, atol=1e-13 * scale)
    a, b = M.hessian_loss(params, X, y), M.hessian_loss_hvp(params, X, y)
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12 * (1 + np.abs(b).max()))
    ev = np.linalg.eigvalsh(a)
    assert M.curvature_lambda_min(params, X, y) <= ev[0] + 1e-10 * (1 + abs(ev[0]))
    lo, nrm = M.loss_hessian_extremes(params, X, y)
    assert lo == pytest.approx(ev[0], abs=1e-12) and nrm == pytest.approx(np.abs(ev).max(), rel=1e-12)
    np.testing.assert_allclose(
        M.phi_hessian_norms(params, X[:1])[0], np.abs(np.linalg.eigvalsh(Hp)).max(), rtol=1e-9
    )


def _hessian_scale(params: dict[str, np.ndarray], X: np.ndarray) -> float:
    """R^3 (1 + R^2 max_h ||U_h||): the size of the terms whose differences make up a Hessian entry of Phi
    (covariances of tokens under the attention, R^2, times a token; weighted by the values, R ||U_h||), so
    rounding errors of two routes differ relative to it, not to the entry, which cancels to ~0 where the
    softmax saturates."""
    R = float(np.sqrt(np.max(np.sum(X * X, axis=-1))))
    u = float(np.max(np.linalg.norm(params["U"].reshape(params["U"].shape[0], -1), axis=1)))
    return R**3 * (1 + R**2 * u)


def _hvp_head_blocks(hvp: Callable[[dict], dict], H: int, T: int, d: int) -> np.ndarray:
    """Per-head blocks (..., H, q, q) by an HVP on the q directions that are the j-th unit vector of every
    head's block at once (the Hessians are block-diagonal over heads): the oracle of the closed form."""
    q = T * d + d * d
    E = np.eye(q)
    out = hvp({"U": np.tile(E[:, None, : T * d].reshape(q, 1, T, d), (1, H, 1, 1)),
               "W": np.tile(E[:, None, T * d :].reshape(q, 1, d, d), (1, H, 1, 1))})  # fmt: skip
    cols = np.concatenate(
        [out["U"].reshape(*out["U"].shape[:-2], -1), out["W"].reshape(*out["W"].shape[:-2], -1)], -1
    )
    return np.moveaxis(cols, 0, -1)  # (..., H, q(row), q(col))


@given(**sizes)
def test_closed_form_head_blocks_match_the_hvp(
    H: int, T: int, d: int, n: int, s: float, xs: float, seed: int
) -> None:
    """curvature_blocks and phi_head_blocks (closed form) equal the HVP route's columns to rounding."""
    params, X, y = _case(H, T, d, n, s, xs, seed)
    ref = _hvp_head_blocks(lambda v: M.loss_hvp(params, X, y, v, curvature_only=True), H, T, d)
    B = M.curvature_blocks(params, X, y)
    scale = _hessian_scale(params, X)
    np.testing.assert_allclose(B, ref, rtol=1e-10, atol=1e-13 * scale)
    per = M.phi_head_blocks(params, X)
    for i in range(n):
        ref = _hvp_head_blocks(lambda v, i=i: M.phi_hvp(params, X[i : i + 1], v), H, T, d)
        np.testing.assert_allclose(per[i], ref, rtol=1e-10, atol=1e-13 * scale)


@given(**{**sizes, "n": st.integers(1, 8)})
def test_structured_extremes_match_dense(
    H: int, T: int, d: int, n: int, s: float, xs: float, seed: int
) -> None:
    """The inertia bisection gives the dense eigh's lambda_min and ||.||_2 of grad^2 L to its bracket width
    (1e-14 of the spectrum's scale; 1e-12 allowed), on the conservative side beyond rounding."""
    params, X, y = _case(H, T, d, n, s, xs, seed)
    ev = np.linalg.eigvalsh(M.hessian_loss(params, X, y))
    lo, nrm = M._structured_extremes(params, X, y)
    tol = 1e-12 * max(np.abs(ev).max(), 1e-300)
    assert abs(lo - ev[0]) <= tol and abs(nrm - np.abs(ev).max()) <= tol
    assert lo <= ev[0] + 1e-14 * np.abs(ev).max() and nrm >= np.abs(ev).max() * (1 - 1e-14)


def test_lanczos_matches_dense() -> None:
    params, X, y = _case(4, 4, 3, 6, 1.0, 1.0, 7)
    ev = np.linalg.eigvalsh(M.hessian_loss(params, X, y))
    lo, nrm = M.loss_hessian_extremes(params, X, y, dense_max=0)
    assert lo == pytest.approx(ev[0], abs=1e-7) and nrm == pytest.approx(np.abs(ev).max(), rel=1e-7)


def test_jvp_vjp_adjoint() -> None:
    params, X, _ = _case(3, 4, 3, 5, 1.0, 1.0, 3)
    H, T, d = M.check_params(params)
    cache = M.forward(params, X)

    def jvp(v: np.ndarray) -> np.ndarray:
        dirs = M.unpack(v[None], H, T, d)
        return M._dir_tensors(cache, dirs["U"], dirs["W"])[3][0]

    def vjp(u: np.ndarray) -> np.ndarray:
        return M.pack(M._weighted_grad(cache, u))

    assert_grad_ok(check_adjoint(jvp, vjp, (M.n_params(H, T, d),), (X.shape[0],)))


@given(**sizes)
def test_permuting_heads(H: int, T: int, d: int, n: int, s: float, xs: float, seed: int) -> None:
    params, X, y = _case(H, T, d, n, s, xs, seed)
    perm = np.random.default_rng(seed).permutation(H)
    q = {k: v[perm] for k, v in params.items()}
    np.testing.assert_allclose(M.phi(q, X), M.phi(params, X), rtol=1e-12, atol=1e-12)
    _, g = M.loss_and_grad(params, X, y)
    _, gq = M.loss_and_grad(q, X, y)
    for k in g:
        np.testing.assert_allclose(gq[k], g[k][perm], rtol=1e-12, atol=1e-14)


@given(**sizes)
def test_permuting_samples(H: int, T: int, d: int, n: int, s: float, xs: float, seed: int) -> None:
    params, X, y = _case(H, T, d, n, s, xs, seed)
    perm = np.random.default_rng(seed).permutation(n)
    L, g = M.loss_and_grad(params, X, y)
    Lp, gp = M.loss_and_grad(params, X[perm], y[perm])
    assert Lp == pytest.approx(L, rel=1e-13)
    for k in g:
        np.testing.assert_allclose(gp[k], g[k], rtol=1e-11, atol=1e-14)


@given(**sizes, h=st.integers(0, 3))
def test_splitting_a_head(H: int, T: int, d: int, n: int, s: float, xs: float, seed: int, h: int) -> None:
    """Head h split into two identical copies carrying U_h/2 each, all values rescaled by
    sqrt((H+1)/H) to undo the change of 1/sqrt(H): Phi is unchanged."""
    params, X, _ = _case(H, T, d, n, s, xs, seed)
    h = h % H
    r = np.sqrt((H + 1) / H)
    U = np.concatenate([params["U"], params["U"][h : h + 1] / 2]) * r
    U[h] /= 2
    W = np.concatenate([params["W"], params["W"][h : h + 1]])
    np.testing.assert_allclose(M.phi({"U": U, "W": W}, X), M.phi(params, X), rtol=1e-11, atol=1e-12)


def test_paired_init_gives_zero_output_and_equal_head_norms() -> None:
    rng = np.random.default_rng(0)
    params = M.init_params(rng, 6, 5, 4, w_scale=0.3)
    X = D.random_tokens(rng, 7, 5, 4)
    assert np.max(np.abs(M.phi(params, X))) < 1e-14
    blocks = M.phi_head_blocks(params, X)  # (n, H, q, q); q = T d + d^2 = 36, U part first (20)
    a, b = blocks[:, :3], blocks[:, 3:]
    np.testing.assert_allclose(a[..., :20, 20:], b[..., :20, 20:], atol=1e-14)  # U-W: independent of U
    np.testing.assert_allclose(a[..., 20:, 20:], -b[..., 20:, 20:], atol=1e-14)  # W-W: linear in U
    ev_a, ev_b = np.linalg.eigvalsh(a), np.linalg.eigvalsh(b)
    np.testing.assert_allclose(ev_a, -ev_b[..., ::-1], atol=1e-12)  # so the spectra are negatives


def test_single_query_variant_is_the_row0_restriction() -> None:
    """V1 (Phi = sum_h u_h^T X^T softmax(X W_h^T x_1)) equals the model with U rows t >= 1 zero."""
    rng = np.random.default_rng(1)
    H, T, d = 3, 4, 3
    u = rng.standard_normal((H, d))
    W = rng.standard_normal((H, d, d))
    X = D.random_tokens(rng, 5, T, d)
    U = np.zeros((H, T, d))
    U[:, 0] = u
    ref = np.array([sum(u[h] @ x.T @ np.exp(a := x @ W[h].T @ x[0]) / np.exp(a).sum() for h in range(H))
                    for x in X]) / np.sqrt(H)  # fmt: skip
    np.testing.assert_allclose(M.phi({"U": U, "W": W}, X), ref, rtol=1e-12)


def _phi_v1(u: np.ndarray, W: np.ndarray, X: np.ndarray) -> np.ndarray:
    """V1 written out on its own: (1/sqrt(H)) sum_h u_h^T X^T softmax(X W_h^T x_1), per sample."""
    out = np.zeros(X.shape[0])
    for h in range(u.shape[0]):
        a = np.einsum("ntd,ed,ne->nt", X, W[h], X[:, 0])  # X W_h^T x_1
        s = np.exp(a - a.max(axis=1, keepdims=True))
        s /= s.sum(axis=1, keepdims=True)
        out += np.einsum("nt,ntd,d->n", s, X, u[h])
    return out / np.sqrt(u.shape[0])


def test_v1_hessian_is_the_v1_models_own() -> None:
    """M.v1_head_blocks equals the finite-difference Hessian of the V1 forward in (u_h, W_h), at a
    full-model point whose U rows t >= 1 are NOT zero (the sub-block of the full model's Hessian there
    is a different matrix: the W-W curvature of rows t >= 1 would leak in)."""
    rng = np.random.default_rng(3)
    H, T, d = 2, 3, 2
    params = {"U": rng.standard_normal((H, T, d)), "W": rng.standard_normal((H, d, d))}
    X = D.random_tokens(rng, 1, T, d)
    q = d + d * d

    def f(z: np.ndarray) -> float:
        z = z.reshape(H, q)
        return float(_phi_v1(z[:, :d], z[:, d:].reshape(H, d, d), X)[0])

    z0 = np.concatenate([params["U"][:, 0], params["W"].reshape(H, -1)], axis=1).ravel()
    e, p = 1e-4, z0.size
    fd = np.zeros((p, p))
    for i in range(p):
        for j in range(p):
            ei, ej = np.eye(p)[i] * e, np.eye(p)[j] * e
            fd[i, j] = (f(z0 + ei + ej) - f(z0 + ei - ej) - f(z0 - ei + ej) + f(z0 - ei - ej)) / (4 * e * e)
    blocks = M.v1_head_blocks(params, X)[0]  # (H, q, q)
    dense = np.zeros((p, p))
    for h in range(H):
        dense[h * q : (h + 1) * q, h * q : (h + 1) * q] = blocks[h]
    np.testing.assert_allclose(dense, fd, atol=1e-6)
    full = M.phi_head_blocks(params, X)[0]
    keep = np.concatenate([np.arange(d), T * d + np.arange(d * d)])
    assert np.max(np.abs(full[:, keep][:, :, keep] - blocks)) > 1e-3  # the sub-block is not V1's


def test_closed_form_ntk_at_w0_matches_the_features() -> None:
    """The H-independent NTK Gram at W_0 = 0 and theta_* built from it equal the feature-based ones."""
    mix = D.Mixture()
    X, y, _ = mix.sample(np.random.default_rng(0), 12)
    p0 = M.init_params(np.random.default_rng(1), 6, mix.T, mix.d)
    Z = M.features(p0, X) * y[:, None]
    np.testing.assert_allclose(E.ntk_gram_w0(p0["U"], X, y)[0], Z @ Z.T, atol=1e-13)
    gamma, a = E.ntk_margin_w0(p0["U"], X, y)
    assert gamma == pytest.approx(E.svm_margin(Z).gamma, rel=1e-6)
    theta = Z.T @ a
    assert np.linalg.norm(theta) == pytest.approx(1.0, rel=1e-10)
    ref = M.phi(E.shift(p0, theta, 2.0), X)
    np.testing.assert_allclose(E.phi_along_theta_star_w0(p0, X, y, a, 2.0, chunk=4), ref, atol=1e-12)


def test_forward_is_stable_for_huge_logits() -> None:
    params, X, y = _case(2, 4, 3, 3, 1.0, 1.0, 0)
    params["W"] *= 1e5
    L, g = M.loss_and_grad(params, X, y)
    assert np.isfinite(L) and all(np.all(np.isfinite(v)) for v in g.values())


@given(z=st.floats(-700, 700))
def test_logistic_loss_properties(z: float) -> None:
    """A1: convex, non-increasing, |l'| <= 1, l'' <= 1/4, l'' <= |l'| <= l, l <= e^{-z}."""
    l0, l1, l2 = (float(v) for v in M.logistic(np.array(z)))
    assert l1 <= 0 <= l2 <= 0.25 + 1e-15
    assert abs(l1) <= 1.0
    assert l2 <= abs(l1) * (1 + 1e-12) and abs(l1) <= l0 * (1 + 1e-12) + 1e-300
    if z > -700:
        assert l0 <= np.exp(-z) * (1 + 1e-12)


@given(T=st.integers(2, 12), zeta=st.floats(0.05, 1.0), S=st.floats(0.1, 5.0), n=st.integers(1, 20),
       variant=st.sampled_from(["O", "A"]), seed=st.integers(0, 1000))  # fmt: skip
def test_mixture_samples(T: int, zeta: float, S: float, n: int, variant: str, seed: int) -> None:
    mix = D.Mixture(T=T, d=8, zeta=zeta, S=S, sigma=0.0, M=4, variant=variant)
    X, y, rel = mix.sample(np.random.default_rng(seed), n)
    assert X.shape == (n, T, 8) and set(np.unique(y)) <= {-1.0, 1.0}
    assert np.all(rel.sum(axis=1) == mix.m_r)
    np.testing.assert_allclose(np.linalg.norm(X, axis=-1), S)
    mu_p, mu_m, _ = mix.means()
    want = np.where(y[:, None, None] > 0, mu_p, mu_m)
    np.testing.assert_allclose(np.where(rel[..., None], X, want), np.broadcast_to(want, X.shape))
    assert D.token_radius(X) == pytest.approx(S)


def test_svm_margin_known_cases() -> None:
    m = E.svm_margin(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert m.gamma == pytest.approx(1 / np.sqrt(2), rel=1e-9) and m.separable
    assert not E.svm_margin(np.array([[1.0, 0.0], [-1.0, 0.0]])).separable


def test_model_object_follows_the_protocol() -> None:
    """MultiHeadAttention is a Model over AttnParams: the same numbers as the functions, grads of the
    params' type, and the GD loop returns the container it was given."""
    rng = np.random.default_rng(3)
    params = M.init_params(rng, 4, 3, 2, w_scale=0.5)
    batch = D.Batch(D.random_tokens(rng, 6, 3, 2), rng.choice(np.array([-1.0, 1.0]), size=6))
    model = M.MultiHeadAttention()
    assert isinstance(model, Model) and isinstance(params, M.AttnParams)
    L, g = model.loss_and_grad(params, batch)
    L0, g0 = M.loss_and_grad(params, batch.X, batch.y)
    assert isinstance(g, M.AttnParams) and L == L0 == model.loss(params, batch)
    np.testing.assert_array_equal(g.W, g0["W"])
    np.testing.assert_array_equal(model.forward(params, batch), M.phi(params, batch.X))
    assert isinstance(model.hvp(params, batch, g), M.AttnParams)
    traj, _ = E.run_gd(params, batch.X, batch.y, 0.5, 3)
    assert isinstance(traj.params, M.AttnParams)
    with pytest.raises(ValueError, match="loss_name"):
        M.MultiHeadAttention(loss_name="hinge")


def test_gd_decreases_loss_and_snapshots() -> None:
    pr = E.make_problem(np.random.default_rng(0), np.random.default_rng(1), n=10, H=2)
    traj, snaps = E.run_gd(pr.params0, pr.X, pr.y, 1.0, 20, snapshots=(0, 20))
    assert np.all(np.diff(traj.loss) <= 0) and set(snaps) == {0, 20}
    np.testing.assert_array_equal(snaps[20]["U"], traj.params["U"])


def test_bad_inputs_raise() -> None:
    params, X, y = _case(2, 3, 2, 4, 1.0, 1.0, 0)
    with pytest.raises(ValueError, match="'U' and 'W'"):
        M.phi({"U": params["U"]}, X)
    with pytest.raises(ValueError, match="params\\['W'\\]"):
        M.phi({"U": params["U"], "W": np.zeros((2, 3, 3))}, X)
    with pytest.raises(ValueError, match="X"):
        M.phi(params, np.zeros((4, 3, 5)))
    with pytest.raises(ValueError, match="finite"):
        M.phi(params, np.full((4, 3, 2), np.nan))
    with pytest.raises(ValueError, match="y"):
        M.loss(params, X, y[:2])
    with pytest.raises(ValueError, match="\\+-1"):
        M.loss(params, X, 0.5 * y)
    with pytest.raises(ValueError, match="loss_name"):
        M.loss(params, X, y, loss_name="hinge")
    with pytest.raises(ValueError, match="even H"):
        M.init_params(np.random.default_rng(0), 3, 2, 2)
    with pytest.raises(TypeError, match="H"):
        M.init_params(np.random.default_rng(0), 2.0, 2, 2)
    with pytest.raises(ValueError, match="directions"):
        M.phi_hvp(params, X, {"U": np.zeros((1, 2, 3)), "W": np.zeros((2, 2, 2))})
    with pytest.raises(ValueError, match="variant"):
        D.Mixture(variant="B")
    with pytest.raises(ValueError, match="needs d >= 6"):
        D.Mixture(d=5, M=4, variant="O")
    with pytest.raises(ValueError, match="zeta"):
        D.Mixture(zeta=0.0)
    with pytest.raises(ValueError, match="last axis"):
        M.unpack(np.zeros(5), 2, 3, 2)


# ---- the fused hot path of loss_and_grad / loss_hvp against the Cache route ------------------------------


def _cache_route(params, X, y, v, loss_name: str, curvature_only: bool):
    """(L, grad L, grad^2 L v) by forward + _weighted_grad and loss_hvp with a cache (the reference), and
    the magnitudes (g_scale, h_scale) of the terms that enter the gradient and the HVP: with the token
    radius R and lam = max_i |l'_i| + |l''_i|, g_scale = lam R^2 (1 + R ||U||) and h_scale = g_scale
    (R ||dU|| + R^2 ||dW||). Rounding errors are relative to these, not to the result, which cancels to
    ~0 where the softmax saturates (S one-hot, so G = S (V - SV) = 0)."""
    cache = M.forward(params, X)
    l0, l1, l2 = M.LOSSES[loss_name](y * cache.phi)
    g = M._weighted_grad(cache, l1 * y / y.size)
    hv = M.loss_hvp(params, X, y, v, loss_name=loss_name, curvature_only=curvature_only, cache=cache)
    R = np.sqrt(np.max(np.sum(X * X, axis=-1)))
    g_scale = np.max(np.abs(l1) + np.abs(l2)) * R**2 * (1 + R * np.linalg.norm(params["U"]))
    h_scale = g_scale * (R * np.linalg.norm(v["U"]) + R**2 * np.linalg.norm(v["W"]))
    return float(np.mean(l0)), g, hv, g_scale, h_scale


def _assert_close(a: dict[str, np.ndarray], b: dict[str, np.ndarray], scale: float) -> None:
    """Equal to rounding: |a - b| <= 1e-12 |b| + 1e-13 scale entrywise (see :func:`_cache_route`)."""
    for k in ("U", "W"):
        assert a[k].shape == b[k].shape
        np.testing.assert_allclose(a[k], b[k], rtol=1e-12, atol=1e-13 * scale)


@example(H=2, T=3, d=2, n=1, s=1.0, xs=1.0, seed=0, big=True, k=0, loss_name="logistic", curvature_only=False)
@example(H=3, T=4, d=3, n=7, s=1.0, xs=2.0, seed=1, big=False, k=3, loss_name="exponential",
         curvature_only=True)  # fmt: skip
@given(**{**sizes, "n": st.integers(1, 9)}, big=st.booleans(), k=st.sampled_from([0, 1, 3]),
       loss_name=st.sampled_from(["logistic", "exponential"]), curvature_only=st.booleans())  # fmt: skip
def test_fused_path_matches_cache_route(
    H: int, T: int, d: int, n: int, s: float, xs: float, seed: int, big: bool, k: int, loss_name: str,
    curvature_only: bool,
) -> None:  # fmt: skip
    """loss_and_grad and loss_hvp (no cache) equal the Cache route to rounding: both losses, logits up to
    |A| ~ 1e3 (``big``: the softmax shift is needed), one or several chunks (n not a multiple of the
    chunk), a single direction (k = 0) or k directions."""
    params, X, y = _case(H, T, d, n, s, xs, seed)
    if big:
        A = M._logits(params["W"], X)
        params["W"] *= 1e3 / np.max(np.abs(A))
        assert not M._shift_free(params["W"], X)
    rng = np.random.default_rng(seed + 2)
    shape = (k,) if k else ()
    v = {key: rng.standard_normal(shape + a.shape) for key, a in params.items()}
    L0, g0, h0, g_scale, h_scale = _cache_route(params, X, y, v, loss_name, curvature_only)
    per_sample = T * H * T * max(1, k)
    for chunk in (1, 2 * per_sample, M.CHUNK):  # one sample per chunk, two, all (at these sizes)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(M, "CHUNK", chunk)
            for validate in (True, False):
                L, g = M.loss_and_grad(params, X, y, loss_name=loss_name, validate=validate)
                assert L == pytest.approx(L0, rel=1e-13)
                _assert_close(g, g0, g_scale)
            assert M.loss(params, X, y, loss_name=loss_name) == L
            hv = M.loss_hvp(params, X, y, v, loss_name=loss_name, curvature_only=curvature_only)
            _assert_close(hv, h0, h_scale)


def test_fused_path_with_and_without_the_softmax_shift() -> None:
    """Where the bound lets the shift go, shifting anyway gives the same values; the bound holds."""
    rng = np.random.default_rng(5)
    params = M.init_params(rng, 4, 6, 5, w_scale=0.5, paired=False)
    X = D.random_tokens(rng, 11, 6, 5, 2.0)
    y = rng.choice(np.array([-1.0, 1.0]), size=11)
    v = {k: rng.standard_normal(a.shape) for k, a in params.items()}
    assert M._shift_free(params["W"], X)
    _, _, _, g_scale, h_scale = _cache_route(params, X, y, v, "logistic", False)
    L, g = M.loss_and_grad(params, X, y)
    hv = M.loss_hvp(params, X, y, v)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(M, "_shift_free", lambda W, X: False)
        Ls, gs = M.loss_and_grad(params, X, y)
        hvs = M.loss_hvp(params, X, y, v)
    assert L == pytest.approx(Ls, rel=1e-14)
    _assert_close(g, gs, g_scale)
    _assert_close(hv, hvs, h_scale)
    for scale in (1.0, 10.0, 100.0, 1e3):
        W = params["W"] * scale
        if M._shift_free(W, X):
            assert np.max(np.abs(M._logits(W, X))) <= M.SHIFT_FREE
    assert not M._shift_free(np.full((1, 2, 2), np.nan), X[:, :, :2])


def test_fused_path_is_repeatable_and_keeps_no_state() -> None:
    """The same inputs give the same bits on every call, also after calls at other sizes (the work buffers
    are reused and grown), and the results are not views of the buffers."""
    rng = np.random.default_rng(6)
    params = M.init_params(rng, 4, 5, 3, w_scale=0.7, paired=False)
    X = D.random_tokens(rng, 9, 5, 3)
    y = rng.choice(np.array([-1.0, 1.0]), size=9)
    v = {k: rng.standard_normal(a.shape) for k, a in params.items()}
    big = M.init_params(rng, 6, 7, 4, w_scale=0.7, paired=False)
    Xb = D.random_tokens(rng, 40, 7, 4)
    yb = rng.choice(np.array([-1.0, 1.0]), size=40)
    vb = {k: rng.standard_normal((2, *a.shape)) for k, a in big.items()}
    first = (M.loss_and_grad(params, X, y), M.loss_hvp(params, X, y, v))
    M.loss_and_grad(big, Xb, yb)
    M.loss_hvp(big, Xb, yb, vb)
    M.loss_and_grad(params, X[:1], y[:1])
    again = (M.loss_and_grad(params, X, y), M.loss_hvp(params, X, y, v))
    assert first[0][0] == again[0][0]
    for a, b in ((first[0][1], again[0][1]), (first[1], again[1])):
        for k in ("U", "W"):
            np.testing.assert_array_equal(a[k], b[k])
    for arr in (*first[0][1].values(), *first[1].values()):
        assert arr.base is None or all(not np.shares_memory(arr, buf) for buf in vars(M._WORK).values())


@pytest.mark.parametrize("chunk", [1, 200, None])
def test_batched_sets_are_their_batches_of_one_bit_for_bit(chunk: int | None) -> None:
    """loss_and_grad_batched and grad_norms_batched: each parameter set of a batch gets the bits of its
    batch of one (own samples, or samples shared by the batch), also with a set whose logits need the
    softmax shift among sets that do not, and at several chunk sizes; the unbatched functions are the
    batches of one; the norms loss_and_grad_batched computes on request are grad_norms_batched's."""
    rng = np.random.default_rng(11)
    B, H, T, d, n = 5, 3, 4, 3, 13
    U, W = rng.standard_normal((B, H, T, d)), 0.3 * rng.standard_normal((B, H, d, d))
    W[2] *= 1e4  # set 2 needs the shift
    X, y = D.random_tokens(rng, B * n, T, d).reshape(B, n, T, d), rng.choice([-1.0, 1.0], size=(B, n))
    with pytest.MonkeyPatch.context() as mp:
        if chunk is not None:
            mp.setattr(M, "CHUNK", chunk)
        assert [M._shift_free(W[b], X[b]) for b in range(B)] == [True, True, False, True, True]
        for Xs, ys in ((X, y), (X[:1], y[:1])):  # own samples; shared ones
            L, g = M.loss_and_grad_batched(U, W, Xs, ys)
            gn = M.grad_norms_batched(U, W, Xs)
            L2, g2 = M.loss_and_grad_batched(U, W, Xs, ys, norms=True)
            assert g2.pop("norms").tobytes() == gn.tobytes() and L2.tobytes() == L.tobytes()
            assert g2.keys() == g.keys() and all(g2[k].tobytes() == g[k].tobytes() for k in g)
            for b in range(B):
                Xb, yb = Xs[b % Xs.shape[0]], ys[b % ys.shape[0]]
                L1, g1 = M.loss_and_grad_batched(U[b : b + 1], W[b : b + 1], Xb[None], yb[None])
                assert L1.tobytes() == L[b : b + 1].tobytes()
                assert all(g1[k].tobytes() == g[k][b : b + 1].tobytes() for k in ("U", "W"))
                assert (
                    gn[b].tobytes() == M.grad_norms_batched(U[b : b + 1], W[b : b + 1], Xb[None])[0].tobytes()
                )
                p = {"U": U[b], "W": W[b]}
                assert M.loss_and_grad(p, Xb, yb)[0] == L[b] and M.loss(p, Xb, yb) == L[b]
                assert M.grad_norms(p, Xb).tobytes() == gn[b].tobytes()


def test_fused_path_work_buffers_are_per_thread() -> None:
    """Threads evaluating different problems at once get the results of a sequential evaluation."""
    from concurrent.futures import ThreadPoolExecutor

    cases = [_case(H, T, 3, n, 1.0, 1.0, H) for H, T, n in ((1, 2, 3), (2, 5, 7), (3, 4, 20), (4, 3, 11))] * 6

    def run(case):
        params, X, y = case
        return M.loss_and_grad(params, X, y), M.loss_hvp(params, X, y, params)

    seq = [run(c) for c in cases]
    with ThreadPoolExecutor(4) as pool:
        par = list(pool.map(run, cases))
    for ((a, ga), ha), ((b, gb), hb) in zip(seq, par, strict=True):
        assert a == b
        for k in ("U", "W"):
            np.testing.assert_array_equal(ga[k], gb[k])
            np.testing.assert_array_equal(ha[k], hb[k])


def test_fused_path_checks_its_input() -> None:
    params, X, y = _case(2, 3, 2, 4, 1.0, 1.0, 0)
    with pytest.raises(ValueError, match="y"):
        M.loss_and_grad(params, X, y[:2])
    with pytest.raises(ValueError, match="\\+-1"):
        M.loss_and_grad(params, X, 0.5 * y)
    with pytest.raises(ValueError, match="loss_name"):
        M.loss_hvp(params, X, y, params, loss_name="hinge")
    with pytest.raises(ValueError, match="directions"):
        M.loss_hvp(params, X, y, {"U": np.zeros((1, 2, 3)), "W": np.zeros((2, 2, 2))})


def test_correlated_heads_init_keeps_the_law_and_the_stream() -> None:
    """shared = 0 draws exactly I0; shared > 0 keeps each head's law N(0, 1/(T d)) and the pairing, with
    correlation ``shared`` between the entries of two heads (the alternative world of ntk.concentration)."""
    a = M.init_params(np.random.default_rng(5), 8, 6, 8)
    b = M.init_params(np.random.default_rng(5), 8, 6, 8, shared=0.0)
    assert np.array_equal(a["U"], b["U"]) and np.array_equal(a["W"], b["W"])
    c = M.init_params(np.random.default_rng(5), 400, 6, 8, shared=0.5)
    U = c["U"][:200].reshape(200, -1) * np.sqrt(48)
    assert np.array_equal(c["U"][200:], -c["U"][:200])
    assert abs(U.var() - 1.0) < 0.1
    corr = np.corrcoef(U[0::2].ravel(), U[1::2].ravel())[0, 1]
    assert abs(corr - 0.5) < 0.1
    with pytest.raises(ValueError):
        M.init_params(np.random.default_rng(5), 8, 6, 8, shared=1.0)


def test_shared_token_noise_is_one_draw_per_sequence() -> None:
    """noise = "shared": every token of a sequence carries the same noise vector (alternative world of
    mixture.margin.noisy); "iid" is the model's default stream."""
    X0, y0, _ = D.Mixture().sample(np.random.default_rng(1), 5)
    X1, y1, _ = D.Mixture(noise="iid").sample(np.random.default_rng(1), 5)
    assert np.array_equal(X0, X1) and np.array_equal(y0, y1)
    mix = D.Mixture(noise="shared")
    X, _, _ = mix.sample(np.random.default_rng(1), 5)
    clean, _, _ = D.Mixture(sigma=0.0).sample(np.random.default_rng(1), 5)
    z = X - clean
    assert np.allclose(z, z[:, :1, :]) and np.std(z) > 0
    with pytest.raises(ValueError):
        D.Mixture(noise="heavy")
