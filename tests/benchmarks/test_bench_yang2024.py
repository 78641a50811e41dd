"""Benchmarks for yang2024: closed-form loss + hand gradients at the paper configuration (K=200, N=30,
d=100, m=20, H=64), against PyTorch autograd of the same computation (float64, CPU) when torch imports;
the constants G, A, L* are precomputed on both sides. Timing harness: ``conftest.py`` (median of
alternating rounds, one thread each, ratio under ``extra_info["ratio_numpy_over_torch"]``).

Both sides need the same four products, P_h = V^T Q_h and dL/dQ_h = V X_h (H N d^2 each), U = P V_all
and X = dU V_all^T (H N d K each): 2 H N d (d + K) = 1.15e8 multiply-adds, the minimum for a dense Q
(every product has a generic operand: Q_h, P_h or dU_h). ``extra_info["four_products_ms"]`` times these
four products alone (OpenBLAS, no elementwise work): the floor of the NumPy side, whose ratio to torch
(``four_products_over_torch``) bounds what any NumPy implementation of this loss can reach. On this
machine that floor is 0.52-0.62 of torch's whole loss and gradient, so the 0.5 target is out of reach
and the comparison is an expected failure that prints both ratios (``floor=`` in ``conftest.py``); it
fails outright if the floor drops below the target while the NumPy side stays above it.
"""

from __future__ import annotations

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


def _torch_loss_grad(torch, p: D.Problem, th: M.Params):
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


def _four_products(p: D.Problem, th: M.Params):
    """The four products of the loss and gradients with preallocated outputs (gQ new, as returned)."""
    Q = th.Q
    N, K, d = p.N, p.K, p.d
    P, U, XT = np.empty((H, N, d)), np.empty((H * N, K)), np.empty((d, H * N))

    def run() -> np.ndarray:
        np.matmul(p.VT, Q, out=P)
        np.matmul(P.reshape(H * N, d), p.V_all, out=U)
        np.matmul(p.V_all, U.T, out=XT)  # U stands in for dU (same shape)
        return np.matmul(p.V, XT.reshape(d, H, N).transpose(1, 2, 0))

    return run


def test_bench_loss_grad_numpy(benchmark) -> None:
    p, th = _setup()
    L, g = benchmark(MODEL.loss_and_grad, th, p)
    assert np.isfinite(L) and g.Q.shape == (H, p.d, p.d)


def test_bench_loss_grad_vs_torch(versus_torch, torch1) -> None:
    p, th = _setup()
    tfn = _torch_loss_grad(torch1, p, th)
    Lt, gQ, gw = tfn()
    Ln, g = MODEL.loss_and_grad(th, p)
    assert float(Lt) == pytest.approx(Ln, rel=1e-12)
    np.testing.assert_allclose(gQ.numpy(), g.Q, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(gw.numpy(), g.w, rtol=1e-9, atol=1e-13)
    versus_torch(
        lambda: MODEL.loss_and_grad(th, p),
        tfn,
        number=3,
        rounds=31,
        also={"four_products": _four_products(p, th)},
        floor="four_products",
        multiply_adds=2 * H * p.N * p.d * (p.d + p.K),
    )
