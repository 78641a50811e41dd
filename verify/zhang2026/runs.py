"""Runs of the full model that do not use the symmetric reduction: full-matrix population GD batched over
seeds (each teacher with its own S*), online mini-batch SGD (the paper's experimental protocol) on any
input law, and population GD from a small non-zero, non-symmetric initialisation.

Workers take a frozen dataclass point and are module-level functions, so ``ctx.map`` can run them in a
process pool and return them in order (bit-identical to a serial run).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bounds.checks import check_int, check_positive
from verify.numerics.softmax import softmax, softmax_vjp
from verify.zhang2026 import data as D
from verify.zhang2026 import model as M

LIN = M.Act("linear")


def _times(times: Sequence[int]) -> list[int]:
    ts = [check_int("time", int(t), low=1) for t in times]
    if any(b <= a for a, b in itertools.pairwise(ts)):
        raise ValueError("times must be strictly increasing")
    return ts


def batched_population_gd(
    V: np.ndarray, S: np.ndarray, eta: float, times: Sequence[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Full-matrix population GD (linear sigma, Gaussian-moment closed form) from zero init for n
    problems at once: V (n, M, d), S (n, D, D). It runs in logit coordinates Lam = P^T W_KQ P / sqrt(D)
    (P^T P = I: the W_KQ step is the logit step Lam <- Lam - (eta / D) grad_Lam, the same for every
    orthogonal P; ``zhang2026.P_invariance`` checks this on the matrix model). Returns (excess (n_t, n),
    W_V (n_t, n, M, d), A (n_t, n, D, D)) at ``times``."""
    V, S = np.asarray(V, dtype=np.float64), np.asarray(S, dtype=np.float64)
    eta, ts = check_positive("eta", eta), _times(times)
    n_tok = S.shape[1]
    W, Lam = np.zeros_like(V), np.zeros_like(S)
    vv, ss = np.einsum("nmd,nmd->n", V, V), np.einsum("nij,nij->n", S, S)
    out_e, out_w, out_a, t_now = [], [], [], 0
    for t in ts:
        for _ in range(t - t_now):
            A = softmax(Lam, axis=-2)
            vw, ww = np.einsum("nmd,nmd->n", V, W), np.einsum("nmd,nmd->n", W, W)
            sa, aa = np.einsum("nij,nij->n", S, A), np.einsum("nij,nij->n", A, A)
            g_a = ww[:, None, None] * A - vw[:, None, None] * S
            W = W - eta * (aa[:, None, None] * W - sa[:, None, None] * V)
            Lam = Lam - (eta / n_tok) * softmax_vjp(A, g_a, axis=-2)
        t_now = t
        A = softmax(Lam, axis=-2)
        vw, ww = np.einsum("nmd,nmd->n", V, W), np.einsum("nmd,nmd->n", W, W)
        sa, aa = np.einsum("nij,nij->n", S, A), np.einsum("nij,nij->n", A, A)
        out_e.append(0.5 * (vv * ss - 2 * vw * sa + ww * aa))
        out_w.append(W.copy())
        out_a.append(A)
    return np.array(out_e), np.array(out_w), np.array(out_a)


@dataclass(frozen=True)
class SgdPoint:
    """One online-SGD run: ``seed`` (problem from stream (seed, 1), batches from (seed, 2)); input law
    ``kind``; circulant uniform-K teacher of sizes (D, K, M, d) with ||V*||_F = vnorm; step eta; fresh
    batches of ``batch`` inputs per step; Gaussian label noise of s.d. tau; sampling ``times``."""

    seed: int
    kind: str
    D: int
    K: int
    M: int
    d: int
    eta: float
    vnorm: float
    batch: int
    tau: float
    times: tuple[int, ...]


