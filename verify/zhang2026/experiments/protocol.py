"""Experiments of ``claims/protocol.py`` beyond the shared SGD worker: population GD of the full matrix
model from a small non-zero, non-symmetric initialisation."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from verify.zhang2026 import model as M
from verify.zhang2026.experiments.runs import Size, checked_times, circulant_problem, step_at


@dataclass(frozen=True)
class AsymPoint:
    """Population GD (linear sigma) of a circulant (D, K) teacher from W_V(0) = scale ||V*||_F Z / ||Z||
    and logits Lam(0) with iid N(0, scale^2) entries (non-symmetric), stream (seed, 1); step eta;
    t_decay: the step schedule of :func:`step_at` (0: constant)."""

    seed: int
    D: int
    K: int
    M: int
    d: int
    eta: float
    vnorm: float
    scale: float
    times: tuple[int, ...]
    t_decay: float = 0.0


def asym_curve(p: AsymPoint) -> dict[str, list[float]]:
    """The full-matrix run of ``p``: excess, Lemma C.2 residual, and the largest relative spread (max -
    min) / mean of the on-support and of the off-support attention entries within a column (0 on the
    two-level form of the symmetric reduction)."""
    rng = np.random.default_rng([p.seed, 1])
    S, V, P = circulant_problem(rng, Size(p.D, p.K, p.M, p.d), p.vnorm)
    Z = rng.standard_normal((p.M, p.d))
    W = p.scale * p.vnorm * Z / np.linalg.norm(Z)
    KQ = P @ (p.scale * rng.standard_normal((p.D, p.D))) @ P.T * math.sqrt(p.D)
    on, t_now = S > 0, 0
    out: dict[str, list[float]] = {"excess": [], "resid": [], "spread_on": [], "spread_off": []}
    for t in checked_times(p.times, low=1):
        for k in range(t_now, t):
            g = M.linear_loss_grad(W, KQ, P, V, S)[1]
            et = step_at(p.eta, k, p.t_decay)
            W, KQ = W - et * g["W_V"], KQ - et * g["W_KQ"]
        t_now = t
        out["excess"].append(M.linear_loss_grad(W, KQ, P, V, S)[0])
        c = float(np.sum(W * V) / np.sum(V * V))
        out["resid"].append(float(np.linalg.norm(W - c * V) / np.linalg.norm(W)))
        A = M.attention(KQ, P)
        for name, mask in (("spread_on", on), ("spread_off", ~on)):
            cols = [A[mask[:, i], i] for i in range(p.D)]
            out[name].append(max(float(np.ptp(c_) / c_.mean()) for c_ in cols))
    return out
