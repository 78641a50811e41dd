"""Every claim about a paper names an alternative world, and running that world gives ``violated``.

A claim confirms a paper only if it could have failed: its record names the nearest plausible world in
which the statement is false (another law, model, scaling, initialisation or data; never a code bug),
and its falsifier runs exactly that world. A re-judged alternative (a competing exponent, a bound
tightened by a stated factor) is judged on the claim's own measurement in every run
(``Result.alternative``); an alternative with parameter overrides runs the claim again in that world
(``run_claim(..., world="alternative")``). A claim with no alternative is a consistency check. A
condition claim (holds or vacuous) is falsified by the world that flips its verdict; a claim that
leaves its premises at quick sizes (expected ``out_of_regime``) is falsified in the paper profile.
"""

from __future__ import annotations

import pytest

from tests.support import builtin_registry, cached_run
from verify.core import Verdict, run_claim
from verify.core.registry import registry

PAPER_CLAIMS = sorted(cid for cid, c in builtin_registry().items() if not c.record.consistency)


def test_every_claim_about_a_paper_names_an_alternative() -> None:
    missing = [cid for cid in PAPER_CLAIMS if registry()[cid].record.alternative is None]
    assert not missing, f"claims about a paper without an alternative world: {missing}"


@pytest.mark.parametrize("cid", PAPER_CLAIMS)
def test_the_alternative_world_is_violated(cid: str, profile: str) -> None:
    alt = registry()[cid].record.alternative
    if alt is None:
        pytest.fail(f"{cid} names no alternative world")
    rec = registry()[cid].record
    if rec.expect == Verdict.OUT_OF_REGIME and profile != "paper":
        pytest.skip(
            f"{cid} leaves its premises at {profile} sizes: it is judged, and falsified, in the paper profile"
        )
    if alt.rejudged:
        r = cached_run(cid, profile, 0)
        assert r.alternative is not None, f"{cid}: the run did not judge its alternative"
        verdict = r.alternative["verdict"]
    else:
        verdict = run_claim(cid, profile=profile, world="alternative").verdict
    assert verdict == alt.expect, f"{cid}: in its alternative world ({alt.describe()}) it is {verdict}"
