"""Experiments of claims/speed.py (yang2024.heads.speed, heads.tuned): GD as a descent method at a
step factor of the default rule, and the factor tuned per H."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from bounds.checks import check_int, check_positive
from verify.numerics.gd import RunState, gradient_descent
from verify.yang2024 import data as D
from verify.yang2024 import model as M
from verify.yang2024.experiments.runs import GAMMA, init_for, problem_for, step_sizes


class _Descent:
    """One GD descent run (7a)/(7b) from the paper's initialisation at a fixed (eta_Q, eta_w), grown on
    demand: the losses of the steps run so far (each at most the one before), the iterate after the last
    of them, and whether a rise or a non-finite loss or gradient ended it. A longer cap or a lower target
    continues the same run from its last iterate, so every (target, cap) asked of it is answered from one
    trajectory, with the losses the run from scratch would compute (the same operations in the same
    order)."""

    def __init__(self, problem: D.Problem, H: int, theta0: M.Params, eta_Q: float) -> None:
        self.problem, self.model = problem, M.Transformer(H, excess=True)
        self.delta0 = self.model.excess_loss(theta0, problem)
        self.etas = {"Q": eta_Q, "w": GAMMA**2 * eta_Q}
        self.theta, self.losses, self.ended, self.last = theta0, [], False, math.inf

    def _guarded(self, th: M.Params) -> tuple[float, M.Params]:
        value, g, _ = self.model.loss_grad_attention(th, self.problem, attention=False)
        if not value <= self.last:  # a rise (or NaN) ends the run as "diverged"
            return math.inf, g
        self.last = value
        return value, g

    def first_below(self, target: float, cap: int) -> int | None:
        """The first t <= cap with Delta(t) < target Delta(0) in a descent run, else None."""
        stop = target * self.delta0
        t = next((t for t, v in enumerate(self.losses[: cap + 1]) if v < stop), None)
        if t is not None or len(self.losses) > cap or self.ended:
            return t
        done = max(len(self.losses) - 1, 0)  # the iterate self.theta is theta_done
        traj = gradient_descent(
            self.theta, self._guarded, self.etas, cap, stop_below=stop, norms=False, start=done
        )
        self.losses += [float(v) for v in traj.loss[1 if self.losses else 0 :]]
        self.theta, self.ended = traj.params, traj.state == RunState.DIVERGED
        return len(self.losses) - 1 if traj.state == RunState.CONVERGED else None


@functools.cache
def descent_run(seed: int, config: D.Config, H: int, eta_Q: float) -> _Descent:
    """The descent run of (seed, config, H) at eta_Q, shared by every call that asks for that step."""
    problem = problem_for(seed, config)
    return _Descent(problem, H, init_for(seed, problem, H, 1.0), eta_Q)


def descent_iterations(
    seed: int, config: D.Config, H: int, factor: float, target: float, cap: int
) -> int | None:
    """GD (7a)/(7b) from the paper's initialisation (beta = 1) at eta_Q = ``factor`` times the default rule
    at that H (eta_w = GAMMA^2 eta_Q): the first t with Delta(t) < target Delta(0), or None when Delta
    rises at some step before it (GD is no descent method at this step: Theorem 1's eta_Q <= 1/L makes
    it one), the run diverges, or ``cap`` steps pass first. Runs are kept per process (:func:`descent_run`,
    keyed by the step: a changed step rule gives new runs; tests clear it with the other caches)."""
    problem = problem_for(seed, config)
    theta0 = init_for(seed, problem, H, 1.0)
    eta_Q = check_positive("factor", factor) * step_sizes(theta0, problem, GAMMA)[0]
    return descent_run(seed, config, H, eta_Q).first_below(target, check_int("cap", cap, low=0))


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
