"""The ``attncheck`` command (also ``python -m verify``).

    attncheck list [--json]
    attncheck docs [--out DIR] [--check]
    attncheck run [PATTERN ...] [--profile quick|paper] [--seed N] [--json PATH] [RUN OPTIONS]
    attncheck report [PATTERN ...] [--profile ...] [--seed N] [--from RESULTS.json] [--out DIR] [RUN OPTIONS]
    attncheck baseline check|update [--from RESULTS.json] [--baseline PATH] [--tolerance DEX] [RUN OPTIONS]

run and report also take --robust: each verdict judged over its claim's declared choices.

RUN OPTIONS: [--seeds 0-19] [--jobs N] [--dask ADDR] [--dask-timeout S] [--timings RESULTS.json] [--quiet]

Exit status: 0 when nothing is ``error`` or an unexpected ``violated`` (and, for ``baseline check``,
nothing regressed); 1 otherwise; 2 for bad usage, e.g. a pattern that matches no claim or an output
path that cannot be written (every path, input file and the baseline are checked before the first
claim runs); 130 / 143 when interrupted by SIGINT / SIGTERM (the results finished so far are written
with ``"complete": false``).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import math
import signal
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from verify.core.context import PROFILES
from verify.core.format import fmt_slack, fmt_value, shown
from verify.core.papers import PluginError
from verify.core.parallel import (
    DASK_TIMEOUT,
    Interrupted,
    cap_jobs,
    check_dask_address,
    interrupts,
    run_claims,
)
from verify.core.progress import Progress
from verify.core.provenance import finished, run_record
from verify.core.record import Result
from verify.core.registry import Claim, match_claims, registry
from verify.core.results import (
    ResultsDoc,
    ResultsError,
    read_results,
    read_results_doc,
    results_lock,
    write_results,
)
from verify.core.summary import summary_table
from verify.docs import DEFAULT_DOCS

#: ``--robust``: the verdicts judged over the claims' declared choices too (verify/core/choices.py).
ROBUST_HELP = "judge each verdict again at the ends of its claim's declared choices (marked ~ if it changes)"
#: The largest seed set ``--seeds`` accepts.
MAX_SEEDS = 10_000


class UsageError(Exception):
    """Bad command-line input: reported on stderr with exit status 2."""


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def results_table(results: list[Result], wide: bool = False) -> str:
    """The verdict table; ``wide``: every note printed, indented, under its row. A verdict that is not
    robust to our choices is marked ``~`` (its notes say which choice decides it)."""
    rows = [
        [
            r.claim_id,
            r.verdict
            + ("~" if r.robust is False else "")
            + ("" if r.as_expected else f" (expected {r.expected})"),
            *(fmt_value(v, limit=40) for v in shown(r)),
            fmt_slack(r.slack),
            f"{r.wall_time:.1f}s",
        ]
        for r in results
    ]
    table = _table(rows, ["claim", "verdict", "theory", "measured", "slack", "time"])
    if not wide:
        return table
    lines = table.splitlines()
    out = lines[:2]
    for line, r in zip(lines[2:], results, strict=True):
        out += [line, *(f"    - {note}" for note in r.notes)]
    return "\n".join(out)


def _read(path: str, flag: str, *, known: bool = True) -> list[Result]:
    """The validated results file at ``path`` (claim ids of this version when ``known``)."""
    return _read_doc(path, flag, known=known).results


def _read_doc(path: str, flag: str, *, known: bool = True) -> ResultsDoc:
    """:func:`_read`, with the file's run record and completeness."""
    try:
        doc = read_results_doc(Path(path), set(registry()) if known else None)
    except ResultsError as exc:
        raise UsageError(f"{flag}: {exc}") from None
    if not doc.complete:
        print(
            f"attncheck: note: {flag}: {path} is from an interrupted run (complete: false); "
            f"it holds {len(doc.results)} results",
            file=sys.stderr,
        )
    return doc


