"""Experiments of claims/thm2.py (yang2024.thm2.limit, thm2.bound, thm2.copy): Theorem 2's inference
and copy ratios and their worst case over theta and prompt."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from bounds import yang2024 as B
from verify.numerics.worstcase import WorstCase, worst_case
from verify.yang2024 import data as D
from verify.yang2024 import model as M
from verify.yang2024.experiments.runs import search_argument


def inference_ratio(params: M.Params, problem: D.Problem, y: np.ndarray) -> np.ndarray:
    """LHS / RHS of Theorem 2's deterministic bound per prompt of y (n, N): (1/(2K)) ||y-hat - y-hat*||^2
    over bounds.inference_bound(Delta(theta), ||y||^2, K, lambda_min(G)), (n,); y-hat* = A^T y
    (bounds.limit_predictor, the proof's form; equal to the ridge by yang2024.ridge_equiv)."""
    model = M.Transformer(params.Q.shape[0])
    diff = model.predict(params, problem, y) - B.limit_predictor(problem.A, y)
    rhs = B.inference_bound(
        model.excess_loss(params, problem), np.sum(y * y, axis=1), problem.K, problem.lam_min_G
    )
    return 0.5 * np.sum(diff * diff, axis=1) / problem.K / rhs


def copy_error(params: M.Params, problem: D.Problem, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(max_{k<=N} |y-hat_k - y_k| per prompt of y (n, N), its ratio to bounds.copy_bound(Delta, ||y||^2,
    lambda_min(G)), Delta(theta)): the copy bound of Theorem 2."""
    model = M.Transformer(params.Q.shape[0])
    err = np.max(np.abs(model.predict(params, problem, y)[:, : problem.N] - y), axis=1)
    Delta = model.excess_loss(params, problem)
    return err, err / B.copy_bound(Delta, np.sum(y * y, axis=1), problem.lam_min_G), Delta


def theta_prompt_search(
    rng: np.random.Generator,
    problem: D.Problem,
    H: int,
    ratio: Callable[[M.Params, D.Problem, np.ndarray], np.ndarray],
    starts: int,
    maxiter: int,
) -> WorstCase:
    """Worst case of ``ratio(theta, problem, y[None])[0]`` over every theta = (Q, w) of H heads and one
    prompt y (N,): z = (Q, w, y) flattened, unconstrained (both bounds of Theorem 2 are homogeneous in y
    and hold for any theta); starts N(0, 1) (Q at the paper's init scale beta = 1)."""
    p = problem
    sizes = (H * p.d * p.d, H * p.K)

    def r(z: np.ndarray) -> float:
        Q, w, y = np.split(z, np.cumsum(sizes))
        return float(ratio(M.Params(Q=Q.reshape(H, p.d, p.d), w=w.reshape(H, p.K)), p, y[None])[0])

    found = worst_case(r, lambda g: g.standard_normal(sum(sizes) + p.N), rng, starts=starts, maxiter=maxiter)
    return replace(found, argument=search_argument(p, H))
