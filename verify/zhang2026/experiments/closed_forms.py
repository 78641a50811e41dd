"""Experiments of ``claims/closed_forms.py``: the closed forms against Monte Carlo and central
differences, the invariance to the positional encoding P, and the scalar reduction against full-matrix GD."""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from verify.core import Ctx, experiment
from verify.numerics.gradcheck import GradReport, check_grad
from verify.numerics.stats import rechecked_z
from verify.zhang2026 import data as D
from verify.zhang2026 import model as M
from verify.zhang2026.experiments.runs import (
    LEAKY,
    LIN,
    Size,
    circulant_problem,
    log_times,
    population_gd_batched,
    scalar_run,
    seeds_of,
    stacked,
)


def chunks(n: int, size: int = 50_000) -> list[int]:
    """Sizes of the Monte Carlo chunks that make up n samples."""
    return [min(size, n - i) for i in range(0, n, size)]


@experiment
def closedform_checks(
    ctx: Ctx, sz: Size, N: int, rtol: float, eps: float, atol_rel: float, recheck: float
) -> tuple[list[tuple[str, float]], list[tuple[str, GradReport]]]:
    """Monte Carlo against closed form, and hand gradients against central differences, at one random
    point of a circulant problem. Returns ([(label, |MC - CF| / SE)], [(name, gradcheck report)]).

    Linear sigma with Gaussian, t(5), centred and raw Gumbel, Exp(1) entries (the last two through the
    mean term); leaky ReLU and ReLU (dual kernel) with Gaussian entries. The per-sample losses are
    heavy-tailed (degree 4 in the inputs), so a sample that misses their tail understates both the mean
    and its standard error: a z-score above ``recheck`` is measured again on 10 N fresh samples, which
    decide (``verify.numerics.stats.rechecked_z``). The gradcheck's absolute floor is
    ``atol_rel * max(1, |loss|)``: central differences of a loss of size |f| carry round-off
    ~1e-16 |f| / eps."""
    rng = ctx.rng(1)
    S, V, P = circulant_problem(rng, sz, 2.0)
    W_V, W_KQ = 0.5 * rng.standard_normal((sz.M, sz.d)), rng.standard_normal((sz.D, sz.D))
    A = M.attention(W_KQ, P)
    cases = [
        ("gaussian", LIN),
        ("t5", LIN),
        ("gumbel", LIN),
        ("gumbel_raw", LIN),
        ("exp", LIN),
        ("gaussian", LEAKY),
        ("gaussian", M.Act("relu")),
    ]

    def z_score(kind: str, act: M.Act, cf: float, k: int, n: int, stage: int) -> tuple[float, str]:
        """(|MC - CF| / SE, the MC estimate) over n samples from the streams (2 + 2 stage, k, chunk)."""
        per = []
        for j, m in enumerate(chunks(n)):
            X = D.sample_inputs(kind, m, sz.d, sz.D, ctx.rng(2 + 2 * stage, k, j))
            Y, H = act(np.matmul(V, X) @ S), act(np.matmul(W_V, X) @ A)
            per.append(0.5 * np.sum((Y - H) ** 2, axis=(1, 2)))
        per_all = np.concatenate(per)
        mc, se = float(per_all.mean()), float(per_all.std(ddof=1) / math.sqrt(n))
        return abs(mc - cf) / se, f"MC {mc:.5g}"

    mc_z = []
    for k, (kind, act) in enumerate(cases):
        mu, var = D.input_moments(kind)
        if act.name == "linear":
            cf = M.linear_loss_grad(W_V, W_KQ, P, V, S, var, mu)[0]
        else:
            cf = M.dual_loss(W_V, A, V, S, act.slope, var)
        z, what = rechecked_z(partial(z_score, kind, act, cf, k), N, recheck)
        mc_z.append((f"{kind}/{act.name}: |MC - CF| / SE (CF {cf:.5g}, {what})", z))
    th = {"W_V": W_V, "W_KQ": W_KQ}
    reports = []
    for name, fn in [
        ("linear", lambda t: M.linear_loss_grad(t["W_V"], t["W_KQ"], P, V, S, 1.3, 0.0)),
        ("linear, mean 0.6", lambda t: M.linear_loss_grad(t["W_V"], t["W_KQ"], P, V, S, 1.3, 0.6)),
        ("leaky", lambda t: M.dual_loss_grad(t["W_V"], t["W_KQ"], P, V, S, 0.1, 1.3)),
        ("relu", lambda t: M.dual_loss_grad(t["W_V"], t["W_KQ"], P, V, S, 0.0, 1.3)),
    ]:
        rep = check_grad(
            lambda t, fn=fn: fn(t)[0],
            th,
            fn(th)[1],
            rtol=rtol,
            eps=eps,
            atol=atol_rel * max(1.0, abs(fn(th)[0])),
        )
        reports.append((name, rep))
    return mc_z, reports


