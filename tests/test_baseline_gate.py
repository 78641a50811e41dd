"""CI's tightness gate: every claim, quick profile, seed 0, against the committed baseline."""

from __future__ import annotations

import pytest

from reports.baseline import DEFAULT_BASELINE, check_baseline
from tests.support import cached_run
from verify.core.registry import registry


def test_claims_match_the_committed_baseline(profile: str) -> None:
    """Fails when a verdict changed, a slack shrank by more than the tolerance, or an entry is
    missing or new (`attncheck baseline update` rewrites the baseline deliberately)."""
    if profile != "quick":
        pytest.skip("the committed baseline is of the quick profile")
    results = [cached_run(cid, "quick", 0) for cid in registry()]
    report = check_baseline(results, DEFAULT_BASELINE)
    assert report.ok, "\n" + report.table()