def sgd_curve(p: SgdPoint) -> dict[str, list[float]]:
    """Online mini-batch SGD of the position-only student (linear sigma) from zero init; at each sampling
    time the exact population excess of the iterate (the closed form needs only the input law's mean
    and variance), the Lemma C.2 residual ||W_V - c V*|| / ||W_V||, ||W_V - V*||_F / ||V*||_F and
    max |A - S*|."""
    rng = np.random.default_rng([p.seed, 1])
    S, V = D.s_circulant(p.D, p.K), D.random_v(p.M, p.d, rng, p.vnorm)
    P = M.random_orthogonal(p.D, rng)
    srng = np.random.default_rng([p.seed, 2])
    mu, var = D.input_moments(p.kind)
    W, KQ, t_now = np.zeros((p.M, p.d)), np.zeros((p.D, p.D)), 0
    out: dict[str, list[float]] = {"excess": [], "resid": [], "value_err": [], "max_entry": []}
    for t in _times(p.times):
        for _ in range(t - t_now):
            X = D.sample_inputs(p.kind, p.batch, p.d, p.D, srng)
            Y = np.matmul(V, X) @ S
            if p.tau:
                Y = Y + p.tau * srng.standard_normal(Y.shape)
            g = M.mc_loss_grad(W, KQ, P, X, Y, LIN)[1]
            W, KQ = W - p.eta * g["W_V"], KQ - p.eta * g["W_KQ"]
        t_now = t
        out["excess"].append(M.linear_loss_grad(W, KQ, P, V, S, var, mu)[0])
        c = float(np.sum(W * V) / np.sum(V * V))
        out["resid"].append(float(np.linalg.norm(W - c * V) / np.linalg.norm(W)))
        out["value_err"].append(float(np.linalg.norm(W - V) / np.linalg.norm(V)))
        out["max_entry"].append(float(np.abs(M.attention(KQ, P) - S).max()))
    return out


@dataclass(frozen=True)
class AsymPoint:
    """Population GD (linear sigma) of a circulant (D, K) teacher from W_V(0) = scale ||V*||_F Z / ||Z||
    and logits Lam(0) with iid N(0, scale^2) entries (non-symmetric), stream (seed, 1); step eta."""

    seed: int
    D: int
    K: int
    M: int
    d: int
    eta: float
    vnorm: float
    scale: float
    times: tuple[int, ...]


def asym_curve(p: AsymPoint) -> dict[str, list[float]]:
    """The full-matrix run of ``p``: excess, Lemma C.2 residual, and the largest relative spread (max -
    min) / mean of the on-support and of the off-support attention entries within a column (0 on the
    two-level form of the symmetric reduction)."""
    rng = np.random.default_rng([p.seed, 1])
    S, V = D.s_circulant(p.D, p.K), D.random_v(p.M, p.d, rng, p.vnorm)
    P = M.random_orthogonal(p.D, rng)
    Z = rng.standard_normal((p.M, p.d))
    W = p.scale * p.vnorm * Z / np.linalg.norm(Z)
    KQ = P @ (p.scale * rng.standard_normal((p.D, p.D))) @ P.T * math.sqrt(p.D)
    on, t_now = S > 0, 0
    out: dict[str, list[float]] = {"excess": [], "resid": [], "spread_on": [], "spread_off": []}
    for t in _times(p.times):
        for _ in range(t - t_now):
            g = M.linear_loss_grad(W, KQ, P, V, S)[1]
            W, KQ = W - p.eta * g["W_V"], KQ - p.eta * g["W_KQ"]
        t_now = t
        out["excess"].append(M.linear_loss_grad(W, KQ, P, V, S)[0])
        c = float(np.sum(W * V) / np.sum(V * V))
        out["resid"].append(float(np.linalg.norm(W - c * V) / np.linalg.norm(W)))
        A = M.attention(KQ, P)
        for name, mask in (("spread_on", on), ("spread_off", ~on)):
            cols = [A[mask[:, i], i] for i in range(p.D)]
            out[name].append(max(float(np.ptp(c_) / c_.mean()) for c_ in cols))
    return out
