"""Experiments of claims/ridge.py (yang2024.ridge_equiv, lemma4, repdim): the Monte Carlo of
Lemma 4."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from verify.yang2024 import data as D


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
