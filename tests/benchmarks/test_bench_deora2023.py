"""Benchmarks for deora2023: the multi-head attention classifier's logistic loss + hand gradient, and a
hand Hessian-vector product of the loss, at n = 256, T = 16, d = 32, H = 32 (p = 49 152), against
PyTorch autograd of the same computation (float64, CPU; double backward for the HVP) when torch
imports. The suite never requires torch.

The timing target ratio <= 0.5 is asserted only when benchmarking is enabled; the smoke run under
--benchmark-disable records the measured ratio in ``extra_info``.
"""

from __future__ import annotations

import math
import timeit

import numpy as np
import pytest

from verify.deora2023 import model as M
from verify.deora2023.data import random_tokens

N, T, D, H = 256, 16, 32, 32


def _setup() -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.default_rng(0)
    params = M.init_params(rng, H, T, D, w_scale=0.2, paired=False)
    X = random_tokens(rng, N, T, D)
    y = rng.choice(np.array([-1.0, 1.0]), size=N)
    v = {k: rng.standard_normal(a.shape) for k, a in params.items()}
    return params, X, y, v


def _torch_fns(params, X, y, v):
    torch = pytest.importorskip("torch")
    Xt, yt = torch.tensor(X), torch.tensor(y)
    U0, W0 = torch.tensor(params["U"]), torch.tensor(params["W"])
    vU, vW = torch.tensor(v["U"]), torch.tensor(v["W"])
    r = 1.0 / math.sqrt(H)

    def loss_of(U, W):
        S = torch.softmax(torch.einsum("ntd,hde,nse->nhts", Xt, W, Xt), dim=-1)
        Vv = torch.einsum("nsd,htd->nhts", Xt, U)
        phi = (S * Vv).sum((1, 2, 3)) * r
        return torch.nn.functional.softplus(-yt * phi).mean()

    def loss_grad():
        U, W = U0.detach().requires_grad_(True), W0.detach().requires_grad_(True)
        L = loss_of(U, W)
        gU, gW = torch.autograd.grad(L, (U, W))
        return L.detach(), gU, gW

    def hvp():
        U, W = U0.detach().requires_grad_(True), W0.detach().requires_grad_(True)
        gU, gW = torch.autograd.grad(loss_of(U, W), (U, W), create_graph=True)
        return torch.autograd.grad((gU * vU).sum() + (gW * vW).sum(), (U, W))

    return loss_grad, hvp


def _ratio(fn_np, fn_pt) -> tuple[float, float, float]:
    t_np, t_pt = [], []
    for _ in range(3):  # interleaved, best of each: the machine is shared
        t_np.append(min(timeit.repeat(fn_np, number=2, repeat=3)) / 2)
        t_pt.append(min(timeit.repeat(fn_pt, number=2, repeat=3)) / 2)
    return min(t_np), min(t_pt), min(t_np) / min(t_pt)


def _torch_one_thread_ms(fn_pt) -> float:
    """Torch restricted to one thread, as the NumPy side runs its BLAS (recorded for fairness)."""
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return min(timeit.repeat(fn_pt, number=2, repeat=3)) / 2 * 1e3
    finally:
        torch.set_num_threads(n)


def test_bench_loss_grad_numpy(benchmark) -> None:
    params, X, y, _ = _setup()
    L, g = benchmark(M.loss_and_grad, params, X, y)
    assert np.isfinite(L) and g["W"].shape == (H, D, D)


def test_bench_hvp_numpy(benchmark) -> None:
    params, X, y, v = _setup()
    hv = benchmark(M.loss_hvp, params, X, y, v)
    assert hv["U"].shape == (H, T, D) and np.all(np.isfinite(hv["W"]))


def test_bench_loss_grad_vs_torch(benchmark) -> None:
    params, X, y, v = _setup()
    loss_grad, _ = _torch_fns(params, X, y, v)
    Lt, gU, gW = loss_grad()
    Ln, g = M.loss_and_grad(params, X, y)
    assert float(Lt) == pytest.approx(Ln, rel=1e-12)
    np.testing.assert_allclose(gU.numpy(), g["U"], rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(gW.numpy(), g["W"], rtol=1e-9, atol=1e-14)
    t_np, t_pt, ratio = _ratio(lambda: M.loss_and_grad(params, X, y), loss_grad)
    t1 = _torch_one_thread_ms(loss_grad)
    benchmark.extra_info.update(
        numpy_ms=t_np * 1e3,
        torch_ms=t_pt * 1e3,
        ratio_numpy_over_torch=ratio,
        torch_1thread_ms=t1,
        ratio_vs_torch_1thread=t_np * 1e3 / t1,
    )
    benchmark(loss_grad)
    if not benchmark.disabled:  # a timing target is judged only in a real benchmark run
        assert ratio <= 0.5, f"numpy {t_np * 1e3:.1f} ms vs torch autograd {t_pt * 1e3:.1f} ms"


def test_bench_hvp_vs_torch(benchmark) -> None:
    params, X, y, v = _setup()
    _, hvp = _torch_fns(params, X, y, v)
    hU, hW = hvp()
    hv = M.loss_hvp(params, X, y, v)
    np.testing.assert_allclose(hU.numpy(), hv["U"], rtol=1e-8, atol=1e-13)
    np.testing.assert_allclose(hW.numpy(), hv["W"], rtol=1e-8, atol=1e-13)
    t_np, t_pt, ratio = _ratio(lambda: M.loss_hvp(params, X, y, v), hvp)
    t1 = _torch_one_thread_ms(hvp)
    benchmark.extra_info.update(
        numpy_ms=t_np * 1e3,
        torch_ms=t_pt * 1e3,
        ratio_numpy_over_torch=ratio,
        torch_1thread_ms=t1,
        ratio_vs_torch_1thread=t_np * 1e3 / t1,
    )
    benchmark(hvp)
    if not benchmark.disabled:
        assert ratio <= 0.5, f"numpy {t_np * 1e3:.1f} ms vs torch autograd {t_pt * 1e3:.1f} ms"
