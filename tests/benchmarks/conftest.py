"""The one timing harness of the speed benchmarks: every NumPy-vs-PyTorch comparison, and every comparison
of a NumPy side with its floor, is measured the same way.

Statistic: the median over ``rounds`` alternating rounds (numpy, torch, numpy, torch, ... in one process)
of the mean time of ``number`` calls per round, after one warm-up call of each. Time is the calling
thread's CPU time (``time.thread_time``): both sides run on that one thread (NumPy's BLAS through the
session's ``single_thread``, root conftest; PyTorch through ``torch.set_num_threads(1)``, restored
afterwards, and its CPU autograd runs on the calling thread), so a neighbour on a shared machine that
preempts the process does not enter the ratio; alternating rounds see the same cache and memory load,
and the median discards the rounds a neighbour disturbed most. The wall-clock ratio of the same rounds is
recorded too (``ratio_wall``).

Each comparison records ``numpy_ms``, ``torch_ms`` and the ratio under the one key :data:`RATIO_KEY` in
``benchmark.extra_info`` and asserts ``ratio <= TARGET`` only when benchmarking is enabled
(``pytest tests/benchmarks --benchmark-enable --benchmark-only``). The default run (benchmarks disabled)
times a few rounds as a smoke test, and skips every comparison when torch is not installed: the suite
never needs it (``pip install -e .[bench]`` adds it). A floor comparison (:func:`versus_floor`, no torch)
records ``numpy_ms``, ``floor_ms`` and their ratio under :data:`FLOOR_RATIO_KEY`, and asserts the
ratio bound its benchmark gives, under the same rules.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

#: the extra_info key of the measured ratio numpy time / torch time, in every benchmark file
RATIO_KEY = "ratio_numpy_over_torch"
#: the ratio every model must reach (issue 16): the hand-written side at most half of autograd
TARGET = 0.5
#: alternating rounds of a comparison when benchmarking is disabled (the smoke run)
SMOKE_ROUNDS = 3
#: the extra_info key of the measured ratio numpy time / floor time (:func:`versus_floor`)
FLOOR_RATIO_KEY = "ratio_numpy_over_floor"


def _round(fn: Callable[[], Any], number: int) -> tuple[float, float]:
    """(thread CPU seconds, wall seconds) per call, over ``number`` calls."""
    c, t = time.thread_time(), time.perf_counter()
    for _ in range(number):
        fn()
    return (time.thread_time() - c) / number, (time.perf_counter() - t) / number


def _alternate(
    fns: dict[str, Callable[[], Any]], number: int, rounds: int
) -> tuple[dict[str, float], dict[str, float], str]:
    """(median CPU seconds, median wall seconds, statistic) per call of each callable: one warm-up call
    each (first-call allocations, lazy initialisation), then ``rounds`` alternating rounds of ``number``
    calls."""
    for fn in fns.values():
        fn()
    cpu: dict[str, list[float]] = {name: [] for name in fns}
    wall: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            c, w = _round(fn, number)
            cpu[name].append(c)
            wall[name].append(w)
    statistic = f"median thread CPU time of {rounds} alternating rounds x {number} calls"
    return (
        {name: statistics.median(ts) for name, ts in cpu.items()},
        {name: statistics.median(ts) for name, ts in wall.items()},
        statistic,
    )


@pytest.fixture
def torch1() -> Iterator[Any]:
    """The torch module restricted to one intra-op thread for the test (skips when torch is absent)."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield torch
    finally:
        torch.set_num_threads(threads)


Compare = Callable[..., float]


@pytest.fixture
def versus_torch(torch1: Any, benchmark: Any) -> Compare:
    """``compare(fn_numpy, fn_torch, *, number, rounds, also=None, judged=True, **info) -> ratio``.

    Times the two zero-argument callables in alternating rounds (module docstring), records the medians
    and the ratio in ``benchmark.extra_info`` (plus ``info``, and for the informational callables in
    ``also``, timed in the same rounds, their medians and ratios to torch), lets pytest-benchmark time
    ``fn_numpy`` for its table, and asserts the target when benchmarking is enabled, unless ``judged`` is
    False: then the comparison is information only (a model judged against its floor instead,
    :func:`versus_floor`). Returns the ratio.
    ``torch1`` comes first so that a missing torch skips before pytest-benchmark's fixture is made.
    """

    def compare(
        fn_np: Callable[[], Any],
        fn_pt: Callable[[], Any],
        *,
        number: int,
        rounds: int,
        also: dict[str, Callable[[], Any]] | None = None,
        judged: bool = True,
        **info: Any,
    ) -> float:
        fns = {"numpy": fn_np, "torch": fn_pt, **(also or {})}
        rounds = rounds if not benchmark.disabled else min(rounds, SMOKE_ROUNDS)
        med, med_wall, statistic = _alternate(fns, number, rounds)
        ratio = med["numpy"] / med["torch"]
        benchmark.extra_info.update(info)
        benchmark.extra_info["ratio_wall"] = med_wall["numpy"] / med_wall["torch"]
        benchmark.extra_info.update({f"{name}_ms": m * 1e3 for name, m in med.items()})
        benchmark.extra_info.update({f"{name}_over_torch": med[name] / med["torch"] for name in also or {}})
        benchmark.extra_info.update({RATIO_KEY: ratio, "target": TARGET, "statistic": statistic})
        benchmark(fn_np)
        benchmark.extra_info["judged"] = judged
        if judged and not benchmark.disabled:  # a timing target is judged only in a real benchmark run
            assert ratio <= TARGET, (
                f"numpy {med['numpy'] * 1e3:.3f} ms vs torch {med['torch'] * 1e3:.3f} ms: ratio {ratio:.3f} "
                f"> {TARGET} (median CPU time of {rounds} alternating rounds, one thread each)"
            )
        return ratio

    return compare


@pytest.fixture
def versus_floor(benchmark: Any) -> Compare:
    """``compare(fn_numpy, fn_floor, *, number, rounds, target, **info) -> ratio``.

    Times the NumPy side against its floor (a callable doing only the work every implementation must do,
    e.g. the model's minimum matrix products) in alternating rounds like :func:`versus_torch`, without
    torch; records ``numpy_ms``, ``floor_ms`` and the ratio (:data:`FLOOR_RATIO_KEY`) in
    ``benchmark.extra_info`` (plus ``info``), lets pytest-benchmark time ``fn_numpy`` for its table, and
    asserts ``ratio <= target`` when benchmarking is enabled. Returns the ratio.
    """

    def compare(
        fn_np: Callable[[], Any],
        fn_floor: Callable[[], Any],
        *,
        number: int,
        rounds: int,
        target: float,
        **info: Any,
    ) -> float:
        rounds = rounds if not benchmark.disabled else min(rounds, SMOKE_ROUNDS)
        med, med_wall, statistic = _alternate({"numpy": fn_np, "floor": fn_floor}, number, rounds)
        ratio = med["numpy"] / med["floor"]
        benchmark.extra_info.update(info)
        benchmark.extra_info.update({f"{name}_ms": m * 1e3 for name, m in med.items()})
        benchmark.extra_info.update(
            {
                FLOOR_RATIO_KEY: ratio,
                "ratio_wall": med_wall["numpy"] / med_wall["floor"],
                "target": target,
                "statistic": statistic,
            }
        )
        benchmark(fn_np)
        if not benchmark.disabled:
            assert ratio <= target, (
                f"numpy {med['numpy'] * 1e3:.3f} ms vs its floor {med['floor'] * 1e3:.3f} ms: ratio "
                f"{ratio:.3f} > {target} ({statistic}, one thread)"
            )
        return ratio

    return compare
