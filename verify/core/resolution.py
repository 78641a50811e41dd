"""The resolution of a claim's alternative world: the nearest world to the statement that the claim
still tells apart at its seeds. An alternative 30x away from the statement says only that the claim
resolves 30x; the resolution says how much nearer it would still see.

Re-judged alternatives (:attr:`~verify.core.record.Alternative.rejudged`) are resolved in every run,
from the claim's own per-seed evidence and at no extra run cost (:func:`rejudged_resolution`, called by
:func:`verify.core.seeds.evaluate` where it judges the alternative beside the paper world), with the
same seed combination as the declared alternative:

- ``factor=F`` (an upper / lower bound): the smallest factor f in (1, F] such that the bound tightened
  by f gives the alternative's expected verdict; geometric bisection until the bracket's ratio is at
  most 1 + :data:`FACTOR_RTOL`; the value is the bracket's upper end (a factor judged and detected);
- ``exponent=q`` (a rate): the smallest shift d in (0, |q - p|] such that the same evidence judged
  against p + d sign(q - p) gives it; bisection until the bracket is at most :data:`SHIFT_RTOL`
  |q - p| wide (the tolerance check of a competing exponent concerns the declared one only, so the
  intermediate exponents skip it). The value is the bracket's upper end.

Both verdicts are monotone in f and d from the paper's end whenever that end does not give the
expected verdict (the hard-side and rate rules; "every seed" is an intersection), so the bisection
finds the smallest. When the declared factor or shift does not give it, or the paper's own end
already does (a documented finding: nothing to resolve), the value is None and the note says why.

An alternative with parameter overrides is a world the claim runs: its resolution costs runs and is
computed on demand (:func:`verify.core.falsifier.resolve_alternative`, ``attncheck alternatives``). With
exactly one override, a real number whose paper-world value is a real number too, it is the parameter
value nearest the paper's at which the alternative world gives its expected verdict:
:data:`OVERRIDE_STEPS` bisection runs between the paper's value and the override (geometric when both
are > 0 and span more than 10x; an integer parameter stays an integer, to a bracket 1 wide). Another
override (a law, a flag, a tuple) is a categorical world (value None).

A resolution is ``{"kind": "factor" | "exponent shift" | "parameter", "value", "declared", "note"}``
(a parameter's adds ``"parameter"`` and ``"paper"``: its name and its paper-world value).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from verify.core.record import Alternative, Evidence, Kind, Verdict, to_jsonable

#: A factor's bisection stops when its bracket's ratio is at most 1 + FACTOR_RTOL (1 % relative).
FACTOR_RTOL = 0.01
#: An exponent shift's bisection stops when its bracket is at most SHIFT_RTOL |q - p| wide.
SHIFT_RTOL = 0.01
#: The bisection runs of a numeric override (each one a run of the claim), as for a choice's range.
OVERRIDE_STEPS = 6
#: The note of an override that is no real number (or whose paper value is none).
CATEGORICAL = "a categorical world"

#: The verdict of the claim's evidence, combined over its seeds, after a map of each seed's evidence.
Judge = Callable[[Callable[[Evidence], Evidence]], Verdict]


def entry(kind: str, value: Any, declared: Any, note: str, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "value": value, "declared": declared, "note": note, **extra}


def rejudged_resolution(
    alt: Alternative, kind: Kind, theory: Any, verdict_of: Judge
) -> dict[str, Any] | None:
    """The resolution of a re-judged alternative (module docstring); None for one that is not.

    theory: the claim's theory (its exponent p for a rate); verdict_of: the combined verdict of the
    claim's per-seed evidence mapped by a function (the seeds' combination as for the alternative).
    """
    if not alt.rejudged:
        return None
    if alt.factor is not None:
        return _factor(alt, kind, verdict_of)
    if alt.exponent is not None:
        return _shift(alt, kind, float(theory), verdict_of)
    return None


def _factor(alt: Alternative, kind: Kind, verdict_of: Judge) -> dict[str, Any]:
    target, big = alt.expect, float(alt.factor)

    def at(f: float) -> Verdict:
        tight = Alternative(alt.world, factor=f)
        return verdict_of(lambda ev: tight.apply(kind, ev))

    v = at(big)
    if v != target:
        note = f"the bound tightened {big:g}-fold (the declared factor) gives {v}, not {target}: not resolved"
        return entry("factor", None, big, note)
    v = verdict_of(lambda ev: ev)
    if v == target:
        note = f"the claim's own bound already gives {target}: no tightening to resolve"
        return entry("factor", None, big, note)
    lo, hi = 1.0, big
    while hi / lo > (1 + FACTOR_RTOL) * (1 + 1e-12):
        m = math.sqrt(lo * hi)
        vm = at(m)
        if vm == target:
            hi = m
        else:
            lo, v = m, vm
    note = (
        f"{target} from the bound tightened {hi:.3g}-fold on ({v} at {lo:.3g}-fold; declared "
        f"{big:g}-fold; bisected to {FACTOR_RTOL:.0%})"
    )
    return entry("factor", hi, big, note)


def _shift(alt: Alternative, kind: Kind, p: float, verdict_of: Judge) -> dict[str, Any]:
    target, q = alt.expect, float(alt.exponent)
    span, sign = abs(q - p), math.copysign(1.0, q - p)

    def at(d: float) -> Verdict:
        other = Alternative(alt.world, exponent=q if d == span else p + sign * d)
        return verdict_of(lambda ev: other.apply(kind, ev))

    if span == 0:
        return entry("exponent shift", None, span, f"the competing exponent {q:g} is the claim's own")
    v = at(span)
    if v != target:
        note = f"the competing exponent {q:g} (the declared shift {span:g}) gives {v}, not {target}"
        note += ": not resolved"
        return entry("exponent shift", None, span, note)
    v = verdict_of(lambda ev: ev)
    if v == target:
        note = f"the claim's own exponent {p:g} already gives {target}: no shift to resolve"
        return entry("exponent shift", None, span, note)
    lo, hi = 0.0, span
    while hi - lo > SHIFT_RTOL * span * (1 + 1e-12):
        m = (lo + hi) / 2
        vm = at(m)
        if vm == target:
            hi = m
        else:
            lo, v = m, vm
    note = (
        f"{target} from a shift of {hi:.3g} toward {q:g} on (exponent {p + sign * hi:.4g}; {v} at "
        f"{lo:.3g}; declared {span:g}; bisected to {SHIFT_RTOL:.0%} of it)"
    )
    return entry("exponent shift", hi, span, note)


def _real(x: Any) -> bool:
    j = to_jsonable(x)
    return isinstance(j, int | float) and not isinstance(j, bool) and math.isfinite(j)


def _is_int(x: Any) -> bool:
    j = to_jsonable(x)
    return isinstance(j, int) and not isinstance(j, bool)


def numeric_override(alt: Alternative, paper: Mapping[str, Any]) -> tuple[str, Any] | str:
    """The one numeric override ``(name, value)`` of ``alt`` whose paper-world value (in ``paper``, the
    profile's parameters) is a number too; else why there is none (:data:`CATEGORICAL`, or a world of
    several overrides)."""
    if len(alt.overrides) != 1:
        return f"a world of {len(alt.overrides)} overrides, not one parameter"
    [(name, value)] = alt.overrides
    if not (_real(value) and name in paper and _real(paper[name])):
        return CATEGORICAL
    return name, value


def bisect_override(
    name: str,
    paper: Any,
    override: Any,
    target: Verdict,
    verdict_at: Callable[[Any], tuple[Verdict, str]],
) -> dict[str, Any]:
    """The resolution of a world with the one numeric override ``name = override`` (paper value
    ``paper``): at most :data:`OVERRIDE_STEPS` runs ``verdict_at(value)`` -> (verdict, first note),
    bisecting between the paper's value (taken as not giving ``target``, never run) and the override
    (taken as giving it: the caller's run of the alternative world). A point that gives ``error`` ends
    it with no resolution (the claim does not take that value: an error is no verdict on a world)."""
    integer = _is_int(paper) and _is_int(override)
    a, b = (int(paper), int(override)) if integer else (float(paper), float(override))
    geometric = min(a, b) > 0 and max(a, b) > 10 * min(a, b)
    path: list[str] = []
    hits = 0
    for _ in range(OVERRIDE_STEPS):
        if integer and abs(b - a) <= 1:
            break
        m = math.sqrt(a * b) if geometric else (a + b) / 2
        if integer:
            m = min(max(round(m), min(a, b) + 1), max(a, b) - 1)
        v, why = verdict_at(m)
        path.append(f"{_fmt(m)}: {v}")
        if v == Verdict.ERROR:
            note = f"the claim errs at {name}={_fmt(m)} ({why}): no resolution between {_fmt(paper)} and "
            note += f"{_fmt(override)}"
            return entry("parameter", None, override, note, parameter=name, paper=paper)
        if v == target:
            b, hits = m, hits + 1
        else:
            a = m
    how = "geometric " if geometric else ""
    note = (
        f"{target} at {name}={_fmt(b)} (paper {_fmt(paper)}, alternative {_fmt(override)}; "
        f"{how}bisection, {len(path)} runs: {', '.join(path) or 'none'})"
    )
    if not path:
        note += "; nothing lies between the paper's value and the override"
    elif hits == len(path):
        note += f"; {target} at every point run, the paper's value itself not run"
    elif hits == 0:
        note += f"; only the override gives {target}: the claim resolves no nearer world"
    return entry("parameter", b, override, note, parameter=name, paper=paper)


def _fmt(x: Any) -> str:
    return f"{x:.4g}" if isinstance(x, float) else str(x)


__all__ = [
    "CATEGORICAL",
    "FACTOR_RTOL",
    "OVERRIDE_STEPS",
    "SHIFT_RTOL",
    "bisect_override",
    "entry",
    "numeric_override",
    "rejudged_resolution",
]
