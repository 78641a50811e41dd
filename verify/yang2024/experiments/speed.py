"""Experiments of claims/speed.py (yang2024.heads.speed, heads.tuned): GD as a descent method at a
step factor of the default rule, and the factor tuned per H."""

from __future__ import annotations

import math
from dataclasses import dataclass

from bounds.checks import check_int, check_positive
from verify.numerics.gd import RunState, gradient_descent
from verify.yang2024 import data as D
from verify.yang2024 import model as M
from verify.yang2024.experiments.runs import GAMMA, init_for, problem_for, step_sizes


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
