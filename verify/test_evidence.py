"""Every verdict of a full quick run rests on positive evidence, checked over the results themselves:
a rate that holds has its 95% interval inside p +- tol, one that is violated has it outside; a
probability that holds has its Clopper-Pearson lower bound at or above the target, one that is
violated its upper bound below; nothing errs (the alternative worlds: verify/test_alternatives.py)."""

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