@experiment
def p_invariance(ctx: Ctx, sz: Size, eta: float, steps: int) -> list[tuple[float, list[str]]]:
    """Per seed of ``ctx.seed_set`` (all seeds' runs in one batch): max difference of (A, W_V) over 10
    checkpoints between P = I and two random orthogonal P, linear and leaky ReLU (cycle GCN teacher at
    K = 3, circulant otherwise). Returns [(worst, notes)] per seed."""
    S = D.s_gcn_cycle(sz.D, 3) if sz.K == 3 else D.s_circulant(sz.D, sz.K)
    probs = []
    for c in seeds_of(ctx):
        V = D.random_v(sz.M, sz.d, c.rng(1), 2.0)
        Ps = [np.eye(sz.D), M.random_orthogonal(sz.D, c.rng(2)), M.random_orthogonal(sz.D, c.rng(3))]
        probs += [(V, S, P) for P in Ps]
    times = log_times(1, steps, 3)
    out: list[tuple[float, list[str]]] = [(0.0, []) for _ in ctx.seed_set]
    for act in (LIN, LEAKY):
        runs = population_gd_batched(*stacked(probs), eta, times, act=act)
        for i, (worst, notes) in enumerate(out):
            r0, *rest = runs[3 * i : 3 * i + 3]
            dev = max(max(float(np.abs(r.A - r0.A).max()), float(np.abs(r.W_V - r0.W_V).max())) for r in rest)
            notes.append(f"{act.name}: max |dA|, |dW_V| over {len(times)} checkpoints = {dev:.2e}")
            out[i] = (max(worst, dev), notes)
    return out


@experiment
def scalar_reduction_deviation(
    ctx: Ctx, sz: Size, eta: float, sx2: float, steps: int
) -> list[tuple[float, list[str], int]]:
    """Per seed of ``ctx.seed_set`` (the full-matrix runs of all seeds in one batch): max of |C1 - C1~|,
    |g - g~|, |excess - excess~| / excess(0) between full-matrix GD and the scalar recursion over
    log-spaced checkpoints, linear and leaky ReLU. Returns [(worst, notes, last step)] per seed."""
    probs = [circulant_problem(c.rng(1), sz, 2.0) for c in seeds_of(ctx)]
    times = log_times(1, steps, 4)
    out: list[tuple[float, list[str], int]] = [(0.0, [], int(times[-1])) for _ in probs]
    Sb, Vb, Pb = stacked(probs)
    for act in (LIN, LEAKY):
        fulls = population_gd_batched(Vb, Sb, Pb, eta, times, act=act, sx2=sx2)
        for i, ((S, V, P), full) in enumerate(zip(probs, fulls, strict=True)):
            v2 = float(np.sum(V * V))
            sc = scalar_run(sz.D, sz.K, eta, times, sx2, v2, act)
            C1 = np.einsum("tmd,md->t", full.W_V, V) / v2
            g = np.array([M.scalar_from_matrix(w, P, S)[2] for w in full.W_KQ])
            e0 = M.scalar_excess(0.0, 0.0, sz.D, sz.K, sx2, v2, act)
            dev = max(
                float(np.abs(C1 - sc.C1).max()),
                float(np.abs(g - sc.g).max()),
                float(np.abs(full.excess - sc.excess).max() / e0),
            )
            worst, notes, last = out[i]
            notes.append(
                f"{act.name}: max deviation {dev:.2e} over {steps} steps (final excess {full.excess[-1]:.4g})"
            )
            out[i] = (max(worst, dev), notes, last)
    return out
