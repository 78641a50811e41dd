"""Input validation shared by the theory and experiment sides.

Every public function of attncheck that takes sizes, scales or data calls one of these, so bad input
raises a ``ValueError`` / ``TypeError`` that names the parameter and the allowed range, never a NaN.

The theory side's public functions are also wrapped in :func:`finite_result`, so a formula evaluated in
float64 never returns NaN or infinity: inputs whose result leaves float64's range raise
:class:`ResultRangeError` (a ``ValueError``) naming every parameter, and the one documented infinity is
``mpmath.inf`` (a bound or a required size that is infinite), allowed only where the function says so.
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import mpmath
import numpy as np

#: The largest integer a size may take: every integer up to it converts to a finite float64.
MAX_INT = int(np.finfo(np.float64).max)

F = TypeVar("F", bound=Callable[..., Any])


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)


def _is_real(value: Any) -> bool:
    if isinstance(value, bool | np.bool_):
        return False
    if isinstance(value, numbers.Real):
        return True
    return type(value).__name__ == "mpf"


def _fmt_bound(x: float | int) -> str:
    return _fmt_int(x) if isinstance(x, int) else shown(x)


def _fmt_int(x: int) -> str:
    """An integer for a message, never converted to float or to a string of thousands of digits."""
    if abs(x) < 10**15:
        return str(x)
    with mpmath.workdps(15):
        return mpmath.nstr(mpmath.mpf(x), 3)


def shown(value: Any, limit: int = 60) -> str:
    """``value`` for an error message: one line of at most ``limit`` characters, never empty, built
    without converting it to float (an integer of 400 digits, an mpf of 1e400) or printing an array."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}, dtype {value.dtype}"
    if isinstance(value, bool | np.bool_):
        return repr(bool(value))
    if isinstance(value, numbers.Integral):
        return _fmt_int(int(value))
    if isinstance(value, mpmath.mpf):
        return mpmath.nstr(value, 8)
    try:
        text = repr(value)
    except Exception:  # e.g. a list holding an integer of more than 4300 digits
        text = ""
    text = " ".join(text.split())
    if not text:
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_int(name: str, value: Any, *, low: int | None = 1, high: int | None = None) -> int:
    """Return ``value`` as int if it is an integer in ``[low, high]``; otherwise raise.

    ``high`` defaults to :data:`MAX_INT` (an integer beyond float64's range is never a size).
    """
    if not _is_int(value):
        raise TypeError(f"{name} must be an integer, got {_typed(value)}")
    value = int(value)
    lo = "-inf" if low is None else _fmt_bound(low)
    if (low is not None and value < low) or (high is not None and value > high):
        hi = "inf" if high is None else _fmt_bound(high)
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {_fmt_int(value)}")
    if abs(value) > MAX_INT:
        hi = _fmt_bound(MAX_INT)
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}] (float64 range), got {_fmt_int(value)}")
    return value


def _range_error(name: str, value: Any, low: Any, high: Any, low_open: bool, high_open: bool) -> ValueError:
    lb = "(" if low_open or low is None else "["
    hb = ")" if high_open or high is None else "]"
    lo = "-inf" if low is None else _fmt_limit(low)
    hi = "inf" if high is None else _fmt_limit(high)
    return ValueError(f"{name} must lie in {lb}{lo}, {hi}{hb}, got {shown(value)}")


def _typed(value: Any) -> str:
    """``value`` with its type for a TypeError (an array's shape says its type already)."""
    return shown(value) if isinstance(value, np.ndarray) else f"{type(value).__name__} {shown(value)}"


def _fmt_limit(x: Any) -> str:
    """An interval's end (a float, an int or an mpf) as ``%g`` prints it; mpmath's form beyond float64."""
    with mpmath.workdps(15):
        v = mpmath.mpf(x)
        if mpmath.isfinite(v) and abs(v) < mpmath.mpf("1e300") and (v == 0 or abs(v) > mpmath.mpf("1e-300")):
            return f"{float(v):g}"
        return mpmath.nstr(v, 6)


