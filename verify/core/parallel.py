"""Scale-out: run claims and sweep points serially, on a local process pool, or on Dask.

Whole claims are the unit of work when there are at least as many claims as workers; otherwise the
claims run in this process and their sweep points (``ctx.map``) go to the workers. Claims are
submitted longest first (longest-processing-time scheduling, by the ``costs`` given), seeds are
explicit and results come back in claim-id order, so every backend returns what the serial run
returns.

Faults: a worker process that dies (killed, as by the out-of-memory killer) turns the claim it was
running into an ``error`` result naming the cause (for a sweep point: its claim), the broken pool is
replaced and the run goes on. Work whose function, arguments or result cannot be pickled runs in this
process instead. Under :func:`interrupts`, SIGINT / SIGTERM raise :class:`Interrupted`, which carries
the results finished so far; the workers are killed on the way out, and a second signal exits at once.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import pickle
import re
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.sharedctypes import RawArray
from typing import Any, Protocol

from bounds.checks import check_int
from verify.core.context import Mapper, serial_map
from verify.core.progress import Progress, count_points, points, track_points
from verify.core.record import PAPERS_OWN, Result, Seeds, Verdict
from verify.core.registry import Claim, get_claim
from verify.core.runner import (
    check_robust,
    error_result,
    judge_robustness,
    run_claim,
    wants_robustness,
)
from verify.core.seeds import claim_seeds, run_seed_call, seed_calls
from verify.numerics.threads import single_thread

#: A run's seed set (None: each claim's own).
SeedSet = tuple[int, ...] | None
#: Seconds to wait for a remote Dask scheduler before giving up (``--dask-timeout``).
DASK_TIMEOUT = 5.0
#: ``tcp://`` or no scheme (no ``tls://``: there is no way to pass TLS settings to the client).
_DASK_ADDRESS = re.compile(
    r"(?:tcp://)?(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]):(\d{1,5})"
)


class ProgressSink(Protocol):
    """What :func:`run_claims` reports to (e.g. :class:`verify.core.progress.Progress`)."""

    def started(self, claim_id: str) -> None: ...

    def finished(self, result: Result) -> None: ...


class Interrupted(BaseException):
    """SIGINT / SIGTERM during a run (under :func:`interrupts`); ``results``: those finished, in id order.

    A BaseException, like KeyboardInterrupt, so that no ``except Exception`` in a claim swallows it.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.results: list[Result] = []

    @property
    def exit_code(self) -> int:
        """The shell's convention: 128 + signal number (130 for SIGINT, 143 for SIGTERM)."""
        return 128 + self.signum


class WorkerCrashed(RuntimeError):
    """A worker process died while running a sweep point (its claim becomes ``error``)."""


def _kill_children() -> None:
    for p in multiprocessing.active_children():
        p.kill()


def _exit_at_once(signum: int, frame: object = None) -> None:
    """A second signal: kill the workers, say so (``os.write``: safe in a handler), exit 128 + signum."""
    _kill_children()
    os.write(2, f"attncheck: {signal.Signals(signum).name} again: exiting at once\n".encode())
    os._exit(128 + signum)


@contextlib.contextmanager
def interrupts() -> Iterator[None]:
    """While inside, SIGINT and SIGTERM raise :class:`Interrupted`; a second one kills the workers and
    exits at once with 128 + signal number. On the way out the previous handlers are restored, unless
    a signal came: the process is then winding down, and a second signal still exits at once (else
    one arriving while the caller writes its partial results would raise KeyboardInterrupt)."""
    hit: list[int] = []

    def handler(signum: int, frame: object) -> None:
        if hit:
            _exit_at_once(signum)
        hit.append(signum)
        raise Interrupted(signum)

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, _exit_at_once if hit else h)


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored while inside (from the main thread; elsewhere a no-op). Processes started inside
    inherit the disposition, so Ctrl-C, sent to the whole foreground process group, reaches only this
    process, which stops them (a signal arriving meanwhile is lost)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def cap_jobs(jobs: int) -> tuple[int, str | None]:
    """``jobs`` capped at the machine's CPU count: (workers, a note when capped, else None).

    The other cap needs no note: a pool running sweep points has at most one worker per point.
    """
    jobs = check_int("jobs", jobs, low=1)
    cpus = os.cpu_count() or 1
    if jobs > cpus:
        return cpus, f"--jobs {jobs} capped at {cpus}, the number of CPUs"
    return jobs, None


