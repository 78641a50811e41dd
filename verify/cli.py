"""The ``attncheck`` command (also ``python -m verify``).

    attncheck list [--json]
    attncheck docs [--out DIR] [--papers KEY[,KEY]] [--check]
    attncheck run [PATTERN ...] [--profile quick|paper] [--seed N] [--json PATH] [RUN OPTIONS]
    attncheck report [PATTERN ...] [--profile ...] [--seed N] [--from RESULTS.json] [--out DIR] [--appendix]
                     [--pdf] [RUN OPTIONS]
    attncheck alternatives [PATTERN ...] [--profile quick|paper] [--seed N] [--json PATH] [--quiet]
    attncheck stability [PATTERN ...] [--profile quick|paper] [--sets K] [--first N] [--jobs N] [--json PATH]
                        [--quiet]
    attncheck baseline check|update [--from RESULTS.json] [--baseline PATH] [--papers KEY[,KEY]]
                                    [--tolerance DEX] [RUN OPTIONS]

run and report also take --robust: every verdict judged over its claim's declared choices
(without it, only the violations of the papers' own statements: a finding must be robust).

RUN OPTIONS: [--seeds 0-19] [--jobs N] [--dask ADDR] [--dask-timeout S] [--timings RESULTS.json] [--quiet]

Exit status: 0 when nothing is ``error`` or an unexpected ``violated`` (and, for ``baseline check``,
nothing regressed; for ``stability``, every seeded claim at its expected verdict at every set); 1
otherwise; 2 for bad usage, e.g. a pattern that matches no claim or an output
path that cannot be written (every path, input file and the baseline are checked before the first
claim runs), reported in one line on stderr; 130 / 143 when interrupted by SIGINT / SIGTERM (the
results finished so far are written with ``"complete": false``); 141 when the reader of stdout went
away (``attncheck list | head``), as for a Unix tool killed by SIGPIPE: every file the command writes
is written before its stdout.

The claim profile is ``--profile``, else ``$ATTNCHECK_PROFILE`` (as under pytest), else ``quick``.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import math
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import typing
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from verify.core.context import PROFILE_ENV, PROFILES
from verify.core.falsifier import resolve_alternative
from verify.core.format import fmt_resolution, fmt_slack, fmt_value, shown
from verify.core.gate import DEFAULT_BASELINE, check_baseline, load_baseline, update_baseline
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
from verify.core.record import Result, Seeds
from verify.core.registry import Claim, match_claims, registry
from verify.core.results import (
    ResultsDoc,
    ResultsError,
    read_results,
    read_results_doc,
    results_lock,
    write_results,
)
from verify.core.stability import FIRST, STEP, survey
from verify.core.summary import row_class, summary_table
from verify.docs import DEFAULT_DOCS

#: ``--robust``: the verdicts judged over the claims' declared choices too (verify/core/choices.py).
ROBUST_HELP = (
    "judge every verdict again at the ends of its claim's declared choices (marked ~ if it changes); "
    "without it, only the violations of the papers' own statements are (a finding must be robust)"
)
#: The largest seed set ``--seeds`` accepts.
MAX_SEEDS = 10_000
#: A user value longer than this is cut in an error line (:func:`clip`) to its first ``CLIP_HEAD``
#: characters (a path as long as a usual one is shown whole).
CLIP_LIMIT = 160
CLIP_HEAD = 40
#: The schema of ``attncheck alternatives --json``.
ALTERNATIVES_SCHEMA = "attncheck.alternatives/1"
STABILITY_SCHEMA = "attncheck.stability/1"
#: The exit status when stdout's reader went away: a Unix tool killed by SIGPIPE (128 + 13).
CLOSED_PIPE = 141


class UsageError(Exception):
    """Bad command-line input: reported on stderr with exit status 2."""


def clip(value: str) -> str:
    """``value`` as an error line shows it: whole up to :data:`CLIP_LIMIT` characters, else its first
    :data:`CLIP_HEAD`, ``...`` and its length."""
    if len(value) <= CLIP_LIMIT:
        return value
    return f"{value[:CLIP_HEAD]}... ({len(value)} characters)"


def clip_values(message: str, values: Iterable[str]) -> str:
    """``message`` with every long user value in it cut by :func:`clip`, whether it appears as given,
    quoted (``repr``) or as a path prints it. Every error line of the command goes through here."""
    for value in sorted({v for v in values if len(v) > CLIP_LIMIT}, key=len, reverse=True):
        message = message.replace(repr(value), f"{value[:CLIP_HEAD] + '...'!r} ({len(value)} characters)")
        message = message.replace(value, clip(value))
        with contextlib.suppress(ValueError):
            message = message.replace(str(Path(value)), clip(str(Path(value))))
    return message


def _user_values(argv: Sequence[str]) -> list[str]:
    """What the user typed that an error line may echo: each argument, the value of ``--opt=value``,
    and ``$ATTNCHECK_PROFILE``."""
    values = [*argv, *(a.partition("=")[2] for a in argv if a.startswith("--"))]
    return [*values, os.environ.get(PROFILE_ENV, "")]


def _error(message: str, argv: Sequence[str]) -> None:
    """The one line of a usage error, long user values cut."""
    print(f"attncheck: error: {clip_values(message, _user_values(argv))}", file=sys.stderr)


class _Parser(argparse.ArgumentParser):
    """argparse reporting a bad option as :class:`UsageError` (one line, exit 2), not usage + exit."""

    def error(self, message: str) -> typing.NoReturn:
        m = re.fullmatch(r"argument ([^:]+): (.*)", message, flags=re.DOTALL)
        if m is not None:  # "argument --seed: must be ..." -> "--seed must be ..."
            name, rest = m.group(1).split("/")[0], m.group(2)
            message = f"{name} {rest}" if rest.startswith("must ") else f"{name}: {rest}"
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def _integer(low: int) -> Callable[[str], int]:
    """An argparse type: an integer >= ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:  # not an integer, or beyond Python's 4300 digits
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {text!r}")
        return value

    return parse


