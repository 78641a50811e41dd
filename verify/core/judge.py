"""The verdict rules -- one per :class:`~verify.core.record.Kind`, and nowhere else.

Slack is log10 of the margin, oriented so that positive means "holds with room", 0 means "on the
edge" and negative means "fails by that many orders of magnitude":

=============  ==========================================  ===========================================
kind           holds when                                  slack
=============  ==========================================  ===========================================
upper          measured <= theory (+ round-off margin)     log10(theory / measured)
lower          measured >= theory (- round-off margin)     log10(measured / theory)
two-sided      lo <= measured <= hi (theory = [lo, hi])    log10(half-width / |measured - centre|)
rate           see "The rate rule" below                   log10(CI half-width / |slope - p|), or
                                                           log10(tol / |last local slope - p|)
condition      required <= reachable                       log10(reachable / required); else vacuous
probability    exact binomial test does not reject p>=p0   log10(p-value / alpha)
identity       |measured - theory| <= rtol |theory|        log10(rtol |theory| / |measured - theory|)
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

The rate rule (one rule for every "X scales like n^p" statement; measured is a
:class:`~verify.numerics.fit.RateFit`, ``Evidence.tol`` the claim's stated tolerance):

1. the interval of the last-range fit contains p and its half-width is at most ``tol`` (an
   uninformative interval, e.g. from one curve and a 3-point window, never confirms alone): ``holds``;
2. fewer than two local slopes: ``inconclusive`` (too short to see a trend);
3. the last local slope is within ``tol`` of p, and the local slopes either move monotonically toward
   p (pre-asymptotic, converging) or have settled (the last step within ``tol / 2``, or the last three
   local slopes all within ``tol`` of p: scatter around p): ``holds``;
4. otherwise, if the interval excludes p (the last range is inconsistent with p; a wide interval
   containing p never gives a violation) and there are at least three local slopes s_1..s_n: the
   curve has *settled* when its last two steps shrink in the same direction (0 < q < 1,
   q = (s_n - s_{n-1}) / (s_{n-1} - s_{n-2})) or its last step moved by at most ``tol / 2``; its
   limit is extrapolated two ways: a slow correction s_i = L + c / ln x_i (least squares over the
   local slopes, x_i the centre of window i: a log factor) and a fast one (Aitken,
   s_n + (s_n - s_{n-1}) q / (1 - q), when 0 < q < 1; else s_n). If it has settled and every
   extrapolated limit lies more than ``tol`` from p on the same side: ``violated`` (settled away from
   p); so is a curve whose last three local slopes move away from p, the last more than ``tol`` from
   it;
5. otherwise ``inconclusive``: not yet asymptotic.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np

from bounds.mp import DPS, log10, mp
from verify.core.format import fmt_sci
from verify.core.record import Evidence, Kind, Verdict
from verify.numerics.fit import RateFit, SlopeFit
from verify.numerics.stats import ALPHA, binomial_test

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


def _rate(p: float, fit: RateFit, tol: float | None) -> tuple[Verdict, float | None, list[str]]:
    """The rate rule of the module docstring."""
    if tol is None or not tol > 0:
        raise ValueError(
            f"rate evidence must state its tolerance tol > 0 for the last local slope, got {tol}"
        )
    local = np.asarray(fit.local)
    notes = [
        f"last {fit.window} points: slope {fit.slope:.4f}, {fit.level:.0%} CI [{fit.lo:.4f}, {fit.hi:.4f}] "
        f"({fit.method}); claimed exponent {p:g}, tolerance {tol:g}",
        "local slopes: " + ", ".join(f"{v:.3f}" for v in local),
    ]
    half, dist = (fit.hi - fit.lo) / 2, abs(fit.slope - p)
    if fit.contains(p) and half <= tol:
        return Verdict.HOLDS, (log10(half / dist) if dist > 0 and half > 0 else None), notes
    if fit.contains(p):
        notes.append(f"the interval contains {p:g} but is wider than +-{tol:g}: it alone cannot confirm")
    if local.size < 2:
        return Verdict.INCONCLUSIVE, None, [*notes, "inconclusive: too few ranges to see a trend"]
    d = np.abs(local - p)
    last = float(d[-1])
    slack = log10(tol / last) if last > 0 else None
    if last <= tol and bool(np.all(np.diff(d) <= 0)):
        return Verdict.HOLDS, slack, [*notes, f"local slopes converge toward {p:g} (pre-asymptotic)"]
    if last <= tol and (abs(float(local[-1] - local[-2])) <= tol / 2 or bool(np.all(d[-3:] <= tol))):
        return Verdict.HOLDS, slack, [*notes, f"local slopes settled within {tol:g} of {p:g}"]
    if fit.contains(p):  # the last range is consistent with p: the data cannot reject it
        return Verdict.INCONCLUSIVE, None, [*notes, "inconclusive: not yet asymptotic"]
    if local.size >= 3 and last > tol and d[-1] > d[-2] > d[-3]:
        return Verdict.VIOLATED, slack, [*notes, f"local slopes move away from {p:g} over the last ranges"]
    limits = _limits(fit, local, tol)
    if limits and all(abs(L - p) > tol for L in limits) and len({L > p for L in limits}) == 1:
        shown = ", ".join(f"{L:.3f}" for L in limits)
        return Verdict.VIOLATED, slack, [*notes, f"local slopes settled away from {p:g} (limits {shown})"]
    return Verdict.INCONCLUSIVE, None, [*notes, "inconclusive: not yet asymptotic"]


def _limits(fit: RateFit, local: np.ndarray, tol: float) -> list[float]:
    """The extrapolated limits of settled local slopes (rule 4), or [] when they have not settled."""
    if local.size < 3:
        return []
    step, prev = float(local[-1] - local[-2]), float(local[-2] - local[-3])
    q = step / prev if prev != 0 else math.inf
    if not (0 < q < 1 or abs(step) <= tol / 2):
        return []
    lx = np.log(np.asarray(fit.x, dtype=np.float64))
    slow = float(local[-1])  # no log-factor model without the sizes, or for sizes below 1
    if lx.size == local.size + fit.window - 1:
        centres = np.array([lx[i : i + fit.window].mean() for i in range(local.size)])
        if np.all(centres > 0):
            slow = float(np.polyfit(1 / centres, local, 1)[1])
    fast = float(local[-1] + step * q / (1 - q)) if 0 < q < 1 else float(local[-1])
    return [slow, fast]


def judge(kind: Kind, ev: Evidence) -> tuple[Verdict, float | None, list[str]]:
    """Return (verdict, slack, notes) for evidence of the given kind."""
    notes: list[str] = []
    if _infinite_bound(kind, ev):
        what = "bound" if kind == Kind.UPPER else "required size"
        return Verdict.VACUOUS, None, [f"the {what} is infinite (mpmath.inf), so it says nothing here"]
    for name in ("theory", "measured", "trivial", "headline"):
        where = _nonfinite(getattr(ev, name), name)
        if where is not None:
            return Verdict.ERROR, None, [f"non-finite value (NaN or inf) in the evidence: {where}"]
    if ev.worst is not None:
        notes.append(ev.worst.verdict_note())
    if ev.failed:
        return Verdict.OUT_OF_REGIME, None, [f"assumption failed: {f}" for f in ev.failed]
    if ev.inconclusive:
        return Verdict.INCONCLUSIVE, None, [f"inconclusive: {ev.inconclusive}"]
    rtol = ROUNDOFF_RTOL if ev.rtol is None else ev.rtol
    if kind in (Kind.UPPER, Kind.LOWER):
        verdict, slack = _bound(ev.theory, ev.measured, rtol, upper=kind == Kind.UPPER)
        if verdict == Verdict.VIOLATED:
            rel = "above the upper" if kind == Kind.UPPER else "below the lower"
            notes.append(f"measured {fmt_sci(ev.measured)} is {rel} bound {fmt_sci(ev.theory)}")
        if ev.rtol is not None:
            notes.append(f"tolerance stated by the claim: rtol = {ev.rtol:g}")
        if kind == Kind.UPPER and ev.trivial is not None and mp(ev.theory) >= mp(ev.trivial):
            notes.append("the bound is at or above the trivial value, so it says nothing here")
            if verdict == Verdict.HOLDS:
                return Verdict.VACUOUS, slack, notes
        return verdict, slack, notes
    if kind == Kind.TWO_SIDED:
        lo, hi = (float(v) for v in ev.theory)
        m = float(ev.measured)
        ok = lo - rtol * abs(lo) <= m <= hi + rtol * abs(hi)
        return (Verdict.HOLDS if ok else Verdict.VIOLATED), _window(m, lo, hi), notes
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
            return Verdict.HOLDS, slack, notes
        return (
            Verdict.VACUOUS,
            slack,
            [f"the condition needs {fmt_sci(ev.theory)}, beyond the reachable {fmt_sci(ev.measured)}"],
        )
    if kind == Kind.PROBABILITY:
        k, n = (int(v) for v in ev.measured)
        test = binomial_test(k, n, float(ev.theory), ALPHA if ev.alpha is None else ev.alpha)
        notes.append(
            f"{k}/{n} successes vs claimed p >= {test.p0:g}: one-sided exact p-value "
            f"{test.pvalue:.3g} (alpha {test.alpha:g})"
        )
        slack = log10(test.pvalue / test.alpha) if test.pvalue > 0 else None
        return (Verdict.VIOLATED if test.rejected else Verdict.HOLDS), slack, notes
    if kind == Kind.IDENTITY:
        if ev.rtol is None:
            raise ValueError("identity evidence must state its relative tolerance rtol")
        with mpmath.workdps(DPS):
            t, m = mp(ev.theory), mp(ev.measured)
            err, allowed = abs(m - t), ev.rtol * abs(t) if t != 0 else mp(ev.rtol)
            ok = err <= allowed
        notes.append(f"relative tolerance {ev.rtol:g}")
        return (Verdict.HOLDS if ok else Verdict.VIOLATED), _log_ratio(allowed, err), notes
    if kind == Kind.QUALITATIVE:
        if not isinstance(ev.measured, bool):
            raise TypeError(f"qualitative evidence must carry a bool, got {type(ev.measured).__name__}")
        return (Verdict.HOLDS if ev.measured else Verdict.VIOLATED), None, notes
    raise ValueError(f"unknown kind {kind!r}")
