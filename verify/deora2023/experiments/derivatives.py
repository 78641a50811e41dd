"""Experiments of ``claims/derivatives.py`` (.grad, .hvp, .softmax): the softmax facts behind the bounds
(||diag(s) - s s^T|| <= 1/2, Popoviciu's variance bound, the third cumulant), their ratios over random
softmax vectors and their worst-case search.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bounds import deora2023 as B
from verify.deora2023.experiments.runs import worst_case_search
from verify.numerics.softmax import softmax
from verify.numerics.worstcase import WorstCase


def jacobian_ratios(s: np.ndarray) -> np.ndarray:
    """||diag(s) - s s^T|| / (1/2) for every row of s (m, T)."""
    J = np.einsum("mi,ij->mij", s, np.eye(s.shape[1])) - s[:, :, None] * s[:, None, :]
    return np.linalg.eigvalsh(J)[:, -1] / B.SOFTMAX_JACOBIAN_NORM


def variance_ratios(s: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Var_s(a) / (range(a)^2 / 4) for every row."""
    var = np.sum(s * a**2, 1) - np.sum(s * a, 1) ** 2
    return var / np.vectorize(B.variance_bound)(np.ptp(a, axis=1))


def kappa3_ratios(s: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|k3_s(a, b, b)| / (range(a) range(b)^2 / 4) for every row."""
    k3 = np.sum(s * (a - np.sum(s * a, 1, keepdims=True)) * (b - np.sum(s * b, 1, keepdims=True)) ** 2, 1)
    return np.abs(k3) / np.vectorize(B.kappa3_bound)(np.ptp(a, axis=1), np.ptp(b, axis=1))


#: The softmax facts: name -> (how many length-T vectors the inequality takes, logits first; row ratios).
SOFTMAX_FACTS = {"jacobian": (1, jacobian_ratios), "variance": (2, variance_ratios),
                 "kappa3": (3, kappa3_ratios)}  # fmt: skip


def softmax_ratios(rng: np.random.Generator, draws: int) -> dict[str, float]:
    """Largest ratio to its bound of ||diag(s) - s s^T||, Var_s(a) and |k3_s(a, b, b)| over random softmax
    vectors (T in [2, 50], logit scale up to 50) plus the extremal two-point s = (1/2, 1/2, 0, ...)."""
    worst = dict.fromkeys(SOFTMAX_FACTS, 0.0)
    for T in range(2, 51, 8):
        m = max(1, draws // 7)
        z = rng.standard_normal((m, T)) * rng.uniform(0, 50, size=(m, 1))
        s = softmax(z)  # the softmax the model uses
        s = np.concatenate([s, np.pad([[0.5, 0.5]], ((0, 0), (0, T - 2)))])
        a = rng.standard_normal((s.shape[0], T)) * rng.uniform(0.1, 10, size=(s.shape[0], 1))
        b = rng.standard_normal(a.shape)
        for name, (k, fn) in SOFTMAX_FACTS.items():
            worst[name] = max(worst[name], float(np.max(fn(s, *(a, b)[: k - 1]))))
    return worst


def softmax_ratio_search(
    rng: np.random.Generator, T: int, starts: int, maxiter: int, rtol: float
) -> dict[str, WorstCase]:
    """Worst case of each softmax fact (:data:`SOFTMAX_FACTS`) over the logits and the vectors it takes:
    z = (logits, a, b)[:k T]. The ratio is divided by 1 + rtol (the claim's round-off margin: the
    Jacobian and Popoviciu bounds are attained exactly, where float64 lands on either side of 1)."""
    out = {}
    for name, (k, fn) in SOFTMAX_FACTS.items():

        def ratio(z: np.ndarray, k: int = k, fn: Callable[..., np.ndarray] = fn) -> float:
            rows = z.reshape(k, 1, T)
            return float(fn(softmax(rows[0]), *rows[1:])[0]) / (1 + rtol)

        arg = {"fact": name, "T": T, "rtol": rtol}
        out[name] = worst_case_search(ratio, k * T, rng, starts, maxiter, arg)
    return out
