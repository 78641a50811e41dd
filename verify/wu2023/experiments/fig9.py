"""Experiments of :mod:`verify.wu2023.claims.fig9` and :mod:`verify.wu2023.claims.fig9_ntk`: the Fig. 9
runs (loss, weight movement and NTK drift along GD), batched over seeds and kept for the process so the
Fig. 9 claims share them (through :func:`verify.wu2023.claims.common.fig9_rows`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from verify.wu2023 import model as M
from verify.wu2023.experiments.runs import Point, chunks, run_gd_batched


@dataclass(frozen=True, kw_only=True)
class Fig9Point(Point):
    """A Fig. 9 run (tau0 = d_m^-1 by default): ``steps`` GD steps at gamma = ``step_factor`` /
    lambda_max(K_0) (at step t divided by 1 + ``step_decay`` t: 0, a constant step, in every claim but
    an alternative world), never stopped early; the NTK is taken at the steps ``checkpoints``."""

    tau0_power: float = 1.0
    steps: int
    step_factor: float
    checkpoints: tuple[int, ...]
    step_decay: float = 0.0


#: Fig. 9 runs of this process, per point (:func:`fig9_runs`).
RUNS: dict[Fig9Point, dict[str, list[float]]] = {}


def fig9_runs(points: Sequence[Fig9Point]) -> list[dict[str, list[float]]]:
    """Fig. 9 (a)-(c) along each point's GD run (shorter than ``steps`` when it diverged): the loss
    relative to the start l_t / l_0 (t = 0..steps), the relative weight movement per step |theta_{t+1} -
    theta_t| / |theta_0| = gamma |grad l_t| / |theta_0| (t = 0..steps-1), the NTK drift |K_t - K_0|_F /
    |K_0|_F at the checkpoints, and |K_T - K_c|_F / |K_c - K_0|_F with c the first checkpoint after 0 and
    T the last (the change after the early phase against the change during it; empty without two
    checkpoints after 0). The points that differ only in their seed run as one batched GD
    (:func:`run_gd_batched`, in batches of :func:`chunks`); each point's run is kept for the process, so
    the Fig. 9 claims share them (their experiment "fig9"), and it is the same bit for bit whatever batch
    computed it."""
    groups: dict[Fig9Point, list[Fig9Point]] = {}
    for p in dict.fromkeys(points):
        if p not in RUNS:
            groups.setdefault(replace(p, seed=0), []).append(p)
    for group in groups.values():
        q = group[0]
        for part in chunks(group, q.N * q.d_s * q.d_m):
            RUNS.update(zip(part, _fig9_batch(part), strict=True))
    return [RUNS[p] for p in points]


def _fig9_batch(points: Sequence[Fig9Point]) -> list[dict[str, list[float]]]:
    """:func:`fig9_runs` of points of one configuration, as one batched GD."""
    setups = [p.setup() for p in points]
    model, steps, marks = setups[0].model, points[0].steps, set(points[0].checkpoints)
    K0 = [model.ntk(s.theta0, s.batch) for s in setups]
    gammas = [points[0].step_factor / float(np.linalg.eigvalsh(k)[-1]) for k in K0]
    kept: dict[int, list[np.ndarray]] = {}

    def ntk_drift(
        th: Mapping[str, np.ndarray], step: Mapping[str, np.ndarray], loss: np.ndarray, t: int
    ) -> np.ndarray:
        if t not in marks:
            return np.zeros(len(setups))
        at = [M.Params(**{b: v[i] for b, v in th.items()}) for i in range(len(setups))]
        kept[t] = K0 if t == 0 else [model.ntk(a, s.batch) for a, s in zip(at, setups, strict=True)]
        return np.array(
            [np.linalg.norm(k - k0) / np.linalg.norm(k0) for k, k0 in zip(kept[t], K0, strict=True)]
        )

    def step_length(
        th: Mapping[str, np.ndarray], step: Mapping[str, np.ndarray], loss: np.ndarray, t: int
    ) -> np.ndarray:
        return np.sqrt(sum(np.add.reduce((g * g).reshape(g.shape[0], -1), axis=1) for g in step.values()))

    record = {"ntk": ntk_drift, "step": step_length}
    runs = run_gd_batched(setups, gammas, steps, norms=False, record=record, decay=points[0].step_decay)
    early = min((c for c in kept if c > 0), default=None)
    end = max(kept, default=None)
    out = []
    for i, (s, tr) in enumerate(zip(setups, runs, strict=True)):
        late = (
            [float(np.linalg.norm(kept[end][i] - kept[early][i]) / np.linalg.norm(kept[early][i] - K0[i]))]
            if early is not None and end > early
            else []
        )
        out.append({
            "loss": tr.loss.tolist(),
            "move": (tr.extras["step"][:-1] / np.linalg.norm(s.theta0.flat())).tolist(),
            "ntk": [float(tr.extras["ntk"][min(c, tr.loss.size - 1)]) for c in points[0].checkpoints],
            "late": late,
        })  # fmt: skip
    return out
