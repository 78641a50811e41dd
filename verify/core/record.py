"""Claim records, the evidence a claim function returns, and the JSON-serialisable result.

Result JSON schema (``schema: "attncheck.result/1"``)::

    {"schema": "attncheck.result/1", "claim_id": str, "paper": str, "reference": str,
     "kind": Kind, "provenance": Provenance, "statement": str, "profile": "quick" | "paper",
     "params": {str: Value}, "seeds": [int], "theory": Value, "measured": Value,
     "slack": float | null, "verdict": Verdict, "expected": Verdict, "notes": [str],
     "series": {str: Value}, "wall_time": float, "versions": {str: str}}

``Value`` is null, bool, int, str, a finite float, a list / object of Values, or
``{"$mpf": "<decimal>"}`` for a real outside float64's range (e.g. a required width of 1e400).
``slack`` is log10 of the margin, positive = holds with room (see :mod:`verify.core.judge`).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

import mpmath
import numpy as np

from bounds.mp import in_float_range

SCHEMA = "attncheck.result/1"


class Kind(StrEnum):
    """What a claim asserts; selects the verdict rule."""

    UPPER = "upper"  # measured <= theory
    LOWER = "lower"  # measured >= theory
    TWO_SIDED = "two-sided"  # theory = [lo, hi], lo <= measured <= hi
    RATE = "rate"  # theory = exponent, measured = SlopeFit; CI must contain exponent
    CONDITION = "condition"  # theory = required size, measured = largest reachable size
    PROBABILITY = "probability"  # theory = 1 - delta, measured = [successes, trials]
    IDENTITY = "identity"  # measured == theory to a stated relative tolerance
    QUALITATIVE = "qualitative"  # measured = bool: the stated property was observed


class Provenance(StrEnum):
    """How sure the formula is (``shared/papers/README.md``)."""

    EXACT = "EXACT"
    EXACT_FROM_REVIEWS = "EXACT-from-reviews"
    DERIVED = "DERIVED"
    RECONSTRUCTED = "RECONSTRUCTED"
    THIRD_PARTY = "THIRD-PARTY"


class Verdict(StrEnum):
    HOLDS = "holds"
    VIOLATED = "violated"
    VACUOUS = "vacuous"
    OUT_OF_REGIME = "out_of_regime"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"


@dataclass(frozen=True)
class Rule:
    """A named pass rule of a claim (a tolerance, a window, a threshold) and why it is what it is.

    value: what the claim body reads (``ctx.rule(name)``); reason: one line on why this value;
    source: where it comes from (the paper's statement, the spec's pass criterion, or the suite).
    The report and the docs print every rule, so code and prose cannot drift apart.
    """

    value: Any
    reason: str
    source: str = "attncheck"

    def as_dict(self) -> dict[str, Any]:
        return {"value": to_jsonable(self.value), "reason": self.reason, "source": self.source}


@dataclass(frozen=True)
class ClaimRecord:
    """Immutable description of one paper claim.

    id: spec id (``wu2023.prop1``); reference: theorem / lemma / equation in the paper; assumptions:
    what the claim checks before judging (a failure gives ``out_of_regime``); quick / paper: default
    parameters per profile; expect: the verdict the suite expects (``violated`` for a documented
    finding, so the CLI and the tests do not treat it as a regression); rules: the named pass rules
    (:class:`Rule`) the claim body reads through ``ctx.rule(name)``.
    """

    id: str
    paper: str
    reference: str
    kind: Kind
    provenance: Provenance
    statement: str
    assumptions: tuple[str, ...] = ()
    quick: tuple[tuple[str, Any], ...] = ()
    paper_params: tuple[tuple[str, Any], ...] = ()
    expect: Verdict = Verdict.HOLDS
    rules: tuple[tuple[str, Rule], ...] = ()

    def params_for(self, profile: str) -> dict[str, Any]:
        quick = dict(self.quick)
        return quick | dict(self.paper_params) if profile == "paper" else quick

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "paper": self.paper,
            "reference": self.reference,
            "kind": str(self.kind),
            "provenance": str(self.provenance),
            "statement": self.statement,
            "assumptions": list(self.assumptions),
            "quick": to_jsonable(dict(self.quick)),
            "paper_params": to_jsonable(dict(self.paper_params)),
            "expect": str(self.expect),
            "rules": {name: rule.as_dict() for name, rule in self.rules},
        }


@dataclass
class Evidence:
    """What a claim function returns: both sides' values; the runner judges them.

    theory / measured: per :class:`Kind` (see its comments). failed: assumptions that did not hold
    at this point (-> ``out_of_regime``, naming them). inconclusive: a reason the data cannot decide
    (-> ``inconclusive``). rtol: the relative tolerance of an identity / the round-off margin of a
    bound when the spec states one (default :data:`verify.core.judge.ROUNDOFF_RTOL`). trivial: a
    value at or beyond which an upper bound says nothing (e.g. the initial loss) -> ``vacuous``.
    seeds: the seeds used (default ``[ctx.seed]``). series: curves for figures.
    """

    theory: Any
    measured: Any
    failed: list[str] = field(default_factory=list)
    inconclusive: str | None = None
    rtol: float | None = None
    trivial: Any = None
    alpha: float | None = None
    seeds: list[int] | None = None
    notes: list[str] = field(default_factory=list)
    series: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class Result:
    """A judged claim at one parameter point. Round-trips through :meth:`to_json` / :meth:`from_json`."""

    claim_id: str
    paper: str
    reference: str
    kind: Kind
    provenance: Provenance
    statement: str
    profile: str
    params: dict[str, Any]
    seeds: list[int]
    theory: Any
    measured: Any
    slack: float | None
    verdict: Verdict
    expected: Verdict
    notes: list[str] = field(default_factory=list)
    series: dict[str, Any] = field(default_factory=dict)
    wall_time: float = 0.0
    versions: dict[str, str] = field(default_factory=dict)

    @property
    def as_expected(self) -> bool:
        """False for an unexpected failure and for a documented finding that no longer shows."""
        finding_gone = self.expected == Verdict.VIOLATED and self.verdict != Verdict.VIOLATED
        return not (self.unexpected_failure or finding_gone)

    @property
    def unexpected_failure(self) -> bool:
        """An ``error``, or a ``violated`` that the claim's record does not expect."""
        return self.verdict == Verdict.ERROR or (
            self.verdict == Verdict.VIOLATED and self.expected != Verdict.VIOLATED
        )

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["kind"], d["provenance"] = str(self.kind), str(self.provenance)
        d["verdict"], d["expected"] = str(self.verdict), str(self.expected)
        return {"schema": SCHEMA, **to_jsonable(d)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), allow_nan=False, sort_keys=True)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Result:
        if d.get("schema") != SCHEMA:
            raise ValueError(f"result schema must be {SCHEMA!r}, got {d.get('schema')!r}")
        body = {k: from_jsonable(v) for k, v in d.items() if k != "schema"}
        body["kind"] = Kind(body["kind"])
        body["provenance"] = Provenance(body["provenance"])
        body["verdict"] = Verdict(body["verdict"])
        body["expected"] = Verdict(body["expected"])
        return cls(**body)

    @classmethod
    def from_json(cls, text: str) -> Result:
        return cls.from_dict(json.loads(text))


def to_jsonable(value: Any) -> Any:
    """Normalise a value for JSON: numpy -> Python, mpf -> float or ``{"$mpf": ...}``, tuples -> lists.

    Non-finite floats are refused (a NaN table is never written): the caller must say what it meant.
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, mpmath.mpf):
        if in_float_range(value):
            return float(value)
        return {"$mpf": mpmath.nstr(value, 20, min_fixed=1, max_fixed=0)}
    if isinstance(value, float | np.floating):
        x = float(value)
        if not math.isfinite(x):
            raise ValueError(f"non-finite value {x} cannot go into a result; use None or an mpf")
        return x
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "as_dict"):
        return to_jsonable(value.as_dict())
    raise TypeError(f"cannot serialise {type(value).__name__} into a result")


def from_jsonable(value: Any) -> Any:
    """Inverse of :func:`to_jsonable` for the ``{"$mpf": ...}`` encoding."""
    if isinstance(value, dict):
        if set(value) == {"$mpf"}:
            return mpmath.mpf(value["$mpf"])
        return {k: from_jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_jsonable(v) for v in value]
    return value
