"""Every claim about a paper names an alternative world; the claim battery (:mod:`verify.testing`,
check ``alternative``) runs that world and requires ``violated``.

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

from tests.support import builtin_registry


def test_every_claim_about_a_paper_names_an_alternative() -> None:
    claims = builtin_registry().values()
    missing = sorted(c.id for c in claims if not c.record.consistency and c.record.alternative is None)
    assert not missing, f"claims about a paper without an alternative world: {missing}"
