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


class _Rows:
    """The Fig. 3 values of the nested draws of one (seed, K, m, tau), computed on demand and kept: the
    draws of ctx.rng(20) in order (one Z-tilde (m, K) each) and, per (draw, N), (gap, error of the
    transformer, error of 'best'), so that grids of N and numbers of draws that overlap share them."""

    def __init__(self, seed: int, K: int, m: int, tau: float) -> None:
        self.rng, self.K, self.m, self.tau = Ctx(seed=seed).rng(20), K, m, tau
        self.Zt: list[np.ndarray] = []
        self.values: dict[tuple[int, int], tuple[float, float, float]] = {}

    def row(self, i: int, N: int) -> tuple[float, float, float]:
        """(gap, transformer's error, 'best''s error) of draw ``i`` at prompt length ``N``."""
        if (i, N) not in self.values:
            while len(self.Zt) <= i:
                self.Zt.append(self.rng.standard_normal((self.m, self.K)))
            Z, Z_Q, tau = self.Zt[i][:, :N], self.Zt[i][:, N:], self.tau
            self.values[i, N] = (
                B.fig3_gap(Z, Z_Q, tau),
                B.expected_error(Z, Z_Q, tau, self.m * tau),
                B.expected_error(Z, Z_Q, tau, N * tau),
            )
        return self.values[i, N]


@functools.cache
def fig3_rows(seed: int, K: int, m: int, tau: float) -> _Rows:
    """The per-process store of the Fig. 3 values of (seed, K, m, tau) (:class:`_Rows`); tests that
    change the formulas clear it with :func:`fig3_draws`'s cache."""
    return _Rows(seed, K, m, tau)


@functools.cache
def fig3_draws(seed: int, K: int, m: int, tau: float, Ns: tuple[int, ...], draws: int) -> Fig3Draws:
    """``draws`` nested representation draws from ctx.rng(20): one Z-tilde (m, K) per draw, prompt =
    its first N columns for every N (so N and m compare on the same draws); cached, read-only (the values
    per draw and N are shared with the other grids and numbers of draws, :func:`fig3_rows`)."""
    Ns = tuple(check_int("N", n, low=1, high=K - 1) for n in Ns)
    rows = fig3_rows(seed, K, m, tau)
    out = np.zeros((3, check_int("draws", draws), len(Ns)))
    for i in range(draws):
        for j, N in enumerate(Ns):
            out[:, i, j] = rows.row(i, N)
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
