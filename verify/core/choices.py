"""Our own choices: values a claim uses that its paper leaves open, and its verdict judged over them.

A :class:`Choice` (``@claim(choices={name: Choice(...)})``) is one keyword parameter of the claim (its
value is the parameter's quick value) or one of its pass rules (``Choice(Rule(...), ...)``: the rule is
declared there, once): the value used, the range a careful reader would accept (``range=(lo, hi)``) or
the set of admissible options (``options=``), why, and on what basis (:data:`verify.core.record.BASES`).

A robust run (``run_claim(..., robust=True)``, ``attncheck run --robust``) judges the claim again at
the ends of each range (at each other option of a set), one choice at a time, every other value as
run, at the same seeds (:func:`judge`). The verdict is robust when every point gives the verdict at
the values. Otherwise each end whose verdict differs gives a ``depends_on`` entry; for a range, the
change point is found by bisection between the value and that end (geometric when the range is
positive and spans more than 10x; on integers for an integer choice) until the bracket is at most
:data:`RESOLUTION` of the value-to-end span (6 steps; at most 1 apart for integers). An entry is
``{"choice", "end", "verdict", "at", "below", "above"}``: the end checked and its verdict; for a
range, ``at`` is the upper end of the final bracket, ``above`` the verdict at and above it and
``below`` the verdict below it (between the bracket's ends the change is not located); for a set,
``at`` / ``below`` / ``above`` are None. A claim that declares no choice is not judged
(``robust`` None), nor is one whose run moved a choice off its declared value (an override), or one
for which a point gave ``error`` (a note says why). The declared values are the quick profile's; where
another profile moves a value (the paper profile's sizes), a range moves with it by the same factor
(:meth:`Choice.at_value`: "half to three times ours" stays half to three times), and a choice that
cannot follow (a set of options, a single value) is left out of the judging, with a note naming it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from verify.core.record import Choice, Rule, Verdict, is_int, same, to_jsonable

#: Bisection stops when its bracket is at most this fraction of the value-to-end span (log span for
#: a geometric range): 6 steps.
RESOLUTION = 1 / 64
#: The keys of a ``depends_on`` entry.
ENTRY_KEYS = ("choice", "end", "verdict", "at", "below", "above")


def declare_choices(
    claim_id: str,
    choices: Mapping[str, Choice] | None,
    params: Mapping[str, Any],
    rules: Mapping[str, Rule],
) -> tuple[dict[str, Any], dict[str, Rule], tuple[tuple[str, Choice], ...]]:
    """What a claim's choices declare: the quick parameters (``params``, the quick profile's other
    values, and the value of each parameter choice), the pass rules (``rules``, the other rules, and
    the rule of each ``Choice(Rule(...))``) and the choices as sorted pairs. A name declared twice (a
    chosen parameter in ``quick``, a chosen rule in ``rules``) is an error."""
    params, rules = dict(params), dict(rules)
    for name, ch in (choices or {}).items():
        if not isinstance(ch, Choice):
            raise TypeError(f"claim {claim_id!r}: choice {name!r} must be a Choice, got {type(ch).__name__}")
        is_rule = ch.rule is not None
        own, what, other = (rules, "rules=", params) if is_rule else (params, "the quick profile", rules)
        if name in own:
            raise ValueError(f"claim {claim_id!r}: {name!r} is declared twice, as a choice and in {what}")
        if name in other:
            raise ValueError(f"claim {claim_id!r}: choice {name!r} names both a parameter and a rule")
        own[name] = ch.rule if is_rule else ch.value
    return params, rules, tuple(sorted((choices or {}).items()))


@dataclass
class Robustness:
    """A verdict judged over its claim's choices: robust (None: not judged), depends_on entries, notes."""

    robust: bool | None
    depends_on: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class _PointError(Exception):
    """A choice point whose run ended in ``error``."""


#: Runs the claim with one choice moved: (name, value) -> (verdict, first note).
Probe = Callable[[str, Any], tuple[Verdict, str]]


def at_profile(
    choices: Iterable[tuple[str, Choice]], profile: Mapping[str, Any]
) -> tuple[list[tuple[str, Choice]], list[str]]:
    """The choices as they stand at a profile whose parameter values are ``profile`` (the quick values
    are the declared ones): a range moves with a value the profile moves (:meth:`Choice.at_value`); a
    choice that cannot follow (a set of options, a single value) is left out, with a line saying so."""
    kept, left = [], []
    for name, ch in choices:
        at = ch.at_value(profile.get(name, ch.value))
        if at is None:
            left.append(f"{name}={profile[name]!r} (declared {ch.value!r}, {ch.describe()})")
        else:
            kept.append((name, at))
    return kept, left