def _record(args: argparse.Namespace) -> dict:
    """The run record of the run this command starts (:mod:`verify.core.provenance`)."""
    jobs = cap_jobs(args.jobs)[0]
    argv = ["attncheck", *args.argv]
    return run_record(
        profile=args.profile, seed=args.seed, seeds=args.seed_set, jobs=jobs, dask=args.dask, argv=argv
    )


def _probe_dir(folder: Path, flag: str) -> None:
    """``folder``, or its nearest existing ancestor, must be a folder we can create a file in."""
    base = folder
    while not base.exists() and base != base.parent:
        base = base.parent
    if not base.is_dir():
        raise UsageError(f"{flag}: {base} is not a folder")
    try:
        with tempfile.NamedTemporaryFile(dir=base, prefix=".attncheck-probe."):  # as the writes will
            pass
    except OSError as exc:
        if exc.errno == errno.ENOENT:  # the folder is there: its file system takes no new files
            raise UsageError(
                f"{flag}: cannot create files in {base} (its file system refuses them)"
            ) from None
        raise UsageError(f"{flag}: cannot write in {base} ({exc.strerror or exc})") from None


def _check_out_file(path: Path, flag: str) -> None:
    if path.is_dir():
        raise UsageError(f"{flag}: {path} is a folder, not a file")
    _probe_dir(path.parent, flag)


def _check_out_dir(path: Path, flag: str) -> None:
    if path.exists() and not path.is_dir():
        raise UsageError(f"{flag}: {path} exists and is not a folder")
    _probe_dir(path, flag)


def _select(patterns: Sequence[str]) -> list[Claim]:
    try:
        return match_claims(patterns)
    except LookupError as exc:
        raise UsageError(str(exc)) from exc


def _costs(args: argparse.Namespace, workers: int) -> dict[str, float]:
    """Estimated seconds per claim for longest-first submission: ``--timings``, else the baseline's
    recorded ``wall_time`` (1.0 for a claim without one)."""
    if workers == 1:
        return {}
    if args.timings:
        return {r.claim_id: r.wall_time for r in args.timings_results}
    from reports.baseline import load_baseline

    try:
        claims = load_baseline()["claims"]
    except (OSError, ValueError):  # no usable baseline: every claim costs the same
        return {}
    costs = {}
    for cid, e in claims.items():
        wall = e.get("wall_time")
        if isinstance(wall, int | float) and not isinstance(wall, bool) and 0 <= wall < 1e9:
            costs[cid] = float(wall)
    return costs


def _run(args: argparse.Namespace, claims: list[Claim]) -> list[Result]:
    workers, note = cap_jobs(args.jobs)
    if note:
        print(f"attncheck: note: {note}", file=sys.stderr)
    progress = None if args.quiet else Progress(len(claims))
    try:
        return run_claims(
            claims,
            profile=args.profile,
            seed=args.seed,
            seed_set=args.seed_set,
            jobs=workers,
            dask=args.dask,
            dask_timeout=args.dask_timeout,
            progress=progress,
            costs=_costs(args, workers),
            robust=getattr(args, "robust", False),
        )
    except RuntimeError as exc:  # a backend that cannot start: no extra, no scheduler reached
        raise UsageError(str(exc)) from exc
    finally:
        if progress is not None:
            progress.close()


def _interrupted(
    exc: Interrupted, total: int, args: argparse.Namespace, path: Path | None, run: dict | None = None
) -> int:
    """Write the finished results (``complete: false``) to ``path``; one line saying how far it got."""
    done = len(exc.results)
    where = "nothing written"
    if path is not None:
        if run is not None:
            run = finished(run, wall_time=time.monotonic() - args.started, complete=False)
        write_results(path, exc.results, args.profile, args.seed, complete=False, run=run)
        where = f"the {done} finished written to {path} (complete: false)"
    name = signal.Signals(exc.signum).name
    print(f"attncheck: interrupted by {name} after {done} of {total} claims; {where}", file=sys.stderr)
    return exc.exit_code


