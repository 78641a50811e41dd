"""The ``attncheck`` command (also ``python -m verify``).

    attncheck list [--json]
    attncheck run [PATTERN ...] [--profile quick|paper] [--seed N] [--json PATH] [--jobs N] [--dask ADDR]
    attncheck report [PATTERN ...] [--profile ...] [--seed N] [--from RESULTS.json] [--out DIR] [--jobs N]
    attncheck baseline check|update [--from RESULTS.json] [--baseline PATH] [--tolerance DEX]

Exit status: 0 when nothing is ``error`` or an unexpected ``violated`` (and, for ``baseline check``,
nothing regressed); 1 otherwise; 2 for bad usage, e.g. a pattern that matches no claim.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from verify.core.context import PROFILES
from verify.core.format import fmt_slack, fmt_value
from verify.core.parallel import run_claims
from verify.core.record import Result
from verify.core.registry import match_claims, registry

RESULTS_SCHEMA = "attncheck.results/1"


class UsageError(Exception):
    """Bad command-line input: reported on stderr with exit status 2."""


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def results_table(results: list[Result]) -> str:
    rows = [
        [
            r.claim_id,
            r.verdict + ("" if r.as_expected else f" (expected {r.expected})"),
            fmt_value(r.theory, limit=28),
            fmt_value(r.measured, limit=28),
            fmt_slack(r.slack),
            f"{r.wall_time:.1f}s",
        ]
        for r in results
    ]
    return _table(rows, ["claim", "verdict", "theory", "measured", "slack", "time"])


def write_results(path: Path, results: list[Result], profile: str, seed: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "schema": RESULTS_SCHEMA,
        "profile": profile,
        "seed": seed,
        "results": [r.to_dict() for r in results],
    }
    path.write_text(json.dumps(doc, indent=1, sort_keys=True, allow_nan=False) + "\n")


def read_results(path: Path) -> list[Result]:
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError as exc:
        raise UsageError(f"--from: no such results file {path}") from exc
    except json.JSONDecodeError as exc:
        raise UsageError(f"--from: {path} is not JSON ({exc})") from exc
    if doc.get("schema") != RESULTS_SCHEMA:
        raise UsageError(f"--from: {path} has schema {doc.get('schema')!r}, expected {RESULTS_SCHEMA!r}")
    return [Result.from_dict(d) for d in doc["results"]]


def _progress(i: int, n: int, r: Result) -> None:
    print(f"[{i}/{n}] {r.claim_id}: {r.verdict} ({r.wall_time:.1f}s)", file=sys.stderr, flush=True)


def _select(patterns: Sequence[str]) -> list:
    try:
        return match_claims(patterns)
    except LookupError as exc:
        raise UsageError(str(exc)) from exc


def _run(args: argparse.Namespace) -> list[Result]:
    claims = _select(args.patterns)
    try:
        return run_claims(
            claims, profile=args.profile, seed=args.seed, jobs=args.jobs, dask=args.dask, progress=_progress
        )
    except RuntimeError as exc:  # a backend that cannot start, e.g. --dask without the extra
        raise UsageError(str(exc)) from exc


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


def cmd_run(args: argparse.Namespace) -> int:
    results = _run(args)
    print(results_table(results))
    if args.json:
        write_results(Path(args.json), results, args.profile, args.seed)
        print(f"results written to {args.json}", file=sys.stderr)
    return _status(results)


def cmd_report(args: argparse.Namespace) -> int:
    from reports.build import build_report

    if args.from_:
        results = read_results(Path(args.from_))
        if args.patterns:
            keep = {c.id for c in _select(args.patterns)}
            results = [r for r in results if r.claim_id in keep]
    else:
        results = _run(args)
        out = Path(args.out)
        write_results(out / "results.json", results, args.profile, args.seed)
    print(results_table(results))
    written = build_report(results, Path(args.out), figures=not args.no_figures)
    for note in written.notes:
        print(note, file=sys.stderr)
    print(f"report written to {written.main_tex}", file=sys.stderr)
    return _status(results)


def cmd_baseline(args: argparse.Namespace) -> int:
    from reports.baseline import DEFAULT_BASELINE, check_baseline, update_baseline

    path = Path(args.baseline or DEFAULT_BASELINE)
    if args.from_:
        results = read_results(Path(args.from_))
    else:
        args.patterns, args.profile = [], "quick"
        results = _run(args)
    if args.action == "update":
        update_baseline(results, path)
        print(f"baseline of {len(results)} claims written to {path}")
        return 0
    report = check_baseline(results, path, tolerance=args.tolerance)
    print(report.table())
    return 0 if report.ok else 1


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="attncheck", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    def runner_opts(sp: argparse.ArgumentParser, patterns: bool = True) -> None:
        if patterns:
            sp.add_argument("patterns", nargs="*", metavar="PATTERN", help="glob on claim ids")
        sp.add_argument("--profile", choices=PROFILES, default="quick")
        sp.add_argument("--seed", type=int, default=0)
        sp.add_argument("--jobs", type=int, default=1, help="local worker processes")
        sp.add_argument("--dask", metavar="ADDRESS", help="Dask scheduler address, or 'local'")

    sp = sub.add_parser("list", help="every registered claim with its record")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(fn=cmd_list)

    sp = sub.add_parser("run", help="run claims and print their verdicts")
    runner_opts(sp)
    sp.add_argument("--json", metavar="PATH", help="write the results as JSON")
    sp.set_defaults(fn=cmd_run)

    sp = sub.add_parser("report", help="LaTeX tables and figures of claims")
    runner_opts(sp)
    sp.add_argument("--from", dest="from_", metavar="RESULTS", help="use saved results.json")
    sp.add_argument("--out", default="reports/out", help="output folder (default reports/out)")
    sp.add_argument("--no-figures", action="store_true")
    sp.set_defaults(fn=cmd_report)

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
    try:
        if getattr(args, "seed", 0) < 0:
            raise UsageError(f"--seed must be an integer >= 0, got {args.seed}")
        if getattr(args, "jobs", 1) < 1:
            raise UsageError(f"--jobs must be an integer >= 1, got {args.jobs}")
        return args.fn(args)
    except UsageError as exc:
        print(f"attncheck: error: {exc}", file=sys.stderr)
        return 2


__all__ = ["main", "read_results", "results_table", "write_results"]
