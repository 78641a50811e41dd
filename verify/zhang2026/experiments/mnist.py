"""Experiments of ``claims/mnist.py``: full-batch GD on the digits stand-in for the paper's MNIST
experiment."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verify.core import Ctx, experiment
from verify.numerics.gd import RunState, gradient_descent
from verify.zhang2026 import data as D
from verify.zhang2026 import model as M
from verify.zhang2026.experiments.runs import log_grid


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


@experiment
def digits_run(ctx: Ctx, M_out: int, vscale: float, steps: int) -> DigitsRun:
    """Full-batch GD of the position-only student (P = I) from zero init on the teacher's outputs, on the
    digits' patches (:func:`~verify.zhang2026.data.load_patches`; ImportError without scikit-learn),
    measured at ``log_grid(steps)``; deterministic (``ctx`` keys the run within a judged claim).

    The step is eta = 1 / lambda, lambda the largest eigenvalue of the W_V curvature W -> W G(A) at
    the uniform attention and at S* (the stable range of the value dynamics is eta < 2 / lambda)."""
    X, times = D.load_patches(), log_grid(steps)
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
    const = M.moment_loss_const(V, S, T)  # the loss's term free of the student, once for the run

    def lg(th: M.Params) -> tuple[float, M.Params]:
        loss, g = M.moment_loss_grad(th.W_V, th.W_KQ, P, V, S, T, const)
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
