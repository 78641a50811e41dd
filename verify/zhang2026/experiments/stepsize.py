"""Experiments of ``claims/stepsize.py``: monotone runs of the scalar recursions at a given step (centred
inputs, or inputs with a mean through the non-centred recursion) and the largest stable step."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from bounds.checks import check_array, check_int, check_positive, check_real
from verify.zhang2026 import model as M
from verify.zhang2026.experiments.runs import checked_times, scalar_run


def monotone_run(
    n: int,
    K: int,
    eta: float,
    v2: float,
    steps: int,
    rtol: float,
    mu: float = 0.0,
    shape: tuple[int, int] = (2, 3),
) -> tuple[bool, float]:
    """(the excess is finite and non-increasing at every step up to relative round-off rtol, final excess)
    of the linear scalar recursion at step size eta. mu != 0: inputs of mean mu (unit variance) through
    :func:`scalar_run_mean`, with V* of ``shape`` (M, d), equal entries and ||V*||_F^2 = v2 (V* 1 along
    the mean term)."""
    try:
        with np.errstate(all="ignore"):
            if mu:
                V = np.full(shape, math.sqrt(v2 / (shape[0] * shape[1])))
                ex = scalar_run_mean(V, n, K, eta, list(range(steps + 1)), 1.0, mu)[0]
            else:
                ex = scalar_run(n, K, eta, list(range(steps + 1)), 1.0, v2).excess
        inc = ~(np.diff(ex) <= rtol * ex[:-1])
        return bool(np.all(np.isfinite(ex)) and not inc.any()), float(ex[-1])
    except (OverflowError, ValueError):
        return False, float("nan")


def scalar_run_mean(
    V: np.ndarray, D: int, K: int, eta: float, times: Sequence[int], sx2: float = 1.0, mu: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Linear sigma, uniform-K S*, iid entries of mean ``mu`` and variance ``sx2`` (raw Gumbel, Exp(1)):
    W_V = alpha V* + beta V* 1 1^T stays in this 2-dimensional span (the mean term of
    :func:`~verify.zhang2026.model.linear_loss_grad` is -mu^2 D (V* - W_V) 1 1^T) and the attention
    keeps two levels with gap g:

        alpha <- alpha - eta sx2 D (|a|^2 alpha - u),
        beta  <- beta - eta (sx2 D |a|^2 beta - mu^2 D (1 - alpha - beta d)),
        g     <- g - eta u v sx2 (|W_V|^2 (u - v) - <V*, W_V> / K).

    Returns (excess, alpha, beta, g) at ``times``; the Lemma C.2 residual is
    |beta| ||V* 1 1^T|| / ||W_V||."""
    V = check_array("V", V, ndim=2)
    D, K = check_int("D", D, low=2), check_int("K", K, low=1)
    if K >= D:
        raise ValueError(f"K must lie in [1, D-1], got K={K}, D={D}")
    eta, sx2, mu = check_positive("eta", eta), check_positive("sx2", sx2), check_real("mu", mu)
    ts = checked_times(times, low=0)
    d = V.shape[1]
    vv, w1 = float(np.vdot(V, V)), float(np.sum(V.sum(axis=1) ** 2))
    DmK, invK, m2D, exp = float(D - K), 1.0 / K, mu * mu * D, math.exp
    al = be = g = 0.0
    t_now, out = 0, []
    for t in ts:
        for _ in range(t - t_now):
            e = exp(g)
            den = K * e + DmK
            u = e / den
            v = 1.0 / den
            na2 = K * u * u + DmK * v * v
            ww = al * al * vv + 2.0 * al * be * w1 + be * be * d * w1
            vw = al * vv + be * w1
            gd = sx2 * (ww * (u - v) - vw * invK)
            al, be = (
                al - eta * sx2 * D * (na2 * al - u),
                be - eta * (sx2 * D * na2 * be - m2D * (1.0 - al - be * d)),
            )
            g = g - eta * u * v * gd
        t_now = t
        u, v = M.scalar_state(g, D, K)
        na2 = K * u * u + DmK * v * v
        ww = al * al * vv + 2.0 * al * be * w1 + be * be * d * w1
        vw = al * vv + be * w1
        ex = 0.5 * sx2 * D * (vv * invK - 2.0 * vw * u + ww * na2)
        ex += 0.5 * m2D * (1.0 - al - be * d) ** 2 * w1
        out.append((ex, al, be, g))
    arr = np.array(out, dtype=np.float64).reshape(-1, 4)
    return arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3]


def largest_stable_eta(n: int, K: int, eta0: float, v2: float, steps: int) -> float | None:
    """The largest eta0 * 2^k (k < 12) whose run stays finite and ends below the initial excess."""
    largest = None
    for k in range(0, 12):
        eta = eta0 * 2**k
        try:
            with np.errstate(all="ignore"):
                r = scalar_run(n, K, eta, [steps], 1.0, v2)
            fine = bool(np.isfinite(r.excess[-1]) and r.excess[-1] < M.scalar_excess(0, 0, n, K, 1.0, v2))
        except (OverflowError, ValueError):
            fine = False
        if not fine:
            break
        largest = eta
    return largest
