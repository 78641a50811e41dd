"""Experiments of :mod:`verify.wu2023.claims.prop1_proof`: the Lipschitz constants rho and z on random
pairs in the ball, and the worst-case searches over theta (and the tokens) of the Lipschitz, NTK-floor and
PL ratios. The claims' GD runs start from :func:`.runs.gd_setup`, which ``claims/prop1.py`` uses too."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from bounds import wu2023 as B
from verify.numerics.worstcase import WorstCase, worst_case
from verify.wu2023 import data as D
from verify.wu2023 import model as M
from verify.wu2023.experiments.runs import Setup, make_setup, spectral_norm, spectral_norms


def lipschitz_ratios(s: Setup, rng: np.random.Generator, pairs: int) -> tuple[float, float]:
    """max over ``pairs`` random pairs in the spectral ball B of |F(t) - F(t')|_F / (rho |t - t'|) and
    of |J(t)|_2 / z. B has radii C_b = ``rng``-random multiples of |W_b^0| (1e-2 .. 10^0.5) and rho, z
    are ``bounds.wu2023.rho_z`` at lambda_b = |W_b^0| + C_b."""
    th0 = s.theta0
    norms = spectral_norms(th0)
    radii = {b: float(v * 10.0 ** rng.uniform(-2, 0.5)) for b, v in norms.items()}
    lam = {b: float(norms[b] + radii[b]) for b in norms}
    c, X2 = B.token_stats(s.batch.X * s.model.input_scale)
    rho, z = B.rho_z(c, X2, lam, s.model.tau0, s.model.tau1, s.model.d_s)

    def point() -> M.Params:
        out = {}
        for b, key in (("W_Q", "Q"), ("W_K", "K"), ("W_V", "V"), ("w_O", "O")):
            W0 = getattr(th0, b)
            Dir = rng.standard_normal(W0.shape)
            out[b] = W0 + Dir / spectral_norm(Dir) * radii[key] * rng.uniform()
        return M.Params.from_blocks(out)

    worst_rho = worst_z = 0.0
    for _ in range(pairs):
        a, b2 = point(), point()
        dF = np.linalg.norm(s.model.features(a, s.batch) - s.model.features(b2, s.batch))
        worst_rho = max(worst_rho, float(dF / (rho * np.linalg.norm(a.flat() - b2.flat()))))
        worst_z = max(worst_z, float(np.linalg.norm(s.model.jacobian(a, s.batch), 2) / z))
    return worst_rho, worst_z


def params_from_flat(z: np.ndarray, d: int, d_m: int) -> M.Params:
    """The inverse of :meth:`verify.wu2023.model.Params.flat`: blocks W_Q, W_K, W_V (d_m, d), w_O (d_m,)."""
    Q, K, V, O = np.split(np.asarray(z, dtype=np.float64), np.cumsum([d_m * d] * 3))
    return M.Params(W_Q=Q.reshape(d_m, d), W_K=K.reshape(d_m, d), W_V=V.reshape(d_m, d), w_O=O)


def model_search(
    model: M.ShallowTransformer,
    ratio: Callable[[M.Params, D.Batch], float],
    rng: np.random.Generator,
    starts: int,
    maxiter: int,
    *,
    batch: D.Batch | None = None,
    N: int = 1,
    w_O: bool = True,
) -> WorstCase:
    """Worst case of ``ratio(theta, batch)`` over every theta of ``model`` and, when ``batch`` is None,
    every token set X (N, d_s, d) (labels 0); otherwise on ``batch``. The search variable is (X, W_Q, W_K,
    W_V, w_O) flattened and unconstrained (without w_O, fixed at ones, when ``w_O`` is False: a ratio
    that does not depend on it). Starts are N(0, 1) draws, redrawn (up to :data:`DRAWS` times) where
    the ratio is below :data:`DRAW_FLOOR`: a dead ReLU unit or a rank-deficient F_pre makes it 0 (up to
    round-off) and flat, and a start there never moves."""
    nX = 0 if batch is not None else N * model.d_s * model.d
    nW = 3 * model.d_m * model.d

    def split(z: np.ndarray) -> tuple[M.Params, D.Batch]:
        b = batch if batch is not None else D.Batch(z[:nX].reshape(N, model.d_s, model.d), np.zeros(N))
        th = z[nX:] if w_O else np.concatenate([z[nX:], np.ones(model.d_m)])
        return params_from_flat(th, model.d, model.d_m), b

    def sample(g: np.random.Generator) -> np.ndarray:
        for _ in range(DRAWS):
            z = g.standard_normal(nX + nW + (model.d_m if w_O else 0))
            if ratio(*split(z)) >= DRAW_FLOOR:
                break
        return z

    w = worst_case(lambda z: ratio(*split(z)), sample, rng, starts=starts, maxiter=maxiter)
    n = N if batch is None else batch.N
    sizes = {"N": n, "d_s": model.d_s, "d": model.d, "d_m": model.d_m, "tau0": model.tau0, "w_O": w_O}
    return replace(w, argument={**sizes, "data": "searched" if batch is None else "fixed"})


#: Draws :func:`model_search` tries per start for one whose ratio is at least DRAW_FLOOR.
DRAWS = 100
DRAW_FLOOR = 1e-3


def feature_jacobian(model: M.ShallowTransformer, th: M.Params, batch: D.Batch) -> np.ndarray:
    """The Jacobian of F_pre in (W_Q, W_K, W_V): (N d_m, 3 d_m d), row (n, m) the gradient of
    F_pre[n, m] = h_m(X_n), from the model's hand gradients of f = tau1 w_O^T h at w_O = e_m / tau1."""
    cols = 3 * model.d_m * model.d
    unit = np.eye(model.d_m) / model.tau1
    rows = [model.jacobian(th.replace(w_O=unit[m]), batch)[:, :cols] for m in range(model.d_m)]
    return np.stack(rows, axis=1).reshape(-1, cols)


