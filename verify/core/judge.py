"""The verdict rules -- one per :class:`~verify.core.record.Kind`, and nowhere else.

Slack is log10 of the margin, oriented so that positive means "holds with room", 0 means "on the
edge" and negative means "fails by that many orders of magnitude":

=============  ==========================================  ===========================================
kind           holds when                                  slack
=============  ==========================================  ===========================================
upper          measured <= theory (+ round-off margin);    log10(theory / measured); with an interval:
               with an interval: its upper end <= theory   log10(theory / upper end), violated:
               ("The hard-side rule")                      log10(theory / lower end)
lower          measured >= theory (- round-off margin);    log10(measured / theory); with an interval
               with an interval: its lower end >= theory   the mirror (lower end / theory, ...)
two-sided      lo <= measured <= hi (theory = [lo, hi])    log10(half-width / |measured - centre|)
rate           the interval lies inside [p - tol, p + tol]   log10(tol / farthest end's distance to p);
               (an equivalence test; "The rate rule")      violated: log10(tol / nearest end's)
condition      required <= reachable                       log10(reachable / required); else vacuous
probability    Clopper-Pearson lower bound >= 1 - delta    log10(delta / (1 - lower bound)); violated:
                                                           log10(delta / (1 - upper bound))
identity       |measured - theory| <= rtol |theory|        log10(rtol |theory| / |measured - theory|)
               (scalars; arrays are a TypeError)
qualitative    measured is True                            none
=============  ==========================================  ===========================================

Round-off margin of upper/lower bounds: :data:`ROUNDOFF_RTOL` relative to the larger magnitude, i.e.
the accumulated float64 error of the O(1e4)-deep reductions the reference models perform; a claim
uses another value only when it states one (its rule, recorded in the result). An upper bound whose
theory value reaches ``Evidence.trivial`` (e.g. a loss bound above the initial loss) is ``vacuous``.
For two negative values (e.g. "slope <= -0.3") the log ratio is of the magnitudes, oriented the same
way; slack that is undefined (mixed signs, measured exactly 0, exact identities) is ``None``.

Violation is checked before vacuity: a violated bound that is also at or above its trivial value is
``violated`` (with a note). A NaN or an infinity anywhere in the evidence (theory, measured, trivial,
headline) is ``error`` naming where; the one documented infinity is an ``mpmath.inf`` theory of an
upper bound or a condition ("the bound / the required size is infinite"), which is ``vacuous``.

The hard-side rule (an upper / lower bound whose measured value carries sampling error, e.g. a
Monte-Carlo mean or a fitted slope; ``Evidence.interval`` is its :class:`~verify.core.record.Interval`
and ``measured`` the point estimate inside it): for an upper bound

1. the interval's upper end is at or below the bound: ``holds`` (the hard side: evidence for);
2. its lower end is above the bound: ``violated`` (evidence against);
3. otherwise ``inconclusive``: "the interval straddles the bound: more samples";

mirrored for a lower bound (holds: lower end >= bound; violated: upper end < bound). The round-off
margin moves the bound in the claim's favour as above. The decision records the end that decided
(``side``: "upper end", "lower end" or "both ends" when inconclusive), the hard side of the kind
(``hard_side``), the interval, its ``level`` and whether it is ``sided`` one- or two-sided. An
alternative world that tightens the bound (:class:`~verify.core.record.Alternative`, ``factor``) is
judged by the same rule. Without an interval the measured value is exact up to round-off and the
table's first rule applies.

The rate rule (one rule for every "X scales like n^p" statement; measured is a
:class:`~verify.numerics.fit.RateFit`, ``Evidence.tol`` the claim's stated tolerance, at most half the
distance from p to the nearest competing exponent its record names, so that "holds" separates the
paper's rate from that alternative): an equivalence test on the ``level`` interval of the headline
exponent (the last-range slope pooled over seeds, or the exponent of the claim's explicit correction
model, :class:`~verify.numerics.fit.Corrected`):

1. the interval lies inside the band [p - tol, p + tol]: ``holds`` (evidence for the rate);
2. the interval lies entirely outside the band: ``violated`` (evidence against it);
3. otherwise ``inconclusive``, saying why: "interval too wide" (wider than the band: more seeds or
   sizes) or "straddles the band edge".

The local slopes are printed as information and decide nothing.

The probability rule ("with probability >= 1 - delta"; measured is [k, n] successes and trials): the
one-sided ``level`` Clopper-Pearson bounds of the success rate: ``holds`` iff the lower bound is at
least 1 - delta, ``violated`` iff the upper bound is below it, else ``inconclusive`` (more trials).

:func:`decide` also returns what decided as data (``Result.decision``): the rule, its branch, the
estimate and its interval with its ``level`` and ``sided`` (rate: two-sided; probability: one-sided
bounds; a bound: its evidence's), and the band or target it was held against.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import mpmath
import numpy as np

from bounds.mp import DPS, log10, mp
from verify.core.format import fmt_sci
from verify.core.record import Evidence, Interval, Kind, Verdict
from verify.numerics.fit import RateFit, SlopeFit
from verify.numerics.stats import clopper_pearson

#: Relative float64 round-off margin for upper and lower bounds (see module docstring).
ROUNDOFF_RTOL = 1e-10


def _log_ratio(num: Any, den: Any) -> float | None:
    """log10(num / den) for two positive numbers; log10(|den| / |num|) for two negative ones (so
    "measured <= theory < 0" keeps the orientation: more negative measured = more room); else None."""
    n, d = mp(num), mp(den)
    if n > 0 and d > 0:
        return log10(n / d)
    if n < 0 and d < 0:
        return log10(d / n)
    return None


def _bound(theory: Any, measured: Any, rtol: float, upper: bool) -> tuple[Verdict, float | None]:
    with mpmath.workdps(DPS):
        t, m = mp(theory), mp(measured)
        margin = rtol * max(abs(t), abs(m))
        ok = m <= t + margin if upper else m >= t - margin
    slack = _log_ratio(t, m) if upper else _log_ratio(m, t)
    return (Verdict.HOLDS if ok else Verdict.VIOLATED), slack


#: The end of an interval that must clear the bound for ``holds`` (the hard side), per kind.
HARD_SIDE = {Kind.UPPER: "upper end", Kind.LOWER: "lower end"}


def _hard_side(kind: Kind, ev: Evidence, rtol: float) -> tuple[Verdict, float | None, str, str, list[str]]:
    """The hard-side rule of the module docstring: (verdict, slack, branch, side used, notes)."""
    iv = ev.interval
    if not isinstance(iv, Interval):
        raise TypeError(f"Evidence.interval must be an Interval, got {type(iv).__name__}")
    with mpmath.workdps(DPS):
        t, m, lo, hi = mp(ev.theory), mp(ev.measured), mp(iv.lo), mp(iv.hi)
        if not lo <= m <= hi:
            raise ValueError(
                f"Evidence.measured ({fmt_sci(ev.measured)}) must be the point estimate inside its interval "
                f"[{iv.lo:.6g}, {iv.hi:.6g}]"
            )

        def beyond(end: Any) -> Any:  # the bound moved by the round-off margin, in the claim's favour
            margin = rtol * max(abs(t), abs(end))
            return t + margin if kind == Kind.UPPER else t - margin

        if kind == Kind.UPPER:
            holds, violated = hi <= beyond(hi), lo > beyond(lo)
        else:
            holds, violated = lo >= beyond(lo), hi < beyond(hi)
    hard, easy = ("upper end", "lower end") if kind == Kind.UPPER else ("lower end", "upper end")
    rel = "at or below" if kind == Kind.UPPER else "at or above"
    if holds:
        verdict, side, branch = Verdict.HOLDS, hard, f"the interval's {hard} is {rel} the bound"
        slack = _log_ratio(t, hi) if kind == Kind.UPPER else _log_ratio(lo, t)
    elif violated:
        past = "above" if kind == Kind.UPPER else "below"
        verdict, side, branch = Verdict.VIOLATED, easy, f"the interval's {easy} is {past} the bound"
        slack = _log_ratio(t, lo) if kind == Kind.UPPER else _log_ratio(hi, t)
    else:
        verdict, side, branch = (
            Verdict.INCONCLUSIVE,
            "both ends",
            "the interval straddles the bound: more samples",
        )
        slack = None
    notes = [
        f"measured {fmt_sci(ev.measured)}, {iv.sided} {iv.level:.0%} interval [{fmt_sci(iv.lo)}, "
        f"{fmt_sci(iv.hi)}], against the {kind} bound {fmt_sci(ev.theory)} (judged on the hard side: "
        f"holds needs the {hard} {rel} it, violated the {easy} beyond it)",
        f"{verdict}: {branch}",
    ]
    return verdict, slack, branch, side, notes


def _window(value: float, lo: float, hi: float) -> float | None:
    if not lo <= hi:
        raise ValueError(f"interval must have lo <= hi, got [{lo}, {hi}]")
    half, dist = (hi - lo) / 2, abs(value - (lo + hi) / 2)
    if dist == 0 or half == 0:
        return None
    return log10(half / dist) if half > 0 else None


def _nonfinite(value: Any, where: str) -> str | None:
    """Where a NaN or an infinity sits in ``value`` (numbers, arrays, mpf, lists, dicts, fits)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None
    if isinstance(value, SlopeFit):
        return _nonfinite(value.as_dict(), where)
    if isinstance(value, dict):
        return next((w for k, v in value.items() if (w := _nonfinite(v, f"{where}[{k!r}]"))), None)
    if isinstance(value, list | tuple):
        return next((w for i, v in enumerate(value) if (w := _nonfinite(v, f"{where}[{i}]"))), None)
    if hasattr(value, "shape") and getattr(value, "shape", ()) != ():
        arr = np.asarray(value, dtype=np.float64)
        bad = np.argwhere(~np.isfinite(arr))
        return f"{where}[{tuple(int(i) for i in bad[0])}]" if bad.size else None
    if isinstance(value, mpmath.mpf):
        return None if mpmath.isfinite(value) else where
    try:
        return None if math.isfinite(float(value)) else where
    except (TypeError, ValueError):
        return None


