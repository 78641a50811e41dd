"""Issue 14, acceptance: every fault a user can cause gives a one-line error or the partial results,
the documented exit status, no orphan process and no traceback.

Runs that need real processes (signals, killed workers, paths checked before the work, an unreachable
Dask scheduler) start ``python -m verify`` on a toy paper plugin, ``toyfault``, installed as
tests/test_plugin.py installs one: its claims sleep (``TOYFAULT_SLEEP`` seconds), kill the pool worker
running them with SIGKILL (as the out-of-memory killer would), return evidence that cannot be pickled,
or sweep points through ``ctx.map`` of which one kills its worker; each claim that starts leaves a file
in ``TOYFAULT_MARKS``, so a test sees what ran. The input-validation matrix (malformed results files,
NaN in the gate, Dask address forms) calls the same ``main`` in this process, where ``run_claims`` is
replaced by a failure, so every check is seen to come before the work; one case of each kind also runs
end to end in a subprocess.

Exit status (verify/cli.py): 1 for an ``error`` result, 2 for bad usage, 130 / 143 on SIGINT / SIGTERM.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from verify import cli
from verify.cli import main
from verify.core.gate import update_baseline
from verify.core.registry import get_claim, registry
from verify.core.results import read_results_doc, write_results
from verify.core.runner import error_result

SLOW = [f"toyfault.slow{k}" for k in range(1, 9)]

FILES = {
    "toyfaultpaper/__init__.py": '''
        """Toy paper whose claims sleep, kill their worker process or return unpicklable evidence."""

        from verify.core import PaperInfo

        PAPER = PaperInfo(
            key="toyfault", title="Faults", authors="Nobody", venue="nowhere 2026", year=2026,
            arxiv="0000.00000", short="fault injection",
        )
        ''',
    "toyfaultpaper/claims.py": '''
        """TOYFAULT_SLEEP: seconds a slow claim sleeps; TOYFAULT_MARKS: a folder where every claim (and
        sweep point) that starts leaves a file named after it and its process id."""

        import multiprocessing
        import os
        import signal
        import time
        from pathlib import Path

        from verify.core import Ctx, Evidence, Expect, Kind, Provenance, Source, claim


        def _mark(name):
            if os.environ.get("TOYFAULT_MARKS"):
                Path(os.environ["TOYFAULT_MARKS"], f"{name}.{os.getpid()}").touch()


        def _die_in_a_worker():
            if multiprocessing.parent_process() is not None:  # a pool worker, not the main process
                os.kill(os.getpid(), signal.SIGKILL)
                time.sleep(60)


        class Unpicklable(str):
            """A note that cannot be pickled, so a worker cannot send its result back."""

            def __reduce_ex__(self, protocol):
                raise TypeError("this note refuses to be pickled")

            def __deepcopy__(self, memo):
                return str(self)


        def _point(i):
            _mark(f"point{i}")
            if i == 2:
                _die_in_a_worker()
            return float(i)


        def _slow(name):
            def fn(ctx: Ctx) -> Evidence:
                _mark(name)
                time.sleep(float(os.environ.get("TOYFAULT_SLEEP", "1")))
                return Evidence(theory=1.0, measured=0.5)

            fn.__doc__ = f"Sleeps, then holds ({name})."
            claim(
                f"toyfault.{name}", Source("Thm 0", Provenance.EXACT), kind=Kind.UPPER,
                statement="0.5 <= 1, slowly", expect=Expect(consistency=True),
            )(fn)


        for _k in range(1, 9):
            _slow(f"slow{_k}")


        @claim(
            "toyfault.killer", Source("Thm 1", Provenance.EXACT), kind=Kind.UPPER,
            statement="holds, but kills the worker process running it", expect=Expect(consistency=True),
        )
        def killer(ctx: Ctx) -> Evidence:
            """Kills its pool worker with SIGKILL; holds in the main process."""
            _mark("killer")
            _die_in_a_worker()
            return Evidence(theory=1.0, measured=0.5)


        @claim(
            "toyfault.unpicklable", Source("Thm 2", Provenance.EXACT), kind=Kind.UPPER,
            statement="holds, with evidence that cannot be pickled", expect=Expect(consistency=True),
        )
        def unpicklable(ctx: Ctx) -> Evidence:
            """Holds; its note cannot be pickled."""
            _mark("unpicklable")
            return Evidence(theory=1.0, measured=0.5, notes=[Unpicklable("an unpicklable note")])


        @claim(
            "toyfault.sweepkill", Source("Thm 3", Provenance.EXACT), kind=Kind.UPPER,
            statement="four sweep points; the third kills the worker running it",
            expect=Expect(consistency=True),
        )
        def sweepkill(ctx: Ctx) -> Evidence:
            """Sweep points through ctx.map; point 2 kills its pool worker."""
            _mark("sweepkill")
            return Evidence(theory=4.0, measured=max(ctx.map(_point, [0, 1, 2, 3])))
        ''',
    "toyfaultpaper-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: toyfaultpaper\nVersion: 0.1\n",
    "toyfaultpaper-0.1.dist-info/entry_points.txt": "[attncheck.papers]\ntoyfault = toyfaultpaper\n",
}


@pytest.fixture(scope="module")
def plugin(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("toyfault")
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return root


@pytest.fixture
def marks(tmp_path: Path) -> Path:
    path = tmp_path / "marks"
    path.mkdir()
    return path


def _env(plugin: Path, marks: Path | None = None, sleep: float = 1.0) -> dict[str, str]:
    path = os.pathsep.join([str(plugin), os.environ.get("PYTHONPATH", "")])
    env = os.environ | {"PYTHONPATH": path, "TOYFAULT_SLEEP": str(sleep), "TOYFAULT_MARKS": ""}
    return env | ({"TOYFAULT_MARKS": str(marks)} if marks is not None else {})


def _started(marks: Path, prefix: str = "") -> list[str]:
    """The marks left by claims (or sweep points) whose name starts with ``prefix``."""
    return sorted(p.name for p in marks.iterdir() if p.name.startswith(prefix))


# ---------------------------------------------------------------- process helpers


def _group(pgid: int) -> list[str]:
    """Processes still in process group ``pgid``, alive or zombie (``pid state name``), from /proc."""
    found = []
    for d in Path("/proc").iterdir():
        try:
            stat = (d / "stat").read_text() if d.name.isdigit() else ""
        except OSError:  # it exited meanwhile
            continue
        if stat:
            name = stat[stat.index("(") + 1 : stat.rindex(")")]
            state, _ppid, pgrp = stat[stat.rindex(")") + 2 :].split()[:3]
            if int(pgrp) == pgid:
                found.append(f"{d.name} {state} {name}")
    return found


def _orphans(pgid: int, timeout: float = 20.0) -> list[str]:
    """What is left of the process group ``pgid`` after ``timeout`` seconds ([] once it is gone)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        if time.monotonic() > deadline:
            return _group(pgid) or [f"process group {pgid}"]
        time.sleep(0.2)


