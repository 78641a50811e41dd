"""The tightness baseline and the CI gate.

The committed baseline holds every claim's verdict, slack, theory and measured values under the quick
profile with fixed seeds, plus the library versions it came from. :func:`check_baseline` is one-sided,
in the style of pytest-benchmark's ``--benchmark-compare-fail``: it fails when a verdict changes, when a
slack shrinks by more than ``tolerance`` (log10 units), when a slack becomes defined or undefined, or
when an entry is missing on either side; a slack that grew is reported as an improvement, never a
failure. ``attncheck baseline update`` rewrites the file deliberately.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verify.core.format import fmt_slack
from verify.core.record import Result, to_jsonable
from verify.core.runner import library_versions

SCHEMA = "attncheck.baseline/1"
DEFAULT_BASELINE = Path(__file__).parent / "baseline" / "quick.json"
#: Allowed loss of slack before the gate trips, in log10 units (0.05 dex = 12 % of the margin).
TOLERANCE = 0.05


def update_baseline(results: list[Result], path: Path = DEFAULT_BASELINE) -> None:
    """Write ``results`` (one profile, one seed) as the new baseline."""
    profiles = {r.profile for r in results}
    if len(profiles) != 1:
        raise ValueError(f"a baseline needs results of one profile, got {sorted(profiles)}")
    doc = {
        "schema": SCHEMA,
        "profile": profiles.pop(),
        "versions": library_versions(),
        "tolerance": TOLERANCE,
        "claims": {
            r.claim_id: to_jsonable(
                {
                    "verdict": str(r.verdict),
                    "slack": r.slack,
                    "theory": r.theory,
                    "measured": r.measured,
                    "seeds": r.seeds,
                    "params": r.params,
                }
            )
            for r in sorted(results, key=lambda r: r.claim_id)
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, sort_keys=True, allow_nan=False) + "\n")


@dataclass
class BaselineReport:
    """Per-claim comparison rows ``(claim, status, detail)``; ``ok`` is the gate's verdict."""

    rows: list[tuple[str, str, str]] = field(default_factory=list)
    failures: int = 0

    @property
    def ok(self) -> bool:
        return self.failures == 0

    def add(self, claim: str, status: str, detail: str, failed: bool) -> None:
        self.rows.append((claim, ("FAIL " if failed else "") + status, detail))
        self.failures += failed

    def table(self) -> str:
        w = max([len(c) for c, _, _ in self.rows] + [5])
        s = max([len(s) for _, s, _ in self.rows] + [6])
        lines = [f"{c.ljust(w)}  {st.ljust(s)}  {d}" for c, st, d in self.rows]
        verdict = "baseline check passed" if self.ok else f"baseline check FAILED: {self.failures} change(s)"
        return "\n".join([*lines, verdict])


def _compare_slack(old: Any, new: Any, tolerance: float) -> tuple[str, str, bool]:
    if old is None and new is None:
        return "same", "slack undefined in both", False
    if old is None or new is None:
        return "slack changed", f"slack {fmt_slack(old)} -> {fmt_slack(new)}: review, then update", True
    delta = new - old
    detail = f"slack {old:+.3f} -> {new:+.3f} ({delta:+.3f} dex)"
    if delta < -tolerance:
        return "looser", detail, True
    if delta > tolerance:
        return "improved", detail, False
    return "same", detail, False


def check_baseline(
    results: list[Result], path: Path = DEFAULT_BASELINE, tolerance: float | None = None
) -> BaselineReport:
    """Compare ``results`` with the baseline at ``path``; see the module docstring for the rules."""
    try:
        doc = json.loads(Path(path).read_text())
    except FileNotFoundError as exc:
        raise FileNotFoundError(f"no baseline at {path}; create it with `attncheck baseline update`") from exc
    if doc.get("schema") != SCHEMA:
        raise ValueError(f"baseline {path} has schema {doc.get('schema')!r}, expected {SCHEMA!r}")
    tol = doc.get("tolerance", TOLERANCE) if tolerance is None else tolerance
    if tol < 0:
        raise ValueError(f"tolerance must be >= 0 (log10 units), got {tol}")
    report = BaselineReport()
    base: dict[str, dict[str, Any]] = doc["claims"]
    new = {r.claim_id: r for r in results}
    for r in results:
        if r.profile != doc["profile"]:
            report.add(r.claim_id, "profile", f"result is {r.profile}, baseline {doc['profile']}", True)
    for cid in sorted(set(base) | set(new)):
        if cid not in new:
            report.add(cid, "missing", "in the baseline but not in the results", True)
            continue
        if cid not in base:
            report.add(cid, "new", "not in the baseline: run `attncheck baseline update`", True)
            continue
        old, r = base[cid], new[cid]
        if old["verdict"] != r.verdict:
            report.add(cid, "verdict", f"{old['verdict']} -> {r.verdict}", True)
            continue
        status, detail, failed = _compare_slack(old["slack"], r.slack, tol)
        report.add(cid, status, detail, failed)
    return report
