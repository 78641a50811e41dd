"""A stand-in for the paper's MNIST experiment on scikit-learn's bundled 8x8 digits (no download).

The paper's teacher is the first conv layer of a trained CNN followed by 3x3 average pooling (K = 9) on
MNIST; neither is available offline. The stand-in keeps the structure: each 8x8 image (pixels / 16) is
cut into 3x3 patches at stride 1 (a 6x6 patch grid, D = 36 tokens of d = 9 pixels), the teacher's
filters V* (M, 9) are the top-M principal directions of all patches scaled to rows of norm ``vscale``,
S* is 3x3 average pooling on the patch grid (4 blocks of K = 9), sigma = id, and the student is trained
by full-batch GD on all 1797 images from zero init. For sigma = id the empirical loss and its gradients
depend on the data only through the second-moment tensor (:func:`~verify.zhang2026.model.moment_loss_grad`),
so every step is exact and costs the same as a population step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bounds.checks import check_int, check_positive
from verify.numerics.gd import RunState, gradient_descent
from verify.zhang2026 import data as D
from verify.zhang2026 import model as M

GRID, PATCH, POOL = 6, 3, 3


def load_patches() -> np.ndarray:
    """The digits as patch tokens X (1797, 9, 36); raises ImportError without scikit-learn."""
    from sklearn.datasets import load_digits  # the ``data`` extra; imported only here

    img = load_digits().images / 16.0
    cols = [
        img[:, r : r + PATCH, c : c + PATCH].reshape(len(img), PATCH * PATCH)
        for r in range(GRID)
        for c in range(GRID)
    ]
    return np.stack(cols, axis=2)


def pca_filters(X: np.ndarray, M_out: int, vscale: float) -> np.ndarray:
    """V* (M_out, 9): the top principal directions of all patches (covariance), each row of norm vscale,
    signed so that its pixel sum is positive."""
    allp = X.transpose(0, 2, 1).reshape(-1, X.shape[1])
    _, U = np.linalg.eigh(np.cov(allp.T))
    V = U[:, ::-1][:, : check_int("M", M_out, low=1, high=X.shape[1])].T.copy()
    V *= np.where(V.sum(axis=1) < 0, -1.0, 1.0)[:, None]
    return check_positive("vscale", vscale) * V


def border_rows() -> np.ndarray:
    """Boolean (36,): the patch positions on the border of the 6x6 patch grid."""
    r, c = np.divmod(np.arange(GRID * GRID), GRID)
    return (r == 0) | (r == GRID - 1) | (c == 0) | (c == GRID - 1)


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


def run(X: np.ndarray, M_out: int, vscale: float, times: np.ndarray) -> DigitsRun:
    """Full-batch GD of the position-only student (P = I) from zero init on the teacher's outputs.

    The step is eta = 1 / lambda, lambda the largest eigenvalue of the W_V curvature W -> W G(A) at
    the uniform attention and at S* (the stable range of the value dynamics is eta < 2 / lambda)."""
    n_tok = X.shape[2]
    V, S, P = pca_filters(X, M_out, vscale), D.s_conv_pool(GRID, POOL), np.eye(n_tok)
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
    err, b = np.abs(A - S).mean(axis=1), border_rows()
    arr = np.array(out).reshape(-1, 2)
    return DigitsRun(
        np.asarray(times[: len(out)]), arr[:, 0], arr[:, 1], float(err[b].mean()), float(err[~b].mean()),
        eta, float(loss0), stopped,
    )  # fmt: skip


def log_grid(steps: int, per_decade: int = 4) -> np.ndarray:
    """Log-spaced integer times 1 .. steps, ``per_decade`` per decade."""
    k = np.arange(0, round(per_decade * math.log10(steps)) + 1)
    return np.unique(np.round(10.0 ** (k / per_decade)).astype(int))
