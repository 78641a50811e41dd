"""Short human-readable renderings of result values, shared by the terminal table and the reports."""

from __future__ import annotations

from typing import Any

from bounds.mp import fmt_sci


def fmt_value(value: Any, digits: int = 3, limit: int = 60) -> str:
    """A compact string for a theory / measured value of any shape the results hold.

    numbers -> scientific notation (readable at 1e41 and 1e-400); a slope fit -> ``slope [lo, hi]``;
    ``[k, n]`` counts -> ``k/n``; other lists and dicts -> their items, cut at ``limit`` characters.
    """
    if value is None:
        return "--"
    if isinstance(value, bool):
        return "yes" if value else "no"
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
