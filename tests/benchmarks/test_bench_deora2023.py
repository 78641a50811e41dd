"""Benchmarks for deora2023: the multi-head attention classifier's logistic loss + hand gradient, and a
hand Hessian-vector product of the loss, at n = 256, T = 16, d = 32, H = 32 (p = 49 152), against
PyTorch autograd of the same computation (float64, CPU; double backward for the HVP) when torch
imports. The suite never requires torch. Timing harness and target: ``conftest.py`` (median of
alternating rounds, one thread each, ratio under ``extra_info["ratio_numpy_over_torch"]``).
"""

from __future__ import annotations

import math

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


def _torch_fns(torch, params, X, y, v):
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


def test_bench_loss_grad_numpy(benchmark) -> None:
    params, X, y, _ = _setup()
    L, g = benchmark(M.loss_and_grad, params, X, y)
    assert np.isfinite(L) and g["W"].shape == (H, D, D)


def test_bench_hvp_numpy(benchmark) -> None:
    params, X, y, v = _setup()
    hv = benchmark(M.loss_hvp, params, X, y, v)
    assert hv["U"].shape == (H, T, D) and np.all(np.isfinite(hv["W"]))


def test_bench_loss_grad_vs_torch(versus_torch, torch1) -> None:
    params, X, y, v = _setup()
    loss_grad, _ = _torch_fns(torch1, params, X, y, v)
    Lt, gU, gW = loss_grad()
    Ln, g = M.loss_and_grad(params, X, y)
    assert float(Lt) == pytest.approx(Ln, rel=1e-12)
    np.testing.assert_allclose(gU.numpy(), g["U"], rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(gW.numpy(), g["W"], rtol=1e-9, atol=1e-14)
    versus_torch(lambda: M.loss_and_grad(params, X, y), loss_grad, number=2, rounds=21)


def test_bench_hvp_vs_torch(versus_torch, torch1) -> None:
    params, X, y, v = _setup()
    _, hvp = _torch_fns(torch1, params, X, y, v)
    hU, hW = hvp()
    hv = M.loss_hvp(params, X, y, v)
    np.testing.assert_allclose(hU.numpy(), hv["U"], rtol=1e-8, atol=1e-13)
    np.testing.assert_allclose(hW.numpy(), hv["W"], rtol=1e-8, atol=1e-13)
    versus_torch(lambda: M.loss_hvp(params, X, y, v), hvp, number=2, rounds=21)
