"""What two or more of zhang2026's claim modules share (no claim module imports another; each imports
what it reads from here).

- Sources: where the THIRD-PARTY and QUESTION statements of the paper come from, and how reliable each
  source is (the ``source=`` of a claim; the docs and the report print it).
- Pass rules and choices that several claims declare alike (each claim lists the ones it reads).
- Rates: the rate conditions of claims over several curves or next to other conditions (below).
- Theorem 3.1's tails: the activations, the (C1, g) sweep point and the stable step of the tail claims.

Rates. Several claims judge one statement "X ~ T^p" on several curves (four examples times two
activations, three input laws, ...) or next to other conditions (a constant, a max-entry tolerance).
Each curve's :class:`~verify.numerics.fit.RateFit` is judged by the shared rate rule
(:mod:`verify.core.judge`), unchanged; this module only combines the verdicts:

- :func:`worst_rate`: a ``rate`` claim over several curves of one statement; the evidence is the
  least favourable curve's fit (violated before inconclusive before holds, then the smallest slack),
  so the claim holds iff the rule holds on every curve, and the table prints that curve's slope,
  interval and exponent. Every curve's outcome is in the notes.
- :class:`RateParts`: a multi-condition claim (:class:`~verify.core.conditions.Conditions`) with rate
  conditions: a curve the rule judges violated counts as a violated condition (r = 10^-slack > 1), one
  it judges inconclusive makes the claim inconclusive unless another condition is violated, and the
  headline is the least favourable rate (its exponent against the fitted slope).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from bounds import zhang2026 as B
from bounds.mp import to_float
from verify.core import FAILS, Choice, Conditions, Evidence, Kind, Rule, Verdict, decide
from verify.numerics.fit import RateFit, fit_rate
from verify.zhang2026 import experiments as E

# ------------------------------------------------------------------------------- sources
#: The four ICLR 2026 reviews: OpenReview forum ukiRIdgoIF (submission 23129); a public copy of all four
#: sits in the public repository index under id 62095747931. Class (A): independent reviewers.
REVIEWS = (
    "the ICLR 2026 OpenReview reviews of the paper (forum ukiRIdgoIF, submission 23129; public copy: "
    "repository index id 62095747931); class (A), independent reviewers"
)
#: An LLM-written English paper note (public repository index id 61482435700; a Chinese version is id
#: 60778695311). Class (B): an AI-generated summary, lower reliability.
NOTE = (
    "an LLM-written paper note on the paper (public repository index id 61482435700); class (B), an "
    "AI-generated summary, lower reliability"
)


def reviewers(what: str) -> str:
    """The reviews as the source of ``what`` (which reviewer states what)."""
    return f"{what}, in {REVIEWS}"


# ------------------------------------------------------------------------------- pass rules
SLOPE_CF = Rule(
    0.05,
    "rate rule: tolerance of the last local slope (over one decade) for closed-form (deterministic) curves",
    "reconstruction pass criterion (half-width of its tail-slope window)",
)
SLOPE_MC = Rule(
    0.1,
    "rate rule: tolerance of the last local slope for Monte Carlo and online-SGD curves",
    "reconstruction pass criterion (half-width of its tail-slope window)",
)
REDUCTION = Rule(
    1e-9,
    "max deviation of an exact reduction from full-matrix GD (round-off level)",
    "reconstruction pass criterion",
)
CONST_2PC = Rule(
    (0.98, 1.02), "T excess(T) / derived tail constant within 2%", "reconstruction pass criterion"
)
MC_Z = Rule(4.0, "max |Monte Carlo - closed form| in standard errors", "reconstruction pass criterion")
MAX_ENTRY = Rule(0.05, "max |A - S*| at T_max", "reconstruction pass criterion")


# ------------------------------------------------------------------------------- rates
_ORDER = (Verdict.ERROR, Verdict.VIOLATED, Verdict.INCONCLUSIVE, Verdict.HOLDS)
#: Time grids have PER_DECADE points per decade and every rate fit uses WINDOW points, so each local
#: slope spans one decade. With a 3-point window (1 residual degree of freedom, t quantile 12.7) the
#: last-range interval of a single deterministic curve is inflated by its curvature: a loss that
#: flattens onto a floor (local slopes -1.15, -0.83, -0.54) had the interval [-1.65, 0.58] and passed
#: "contains -1"; with 5 points (3 degrees of freedom) the same curve is violated.
PER_DECADE, WINDOW = 4, 5

#: The alternative world of the tail claims (their parameter ``step_decay``): the same training with a
#: step decaying like (1 + t / T_0)^-1/2 (:func:`verify.zhang2026.experiments.step_at`) instead of the
#: constant step of Thm 3.1.
DECAY_WORLD = (
    "a step decaying like (1 + t/T_0)^-1/2 (a standard schedule) instead of the theorem's constant step: "
    "the effective time grows like sqrt(T), so the excess decays like T^-1/2 and ||A - S*||_F like T^-1/4"
)


def fit_decades(x: np.ndarray, y: np.ndarray) -> RateFit:
    """:func:`~verify.numerics.fit.fit_rate` with a WINDOW-point window (one decade on a rate_times grid)."""
    return fit_rate(x, y, window=WINDOW)


def rate_times(T0: float, lo_T0: float, hi_T0: float, per_decade: int = PER_DECADE) -> np.ndarray:
    """Integer times T_0 10^(k / per_decade) from lo_T0 T_0 to hi_T0 T_0 (the rate rule's x grid)."""
    k = np.arange(round(per_decade * math.log10(lo_T0)), round(per_decade * math.log10(hi_T0)) + 1)
    return np.unique(np.round(T0 * 10.0 ** (k / per_decade)).astype(int))


def _judged(p: float, fit: RateFit, tol: float) -> tuple[Verdict, float | None, list[str]]:
    return decide(Kind.RATE, Evidence(theory=p, measured=fit, tol=tol))[:3]


def _rank(verdict: Verdict, slack: float | None) -> tuple[int, float]:
    return _ORDER.index(verdict), math.inf if slack is None else slack


def worst_rate(curves: Sequence[tuple[str, float, RateFit]], tol: float, **kw: Any) -> Evidence:
    """Rate evidence for one statement over several curves ``(name, exponent, fit)``: the least favourable
    curve's fit under the shared rate rule (see the module docstring); notes list every curve."""
    if not curves:
        raise ValueError("worst_rate needs at least one curve")
    rows = [(name, p, fit, *_judged(p, fit, tol)) for name, p, fit in curves]
    name, p, fit, verdict, _, _ = min(rows, key=lambda r: _rank(r[3], r[4]))
    notes = [
        f"rate rule on every curve (tolerance {tol:g}); shown: {name} ({verdict}), the least favourable",
        *(
            f"{n}: {v}, slope {f.slope:.4f} CI [{f.lo:.4f}, {f.hi:.4f}] vs {q:g}; local slopes "
            + ", ".join(f"{s:.3f}" for s in f.local)
            for n, q, f, v, _, _ in rows
        ),
        *kw.pop("notes", []),
    ]
    return Evidence(theory=p, measured=fit, tol=tol, notes=notes, **kw)


class RateParts(Conditions):
    """:class:`Conditions` plus rate conditions judged by the shared rate rule (module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.rates: list[tuple[str, Verdict, float | None]] = []
        self.r_of: dict[str, float] = {}  # normalised violation of every named condition

    def window(self, name: str, x: float, lo: float, hi: float) -> None:
        super().window(name, x, lo, hi)
        self.r_of[name] = self.r[-1]

    def tol(self, name: str, x: float, tol: float) -> None:
        super().tol(name, x, tol)
        self.r_of[name] = self.r[-1]

    def atleast(self, name: str, x: float, low: float) -> None:
        super().atleast(name, x, low)
        self.r_of[name] = self.r[-1]

    def worst_name(self) -> str:
        """The named condition with the largest normalised violation (a headline for claims whose
        conditions are one quantity at several points, e.g. a constant at several D)."""
        if not self.r_of:
            raise ValueError("no named condition was judged")
        return max(self.r_of, key=lambda n: self.r_of[n])

    def rate(self, name: str, fit: RateFit, p: float, tol: float) -> Verdict:
        """Judge ``fit`` against exponent ``p`` with tolerance ``tol``; returns the rule's verdict."""
        verdict, slack, notes = _judged(p, fit, tol)
        if verdict == Verdict.HOLDS:
            r = 0.0 if slack is None else min(10.0 ** (-slack), 1.0)
        elif verdict == Verdict.VIOLATED:
            r = FAILS if slack is None else max(10.0 ** (-slack), 1.0 + 1e-12)
        else:
            r = 0.0
        self.values[name] = (p, fit.slope)
        self.r.append(r)
        self.r_of[name] = r
        self.rates.append((name, verdict, slack))
        self.notes.append(f"{name}: rate rule {verdict}; " + "; ".join(notes))
        return verdict

    def worst_rate_name(self) -> str:
        """The least favourable rate condition (the claim's headline)."""
        if not self.rates:
            raise ValueError("no rate condition was judged")
        return min(self.rates, key=lambda r: _rank(r[1], r[2]))[0]

    def evidence(self, headline: str | None = None, **kw: Any) -> Evidence:
        """As :meth:`Conditions.evidence`, headline defaulting to the least favourable rate; inconclusive
        when a rate is inconclusive and no condition is violated."""
        if headline is None and self.rates:
            headline = self.worst_rate_name()
        ev = super().evidence(headline=headline, **kw)
        pending = [n for n, v, _ in self.rates if v == Verdict.INCONCLUSIVE]
        if pending and not ev.measured > 1.0 and ev.inconclusive is None:
            ev.inconclusive = "the rate rule is inconclusive (not yet asymptotic) for: " + "; ".join(pending)
        return ev


# ------------------------------------------------------------------------------- shared choices
#: The rate rule's half-width for Monte Carlo and online-SGD curves (competing exponent -1/2).
SLOPE_MC_CHOICE = Choice(
    SLOPE_MC,
    range=(0.05, 0.25),
    reason="the rate rule's half-width for Monte Carlo / SGD curves: from half ours to 0.25, half "
    "the distance to the competing exponent -1/2",
)
#: The rate rule's half-width for closed-form curves (competing exponent -1/2).
SLOPE_CF_CHOICE = Choice(
    SLOPE_CF,
    range=(0.025, 0.25),
    reason="the rate rule's half-width: from half ours to 0.25, half the distance to the competing "
    "exponent -1/2",
)
#: What "A -> S*" asks of the largest entry of A - S* at a finite T_max.
MAX_ENTRY_CHOICE = Choice(
    MAX_ENTRY, range=(0.02, 0.1), reason="what 'A -> S*' asks at a finite T_max: from 2% to 10% of an entry"
)
#: How close T excess(T) must come to the derived tail constant at a finite T_max.
CONST_CHOICE = Choice(
    CONST_2PC,
    options=((0.99, 1.01), (0.98, 1.02), (0.95, 1.05)),
    reason="how close T excess must be to the derived limit at a finite T_max: 1%, 2% (ours) or 5%",
)
#: ||V*||_F, online batch and horizon of the runs on fresh mini-batches (SGD protocol, input laws,
#: full TF).
SGD_VNORM = Choice(
    4.0, range=(3.0, 8.0), reason="||V*||_F is ours: 3 (1.8x the steps) to the paper profile's 8"
)
SGD_BATCH = Choice(
    100,
    range=(50, 300),
    reason="the online batch (the paper profile's 1000 is the long end): half ours to 3x (the cost)",
)
SGD_TMAX_T0 = Choice(1000, range=(300, 3000), reason="the horizon in T_0: a third of ours to 3x (the cost)")


# ------------------------------------------------------------------------------- Theorem 3.1's tails
#: The activations of the Thm 3.1 tail claims: linear sigma and leaky ReLU (slope 0.1).
ACTS = ("linear", "leaky")


def curve_point(
    D: int, K: int, eta: float, v2: float, act: str, times: np.ndarray, t_decay: float = 0.0
) -> E.CurvePoint:
    """The (C1, g) sweep point of D, K, eta, v2 = ||V*||_F^2 and ``act`` at unit input variance, sampled
    at ``times``; t_decay: the step schedule (0: constant)."""
    return E.CurvePoint(D, K, eta, 1.0, v2, act, tuple(int(t) for t in times), t_decay)


def stable_step(D: int, K: int, v2: float) -> float:
    """The largest stable constant step of the (C1, g) dynamics, 2 / curvature of both: 4 x
    bounds.zhang2026.eta_heuristic = 2 min(K / D, D K / ||V*||_F^2) (sx2 = 1; derivation Sect. 6.9)."""
    return 4.0 * to_float(B.eta_heuristic(D, K, 1.0, v2))
