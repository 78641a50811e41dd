"""Verdicts are measured to be stable: every seeded claim at three further seed sets.

The rule choosing the sets: base seeds S = 1000, 2000 and 3000, each giving the claim's own number of
consecutive seeds from S (``attncheck run --seed S``). Every seed set is below 1000 seeds, so the
three sets are disjoint from each other and from the default set (base seed 0). At each, the claim
must reach the verdict its record expects; a claim that cannot be stable at quick sizes has more
seeds or sizes in its quick profile, or expects ``inconclusive`` by design (decided in the paper
profile), with the reason in its record.
"""

from __future__ import annotations

import pytest

from tests.support import builtin_registry
from verify.core import run_claim
from verify.core.record import Seeds
from verify.core.registry import registry

#: The base seeds of the three further seed sets (see the module docstring).
STABILITY_BASES = (1000, 2000, 3000)

SEEDED = sorted(cid for cid, c in builtin_registry().items() if c.record.seeds != Seeds.NONE)


@pytest.mark.parametrize("base", STABILITY_BASES)
@pytest.mark.parametrize("cid", SEEDED)
def test_verdict_is_the_expected_one_at_other_seed_sets(cid: str, base: int, profile: str) -> None:
    r = run_claim(cid, profile=profile, seed=base)
    assert r.verdict == r.expected, (
        f"{cid} at seeds from {base}: {r.verdict}, expected {r.expected}; " + "; ".join(r.notes[:4])
    )


def test_seed_sets_are_disjoint() -> None:
    n_max = max(max(dict(registry()[c].record.n_seeds).values()) for c in SEEDED)
    assert n_max <= min(b - a for a, b in zip((0, *STABILITY_BASES), STABILITY_BASES, strict=False))
