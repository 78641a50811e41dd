"""Where a run's time goes: ``python -m reports.timing --from results.json [...] [--top 15] [--workers 2]``.

Prints, from a results file (or the files of a run made in pieces, each claim in one of them), the
claims' CPU time (each claim's process time, all its seeds; the measure that does not depend on what
else the machine runs) and wall time, per paper and per claim (longest first, with each claim's share),
and the wall time a longest-first schedule of those CPU times needs on ``--workers`` workers (claims
run whole, as ``attncheck run --jobs``). The timing tables of docs/operations.md are this output.
"""

from __future__ import annotations

import argparse
import heapq
import sys
from collections.abc import Sequence
from pathlib import Path

from verify.core.record import Result
from verify.core.results import ResultsError, read_results


def makespan(times: Sequence[float], workers: int) -> float:
    """The finishing time of ``times`` (jobs run whole) on ``workers`` workers, longest first, each job
    to the worker that frees first."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    free = [0.0] * workers
    for t in sorted(times, reverse=True):
        heapq.heapreplace(free, free[0] + t)
    return max(free)


def _minutes(seconds: float) -> str:
    if seconds < 10:
        return f"{seconds:.1f} s"
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def timing_table(results: Sequence[Result], *, top: int = 15, workers: int = 2) -> str:
    """Markdown: totals, per paper, the ``top`` claims by CPU time, and the longest-first schedule."""
    cpu = sum(r.cpu_time for r in results)
    wall = sum(r.wall_time for r in results)
    papers = sorted({r.paper for r in results})
    per_paper = ", ".join(f"{p} {_minutes(sum(r.cpu_time for r in results if r.paper == p))}" for p in papers)
    lpt = makespan([r.cpu_time for r in results], workers)
    lines = [
        f"{len(results)} claims: CPU time {_minutes(cpu)} ({per_paper}); wall time summed over claims "
        f"{_minutes(wall)}; longest-first on {workers} workers: {_minutes(lpt)}",
        "",
        "| claim | seeds | CPU time | share |",
        "|---|---|---|---|",
    ]
    ranked = sorted(results, key=lambda r: -r.cpu_time)
    for r in ranked[:top]:
        share = r.cpu_time / cpu if cpu > 0 else 0.0
        lines.append(f"| `{r.claim_id}` | {len(r.seeds)} | {_minutes(r.cpu_time)} | {share:.0%} |")
    rest = ranked[top:]
    if rest:
        lines.append(f"| every other claim ({len(rest)}) | | at most {_minutes(rest[0].cpu_time)} each | |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m reports.timing", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--from",
        dest="sources",
        type=Path,
        nargs="+",
        required=True,
        help="results JSON files (a run made in pieces: each claim in one file)",
    )
    p.add_argument("--top", type=int, default=15, help="claims listed (default 15)")
    p.add_argument("--workers", type=int, default=2, help="workers of the longest-first schedule")
    args = p.parse_args(argv)
    if args.top < 0 or args.workers < 1:
        p.error("--top must be >= 0 and --workers >= 1")
    results: list[Result] = []
    seen: dict[str, Path] = {}
    for source in args.sources:
        try:
            part = read_results(source)
        except ResultsError as exc:  # missing, unreadable, too large or deep, not JSON, not the schema
            print(f"{p.prog}: error: --from: {exc}", file=sys.stderr)
            return 2
        for r in part:
            if r.claim_id in seen:
                print(
                    f"{p.prog}: error: --from: {r.claim_id} is in both {seen[r.claim_id]} and {source} "
                    "(each claim in one file)",
                    file=sys.stderr,
                )
                return 2
            seen[r.claim_id] = source
        results += part
    print(timing_table(results, top=args.top, workers=args.workers), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
