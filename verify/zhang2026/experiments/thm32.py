"""Experiments of ``claims/thm32.py``: the OOD loss and the bounds of Thm 3.2 along a scalar run, and
the worst-case search over OOD laws of its op-norm bound (ii)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from bounds import zhang2026 as B
from bounds.mp import to_float
from verify.core import Ctx
from verify.numerics.worstcase import WorstCase, worst_case
from verify.zhang2026 import data as D
from verify.zhang2026 import model as M
from verify.zhang2026.experiments.runs import ScalarRun


def ood_inputs(
    r: np.random.Generator, kind: str, N: int, d: int, n: int, ar: float
) -> tuple[np.ndarray, float, float]:
    """N OOD inputs X~ (N, d, D) and the (mean, variance) of their entries: iid ``exp`` / ``exp_centred``
    tokens, or ``correlated`` AR(1) Gaussian tokens with coefficient ``ar``."""
    if kind != "correlated":
        return D.sample_inputs(kind, N, d, n, r), *D.input_moments(kind)
    Z = r.standard_normal((N, d, n))
    X = np.empty_like(Z)
    X[:, :, 0] = Z[:, :, 0]
    for j in range(1, n):
        X[:, :, j] = ar * X[:, :, j - 1] + math.sqrt(1 - ar * ar) * Z[:, :, j]
    return X, 0.0, 1.0


@dataclass
class OodCurves:
    """Per tail checkpoint of one OOD input kind: Monte Carlo B and its SE; L_OOD - A_T (paired estimator,
    teacher + independent noise labels); SE of L_OOD; L_OOD; L_OOD - A_T under the worst label law of
    the class (:func:`ood_curves`) and our derived slack eps(T) = B + 2 sqrt(A_T B) on the same sample;
    bound (i); B exact (iid kinds, else empty); the op-norm bound on B."""

    B: list[float]
    B_se: list[float]
    L_minus_A: list[float]
    L_se: list[float]
    L: list[float]
    L_worst: list[float]
    eps: list[float]
    bound_i: list[float]
    B_exact: list[float]
    B_op: list[float]


def limit_error_direction(S: np.ndarray) -> np.ndarray:
    """Q (D, D): the direction S* - C1 A tends to along training, up to the factor -eps (DERIVED,
    derivation Sect. 5.4): 1/(D - K) off the support of each column of a uniform-K teacher, 0 on it (the
    on-support error is O(eps^2)); f*(X~) - TF(X~) = V* X~ (S* - C1 A) -> -eps V* X~ Q."""
    off = S == 0
    return off / off.sum(axis=0, keepdims=True)


def ood_curves(
    ctx: Ctx,
    k: int,
    kind: str,
    prob: tuple[np.ndarray, np.ndarray, int, float],
    sc: ScalarRun,
    N: int,
    tau: float,
    aligned: float = 1.0,
) -> OodCurves:
    """L_OOD, B(T) and the bounds of Thm 3.2 at the scalar run's checkpoints, on N OOD samples (stream
    (2, k)) common across checkpoints. prob = (V*, S*, K, v2 = ||V*||_F^2 as the run used it);
    A_T = 1/2 M D tau^2, AR(1) coefficient 0.6.

    Labels of the stated class (response columns with bounded second moments) at teacher OOD loss A_T:
    teacher plus independent noise (``L_minus_A``: L_OOD - A_T = B in expectation), and the worst law
    (``L_worst``): Y~ = f*(X~) + h(X~) + independent noise, h = -c V* X~ Q (Q:
    :func:`limit_error_direction`, aligned with the student's limiting error) carrying the share
    ``aligned`` of A_T (c from the sample: 1/2 mean ||h||^2 = aligned A_T) and the noise the rest (its
    cross term enters by its expectation, 0). By Cauchy-Schwarz on the sample, L_worst <= eps = B +
    2 sqrt(A_T B); at aligned = 1 it attains eps as the direction of f* - TF converges (the class's
    worst case); at aligned = 0 it is B."""
    V, S, K, v2 = prob
    (m_out, d), n = V.shape, S.shape[0]
    v_op = float(np.linalg.norm(V, 2))
    A_T = 0.5 * m_out * n * tau**2
    r = ctx.rng(2, k)
    X, mu, var = ood_inputs(r, kind, N, d, n, 0.6)
    E = tau * r.standard_normal((N, m_out, n))
    VX = np.einsum("md,ndk->nmk", V, X)
    Ystar = VX @ S
    H = VX @ limit_error_direction(S)
    h = -math.sqrt(2.0 * aligned * A_T / float(np.mean(np.sum(H * H, axis=(1, 2))))) * H
    ex2 = d * n * (var + mu * mu)
    c = OodCurves([], [], [], [], [], [], [], [], [], [])
    for C1, g in zip(sc.C1, sc.g, strict=True):
        A = M.two_level_attention(g, S)
        diff = Ystar - C1 * (VX @ A)  # f* - TF, (N, M, D)
        b = 0.5 * np.sum(diff**2, axis=(1, 2))
        c.B.append(float(b.mean()))
        c.B_se.append(float(b.std(ddof=1) / math.sqrt(N)))
        li = 0.5 * np.sum((diff + E) ** 2, axis=(1, 2))  # 1/2 ||Y~ - TF||^2, Y~ = f* + E
        # L_OOD - A_T by the paired estimator 1/2||f* + E - TF||^2 - 1/2||E||^2 on the same samples
        c.L_minus_A.append(float(np.mean(b + np.sum(E * diff, axis=(1, 2)))))
        c.L_se.append(float(li.std(ddof=1) / math.sqrt(N)))
        c.L.append(float(li.mean()))
        # 1/2||Y~ - TF||^2 - 1/2||Y~ - f*||^2 = B + <h, f* - TF> for the worst law
        c.L_worst.append(float(np.mean(b + np.sum(h * diff, axis=(1, 2)))))
        c.eps.append(c.B[-1] + 2.0 * math.sqrt(A_T * c.B[-1]))
        Delta = S - C1 * A
        bop = to_float(B.ood_B_op_bound(v_op, float(np.linalg.norm(Delta, 2)), ex2))
        if kind != "correlated":
            Bex = to_float(
                B.ood_B_exact(
                    float(np.sum(V * V)) * var,
                    1.0,
                    v2,
                    float(M.scalar_excess(C1, g, n, K, 1.0, v2)),
                    n,
                    C1,
                    float(np.sum((V.sum(axis=1) * mu) ** 2)),
                )
            )
            c.B_exact.append(Bex)
        c.bound_i.append(to_float(B.ood_upper(A_T, Bex if kind != "correlated" else bop)))
        c.B_op.append(bop)
    return c


def ood_op_search(
    rng: np.random.Generator, V: np.ndarray, S: np.ndarray, C1: float, g: float, starts: int, maxiter: int
) -> WorstCase:
    """Worst case of B / bounds.ood_B_op_bound (Thm 3.2 (ii)) over every law of X~ with finite second
    moments, at the trained state W_V = C1 V*, A = the two-level attention of gap g: both sides are
    linear in the law (B = 1/2 E||f*(X~) - TF(X~)||_F^2, the bound in E||X~||_F^2), so the ratio of a
    mixture is at most the largest ratio of its components and the worst law is a point mass X~ = X;
    both are homogeneous of degree 2 in X, so z is X (d, D) flattened and scaled onto the unit sphere.
    Starts N(0, 1)."""
    A = M.two_level_attention(g, S)
    v_op, delta_op = float(np.linalg.norm(V, 2)), float(np.linalg.norm(S - C1 * A, 2))
    bound = to_float(B.ood_B_op_bound(v_op, delta_op, 1.0))  # E||X~||_F^2 = 1 on the sphere
    d, n = V.shape[1], S.shape[0]

    def ratio(z: np.ndarray) -> float:
        VX = V @ (z / np.linalg.norm(z)).reshape(d, n)
        diff = VX @ S - C1 * (VX @ A)  # f*(X) - TF(X)
        return 0.5 * float(np.sum(diff * diff)) / bound

    found = worst_case(ratio, lambda r: r.standard_normal(d * n), rng, starts=starts, maxiter=maxiter)
    return replace(found, argument={"C1": C1, "g": g, "d": d, "D": n})
