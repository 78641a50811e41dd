"""Scale-out: run claims and sweep points serially, on a local process pool, or on Dask.

Whole claims are the unit of work when there are at least as many claims as workers; otherwise the
claims run in this process and their sweep points (``ctx.map``) go to the workers. Seeds are explicit
and results come back in input order, so every backend returns what the serial run returns.
"""

from __future__ import annotations

import functools
import multiprocessing
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

from bounds.checks import check_int
from verify.core.context import Mapper, serial_map
from verify.core.record import Result
from verify.core.registry import Claim, get_claim
from verify.core.runner import run_claim
from verify.numerics.threads import single_thread

Progress = Callable[[int, int, Result], None]


def _single_threaded(fn: Callable[[Any], Any], item: Any) -> Any:
    """One sweep point in a worker, with one BLAS thread as in the runner."""
    with single_thread():
        return fn(item)


def _run_by_id(claim_id: str, profile: str, seed: int) -> Result:
    return run_claim(get_claim(claim_id), profile=profile, seed=seed)


class _DaskExecutor:
    """A Dask client offering what :func:`run_claims` needs: ``map`` and submitting a claim."""

    def __init__(self, address: str, workers: int) -> None:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as exc:  # optional extra
            raise RuntimeError("--dask needs the optional extra: pip install 'attncheck[dask]'") from exc
        if address == "local":
            self._cluster = LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
            )
            self._client = Client(self._cluster)
        else:
            self._cluster = None
            self._client = Client(address)

    def submit_claim(self, c: Claim, profile: str, seed: int) -> Any:
        # the claim travels by value, its functions by reference: workers import verify.<paper>.claims
        return self._client.submit(run_claim, c, profile=profile, seed=seed, pure=False)

    def map(self, fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
        return self._client.gather(self._client.map(fn, items, pure=False))

    def shutdown(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


@contextmanager
def executor(jobs: int = 1, dask: str | None = None) -> Iterator[Executor | _DaskExecutor | None]:
    """None (serial), a fork-based process pool of ``jobs`` workers, or a Dask client."""
    jobs = check_int("jobs", jobs, low=1)
    if dask:
        ex: Any = _DaskExecutor(dask, jobs)
    elif jobs > 1:
        ex = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"))
    else:
        yield None
        return
    try:
        yield ex
    finally:
        ex.shutdown()


def _mapper(ex: Any) -> Mapper:
    if ex is None:
        return serial_map
    return lambda fn, items: list(ex.map(functools.partial(_single_threaded, fn), items))


def run_claims(
    claims: list[Claim],
    *,
    profile: str = "quick",
    seed: int = 0,
    jobs: int = 1,
    dask: str | None = None,
    progress: Progress | None = None,
) -> list[Result]:
    """Run ``claims`` (in id order) on the chosen backend; same results as the serial run."""
    results: list[Result] = []
    with executor(jobs, dask) as ex:
        workers = jobs if ex is not None else 1
        if ex is None or len(claims) < workers:
            for i, c in enumerate(claims, 1):
                results.append(run_claim(c, profile=profile, seed=seed, mapper=_mapper(ex)))
                if progress:
                    progress(i, len(claims), results[-1])
            return results
        if isinstance(ex, _DaskExecutor):
            futures: list[Future[Result]] = [ex.submit_claim(c, profile, seed) for c in claims]
        else:  # forked workers inherit the registry: send ids, not functions
            futures = [ex.submit(_run_by_id, c.id, profile, seed) for c in claims]
        for i, fut in enumerate(futures, 1):
            results.append(fut.result())
            if progress:
                progress(i, len(claims), results[-1])
    return results
