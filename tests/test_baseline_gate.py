"""CI's tightness gate: every claim of the papers the committed baseline covers (the built-in ones, not
a plugin installed beside them), quick profile, seed 0, against the committed baseline."""

from __future__ import annotations

import pytest

from tests.support import cached_runs
from verify.core.gate import DEFAULT_BASELINE, baseline_papers, check_baseline
from verify.core.registry import registry


def test_claims_match_the_committed_baseline(profile: str) -> None:
    """Fails when a verdict changed, a slack shrank by more than the tolerance, or an entry is
    missing or new (`attncheck baseline update` rewrites the baseline deliberately)."""
    if profile != "quick":
        pytest.skip("the committed baseline is of the quick profile")
    papers = baseline_papers(DEFAULT_BASELINE)
    results = cached_runs(cid for cid, c in registry().items() if c.record.paper in papers)
    report = check_baseline(results, DEFAULT_BASELINE)
    assert report.ok and not report.ignored, "\n" + report.table()
