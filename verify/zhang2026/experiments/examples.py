"""Experiments of ``claims/examples.py``: the paper's examples (population GD, one problem or a batch
in logit coordinates), the digits stand-in for its MNIST experiment, and the full one-layer TF."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bounds.checks import check_positive
from verify.core import Ctx
from verify.numerics.gd import RunState, gradient_descent
from verify.numerics.softmax import softmax, softmax_vjp
from verify.zhang2026 import data as D
from verify.zhang2026 import model as M
from verify.zhang2026.experiments.runs import (
    LEAKY,
    LIN,
    Run,
    Size,
    checked_times,
    circulant_problem,
    population_gd_batched,
    step_at,
)


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


@dataclass(frozen=True)
class Shares:
    """Full one-layer TF after online GD: feature-block share of ||W_V||^2, position-block share of
    ||W_KQ||^2, the position block's attention against S* (max |S(W_KQ[d:, d:]) - S*| at steps // 10 and
    at the end; whether the top-K entries of every column are on G_i), a note, and the attention error
    after every step (``attn_curve``, index t)."""

    act: str
    feature_share: float
    position_share: float
    attn_err_early: float
    attn_err: float
    support: bool
    note: str
    attn_curve: tuple[float, ...] = ()


#: Token mixing of the full-TF teacher: ``position`` is the paper's S* (fixed, input-independent);
#: ``content`` mixes tokens by their features, S(X) = column-softmax(X^T X) (reviewer 4's contrast with
#: Wang et al. 2024, where the attention must read the input): the alternative world of ``fullTF``.
MIXINGS = ("position", "content")


def full_tf_shares(
    ctx: Ctx,
    sz: Size,
    eta: float,
    vnorm: float,
    N: int,
    steps: int,
    acts: Sequence[str] = ("linear", "leaky"),
    mixing: str = "position",
) -> list[Shares]:
    """Online GD (a fresh batch of N Gaussian inputs per step, noise-free labels, stream (2, k) with k
    the index of the activation in (linear, leaky)) of the full one-layer TF from zero init, for each
    activation in ``acts``; the teacher mixes tokens by S* (``mixing="position"``) or by
    column-softmax(X^T X) (``"content"``, :data:`MIXINGS`)."""
    if mixing not in MIXINGS:
        raise ValueError(f"mixing must be one of {MIXINGS}, got {mixing!r}")
    S, V, P = circulant_problem(ctx.rng(1), sz, vnorm)
    d, out = sz.d, []
    for k, act in enumerate((LIN, LEAKY)):
        if act.name not in acts:
            continue
        brng, model = ctx.rng(2, k), M.FullTF(act)

        def lg(th: M.Params, act: M.Act = act, brng: np.random.Generator = brng, model: M.FullTF = model):
            X = brng.standard_normal((N, d, sz.D))  # a fresh batch every step (online GD)
            mix = S if mixing == "position" else softmax(np.swapaxes(X, 1, 2) @ X, axis=-2)
            return model.loss_and_grad(th, D.Sample(X, act(np.matmul(V, X) @ mix), P))

        def err(th: dict, *_: object) -> float:
            return float(np.abs(M.attention(th["W_KQ"][d:, d:], P) - S).max())

        tr = gradient_descent(
            M.Params.zeros(sz.M, d + sz.D, d + sz.D), lg, eta, steps, norms=False, record={"err": err}
        )
        Wv, W = tr.params.W_V, tr.params.W_KQ
        fv = float(np.sum(Wv[:, :d] ** 2) / np.sum(Wv**2))
        fk = float(np.sum(W[d:, d:] ** 2) / np.sum(W**2))
        cos = float(np.sum(Wv[:, :d] * V) / (np.linalg.norm(Wv[:, :d]) * np.linalg.norm(V)))
        A = M.attention(W[d:, d:], P)
        top = np.argsort(-A, axis=0, kind="stable")[: sz.K]
        support = all(set(top[:, i].tolist()) == set(np.nonzero(S[:, i])[0].tolist()) for i in range(sz.D))
        e = tr.extras["err"]
        note = (
            f"{act.name}: loss {tr.loss[0]:.3g} -> {tr.loss[-1]:.3g}; cos(W_V[:, :d], V*) = {cos:.4f}; "
            f"max |S(W_KQ[d:, d:]) - S*| = {e[steps // 10]:.3f} (t = {steps // 10}) -> {e[-1]:.3f} "
            f"(t = {steps}); shares: W_V feature block {fv:.3f}, W_KQ position block {fk:.3f}"
        )
        out.append(Shares(act.name, fv, fk, float(e[steps // 10]), float(e[-1]), support, note, tuple(e)))
    return out


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


@dataclass(frozen=True)
class DigitsRun:
    """Along GD at ``times``: cos(W_V, V*) (flattened), ||A - S*||_F, and at the end the mean |A - S*| over
    the rows (keys) of border and of interior patches; eta: the step used; loss0: the initial loss."""

    times: np.ndarray
    cos: np.ndarray
    attn_err: np.ndarray
    err_border: float
    err_interior: float
    eta: float
    loss0: float
    stopped: str | None


def digits_run(X: np.ndarray, M_out: int, vscale: float, times: np.ndarray) -> DigitsRun:
    """Full-batch GD of the position-only student (P = I) from zero init on the teacher's outputs.

    The step is eta = 1 / lambda, lambda the largest eigenvalue of the W_V curvature W -> W G(A) at
    the uniform attention and at S* (the stable range of the value dynamics is eta < 2 / lambda)."""
    n_tok = X.shape[2]
    V, S, P = D.pca_filters(X, M_out, vscale), D.s_conv_pool(D.GRID, D.POOL), np.eye(n_tok)
    T = M.second_moments(X)
    d = X.shape[1]
    curv = [
        np.linalg.eigvalsh((T @ (A @ A.T).ravel()).reshape(d, d)).max()
        for A in (np.full((n_tok, n_tok), 1 / n_tok), S)
    ]
    eta = 1.0 / max(curv)
    theta, t_now, out, stopped = M.Params.zeros(V.shape[0], d, n_tok), 0, [], None

    def lg(th: M.Params) -> tuple[float, M.Params]:
        loss, g = M.moment_loss_grad(th.W_V, th.W_KQ, P, V, S, T)
        return loss, M.Params(**g)

    loss0 = lg(theta)[0]
    for t in times:
        tr = gradient_descent(theta, lg, eta, int(t) - t_now)
        if tr.state is not RunState.COMPLETED:
            stopped = f"{tr.stopped} before t = {t}"
            break
        theta, t_now = tr.params, int(t)
        A = M.attention(theta.W_KQ, P)
        cos = float(np.sum(theta.W_V * V) / (np.linalg.norm(theta.W_V) * np.linalg.norm(V)))
        out.append((cos, float(np.linalg.norm(A - S))))
    A = M.attention(theta.W_KQ, P)
    err, b = np.abs(A - S).mean(axis=1), D.border_rows()
    arr = np.array(out).reshape(-1, 2)
    return DigitsRun(
        np.asarray(times[: len(out)]), arr[:, 0], arr[:, 1], float(err[b].mean()), float(err[~b].mean()),
        eta, float(loss0), stopped,
    )  # fmt: skip


def log_grid(steps: int, per_decade: int = 4) -> np.ndarray:
    """Log-spaced integer times 1 .. steps, ``per_decade`` per decade (never past ``steps``)."""
    k = np.arange(0, round(per_decade * math.log10(steps)) + 1)
    return np.unique(np.minimum(np.round(10.0 ** (k / per_decade)).astype(int), steps))