class Run:
    """``python -m verify ARGS`` in a new session (its process group id is its pid)."""

    def __init__(self, env: dict[str, str], tmp: Path, *args: str) -> None:
        self.err_path, self.out_path = tmp / "stderr.txt", tmp / "stdout.txt"
        with open(self.err_path, "w") as err, open(self.out_path, "w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "verify", *args],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=env,
                start_new_session=True,
            )
        self.pgid = self.proc.pid

    @property
    def stderr(self) -> str:
        return self.err_path.read_text()

    @property
    def stdout(self) -> str:
        return self.out_path.read_text()

    def wait_for(self, text: str, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.stderr:
            assert self.proc.poll() is None, (
                f"exited ({self.proc.returncode}) before {text!r}:\n{self.stderr}"
            )
            assert time.monotonic() < deadline, f"no {text!r} within {timeout} s:\n{self.stderr}"
            time.sleep(0.05)

    def wait(self, timeout: float = 60.0) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {timeout} s later:\n{self.stderr}")

    def kill(self) -> None:
        """Clean up after a failed test: the whole group (ours) is killed."""
        try:
            os.killpg(self.pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(30)


@pytest.fixture
def session(tmp_path: Path):
    started: list[Run] = []

    def start(env: dict[str, str], *args: str) -> Run:
        run = Run(env, tmp_path, *args)
        started.append(run)
        return run

    yield start
    for run in started:
        run.kill()


def _attncheck(
    env: dict[str, str], *args: str, timeout: float = 120.0
) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "verify", *args], capture_output=True, text=True, env=env, timeout=timeout
    )
    return proc, time.monotonic() - start


