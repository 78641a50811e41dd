"""Every verdict of a full quick run rests on positive evidence, checked over the results themselves:
a rate that holds has its 95% interval inside p +- tol, one that is violated has it outside; a
probability that holds has its Clopper-Pearson lower bound at or above the target, one that is
violated its upper bound below; an upper / lower bound judged on an interval holds by its hard side
and is violated by the other end, and records which; nothing errs (the alternative worlds:
verify/test_alternatives.py)."""

from __future__ import annotations

import pytest

from tests.support import builtin_registry, cached_run
from verify.core import Verdict


@pytest.mark.parametrize("cid", sorted(builtin_registry()))
def test_the_verdict_rests_on_evidence_for_it(cid: str, profile: str) -> None:
    r = cached_run(cid, profile, 0)
    assert r.verdict != Verdict.ERROR, r.notes
    d = r.decision or {}
    if d.get("rule") == "rate" and r.verdict in (Verdict.HOLDS, Verdict.VIOLATED):
        (lo, hi), (blo, bhi) = d["interval"], d["band"]
        inside = blo <= lo and hi <= bhi
        outside = hi < blo or lo > bhi
        assert inside if r.verdict == Verdict.HOLDS else outside, (cid, d)
        assert d["tol"] > 0 and bhi - blo == pytest.approx(2 * d["tol"])
    if d.get("rule") == "probability" and r.verdict in (Verdict.HOLDS, Verdict.VIOLATED):
        lo, hi = d["interval"]
        assert lo >= d["target"] if r.verdict == Verdict.HOLDS else hi < d["target"], (cid, d)
    if d.get("rule") in ("upper", "lower") and "interval" in d:
        upper = d["rule"] == "upper"
        assert d["hard_side"] == ("upper end" if upper else "lower end"), (cid, d)
        assert d["sided"] in ("one-sided", "two-sided") and 0 < d["level"] < 1, (cid, d)
        (lo, hi), t = d["interval"], d["theory"]
        if r.verdict == Verdict.HOLDS:
            assert d["side"] == d["hard_side"] and (hi <= t if upper else lo >= t), (cid, d)
        if r.verdict == Verdict.VIOLATED:
            assert d["side"] != d["hard_side"] and (lo > t if upper else hi < t), (cid, d)


#: Claims whose measured value is a Monte-Carlo mean or a fitted slope with an interval: they are judged
#: on its hard side, never on a confidence limit passed as the measured value.
HARD_SIDE_CLAIMS = (
    "deora2023.gen.derived",
    "deora2023.gen.derived.steps",
    "wu2023.alpha.conc",
    "wu2023.lazy",
)


@pytest.mark.parametrize("cid", HARD_SIDE_CLAIMS)
def test_monte_carlo_bounds_are_judged_on_the_hard_side(cid: str, profile: str) -> None:
    r = cached_run(cid, profile, 0)
    d = r.decision or {}
    assert "interval" in d and d.get("hard_side") == "upper end", (cid, d)
    lo, hi = d["interval"]
    assert lo <= r.measured <= hi and lo < hi, (cid, d)