def judge(
    choices: Iterable[tuple[str, Choice]],
    current: Mapping[str, Any],
    base: Verdict,
    probe: Probe,
    profile: Mapping[str, Any] | None = None,
) -> Robustness:
    """The verdict ``base`` (at the values ``current`` of the run) judged over ``choices`` as they stand
    at the parameter values ``profile`` of the run's profile (:func:`at_profile`; default: the declared
    values)."""
    choices, left = at_profile(choices, profile or {})
    if not choices and not left:
        return Robustness(None, notes=["robustness: not judged, no choices declared"])
    if base == Verdict.ERROR:
        return Robustness(None, notes=["robustness: not judged, the verdict at the values is error"])
    left_out = f"not judged over what this profile moves and no range carries: {'; '.join(left)}"
    if not choices:
        return Robustness(None, notes=["robustness: " + left_out])
    unjudged = [left_out] if left else []
    moved = [
        f"{n}={current[n]!r} (declared {ch.value!r})" for n, ch in choices if not same(current[n], ch.value)
    ]
    if moved:
        return Robustness(None, notes=["robustness: not judged, this run moves " + ", ".join(moved)])
    runs = 0

    def verdict(name: str, value: Any) -> Verdict:
        nonlocal runs
        runs += 1
        v, note = probe(name, value)
        if v == Verdict.ERROR:
            raise _PointError(f"{name}={value!r} gave error: {note}")
        return Verdict(v)

    entries = []
    try:
        for name, ch in choices:
            for end in ch.ends():
                v = verdict(name, end)
                if v == base:
                    continue
                entry = dict(choice=name, end=end, verdict=str(v), at=None, below=None, above=None)
                if ch.range is not None:
                    entry |= _bisect(ch, end, v, base, lambda x, name=name: verdict(name, x))
                entries.append(entry)
    except _PointError as exc:
        return Robustness(None, notes=[f"robustness: not judged, {exc}"])
    points = ", ".join(f"{n} at {', '.join(map(_fmt, ch.ends()))}" for n, ch in choices if ch.ends())
    if not entries and unjudged:  # robust only over every declared choice: a choice left out leaves it open
        return Robustness(
            None, notes=[f"robustness: not judged in full: {base} at every choice point judged ({points}; "
                         f"{runs} runs), {left_out}"]
        )  # fmt: skip
    if not entries:
        return Robustness(True, notes=[f"robust: {base} at every choice point ({points}; {runs} runs)"])
    notes = [f"not robust ({runs} runs: {points} and bisections)"]
    return Robustness(
        False, to_jsonable(entries), notes + [depends_text(e, base) for e in entries] + unjudged
    )


def _bisect(ch: Choice, end: Any, v_end: Verdict, base: Verdict, verdict: Callable[[Any], Verdict]) -> dict:
    """Bisect between the value (verdict ``base``) and ``end`` (verdict ``v_end``) for the change."""
    a, b, vb = ch.value, end, v_end
    integer = is_int(ch.value)
    span = math.log(end / a) if ch.geometric else end - a
    while True:
        width = math.log(b / a) if ch.geometric else b - a
        if abs(width) <= RESOLUTION * abs(span) * (1 + 1e-9) or (integer and abs(b - a) <= 1):
            break
        m = math.sqrt(a * b) if ch.geometric else (a + b) / 2
        if integer:
            m = min(max(round(m), min(a, b) + 1), max(a, b) - 1)
        vm = verdict(m)
        if vm == base:
            a = m
        else:
            b, vb = m, vm
    lo, hi = sorted([(a, base), (b, vb)], key=lambda p: p[0])
    return {"at": hi[0], "below": str(lo[1]), "above": str(hi[1])}


def _fmt(x: Any) -> str:
    return f"{x:.4g}" if isinstance(x, float) else repr(x) if isinstance(x, str) else str(x)


def depends_text(entry: Mapping[str, Any], base: Verdict | str) -> str:
    """One line on a ``depends_on`` entry: where the verdict changes with the choice."""
    name = entry["choice"]
    if entry["at"] is None:
        return f"depends on {name}: {base} as run, {entry['verdict']} at {name}={_fmt(entry['end'])}"
    return (
        f"depends on {name}: {entry['above']} for {name} >= {_fmt(entry['at'])}, {entry['below']} below "
        f"(bisected toward {_fmt(entry['end'])}, where it is {entry['verdict']})"
    )


__all__ = [
    "ENTRY_KEYS",
    "RESOLUTION",
    "Robustness",
    "at_profile",
    "declare_choices",
    "depends_text",
    "judge",
]