def _concurrently(
    runs: dict[str, tuple[dict[str, str], list[str]]],
) -> dict[str, tuple[subprocess.CompletedProcess, float]]:
    """``_attncheck(env, *argv)`` for every named run, four at a time (their start-up dominates)."""
    with ThreadPoolExecutor(4) as pool:
        futures = {name: pool.submit(_attncheck, env, *argv) for name, (env, argv) in runs.items()}
        return {name: f.result() for name, f in futures.items()}


def _one_line_error(code: int, err: str, *fragments: str) -> str:
    """Exit 2 and exactly one line on stderr, ``attncheck: error: ...`` holding every fragment."""
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("attncheck: error: "), err
    for f in fragments:
        assert f in lines[0], f"{f!r} not in {lines[0]!r}"
    return lines[0]


# ---------------------------------------------------------------- signals


@pytest.mark.parametrize(
    ("sig", "to_group", "code"),
    [(signal.SIGINT, True, 130), (signal.SIGTERM, False, 143)],
    ids=["SIGINT-to-the-group", "SIGTERM-to-the-main-process"],
)
def test_a_signal_writes_the_finished_results_and_leaves_no_process(
    plugin, marks, tmp_path, session, sig, to_group, code
) -> None:
    """Ctrl-C (SIGINT to the whole foreground group) and ``kill`` (SIGTERM to the main process only)."""
    out = tmp_path / "out.json"
    write_results(out, [], "quick", 0)  # a previous run's file: it must not look current afterwards
    run = session(_env(plugin, marks, sleep=1.5), "run", "toyfault.slow*", "--jobs", "2", "--json", str(out))
    run.wait_for("[1/8]")
    (os.killpg if to_group else os.kill)(run.pgid, sig)
    assert run.wait() == code
    assert _orphans(run.pgid) == []
    err = run.stderr
    assert "Traceback" not in err, err
    name = signal.Signals(sig).name
    m = re.search(rf"^attncheck: interrupted by {name} after (\d+) of 8 claims; (.*)$", err, re.M)
    assert m, err
    done = int(m.group(1))
    assert m.group(2) == f"the {done} finished written to {out} (complete: false)"
    doc = read_results_doc(out)  # replaced atomically by the partial results: no temp file is left
    assert not doc.complete and len(doc.results) == done and 1 <= done < 8
    assert {r.claim_id for r in doc.results} <= set(SLOW) and {r.verdict for r in doc.results} == {"holds"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["marks", "out.json", "stderr.txt", "stdout.txt"]
    assert len(_started(marks, "slow")) < 8  # the queued claims were cancelled, not run first


def test_two_runs_writing_the_same_json(plugin, marks, tmp_path, session) -> None:
    """Issue 27 case 4, end to end: while one run writes ``--json``, a second run with the same path
    (here through a symlink to it) is refused at once with one line; the first, interrupted then,
    still writes its file (and removes its lock)."""
    out = tmp_path / "out.json"
    (tmp_path / "link.json").symlink_to(out)
    env = _env(plugin, marks, sleep=60)
    first = session(env, "run", "toyfault.slow1", "--json", str(out))
    deadline = time.monotonic() + 60
    while not _started(marks, "slow1"):  # the lock is taken before the first claim starts
        assert first.proc.poll() is None and time.monotonic() < deadline, first.stderr
        time.sleep(0.05)
    proc, seconds = _attncheck(env, "run", "toyfault.slow2", "--json", str(tmp_path / "link.json"))
    _one_line_error(proc.returncode, proc.stderr, f"--json: {tmp_path / 'link.json'} is being written by")
    assert seconds < 50 and first.proc.poll() is None and _started(marks, "slow2") == []
    os.killpg(first.pgid, signal.SIGINT)
    assert first.wait() == 130, first.stderr
    assert read_results_doc(out).complete is False and (tmp_path / "link.json").is_symlink()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["link.json", "marks", "out.json", "stderr.txt", "stdout.txt"]


def test_ctrl_c_on_dask_is_one_line(plugin, marks, tmp_path, session) -> None:
    """Issue 27 case 5: Ctrl-C on ``--dask local`` printed 74 lines, 4 of them worker tracebacks. The
    workers ignore SIGINT (the main process stops them) and Dask's logging is silenced while it does:
    stderr holds the one line saying what was saved, and nothing is left running."""
    pytest.importorskip("dask.distributed")
    out = tmp_path / "out.json"
    run = session(
        _env(plugin, marks, sleep=60),
        "run",
        "toyfault.slow*",
        "--dask",
        "local",
        "--jobs",
        "2",
        "--json",
        str(out),
    )
    deadline = time.monotonic() + 120
    while len(_started(marks, "slow")) < 2:  # claims running on the Dask workers
        assert run.proc.poll() is None and time.monotonic() < deadline, run.stderr
        time.sleep(0.1)
    os.killpg(run.pgid, signal.SIGINT)
    assert run.wait() == 130
    assert _orphans(run.pgid) == []
    saved = f"the 0 finished written to {out} (complete: false)"
    assert run.stderr == f"attncheck: interrupted by SIGINT after 0 of 8 claims; {saved}\n"
    assert read_results_doc(out).results == []


def test_a_second_signal_exits_at_once(plugin, marks, tmp_path, session) -> None:
    """Ctrl-C twice: the second one kills the workers and exits at once, wherever the first left off."""
    out = tmp_path / "out.json"
    run = session(_env(plugin, marks, sleep=1.5), "run", "toyfault.slow*", "--jobs", "2", "--json", str(out))
    run.wait_for("[1/8]")
    os.killpg(run.pgid, signal.SIGINT)
    os.killpg(run.pgid, signal.SIGINT)
    # 130, or death by SIGINT when the second one lands after Python restored the default handlers
    # at its very end: a shell reports both as 130
    assert run.wait(timeout=20) in (130, -signal.SIGINT)
    assert _orphans(run.pgid) == []
    assert "Traceback" not in run.stderr, run.stderr
    if out.exists():  # written before the second signal came: a valid partial file, never half of one
        assert not read_results_doc(out).complete


SECOND_SIGNAL = """
import os, signal
from verify.core.parallel import Interrupted, interrupts

try:
    with interrupts():
        os.kill(os.getpid(), signal.SIG{name})
        signal.pause()
except Interrupted as exc:  # winding down, e.g. writing the partial results
    print("first", exc.exit_code, flush=True)
    os.kill(os.getpid(), signal.SIG{name})
    print("still running")
"""


@pytest.mark.parametrize("name", ["INT", "TERM"])
def test_a_second_signal_while_winding_down_exits_at_once(name) -> None:
    """Deterministic: the second signal lands after the run stopped, as the partial results are written."""
    code = 128 + signal.Signals[f"SIG{name}"]
    argv = [sys.executable, "-c", SECOND_SIGNAL.format(name=name)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (code, f"first {code}\n"), proc.stderr
    assert proc.stderr == f"attncheck: SIG{name} again: exiting at once\n"


# ---------------------------------------------------------------- crashed workers, --jobs


def test_a_killed_worker_is_an_error_result_and_the_run_goes_on(plugin, marks, tmp_path, session) -> None:
    """Two claims kill their workers (the second inside its sweep, run serially in the worker): each
    becomes ``error`` naming the cause; the claims lost with the broken pools run again and hold."""
    out = tmp_path / "out.json"
    ids = ["toyfault.killer", *SLOW[:3], "toyfault.sweepkill", "toyfault.unpicklable"]
    run = session(_env(plugin, marks, sleep=0.3), "run", *ids, "--jobs", "2", "--json", str(out))
    assert run.wait(timeout=120) == 1, run.stderr  # an unexpected error, not bad usage (2)
    assert _orphans(run.pgid) == []
    assert "Traceback" not in run.stderr, run.stderr
    doc = read_results_doc(out)
    got = {r.claim_id: r for r in doc.results}
    assert doc.complete and sorted(got) == ids
    killed = [got.pop("toyfault.killer"), got.pop("toyfault.sweepkill")]
    for r in killed:
        assert r.verdict == "error"
        assert re.fullmatch(
            r"worker process \d+ was killed by SIGKILL \(e\.g\. by the out-of-memory killer\)", r.notes[0]
        )
    assert {cid: r.verdict for cid, r in got.items()} == dict.fromkeys(got, "holds")  # no bystander blamed
    assert got["toyfault.unpicklable"].notes == ["an unpicklable note"]  # run again in the main process
    failed = [line for line in run.stderr.splitlines() if line.startswith("FAILED")]
    assert failed == [f"FAILED {r.claim_id}: error: {r.notes[0]}" for r in killed]


def test_the_fault_claims_hold_in_one_process(plugin) -> None:
    """The control: with --jobs 1 nothing runs in a worker, and every fault claim holds."""
    ids = ["toyfault.killer", "toyfault.sweepkill", "toyfault.unpicklable"]
    proc, _ = _attncheck(_env(plugin), "run", *ids, "--jobs", "1", "--quiet")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    rows = proc.stdout.split("\n\n")[0].splitlines()[2:]  # the verdict table, before the summary
    assert [line.split()[:2] for line in rows] == [[i, "holds"] for i in ids]


def test_a_killed_sweep_point_names_its_claim_and_jobs_are_capped(plugin, marks, tmp_path, session) -> None:
    out = tmp_path / "out.json"
    run = session(_env(plugin, marks), "run", "toyfault.sweepkill", "--jobs", "1000", "--json", str(out))
    assert run.wait(timeout=120) == 1, run.stderr
    assert _orphans(run.pgid) == []
    assert "Traceback" not in run.stderr, run.stderr
    cpus = os.cpu_count() or 1
    if cpus < 1000:
        assert f"attncheck: note: --jobs 1000 capped at {cpus}, the number of CPUs" in run.stderr
    (r,) = read_results_doc(out).results
    assert r.verdict == "error"
    assert re.search(r"sweep point 3 of 4: worker process \d+ was killed by SIGKILL", r.notes[0]), r.notes
    workers = {name.split(".")[1] for name in _started(marks, "point")}  # process ids of the sweep points
    assert 1 <= len(workers) <= min(cpus, 4)


# ---------------------------------------------------------------- paths checked before the work


@pytest.fixture
def regular_file(tmp_path: Path) -> Path:
    path = tmp_path / "a-file"
    path.write_text("not a folder\n")
    return path


BAD_PATHS = {
    "json-a-folder": (["run", "toyfault.slow*", "--json", "{tmp}"], ["--json:", "is a folder, not a file"]),
    "json-under-a-file": (
        ["run", "toyfault.slow*", "--json", "{file}/x.json"],
        ["--json:", "is not a folder"],
    ),
    "out-a-file": (["report", "toyfault.slow*", "--out", "{file}"], ["--out:", "exists and is not a folder"]),
    "no-baseline": (["baseline", "check", "--baseline", "{tmp}/none.json"], ["--baseline: no baseline at"]),
    "no-from": (["report", "--from", "{tmp}/none.json", "--out", "{tmp}/rep"], ["--from: no such results"]),
}


def test_a_bad_path_fails_before_any_claim_runs(plugin, marks, tmp_path, regular_file) -> None:
    """End to end: the claims would sleep 60 s each, and none starts."""
    env = _env(plugin, marks, sleep=60)
    argv = {
        name: [a.format(tmp=tmp_path, file=regular_file) for a in args]
        for name, (args, _) in BAD_PATHS.items()
    }
    runs = _concurrently({name: (env, [*args, "--jobs", "2"]) for name, args in argv.items()})
    for name, (proc, seconds) in runs.items():
        _one_line_error(proc.returncode, proc.stderr, *BAD_PATHS[name][1])
        assert seconds < 55, name  # a claim would sleep 60 s
    assert _started(marks) == []


@pytest.fixture
def no_run(monkeypatch):
    """In-process ``main``: a claim that starts fails the test (every check must come first)."""

    def refuse(*args, **kwargs):
        pytest.fail("a claim ran before the inputs were checked")

    monkeypatch.setattr(cli, "run_claims", refuse)


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["run", "--json", "{tmp}"], ["--json:", "is a folder"]),
        (["run", "--json", "{file}/deeper/x.json"], ["--json:", "a-file is not a folder"]),
        (
            ["run", "--json", "/proc/x.json"],
            ["--json: cannot create files in /proc (its file system refuses"],
        ),
        (["report", "--out", "{file}"], ["--out:", "exists and is not a folder"]),
        (["report", "--out", "{tmp}/rep"], ["--out:", "results.json is a folder"]),
        (["baseline", "check", "--baseline", "{tmp}/none.json"], ["--baseline: no baseline at"]),
        (["baseline", "check", "--baseline", "{file}/b.json"], ["--baseline:", "Not a directory"]),
        (["baseline", "update", "--baseline", "{file}/b.json"], ["--baseline:", "a-file is not a folder"]),
        (["baseline", "update", "--baseline", "{tmp}"], ["--baseline:", "is a folder"]),
        (["run", "--timings", "{tmp}/none.json"], ["--timings: no such results file"]),
        (["run", "--timings", "{tmp}"], ["--timings:", "is a directory"]),
        (["run", "--timings", "{file}/x.json"], ["--timings: cannot read", "a-file/x.json"]),
        (["run", "--jobs", "0"], ["--jobs must be an integer >= 1"]),
    ],
)
def test_every_path_and_input_is_checked_before_the_work(
    no_run, capsys, tmp_path, regular_file, args, fragments
) -> None:
    (tmp_path / "rep" / "results.json").mkdir(parents=True)
    argv = [a.format(tmp=tmp_path, file=regular_file) for a in args]
    _one_line_error(*_cli(capsys, *argv, *([] if "--jobs" in argv else ["--jobs", "2"]))[::2], *fragments)


