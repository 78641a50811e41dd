"""Speed of the wu2023 reference model: one forward + backward (loss and all four gradients) over N
examples, at the quick and the paper size (N = 100, d_m = 2048), side by side with PyTorch autograd
on the same model and shapes in float64 when torch is installed (the suite never requires it).
Timing harness and target: ``conftest.py`` (median of alternating rounds, one thread each, ratio
under ``extra_info["ratio_numpy_over_torch"]``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from verify.wu2023 import experiments as E
from verify.wu2023 import model as M

SIZES = {"quick": dict(N=16, d=32, d_s=4, d_m=256), "paper": dict(N=100, d=128, d_s=8, d_m=2048)}


def _setup(size: str) -> E.Setup:
    return E.make_setup(0, 0, regime="active", **SIZES[size])


def _torch_step(torch, s: E.Setup) -> Callable[[], tuple[float, dict[str, np.ndarray]]]:
    t = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in s.theta0.blocks().items()}
    X = torch.tensor(s.batch.X, dtype=torch.float64)
    y = torch.tensor(s.batch.y, dtype=torch.float64)
    tau0, tau1 = s.model.tau0, s.model.tau1

    def step() -> tuple[float, dict[str, np.ndarray]]:
        for v in t.values():
            v.grad = None
        Q, K, V = X @ t["W_Q"].T, X @ t["W_K"].T, X @ t["W_V"].T
        S = torch.softmax(tau0 * Q @ K.transpose(1, 2), dim=-1)
        f = tau1 * torch.relu(S @ V).mean(dim=1) @ t["w_O"]
        loss = 0.5 * ((f - y) ** 2).sum()
        loss.backward()
        return float(loss.detach()), {k: v.grad.numpy() for k, v in t.items()}

    return step


@pytest.mark.parametrize("size", ["quick", "paper"])
def test_bench_forward_backward(benchmark, size: str) -> None:
    s = _setup(size)
    loss, grads = benchmark(s.model.loss_and_grad, s.theta0, s.batch)
    assert np.isfinite(loss) and isinstance(grads, M.Params) and set(grads.blocks()) == set(M.BLOCKS)
    benchmark.extra_info.update(SIZES[size])


@pytest.mark.parametrize("size", ["quick", "paper"])
def test_bench_ratio_vs_torch(versus_torch, torch1, size: str) -> None:
    s = _setup(size)
    step = _torch_step(torch1, s)
    loss, grads = s.model.loss_and_grad(s.theta0, s.batch)
    tl, tg = step()
    assert loss == pytest.approx(tl, rel=1e-10)
    for k in M.BLOCKS:
        np.testing.assert_allclose(getattr(grads, k), tg[k], rtol=1e-8, atol=1e-12 * np.abs(tg[k]).max())
    number, rounds = (10, 21) if size == "quick" else (1, 11)
    versus_torch(
        lambda: s.model.loss_and_grad(s.theta0, s.batch), step, number=number, rounds=rounds, **SIZES[size]
    )
