"""Benchmarks for yang2024: closed-form loss + hand gradients at the paper configuration (K=200, N=30,
d=100, m=20, H=64), against PyTorch autograd of the same computation (float64, CPU) when torch imports.

Both sides do the same four GEMMs (2 H N d (d + K) = 1.2e8 multiply-adds), so the hand-written side
gains only the autograd and allocation overhead. Times are medians over repeated calls (the statistic
pytest-benchmark reports); the ratio goes into ``extra_info["ratio_numpy_over_torch"]`` and the target
ratio <= 0.5 is asserted only when benchmarking is enabled (the smoke run under --benchmark-disable
records the ratio).
"""

from __future__ import annotations

import statistics
import timeit

import numpy as np
import pytest

from verify.yang2024 import data as D
from verify.yang2024 import model as M

H = 64
MODEL = M.Transformer(H)


def _setup() -> tuple[D.Problem, M.Params]:
    rng = np.random.default_rng(0)
    p = D.make_problem(rng=rng, **D.PAPER)
    th = MODEL.init(p, 1.0, rng)
    return p, th.replace(w=0.3 * rng.standard_normal(th.w.shape))


def _median_time(fn, number: int = 5, repeat: int = 9) -> float:
    """Median seconds per call over ``repeat`` rounds of ``number`` calls."""
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number


def _torch_loss_grad(p: D.Problem, th: M.Params):
    torch = pytest.importorskip("torch")
    V, V_all, A, G = (torch.tensor(x, dtype=torch.float64) for x in (p.V, p.V_all, p.A, p.G))
    Q0, w0 = (torch.tensor(x, dtype=torch.float64) for x in (th.Q, th.w))
    Lstar = p.Lstar

    def loss_grad():
        Q = Q0.detach().requires_grad_(True)
        w = w0.detach().requires_grad_(True)
        S = torch.softmax(V.T @ Q @ V_all, dim=1)  # (H, N, K)
        R = (S * w[:, None, :]).sum(0) - A
        loss = 0.5 * (R * (G @ R)).sum() + Lstar
        gQ, gw = torch.autograd.grad(loss, (Q, w))
        return loss.detach(), gQ, gw

    return loss_grad


def test_bench_loss_grad_numpy(benchmark) -> None:
    p, th = _setup()
    L, g = benchmark(MODEL.loss_and_grad, th, p)
    assert np.isfinite(L) and g.Q.shape == (H, p.d, p.d)


def test_bench_loss_grad_vs_torch(benchmark) -> None:
    p, th = _setup()
    tfn = _torch_loss_grad(p, th)
    Lt, gQ, gw = tfn()
    Ln, g = MODEL.loss_and_grad(th, p)
    assert float(Lt) == pytest.approx(Ln, rel=1e-12)
    np.testing.assert_allclose(gQ.numpy(), g.Q, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(gw.numpy(), g.w, rtol=1e-9, atol=1e-13)
    t_np = _median_time(lambda: MODEL.loss_and_grad(th, p))
    t_pt = _median_time(tfn)
    ratio = t_np / t_pt
    benchmark.extra_info.update(numpy_ms=t_np * 1e3, torch_ms=t_pt * 1e3, ratio_numpy_over_torch=ratio)
    benchmark(tfn)
    if not benchmark.disabled:  # a timing target is judged only in a real benchmark run
        assert ratio <= 0.5, f"numpy {t_np * 1e3:.1f} ms vs torch autograd {t_pt * 1e3:.1f} ms"
