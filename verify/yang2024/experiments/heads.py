"""Experiments of claims/heads.py (yang2024.multihead.H1, heads.HltN, heads.speed, heads.tuned,
heads.stall): GD at a gamma that does not diverge, the loss floor at fixed Q and its worst-case search,
GD at a step tuned per H."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from bounds import yang2024 as B
from bounds.checks import check_int, check_positive
from verify.numerics.gd import RunState, gradient_descent
from verify.numerics.worstcase import WorstCase, worst_case
from verify.yang2024 import data as D
from verify.yang2024 import model as M
from verify.yang2024.experiments.runs import (
    EPS,
    GAMMA,
    Run,
    canonical_run,
    init_for,
    problem_for,
    search_argument,
    step_sizes,
)

#: the gammas tried in turn when GD diverges at the default GAMMA
GAMMA_LADDER = (3.0, 10.0, 30.0)


def stable_run(seed: int, config: D.Config, H: int, steps: int) -> Run:
    """The canonical run at the smallest gamma of :data:`GAMMA_LADDER` for which GD does not diverge:
    the default step rule only controls the w-block, and with few heads the Q-block can be stiffer (the
    paper's eta_Q <= 1/L with its L NOT RECOVERED). Larger gamma = smaller eta_Q, same eta_w."""
    for gamma in GAMMA_LADDER:
        r = canonical_run(seed, config, H, steps, gamma)
        if not r.diverged:
            break
    return r


def fixed_Q_floor(Q: np.ndarray, problem: D.Problem) -> float:
    """min over w of Delta(Q, w) = 1/2 sum_k ||(I - P_k) Zbar A_k||^2, P_k the orthogonal projector onto
    range(B_k), B_k = Zbar C_k (N, H): the loss floor at fixed Q (DERIVED: Lemma 5 is a least-squares
    problem in each w_{:,k}). rank B_k <= H, so for H < N the floor is positive unless Zbar A_k happens to
    lie in range(B_k); for H >= N with rank C_k = N it is 0 (L* attained)."""
    C = M.Transformer(Q.shape[0]).attention(Q, problem).transpose(2, 1, 0)  # (K, N, H)
    Bm = np.matmul(problem.Zbar, C)
    target = (problem.Zbar @ problem.A).T[:, :, None]  # (K, N, 1)
    r = Bm @ (np.linalg.pinv(Bm) @ target) - target
    return 0.5 * float(np.sum(r * r))


def one_head_search(
    rng: np.random.Generator,
    problem: D.Problem,
    starts: int,
    maxiter: int,
    first: np.ndarray | None = None,
    H: int = 1,
) -> WorstCase:
    """Worst case of the one-head orthant floor / Delta(Q, w) over every theta = (Q, w) of H heads (1: the
    statement; more: its alternative world): at fixed Q, Delta is a least-squares problem in w with
    minimum :func:`fixed_Q_floor`, so z = Q (H, d, d) flattened and w is the exact minimiser (the ratio is
    maximised over w in closed form); starts N(0, 1), the first of them replaced by ``first`` (a Q, e.g.
    the end of a GD run on the same problem) when given. A Delta below eps times the floor (H >= N
    reaches L* exactly) counts as eps times the floor: the ratio is then 1 / eps."""
    d = problem.d
    floor = B.orthant_floor(problem.Zbar, problem.A)
    pending = [] if first is None else [np.asarray(first, dtype=np.float64).ravel()]
    found = worst_case(
        lambda z: floor / max(fixed_Q_floor(z.reshape(H, d, d), problem), EPS * floor),
        lambda g: pending.pop() if pending else g.standard_normal(H * d * d),
        rng,
        starts=starts,
        maxiter=maxiter,
    )
    return replace(found, argument=search_argument(problem, H))


def descent_iterations(
    seed: int, config: D.Config, H: int, factor: float, target: float, cap: int
) -> int | None:
    """GD (7a)/(7b) from the paper's initialisation (beta = 1) at eta_Q = ``factor`` times the default rule
    at that H (eta_w = GAMMA^2 eta_Q): the first t with Delta(t) < target Delta(0), or None when Delta
    rises at some step before it (GD is no descent method at this step: Theorem 1's eta_Q <= 1/L makes
    it one), the run diverges, or ``cap`` steps pass first."""
    problem = problem_for(seed, config)
    model = M.Transformer(H, excess=True)
    theta0 = init_for(seed, problem, H, 1.0)
    eta_Q = check_positive("factor", factor) * step_sizes(theta0, problem, GAMMA)[0]
    last = [math.inf]

    def guarded(th: M.Params) -> tuple[float, M.Params]:
        value, g, _ = model.loss_grad_attention(th, problem, attention=False)
        if not value <= last[0]:  # a rise (or NaN) ends the run as "diverged"
            return math.inf, g
        last[0] = value
        return value, g

    stop = target * model.excess_loss(theta0, problem)
    etas = {"Q": eta_Q, "w": GAMMA**2 * eta_Q}
    traj = gradient_descent(theta0, guarded, etas, check_int("cap", cap, low=0), stop_below=stop, norms=False)
    return len(traj.loss) - 1 if traj.state == RunState.CONVERGED else None


@dataclass(frozen=True)
class Tuned:
    """GD at the step tuned per H (:func:`tuned_descent`): the chosen factor of the default rule and its
    iterations to the target (both None when no factor reached it as a descent run within the cap) and
    each factor tried with its outcome (None: no descent run, or not faster than a larger factor)."""

    factor: float | None
    iterations: int | None
    tried: tuple[tuple[float, int | None], ...]


def tuned_descent(
    seed: int, config: D.Config, H: int, factors: tuple[float, ...], target: float, cap: int
) -> Tuned:
    """The factor of ``factors`` whose descent run (:func:`descent_iterations`) reaches Delta < target
    Delta(0) in the fewest iterations (ties: the larger factor). Searched from the largest factor down,
    each run capped one step below the fewest iterations found so far (a run that cannot beat them cannot
    be chosen): the choice is the exhaustive search's, at a fraction of its cost."""
    best, chosen, tried = None, None, []
    for c in sorted(factors, reverse=True):
        n = descent_iterations(seed, config, H, c, target, cap if best is None else best - 1)
        tried.append((c, n))
        if n is not None:
            best, chosen = n, c
    return Tuned(chosen, best, tuple(tried))