def lipschitz_ratio(
    model: M.ShallowTransformer, th: M.Params, batch: D.Batch, rtol: float, qk: bool = False
) -> float:
    """|dF_pre(theta)|_2 / (rho (1 + rtol)), rho from ``bounds.wu2023.rho_z`` at lambda-bar_b = |W_b|_2.

    On the convex ball the best Lipschitz constant of F_pre is the supremum of |dF_pre|_2, and theta lies
    on the outer boundary of the ball of centre W_b / (1 + k), radii C_b = k |W_b^0|_2 (any k > 0),
    whose lambda-bar_b = |W_b^0|_2 + C_b is |W_b|_2; rho grows with lambda-bar, so this ratio over every
    theta is the worst case over every ball and every pair in it. qk: only the Q/K terms,
    |dF_pre / d(W_Q, W_K)|_2 against sqrt(sum_n a_n^2 + b_n^2) (rho with c_n = 0)."""
    c, X2 = B.token_stats(batch.X * model.input_scale)
    rho, _ = B.rho_z(0 * c if qk else c, X2, spectral_norms(th), model.tau0, model.tau1, model.d_s)
    J = feature_jacobian(model, th, batch)
    J = J[:, : 2 * model.d_m * model.d] if qk else J
    return float(np.linalg.norm(J, 2) / (rho * (1 + rtol))) if rho > 0 else 0.0


def lipschitz_search(
    rng: np.random.Generator,
    N: int,
    d_s: int,
    d: int,
    d_m: int,
    starts: int,
    maxiter: int,
    rtol: float,
    qk: bool = False,
) -> WorstCase:
    """Worst case of :func:`lipschitz_ratio` over every theta and every token set X (N, d_s, d) at LeCun
    init's tau0 = d_m^-1/2 (tau1 cancels; w_O does not enter F_pre)."""
    model = M.ShallowTransformer(d=d, d_s=d_s, d_m=d_m)
    w = model_search(
        model, lambda th, b: lipschitz_ratio(model, th, b, rtol, qk), rng, starts, maxiter, N=N, w_O=False
    )
    return replace(w, argument={**w.argument, "terms": "Q/K" if qk else "all"})


def ntk_floor_ratio(model: M.ShallowTransformer, th: M.Params, batch: D.Batch, rtol: float) -> float:
    """tau1^2 sigma_min(F_pre)^2 (1 - rtol) / lambda_min(K) at theta (0 where the floor is 0)."""
    floor = model.tau1**2 * M.sigma_min_sq(model.features(th, batch))
    return floor * (1 - rtol) / float(np.linalg.eigvalsh(model.ntk(th, batch))[0]) if floor > 0 else 0.0


def pl_ratio(model: M.ShallowTransformer, th: M.Params, batch: D.Batch, rtol: float) -> float:
    """2 tau1^2 sigma_min(F_pre)^2 l (1 - rtol) / |grad l|^2 at theta (0 where the bound is 0)."""
    c = model.forward(th, batch)
    loss, g = model.loss_and_grad(th, batch, cache=c)
    bound = 2 * model.tau1**2 * M.sigma_min_sq(c.h) * loss
    return bound * (1 - rtol) / float(np.sum(g.flat() ** 2)) if bound > 0 else 0.0


def theta_search(
    ratio: Callable[[M.ShallowTransformer, M.Params, D.Batch, float], float],
    rng: np.random.Generator,
    seed: int,
    N: int,
    d_s: int,
    d: int,
    d_m: int,
    starts: int,
    maxiter: int,
    rtol: float,
) -> WorstCase:
    """Worst case of ``ratio(model, theta, batch, rtol)`` over every theta on the seed's "active" data
    (N, d_s, d) and labels (:func:`make_setup`, key 0; LeCun, tau0 = d_m^-1/2)."""
    s = make_setup(seed, 0, N=N, d=d, d_s=d_s, d_m=d_m, regime="active")
    return model_search(
        s.model, lambda th, b: ratio(s.model, th, b, rtol), rng, starts, maxiter, batch=s.batch
    )
