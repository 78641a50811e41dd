"""Experiments of claims/fig3.py (yang2024.fig3, fig3.near, lmmse): the Fig. 3 draws (cached) and
paired differences over them."""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from bounds import yang2024 as B
from bounds.checks import check_int
from verify.core import Ctx
from verify.yang2024.experiments.runs import freeze


@dataclass(frozen=True)
class Fig3Draws:
    """Closed-form expectations over lambda and noise, one row per representation draw and one column
    per N (draws, len(Ns)): the Fig. 3 gap (1/K) E||y-hat* - y-hat_best||^2 and each estimator's error
    against the truth (1/K) E||Z_Q^T (lambda-estimate - lambda)||^2 (transformer: penalty m tau;
    'best': N tau)."""

    Ns: tuple[int, ...]
    gap: np.ndarray
    err_transformer: np.ndarray
    err_best: np.ndarray


@functools.cache
def fig3_draws(seed: int, K: int, m: int, tau: float, Ns: tuple[int, ...], draws: int) -> Fig3Draws:
    """``draws`` nested representation draws from ctx.rng(20): one Z-tilde (m, K) per draw, prompt =
    its first N columns for every N (so N and m compare on the same draws); cached, read-only."""
    Ns = tuple(check_int("N", n, low=1, high=K - 1) for n in Ns)
    rng = Ctx(seed=seed).rng(20)
    out = np.zeros((3, check_int("draws", draws), len(Ns)))
    for i in range(draws):
        Zt = rng.standard_normal((m, K))
        for j, N in enumerate(Ns):
            Z, Z_Q = Zt[:, :N], Zt[:, N:]
            out[:, i, j] = (
                B.fig3_gap(Z, Z_Q, tau),
                B.expected_error(Z, Z_Q, tau, m * tau),
                B.expected_error(Z, Z_Q, tau, N * tau),
            )
    return Fig3Draws(Ns, *(freeze(a) for a in out.copy()))


def paired_diffs(
    values: np.ndarray, pairs: list[tuple[int, int]], z: float
) -> list[tuple[int, int, float, float]]:
    """For column pairs (a, b): (a, b, mean of values[:, b] - values[:, a], z times its standard error
    over the rows): paired differences with a normal confidence half-width."""
    out = []
    for a, b in pairs:
        d = values[:, b] - values[:, a]
        out.append((a, b, float(d.mean()), z * float(d.std(ddof=1)) / math.sqrt(d.size)))
    return out


def paired_steps(values: np.ndarray, order: list[int], z: float) -> list[tuple[int, int, float, float]]:
    """:func:`paired_diffs` of successive columns (a, b) of ``order``."""
    return paired_diffs(values, list(itertools.pairwise(order)), z)
