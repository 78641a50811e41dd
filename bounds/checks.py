"""Input validation shared by the theory and experiment sides.

Every public function of attncheck that takes sizes, scales or data calls one of these, so bad input
raises a ``ValueError`` / ``TypeError`` that names the parameter and the allowed range, never a NaN.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Real):
        return True
    return type(value).__name__ == "mpf"


def check_int(name: str, value: Any, *, low: int | None = 1, high: int | None = None) -> int:
    """Return ``value`` as int if it is an integer in ``[low, high]``; otherwise raise."""
    if not _is_int(value):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value}")
    return value


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
    ``check_real("eta", eta, low=0, low_open=True)`` for ``eta in (0, inf)``.
    """
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    x = float(value)
    if not np.isfinite(x):
        raise ValueError(f"{name} must be finite, got {value!r}")
    too_low = low is not None and (x <= low if low_open else x < low)
    too_high = high is not None and (x >= high if high_open else x > high)
    if too_low or too_high:
        lb = "(" if low_open or low is None else "["
        hb = ")" if high_open or high is None else "]"
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        raise ValueError(f"{name} must lie in {lb}{lo}, {hi}{hb}, got {value!r}")
    return x


def check_positive(name: str, value: Any) -> float:
    """A finite real > 0 (step sizes, scales, tolerances)."""
    return check_real(name, value, low=0.0, low_open=True)


def check_prob(name: str, value: Any, *, open_ends: bool = True) -> float:
    """A probability; in (0, 1) by default (failure probabilities delta), [0, 1] otherwise."""
    return check_real(name, value, low=0.0, high=1.0, low_open=open_ends, high_open=open_ends)


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> Any:
    """``value`` must be one of ``choices``."""
    allowed = tuple(choices)
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def check_array(
    name: str,
    value: Any,
    *,
    ndim: int | None = None,
    shape: tuple[int | None, ...] | None = None,
) -> np.ndarray:
    """A finite float64 array with the given ``ndim`` / ``shape`` (``None`` entries are free)."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real array, got {type(value).__name__}") from exc
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {arr.shape}")
    if shape is not None:
        if arr.ndim != len(shape) or any(
            s is not None and s != a for s, a in zip(shape, arr.shape, strict=True)
        ):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name} must have shape {want}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; it has {int(np.sum(~np.isfinite(arr)))} NaN/inf")
    return arr