# ---------------------------------------------------------------- malformed results files


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    """A valid results file of three installed claims, each with its expected verdict."""
    results = [
        dataclasses.replace(
            error_result(get_claim(cid), profile="quick", seed=0, note="-"),
            verdict=get_claim(cid).record.expect, theory=1.0, measured=0.5, slack=0.301, notes=[],
        )
        for cid in sorted(registry())[:3]
    ]  # fmt: skip
    path = tmp_path / "saved.json"
    write_results(path, results, "quick", 0)
    return path


def _set(path: str, value):
    """A mutation of the parsed results file: ``path`` like ``results.0.slack``; ``value`` may be a
    function of the document."""

    def edit(doc):
        *parents, last = path.split(".")
        node = doc
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[int(last) if isinstance(node, list) else last] = value(doc) if callable(value) else value
        return doc

    return edit


MALFORMED = {
    "not-json": ("{not json", "is not JSON"),
    "not-utf8": (b"\xff\xfe{}", "is not JSON"),
    "too-many-digits": ('{"seed": ' + "9" * 5000 + "}", "is not JSON"),
    "top-level-a-list": ("[1, 2]", "top level: must be an object, got list"),
    "results-an-object": (_set("results", {}), "results: must be a list, got dict"),
    "no-schema": (lambda d: {k: v for k, v in d.items() if k != "schema"}, "schema: None"),
    "seed-a-string": (_set("seed", "0"), "seed: must be an integer >= 0"),
    "complete-a-string": (_set("complete", "yes"), "complete: must be a bool"),
    "result-a-list": (_set("results.0", [1]), "results[0]: must be an object"),
    "slack-a-string": (_set("results.0.slack", "big"), "results[0].slack: must be a number, got str"),
    "slack-huge": (_set("results.0.slack", 10**400), "results[0].slack: an integer beyond float64"),
    "verdict-a-list": (
        _set("results.0.verdict", ["holds"]),
        "results[0].verdict: ['holds'] is not a Verdict",
    ),
    "verdict-unknown": (_set("results.0.verdict", "great"), "results[0].verdict: 'great' is not a Verdict"),
    "notes-a-string": (_set("results.0.notes", "x"), "results[0].notes: must be a list"),
    "params-an-mpf": (_set("results.0.params", {"$mpf": "1"}), "results[0].params: must be an object"),
    "headline-no-measured": (_set("results.0.headline", {"name": "c", "theory": 1}), "results[0].headline"),
    "headline-a-string": (_set("results.0.headline", "x"), "results[0].headline: must be a dict"),
    "missing-field": (
        lambda d: d["results"][0].pop("claim_id") and d,
        "results[0]: missing field 'claim_id'",
    ),
    "measured-NaN": (_set("results.0.measured", float("nan")), "results[0].measured: nan is not allowed"),
    "theory-Infinity": (_set("results.0.theory", float("inf")), "results[0].theory: inf is not allowed"),
    "slack-NaN": (_set("results.0.slack", float("nan")), "results[0].slack: nan is not allowed"),
    "series-NaN": (_set("results.0.series", {"t": [1, float("nan")]}), "results[0].series['t'][1]: nan"),
    "mpf-NaN": (_set("results.0.theory", {"$mpf": "nan"}), "results[0].theory: $mpf 'nan' is not allowed"),
    "unknown-claim": (
        _set("results.0.claim_id", lambda d: d["results"][0]["paper"] + ".nosuch"),
        ".nosuch' is not a claim of this version",
    ),
    "duplicate-claim": (
        lambda d: d["results"].append(copy.deepcopy(d["results"][0])) or d,
        "results[3].claim_id: ",
    ),
    "escaped-paper": (_set("results.0.paper", "../../escaped"), "results[0].paper: '../../escaped'"),
    "absolute-paper-and-id": (
        lambda d: _set("results.0.claim_id", "/tmp/escaped.x")(_set("results.0.paper", "/tmp/escaped")(d)),
        "results[0].paper: '/tmp/escaped' is not a paper name",
    ),
}


