"""Which claims still lack a statement in LaTeX (``tex``) or a figure declaration (``plot``).

A claim needs a ``plot`` when its result has a *plottable* series: at least two lists of the same length
(at least two points each), i.e. something to draw against something. What each claim's series hold
under the quick profile is recorded in ``tests/golden/series_keys.json`` (claim id -> {key: length}),
so the completeness test needs no run; refresh it from a results file after changing a claim's series::

    python -m reports.declarations --from results.json --write-keys tests/golden/series_keys.json

and list what is missing (every paper, or some)::

    python -m reports.declarations [PAPER ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from verify.core.record import ClaimRecord, Result

SERIES_KEYS = Path(__file__).resolve().parent.parent / "tests" / "golden" / "series_keys.json"


def key_lengths(series: Mapping[str, Any]) -> dict[str, int]:
    """The list-valued keys of a series with their lengths."""
    return {k: len(v) for k, v in sorted(series.items()) if isinstance(v, list)}


def plottable(lengths: Mapping[str, int]) -> bool:
    """At least two lists of one length >= 2 (an x and a y)."""
    counts: dict[int, int] = {}
    for n in lengths.values():
        if n >= 2:
            counts[n] = counts.get(n, 0) + 1
    return any(c >= 2 for c in counts.values())


def series_keys(results: Iterable[Result]) -> dict[str, dict[str, int]]:
    """claim id -> {list-valued series key: length}, for the snapshot file."""
    return {r.claim_id: key_lengths(r.series) for r in sorted(results, key=lambda r: r.claim_id)}


def load_series_keys(path: Path = SERIES_KEYS) -> dict[str, dict[str, int]]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def missing(
    records: Mapping[str, ClaimRecord], keys: Mapping[str, Mapping[str, int]], papers: Sequence[str] = ()
) -> tuple[list[str], list[str]]:
    """(claims without ``tex``, claims with a plottable series but no ``plot``) among ``papers`` (all
    when empty)."""
    chosen = [r for r in records.values() if not papers or r.paper in papers]
    no_tex = sorted(r.id for r in chosen if not r.tex)
    no_plot = sorted(r.id for r in chosen if not r.plot and plottable(keys.get(r.id, {})))
    return no_tex, no_plot


def unknown_keys(record: ClaimRecord, lengths: Mapping[str, int]) -> list[str]:
    """Series keys a claim's plot declares that its recorded series do not have (a typo, a rename)."""
    return sorted({k for p in record.plot for k in p.keys} - set(lengths))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m reports.declarations", description=__doc__.split("\n\n")[0])
    p.add_argument("papers", nargs="*", help="papers to list (default: all)")
    p.add_argument("--from", dest="from_", metavar="RESULTS", help="series keys from this results file")
    p.add_argument("--write-keys", metavar="PATH", help="write the series-key snapshot (needs --from)")
    args = p.parse_args(argv)
    from verify.core.registry import registry
    from verify.core.results import read_results

    records = {cid: c.record for cid, c in registry().items()}
    if args.from_:
        keys = series_keys(read_results(Path(args.from_)))
        if args.write_keys:
            Path(args.write_keys).write_text(
                json.dumps(keys, indent=1, sort_keys=True) + "\n", encoding="utf-8"
            )
            print(f"series keys of {len(keys)} claims written to {args.write_keys}", file=sys.stderr)
    else:
        keys = load_series_keys()
    no_tex, no_plot = missing(records, keys, args.papers)
    print(f"claims without tex ({len(no_tex)}):" + "".join(f"\n  {c}" for c in no_tex))
    print(f"claims with a series but no plot ({len(no_plot)}):" + "".join(f"\n  {c}" for c in no_plot))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
