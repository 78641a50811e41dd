"""Full-batch gradient descent as the papers run it, recording what the claims ask for.

One loop for every paper: ``theta_{t+1} = theta_t - eta_b * grad_b`` for each parameter block ``b``,
with per-block step sizes (Yang et al.'s ``eta_w = gamma^2 eta_Q``), recording the loss, the gradient
norm, the drift ``||theta_t - theta_0||_F`` (both optional: ``norms=False`` skips them) and any per-step
quantity ``record`` asks for. :func:`gradient_descent_batched` runs S such runs at once over a leading
run axis (one per seed, for a batched claim), each run stopping on its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from bounds.checks import check_int, check_positive
from verify.numerics.model import ParamBlocks

Params = Mapping[str, np.ndarray] | ParamBlocks
LossAndGrad = Callable[[Any], tuple[float, Any]]
Recorder = Callable[[Params, Mapping[str, np.ndarray], float, int], float]
BatchLossAndGrad = Callable[[Mapping[str, np.ndarray]], tuple[np.ndarray, Mapping[str, np.ndarray]]]
BatchRecorder = Callable[[Mapping[str, np.ndarray], Mapping[str, np.ndarray], np.ndarray, int], np.ndarray]


class RunState(StrEnum):
    """How a GD run ended: all ``steps`` taken, below ``stop_below``, or a non-finite loss / gradient."""

    COMPLETED = "completed"
    CONVERGED = "converged"
    DIVERGED = "diverged"


@dataclass
class Trajectory:
    """A GD run. Arrays have length ``steps_run + 1`` (index t = after t steps).

    loss: loss at theta_t; grad_norm: ||grad l(theta_t)||_F over all blocks; drift: ||theta_t -
    theta_0||_F; drift_blocks: per-block drift (these three are empty when the run skipped them,
    ``gradient_descent(..., norms=False)``); extras: the ``record`` callbacks' values; params:
    theta at the last recorded step; stopped: the reason the loop ended early, or None; state: how it
    ended (read this, never the text of ``stopped``).
    """

    loss: np.ndarray
    grad_norm: np.ndarray
    drift: np.ndarray
    drift_blocks: dict[str, np.ndarray]
    extras: dict[str, np.ndarray]
    params: Any
    stopped: str | None = None
    state: RunState = RunState.COMPLETED


def _step_sizes(names: list[str], eta: float | Mapping[str, float]) -> dict[str, float]:
    """One step size per block: ``eta`` itself, or its entry per block (every block needs one)."""
    if isinstance(eta, Mapping):
        if set(eta) != set(names):
            raise ValueError(f"eta blocks {sorted(eta)} must equal parameter blocks {sorted(names)}")
        return {k: check_positive(f"eta[{k!r}]", eta[k]) for k in names}
    return dict.fromkeys(names, check_positive("eta", eta))


def gradient_descent(
    params: Params,
    loss_and_grad: LossAndGrad,
    eta: float | Mapping[str, float],
    steps: int,
    *,
    record: Mapping[str, Recorder] | None = None,
    stop_below: float | None = None,
    norms: bool = True,
    start: int = 0,
) -> Trajectory:
    """Run ``steps`` steps of full-batch GD from ``params`` (not modified).

    params: a :class:`~verify.numerics.model.ParamBlocks` container (``loss_and_grad`` then takes and
    returns containers, and ``Trajectory.params`` is one) or a mapping of named blocks.

    eta: one step size, or one per block (every block needs one). record: name -> fn(theta_t,
    grad_t, loss_t, t) evaluated at every t = 0..steps. stop_below: stop once the loss is below it.
    Stops (``stopped`` says why) when the loss or the gradient overflows, instead of returning NaN
    curves or raising on the overflow warning; the non-finite step is not recorded.

    norms: record ``grad_norm``, ``drift`` and ``drift_blocks`` (the default). False skips that per-step
    bookkeeping (about half the time of a step of a small model) and leaves the three empty (length 0);
    a gradient then counts as non-finite when its squared norm sum_b <g_b, g_b> is, the condition the
    default reads from ``grad_norm``. The loss, extras, params and stopping step are the same either way.

    start: the step index of ``params`` when they are theta_start of a longer run (the last params of a
    trajectory): the loop runs from t = start to ``steps`` (the arrays hold t = start, ...; recorders and
    messages see that t; the drift is from ``params``), continuing that run with the same operations
    (0: a run from its start).
    """
    start = check_int("start", start, low=0)
    steps = check_int("steps", steps, low=start)
    box = type(params) if isinstance(params, ParamBlocks) else None
    if box is not None:
        params, boxed = params.blocks(), loss_and_grad

        def loss_and_grad(theta: Mapping[str, np.ndarray]) -> tuple[float, Mapping[str, np.ndarray]]:
            loss, grads = boxed(box.from_blocks(theta))  # theta: a new dict each step, never changed
            return loss, grads.blocks() if isinstance(grads, ParamBlocks) else grads

    names = list(params)
    etas = _step_sizes(names, eta)
    record = dict(record or {})
    theta0 = {k: np.array(v, dtype=np.float64, copy=True) for k, v in params.items()}
    theta = {k: v.copy() for k, v in theta0.items()}
    loss_h, gn_h, drift_h = [], [], []
    dblock_h: dict[str, list[float]] = {k: [] for k in names}
    extras_h: dict[str, list[float]] = {k: [] for k in record}
    stopped, state = None, RunState.COMPLETED
    for t in range(start, steps + 1):
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is detected below
            loss, grads = loss_and_grad(theta)
            loss = float(loss)
            if norms:
                gnorm = float(np.sqrt(sum(float(np.sum(np.square(grads[k]))) for k in names)))
            else:
                gnorm = 0.0
                for k in names:
                    g = grads[k]
                    gnorm += float(np.vdot(g, g))
        if not (math.isfinite(loss) and math.isfinite(gnorm)):
            stopped, state = f"loss or gradient became non-finite at step {t}", RunState.DIVERGED
            break
        loss_h.append(loss)
        if norms:
            gn_h.append(gnorm)
            db = {k: float(np.linalg.norm(theta[k] - theta0[k])) for k in names}
            for k in names:
                dblock_h[k].append(db[k])
            drift_h.append(float(np.sqrt(sum(v * v for v in db.values()))))
        for key, fn in record.items():
            extras_h[key].append(float(fn(theta, grads, loss, t)))
        if stop_below is not None and loss < stop_below:
            stopped, state = f"loss {loss:.3e} below {stop_below:.3e} at step {t}", RunState.CONVERGED
            break
        if t == steps:
            break
        theta = {k: theta[k] - eta * np.asarray(grads[k]) for k, eta in etas.items()}
    return Trajectory(
        loss=np.array(loss_h),
        grad_norm=np.array(gn_h),
        drift=np.array(drift_h),
        drift_blocks={k: np.array(v) for k, v in dblock_h.items()},
        extras={k: np.array(v) for k, v in extras_h.items()},
        params=theta if box is None else box.from_blocks(theta),
        stopped=stopped,
        state=state,
    )


def _sq_norms(x: np.ndarray) -> np.ndarray:
    """sum of squares of each run's block, (S,) from (S, ...)."""
    x = x.reshape(x.shape[0], -1)
    return np.add.reduce(x * x, axis=1)