def _malformed(saved: Path, case: str) -> tuple[Path, str]:
    edit, fragment = MALFORMED[case]
    path = saved.with_name(f"{case}.json")
    if isinstance(edit, bytes):
        path.write_bytes(edit)
    elif isinstance(edit, str):
        path.write_text(edit)
    else:
        path.write_text(json.dumps(edit(json.loads(saved.read_text()))))  # NaN / Infinity as JSON allows
    return path, fragment


@pytest.mark.parametrize("command", ["report", "baseline"])
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_results_file_is_a_one_line_error_naming_the_field(
    no_run, capsys, tmp_path, saved, case, command
) -> None:
    path, fragment = _malformed(saved, case)
    out = tmp_path / "a" / "b" / "out"
    base = tmp_path / "base.json"
    update_baseline(read_results_doc(saved).results, base)
    argv = ["report", "--from", str(path), "--out", str(out)] if command == "report" else []
    argv = argv or ["baseline", "check", "--from", str(path), "--baseline", str(base)]
    _one_line_error(*_cli(capsys, *argv)[::2], f"--from: {path}", fragment)
    assert not out.exists() and list(tmp_path.rglob("*.tex")) == []  # nothing written, outside --out or in


def test_a_valid_file_passes_and_a_partial_one_says_so(capsys, tmp_path, saved) -> None:
    """The control of the two tests above and below: the unmodified file is accepted."""
    base = tmp_path / "base.json"
    update_baseline(read_results_doc(saved).results, base)
    code, out, err = _cli(capsys, "baseline", "check", "--from", str(saved), "--baseline", str(base))
    assert code == 0 and "baseline check passed" in out and err == "", err
    doc = read_results_doc(saved)
    write_results(saved, doc.results, "quick", 0, complete=False)
    code, out, err = _cli(capsys, "baseline", "check", "--from", str(saved), "--baseline", str(base))
    assert code == 0, err
    note = (
        f"attncheck: note: --from: {saved} is from an interrupted run (complete: false); it holds 3 results"
    )
    assert err == note + "\n"