def check_dask_address(address: str) -> str:
    """``local``, ``tcp://host:port`` or ``host:port``; ValueError otherwise (``tls://`` included: TLS
    needs certificates this command has no option for)."""
    m = _DASK_ADDRESS.fullmatch(address)
    if address != "local" and not (m and 1 <= int(m.group(1)) <= 65535):
        if address.startswith("tls://"):
            raise ValueError(
                f"--dask: tls:// is not supported (no TLS settings can be passed), got {address!r}"
            )
        raise ValueError(f"--dask must be 'local', 'tcp://host:port' or 'host:port', got {address!r}")
    return address


# ---------------------------------------------------------------- local process pool

_STARTED: Any = None  # in a worker: the pool's shared array, task index -> pid of the worker running it
_POINTS: Any = None  # in a worker running whole claims: task i's sweep points at [2i], [2i + 1]


def _worker_init(started: Any, counts: Any = None) -> None:
    """A worker ignores SIGINT (the parent decides), dies on SIGTERM, and dies with its parent (Linux)."""
    global _STARTED, _POINTS
    _STARTED, _POINTS = started, counts
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: no orphan if the parent is killed


class _NotPicklable(Exception):
    """A worker's result that cannot travel back; the task is run again in the parent."""


def _task(i: int, fn: Callable[..., Any], args: tuple[Any, ...]) -> bytes:
    _STARTED[i] = os.getpid()
    if _POINTS is not None:
        track_points(_POINTS, 2 * i)
    with single_thread():
        value = fn(*args)
    try:
        return pickle.dumps(value)
    except Exception as exc:
        raise _NotPicklable(f"{type(exc).__name__}: {exc}") from None


@dataclass
class _Outcome:
    value: Any = None
    error: BaseException | None = None
    crash: str | None = None


def _local(fn: Callable[..., Any], args: tuple[Any, ...]) -> _Outcome:
    try:
        with single_thread():
            return _Outcome(value=fn(*args))
    except Exception as exc:
        return _Outcome(error=exc)


def _picklable(obj: Any) -> bool:
    try:
        pickle.dumps(obj)
    except Exception:
        return False
    return True


def _death(pid: int, code: int | None) -> str:
    if code is not None and code < 0:
        name = signal.Signals(-code).name
        hint = " (e.g. by the out-of-memory killer)" if -code == signal.SIGKILL else ""
        return f"worker process {pid} was killed by {name}{hint}"
    return f"worker process {pid} died (exit status {code})"


def _stop(ex: ProcessPoolExecutor, procs: Mapping[int, Any], *, kill: bool) -> None:
    try:
        if kill:
            for p in procs.values():
                p.kill()
        ex.shutdown(wait=True, cancel_futures=True)
    except BaseException:  # a signal while waiting for the pool: never leave its workers behind
        for p in procs.values():
            p.kill()
        raise


def _culprits(lost: Sequence[int], started: Any, procs: Mapping[int, Any]) -> set[int]:
    """The lost tasks that were running on a worker that died of its own (not the pool's SIGTERM).

    A worker takes its tasks in index order, so the one it was running when it died is the last it
    started; an earlier task of that worker finished, its result lost when the pool broke.
    """
    last: dict[int, int] = {}
    for i in lost:
        if started[i]:
            last[started[i]] = max(last.get(started[i], -1), i)
    return {
        i
        for pid, i in last.items()
        if pid in procs and procs[pid].exitcode is not None and procs[pid].exitcode != -signal.SIGTERM
    }


