"""The tightness gate: a run's results against the committed baseline (``reports/baseline/quick.json``).

The committed baseline holds every claim's verdict, slack, theory and measured values under the quick
profile with fixed seeds, plus the library versions it came from. :func:`check_baseline` is one-sided,
in the style of pytest-benchmark's ``--benchmark-compare-fail``: it fails when a verdict changes, when a
slack shrinks by more than ``tolerance`` (log10 units), when a slack becomes defined or undefined, when
an entry is missing on either side, or when a slack is NaN; a slack that grew is reported as an
improvement, never a failure. ``attncheck baseline update`` rewrites the file deliberately.

A baseline names the papers it covers (``papers``; the committed one: the four built-in papers) and
its gate compares exactly their claims: a plugin installed beside them is neither run nor compared,
and keeps a baseline of its own (``attncheck baseline update --papers KEY --baseline PATH`` writes it,
``attncheck baseline check --baseline PATH`` gates it).

The gate must pass on any x86-64 CPU and BLAS build for an unchanged tree, so it never compares
round-off noise:

- **saturation**: slacks at or above :data:`SATURATION` dex (a bound met with 1000x room, an identity
  verified to a few ulps) compare as "at least :data:`SATURATION`": a change above that level is not a
  change in tightness;
- **round-off level**: a measured value with ``|m| <= ROUNDOFF_ULPS * eps`` (float64 eps; about
  3.6e-12) is at round-off level; two such values compare equal, reported in units of eps, whatever
  their slacks (another CPU's kernels move them by factors of 2-4);
- **consistency checks** (gradient checks, closed forms against Monte Carlo: checks of the code, not
  bounds with a tightness; their margins are finite-difference round-off, which moves by 0.1-0.5 dex
  between OpenBLAS kernels) compare their verdict only; an entry whose classification changed fails;
- **bounds searched at their worst case** compare the worst ratio found, one-sided the other way: a
  larger ratio is a stronger search (reported), a ratio more than :data:`WORST_RTOL` smaller is a
  weaker search (a failure), and so is a search that disappeared;
- **entries without a slack** (qualitative claims, exact zeros, mixed signs) compare their theory and
  measured values instead: numbers within relative :data:`VALUE_RTOL` (or both at round-off level),
  everything else (bools, strings, lists element by element) equal.

Read top-down: :func:`check_baseline` (the gate), :func:`compare_entry` (one claim, the rules above),
then the file: :func:`load_baseline` (every field checked with the results schema's helpers) and
:func:`update_baseline`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bounds.checks import shown
from verify.core.context import PROFILES
from verify.core.format import fmt_slack
from verify.core.jsonload import JSONInputError, MissingJSONFile, load_json
from verify.core.record import Result, Verdict, to_jsonable
from verify.core.results import ResultsError, check_value
from verify.core.runner import library_versions

SCHEMA = "attncheck.baseline/1"
#: The committed baseline of the built-in papers (a data file beside the report builder).
DEFAULT_BASELINE = Path(__file__).parents[2] / "reports" / "baseline" / "quick.json"
#: Allowed loss of slack before the gate trips, in log10 units (0.05 dex = 12 % of the margin).
TOLERANCE = 0.05
#: Slacks at or above this many dex compare as equal ("holds with at least 1000x room").
SATURATION = 3.0
#: float64 machine epsilon.
EPS = 2.0**-52
#: A measured value within this many eps of 0 is at round-off level (2**14 eps = 3.6e-12: the
#: accumulated error of the reference models' O(1e4)-deep reductions, 2 to 4x apart between kernels).
ROUNDOFF_ULPS = 2**14
#: A worst-case search may find a ratio this much (relative) below the baseline's before the gate
#: calls it a weaker search (a local optimiser's end point moves with the CPU's round-off).
WORST_RTOL = 0.01
#: Relative tolerance on theory / measured values of entries whose slack is undefined.
VALUE_RTOL = 1e-6

#: One comparison: (status, detail, failed).
Row = tuple[str, str, bool]


# ---------------------------------------------------------------- the gate


def check_baseline(
    results: list[Result], path: Path = DEFAULT_BASELINE, tolerance: float | None = None
) -> BaselineReport:
    """Compare ``results`` with the baseline at ``path``; see the module docstring for the rules. Only
    the papers the baseline names are compared: a result of another paper (a plugin installed beside
    them) is listed in ``ignored``, never a failure."""
    doc = load_baseline(path)
    tol = doc.get("tolerance", TOLERANCE) if tolerance is None else tolerance
    if not (_finite(tol) and tol >= 0):
        raise ValueError(f"tolerance must be a finite number >= 0 (log10 units), got {tol!r}")
    report = BaselineReport()
    base: dict[str, dict[str, Any]] = doc["claims"]
    new: dict[str, Result] = {}
    for r in results:
        if _paper(r.claim_id) not in doc["papers"]:
            report.ignored.append(r.claim_id)
            continue
        if r.claim_id in new:
            report.add(r.claim_id, "duplicate", "the results hold this claim twice", True)
        new[r.claim_id] = r
        if r.profile != doc["profile"]:
            report.add(r.claim_id, "profile", f"result is {r.profile}, baseline {doc['profile']}", True)
    for cid in sorted(set(base) | set(new)):
        if cid not in new:
            report.add(cid, "missing", "in the baseline but not in the results", True)
        elif cid not in base:
            report.add(cid, "new", f"not in the baseline: review, then run `{update_command(path)}`", True)
        else:
            report.add(cid, *compare_entry(base[cid], new[cid], float(tol)))
    return report


@dataclass
class BaselineReport:
    """Per-claim comparison rows ``(claim, status, detail)``; ``ok`` is the gate's verdict. ``ignored``:
    results of papers the baseline does not cover (another paper's gate judges them), never compared."""

    rows: list[tuple[str, str, str]] = field(default_factory=list)
    failures: int = 0
    ignored: list[str] = field(default_factory=list)

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
        if self.ignored:
            others = sorted({_paper(c) for c in self.ignored})
            lines.append(
                f"not compared: {len(self.ignored)} results of papers this baseline does not cover "
                f"({', '.join(others)}; each plugin gates its own with its own baseline)"
            )
        verdict = "baseline check passed" if self.ok else f"baseline check FAILED: {self.failures} change(s)"
        return "\n".join([*lines, verdict])


# ---------------------------------------------------------------- one claim


def compare_entry(old: dict[str, Any], r: Result, tolerance: float) -> Row:
    """One claim's baseline entry ``old`` against its result ``r``: the verdict, its robustness and the
    claim's class first; then a consistency check's verdict only, a searched bound's worst ratio, two
    measurements at round-off level, the values of an entry without slack, else the slack."""
    if old["verdict"] != r.verdict:
        return "verdict", f"{old['verdict']} -> {r.verdict}", True
    if old.get("robust") != r.robust:  # e.g. a finding that now depends on a choice of ours
        said = {True: "robust", False: "not robust", None: "not judged"}
        return "robustness", f"{said[old.get('robust')]} -> {said[r.robust]} to our choices", True
    if bool(old.get("consistency", False)) != r.consistency:
        was = "a consistency check" if old.get("consistency") else "a claim about the paper"
        return "class changed", f"was {was} in the baseline: review, then update", True
    if r.consistency:
        return "same", f"consistency check: verdict {r.verdict} only (its margin is round-off)", False
    if "worst_ratio" in old or r.worst:
        return _compare_worst(old.get("worst_ratio"), r.worst["ratio"] if r.worst else None)
    m_old, m_new = old["measured"], to_jsonable(r.measured) if r.measured is not None else None
    slack_ok = r.slack is None or _finite(r.slack)
    if slack_ok and _roundoff(m_old) and _roundoff(m_new) and (old["slack"] is None) == (r.slack is None):
        ulps = f"{abs(m_old) / EPS:.0f} eps -> {abs(m_new) / EPS:.0f} eps"
        return "same", f"measured at round-off level in both: {ulps}", False
    if old["slack"] is None and r.slack is None:
        theory = to_jsonable(r.theory) if r.theory is not None else None
        for name, a, b in (("theory", old["theory"], theory), ("measured", m_old, m_new)):
            if not _same_value(a, b):
                return f"{name} changed", f"{name} {a!r} -> {b!r} (slack undefined)", True
        return "same", "slack undefined in both; theory and measured unchanged", False
    return _compare_slack(old["slack"], r.slack, tolerance)


def _compare_worst(old: Any, new: Any) -> Row:
    """A searched bound: the worst ratio found may grow (a stronger search), never fall by more than
    :data:`WORST_RTOL` (a weaker search), and the search may not disappear."""
    if old is None or new is None:
        return "search changed", f"worst ratio {old} -> {new}: review, then update", True
    if not (_finite(old) and _finite(new)):
        return "worst NaN", f"worst ratio {old} -> {new}: a non-finite ratio is never accepted", True
    detail = f"worst ratio {old:.6g} -> {new:.6g}"
    if new < old * (1 - WORST_RTOL):
        return "weaker search", detail, True
    return ("stronger search" if new > old * (1 + WORST_RTOL) else "same"), detail, False


def _same_value(old: Any, new: Any) -> bool:
    """Theory / measured of an entry without slack: numbers within :data:`VALUE_RTOL` (or both at
    round-off level), lists and objects element by element, everything else equal."""
    if isinstance(old, bool) or isinstance(new, bool):
        return old == new
    if isinstance(old, int | float) and isinstance(new, int | float):
        if not (_finite(old) and _finite(new)):
            return old == new and isinstance(old, int) and isinstance(new, int)  # exact beyond float64
        if _roundoff(old) and _roundoff(new):
            return True
        return abs(float(new) - float(old)) <= VALUE_RTOL * max(abs(float(old)), abs(float(new)))
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(_same_value(a, b) for a, b in zip(old, new, strict=True))
    if isinstance(old, dict) and isinstance(new, dict):
        return old.keys() == new.keys() and all(_same_value(old[k], new[k]) for k in old)
    return old == new


def _compare_slack(old: Any, new: Any, tolerance: float) -> Row:
    """Slacks in dex, one-sided: a loss beyond ``tolerance`` fails, a gain is an improvement; both at or
    above :data:`SATURATION` compare equal."""
    if new is not None and not _finite(new):
        value = new if isinstance(new, float) else "an integer beyond float64"
        return "slack NaN", f"slack {old} -> {value}: a non-finite slack is never accepted", True
    if old is None and new is None:
        return "same", "slack undefined in both", False
    if old is None or new is None:
        return "slack changed", f"slack {fmt_slack(old)} -> {fmt_slack(new)}: review, then update", True
    detail = f"slack {old:+.3f} -> {new:+.3f} ({new - old:+.3f} dex)"
    if old >= SATURATION and new >= SATURATION:
        return "same", f"{detail}; both at or above the {SATURATION:g}-dex saturation", False
    delta = min(new, SATURATION) - min(old, SATURATION)
    if delta < -tolerance:
        return "looser", detail, True
    if delta > tolerance:
        return "improved", detail, False
    return "same", detail, False


def _finite(x: Any) -> bool:
    """A real number (not a bool) that is finite in float64 (an integer beyond its range is not)."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def _roundoff(x: Any) -> bool:
    """A real measured value at round-off level (see the module docstring)."""
    return isinstance(x, int | float) and not isinstance(x, bool) and abs(x) <= ROUNDOFF_ULPS * EPS


# ---------------------------------------------------------------- the file


def load_baseline(path: Path = DEFAULT_BASELINE) -> dict[str, Any]:
    """The parsed baseline at ``path`` (:func:`verify.core.jsonload.load_json`), every field's type and
    range checked; a one-line FileNotFoundError / ValueError naming the field otherwise."""
    path = Path(path)
    try:
        doc = load_json(path, "baseline")
    except MissingJSONFile:
        how = update_command(path) + ("" if path.resolve() == DEFAULT_BASELINE.resolve() else " --papers KEY")
        raise FileNotFoundError(f"no baseline at {path}; create it with `{how}`") from None
    except JSONInputError as exc:
        raise ValueError(f"baseline {exc}") from None
    problem = _header_problem(doc)
    if problem is None:  # the first entry with a problem
        claims = doc["claims"]
        problem = next(filter(None, map(_entry_problem, claims, claims.values())), None)
    if problem is None:
        problem = _papers_problem(doc)
    if problem:
        raise ValueError(f"baseline {path}: {problem}")
    if doc.get("papers") is None:  # a baseline written before the paper list: the papers of its claims
        doc["papers"] = sorted({_paper(cid) for cid in doc["claims"]})
    return doc


_TOP_FIELDS = frozenset({"schema", "profile", "papers", "versions", "tolerance", "claims"})
_ENTRY_REQUIRED = ("verdict", "slack", "theory", "measured")
_ENTRY_FIELDS = frozenset(
    {*_ENTRY_REQUIRED, "seeds", "consistency", "params", "wall_time", "worst_ratio", "robust"}
)


def _header_problem(doc: Any) -> str | None:
    """What is wrong with the baseline's top level (all but its entries and papers), or None."""
    if not isinstance(doc, dict):
        return f"top level must be an object, got {type(doc).__name__}"
    if doc.get("schema") != SCHEMA:
        return f"schema is {shown(doc.get('schema'))}, expected {SCHEMA!r}"
    unknown = sorted(set(doc) - _TOP_FIELDS)
    if unknown:
        return f"top level has an unknown field {shown(unknown[0])}"
    if doc.get("profile") not in PROFILES:
        return f"profile is {shown(doc.get('profile'))}, expected one of {PROFILES}"
    tol = doc.get("tolerance", TOLERANCE)
    if not (_finite(tol) and tol >= 0):
        return f"tolerance must be a finite number >= 0 (log10 units), got {shown(tol)}"
    versions = doc.get("versions", {})
    if not isinstance(versions, dict) or not all(isinstance(v, str) for v in versions.values()):
        return "versions must be an object of library -> version string"
    if not isinstance(doc.get("claims"), dict):
        return "claims must be an object of claim id -> entry"
    return None


def _entry_problem(cid: str, entry: Any) -> str | None:
    """What is wrong with one claim's entry (every field's type and range; :func:`update_baseline`
    writes them), or None."""
    where = f"claims[{shown(cid)}]"
    if not isinstance(entry, dict) or not set(_ENTRY_REQUIRED) <= set(entry):
        return f"{where} needs verdict, slack, theory and measured"
    unknown = sorted(set(entry) - _ENTRY_FIELDS)
    if unknown:
        return f"{where} has an unknown field {shown(unknown[0])}"
    if not isinstance(entry["verdict"], str) or entry["verdict"] not in {str(v) for v in Verdict}:
        return f"{where}.verdict {shown(entry['verdict'])} is not a verdict"
    if not isinstance(entry.get("consistency", False), bool):
        return f"{where}.consistency must be true or false"
    if not isinstance(entry.get("robust", False), bool):
        return f"{where}.robust must be true or false (absent: not judged)"
    if entry["slack"] is not None and not _finite(entry["slack"]):  # 1e999 parses as inf: -inf passes all
        return f"{where}.slack must be a finite number or null, got {shown(entry['slack'])}"
    for name, unit in (("wall_time", " (seconds)"), ("worst_ratio", "")):
        if name in entry and not (_finite(entry[name]) and entry[name] >= 0):
            return f"{where}.{name} must be a finite number >= 0{unit}, got {shown(entry[name])}"
    seeds = entry.get("seeds", [])
    if not isinstance(seeds, list) or not all(
        isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= 2**63 for s in seeds
    ):
        return f"{where}.seeds must be a list of integers >= 0, got {shown(seeds)}"
    if not isinstance(entry.get("params", {}), dict):
        return f"{where}.params must be an object, got {shown(entry['params'])}"
    for name in ("theory", "measured", "params"):
        try:
            check_value(entry.get(name), f"{where}.{name}")
        except ResultsError as exc:
            return str(exc)
    return None


def _papers_problem(doc: dict[str, Any]) -> str | None:
    """What is wrong with the papers the baseline names (absent: read from its claims), or None."""
    papers = doc.get("papers")
    if papers is None:
        return None
    if not (
        isinstance(papers, list)
        and all(isinstance(k, str) and k for k in papers)
        and len(set(papers)) == len(papers)
    ):
        return f"papers must be a list of distinct paper keys, got {shown(papers)}"
    stray = sorted(cid for cid in doc["claims"] if _paper(cid) not in papers)
    if stray:
        return f"claims[{shown(stray[0])}] is of none of its papers {papers}"
    return None


def baseline_papers(path: Path = DEFAULT_BASELINE) -> list[str]:
    """The keys of the papers the baseline at ``path`` covers (its gate runs exactly their claims)."""
    return list(load_baseline(path)["papers"])


def update_baseline(
    results: list[Result], path: Path = DEFAULT_BASELINE, papers: Sequence[str] | None = None
) -> None:
    """Write ``results`` (one profile, one seed) as the new baseline of ``papers`` (default: the papers
    of the results); a result of another paper is a ValueError naming it."""
    profiles = {r.profile for r in results}
    if len(profiles) != 1:
        raise ValueError(f"a baseline needs results of one profile, got {sorted(profiles)}")
    keys = sorted({_paper(r.claim_id) for r in results} if papers is None else set(papers))
    other = sorted(r.claim_id for r in results if _paper(r.claim_id) not in keys)
    if other:
        raise ValueError(f"the result {other[0]!r} is of none of the baseline's papers {keys}")
    doc = {
        "schema": SCHEMA,
        "profile": profiles.pop(),
        "papers": keys,
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
                    "consistency": r.consistency,
                    "params": r.params,
                    "wall_time": round(r.wall_time, 2),
                }
                | ({"worst_ratio": r.worst["ratio"]} if r.worst else {})
                | ({"robust": r.robust} if r.robust is not None else {})
            )
            for r in sorted(results, key=lambda r: r.claim_id)
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, sort_keys=True, allow_nan=False) + "\n")


def update_command(path: Path) -> str:
    """The command that rewrites the baseline at ``path`` (the papers it covers are read from it)."""
    if Path(path).resolve() == DEFAULT_BASELINE.resolve():
        return "attncheck baseline update"
    return f"attncheck baseline update --baseline {path}"


def _paper(claim_id: str) -> str:
    return claim_id.split(".", 1)[0]
