"""Paper-scale runs: every claim at the papers' sizes (``pytest --runslow verify/test_paper_profile.py``).

Marked slow (about 3.6 hours of CPU in all, see the README's timing section); the default run covers
the quick profile.
"""

from __future__ import annotations

import pytest

from tests.support import builtin_registry
from verify.core import Verdict, run_claim


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", list(builtin_registry()))
def test_claim_at_paper_size_reaches_its_recorded_verdict(claim_id: str) -> None:
    r = run_claim(claim_id, profile="paper", seed=0)
    assert r.verdict != Verdict.ERROR, r.notes
    assert r.verdict == r.expected, f"{r.verdict} (expected {r.expected}): {r.notes}"
