"""Experiments of claims/multihead.py (yang2024.multihead.H1): the worst case of the orthant floor
over every theta of H heads, w at its exact minimiser."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from bounds import yang2024 as B
from verify.numerics.worstcase import WorstCase, worst_case
from verify.yang2024 import data as D
from verify.yang2024.experiments.runs import EPS, fixed_Q_floor, search_argument


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