def _status(results: list[Result]) -> int:
    bad = [r for r in results if r.unexpected_failure]
    for r in bad:
        print(f"FAILED {r.claim_id}: {r.verdict}: {'; '.join(r.notes)}", file=sys.stderr)
    return 1 if bad else 0


def cmd_list(args: argparse.Namespace) -> int:
    claims = list(registry().values())
    if args.json:
        print(json.dumps([c.record.as_dict() for c in claims], indent=1))
        return 0
    rows = [[c.id, c.record.kind, c.record.provenance, c.record.reference] for c in claims]
    print(_table(rows, ["claim", "kind", "provenance", "reference"]))
    return 0


def cmd_docs(args: argparse.Namespace) -> int:
    from verify.docs import stale_pages, write_docs

    out = Path(args.out)
    if args.check:
        stale = stale_pages(out)
        for name in stale:
            print(f"stale: {out / name} (run `attncheck docs`)", file=sys.stderr)
        return 1 if stale else 0
    _check_out_dir(out, "--out")
    for path in write_docs(out):
        print(f"wrote {path}")
    return 0


def _print_verdicts(results: list[Result], *, wide: bool = False) -> None:
    """The verdict table, then the summary (findings and reconstruction mismatches apart)."""
    print(results_table(results, wide=wide))
    print()
    print(summary_table(results, {cid: c.record for cid, c in registry().items()}))


@contextlib.contextmanager
def _json_lock(out: Path | None) -> Iterator[None]:
    """``--json``'s lock for the whole run (:func:`verify.core.results.results_lock`); UsageError when
    another run holds it or it cannot be created."""
    with contextlib.ExitStack() as stack:
        if out is not None:
            try:
                stack.enter_context(results_lock(out))
            except ResultsError as exc:
                raise UsageError(f"--json: {exc}") from None
            except OSError as exc:
                raise UsageError(f"--json: cannot lock {out} ({exc.strerror or exc})") from None
        yield


def cmd_run(args: argparse.Namespace) -> int:
    claims = _select(args.patterns)
    out = Path(args.json) if args.json else None
    if out is not None:
        _check_out_file(out, "--json")
    with _json_lock(out):
        run, args.started = _record(args), time.monotonic()
        try:
            results = _run(args, claims)
        except Interrupted as exc:
            return _interrupted(exc, len(claims), args, out, run)
        _print_verdicts(results, wide=args.wide)
        if out is not None:
            run = finished(run, wall_time=time.monotonic() - args.started, complete=True)
            write_results(out, results, args.profile, args.seed, run=run)
            print(f"results written to {out}", file=sys.stderr)
        return _status(results)


def cmd_report(args: argparse.Namespace) -> int:
    from reports.build import build_report

    out = Path(args.out)
    _check_out_dir(out, "--out")
    if args.from_:
        doc = _read_doc(args.from_, "--from")
        results, run, complete = doc.results, doc.run, doc.complete
        if args.patterns:
            keep = {c.id for c in _select(args.patterns)}
            results = [r for r in results if r.claim_id in keep]
    else:
        claims = _select(args.patterns)
        _check_out_file(out / "results.json", "--out")
        run, args.started = _record(args), time.monotonic()
        try:
            results = _run(args, claims)
        except Interrupted as exc:
            return _interrupted(exc, len(claims), args, out / "results.json", run)
        run, complete = finished(run, wall_time=time.monotonic() - args.started, complete=True), True
        write_results(out / "results.json", results, args.profile, args.seed, run=run)
    _print_verdicts(results)
    written = build_report(results, out, figures=not args.no_figures, run=run, complete=complete)
    for note in written.notes:
        print(note, file=sys.stderr)
    print(f"report written to {written.main_tex}", file=sys.stderr)
    return _status(results)


