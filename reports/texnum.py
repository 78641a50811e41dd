"""Numbers in the report's typography, as math-mode LaTeX (:func:`tex_num`): small integers as such
(``131\\,072`` with a thin space from 10^4), larger ones and magnitudes beyond float64 as
``m\\times10^{e}``; exact fractions with a small denominator and short decimals on the theory side;
three significant digits on the measured side. Its own module so that prose (:mod:`reports.mathtext`) and
table cells (:mod:`reports.typeset`) both use it and their imports go one way (typeset -> text).
"""

from __future__ import annotations

import math
from typing import Any

import mpmath

from bounds.mp import DPS, in_float_range, mp
from verify.core.format import fmt_sci

#: Denominators an exact theory value may print with (1/2, 2/3, 3/4, 1/8 ...).
FRACTIONS = (2, 3, 4, 8)


def is_real(x: Any) -> bool:
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


__all__ = ["FRACTIONS", "is_real", "tex_num"]