def _infinite_bound(kind: Kind, ev: Evidence) -> bool:
    t = ev.theory
    return kind in (Kind.UPPER, Kind.CONDITION) and isinstance(t, mpmath.mpf) and mpmath.isinf(t) and t > 0


class Judgement(NamedTuple):
    """A verdict, its slack, the notes that explain it, and what decided it as data."""

    verdict: Verdict
    slack: float | None
    notes: list[str]
    decision: dict[str, Any]


def _rate(p: float, fit: RateFit, tol: float | None) -> Judgement:
    """The rate rule of the module docstring."""
    if tol is None or not tol > 0:
        raise ValueError(f"rate evidence must state its tolerance tol > 0 (the band around p), got {tol}")
    est, lo, hi = fit.estimate
    band = (p - tol, p + tol)
    what = "the corrected exponent" if fit.corrected is not None else f"the last {fit.window} points' slope"
    notes = [
        f"{what} {est:.4f}, {fit.level:.0%} CI [{lo:.4f}, {hi:.4f}] against {p:g} +- {tol:g} "
        f"(band [{band[0]:.4f}, {band[1]:.4f}])",
        f"last {fit.window} points: slope {fit.slope:.4f}, CI [{fit.lo:.4f}, {fit.hi:.4f}] ({fit.method})",
        "local slopes (information, they decide nothing): " + ", ".join(f"{v:.3f}" for v in fit.local),
    ]
    if fit.corrected is not None:
        c = fit.corrected
        notes.append(f"correction model log y = c + p log x + a x^-{c.q:g} over every point: a = {c.a:.4g}")
    dist = (abs(lo - p), abs(hi - p))
    if band[0] <= lo and hi <= band[1]:
        verdict, branch = Verdict.HOLDS, "interval inside the band"
        slack = log10(tol / max(dist)) if max(dist) > 0 else None
    elif hi < band[0] or lo > band[1]:
        verdict, branch = Verdict.VIOLATED, "interval outside the band"
        slack = log10(tol / min(dist))
    elif hi - lo > 2 * tol:
        verdict, branch, slack = Verdict.INCONCLUSIVE, "interval too wide: more seeds or sizes", None
    else:
        verdict, branch, slack = Verdict.INCONCLUSIVE, "interval straddles the band edge", None
    notes.append(f"{verdict}: {branch}")
    decision = {
        "rule": "rate", "branch": branch, "estimate": est, "interval": [lo, hi], "level": fit.level,
        "sided": "two-sided", "exponent": p, "tol": tol, "band": list(band),
        "corrected": fit.corrected is not None, "raw_slope": fit.slope,
        "interval_from": (fit.corrected or fit).interval, "n": fit.n_judged, "dof": fit.dof_judged,
    }  # fmt: skip
    return Judgement(verdict, slack, notes, decision)


