"""Experiments of ``claims/examples.py``: population GD of the paper's examples, one problem or a batch
in logit coordinates."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bounds.checks import check_positive
from verify.core import Ctx, experiment
from verify.numerics.softmax import softmax, softmax_vjp
from verify.zhang2026 import data as D
from verify.zhang2026 import model as M
from verify.zhang2026.experiments.runs import LEAKY, Run, checked_times, population_gd_batched, step_at


def population_gd(
    V: np.ndarray,
    S: np.ndarray,
    P: np.ndarray,
    eta: float,
    times: Sequence[int],
    act: M.Act | None = None,
    sx2: float = 1.0,
    mu: float = 0.0,
) -> Run:
    """:func:`population_gd_batched` on one problem: V (M, d), S and P (D, D)."""
    return population_gd_batched(V[None], S[None], P[None], eta, times, act, sx2, mu)[0]


def batched_population_gd(
    V: np.ndarray, S: np.ndarray, eta: float, times: Sequence[int], t_decay: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Full-matrix population GD (linear sigma, Gaussian-moment closed form) from zero init for n
    problems at once: V (n, M, d), S (n, D, D). It runs in logit coordinates Lam = P^T W_KQ P / sqrt(D)
    (P^T P = I: the W_KQ step is the logit step Lam <- Lam - (eta / D) grad_Lam, the same for every
    orthogonal P; ``zhang2026.P_invariance`` checks this on the matrix model). t_decay: the step schedule
    of :func:`step_at` (0: constant). Returns (excess (n_t, n), W_V (n_t, n, M, d), A (n_t, n, D, D)) at
    ``times``."""
    V, S = np.asarray(V, dtype=np.float64), np.asarray(S, dtype=np.float64)
    eta, ts = check_positive("eta", eta), checked_times(times, low=1)
    n_tok = S.shape[1]
    W, Lam = np.zeros_like(V), np.zeros_like(S)
    vv, ss = np.einsum("nmd,nmd->n", V, V), np.einsum("nij,nij->n", S, S)
    out_e, out_w, out_a, t_now = [], [], [], 0
    for t in ts:
        for k in range(t_now, t):
            et = step_at(eta, k, t_decay)
            A = softmax(Lam, axis=-2)
            vw, ww = np.einsum("nmd,nmd->n", V, W), np.einsum("nmd,nmd->n", W, W)
            sa, aa = np.einsum("nij,nij->n", S, A), np.einsum("nij,nij->n", A, A)
            g_a = ww[:, None, None] * A - vw[:, None, None] * S
            W = W - et * (aa[:, None, None] * W - sa[:, None, None] * V)
            Lam = Lam - (et / n_tok) * softmax_vjp(A, g_a, axis=-2)
        t_now = t
        A = softmax(Lam, axis=-2)
        vw, ww = np.einsum("nmd,nmd->n", V, W), np.einsum("nmd,nmd->n", W, W)
        sa, aa = np.einsum("nij,nij->n", S, A), np.einsum("nij,nij->n", A, A)
        out_e.append(0.5 * (vv * ss - 2 * vw * sa + ww * aa))
        out_w.append(W.copy())
        out_a.append(A)
    return np.array(out_e), np.array(out_w), np.array(out_a)


def example_teacher(name: str, n: int, K: int, rng: np.random.Generator) -> np.ndarray:
    """S* of an example; the selection task's target set is drawn from ``rng`` (a fixed set per seed)."""
    if name == "selection":
        return D.s_selection(n, K, np.sort(rng.choice(n, K, replace=False)))
    return D.example(name, n, K)


@experiment
def example_runs(
    ctx: Ctx,
    name: str,
    n: int,
    K: int,
    M_out: int,
    d: int,
    eta: float,
    vnorm: float,
    times: tuple[int, ...],
    leaky: bool,
    t_decay: float,
) -> tuple[np.ndarray, list[tuple[str, np.ndarray, np.ndarray]]]:
    """One example's teachers and runs over the seeds of ``ctx.seed_set`` (stream (seed, 1): V* with
    ||V*||_F = vnorm, (M_out, d), then S*): (S* (seeds, n, n), [(act, excess (n_t, seeds), A (n_t,
    seeds, n, n))]) of full-matrix population GD at ``times`` (linear sigma, step schedule ``t_decay``;
    leaky ReLU too when ``leaky``, at the constant step)."""
    rngs = [np.random.default_rng([s, 1]) for s in ctx.seed_set]
    Vs = np.stack([D.random_v(M_out, d, r, vnorm) for r in rngs])
    Ss = np.stack([example_teacher(name, n, K, r) for r in rngs])
    tt = np.array(times)
    ex, _, A = batched_population_gd(Vs, Ss, eta, tt, t_decay)
    runs = [("linear", ex, A)]
    if leaky:
        full = [population_gd(V, S, np.eye(n), eta, tt, act=LEAKY) for V, S in zip(Vs, Ss, strict=True)]
        runs.append(("leaky", np.stack([f.excess for f in full], 1), np.stack([f.A for f in full], 1)))
    return Ss, runs