# ---------------------------------------------------------------- NaN in the gate


@pytest.mark.parametrize(
    ("where", "edit", "fragment"),
    [
        ("option", "nan", "--tolerance must be a finite number >= 0"),
        ("option", "inf", "--tolerance must be a finite number >= 0"),
        ("option", "-0.1", "--tolerance must be a finite number >= 0"),
        ("baseline", '"tolerance": NaN', "tolerance must be a finite number >= 0 (log10 units), got nan"),
        ("baseline", '"tolerance": 1e999', "tolerance must be a finite number >= 0"),
        ("baseline", '"tolerance": "0.05"', "tolerance must be a finite number >= 0"),
        ("baseline", '"slack": NaN', ".slack must be a finite number or null, got nan"),
        ("baseline", '"slack": -1e999', ".slack must be a finite number or null"),
        ("baseline", '"verdict": ["holds"]', ".verdict ['holds'] is not a verdict"),
        ("results", "slack-NaN", "results[0].slack: nan is not allowed"),
        ("results", "mpf-NaN", "results[0].theory: $mpf 'nan' is not allowed"),
    ],
)
def test_nan_never_passes_the_gate(no_run, capsys, tmp_path, saved, where, edit, fragment) -> None:
    base = tmp_path / "base.json"
    update_baseline(read_results_doc(saved).results, base)
    args = ["baseline", "check", "--from", str(saved), "--baseline", str(base)]
    if where == "option":
        args += ["--tolerance", edit]
    elif where == "baseline":
        key = edit.split(":")[0]
        text = re.sub(rf"{key}: [^,\n]*(?=,?\n)", edit, base.read_text(), count=1)
        assert text != base.read_text()
        base.write_text(text)
    else:
        args[3] = str(_malformed(saved, edit)[0])
    _one_line_error(*_cli(capsys, *args)[::2], fragment)