def _probability(p0: float, k: int, n: int) -> Judgement:
    """The probability rule of the module docstring."""
    cp = clopper_pearson(k, n)
    delta = 1.0 - p0
    if cp.lo >= p0:
        verdict, branch, side = Verdict.HOLDS, "lower confidence bound at or above the target", "lower end"
        slack = log10(delta / (1 - cp.lo)) if delta > 0 and cp.lo < 1 else None
    elif cp.hi < p0:
        verdict, branch, side = Verdict.VIOLATED, "upper confidence bound below the target", "upper end"
        slack = log10(delta / (1 - cp.hi)) if delta > 0 else None
    else:
        verdict, branch, slack = Verdict.INCONCLUSIVE, "the interval contains the target: more trials", None
        side = "both ends"
    notes = [
        f"{k}/{n} successes: one-sided {cp.level:.0%} Clopper-Pearson bounds [{cp.lo:.4f}, {cp.hi:.4f}] "
        f"against the claimed probability >= {p0:g}",
        f"{verdict}: {branch}",
    ]
    decision = {
        "rule": "probability", "branch": branch, "estimate": k / n, "interval": [cp.lo, cp.hi],
        "level": cp.level, "sided": "one-sided", "hard_side": "lower end", "side": side, "target": p0,
        "k": k, "n": n,
    }  # fmt: skip
    return Judgement(verdict, slack, notes, decision)


