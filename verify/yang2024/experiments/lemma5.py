"""Experiments of claims/lemma5.py (yang2024.lemma5, A_identity, grad, Lstar_attained): a random theta
and the Monte Carlo of Lemma 5's loss."""

from __future__ import annotations

import math

import numpy as np

from verify.yang2024 import data as D
from verify.yang2024 import model as M


def random_theta(problem: D.Problem, H: int, rng: np.random.Generator) -> M.Params:
    """Q Gaussian (beta = 1), w ~ 0.3 N(0, 1) (the inputs of yang2024.lemma5 and yang2024.grad)."""
    th = M.Transformer(H).init(problem, 1.0, rng)
    return th.replace(w=0.3 * rng.standard_normal(th.w.shape))


def lemma5_monte_carlo(
    problem: D.Problem, Ahat: np.ndarray, draws: int, rng: np.random.Generator, chunk: int = 20_000
) -> tuple[float, float]:
    """(mean, SE) of 1/2 sum_k (y-hat_k - y_k)^2 over ``draws`` prompts, lambda ~ N(0, I_m) and noise
    on the representation (literal eq. 1), predictions y-hat = Ahat^T y."""
    total, total2, done = 0.0, 0.0, 0
    while done < draws:
        n = min(chunk, draws - done)
        lam = D.sample_tasks(n, problem.m, rng, "id")
        y = D.sample_labels(problem, lam, rng, noise="representation")
        r = y[:, : problem.N] @ Ahat - y
        ell = 0.5 * np.sum(r * r, axis=1)
        total, total2, done = total + float(ell.sum()), total2 + float(np.sum(ell * ell)), done + n
    mean = total / draws
    return mean, math.sqrt(max(total2 / draws - mean * mean, 0.0) / (draws - 1))
