"""Short human-readable renderings of result values, shared by the terminal table and the reports."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import mpmath

from bounds.mp import DPS, mp


class Count(NamedTuple):
    """``k`` successes in ``n`` trials: the measured side of a probability claim, printed ``k/n``."""

    k: int
    n: int

    def __str__(self) -> str:
        return f"{self.k}/{self.n}"


class Band(NamedTuple):
    """A rate claim's tolerance band ``p +- tol``: the theory side of its row."""

    p: float
    tol: float

    def __str__(self) -> str:
        return f"{self.p:g} +- {self.tol:g}"


class Estimate(NamedTuple):
    """A judged estimate with its 95% interval: a rate's exponent (``corrected`` when a correction
    model gave it) or a probability's success count ``k/n`` with its Clopper-Pearson bounds."""

    value: float
    lo: float
    hi: float
    corrected: bool = False
    count: Count | None = None

    def __str__(self) -> str:
        head = str(self.count) if self.count is not None else f"{self.value:.3f}"
        return f"{head} [{self.lo:.3f}, {self.hi:.3f}]" + (" (corrected)" if self.corrected else "")


def fmt_value(value: Any, digits: int = 3, limit: int = 60) -> str:
    """A compact string for a theory / measured value of any shape the results hold.

    numbers -> scientific notation (readable at 1e41 and 1e-400); a slope fit -> ``slope [lo, hi]``;
    a :class:`Count` (what :func:`shown` gives for a probability claim's ``[k, n]``) -> ``k/n``; other
    lists and dicts -> their items, cut at ``limit`` characters.
    """
    if value is None:
        return "--"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Count | Band | Estimate):
        return str(value)
    if isinstance(value, int):
        return str(value) if abs(value) < 10**6 else fmt_sci(value, digits)
    if isinstance(value, float) or type(value).__name__ == "mpf":
        return fmt_sci(value, digits)
    if isinstance(value, str):
        text = value
    elif isinstance(value, dict) and {"slope", "lo", "hi"} <= set(value):
        text = f"{value['slope']:.3f} [{value['lo']:.3f}, {value['hi']:.3f}]"
    elif isinstance(value, dict):
        text = ", ".join(f"{k}={fmt_value(v, digits, limit)}" for k, v in value.items())
    elif isinstance(value, list | tuple):
        text = "[" + ", ".join(fmt_value(v, digits, limit) for v in value) + "]"
    else:
        text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def fmt_params(params: dict[str, Any], limit: int = 60) -> str:
    """``k=v`` pairs sorted by name; floats in ``%.3g`` (parameters are inputs, not measurements)."""
    if not params:
        return "--"
    text = ", ".join(
        f"{k}={params[k]:.3g}" if isinstance(params[k], float) else f"{k}={fmt_value(params[k], limit=limit)}"
        for k in sorted(params)
    )
    return text if len(text) <= limit else text[: limit - 3] + "..."


def fmt_slack(slack: float | None) -> str:
    return "--" if slack is None else f"{slack:+.2f}"


def fmt_sci(x: Any, digits: int = 3) -> str:
    """Scientific notation readable at any magnitude: ``1.23e+41``, ``4.00e-400``, ``-inf``, ``nan``."""
    if x is None:
        return "--"
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    v = mp(x)
    if not mpmath.isfinite(v):
        return "nan" if mpmath.isnan(v) else ("inf" if v > 0 else "-inf")
    if v == 0:
        return f"{0:.{digits - 1}e}"
    with mpmath.workdps(DPS):
        sign = "-" if v < 0 else ""
        a = abs(v)
        e = int(mpmath.floor(mpmath.log10(a)))
        m = a / mpmath.power(10, e)
        m_r = round(float(m), digits - 1)
        if m_r >= 10:
            m_r /= 10
            e += 1
    return f"{sign}{m_r:.{digits - 1}f}e{e:+03d}"


def is_count(value: Any) -> bool:
    """``[k, n]`` with integers 0 <= k <= n, n >= 1 (a probability claim's successes and trials)."""
    return (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        and 0 <= value[0] <= value[1]
        and value[1] >= 1
    )


def shown(result: Any) -> tuple[Any, Any]:
    """The (theory, measured) pair a table prints for a result: the headline quantity of a
    multi-condition claim (the paper's slope or constant against its requirement); a rate claim's
    :class:`Band` against its judged :class:`Estimate`; a probability claim's target against ``k/n``
    with its Clopper-Pearson bounds; else the judged pair itself."""
    head = getattr(result, "headline", None)
    if head:
        return head["theory"], head["measured"]
    decision = getattr(result, "decision", None) or {}
    if decision.get("rule") == "rate" and "interval" in decision:
        lo, hi = decision["interval"]
        est = Estimate(decision["estimate"], lo, hi, corrected=bool(decision.get("corrected")))
        return Band(decision["exponent"], decision["tol"]), est
    measured = result.measured
    if str(getattr(result, "kind", "")) == "probability" and is_count(measured):
        if decision.get("rule") == "probability":
            lo, hi = decision["interval"]
            return result.theory, Estimate(measured[0] / measured[1], lo, hi, count=Count(*measured))
        measured = Count(*measured)
    return result.theory, measured


def fmt_resolution(res: dict[str, Any] | None) -> str:
    """A short rendering of an alternative's resolution (:mod:`verify.core.resolution`): ``3.21x of
    100x``, ``shift 0.31 of 0.5``, ``tau=0.1 (paper 1, alt. 0.01)``; ``--`` (and why) when there is none."""
    if not res:
        return "--"
    kind, value, declared = res.get("kind"), res.get("value"), res.get("declared")
    if value is None:
        return "-- (" + res.get("note", "none") + ")"
    if kind == "factor":
        return f"{value:.3g}x of {declared:g}x"
    if kind == "exponent shift":
        return f"shift {value:.3g} of {declared:g}"
    num = lambda x: f"{x:.4g}" if isinstance(x, float) else fmt_value(x)  # noqa: E731
    return f"{res.get('parameter')}={num(value)} (paper {num(res.get('paper'))}, alt. {num(declared)})"
