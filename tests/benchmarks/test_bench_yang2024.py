"""Benchmarks for yang2024: closed-form loss + hand gradients at the paper configuration (K=200, N=30,
d=100, m=20, H=64, the size of Fig. 2), against the four matrix products alone and against PyTorch
autograd of the same computation (float64, CPU) when torch imports; the constants G, A, L* are
precomputed on both sides. Timing harness: ``conftest.py`` (median thread CPU time of alternating
rounds, one thread each).

Every implementation needs the same four products, P_h = V^T Q_h and dL/dQ_h = V X_h (H N d^2 each),
U = P V_all and X = dU V_all^T (H N d K each): 2 H N d (d + K) = 1.15e8 multiply-adds, the minimum for a
dense Q (every product has a generic operand: Q_h, P_h or dU_h). :func:`_four_products` times them alone
(OpenBLAS, no elementwise work) as the model arranges them, heads in chunks with every U_h before any
X_h: on a quiet machine 3-5 % faster than the same products over whole (H N, .) arrays.

- ``test_bench_loss_grad_vs_four_products`` (no torch): the NumPy side within :data:`FLOOR_TARGET` of
  the four products (``ratio_numpy_over_floor``). Measured 1.18-1.23 (AMD EPYC, 2 cores shared, load
  3-6); the rest, 1.2-1.5 ms, is elementwise work over the (H, N, K) scores: the exponentials
  (0.33 ms), the read-back of the scores from L3 (0.27 ms), two passes with a per-(head, token) factor
  (0.18 ms each: NumPy iterates over K-long rows), a pass and three GEMVs in L2 (0.1 ms each) and the
  score bound (0.08 ms).
- ``test_bench_loss_grad_vs_torch``: information only (``judged=False``; issue 28 made the floor the
  target for this model): the ratio to torch's whole loss and gradient and ``four_products_over_torch``,
  what the products alone take. Measured: NumPy 0.50-0.59 of torch, the four products 0.42-0.49 (the
  0.5 target of the other models is not met here).
"""

from __future__ import annotations

import numpy as np
import pytest

from verify.yang2024 import data as D
from verify.yang2024 import model as M

H = 64
MODEL = M.Transformer(H)
#: issue 28: the loss and gradients within this factor of the four products alone (CPU time)
FLOOR_TARGET = 1.25


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
    """The four products of the loss and gradients alone, arranged as the model arranges them (its head
    chunks, every U_h before any X_h as the loss couples the heads), outputs preallocated, gQ new (as
    returned); U stands in for dU (same shape)."""
    Q = th.Q
    N, K, d = p.N, p.K, p.d
    hc = M.heads_per_chunk(H, N, K)
    heads = [(h0, min(H, h0 + hc)) for h0 in range(0, H, hc)]
    P, U, XT = np.empty((hc, N, d)), np.empty((H, N, K)), np.empty((d, hc * N))

    def run() -> np.ndarray:
        gQ = np.empty((H, d, d))
        for h0, h1 in heads:
            n = h1 - h0
            np.matmul(p.VT, Q[h0:h1], out=P[:n])
            np.matmul(P[:n].reshape(n * N, d), p.V_all, out=U[h0:h1].reshape(n * N, K))
        for h0, h1 in heads:
            n = h1 - h0
            XTc = np.matmul(p.V_all, U[h0:h1].reshape(n * N, K).T, out=XT[:, : n * N])
            np.matmul(p.V, XTc.reshape(d, n, N).transpose(1, 2, 0), out=gQ[h0:h1])
        return gQ

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
        judged=False,
        multiply_adds=2 * H * p.N * p.d * (p.d + p.K),
    )


def test_bench_loss_grad_vs_four_products(versus_floor) -> None:
    p, th = _setup()
    versus_floor(
        lambda: MODEL.loss_and_grad(th, p),
        _four_products(p, th),
        number=3,
        rounds=61,
        target=FLOOR_TARGET,
        multiply_adds=2 * H * p.N * p.d * (p.d + p.K),
    )
