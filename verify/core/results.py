"""The results schema in one place: ids, the writer (and its lock), the reader and the validation of a
results file.

One result (``schema: "attncheck.result/1"``)::

    {"schema": "attncheck.result/1", "claim_id": str, "paper": str, "reference": str,
     "kind": Kind, "provenance": Provenance, "statement": str, "profile": "quick" | "paper",
     "params": {str: Value}, "seeds": [int], "theory": Value, "measured": Value,
     "slack": float | null, "verdict": Verdict, "expected": Verdict, "notes": [str],
     "series": {str: Value}, "wall_time": float, "cpu_time": float, "versions": {str: str},
     "robust": bool | null, "depends_on": [{"choice": str, "end": Value, "verdict": Verdict,
     "at": Value, "below": Verdict | null, "above": Verdict | null}], "also": Verdict | null}

A results file (``schema: "attncheck.results/1"``)::

    {"schema": "attncheck.results/1", "profile": "quick" | "paper", "seed": int,
     "complete": bool, "results": [result, ...], "run": run record (optional)}

``Value`` is null, bool, int, str, a finite float, a list / object of Values, or
``{"$mpf": "<decimal>"}`` for a real outside float64's range (e.g. a required width of 1e400; ``"+inf"``
for a documented infinite bound). NaN is never a Value. ``slack`` is log10 of the margin, positive =
holds with room (:mod:`verify.core.judge`). ``robust`` / ``depends_on``: the verdict judged over the
claim's choices (:mod:`verify.core.choices`; null / [] when not judged, as in a file written before
the fields existed). ``also``: a borderline claim's second expected verdict (null for every other
claim, and in a file written before the field existed). ``complete`` is false when the run was
interrupted (the file then holds the claims finished so far); a file without it (written before the
field existed) reads as complete. Every violation is a :class:`ResultsError` naming the field, on one
line (offending values shortened; the file is read by :func:`verify.core.jsonload.load_json`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import re
import tempfile
from collections.abc import Collection, Iterator
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Any

import mpmath

from bounds.checks import shown
from verify.core.choices import ENTRY_KEYS
from verify.core.context import PROFILES
from verify.core.jsonload import JSONInputError, load_json
from verify.core.provenance import FIELDS as RUN_FIELDS
from verify.core.record import Kind, Provenance, Result, Verdict, from_jsonable, to_jsonable

RESULT_SCHEMA = "attncheck.result/1"
RESULTS_SCHEMA = "attncheck.results/1"

#: A paper name is a file name of the report (``<paper>.tex``): letters, digits and underscores only.
_SAFE_PAPER = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_ENUMS: dict[str, type] = {"kind": Kind, "provenance": Provenance, "verdict": Verdict, "expected": Verdict}
_FIELDS = tuple(f.name for f in fields(Result))
#: Fields a file written before they existed may lack (they take the dataclass default).
_OPTIONAL = frozenset(
    f.name for f in fields(Result) if f.default is not MISSING or f.default_factory is not MISSING
)


class ResultsError(ValueError):
    """A results file or result that does not follow the schema; the message names the field."""


@dataclass(frozen=True)
class ResultsDoc:
    """A parsed results file: the run's profile and seed, whether it finished, its results, and the run
    record (:mod:`verify.core.provenance`; None in a file written before runs were recorded)."""

    profile: str
    seed: int
    complete: bool
    results: list[Result]
    run: dict[str, Any] | None = None


# ---------------------------------------------------------------- one result


def result_to_dict(r: Result) -> dict[str, Any]:
    """``r`` as a JSON-ready object of the result schema (non-finite floats refused)."""
    d = asdict(r)
    for name in _ENUMS:
        d[name] = str(getattr(r, name))
    d["also"] = None if r.also is None else str(r.also)
    return {"schema": RESULT_SCHEMA, **to_jsonable(d)}


def result_to_json(r: Result) -> str:
    """``r`` as one line of JSON (:func:`result_to_dict`, keys sorted)."""
    return json.dumps(result_to_dict(r), allow_nan=False, sort_keys=True)


def result_from_json(text: str) -> Result:
    """The validated :class:`Result` in the JSON ``text`` (:func:`result_from_dict`)."""
    return result_from_dict(json.loads(text))


def result_from_dict(d: Any, where: str = "result") -> Result:
    """The :class:`Result` in ``d``, validated field by field; :class:`ResultsError` naming the field."""
    if not isinstance(d, dict):
        raise ResultsError(f"{where}: must be an object, got {type(d).__name__}")
    if d.get("schema") != RESULT_SCHEMA:
        raise ResultsError(
            f"{where}.schema: result schema must be {RESULT_SCHEMA!r}, got {shown(d.get('schema'))}"
        )
    missing = [k for k in _FIELDS if k not in d and k not in _OPTIONAL]
    unknown = sorted(set(d) - {*_FIELDS, "schema"})
    if missing:
        raise ResultsError(f"{where}: missing field {missing[0]!r}")
    if unknown:
        raise ResultsError(f"{where}: unknown field {shown(unknown[0])}")
    for name in ("claim_id", "paper", "reference", "statement", "profile"):
        _check_type(d[name], str, f"{where}.{name}")
    if "." not in d["claim_id"] or d["claim_id"].split(".", 1)[0] != d["paper"]:
        raise ResultsError(
            f"{where}.paper: {shown(d['paper'])} is not the prefix of claim id {shown(d['claim_id'])}"
        )
    if not _SAFE_PAPER.fullmatch(d["paper"]):
        raise ResultsError(f"{where}.paper: {shown(d['paper'])} is not a paper name (letters, digits, _)")
    if d["profile"] not in PROFILES:
        raise ResultsError(f"{where}.profile: {shown(d['profile'])} is not one of {PROFILES}")
    for name, enum in _ENUMS.items():
        if not isinstance(d[name], str) or d[name] not in {str(v) for v in enum}:  # type: ignore[attr-defined]
            raise ResultsError(f"{where}.{name}: {shown(d[name])} is not a {enum.__name__}")
    if d.get("also") is not None and d["also"] not in {str(v) for v in Verdict}:
        raise ResultsError(f"{where}.also: {shown(d['also'])} is not a Verdict or null")
    d = {k: d[k] for k in _FIELDS if k in d}
    for name in ("params", "series", "versions"):
        _check_object(d.get(name, {}), f"{where}.{name}")
    for name in ("seeds", "notes", "per_seed"):
        _check_type(d.get(name, []), list, f"{where}.{name}")
    for i, item in enumerate(d.get("per_seed", [])):
        _check_object(item, f"{where}.per_seed[{i}]")
    head = d.get("headline")
    if head is not None:
        _check_object(head, f"{where}.headline")
        if not {"theory", "measured"} <= set(head):  # what the tables print
            raise ResultsError(f"{where}.headline: must have theory and measured, got {sorted(head)}")
        _check_type(head.get("name", ""), str, f"{where}.headline.name")
    for i, s in enumerate(d["seeds"]):
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ResultsError(f"{where}.seeds[{i}]: must be an integer >= 0, got {shown(s)}")
    for i, n in enumerate(d.get("notes", [])):
        _check_type(n, str, f"{where}.notes[{i}]")
    for k, v in d.get("versions", {}).items():
        _check_type(v, str, f"{where}.versions[{shown(k)}]")
    if d["slack"] is not None:
        _check_number(d["slack"], f"{where}.slack")
    for name in ("wall_time", "cpu_time"):
        t = d.get(name, 0.0)
        _check_number(t, f"{where}.{name}")
        if t < 0:
            raise ResultsError(f"{where}.{name}: must be >= 0, got {t!r}")
    _check_robustness(d.get("robust"), d.get("depends_on", []), where)
    for name, value in d.items():  # every field, the typed ones above included, holds only Values
        check_value(value, f"{where}.{name}")
    body = {k: from_jsonable(v) for k, v in d.items()}
    for name, enum in _ENUMS.items():
        body[name] = enum(body[name])
    if body.get("also") is not None:
        body["also"] = Verdict(body["also"])
    return Result(**body)


def _check_robustness(robust: Any, depends_on: Any, where: str) -> None:
    """``robust`` is a bool or null; ``depends_on`` its entries, present exactly when robust is false."""
    if robust is not None:
        _check_type(robust, bool, f"{where}.robust")
    _check_type(depends_on, list, f"{where}.depends_on")
    if bool(depends_on) != (robust is False):
        raise ResultsError(f"{where}.depends_on: entries go with robust false, got robust {shown(robust)}")
    verdicts = {str(v) for v in Verdict}
    for i, e in enumerate(depends_on):
        at = f"{where}.depends_on[{i}]"
        _check_object(e, at)
        if set(e) != set(ENTRY_KEYS):
            raise ResultsError(f"{at}: must have the keys {list(ENTRY_KEYS)}, got {sorted(e)}")
        _check_type(e["choice"], str, f"{at}.choice")
        for key in ("verdict", "below", "above"):
            if not (e[key] in verdicts or (key != "verdict" and e[key] is None)):
                raise ResultsError(f"{at}.{key}: {shown(e[key])} is not a Verdict")
        if (e["at"] is None) != (e["below"] is None) or (e["at"] is None) != (e["above"] is None):
            raise ResultsError(f"{at}: at, below and above are all null (a set choice) or all given")


def _check_type(x: Any, typ: type, where: str) -> None:
    if not isinstance(x, typ):
        raise ResultsError(f"{where}: must be a {typ.__name__}, got {type(x).__name__}")


def _check_object(x: Any, where: str) -> None:
    """A JSON object that is not an ``$mpf`` value (which reads back as a number)."""
    _check_type(x, dict, where)
    if "$mpf" in x:
        raise ResultsError(f"{where}: must be an object, got an $mpf value")


def _check_number(x: Any, where: str) -> None:
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise ResultsError(f"{where}: must be a number, got {type(x).__name__}")
    try:
        finite = math.isfinite(x)
    except OverflowError:  # an integer beyond float64's range
        finite = False
    if not finite:
        shown = x if isinstance(x, float) else "an integer beyond float64's range"
        raise ResultsError(f"{where}: {shown} is not allowed: finite numbers or {{'$mpf': ...}} only")


def check_value(x: Any, where: str) -> None:
    """A schema ``Value``: JSON scalars, finite floats, lists / objects of Values, or an ``$mpf``."""
    if x is None or isinstance(x, bool | int | str):
        return
    if isinstance(x, float):
        _check_number(x, where)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            check_value(v, f"{where}[{i}]")
    elif isinstance(x, dict) and "$mpf" in x:
        text = x["$mpf"]
        if set(x) != {"$mpf"} or not isinstance(text, str):
            raise ResultsError(f"{where}: an $mpf value is {{'$mpf': '<decimal>'}}, got {shown(x)}")
        try:
            value = mpmath.mpf(text)
        except ValueError:
            raise ResultsError(f"{where}: $mpf {shown(text)} is not a decimal number") from None
        if mpmath.isnan(value):
            raise ResultsError(f"{where}: $mpf {shown(text)} is not allowed (NaN)")
    elif isinstance(x, dict):
        for k, v in x.items():
            check_value(v, f"{where}[{shown(k)}]")
    else:
        raise ResultsError(f"{where}: {type(x).__name__} is not a result value")


# ---------------------------------------------------------------- a results file


def validate_results(doc: Any, known: Collection[str] | None = None) -> ResultsDoc:
    """The :class:`ResultsDoc` in a parsed results file; :class:`ResultsError` naming the field.

    known: the claim ids of the installed version (every result must be one of them); None skips
    that check (files of toy claims in the tests).
    """
    if not isinstance(doc, dict):
        raise ResultsError(f"top level: must be an object, got {type(doc).__name__}")
    if doc.get("schema") != RESULTS_SCHEMA:
        raise ResultsError(f"schema: {shown(doc.get('schema'))}, expected {RESULTS_SCHEMA!r}")
    unknown = sorted(set(doc) - {"schema", "profile", "seed", "complete", "results", "run"})
    if unknown:
        raise ResultsError(f"unknown field {shown(unknown[0])}")
    if doc.get("profile") not in PROFILES:
        raise ResultsError(f"profile: {shown(doc.get('profile'))} is not one of {PROFILES}")
    seed = doc.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ResultsError(f"seed: must be an integer >= 0, got {shown(seed)}")
    complete = doc.get("complete", True)
    _check_type(complete, bool, "complete")
    _check_type(doc.get("results"), list, "results")
    results: list[Result] = []
    seen: set[str] = set()
    for i, d in enumerate(doc["results"]):
        r = result_from_dict(d, f"results[{i}]")
        if known is not None and r.claim_id not in known:
            raise ResultsError(f"results[{i}].claim_id: {shown(r.claim_id)} is not a claim of this version")
        if r.claim_id in seen:
            raise ResultsError(f"results[{i}].claim_id: {shown(r.claim_id)} appears twice")
        if r.profile != doc["profile"]:
            raise ResultsError(
                f"results[{i}].profile: {shown(r.profile)}, the file's profile is {shown(doc['profile'])}"
            )
        seen.add(r.claim_id)
        results.append(r)
    run = doc.get("run")
    if run is not None:
        _check_object(run, "run")
        extra = sorted(set(run) - set(RUN_FIELDS))
        if extra:
            raise ResultsError(f"run: unknown field {shown(extra[0])}")
        check_value(run, "run")
    return ResultsDoc(doc["profile"], seed, complete, results, run)


def read_results_doc(path: Path, known: Collection[str] | None = None) -> ResultsDoc:
    """Read (:func:`verify.core.jsonload.load_json`) and validate the results file at ``path``;
    :class:`ResultsError` (one line) otherwise."""
    path = Path(path)
    try:
        doc = load_json(path, "results file")
    except JSONInputError as exc:
        raise ResultsError(str(exc)) from None
    try:
        return validate_results(doc, known)
    except ResultsError as exc:
        raise ResultsError(f"{path}: {exc}") from None


def read_results(path: Path, known: Collection[str] | None = None) -> list[Result]:
    """The results in the file at ``path`` (see :func:`read_results_doc`)."""
    return read_results_doc(path, known).results


def write_results(
    path: Path,
    results: list[Result],
    profile: str,
    seed: int,
    *,
    complete: bool = True,
    run: dict[str, Any] | None = None,
) -> None:
    """Write a results file atomically: a temporary file in the same folder, then ``os.replace``;
    ``run``: the run record (:func:`verify.core.provenance.run_record`), stored as ``"run"``.

    An interrupted write leaves the previous file (or none), never a half-written one. A symlink is
    followed: its target is replaced, the link stays.
    """
    path = Path(os.path.realpath(path))
    doc = {
        "schema": RESULTS_SCHEMA,
        "profile": profile,
        "seed": seed,
        "complete": complete,
        "results": [result_to_dict(r) for r in results],
    } | ({} if run is None else {"run": to_jsonable(run)})
    text = json.dumps(doc, indent=1, sort_keys=True, allow_nan=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), 0o666 & ~_umask())  # mkstemp makes 0600; a results file is shared
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ResultsLocked(ResultsError):
    """Another process holds the lock of the results file (see :func:`results_lock`)."""


@contextlib.contextmanager
def results_lock(path: Path) -> Iterator[Path]:
    """Hold an exclusive lock on the results file ``path`` while inside; yields the file written.

    A symlink is followed: the lock and the file written are its target's (the link stays a link).
    The lock is ``flock`` on a sidecar file ``.<name>.lock`` next to the target, taken without
    waiting: when another process holds it, :class:`ResultsLocked` names the path. The sidecar is
    removed on the way out (a lock taken on a sidecar that was removed meanwhile is taken again).
    """
    target = Path(os.path.realpath(path))
    if target.is_symlink():  # realpath stops at a loop
        raise ResultsError(f"{path} is a loop of symlinks")
    lock = target.with_name(f".{target.name}.lock")
    target.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ResultsLocked(
                f"{path} is being written by another attncheck run (it holds {lock}); "
                "wait for that run to end or choose another path"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        if _same_file(fd, lock):
            break
        os.close(fd)  # the holder removed the sidecar after we opened it: lock the current one
    try:
        yield target
    finally:
        lock.unlink(missing_ok=True)  # while still held: a waiting opener sees it gone and retries
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


__all__ = [
    "RESULTS_SCHEMA",
    "RESULT_SCHEMA",
    "ResultsDoc",
    "ResultsError",
    "ResultsLocked",
    "check_value",
    "read_results",
    "read_results_doc",
    "result_from_dict",
    "result_from_json",
    "result_to_dict",
    "result_to_json",
    "results_lock",
    "validate_results",
    "write_results",
]
