"""mpmath helpers: bound formulas evaluated so that 1e400 and 1e-400 are numbers, not inf or 0.

Theory functions return ``mpmath.mpf`` whenever a magnitude may leave float64's range; consumers use
:func:`log10` and :func:`to_float` instead of ``float()`` so nothing silently becomes ``inf`` or ``0``
(display formatting lives with the CLI and the reports, :mod:`verify.core.format`).
"""

from __future__ import annotations

import copyreg
from typing import Any

import mpmath

#: Working precision (decimal digits) of all bound evaluations.
DPS = 30

mpf = mpmath.mpf
MpReal = Any  # mpmath.mpf; typed loosely because mpmath ships no stubs


def _exact_mpf(raw: tuple) -> MpReal:
    """The mpf of the raw value ``raw`` (sign, mantissa, exponent, bits), not rounded."""
    return mpmath.mp.make_mpf(raw)


# mpmath unpickles an mpf rounded to the unpickling process's precision (53 bits by default), so a bound
# at DPS digits that crossed to a worker process, or a kept sweep point read back, lost digits and a
# slack differed in its last bit between a serial and a parallel run. Pickled by its raw value instead.
copyreg.pickle(type(mpf(0)), lambda x: (_exact_mpf, (x._mpf_,)))


def mp(x: Any) -> MpReal:
    """Convert a Python / NumPy real or an ``mpf`` to ``mpf`` at :data:`DPS` digits."""
    with mpmath.workdps(DPS):
        return mpmath.mpf(float(x)) if hasattr(x, "dtype") else mpmath.mpf(x)


def log10(x: Any) -> float:
    """log10 of a positive real (float or mpf) as a float; exact for 1e400 and 1e-400."""
    v = mp(x)
    if v <= 0:
        raise ValueError(f"log10 needs a positive number, got {x!r}")
    with mpmath.workdps(DPS):
        return float(mpmath.log10(v))


#: The smallest positive float64 (a subnormal, 2**-1074) and the largest.
FLOAT_TINY = mpf(2) ** -1074
FLOAT_MAX = mpf("1.7976931348623157e308")


def in_float_range(x: Any) -> bool:
    """True when ``x`` is 0 or its magnitude lies in float64's range, subnormals included
    ([2**-1074, 1.8e308]): it converts to a finite float64 that is not 0."""
    v = mp(x)
    return v == 0 or FLOAT_TINY <= abs(v) <= FLOAT_MAX


def to_float(x: Any) -> float:
    """``float(x)`` that refuses to overflow or underflow silently."""
    if not in_float_range(x):
        raise OverflowError(f"{mpmath.nstr(mp(x), 4)} is outside float64 range; keep it as mpf")
    return float(x)