def _completed(
    fn: Callable[..., Any], calls: Sequence[tuple[Any, ...]], workers: int, counts: Any = None
) -> Iterator[tuple[int, _Outcome]]:
    """``fn(*calls[i])`` on fork workers; yields ``(i, outcome)`` in completion order. counts: shared
    memory (2 per call) where each call counts its sweep points (:func:`verify.core.progress.points`).

    A worker that dies breaks the pool: the task it was running is a crash (named); the other lost
    tasks (running on the workers the pool then terminated, still queued, or finished with their
    result lost) go to a new pool. When no lost task is to blame (e.g. an idle worker was killed), a
    task lost a second time that way is a crash, so the loop ends. Unpicklable work runs here.
    Closing the generator (or an exception, e.g. :class:`Interrupted`) kills the workers.
    """
    todo: list[int] = []
    for i, args in enumerate(calls):
        if _picklable((fn, args)):
            todo.append(i)
        else:
            yield i, _local(fn, args)
    lost_before: set[int] = set()
    ctx = multiprocessing.get_context("fork")
    while todo:
        started = RawArray("q", len(calls))
        ex = ProcessPoolExecutor(
            min(workers, len(todo)), mp_context=ctx, initializer=_worker_init, initargs=(started, counts)
        )
        procs: dict[int, Any] = {}
        try:
            futures = {ex.submit(_task, i, fn, calls[i]): i for i in todo}
            procs = dict(ex._processes)  # a fork pool starts all its workers at the first submit
            todo, lost = [], []
            for fut in as_completed(futures):
                i, exc = futures[fut], fut.exception()
                if isinstance(exc, BrokenProcessPool):
                    lost.append(i)
                elif isinstance(exc, _NotPicklable):
                    yield i, _local(fn, calls[i])
                else:
                    yield (
                        i,
                        _Outcome(error=exc)
                        if exc is not None
                        else _Outcome(value=pickle.loads(fut.result())),
                    )
            if lost:
                ex.shutdown(wait=True)  # the pool has reaped its workers: their exit codes are known
            culprits = _culprits(lost, started, procs)
            for i in sorted(lost):
                pid = started[i]
                code = procs[pid].exitcode if pid in procs else None
                if i in culprits or (not culprits and i in lost_before):
                    yield i, _Outcome(crash=_death(pid, code) if pid else "its worker process died")
                else:  # terminated by the broken pool, never started, or its result lost: run it again
                    if not culprits:
                        lost_before.add(i)
                    todo.append(i)
        except BaseException:
            _stop(ex, procs, kill=True)
            raise
        _stop(ex, procs, kill=False)


