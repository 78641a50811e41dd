"""The typography of values in the report: one style for every number, in math mode.

- small integers as such (``131\\,072`` with a thin space from 10^4), larger ones and magnitudes beyond
  float64 (``1e400``) as ``m\\times10^{e}``;
- on the theory side (``exact=True``), exact fractions with a small denominator as fractions
  (``-\\tfrac{1}{2}``) and short decimals as written (``0.9``, ``10^{-10}``);
- measured values with three significant digits, fixed between 10^-2 and 10^3, scientific outside;
- a slope fit as ``slope [lo, hi]`` (three decimals), a pass window as ``[lo, hi]``, a probability's
  successes as ``k/n``, NaN as ``\\mathrm{NaN}``, a missing value as an en dash.

:func:`tex_num` returns math-mode content (no ``$``); :func:`cell` wraps a value for a table cell.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath

from bounds.mp import DPS, in_float_range, mp
from verify.core.format import Band, Count, Estimate, fmt_sci, is_count

#: Denominators an exact theory value may print with (1/2, 2/3, 3/4, 1/8 ...).
FRACTIONS = (2, 3, 4, 8)
DASH = "--"


def _is_real(x: Any) -> bool:
    return (isinstance(x, int | float) and not isinstance(x, bool)) or isinstance(x, mpmath.mpf)


def _group(n: int) -> str:
    s = str(abs(n))
    if len(s) > 4:
        s = r"\,".join(s[max(0, i - 3) : i] for i in range(len(s), 0, -3)[::-1])
    return ("-" if n < 0 else "") + s


def _short_decimal(v: Any) -> str | None:
    """The shortest decimal of a number (``repr``; mpmath's beyond float64) if it has at most 3
    significant digits, else None."""
    r = repr(float(v)) if in_float_range(v) else mpmath.nstr(mp(v), 15)
    digits = r.split("e")[0].lstrip("-").replace(".", "").strip("0")
    return r if len(digits) <= 3 else None


def tex_num(
    x: Any, *, exact: bool = False, digits: int = 3, strip: bool = False, fractions: bool | None = None
) -> str:
    """A real number as math-mode LaTeX (see the module docstring). exact: the value is a stated
    constant (theory side): fractions and short decimals print as such. strip: drop trailing zeros of the
    mantissa (a number quoted in prose keeps the digits it was written with). fractions: print exact
    fractions as such (default: ``exact``; a pass window's ends read better as decimals)."""
    if isinstance(x, float) and math.isnan(x):
        return r"\mathrm{NaN}"
    v = mp(x)
    if mpmath.isnan(v):
        return r"\mathrm{NaN}"
    if mpmath.isinf(v):
        return r"\infty" if v > 0 else r"-\infty"
    if v == 0:
        return "0"
    with mpmath.workdps(DPS):
        if v == mpmath.floor(v) and abs(v) < 10**6:
            return _group(int(v))
        if exact and (fractions is None or fractions):
            for q in FRACTIONS:
                p = v * q
                if abs(p) < 100 and abs(p - mpmath.nint(p)) <= 1e-12 * abs(p) and mpmath.nint(p) % q:
                    sign = "-" if v < 0 else ""
                    return rf"{sign}\tfrac{{{int(abs(mpmath.nint(p)))}}}{{{q}}}"
        if exact:
            short = _short_decimal(v)
            if short is not None and 1e-3 <= abs(v) < 1e4 and "e" not in short:
                return short
        e = int(mpmath.floor(mpmath.log10(abs(v))))
    if -2 <= e <= 3:
        decimals = max(0, digits - 1 - e)
        s = f"{float(v):.{decimals}f}"
        if strip and "." in s:
            s = s.rstrip("0").rstrip(".")
        return s
    mant, exp = fmt_sci(v, digits).split("e")
    if (strip or (exact and _short_decimal(v) is not None)) and "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    if mant in ("1", "-1"):
        return f"{mant[:-1]}10^{{{int(exp)}}}"
    return rf"{mant}\times10^{{{int(exp)}}}"


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
    from reports.text import prose

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
