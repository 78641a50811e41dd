"""Verdicts on positive evidence: the claim battery (:mod:`verify.testing`, check ``verdict``) checks every
claim's decision (a rate that holds has its 95% interval inside p +- tol, one that is violated has it
outside; a probability that holds has its Clopper-Pearson lower bound at or above the target, one that
is violated its upper bound below; an upper / lower bound judged on an interval holds by its hard side
and is violated by the other end, and records which). Here: the claims whose Monte-Carlo mean or fitted
slope must be judged on an interval do record one."""

from __future__ import annotations

import pytest

from verify.testing import cached_run

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
