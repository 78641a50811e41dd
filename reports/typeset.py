"""The typography of values in the report: one style for every number, in math mode.

- small integers as such (``131\\,072`` with a thin space from 10^4), larger ones and magnitudes beyond
  float64 (``1e400``) as ``m\\times10^{e}``;
- on the theory side (``exact=True``), exact fractions with a small denominator as fractions
  (``-\\tfrac{1}{2}``) and short decimals as written (``0.9``, ``10^{-10}``);
- measured values with three significant digits, fixed between 10^-2 and 10^3, scientific outside;
- a slope fit as ``slope [lo, hi]`` (three decimals), a pass window as ``[lo, hi]``, a probability's
  successes as ``k/n``, NaN as ``\\mathrm{NaN}``, a missing value as an en dash.

Numbers go through :func:`reports.texnum.tex_num` (math-mode content, no ``$``).
"""

from __future__ import annotations

from typing import Any

import mpmath

from bounds.mp import DPS, mp
from reports.mathtext import prose
from reports.texnum import is_real as _is_real
from reports.texnum import tex_num
from verify.core.format import Band, Count, Estimate, fmt_sci, is_count

DASH = "--"


def _is_fit(v: Any) -> bool:
    return isinstance(v, dict) and {"slope", "lo", "hi"} <= set(v)


def tex_value(value: Any, *, exact: bool = False) -> str:
    """Any theory / measured value as LaTeX (text mode; math inside ``$...$``)."""
    if value is None:
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Count):
        return f"${value.k}/{value.n}$"
    if isinstance(value, Band):
        return rf"${tex_num(value.p, exact=True)} \pm {tex_num(value.tol, exact=True)}$"
    if isinstance(value, Estimate):
        head = f"{value.count.k}/{value.count.n}" if value.count is not None else f"{value.value:.3f}"
        cell = rf"${head}\;[{value.lo:.3f}, {value.hi:.3f}]$"
        return cell + (r" {\scriptsize corrected}" if value.corrected else "")
    if _is_real(value):
        return f"${tex_num(value, exact=exact)}$"
    if _is_fit(value):
        s, lo, hi = (f"{float(value[k]):.3f}" for k in ("slope", "lo", "hi"))
        return rf"${s}\;[{lo}, {hi}]$"
    if isinstance(value, list | tuple) and len(value) == 2 and all(_is_real(v) for v in value):
        lo, hi = (tex_num(v, exact=exact, fractions=False) for v in value)
        return f"$[{lo}, {hi}]$"
    if isinstance(value, list | tuple) and not value:
        return r"$[\,]$"
    if isinstance(value, list | tuple) and all(_is_real(v) for v in value):
        return "$[" + ", ".join(tex_num(v, exact=exact) for v in value) + "]$"
    if isinstance(value, dict):
        return ", ".join(f"{prose(str(k))}: {tex_value(v, exact=exact)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(tex_value(v, exact=exact) for v in value)
    return prose(str(value))


def param_value(value: Any) -> str:
    """A parameter (an input, stated exactly): sequences as tuples ``(20, 40, 80)``, never as intervals."""
    if isinstance(value, list | tuple):
        if not value:
            return r"$()$"
        if all(_is_real(v) for v in value):
            return "$(" + ", ".join(tex_num(v, exact=True, fractions=False) for v in value) + ")$"
        return "(" + ", ".join(param_value(v) for v in value) + ")"
    if _is_real(value):
        return f"${tex_num(value, exact=True, fractions=False)}$"
    return tex_value(value, exact=True)


def theory_cell(result: Any, theory: Any) -> str:
    """The theory value of a row: exact constants, a pass window as an interval."""
    return tex_value(theory, exact=True)


#: Within this relative distance of a bound, a measured value prints as its ratio to the bound.
AT_BOUND_RTOL = 1e-3


def at_bound(theory: Any, measured: Any) -> str | None:
    """A measured value at its bound as LaTeX: ``= bound`` when equal, ``bound (1 - 4.0e-7)`` within
    :data:`AT_BOUND_RTOL` (a rounded 1.000 would hide which side it is on); None otherwise."""
    if not (_is_real(theory) and _is_real(measured)) or mp(theory) == 0:
        return None
    with mpmath.workdps(DPS):
        r = mp(measured) / mp(theory) - 1
        if r == 0:
            return r"$=$ bound"
        if abs(r) >= AT_BOUND_RTOL:
            return None
        mant, exp = fmt_sci(abs(r), 2).split("e")
    sign = "-" if r < 0 else "+"
    return rf"bound$\,(1 {sign} {mant}\times10^{{{int(exp)}}})$"


def measured_cell(result: Any, measured: Any) -> str:
    """The measured value of a row: a probability claim's ``[k, n]`` as ``k/n``, a fit with its interval,
    a value at its bound as its ratio to it (:func:`at_bound`)."""
    if str(getattr(result, "kind", "")) == "probability" and is_count(measured):
        measured = Count(*measured)
    if str(getattr(result, "kind", "")) in ("upper", "lower") and not getattr(result, "headline", None):
        near = at_bound(getattr(result, "theory", None), measured)
        if near is not None:
            return near
    return tex_value(measured)


__all__ = [
    "AT_BOUND_RTOL",
    "DASH",
    "at_bound",
    "measured_cell",
    "param_value",
    "tex_num",
    "tex_value",
    "theory_cell",
]
