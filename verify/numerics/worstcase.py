"""Worst-case search for bounds that hold for every input of a set: how tight is the bound at its
worst, not at a typical draw.

A universally quantified bound ``q(x) <= B(x)`` for all x in a set X is searched by maximising the
ratio ``r(x) = q(x) / B(x)`` over X: ``starts`` points drawn by ``sample(rng)`` (the typical ratio is
the largest ratio among them), each improved by a bounded local optimiser (scipy's L-BFGS-B with
finite-difference gradients, or Nelder-Mead for a non-smooth ratio) on an unconstrained
parametrisation ``x = embed(z)`` that maps every z into X (e.g. a direction scaled onto the ball of the
statement). The search is deterministic for a seed and its budget (starts x local iterations) is the
caller's, per profile.

A found ratio above 1 is a counterexample (the bound is violated there); within 1 % of 1 the bound is
``tight`` at the worst case found; otherwise it is "at least 1 / ratio -fold loose at the worst case
found" (a stronger search could only lower that factor).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize

from bounds.checks import check_choice, check_int

#: Within this relative distance of 1, the worst ratio found makes the bound "tight".
TIGHT_RTOL = 0.01


@dataclass(frozen=True)
class WorstCase:
    """The outcome of a worst-case search.

    ratio: the largest q / B found; typical: the largest q / B over the random starting draws; z: the
    search variable attaining ``ratio`` (replay with ``embed(z)``); starts, evaluations: the budget
    spent; method: the local optimiser.
    """

    ratio: float
    typical: float
    z: tuple[float, ...]
    starts: int
    evaluations: int
    method: str
    argument: dict[str, Any] = field(default_factory=dict)

    @property
    def violated(self) -> bool:
        return self.ratio > 1.0

    @property
    def tight(self) -> bool:
        return not self.violated and self.ratio >= 1.0 - TIGHT_RTOL

    def verdict_note(self) -> str:
        """One line a report prints: counterexample, tight, or the remaining gap."""
        head = f"worst-case search ({self.starts} starts, {self.evaluations} evaluations, {self.method})"
        if self.violated:
            return f"{head}: counterexample, ratio {self.ratio:.6g} > 1"
        if self.tight:
            return f"{head}: tight, worst ratio {self.ratio:.6f} (typical {self.typical:.3g})"
        if self.ratio <= 0:
            return f"{head}: the measured side is 0 at every point found (worst ratio {self.ratio:.4g})"
        return (
            f"{head}: at least {1 / self.ratio:.3g}-fold loose at the worst case found "
            f"(worst ratio {self.ratio:.4g}, typical {self.typical:.3g})"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "ratio": self.ratio,
            "typical": self.typical,
            "z": list(self.z),
            "starts": self.starts,
            "evaluations": self.evaluations,
            "method": self.method,
            "argument": self.argument,
        }


def worst_case(
    ratio: Callable[[np.ndarray], float],
    sample: Callable[[np.random.Generator], np.ndarray],
    rng: np.random.Generator,
    *,
    starts: int,
    maxiter: int,
    method: str = "L-BFGS-B",
) -> WorstCase:
    """Maximise ``ratio(z)`` from ``starts`` draws of ``sample(rng)``; ``maxiter`` local iterations each.

    ratio: z (n,) -> q / B at ``embed(z)`` (the caller composes the embedding); a non-finite value is
    refused (ValueError), never maximised over. Returns the best point found (a :class:`WorstCase`).
    """
    starts = check_int("starts", starts, low=1)
    maxiter = check_int("maxiter", maxiter, low=0)
    check_choice("method", method, ("L-BFGS-B", "Nelder-Mead"))
    count = 0

    def r(z: np.ndarray) -> float:
        nonlocal count
        count += 1
        v = float(ratio(np.asarray(z, dtype=np.float64)))
        if not math.isfinite(v):
            raise ValueError(f"worst-case search: the ratio is {v} at z = {np.asarray(z).tolist()}")
        return v

    best_z, best, typical = None, -math.inf, -math.inf
    for _ in range(starts):
        z0 = np.asarray(sample(rng), dtype=np.float64)
        r0 = r(z0)
        typical = max(typical, r0)
        z, v = z0, r0
        if maxiter > 0:
            res = optimize.minimize(lambda z: -r(z), z0, method=method, options={"maxiter": maxiter})
            if -res.fun > v:
                z, v = np.asarray(res.x, dtype=np.float64), float(-res.fun)
        if v > best:
            best_z, best = z, v
    assert best_z is not None
    return WorstCase(best, typical, tuple(float(x) for x in best_z), starts, count, method)


__all__ = ["TIGHT_RTOL", "WorstCase", "worst_case"]