def check_real(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as float if it is a finite real in the interval; otherwise raise.

    ``low_open`` / ``high_open`` exclude the endpoint, e.g. a step size uses
    ``check_real("eta", eta, low=0, low_open=True)`` for ``eta in (0, inf)``. An integer (or mpf)
    beyond float64's range is refused as not finite.
    """
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number, got {_typed(value)}")
    try:
        x = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be finite (within float64 range), got a number beyond it") from None
    if not np.isfinite(x):
        raise ValueError(f"{name} must be finite, got {shown(value)}")
    too_low = low is not None and (x <= low if low_open else x < low)
    too_high = high is not None and (x >= high if high_open else x > high)
    if too_low or too_high:
        raise _range_error(name, value, low, high, low_open, high_open)
    return x


def check_real_mp(
    name: str,
    value: Any,
    *,
    low: Any = None,
    high: Any = None,
    low_open: bool = False,
    high_open: bool = False,
) -> Any:
    """As :func:`check_real` for a quantity evaluated with mpmath: returns an ``mpf`` (30 digits) and
    accepts magnitudes beyond float64 (an int 10**400, an mpf 1e-400); the interval is checked exactly,
    not after rounding to float64."""
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number, got {_typed(value)}")
    with mpmath.workdps(30):
        x = mpmath.mpf(float(value)) if isinstance(value, np.floating) else mpmath.mpf(value)
        if not mpmath.isfinite(x):
            raise ValueError(f"{name} must be finite, got {shown(value)}")
        too_low = low is not None and (x <= low if low_open else x < low)
        too_high = high is not None and (x >= high if high_open else x > high)
    if too_low or too_high:
        raise _range_error(name, x, low, high, low_open, high_open)
    return x


def check_positive(name: str, value: Any) -> float:
    """A finite real > 0 (step sizes, scales, tolerances)."""
    return check_real(name, value, low=0.0, low_open=True)


def check_prob(name: str, value: Any, *, open_ends: bool = True) -> float:
    """A probability; in (0, 1) by default (failure probabilities delta), [0, 1] otherwise."""
    return check_real(name, value, low=0.0, high=1.0, low_open=open_ends, high_open=open_ends)


def check_bool(name: str, value: Any) -> bool:
    """A flag: ``True`` / ``False`` (or a NumPy bool), not 0 / 1 or a string."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {_typed(value)}")
    return bool(value)


def _same_choice(value: Any, choice: Any) -> bool:
    if isinstance(value, bool | np.bool_) != isinstance(choice, bool | np.bool_):
        return False  # True is not the choice 1.0, 1 is not the choice True
    if isinstance(choice, str):
        return isinstance(value, str) and value == choice
    if _is_real(choice):
        return _is_real(value) and bool(value == choice)
    return value is choice or (type(value) is type(choice) and bool(value == choice))


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> Any:
    """``value`` must be one of ``choices`` (a bool never matches a number, an array never matches)."""
    allowed = tuple(choices)
    if not any(_same_choice(value, c) for c in allowed):
        raise ValueError(f"{name} must be one of {allowed}, got {shown(value)}")
    return value


def check_array(
    name: str,
    value: Any,
    *,
    ndim: int | None = None,
    shape: tuple[int | None, ...] | None = None,
    nonempty: bool = False,
    low: float | None = None,
    match: str | None = None,
) -> np.ndarray:
    """A finite float64 array with the given ``ndim`` / ``shape`` (``None`` entries are free).

    ``nonempty``: every axis has length >= 1; ``low``: every entry is >= ``low``; ``match``: the
    parameter(s) whose sizes fixed ``shape``, named in the error too (a mismatch is either's fault).
    Complex, string and date arrays are refused (NumPy would drop the imaginary part or parse the
    strings).
    """
    if value is None or isinstance(value, str | bytes):
        raise TypeError(f"{name} must be a real array, got {type(value).__name__}")
    try:
        raw = value if isinstance(value, np.ndarray) else np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged nesting
        raise TypeError(f"{name} must be a real array, got {type(value).__name__}") from exc
    if raw.dtype.kind in "cSUVMm":
        raise TypeError(f"{name} must be a real array, got dtype {raw.dtype}")
    try:
        arr = np.asarray(raw, dtype=np.float64)
    except OverflowError:
        raise ValueError(f"{name} must be finite; it has a number beyond float64 range") from None
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real array, got {type(value).__name__}") from exc
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {arr.shape}")
    if shape is not None:
        if arr.ndim != len(shape) or any(
            s is not None and s != a for s, a in zip(shape, arr.shape, strict=True)
        ):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            agree = f" to agree with {match}" if match else ""
            raise ValueError(f"{name} must have shape {want}{agree}, got {arr.shape}")
    if nonempty and 0 in arr.shape:
        raise ValueError(f"{name} must be non-empty, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; it has {int(np.sum(~np.isfinite(arr)))} NaN/inf")
    if low is not None and arr.size and float(np.min(arr)) < low:
        raise ValueError(f"{name} must have entries >= {low:g}, got min {float(np.min(arr)):g}")
    return arr


