"""Experiments of claims/ridge.py (yang2024.ridge_equiv, lemma4, repdim, fig3, fig3.near, lmmse): the
Monte Carlo of Lemma 4, the Fig. 3 draws (cached) and paired differences over them."""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from bounds import yang2024 as B
from bounds.checks import check_int
from verify.core import Ctx
from verify.yang2024 import data as D
from verify.yang2024.experiments.runs import freeze


@dataclass(frozen=True)
class Lemma4MC:
    """Monte Carlo of Lemma 4: objective means and SEs at the grid lambdas (grid,), the pooled argmin
    (m,) and the argmins of the batches (batches, m)."""

    mean: np.ndarray
    se: np.ndarray
    argmin: np.ndarray
    batch_argmins: np.ndarray


def lemma4_monte_carlo(
    problem: D.Problem, y: np.ndarray, lams: np.ndarray, draws: int, batches: int, rng: np.random.Generator
) -> Lemma4MC:
    """Objective (24) over ``draws`` feature-noise draws eps-tilde_i ~ N(0, tau I) in ``batches``
    batches: its mean at each lambda of ``lams`` (grid, m) and the argmin of the quadratic."""
    p, grid = problem, lams.shape[0]
    M_ = np.zeros((p.m, p.m))
    b = np.zeros(p.m)
    s1 = np.zeros(grid)
    s2 = np.zeros(grid)
    done, batch, lam_b = 0, -(-draws // batches), []
    while done < draws:
        n = min(batch, draws - done)
        F = p.Z[None] + math.sqrt(p.tau) * rng.standard_normal((n, p.m, p.N))  # noisy features
        r = y[None, None, :] - np.einsum("gm,nmi->ngi", lams, F)
        obj = 0.5 * np.sum(r * r, axis=2) / p.N  # (n, grid)
        s1 += obj.sum(0)
        s2 += np.sum(obj * obj, axis=0)
        Mb, bb = np.einsum("nmi,nli->ml", F, F), np.einsum("nmi,i->m", F, y)
        lam_b.append(np.linalg.solve(Mb / n, bb / n))
        M_ += Mb
        b += bb
        done += n
    mean = s1 / draws
    se = np.sqrt(np.maximum(s2 / draws - mean**2, 0) / (draws - 1))
    return Lemma4MC(mean, se, np.linalg.solve(M_ / draws, b / draws), np.array(lam_b))


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
