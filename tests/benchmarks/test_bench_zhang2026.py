"""Benchmarks for zhang2026: one population-GD step (D=64, K=8, M=16, d=32; hand gradients vs PyTorch
autograd of the same closed-form loss, float64 CPU) and 10^6 steps of the scalar reduction. Timing
harness and target: ``conftest.py`` (median of alternating rounds, one thread each, ratio under
``extra_info["ratio_numpy_over_torch"]``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from verify.zhang2026 import data as Da
from verify.zhang2026 import experiments as E
from verify.zhang2026 import model as Mo

D, K, M, d, ETA = 64, 8, 16, 32, 0.05


def _problem():
    rng = np.random.default_rng(0)
    S, V, P = Da.s_circulant(D, K), Da.random_v(M, d, rng, 4.0), Mo.random_orthogonal(D, rng)
    th = {"W_V": 0.1 * rng.standard_normal((M, d)), "W_KQ": 0.1 * rng.standard_normal((D, D))}
    return S, V, P, th


def _numpy_step(th, P, V, S):
    _, g = Mo.linear_loss_grad(th["W_V"], th["W_KQ"], P, V, S)
    return {k: th[k] - ETA * g[k] for k in th}


def _torch_step_fn(torch, P, V, S):
    Pt, Vt, St = (torch.tensor(x, dtype=torch.float64) for x in (P, V, S))
    ss, vv = float((St * St).sum()), float((Vt * Vt).sum())
    sq = math.sqrt(D)

    def step(W_V, W_KQ):
        W_V = W_V.detach().requires_grad_(True)
        W_KQ = W_KQ.detach().requires_grad_(True)
        A = torch.softmax(Pt.T @ W_KQ @ Pt / sq, dim=-2)
        loss = 0.5 * (vv * ss - 2 * (Vt * W_V).sum() * (St * A).sum() + (W_V * W_V).sum() * (A * A).sum())
        gv, gk = torch.autograd.grad(loss, (W_V, W_KQ))
        with torch.no_grad():
            return W_V - ETA * gv, W_KQ - ETA * gk

    return step


def test_bench_population_step_numpy(benchmark) -> None:
    S, V, P, th = _problem()
    out = benchmark(_numpy_step, th, P, V, S)
    assert out["W_V"].shape == (M, d)


def test_bench_population_step_vs_torch(versus_torch, torch1) -> None:
    S, V, P, th = _problem()
    tstep = _torch_step_fn(torch1, P, V, S)
    Wv, Wk = (torch1.tensor(th[k], dtype=torch1.float64) for k in ("W_V", "W_KQ"))
    new_t = tstep(Wv, Wk)
    new_n = _numpy_step(th, P, V, S)
    np.testing.assert_allclose(new_t[0].numpy(), new_n["W_V"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(new_t[1].numpy(), new_n["W_KQ"], rtol=1e-10, atol=1e-14)
    versus_torch(lambda: _numpy_step(th, P, V, S), lambda: tstep(Wv, Wk), number=50, rounds=21)


def test_bench_scalar_reduction_1e6_steps(benchmark) -> None:
    r = benchmark.pedantic(E.scalar_run, args=(8, 2, 0.1, [10**6], 1.0, 16.0), rounds=1, iterations=1)
    assert r.excess[-1] * 1e6 == pytest.approx(240.0, rel=0.01)  # the derived tail constant