def judge(kind: Kind, ev: Evidence) -> tuple[Verdict, float | None, list[str]]:
    """Return (verdict, slack, notes) for evidence of the given kind (:func:`decide` without the
    decision record)."""
    return decide(kind, ev)[:3]


def decide(kind: Kind, ev: Evidence) -> Judgement:
    """The :class:`Judgement` of evidence of the given kind: verdict, slack, notes and decision."""
    notes: list[str] = []
    if ev.interval is not None and kind not in (Kind.UPPER, Kind.LOWER):
        raise ValueError(
            f"Evidence.interval applies to upper / lower bounds, not {kind} (a rate carries its interval "
            "in its RateFit, a probability its successes and trials)"
        )
    if _infinite_bound(kind, ev):
        what = "bound" if kind == Kind.UPPER else "required size"
        return Judgement(
            Verdict.VACUOUS,
            None,
            [f"the {what} is infinite (mpmath.inf), so it says nothing here"],
            {"rule": str(kind), "branch": f"the {what} is infinite"},
        )
    for name in ("theory", "measured", "trivial", "headline"):
        where = _nonfinite(getattr(ev, name), name)
        if where is not None:
            return Judgement(
                Verdict.ERROR,
                None,
                [f"non-finite value (NaN or inf) in the evidence: {where}"],
                {"rule": str(kind), "branch": f"non-finite value in {where}"},
            )
    if ev.worst is not None:
        notes.append(ev.worst.verdict_note())
    if ev.failed:
        return Judgement(
            Verdict.OUT_OF_REGIME,
            None,
            [f"assumption failed: {f}" for f in ev.failed],
            {"rule": str(kind), "branch": "a premise failed", "failed": list(ev.failed)},
        )
    if ev.inconclusive:
        return Judgement(
            Verdict.INCONCLUSIVE,
            None,
            [f"inconclusive: {ev.inconclusive}"],
            {"rule": str(kind), "branch": f"inconclusive: {ev.inconclusive}"},
        )
    rtol = ROUNDOFF_RTOL if ev.rtol is None else ev.rtol
    if kind in (Kind.UPPER, Kind.LOWER):
        extra: dict[str, Any] = {}
        if ev.interval is not None:
            verdict, slack, branch, used, hard_notes = _hard_side(kind, ev, rtol)
            notes.extend(hard_notes)
            iv = ev.interval
            extra = {
                "estimate": ev.measured, "interval": [iv.lo, iv.hi], "level": iv.level,
                "sided": iv.sided, "hard_side": HARD_SIDE[kind], "side": used, "theory": ev.theory,
            }  # fmt: skip
        else:
            verdict, slack = _bound(ev.theory, ev.measured, rtol, upper=kind == Kind.UPPER)
            if verdict == Verdict.VIOLATED:
                rel = "above the upper" if kind == Kind.UPPER else "below the lower"
                notes.append(f"measured {fmt_sci(ev.measured)} is {rel} bound {fmt_sci(ev.theory)}")
            side = "measured <= bound" if kind == Kind.UPPER else "measured >= bound"
            branch = side if verdict == Verdict.HOLDS else f"not {side}"
        if ev.rtol is not None:
            notes.append(f"tolerance stated by the claim: rtol = {ev.rtol:g}")
        if kind == Kind.UPPER and ev.trivial is not None and mp(ev.theory) >= mp(ev.trivial):
            notes.append("the bound is at or above the trivial value, so it says nothing here")
            if verdict == Verdict.HOLDS:
                return Judgement(
                    Verdict.VACUOUS,
                    slack,
                    notes,
                    {"rule": str(kind), "branch": "bound at or above the trivial value", "rtol": rtol}
                    | extra,
                )
        return Judgement(verdict, slack, notes, {"rule": str(kind), "branch": branch, "rtol": rtol} | extra)
    if kind == Kind.TWO_SIDED:
        lo, hi = (float(v) for v in ev.theory)
        m = float(ev.measured)
        ok = lo - rtol * abs(lo) <= m <= hi + rtol * abs(hi)
        return Judgement(
            Verdict.HOLDS if ok else Verdict.VIOLATED,
            _window(m, lo, hi),
            notes,
            {"rule": str(kind), "branch": "inside" if ok else "outside", "band": [lo, hi]},
        )
    if kind == Kind.RATE:
        if not isinstance(ev.measured, RateFit):
            raise TypeError(
                "rate evidence must carry a RateFit (verify.numerics.fit.fit_rate) as measured, got "
                f"{type(ev.measured).__name__}"
            )
        return _rate(float(ev.theory), ev.measured, ev.tol)
    if kind == Kind.CONDITION:
        slack = _log_ratio(ev.measured, ev.theory)
        if mp(ev.theory) <= mp(ev.measured):
            return Judgement(
                Verdict.HOLDS, slack, notes, {"rule": str(kind), "branch": "required <= reachable"}
            )
        return Judgement(
            Verdict.VACUOUS,
            slack,
            [f"the condition needs {fmt_sci(ev.theory)}, beyond the reachable {fmt_sci(ev.measured)}"],
            {"rule": str(kind), "branch": "required > reachable"},
        )
    if kind == Kind.PROBABILITY:
        k, n = (int(v) for v in ev.measured)
        return _probability(float(ev.theory), k, n)
    if kind == Kind.IDENTITY:
        if ev.rtol is None:
            raise ValueError("identity evidence must state its relative tolerance rtol")
        for name in ("theory", "measured"):
            value = getattr(ev, name)
            if isinstance(value, list | tuple) or np.ndim(value) != 0:
                raise TypeError(
                    f"identity evidence takes scalars: {name} is of type {type(value).__name__}, shape "
                    f"{np.shape(value)}; reduce arrays to one number first, e.g. judge the relative "
                    "norm error ||measured - theory|| / ||theory|| as an upper bound against the tolerance"
                )
        with mpmath.workdps(DPS):
            t, m = mp(ev.theory), mp(ev.measured)
            err, allowed = abs(m - t), ev.rtol * abs(t) if t != 0 else mp(ev.rtol)
            ok = err <= allowed
        notes.append(f"relative tolerance {ev.rtol:g}")
        return Judgement(
            Verdict.HOLDS if ok else Verdict.VIOLATED,
            _log_ratio(allowed, err),
            notes,
            {"rule": str(kind), "branch": "within rtol" if ok else "beyond rtol", "rtol": ev.rtol},
        )
    if kind == Kind.QUALITATIVE:
        if not isinstance(ev.measured, bool):
            raise TypeError(f"qualitative evidence must carry a bool, got {type(ev.measured).__name__}")
        return Judgement(
            Verdict.HOLDS if ev.measured else Verdict.VIOLATED,
            None,
            notes,
            {"rule": str(kind), "branch": "observed" if ev.measured else "not observed"},
        )
    raise ValueError(f"unknown kind {kind!r}")