def _run_step_sizes(
    names: list[str], eta: float | Mapping[str, float | np.ndarray], ndims: Mapping[str, int], S: int
) -> dict[str, float | np.ndarray]:
    """:func:`_step_sizes` where a block may have one step per run: that entry becomes an (S, 1, ...)
    array that multiplies the block's (S, ...) gradient run by run."""
    if not isinstance(eta, Mapping) or not any(np.ndim(v) for v in eta.values()):
        return _step_sizes(names, eta)  # type: ignore[arg-type]
    _step_sizes(names, dict.fromkeys(eta, 1.0))  # one entry per block, as for one step size each
    out: dict[str, float | np.ndarray] = {}
    for k in names:
        v = np.asarray(eta[k], dtype=np.float64)
        if v.ndim == 0:
            out[k] = check_positive(f"eta[{k!r}]", float(v))
            continue
        if v.shape != (S,) or not (np.isfinite(v).all() and (v > 0).all()):
            raise ValueError(f"eta[{k!r}] must be a positive number or {S} positive step sizes, got {v!r}")
        out[k] = v.reshape((S,) + (1,) * (ndims[k] - 1))
    return out


def gradient_descent_batched(
    params: Mapping[str, np.ndarray],
    loss_and_grad: BatchLossAndGrad,
    eta: float | Mapping[str, float | np.ndarray],
    steps: int,
    *,
    record: Mapping[str, BatchRecorder] | None = None,
    stop_below: float | None = None,
    norms: bool = True,
    start: int = 0,
) -> list[Trajectory]:
    """S independent GD runs at once (a leading run axis, e.g. one run per seed), as
    :func:`gradient_descent` runs one (the same loss, gradient norm, extras, stopping and parameters
    bit for bit; the drift is the same to round-off: here a pairwise sum of squares per run).

    params: named blocks, each (S, ...); loss_and_grad(theta) -> (loss (S,), grads: blocks (S, ...)),
    each run's slice computed exactly as the unbatched model would (so every run is bit-identical to
    its own batch of one); record: name -> fn(theta_t, grad_t, loss_t, t) -> (S,). Each run stops on
    its own (non-finite loss or gradient, or below ``stop_below``): its parameters freeze there and its
    curves end; the others go on. Returns one :class:`Trajectory` per run (``params`` as dicts of blocks).

    eta: as for :func:`gradient_descent`, and a block's entry may also be one step size per run, (S,)
    (each run's update is then its own step times its gradient, as its unbatched run computes it).
    start: the step index of ``params``, as for :func:`gradient_descent` (the runs continue longer ones).
    """
    start = check_int("start", start, low=0)
    steps = check_int("steps", steps, low=start)
    names = list(params)
    if not names:
        raise ValueError("params must have at least one block")
    S = int(np.shape(params[names[0]])[0]) if np.ndim(params[names[0]]) else 0
    if S < 1 or any(np.ndim(v) < 1 or np.shape(v)[0] != S for v in params.values()):
        raise ValueError(f"every parameter block needs the same leading run axis of length >= 1, got "
                         f"{ {k: np.shape(v) for k, v in params.items()} }")  # fmt: skip
    etas = _run_step_sizes(names, eta, {k: np.ndim(v) for k, v in params.items()}, S)
    record = dict(record or {})
    theta0 = {k: np.array(v, dtype=np.float64, copy=True) for k, v in params.items()}
    theta = {k: v.copy() for k, v in theta0.items()}
    hist: list[dict[str, list[float]]] = [
        {"loss": [], "grad_norm": [], "drift": [], **{f"block:{k}": [] for k in names},
         **{f"extra:{k}": [] for k in record}}
        for _ in range(S)
    ]  # fmt: skip
    stopped: list[str | None] = [None] * S
    state = [RunState.COMPLETED] * S
    live = list(range(S))  # the runs still going
    for t in range(start, steps + 1):
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is detected below
            loss, grads = loss_and_grad(theta)
            loss = np.asarray(loss, dtype=np.float64).reshape(S)
            sq = sum(_sq_norms(np.asarray(grads[k])) for k in names)
            gnorm = np.sqrt(sq) if norms else sq
            finite = np.isfinite(loss) & np.isfinite(gnorm)
        if not finite.all() and not finite[live].all():
            for s in live:
                if not finite[s]:
                    stopped[s] = f"loss or gradient became non-finite at step {t}"
                    state[s] = RunState.DIVERGED
            live = [s for s in live if finite[s]]
            if not live:
                break
        cols = {"loss": loss.tolist()}
        if norms:
            db = {k: np.sqrt(_sq_norms(theta[k] - theta0[k])) for k in names}
            cols |= {"grad_norm": gnorm.tolist(), "drift": np.sqrt(sum(v * v for v in db.values())).tolist()}
            cols |= {f"block:{k}": v.tolist() for k, v in db.items()}
        for key, fn in record.items():
            cols[f"extra:{key}"] = np.asarray(fn(theta, grads, loss, t), dtype=np.float64).reshape(S).tolist()
        for s in live:
            h = hist[s]
            for key, col in cols.items():
                h[key].append(col[s])
        if stop_below is not None and (loss[live] < stop_below).any():
            for s in live:
                if loss[s] < stop_below:
                    stopped[s] = f"loss {loss[s]:.3e} below {stop_below:.3e} at step {t}"
                    state[s] = RunState.CONVERGED
            live = [s for s in live if state[s] == RunState.COMPLETED]
        if t == steps or not live:
            break
        if len(live) == S:
            theta = {k: theta[k] - etas[k] * np.asarray(grads[k]) for k in names}
        else:  # the stopped runs keep their parameters
            theta = {k: theta[k].copy() for k in names}
            for k in names:
                eta_k = etas[k][live] if isinstance(etas[k], np.ndarray) else etas[k]
                theta[k][live] = theta[k][live] - eta_k * np.asarray(grads[k])[live]
    return [
        Trajectory(
            loss=np.array(h["loss"]),
            grad_norm=np.array(h["grad_norm"]),
            drift=np.array(h["drift"]),
            drift_blocks={k: np.array(h[f"block:{k}"]) for k in names},
            extras={k: np.array(h[f"extra:{k}"]) for k in record},
            params={k: theta[k][s] for k in names},
            stopped=stopped[s],
            state=state[s],
        )
        for s, h in enumerate(hist)
    ]
