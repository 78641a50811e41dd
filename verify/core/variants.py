"""How a declared option of a choice relates to the choice's value, and the same change at another value.

An option of a grid, a tuple of sizes or a search budget is most often its value changed in one way.
:func:`relation` names that change, the first of these that fits:

- ``("scale", c)``: every entry (or the number) times one factor c, zeros staying zero;
- ``("drop_first",)`` / ``("drop_last",)``: the grid without its first / last point;
- ``("append", c)`` / ``("prepend", c)``: one more point, c times the last / first one;
- ``("entry", i, c)``: entry i times c, the others unchanged;
- ``("add", (i, j, ...), k)``: k added to entries i, j, ... (two or more), the others unchanged (a problem
  "one size larger").

:func:`apply` makes that change to another value (of the same kind, integers rounded to integers), so
that an option declared for the quick profile's grid follows the grid a paper profile uses
(:meth:`verify.core.record.Choice.at_value`). An option that is none of these changes has no relation
(None) and does not follow.
"""

from __future__ import annotations

import math
from typing import Any

Relation = tuple[Any, ...]

#: Two factors are the same when they agree to this relative tolerance (grids written in decimals).
RTOL = 1e-9


def _num(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _seq(x: Any) -> bool:
    return isinstance(x, tuple | list) and len(x) > 0 and all(_num(e) for e in x)


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=RTOL, abs_tol=0.0)


def _factor(a: float, b: float) -> float | None:
    """c with b = c a, for a != 0 and c > 0 (a change of sign is not a variant of a grid)."""
    if a == 0 or b / a <= 0:
        return None
    return b / a


def _scaled(v: list, o: list) -> float | None:
    """The one factor taking every entry of v to o's (zeros to zeros), else None."""
    if len(v) != len(o):
        return None
    cs = [_factor(a, b) for a, b in zip(v, o, strict=True) if a != 0 or b != 0]
    if not cs or any(c is None or not _close(c, cs[0]) for c in cs):
        return None
    return cs[0]


def relation(value: Any, option: Any) -> Relation | None:
    """The change taking ``value`` to ``option`` (module docstring), or None."""
    if _num(value) and _num(option):
        c = _factor(value, option)
        return None if c is None else ("scale", c)
    if not (_seq(value) and _seq(option)):
        return None
    v, o = list(value), list(option)
    if (c := _scaled(v, o)) is not None:
        return ("scale", c)
    if len(v) >= 2 and o == v[1:]:
        return ("drop_first",)
    if len(v) >= 2 and o == v[:-1]:
        return ("drop_last",)
    if len(o) == len(v) + 1 and o[:-1] == v and (c := _factor(v[-1], o[-1])) is not None:
        return ("append", c)
    if len(o) == len(v) + 1 and o[1:] == v and (c := _factor(v[0], o[0])) is not None:
        return ("prepend", c)
    if len(o) == len(v):
        diff = [i for i, (a, b) in enumerate(zip(v, o, strict=True)) if a != b]
        if len(diff) == 1 and (c := _factor(v[diff[0]], o[diff[0]])) is not None:
            return ("entry", diff[0], c)
        steps = {o[i] - v[i] for i in diff}
        if len(diff) >= 2 and len(steps) == 1:
            return ("add", tuple(diff), steps.pop())
    return None


def _times(x: float, c: float, integer: bool) -> float:
    y = x * c
    return round(y) if integer else y


def apply(rel: Relation, value: Any, integer: bool) -> Any:
    """``rel`` applied to ``value`` (a number, or a tuple / list kept as such), entries rounded to
    integers when ``integer``; None where it cannot apply (too short a grid, a missing entry for an
    ``entry`` or ``add`` relation, a number for a grid's relation)."""
    op = rel[0]
    if _num(value):
        return _times(value, rel[1], integer) if op == "scale" else None
    if not _seq(value):
        return None
    v = list(value)
    if op == "scale":
        out = [_times(x, rel[1], integer) for x in v]
    elif op in ("drop_first", "drop_last"):
        if len(v) < 2:
            return None
        out = v[1:] if op == "drop_first" else v[:-1]
    elif op == "append":
        out = [*v, _times(v[-1], rel[1], integer)]
    elif op == "prepend":
        out = [_times(v[0], rel[1], integer), *v]
    elif op == "entry":
        i = rel[1]
        if i >= len(v):
            return None
        out = [*v[:i], _times(v[i], rel[2], integer), *v[i + 1 :]]
    else:  # add
        if max(rel[1]) >= len(v):
            return None
        out = [x + rel[2] if i in rel[1] else x for i, x in enumerate(v)]
    return type(value)(out)


def describe(rel: Relation) -> str:
    """The change in words."""
    op = rel[0]
    if op in ("drop_first", "drop_last"):
        return op.replace("_", " ")
    if op == "entry":
        return f"entry {rel[1]} x{rel[2]:.4g}"
    if op == "add":
        return f"entries {', '.join(map(str, rel[1]))} {rel[2]:+g}"
    return f"{op} x{rel[1]:.4g}"


__all__ = ["RTOL", "Relation", "apply", "describe", "relation"]