def _pool_map(workers: int) -> Mapper:
    """A :data:`Mapper` running sweep points on at most ``workers`` fork workers (one per point at most)."""

    def map_(fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
        out: list[Any] = [None] * len(items)
        with contextlib.closing(_completed(fn, [(x,) for x in items], workers)) as outcomes:
            for i, o in outcomes:
                if o.crash:
                    raise WorkerCrashed(f"sweep point {i + 1} of {len(items)}: {o.crash}")
                if o.error is not None:
                    raise o.error
                out[i] = o.value
                count_points(done=1)
        return out

    return map_


def _run_judged(
    c: Claim, profile: str, seed: int, seed_set: tuple[int, ...] | None, robust: bool | str, mapper: Mapper
) -> Result:
    """Claim ``c`` run, and judged over its choices when the run's mode wants it
    (:func:`~verify.core.runner.wants_robustness`); the result's times include that judgement."""
    return run_claim(c, profile=profile, seed=seed, seed_set=seed_set, mapper=mapper, robust=robust)


def _run_by_ids(
    ids: tuple[str, ...], profile: str, seed: int, seed_set: tuple[int, ...] | None, robust: bool | str
) -> list[Result]:
    """Claims run one after the other in one worker (a group sharing an experiment, or one claim), each
    judged over its choices there when the mode wants it."""
    return [_run_judged(get_claim(cid), profile, seed, seed_set, robust, serial_map) for cid in ids]


@dataclass(frozen=True)
class _SeedTask:
    """Seed ``index`` of the seed set of an ``every`` / ``binomial`` claim, a task of its own."""

    claim_id: str
    index: int
    of: int


def _run_seed(
    task: _SeedTask, profile: str, seed: int, seed_set: tuple[int, ...] | None
) -> tuple[Any, float, float]:
    """One seed's evidence, run exactly as the claim's parallel map runs it, with its wall and CPU time."""
    c = get_claim(task.claim_id)
    seeds = claim_seeds(c.record, profile, seed, seed_set)
    call = seed_calls(c, profile=profile, seeds=seeds, params=c.record.params_for(profile))[task.index]
    start, cpu = time.perf_counter(), time.process_time()
    ev = run_seed_call(call)
    return ev, time.perf_counter() - start, time.process_time() - cpu


def _work(
    task: tuple[str, ...] | _SeedTask,
    profile: str,
    seed: int,
    seed_set: tuple[int, ...] | None,
    robust: bool | str = False,
) -> Any:
    """A worker's task: claims run whole (ids), or one seed of a claim."""
    if isinstance(task, _SeedTask):
        return _run_seed(task, profile, seed, seed_set)
    return _run_by_ids(task, profile, seed, seed_set, robust)


def _splits(c: Claim) -> bool:
    """True for a claim whose seeds are tasks of their own in a multi-claim run: an ``every`` /
    ``binomial`` claim that shares no experiment and does not run its seeds batched."""
    rec = c.record
    return rec.seeds in (Seeds.EVERY, Seeds.BINOMIAL) and not rec.batched and not rec.experiment


def _judged_whole(c: Claim, profile: str, robust: bool | str) -> bool:
    """Whether a run in mode ``robust`` is expected to judge claim ``c`` over its choices, read from its
    record: every claim (True), or one whose record expects a violation of the paper's own statement
    ("findings"; :func:`~verify.core.runner.wants_robustness` decides on the result)."""
    rec = c.record
    if robust is True:
        return True
    own = not rec.consistency and rec.provenance in PAPERS_OWN
    return robust == "findings" and own and rec.expected(profile) == Verdict.VIOLATED


def work_units(
    tasks: Sequence[list[Claim]],
    costs: Mapping[str, float],
    profile: str,
    seed: int,
    seed_set: SeedSet,
    robust: bool | str = False,
) -> list[tuple[str, ...] | _SeedTask]:
    """The local pool's tasks, longest first: each group of :func:`groups` (claim ids), except that a
    claim that splits (:func:`_splits`) gives one task per seed, each costing its share; a claim the run
    is expected to judge over its choices (:func:`_judged_whole`) splits not, so that its judgement runs
    in its worker, where the runs it shares with the claim's own are kept."""
    units: list[tuple[float, tuple[str, ...] | _SeedTask]] = []
    for g in tasks:
        cost = sum(float(costs.get(c.id, 1.0)) for c in g)
        if len(g) == 1 and _splits(g[0]) and not _judged_whole(g[0], profile, robust):
            n = len(claim_seeds(g[0].record, profile, seed, seed_set))
            units += [(cost / n, _SeedTask(g[0].id, i, n)) for i in range(n)]
        else:
            units.append((cost, tuple(c.id for c in g)))
    units.sort(key=lambda u: -u[0])  # stable: ties keep the order of groups()
    return [u for _, u in units]


def _assembled(
    c: Claim, profile: str, seed: int, seed_set: tuple[int, ...] | None, outcomes: Sequence[_Outcome]
) -> Result:
    """The claim's result from its seeds' outcomes: judged as the serial run judges them (a seed's
    error or crash is the claim's error, naming the seed), its times the sums over its seeds."""

    def replay(fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
        out = []
        for o, call in zip(outcomes, items, strict=True):
            if o.crash:
                raise WorkerCrashed(f"seed {call.ctx.seed}: {o.crash}")
            if o.error is not None:
                raise o.error
            out.append(o.value[0])
        return out

    r = run_claim(c, profile=profile, seed=seed, seed_set=seed_set, mapper=replay)
    r.wall_time += sum(o.value[1] for o in outcomes if o.value is not None)
    r.cpu_time += sum(o.value[2] for o in outcomes if o.value is not None)
    return r


def groups(claims: Sequence[Claim], costs: Mapping[str, float]) -> list[list[Claim]]:
    """The claims as tasks, longest first: the claims of one paper that name the same shared experiment
    (``experiment=`` on their records, an experiment cached per process) form one task, so the
    experiment is computed once; every other claim is a task of its own. Ties keep claim-id order."""
    by_key: dict[tuple[str, str], list[Claim]] = {}
    for c in sorted(claims, key=lambda c: c.id):
        key = (c.record.paper, c.record.experiment) if c.record.experiment else ("", c.id)
        by_key.setdefault(key, []).append(c)
    tasks = list(by_key.values())
    return sorted(tasks, key=lambda g: -sum(float(costs.get(c.id, 1.0)) for c in g))


# ---------------------------------------------------------------- Dask


def _run_on_cluster(
    group: list[Claim], profile: str, seed: int, seed_set: tuple[int, ...] | None, robust: bool | str = False
) -> list[Result]:
    """Claims (one, or a group sharing an experiment) as one Dask task whose seeds and sweep points are
    tasks of the same cluster: the task leaves its worker's thread pool while it waits
    (``worker_client``), so a long claim is spread over every worker instead of running on one."""
    from dask.distributed import worker_client

    with worker_client() as client:

        def mapper(fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
            return client.gather(client.map(fn, items, pure=False))

        return [_run_judged(c, profile, seed, seed_set, robust, mapper) for c in group]


class _DaskExecutor:
    """A Dask client offering what :func:`run_claims` needs: ``map`` and running claims."""

    def __init__(self, address: str, workers: int, timeout: float = DASK_TIMEOUT) -> None:
        check_dask_address(address)
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as exc:  # optional extra
            raise RuntimeError("--dask needs the optional extra: pip install 'attncheck[dask]'") from exc
        self._cluster = None
        if address == "local":
            with _sigint_ignored():  # the worker processes inherit it: Ctrl-C reaches this process only
                self._cluster = LocalCluster(  # no dashboard; its HTTP server on a free port, not 8787
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",
                    scheduler_kwargs={"dashboard": False},
                )
            self._client = Client(self._cluster)
            return
        try:
            self._client = Client(address, timeout=timeout)
        except Exception as exc:  # e.g. a scheduler that answers with something else
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            if not isinstance(exc, OSError | TimeoutError):
                raise RuntimeError(
                    f"--dask: cannot connect to {address} ({type(exc).__name__}: {reason})"
                ) from None
            raise RuntimeError(
                f"--dask: no scheduler reached at {address} within {timeout:g} s ({reason})"
            ) from None

    def completed(
        self,
        tasks: list[list[Claim]],
        profile: str,
        seed: int,
        seed_set: tuple[int, ...] | None,
        robust: bool | str = False,
    ) -> Iterator[tuple[list[Claim], list[Result]]]:
        """Run ``tasks`` (groups of claims, submitted in the given order); yield (group, results) as
        they finish, each judged over its choices on the cluster when ``robust`` wants it."""
        from dask.distributed import as_completed as dask_completed

        # claims travel by value, their functions by reference: workers import verify.<paper>.claims
        futures = {
            self._client.submit(_run_on_cluster, g, profile, seed, seed_set, robust, pure=False): i
            for i, g in enumerate(tasks)
        }
        for fut in dask_completed(futures):
            group = tasks[futures[fut]]
            try:
                yield group, fut.result()
            except Exception as exc:  # e.g. KilledWorker: the task's workers kept dying
                note = f"Dask: {type(exc).__name__}: {exc}".splitlines()[0]
                yield group, [error_result(c, profile=profile, seed=seed, note=note) for c in group]

    def map(self, fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
        out = self._client.gather(self._client.map(fn, items, pure=False))
        count_points(done=len(items))
        return out

    def shutdown(self, *, interrupted: bool = False) -> None:
        """Close the client (and the local cluster). ``interrupted``: the local workers are killed
        first, and Dask's logging, which would report each cancelled task and dead worker, is
        silenced meanwhile (the caller prints the one line saying what was saved)."""
        log = logging.getLogger("distributed")
        level = log.level
        if interrupted:
            log.setLevel(logging.CRITICAL)
            if self._cluster is not None:
                _kill_children()
        try:
            self._client.close()
            if self._cluster is not None:
                self._cluster.close()
        finally:
            log.setLevel(level)


# ---------------------------------------------------------------- the run


def run_claims(
    claims: list[Claim],
    *,
    profile: str = "quick",
    seed: int = 0,
    seed_set: tuple[int, ...] | None = None,
    jobs: int = 1,
    dask: str | None = None,
    dask_timeout: float = DASK_TIMEOUT,
    progress: ProgressSink | None = None,
    costs: Mapping[str, float] | None = None,
    robust: bool | str = False,
) -> list[Result]:
    """Run ``claims`` on the chosen backend; the results, in claim-id order, are the serial run's.

    seed_set: the seeds of every seeded claim (default: each claim's own set from ``seed``,
    :func:`verify.core.seeds.claim_seeds`); jobs: worker processes (capped at the CPU count); dask: a
    scheduler address or ``local``;
    costs: estimated seconds per claim id (default 1.0) for longest-first submission; progress:
    told when a claim starts and finishes; robust: which verdicts are judged over their claims' choices
    too (:data:`~verify.core.runner.ROBUST_MODES`: none, every one, or the findings;
    :func:`verify.core.runner.judge_robustness`): where whole claims occupy the workers, in the worker
    that ran the claim (a claim whose seeds ran as tasks of their own, in this process); otherwise in
    this process, its sweep points on the workers. Raises :class:`Interrupted` (with the
    finished results) when a signal arrives under :func:`interrupts`; RuntimeError when the backend
    cannot start.
    """
    workers, _ = cap_jobs(jobs)
    robust = check_robust(robust)
    claims = sorted(claims, key=lambda c: c.id)
    done: dict[str, Result] = {}
    claim_of = {c.id: c for c in claims}
    spread = len(claims) >= workers > 1

    def finish(r: Result, judged: bool = False) -> None:
        """``r`` done; judged over its choices here unless its worker did (``judged``)."""
        if not judged and wants_robustness(r, robust):
            start, cpu = time.perf_counter(), time.process_time()
            judge_robustness(
                claim_of[r.claim_id], r, seed=seed, seed_set=seed_set, mapper=serial_map if spread else mapper
            )
            r.wall_time += time.perf_counter() - start
            r.cpu_time += time.process_time() - cpu
        done[r.claim_id] = r
        if progress:
            progress.finished(r)

    try:
        if dask:
            ex = _DaskExecutor(dask, workers, dask_timeout)
            mapper: Mapper = ex.map
        else:
            ex, mapper = None, _pool_map(workers) if workers > 1 else serial_map
        try:
            if spread:
                _run_spread(
                    claims, profile, seed, seed_set, workers, ex, costs or {}, progress, finish, robust
                )
            else:
                if isinstance(progress, Progress):
                    progress.points = lambda _: points()
                for c in claims:
                    track_points()
                    if progress:
                        progress.started(c.id)
                    finish(run_claim(c, profile=profile, seed=seed, seed_set=seed_set, mapper=mapper))
        except Interrupted:
            if ex is not None:
                ex, dask_ex = None, ex
                dask_ex.shutdown(interrupted=True)
            raise
        finally:
            if ex is not None:
                ex.shutdown()
    except Interrupted as exc:
        exc.results = [done[c.id] for c in claims if c.id in done]
        raise
    return [done[c.id] for c in claims]


def _run_spread(
    claims: list[Claim],
    profile: str,
    seed: int,
    seed_set: tuple[int, ...] | None,
    workers: int,
    ex: _DaskExecutor | None,
    costs: Mapping[str, float],
    progress: ProgressSink | None,
    finish: Callable[..., None],
    robust: bool | str,
) -> None:
    """Whole claims on the workers (:func:`groups`: longest first, claims sharing an experiment
    together); on the local pool each seed of an ``every`` / ``binomial`` claim that shares no experiment
    and is not batched is a task of its own (:func:`_splits`; the claim is judged here once all its seeds
    are in). ``finish`` gets each result as its claim completes, with ``judged=True`` when its worker
    judged it over its choices as ``robust`` wants."""
    tasks = groups(claims, costs)
    queued = deque(tasks)

    def start_next() -> None:  # workers take tasks in submission order
        if progress and queued:
            for c in queued.popleft():
                progress.started(c.id)

    if ex is not None:
        for _ in range(workers):
            start_next()
        for _, results in ex.completed(tasks, profile, seed, seed_set, robust):
            for r in results:
                finish(r, judged=True)
            start_next()
        return
    units = work_units(tasks, costs, profile, seed, seed_set, robust)
    calls = [(u, profile, seed, seed_set, robust) for u in units]
    claim_of = {c.id: c for c in claims}
    counts = RawArray("q", 2 * len(calls))
    if isinstance(progress, Progress):
        at: dict[str, int] = {}
        for i, u in enumerate(units):
            for cid in [u.claim_id] if isinstance(u, _SeedTask) else u:
                at.setdefault(cid, 2 * i)
        progress.points = lambda claim_id: points(counts, at[claim_id])
    started: set[str] = set()
    seeds_in: dict[str, dict[int, _Outcome]] = {}

    def begin(i: int) -> None:
        u = units[i]
        for cid in [u.claim_id] if isinstance(u, _SeedTask) else u:
            if progress and cid not in started:
                progress.started(cid)
            started.add(cid)

    for i in range(min(workers, len(units))):
        begin(i)
    next_up = min(workers, len(units))
    with contextlib.closing(_completed(_work, calls, workers, counts)) as outcomes:
        for i, o in outcomes:
            u = units[i]
            if isinstance(u, _SeedTask):
                got = seeds_in.setdefault(u.claim_id, {})
                got[u.index] = o
                if len(got) == u.of:
                    finish(
                        _assembled(
                            claim_of[u.claim_id], profile, seed, seed_set, [got[k] for k in range(u.of)]
                        )
                    )
            elif o.crash or o.error is not None:
                note = o.crash or f"{type(o.error).__name__}: {o.error}"
                for cid in u:
                    finish(error_result(claim_of[cid], profile=profile, seed=seed, note=note))
            else:
                for r in o.value:
                    finish(r, judged=True)
            if next_up < len(units):
                begin(next_up)
                next_up += 1


__all__ = [
    "DASK_TIMEOUT",
    "Interrupted",
    "ProgressSink",
    "WorkerCrashed",
    "cap_jobs",
    "check_dask_address",
    "groups",
    "interrupts",
    "run_claims",
]