# ---------------------------------------------------------------- --dask

BAD_ADDRESS = "--dask must be 'local', 'tcp://host:port' or 'host:port', got"


@pytest.mark.parametrize("address", ["nonsense", "tcp://host", "tcp://h:99999", "tcp://:80", "http://h:1"])
def test_a_malformed_dask_address_is_refused_before_connecting(no_run, capsys, address) -> None:
    _one_line_error(*_cli(capsys, "run", "--dask", address)[::2], f"{BAD_ADDRESS} {address!r}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- the same, end to end


def test_usage_errors_end_to_end(plugin, marks, tmp_path, saved) -> None:
    """One of each kind above through ``python -m verify``: a malformed results file, a NaN tolerance,
    a malformed Dask address, a well-formed one where nothing listens (given up after --dask-timeout
    2), and a tls:// one (not offered: no TLS settings can be passed). The claims would sleep 60 s
    each, and none starts."""
    env = _env(plugin, marks, sleep=60)
    bad, fragment = _malformed(saved, "escaped-paper")
    out = tmp_path / "a" / "b" / "out"
    address = f"tcp://127.0.0.1:{_free_port()}"
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        unreachable = ["--dask needs the optional extra: pip install 'attncheck[dask]'"]
    else:
        unreachable = [f"--dask: no scheduler reached at {address} within 2 s"]
    cases = {
        "report": (["report", "--from", str(bad), "--out", str(out)], [f"--from: {bad}", fragment]),
        "nan": (
            ["baseline", "check", "--from", str(saved), "--tolerance", "nan"],
            ["--tolerance must be", "nan"],
        ),
        "dask-form": (
            ["run", "toyfault.slow*", "--dask", "tcp://h:99999"],
            [f"{BAD_ADDRESS} 'tcp://h:99999'"],
        ),
        "dask-unreachable": (
            ["run", "toyfault.slow*", "--dask", address, "--dask-timeout", "2"],
            unreachable,
        ),
    }
    cases["dask-tls"] = (
        ["run", "toyfault.slow*", "--dask", f"tls://{address[6:]}", "--dask-timeout", "2"],
        [f"--dask: tls:// is not supported (no TLS settings can be passed), got 'tls://{address[6:]}'"],
    )
    runs = _concurrently({name: (env, args) for name, (args, _) in cases.items()})
    for name, (proc, seconds) in runs.items():
        _one_line_error(proc.returncode, proc.stderr, *cases[name][1])
        assert seconds < 55, name  # a claim would sleep 60 s
    assert _started(marks) == [] and not out.exists() and list(tmp_path.rglob("*.tex")) == []
