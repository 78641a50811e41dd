"""Speed of the wu2023 reference model: one forward + backward (loss and all four gradients) over N
examples, at the quick and the paper size (N = 100, d_m = 2048), side by side with PyTorch autograd
on the same model and shapes in float64 when torch is installed (the suite never requires it).

Both sides run single-threaded (:func:`verify.numerics.threads.single_thread` for NumPy,
``torch.set_num_threads(1)``): on this shared 2-core machine thread contention otherwise dominates
the ratio. Target: NumPy time <=
0.5 x torch time; the measured ratio goes into ``benchmark.extra_info["ratio_vs_torch"]``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pytest

from verify.numerics.threads import single_thread
from verify.wu2023 import experiments as E
from verify.wu2023 import model as M

SIZES = {"quick": dict(N=16, d=32, d_s=4, d_m=256), "paper": dict(N=100, d=128, d_s=8, d_m=2048)}


def _setup(size: str) -> E.Setup:
    return E.make_setup(0, 0, regime="active", **SIZES[size])


def _median_time(fn: Callable[[], object], reps: int) -> float:
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def _torch_step(s: E.Setup) -> Callable[[], tuple[float, dict[str, np.ndarray]]]:
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
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
    with single_thread():
        loss, grads = benchmark(s.model.loss_and_grad, s.theta0, s.batch)
    assert np.isfinite(loss) and isinstance(grads, M.Params) and set(grads.blocks()) == set(M.BLOCKS)
    benchmark.extra_info.update(SIZES[size])


@pytest.mark.parametrize("size", ["quick", "paper"])
def test_bench_ratio_vs_torch(benchmark, size: str) -> None:
    s = _setup(size)
    step = _torch_step(s)
    with single_thread():
        loss, grads = s.model.loss_and_grad(s.theta0, s.batch)
        tl, tg = step()
        assert loss == pytest.approx(tl, rel=1e-10)
        for k in M.BLOCKS:
            np.testing.assert_allclose(getattr(grads, k), tg[k], rtol=1e-8, atol=1e-12 * np.abs(tg[k]).max())
        reps = 20 if size == "quick" else 5
        t_np = _median_time(lambda: s.model.loss_and_grad(s.theta0, s.batch), reps)
        t_torch = _median_time(step, reps)
        benchmark(s.model.loss_and_grad, s.theta0, s.batch)
    benchmark.extra_info.update(
        dict(SIZES[size], numpy_s=t_np, torch_s=t_torch, ratio_vs_torch=t_np / t_torch, target=0.5)
    )
    ratio = t_np / t_torch
    print(f"wu2023 {size}: numpy {t_np * 1e3:.2f} ms, torch {t_torch * 1e3:.2f} ms, ratio {ratio:.2f}")
