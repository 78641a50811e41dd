"""Claims with several pass conditions at once (a slope window AND a constant AND a tolerance ...).

Each condition k gets a normalised violation r_k (<= 1 means it holds): ``|x - centre| / half-width``
for a window, ``|x| / tol`` for a tolerance, ``low / x`` for a lower threshold, 0 or "infinitely
violated" for an exact check. The evidence is an ``upper`` claim with theory 1 and measured
max_k r_k, so the shared upper rule judges it: it holds iff every condition holds, and the slack is the
margin of the tightest condition. Every r_k is listed in the notes. A NaN r_k makes the evidence
non-finite (verdict ``error``), never a pass.

The claim names its headline condition (``evidence(headline=name)``): the paper's quantity (a slope,
a constant) and its requirement, which the tables print instead of "theory 1, measured max r".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from verify.core.record import Evidence

#: r of a condition that fails outright (an exact check, or a threshold on a non-positive value).
FAILS = 1e12


class Conditions:
    """Collects the normalised violations r_k of a multi-condition claim and their notes."""

    def __init__(self) -> None:
        self.r: list[float] = []
        self.notes: list[str] = []
        self.values: dict[str, tuple[Any, float]] = {}  # name -> (requirement, value)

    def window(self, name: str, x: float, lo: float, hi: float) -> None:
        """x must lie in [lo, hi]."""
        c, h = (lo + hi) / 2, (hi - lo) / 2
        r = abs(x - c) / h
        self.values[name] = ([lo, hi], x)
        self.r.append(r)
        self.notes.append(f"{name} = {x:.6g}, required in [{lo:g}, {hi:g}] (r = {r:.3g})")

    def tol(self, name: str, x: float, tol: float) -> None:
        """|x| must be at most tol."""
        r = abs(x) / tol
        self.values[name] = (tol, x)
        self.r.append(r)
        self.notes.append(f"{name} = {x:.3g}, tolerance {tol:g} (r = {r:.3g})")

    def atleast(self, name: str, x: float, low: float) -> None:
        """x must be at least low > 0."""
        r = low / x if x > 0 else FAILS
        self.values[name] = (low, x)
        self.r.append(r)
        self.notes.append(f"{name} = {x:.3g}, required > {low:g} (r = {r:.3g})")

    def exact(self, name: str, ok: bool, detail: str = "") -> None:
        """A yes/no condition."""
        self.r.append(0.0 if ok else FAILS)
        self.notes.append(f"{name}: {'exact' if ok else 'FAILS'} {detail}".strip())

    def evidence(self, headline: str | None = None, **kw: Any) -> Evidence:
        """Upper-kind evidence: theory 1, measured max_k r_k (NaN if any r_k is NaN); headline: the
        condition whose requirement and value the tables print; other keywords go to :class:`Evidence`."""
        if not self.r:
            raise ValueError("a multi-condition claim needs at least one condition")
        notes = [*kw.pop("notes", []), *self.notes]
        head = None
        if headline is not None:
            if headline not in self.values:
                raise ValueError(
                    f"headline {headline!r} is not a window / tol / atleast condition: {list(self.values)}"
                )
            req, x = self.values[headline]
            head = {"name": headline, "theory": req, "measured": x}
        worst = float(np.max(np.asarray(self.r, dtype=np.float64)))  # NaN-propagating, unlike max()
        return Evidence(theory=1.0, measured=worst, notes=notes, headline=head, **kw)