def check_steps(name: str, value: Any, *, ndim: int | None = None) -> np.ndarray:
    """Step counts: a finite array of non-negative whole numbers (as float64; ``ndim`` if given).

    A fractional step is refused rather than truncated or raised to a fractional power."""
    arr = check_array(name, value, ndim=ndim, low=0.0)
    if np.any(arr != np.floor(arr)):
        raise ValueError(f"{name} must hold whole step counts >= 0, got {arr[arr != np.floor(arr)][0]!r}")
    return arr


def check_blocks(name: str, value: Any, keys: Iterable[str], *, low: float | None = 0.0) -> dict[str, float]:
    """A mapping with exactly the keys ``keys`` whose values are finite reals >= ``low``."""
    want = tuple(keys)
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping with keys {want}, got {type(value).__name__}")
    if set(value) != set(want):
        raise ValueError(f"{name} must have exactly the keys {want}, got {tuple(value)}")
    return {k: check_real(f"{name}[{k!r}]", value[k], low=low) for k in want}


# ---------------------------------------------------------------------------------------------------
# finite results
# ---------------------------------------------------------------------------------------------------


class ResultRangeError(ValueError):
    """A formula's value at valid inputs is not a finite float64 (the inputs are too large for it)."""


def _nonfinite(x: Any, may_be_inf: bool) -> bool:
    """True when ``x`` holds a NaN or an infinity (``mpmath.inf`` allowed when ``may_be_inf``)."""
    if isinstance(x, bool | np.bool_ | str) or x is None:
        return False
    if isinstance(x, mpmath.mpf):
        return not (mpmath.isfinite(x) or (may_be_inf and x == mpmath.inf))
    if isinstance(x, mpmath.mpc):
        return True  # a complex value from a real formula is never a bound
    if isinstance(x, Mapping):
        return any(_nonfinite(v, may_be_inf) for v in x.values())
    if isinstance(x, list | tuple):
        return any(_nonfinite(v, may_be_inf) for v in x)
    if hasattr(x, "__dataclass_fields__"):
        return any(_nonfinite(getattr(x, f), may_be_inf) for f in x.__dataclass_fields__)
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            return any(_nonfinite(v, may_be_inf) for v in x.ravel())
        return not bool(np.all(np.isfinite(x)))
    if isinstance(x, numbers.Number):
        return not bool(np.isfinite(x))
    return False


def _show(v: Any) -> str:
    if isinstance(v, np.ndarray):
        if v.size and v.dtype.kind in "biuf":
            return f"array{v.shape} (max |x| {float(np.max(np.abs(v.astype(np.float64)))):.3g})"
        return f"array{v.shape}"
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, mpmath.mpf):
        return mpmath.nstr(v, 6)
    return shown(v, 40)


def finite_result(fn: F | None = None, *, may_be_inf: bool = False) -> Any:
    """Decorator of the theory side's public functions: the result (numbers, arrays, mpf, and the
    tuples / lists / dicts / dataclasses holding them) is finite, or :class:`ResultRangeError` names
    every parameter. Float64 overflow or underflow inside the formula (``OverflowError`` of ``**`` or
    ``math``, a ``ZeroDivisionError`` by an underflowed denominator, NumPy overflow, a LAPACK routine
    failing on the resulting infinities or singular matrix) becomes the same error. (A division by an
    exact zero that validation should have refused would be reported the same way; the bounds fuzz
    test fails on such an error at moderate input.)
    ``may_be_inf``: the function documents ``mpmath.inf`` (recorded as ``wrapper.may_be_inf``).
    The values returned for valid input are unchanged (NumPy's floating-point warnings are silenced
    inside: a NaN or an infinity they would have warned about is refused instead)."""

    def wrap(f: F) -> F:
        sig = inspect.signature(f)
        where = f"{f.__module__.rsplit('.', 1)[-1]}.{f.__name__}"

        def fail(args: tuple[Any, ...], kwargs: dict[str, Any]) -> ResultRangeError:
            try:
                bound = sig.bind(*args, **kwargs)
                shown = ", ".join(f"{k}={_show(v)}" for k, v in bound.arguments.items())
            except TypeError:
                shown = "the given arguments"
            return ResultRangeError(
                f"{where}: no finite float64 value at {shown} (NaN, overflow or underflow): the inputs "
                "are outside the range this formula can be evaluated in"
            )

        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                    out = f(*args, **kwargs)
            except (OverflowError, ZeroDivisionError, ResultRangeError, np.linalg.LinAlgError):
                raise fail(args, kwargs) from None
            if _nonfinite(out, may_be_inf):
                raise fail(args, kwargs)
            return out

        wrapper.may_be_inf = may_be_inf  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return wrap(fn) if fn is not None else wrap