def cmd_baseline(args: argparse.Namespace) -> int:
    from reports.baseline import DEFAULT_BASELINE, check_baseline, load_baseline, update_baseline

    path = Path(args.baseline or DEFAULT_BASELINE)
    profile = None
    if args.action == "check":
        try:
            profile = load_baseline(path)["profile"]
        except (OSError, ValueError) as exc:
            raise UsageError(f"--baseline: {exc}") from None
    else:
        _check_out_file(path, "--baseline")
    if args.from_:
        results = _read(args.from_, "--from")
        profiles = sorted({r.profile for r in results})
        if profile is not None and profiles and profiles != [profile]:
            raise UsageError(
                f"--from: {args.from_} holds {'/'.join(profiles)}-profile results; "
                f"the baseline {path} is of the {profile} profile"
            )
    else:
        args.profile = "quick"
        claims = _select([])
        try:
            results = _run(args, claims)
        except Interrupted as exc:
            return _interrupted(exc, len(claims), args, None)
    if args.action == "update":
        update_baseline(results, path)
        print(f"baseline of {len(results)} claims written to {path}")
        return 0
    report = check_baseline(results, path, tolerance=args.tolerance)
    print(report.table())
    return 0 if report.ok else 1


def cmd_new(args: argparse.Namespace) -> int:
    from verify.scaffold import new_plugin

    out = Path(args.out or f"attncheck-{args.key}")
    try:
        written = new_plugin(args.key, out)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot write {out} ({exc.strerror or exc})") from None
    print(f"wrote {len(written)} files to {out}; install with: python3 -m pip install -e {out}")
    return 0


def parse_seeds(text: str) -> tuple[int, ...]:
    """``0-19`` / ``0,3,7`` / ``0-4,9`` -> distinct seeds >= 0 in the given order; UsageError otherwise."""
    seeds: list[int] = []
    try:
        for part in text.split(","):
            lo, _, hi = part.strip().partition("-")
            first, last = int(lo), int(hi) if hi else int(lo)
            if first < 0 or last < first:
                raise ValueError
            if len(seeds) + last - first + 1 > MAX_SEEDS:
                raise UsageError(f"--seeds: at most {MAX_SEEDS} seeds, got more in {text!r}")
            seeds.extend(range(first, last + 1))
    except ValueError:
        raise UsageError(f"--seeds must look like 0-19 or 0,3,7 (integers >= 0), got {text!r}") from None
    if len(set(seeds)) != len(seeds):
        raise UsageError(f"--seeds lists a seed twice: {text!r}")
    return tuple(seeds)


