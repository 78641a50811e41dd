"""Experiments of ``claims/invariants.py``: the alignment of W_V with V* (Lemma C.2) and the two-level
structure of W_KQ along population GD."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bounds import zhang2026 as B
from bounds.mp import to_float
from verify.core import Ctx, experiment
from verify.numerics.gd import gradient_descent_batched
from verify.zhang2026 import data as D
from verify.zhang2026 import model as M
from verify.zhang2026.experiments.runs import (
    LEAKY,
    LIN,
    Size,
    log_times,
    population_gd_batched,
    seeds_of,
    stacked,
)


@dataclass(frozen=True)
class Alignment:
    """Lemma C.2 measurements: linear residual, spread and first multiple; leaky closed-form min row
    cosine; min row multiple (both); leaky Monte Carlo min row cosine; the checkpoints."""

    resid: float
    spread: float
    c1_first: float
    cos_leaky: float
    min_mult: float
    cos_mc: float
    times: np.ndarray


@experiment
def alignment(
    ctx: Ctx, sz: Size, eta: float, steps: int, N_mc: int, steps_mc: int, mu: float = 0.0
) -> list[Alignment]:
    """Per seed of ``ctx.seed_set`` (all seeds' runs in one batch): rows of W_V against the rows of V*
    (unequal row norms) along population GD (linear, leaky ReLU) and after ``steps_mc`` GD steps on a
    fixed sample of N_mc Gaussian inputs (leaky ReLU). mu: the mean of the input entries of the linear
    population run (the leaky closed form needs centred Gaussian inputs and runs at mean 0; the Monte
    Carlo sample is shifted by mu)."""
    rngs = [c.rng(1) for c in seeds_of(ctx)]
    probs = []
    for rng in rngs:
        S, P = D.s_circulant(sz.D, sz.K), M.random_orthogonal(sz.D, rng)
        V = rng.standard_normal((sz.M, sz.d)) * np.array([0.5, 1.0, 2.0])[: sz.M, None]  # unequal row norms
        probs.append((V, S, P))
    Vb, Sb, Pb = stacked(probs)
    times = log_times(1, steps, 4)
    out: list[dict] = [{"min_mult": np.inf} for _ in probs]
    for act in (LIN, LEAKY):
        runs = population_gd_batched(Vb, Sb, Pb, eta, times, act=act, mu=mu if act.name == "linear" else 0.0)
        for o, (V, _, _), run in zip(out, probs, runs, strict=True):
            mult = np.einsum("tmd,md->tm", run.W_V, V) / np.sum(V * V, axis=1)  # per-row multiples
            resid = np.linalg.norm(run.W_V - mult[:, :, None] * V, axis=(1, 2)) / np.linalg.norm(
                run.W_V, axis=(1, 2)
            )
            cos = np.einsum("tmd,md->tm", run.W_V, V) / (
                np.linalg.norm(run.W_V, axis=2) * np.linalg.norm(V, axis=1)
            )
            o["min_mult"] = min(o["min_mult"], float(mult.min()))
            if act.name == "linear":
                o.update(
                    resid=float(resid.max()), spread=float(np.ptp(mult, axis=1).max()), c1=float(mult[0, 0])
                )
            else:
                o["cos"] = float(cos.min())
    X = np.stack([rng.standard_normal((N_mc, sz.d, sz.D)) + mu for rng in rngs])
    batch = D.Sample(X, LEAKY(np.matmul(Vb[:, None], X) @ Sb[:, None]), Pb)
    model = M.PositionAttention(LEAKY)
    trs = gradient_descent_batched(
        {"W_V": np.zeros_like(Vb), "W_KQ": np.zeros_like(Pb)},
        lambda th: model.loss_and_grad_batched(th, batch),
        eta,
        steps_mc,
        norms=False,
    )
    res = []
    for o, (V, _, _), tr in zip(out, probs, trs, strict=True):
        W = tr.params["W_V"]
        cos_mc = float(
            (np.sum(W * V, axis=1) / (np.linalg.norm(W, axis=1) * np.linalg.norm(V, axis=1))).min()
        )
        res.append(Alignment(o["resid"], o["spread"], o["c1"], o["cos"], o["min_mult"], cos_mc, times))
    return res


@dataclass(frozen=True)
class KQStructure:
    """W_KQ along population GD: W_KQ^(1) == 0; max relative spread of the on- and off-support entries
    of P^T W_KQ P; max |(C2/C3) / kq_level_ratio - 1|; (C1, C2, C3) at the last step."""

    first_zero: bool
    spread_on: float
    spread_off: float
    ratio_dev: float
    last: tuple[float, float, float]


@experiment
def kq_structure(
    ctx: Ctx, sz: Size, eta: float, steps: int, weights: tuple[float, ...] | None = None
) -> list[KQStructure]:
    """Per seed of ``ctx.seed_set`` (all seeds' runs in one batch): the two-level structure of W_KQ over
    log-spaced checkpoints t >= 2 (linear sigma). weights: None for a uniform-K teacher, else a circulant
    teacher with these K weights on its support."""
    if weights is not None:
        S = D.s_weighted(sz.D, np.array(weights, dtype=np.float64))
    else:
        S = D.s_gcn_cycle(sz.D, sz.K) if sz.K % 2 else D.s_circulant(sz.D, sz.K)
    probs = []
    for c in seeds_of(ctx):
        rng = c.rng(1)
        V, P = D.random_v(sz.M, sz.d, rng, 2.0), M.random_orthogonal(sz.D, rng)
        probs.append((V, S, P))
    times = log_times(1, steps, 4)
    on = S > 0
    ratio_th = to_float(B.kq_level_ratio(sz.D, sz.K))
    out = []
    for (V, _, P), run in zip(probs, population_gd_batched(*stacked(probs), eta, times), strict=True):
        first_zero = bool(np.all(run.W_KQ[0] == 0.0)) and times[0] == 1
        sp_on, sp_off, rat = 0.0, 0.0, 0.0
        for w in run.W_KQ[1:]:
            L = P.T @ w @ P
            sp_on = max(sp_on, float(np.ptp(L[on]) / abs(L[on].mean())))
            sp_off = max(sp_off, float(np.ptp(L[~on]) / abs(L[~on].mean())))
            C2, C3, _ = M.scalar_from_matrix(w, P, S)
            rat = max(rat, abs((C2 / C3) / ratio_th - 1.0))
        C2, C3, _ = M.scalar_from_matrix(run.W_KQ[-1], P, S)
        C1 = float(np.sum(run.W_V[-1] * V) / np.sum(V * V))
        out.append(KQStructure(first_zero, sp_on, sp_off, rat, (C1, C2, C3)))
    return out
