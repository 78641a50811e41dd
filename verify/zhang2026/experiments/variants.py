"""Experiments of ``claims/variants.py`` beyond the shared SGD worker: circulant teachers with unequal
weights (the one-column recursion), dense teachers, and unequal column sums (against the minimised closed
form), on the draws of :func:`value_and_positions`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bounds.checks import check_array, check_positive, check_real
from verify.core import Ctx, experiment
from verify.numerics.gd import gradient_descent_batched
from verify.zhang2026 import data as D
from verify.zhang2026 import model as M
from verify.zhang2026.experiments.runs import (
    LIN,
    Size,
    checked_times,
    log_times,
    population_gd_batched,
    seeds_of,
    stacked,
    step_at,
)


def circulant_run(
    s_col: np.ndarray,
    V: np.ndarray,
    eta: float,
    times: Sequence[int],
    sx2: float = 1.0,
    mu: float = 0.0,
    t_decay: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`circulant_run_batched` for one V* (M, d): (excess (n_t,), W_V (n_t, M, d), a (n_t, D))."""
    ex, w, a = circulant_run_batched(s_col, V[None], eta, times, sx2, mu, t_decay)
    return ex[0], w[0], a[0]


def circulant_run_batched(
    s_col: np.ndarray,
    V: np.ndarray,
    eta: float,
    times: Sequence[int],
    sx2: float = 1.0,
    mu: float = 0.0,
    t_decay: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Linear sigma, circulant column-stochastic S* (column i = column 0 shifted by i), iid entries of mean
    ``mu`` and variance ``sx2``: every column of A stays the shift of one column a = softmax(lam). Iterates
    (W_V (M, d), lam (D,)) from zero init with the gradients of
    :func:`~verify.zhang2026.model.linear_loss_grad` restricted to this symmetric set:
    grad W_V = sx2 D (|a|^2 W_V - <s, a> V*) - mu^2 D (V* - W_V) 1 1^T,
    lam <- lam - (eta/D) a * (G - <a, G>), G = sx2 (|W_V|^2 a - <V*, W_V> s) (the mean term's
    attention gradient is constant in each column and cancels in the softmax), for n teachers V* (n, M, d)
    at once (each run's values from its own slices only). t_decay: the step schedule of :func:`step_at`
    (0: constant). Returns (excess (n, n_t), W_V (n, n_t, M, d), a (n, n_t, D)) at ``times``."""
    s = check_array("s_col", s_col, ndim=1)
    V = check_array("V", V, ndim=3)
    if not abs(s.sum() - 1.0) < 1e-12:
        raise ValueError(f"s_col must sum to 1 (column-stochastic S*), got {s.sum()}")
    D_ = s.size
    eta, sx2 = check_positive("eta", eta), check_positive("sx2", sx2)
    mu = check_real("mu", mu)
    ts = checked_times(times, low=0)
    runs = V.shape[0]
    W, lam, t_now = np.zeros_like(V), np.zeros((runs, D_)), 0
    sb = np.broadcast_to(s, lam.shape)
    vv, ss = M.inner(V, V), float(s @ s)

    def column(lam: np.ndarray) -> np.ndarray:
        z = np.exp(lam - lam.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)

    out_e, out_w, out_a = [], [], []
    for t in ts:
        for k in range(t_now, t):
            et = step_at(eta, k, t_decay)
            es, el, em = et * sx2 * D_, et * sx2 / D_, et * mu * mu * D_
            a = column(lam)
            G = M.inner(W, W)[:, None] * a - M.inner(V, W)[:, None] * s
            gl = a * (G - M.inner(a, G)[:, None])
            step = es * (M.inner(a, a)[:, None, None] * W - M.inner(sb, a)[:, None, None] * V)
            if mu:
                step = step - em * (V - W).sum(axis=2, keepdims=True)
            W = W - step
            lam = lam - el * gl
        t_now = t
        a = column(lam)
        vw, ww = M.inner(V, W), M.inner(W, W)
        r = (V - W).sum(axis=2)  # (n, M): the mean residual per output / mu
        ex = 0.5 * sx2 * D_ * (vv * ss - 2 * vw * M.inner(sb, a) + ww * M.inner(a, a))
        ex = ex + 0.5 * mu * mu * D_ * M.inner(r, r)
        out_e.append(ex)
        out_w.append(W.copy())
        out_a.append(a)
    return np.stack(out_e, axis=1), np.stack(out_w, axis=1), np.stack(out_a, axis=1)


@dataclass(frozen=True)
class Weighted:
    """Circulant teacher with weights (0.6, 0.3, 0.1): deviation of the one-column reduction from the full
    matrix over 300 steps, tail times and excess, T_max."""

    dev: float
    t: np.ndarray
    excess: np.ndarray
    t_max: int


def weighted_support(
    V: np.ndarray, P: np.ndarray, eta: float, times: np.ndarray, t_decay: float = 0.0
) -> list[Weighted]:
    """Non-uniform weights (0.6, 0.3, 0.1) on a circulant 3-support, for n problems V (n, M, d), P
    (n, D, D) at once: the one-column reduction sampled at ``times`` (step schedule ``t_decay``,
    :func:`step_at`), validated against full-matrix GD (constant step) over 300 steps first."""
    S = D.s_weighted(P.shape[1], np.array([0.6, 0.3, 0.1]))
    tv = log_times(1, 300, 3)
    fulls = population_gd_batched(V, np.broadcast_to(S, P.shape), P, eta, tv)
    _, w_c, a_c = circulant_run_batched(S[:, 0], V, eta, tv)
    tt = np.asarray(times)
    ex = circulant_run_batched(S[:, 0], V, eta, tt, t_decay=t_decay)[0]
    return [
        Weighted(
            max(float(np.abs(full.A[:, :, 0] - a_c[i]).max()), float(np.abs(full.W_V - w_c[i]).max())),
            tt,
            ex[i],
            int(tt[-1]),
        )
        for i, full in enumerate(fulls)
    ]


def dense_teacher_steps(
    rngs: Sequence[np.random.Generator], V: np.ndarray, P: np.ndarray, eta: float, steps: int, below: float
) -> list[tuple[float, float]]:
    """For each run (its generator of ``rngs``, V (n, M, d), P (n, D, D); all runs in one batch, each
    stopping on its own) a dense positive column-stochastic S* (entries U(0.5, 1.5), normalised): (steps
    until the excess is below ``below``, or steps + 1 if never; final excess)."""
    n = P.shape[1]
    Sd = np.stack([rng.uniform(0.5, 1.5, (n, n)) for rng in rngs])
    Sd /= Sd.sum(axis=1, keepdims=True)
    model, pop = M.PositionAttention(LIN), D.Population(V, Sd, P)
    trs = gradient_descent_batched(
        {"W_V": np.zeros_like(V), "W_KQ": np.zeros_like(P)},
        lambda th: model.loss_and_grad_batched(th, pop),
        eta,
        steps,
        stop_below=below,
        norms=False,
    )
    return [(float(tr.loss.size - 1 if tr.loss[-1] < below else steps + 1), float(tr.loss[-1])) for tr in trs]


def unequal_sums_floor(
    rngs: Sequence[np.random.Generator], V: np.ndarray, P: np.ndarray, eta: float, steps: int
) -> list[tuple[float, np.ndarray, float]]:
    """For each run (its generator of ``rngs``, V (n, M, d), P (n, D, D); the GD runs in one batch) a
    circulant K = 2 teacher with column sums U(0.7, 1.3): (the minimised floor of the closed form, relative
    gaps of GD to it at steps / 10 and steps, the final GD excess)."""
    n = P.shape[1]
    Sc = np.stack([D.s_circulant(n, 2) * rng.uniform(0.7, 1.3, n)[None, :] for rng in rngs])
    out = []
    for i, run in enumerate(population_gd_batched(V, Sc, P, eta, [steps // 10, steps])):
        start = (run.W_V[-1], M.logits(run.W_KQ[-1], P[i]))
        floor = min_closed_form(V[i], Sc[i], P[i], starts=[start])
        out.append((floor, (run.excess - floor) / floor, float(run.excess[-1])))
    return out


@experiment
def nonuniform_runs(
    ctx: Ctx,
    sz: Size,
    eta: float,
    vnorm: float,
    times: tuple[int, ...],
    t_decay: float,
    steps_dense: int,
    dense_below: float,
    steps_floor: int,
) -> list[tuple[Weighted, tuple[float, float], tuple[float, np.ndarray, float]]]:
    """Per seed of ``ctx.seed_set`` (stream (seed, 1): V*, P, then the dense S*, then the column sums;
    all seeds in one batch): (:func:`weighted_support` at ``times``, :func:`dense_teacher_steps`,
    :func:`unequal_sums_floor`)."""
    rngs = [c.rng(1) for c in seeds_of(ctx)]
    V, P = stacked([value_and_positions(rng, sz, vnorm) for rng in rngs])
    weighted = weighted_support(V, P, eta, np.array(times), t_decay)
    dense = dense_teacher_steps(rngs, V, P, eta, steps_dense, dense_below)
    floors = unequal_sums_floor(rngs, V, P, eta, steps_floor)
    return list(zip(weighted, dense, floors, strict=True))


def min_closed_form(
    V: np.ndarray, S: np.ndarray, P: np.ndarray, starts: Sequence[tuple[np.ndarray, np.ndarray]] = ()
) -> float:
    """min over (W_V, logits) of the linear closed form, by L-BFGS on hand gradients from several starts
    (zero logits, log S* at two scales, and the given (W_V, logits) starts, e.g. a GD end point)."""
    from scipy.optimize import minimize

    m_out, d = V.shape
    n = S.shape[0]

    def f(x: np.ndarray) -> tuple[float, np.ndarray]:
        W, Lam = x[: m_out * d].reshape(m_out, d), x[m_out * d :].reshape(n, n)
        loss, g = M.linear_loss_grad(W, P @ Lam @ P.T * math.sqrt(n), P, V, S)
        gl = P.T @ g["W_KQ"] @ P * math.sqrt(n)  # chain rule through W_KQ = sqrt(D) P Lam P^T
        return loss, np.concatenate([g["W_V"].ravel(), gl.ravel()])

    x0s = [np.concatenate([w.ravel(), lam.ravel()]) for w, lam in starts]
    best = np.inf
    for scale in (0.0, 1.0, 3.0):
        x0s.append(np.concatenate([V.ravel(), scale * np.log(np.maximum(S, 1e-3)).ravel()]))
    for x0 in x0s:
        res = minimize(
            f, x0, jac=True, method="L-BFGS-B", options=dict(maxiter=20_000, gtol=1e-13, ftol=1e-16)
        )
        best = min(best, float(res.fun))
    return best


def value_and_positions(rng: np.random.Generator, sz: Size, vnorm: float) -> tuple[np.ndarray, np.ndarray]:
    """(V* with ||V*||_F = vnorm, a random orthogonal P), drawn in this order from ``rng``."""
    return D.random_v(sz.M, sz.d, rng, vnorm), M.random_orthogonal(sz.D, rng)