def _check_args(args: argparse.Namespace) -> None:
    """Everything that can be checked before any claim runs; UsageError on the first bad value."""
    if getattr(args, "seed", 0) < 0:
        raise UsageError(f"--seed must be an integer >= 0, got {args.seed}")
    args.seed_set = parse_seeds(args.seeds) if getattr(args, "seeds", None) is not None else None
    if getattr(args, "jobs", 1) < 1:
        raise UsageError(f"--jobs must be an integer >= 1, got {args.jobs}")
    if getattr(args, "dask", None):
        try:
            check_dask_address(args.dask)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    timeout = getattr(args, "dask_timeout", DASK_TIMEOUT)
    if not (math.isfinite(timeout) and timeout > 0):
        raise UsageError(f"--dask-timeout must be a finite number of seconds > 0, got {timeout}")
    tolerance = getattr(args, "tolerance", None)
    if tolerance is not None and not (math.isfinite(tolerance) and tolerance >= 0):
        raise UsageError(f"--tolerance must be a finite number >= 0 (log10 units), got {tolerance}")
    if getattr(args, "timings", None):
        args.timings_results = _read(args.timings, "--timings", known=False)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="attncheck", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    def runner_opts(sp: argparse.ArgumentParser, patterns: bool = True) -> None:
        if patterns:
            sp.add_argument("patterns", nargs="*", metavar="PATTERN", help="glob on claim ids")
        sp.add_argument("--profile", choices=PROFILES, default="quick")
        sp.add_argument("--seed", type=int, default=0, help="first seed of each claim's seed set")
        sp.add_argument(
            "--seeds",
            metavar="SEEDS",
            help="the seed set of every seeded claim, e.g. 0-19 or 0,3,7 (default: the profile's)",
        )
        sp.add_argument("--jobs", type=int, default=1, help="local worker processes (at most the CPU count)")
        sp.add_argument(
            "--dask",
            metavar="ADDRESS",
            help="Dask scheduler: local, tcp://host:port or host:port (no tls://)",
        )
        sp.add_argument(
            "--dask-timeout",
            type=float,
            default=DASK_TIMEOUT,
            metavar="SECONDS",
            help=f"give up reaching the Dask scheduler after this long (default {DASK_TIMEOUT:g})",
        )
        sp.add_argument(
            "--timings",
            metavar="RESULTS",
            help="a results file whose wall times order the claims, longest first, under --jobs",
        )
        sp.add_argument("--quiet", action="store_true", help="no progress on stderr")

    sp = sub.add_parser("list", help="every registered claim with its record")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(fn=cmd_list)

    sp = sub.add_parser("docs", help="one Markdown page per paper, generated from the claim registry")
    sp.add_argument("--out", default=str(DEFAULT_DOCS), help="output folder (default: the repo's docs/)")
    sp.add_argument("--check", action="store_true", help="exit 1 when a page is stale; write nothing")
    sp.set_defaults(fn=cmd_docs)

    sp = sub.add_parser("run", help="run claims and print their verdicts")
    runner_opts(sp)
    sp.add_argument("--json", metavar="PATH", help="write the results as JSON")
    sp.add_argument("--wide", action="store_true", help="print every claim's notes under its row")
    sp.add_argument("--robust", action="store_true", help=ROBUST_HELP)
    sp.set_defaults(fn=cmd_run)

    sp = sub.add_parser("report", help="LaTeX tables and figures of claims")
    runner_opts(sp)
    sp.add_argument("--from", dest="from_", metavar="RESULTS", help="use saved results.json")
    sp.add_argument("--out", default="reports/out", help="output folder (default reports/out)")
    sp.add_argument("--no-figures", action="store_true")
    sp.add_argument("--robust", action="store_true", help=ROBUST_HELP)
    sp.set_defaults(fn=cmd_report)

    sp = sub.add_parser("new", help="write the skeleton of a paper plugin (docs/authoring.md)")
    sp.add_argument("key", help="the paper key: claim-id prefix and package name, e.g. smith2027")
    sp.add_argument("--out", metavar="DIR", help="a new or empty folder (default: ./attncheck-<key>)")
    sp.set_defaults(fn=cmd_new)

    sp = sub.add_parser("baseline", help="compare with / rewrite the tightness baseline")
    sp.add_argument("action", choices=("check", "update"))
    sp.add_argument("--from", dest="from_", metavar="RESULTS", help="use saved results.json")
    sp.add_argument("--baseline", metavar="PATH")
    sp.add_argument("--tolerance", type=float, default=None, help="allowed slack loss in log10 units")
    runner_opts(sp, patterns=False)
    sp.set_defaults(fn=cmd_baseline)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    try:
        with interrupts():
            _check_args(args)
            return args.fn(args)
    except (UsageError, PluginError) as exc:
        print(f"attncheck: error: {exc}", file=sys.stderr)
        return 2
    except Interrupted as exc:  # outside a run: nothing to save
        print(f"attncheck: interrupted by {signal.Signals(exc.signum).name}", file=sys.stderr)
        return exc.exit_code


__all__ = ["main", "read_results", "results_table", "write_results"]