def _number(what: str, *, positive: bool) -> Callable[[str], float]:
    """An argparse type: a finite float > 0 (``positive``) or >= 0; ``what`` is the range in the message."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and (value > 0 if positive else value >= 0)):
            raise argparse.ArgumentTypeError(f"must be a finite number {what}, got {text!r}")
        return value

    return parse


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def results_table(results: list[Result], wide: bool = False) -> str:
    """The verdict table; ``wide``: every note printed, indented, under its row. A verdict that is not
    robust to our choices is marked ``~`` (its notes say which choice decides it); a referee question's
    row says ``(answer)``, as the report's table does."""
    rows = [
        [
            r.claim_id,
            r.verdict
            + ("~" if r.robust is False else "")
            + (" (answer)" if row_class(r) == "answer" else "")
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


@contextlib.contextmanager
def _path_errors(path: Path, flag: str) -> Iterator[None]:
    """An OSError looking at ``path`` that pathlib does not take for "absent" (a name too long, no
    permission to look) as UsageError."""
    try:
        yield
    except OSError as exc:
        raise UsageError(f"{flag}: cannot use {path} ({exc.strerror or exc})") from None


def _check_out_file(path: Path, flag: str) -> None:
    with _path_errors(path, flag):
        if path.is_dir():
            raise UsageError(f"{flag}: {path} is a folder, not a file")
        if path.exists() and not path.is_file():  # the atomic write would replace the device or pipe
            raise UsageError(f"{flag}: {path} is not a regular file (a device or a pipe); give a file path")
        _probe_dir(path.parent, flag)


def _check_out_dir(path: Path, flag: str) -> None:
    with _path_errors(path, flag):
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
            robust=True if getattr(args, "robust", False) else "findings",
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
    keys = _paper_keys(args.papers)
    try:
        if args.check:
            with _path_errors(out, "--out"):
                if out.exists() and not out.is_dir():
                    raise UsageError(f"--out: {out} exists and is not a folder")
                stale = stale_pages(out, keys)
            for name in stale:
                print(f"stale: {out / name} (run `attncheck docs`)", file=sys.stderr)
            return 1 if stale else 0
        _check_out_dir(out, "--out")
        written = write_docs(out, keys)
    except ValueError as exc:  # a --papers key that is no installed paper
        raise UsageError(f"--{exc}") from None
    for path in written:
        print(f"wrote {path}")
    return 0


def _print_verdicts(results: list[Result], profile: str, *, wide: bool = False) -> None:
    """The verdict table, then the summary (findings and reconstruction mismatches apart) and the
    profile (``profile``: which, and where it came from)."""
    print(results_table(results, wide=wide))
    print()
    print(summary_table(results, {cid: c.record for cid, c in registry().items()}))
    print(f"profile: {profile}")


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
        if out is not None:  # before stdout, which a closed pipe may cut short
            run = finished(run, wall_time=time.monotonic() - args.started, complete=True)
            write_results(out, results, args.profile, args.seed, run=run)
        _print_verdicts(results, f"{args.profile} ({args.profile_from})", wide=args.wide)
        if out is not None:
            print(f"results written to {out}", file=sys.stderr)
        return _status(results)


def cmd_report(args: argparse.Namespace) -> int:
    from reports.build import PDFLATEX_HINT, PdfError, build_report, compile_pdf

    out = Path(args.out)
    _check_out_dir(out, "--out")
    if args.from_:
        doc = _read_doc(args.from_, "--from")
        results, run, complete = doc.results, doc.run, doc.complete
        profile = f"{'/'.join(sorted({r.profile for r in results})) or '-'} (of {args.from_})"
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
        profile = f"{args.profile} ({args.profile_from})"
    written = build_report(
        results, out, figures=not args.no_figures, run=run, complete=complete, appendix=args.appendix
    )
    _print_verdicts(results, profile)  # after the files, which a closed stdout must not cut short
    for note in written.notes:
        print(note, file=sys.stderr)
    status = _status(results)
    have = shutil.which("pdflatex") is not None
    if not (args.pdf and have):  # a missing pdflatex fails no claim: the tables are written
        why = "`--pdf` compiles it" if not args.pdf else "--pdf"
        made = "pdflatex is installed" if have else f"pdflatex is not installed: {PDFLATEX_HINT}"
        print(f"report written to {written.main_tex}; no PDF made ({why}; {made})", file=sys.stderr)
        return status
    try:
        pages, problems = compile_pdf(out)
    except PdfError as exc:
        print(f"report written to {written.main_tex}; no PDF made: {exc}", file=sys.stderr)
        return max(status, 1)
    pdf = written.main_tex.with_suffix(".pdf")
    print(f"report written to {written.main_tex} and {pdf} ({pages} pages)", file=sys.stderr)
    for line in problems:
        print(f"  pdflatex: {line}", file=sys.stderr)
    return status


def _mark(row: dict) -> str:
    """`` (!)`` after an alternative's verdict that is not the expected one; `` (premises)`` when the
    claim leaves its premises at the profile's sizes (judged in the paper profile)."""
    if not row["premises"]:
        return " (premises)"
    return "" if row["verdict"] == row["expected"] else " (!)"


def alternatives_table(rows: list[dict]) -> str:
    """The table of ``attncheck alternatives``: each claim's alternative world, its verdict against the
    expected one, and its resolution (:mod:`verify.core.resolution`)."""
    body = [
        [
            r["claim"],
            r["world"] if len(r["world"]) <= 60 else r["world"][:57] + "...",
            str(r["verdict"]) + _mark(r),
            r["expected"],
            fmt_resolution(r["resolution"]),
            f"{r['wall_time']:.1f}s",
        ]
        for r in rows
    ]
    return _table(body, ["claim", "world", "verdict", "expected", "resolution", "time"])


def _write_json(out: Path, doc: dict) -> None:
    """``doc`` as JSON to ``out``, atomically (a temporary file beside it, then renamed)."""
    text = json.dumps(doc, indent=1, sort_keys=True, allow_nan=False) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cmd_alternatives(args: argparse.Namespace) -> int:
    claims = [c for c in _select(args.patterns) if c.record.alternative is not None]
    if not claims:
        raise UsageError("no matched claim names an alternative world (a consistency check names none)")
    out = Path(args.json) if args.json else None
    if out is not None:
        _check_out_file(out, "--json")
    rows = []
    for i, c in enumerate(claims, 1):
        rows.append(resolve_alternative(c, profile=args.profile, seed=args.seed))
        if not args.quiet:
            r = rows[-1]
            print(f"[{i}/{len(claims)}] {c.id}: {r['verdict']} in {r['wall_time']:.1f}s", file=sys.stderr)
    if out is not None:  # before stdout, which a closed pipe may cut short
        doc = {
            "schema": ALTERNATIVES_SCHEMA,
            "profile": args.profile,
            "seed": args.seed,
            "alternatives": rows,
        }
        _write_json(out, doc)
    print(alternatives_table(rows))
    print(f"profile: {args.profile} ({args.profile_from}); seed {args.seed}")
    if out is not None:
        print(f"alternatives written to {out}", file=sys.stderr)
    if any(not r["premises"] for r in rows):
        print("(premises): the claim leaves its premises at these sizes; judged in the paper profile")
    return 1 if any(r["premises"] and r["verdict"] != r["expected"] for r in rows) else 0


def cmd_stability(args: argparse.Namespace) -> int:
    claims = [c for c in _select(args.patterns) if c.record.seeds != Seeds.NONE]
    if not claims:
        raise UsageError("no matched claim is seeded (a deterministic claim has one verdict at any seed)")
    out = Path(args.json) if args.json else None
    if out is not None:
        _check_out_file(out, "--json")
    workers, note = cap_jobs(args.jobs)
    if note:
        print(f"attncheck: note: {note}", file=sys.stderr)

    def done(j: int, n: int, base: int) -> None:
        if not args.quiet:
            print(f"[{j}/{n}] seed set from {base} done", file=sys.stderr)

    tallies = survey(claims, profile=args.profile, first=args.first, sets=args.sets, jobs=workers, done=done)
    if out is not None:  # before stdout, which a closed pipe may cut short
        _write_json(
            out,
            {
                "schema": STABILITY_SCHEMA,
                "profile": args.profile,
                "first": args.first,
                "step": STEP,
                "sets": args.sets,
                "claims": [t.to_dict() for t in tallies],
            },
        )
    rows = [
        [
            t.claim_id,
            " or ".join(filter(None, (t.expected, t.also))),
            t.counts(),
            ", ".join(map(str, t.unexpected)) or "-",
        ]
        for t in tallies
    ]
    print(_table(rows, ["claim", "expected", "verdicts", "unexpected at first seeds"]))
    bad = [t for t in tallies if t.unexpected]
    print(
        f"profile: {args.profile} ({args.profile_from}); {args.sets} seed sets from first seed {args.first}, "
        f"{STEP} apart; {len(bad)} of {len(tallies)} seeded claims not at their expected verdict at every set"
    )
    if out is not None:
        print(f"verdicts written to {out}", file=sys.stderr)
    return 1 if bad else 0


def _paper_keys(text: str | None) -> list[str] | None:
    """``--papers smith2027,jones2028`` -> sorted distinct keys (None when not given)."""
    from verify.scaffold import check_key

    if text is None:
        return None
    try:
        return sorted({check_key(k.strip()) for k in text.split(",")})
    except ValueError as exc:
        raise UsageError(f"--papers: {exc}") from None


def _baseline_papers(args: argparse.Namespace, path: Path, doc: dict | None) -> list[str]:
    """The papers the gate covers: those the baseline file names (``--papers``, when given, must agree,
    except to rewrite a plugin's own baseline), or, for a new baseline, ``--papers`` (else the papers of
    ``--from``'s results)."""
    given = _paper_keys(args.papers)
    own = path.resolve() == DEFAULT_BASELINE.resolve()
    if doc is not None and (args.action == "check" or own) and given is not None and given != doc["papers"]:
        hint = "; a plugin's baseline is its own file: --baseline PATH" if own else ""
        raise UsageError(f"--papers: the baseline {path} covers {doc['papers']}, not {given}{hint}")
    keys = given or (doc["papers"] if doc is not None else None)
    if keys is None and not args.from_:
        raise UsageError(f"--papers: {path} is a new baseline; name the papers it covers, e.g. --papers KEY")
    return keys or []


def cmd_baseline(args: argparse.Namespace) -> int:
    path = Path(args.baseline or DEFAULT_BASELINE)
    doc = None
    if args.action == "update":
        _check_out_file(path, "--baseline")
    with _path_errors(path, "--baseline"):
        exists = path.is_file()
    if args.action == "check" or exists:
        try:
            doc = load_baseline(path)
        except (OSError, ValueError) as exc:
            if args.action == "check":
                raise UsageError(f"--baseline: {exc}") from None
    keys = _baseline_papers(args, path, doc)
    profile = doc["profile"] if doc is not None and args.action == "check" else None
    if args.from_:
        results = _read(args.from_, "--from")
        keys = keys or sorted({r.paper for r in results})
        other = [r for r in results if r.paper not in keys]
        if other:
            print(
                f"attncheck: note: --from: {len(other)} results of papers the baseline does not cover "
                f"({', '.join(sorted({r.paper for r in other}))}) are left out",
                file=sys.stderr,
            )
        results = [r for r in results if r.paper in keys]
        profiles = sorted({r.profile for r in results})
        if profile is not None and profiles and profiles != [profile]:
            raise UsageError(
                f"--from: {args.from_} holds {'/'.join(profiles)}-profile results; "
                f"the baseline {path} is of the {profile} profile"
            )
    else:
        from verify.core.papers import papers

        unknown = [k for k in keys if k not in papers()]
        if unknown:
            raise UsageError(f"the baseline covers {unknown[0]!r}, no installed paper: {sorted(papers())}")
        args.profile = "quick"
        claims = _select([f"{k}.*" for k in keys])
        try:
            results = _run(args, claims)
        except Interrupted as exc:
            return _interrupted(exc, len(claims), args, None)
    if args.action == "update":
        update_baseline(results, path, papers=keys)
        print(f"baseline of {len(results)} claims of {', '.join(keys)} written to {path}")
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


#: Options naming a path or an address (dest: option, what it takes); an empty value is refused.
NOT_EMPTY = {
    "json": ("--json", "a file path"),
    "out": ("--out", "a folder"),
    "from_": ("--from", "a results file"),
    "baseline": ("--baseline", "a baseline file"),
    "timings": ("--timings", "a results file"),
    "seeds": ("--seeds", "seeds like 0-19 or 0,3,7"),
}


def _profile(args: argparse.Namespace) -> None:
    """``args.profile``: ``--profile``, else ``$ATTNCHECK_PROFILE``, else quick; ``args.profile_from``
    says which."""
    if args.profile is not None:
        args.profile_from = "--profile"
        return
    env = os.environ.get(PROFILE_ENV)
    if env is None:
        args.profile, args.profile_from = "quick", "the default"
    elif env in PROFILES:
        args.profile, args.profile_from = env, f"from {PROFILE_ENV}"
    else:
        allowed = " or ".join(PROFILES)
        raise UsageError(f"{PROFILE_ENV} must be {allowed} (or unset), got {env!r}")


def _check_args(args: argparse.Namespace) -> None:
    """Everything that can be checked before any claim runs; UsageError on the first bad value."""
    for dest, (flag, wanted) in NOT_EMPTY.items():
        if getattr(args, dest, None) == "":
            raise UsageError(f"{flag} is empty; give {wanted}")
    if hasattr(args, "profile"):
        _profile(args)
    args.seed_set = parse_seeds(args.seeds) if getattr(args, "seeds", None) is not None else None
    if getattr(args, "dask", None) is not None:
        try:
            check_dask_address(args.dask)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if getattr(args, "timings", None):
        args.timings_results = _read(args.timings, "--timings", known=False)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="attncheck", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    def claim_opts(sp: argparse.ArgumentParser, patterns: bool = True) -> None:
        """The claims' patterns (unless not ``patterns``) and ``--profile``."""
        if patterns:
            sp.add_argument("patterns", nargs="*", metavar="PATTERN", help="glob on claim ids")
        sp.add_argument(
            "--profile",
            choices=PROFILES,
            default=None,
            help=f"claim sizes (default: ${PROFILE_ENV} when set, else quick)",
        )

    def runner_opts(sp: argparse.ArgumentParser, patterns: bool = True) -> None:
        claim_opts(sp, patterns)
        sp.add_argument("--seed", type=_integer(0), default=0, help="first seed of each claim's seed set")
        sp.add_argument(
            "--seeds",
            metavar="SEEDS",
            help="the seed set of every seeded claim, e.g. 0-19 or 0,3,7 (default: the profile's)",
        )
        sp.add_argument(
            "--jobs", type=_integer(1), default=1, help="local worker processes (at most the CPU count)"
        )
        sp.add_argument(
            "--dask",
            metavar="ADDRESS",
            help="Dask scheduler: local, tcp://host:port or host:port (no tls://)",
        )
        sp.add_argument(
            "--dask-timeout",
            type=_number("of seconds > 0", positive=True),
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
    sp.add_argument(
        "--papers", metavar="KEY[,KEY]", help="the papers (default: those with a page in the folder)"
    )
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
    sp.add_argument("--pdf", action="store_true", help="compile main.tex to main.pdf with pdflatex (twice)")
    sp.add_argument(
        "--appendix",
        action="store_true",
        help="include the appendix (every row's parameters and notes, the errata; default: main part only)",
    )
    sp.add_argument("--robust", action="store_true", help=ROBUST_HELP)
    sp.set_defaults(fn=cmd_report)

    sp = sub.add_parser("alternatives", help="each claim's alternative world, its verdict and resolution")
    claim_opts(sp)
    sp.add_argument("--seed", type=_integer(0), default=0, help="first seed of each claim's seed set")
    sp.add_argument("--json", metavar="PATH", help="write the alternatives and resolutions as JSON")
    sp.add_argument("--quiet", action="store_true", help="no progress on stderr")
    sp.set_defaults(fn=cmd_alternatives)

    sp = sub.add_parser(
        "stability", help="the verdicts of seeded claims at seed sets no test uses, against the expected"
    )
    claim_opts(sp)
    sp.add_argument("--sets", type=_integer(1), default=8, help="how many seed sets (default 8)")
    sp.add_argument(
        "--first",
        type=_integer(0),
        default=FIRST,
        help=f"first seed of the first set (default {FIRST}); set j starts at first + {STEP} j",
    )
    sp.add_argument(
        "--jobs", type=_integer(1), default=1, help="local worker processes (at most the CPU count)"
    )
    sp.add_argument("--json", metavar="PATH", help="write every claim's verdict at every set as JSON")
    sp.add_argument("--quiet", action="store_true", help="no progress on stderr")
    sp.set_defaults(fn=cmd_stability)

    sp = sub.add_parser("new", help="write the skeleton of a paper plugin (docs/authoring.md)")
    sp.add_argument("key", help="the paper key: claim-id prefix and package name, e.g. smith2027")
    sp.add_argument("--out", metavar="DIR", help="a new or empty folder (default: ./attncheck-<key>)")
    sp.set_defaults(fn=cmd_new)

    sp = sub.add_parser("baseline", help="compare with / rewrite the tightness baseline")
    sp.add_argument("action", choices=("check", "update"))
    sp.add_argument("--from", dest="from_", metavar="RESULTS", help="use saved results.json")
    sp.add_argument("--baseline", metavar="PATH", help="default: attncheck's own (the built-in papers)")
    sp.add_argument(
        "--papers",
        metavar="KEY[,KEY]",
        help="the papers a new baseline covers (default: those the baseline file names)",
    )
    sp.add_argument(
        "--tolerance",
        type=_number(">= 0 (log10 units)", positive=False),
        default=None,
        help="allowed slack loss in log10 units",
    )
    runner_opts(sp, patterns=False)
    sp.set_defaults(fn=cmd_baseline)
    return p


def _closed_pipe() -> int:
    """The reader of stdout (or stderr) went away: what a closed stream still buffers goes to
    /dev/null, so the flush at exit raises nothing; :data:`CLOSED_PIPE`."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            with contextlib.suppress(OSError, ValueError):  # ValueError: not a file (a StringIO)
                os.dup2(devnull, stream.fileno())
        except (OSError, ValueError):
            pass
    os.close(devnull)
    return CLOSED_PIPE


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        try:
            args = _parser().parse_args(argv)
            args.argv = argv
            with interrupts():
                _check_args(args)
                code = args.fn(args)
            sys.stdout.flush()  # a closed pipe shows here, not at exit
            return code
        except (UsageError, PluginError) as exc:
            _error(str(exc), argv)
            return 2
        except Interrupted as exc:  # outside a run: nothing to save
            print(f"attncheck: interrupted by {signal.Signals(exc.signum).name}", file=sys.stderr)
            return exc.exit_code
    except BrokenPipeError:
        return _closed_pipe()


__all__ = ["main", "read_results", "results_table", "write_results"]
