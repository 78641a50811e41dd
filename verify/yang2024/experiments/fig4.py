"""Experiments of claims/fig4.py (yang2024.heads.stall): the loss curves of the stable runs of a seed set,
computed as one batched GD over the seeds (:meth:`verify.yang2024.model.Transformer.loss_grad_batched`),
each run bit-identical to its :func:`~verify.yang2024.experiments.runs.run_gd` alone."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

import numpy as np

from verify.numerics.gd import RunState, gradient_descent_batched
from verify.yang2024 import data as D
from verify.yang2024 import model as M
from verify.yang2024.experiments.runs import (
    DIVERGED,
    GAMMA_LADDER,
    Run,
    completed_runs,
    freeze,
    joined,
    longest_prefix,
    start_of,
)


@dataclasses.dataclass(frozen=True)
class Losses:
    """Delta(t), t = 0..T, of a :func:`~verify.yang2024.experiments.runs.stable_run` without its iterates:
    the loss curve (read-only), the gamma of the ladder it ran at, whether GD diverged there, and why it
    stopped (None: completed)."""

    loss: np.ndarray
    gamma: float
    diverged: bool
    stopped: str | None


@functools.cache
def batched_runs(seed: int, config: D.Config, H: int, gamma: float) -> dict[int, Run]:
    """The runs of :func:`plain_runs` from one start, by step count, diverged ones included (per process;
    tests clear it with the other run caches)."""
    return {}


def plain_runs(seeds: Sequence[int], config: D.Config, H: int, gamma: float, steps: int) -> list[Run]:
    """``run_gd(seed, config, H, gamma=gamma, steps=steps)`` for each seed (no tracking, snapshot or stop),
    as batched GD over the seeds: the same iterates bit for bit. Each run continues the longest shorter
    completed run of its start, as run_gd does (the seeds from one step index form one batch); completed
    runs join those that longer runs continue, and every run is kept (:func:`batched_runs`)."""
    starts = {s: start_of(s, config, H, 1.0, gamma, 1.0) for s in seeds}
    prev = {s: longest_prefix(completed_runs(s, config, H, 1.0, gamma, 1.0), steps, 0) for s in seeds}
    first = {s: 0 if prev[s] is None else len(prev[s].traj.loss) - 1 for s in seeds}
    model = M.Transformer(H, excess=True)
    for t0 in sorted(set(first.values())):
        group = [s for s in seeds if first[s] == t0]
        theta = [starts[s].theta0 if prev[s] is None else prev[s].traj.params for s in group]
        batch = M.ProblemBatch(tuple(starts[s].problem for s in group))
        limit = np.array([DIVERGED * max(starts[s].delta0, 1.0) for s in group])

        def loss_and_grad(th: dict, batch: M.ProblemBatch = batch, limit: np.ndarray = limit) -> tuple:
            values, gQ, gw = model.loss_grad_batched(th["Q"], th["w"], batch)
            return np.where(values <= limit, values, np.inf), {"Q": gQ, "w": gw}  # the divergence guard

        eta_Q = np.array([starts[s].eta_Q for s in group])
        trajs = gradient_descent_batched(
            {"Q": np.stack([p.Q for p in theta]), "w": np.stack([p.w for p in theta])}, loss_and_grad,
            {"Q": eta_Q, "w": gamma**2 * eta_Q}, steps, norms=False, start=t0,
        )  # fmt: skip
        for s, traj in zip(group, trajs, strict=True):
            traj = dataclasses.replace(traj, params=M.Params(**traj.params))
            if prev[s] is not None:
                traj = joined(prev[s].traj, traj)
            freeze(traj.loss)
            st = starts[s]
            run = Run(st.problem, st.zeta0, st.eta_Q, gamma, traj)
            if traj.state == RunState.COMPLETED:
                completed_runs(s, config, H, 1.0, gamma, 1.0).append((0, run))
            batched_runs(s, config, H, gamma)[steps] = run
    return [batched_runs(s, config, H, gamma)[steps] for s in seeds]


def stable_losses(seeds: Sequence[int], config: D.Config, H: int, steps: int) -> list[Losses]:
    """The losses of ``stable_run(seed, config, H, steps)`` for each seed (the same gamma, the same
    iterates) for a claim that reads no iterate: at each gamma of the ladder, a seed's first ``steps``
    steps of a longer completed run of its start in this process when there is one, else its kept run
    of that length, else a new one, the new ones of a gamma in one batch (:func:`plain_runs`); a seed
    whose run diverges goes on to the next gamma."""
    seeds, H = [int(s) for s in seeds], int(H)
    out: dict[int, Losses] = {}
    todo = seeds
    for gamma in GAMMA_LADDER:
        cut = {s: c for s in todo if (c := _cut(s, config, H, gamma, steps)) is not None}
        new = [s for s in todo if s not in cut and steps not in batched_runs(s, config, H, gamma)]
        if new:
            plain_runs(new, config, H, gamma, steps)
        diverged = []
        for s in todo:
            r = batched_runs(s, config, H, gamma).get(steps) if s not in cut else None
            out[s] = cut[s] if r is None else Losses(r.traj.loss, gamma, r.diverged, r.traj.stopped)
            if out[s].diverged:
                diverged.append(s)
        todo = diverged
        if not todo:
            break
    return [out[s] for s in seeds]


def _cut(seed: int, config: D.Config, H: int, gamma: float, steps: int) -> Losses | None:
    """The first ``steps`` steps of a longer completed run of the start (seed, config, H, gamma), if any."""
    for _, r in completed_runs(seed, config, H, 1.0, gamma, 1.0):
        if len(r.traj.loss) > steps:
            return Losses(r.traj.loss[: steps + 1], gamma, False, None)
    return None
