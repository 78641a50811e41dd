"""Verdicts are measured to be stable: the claim battery (:mod:`verify.testing`) runs every seeded claim
at three further seed sets (``stability@1000``, ``@2000``, ``@3000``) and requires its expected verdict
at each.

The rule choosing the sets: base seeds S = 1000, 2000 and 3000, each giving the claim's own number of
consecutive seeds from S (``attncheck run --seed S``). Every seed set is below 1000 seeds, so the
three sets are disjoint from each other and from the default set (base seed 0). A claim that cannot be
stable at quick sizes has more seeds or sizes in its quick profile, or expects ``inconclusive`` by
design (decided in the paper profile), with the reason in its record.
"""

from __future__ import annotations

from tests.support import builtin_registry
from verify.core.record import Seeds
from verify.core.stability import STEP
from verify.testing import STABILITY_BASES

SEEDED = [c.record for c in builtin_registry().values() if c.record.seeds != Seeds.NONE]


def test_seed_sets_are_disjoint() -> None:
    n_max = max(max(dict(rec.n_seeds).values()) for rec in SEEDED)
    assert n_max <= min(b - a for a, b in zip((0, *STABILITY_BASES), STABILITY_BASES, strict=False))
    assert n_max <= STEP  # the sets of ``attncheck stability`` are disjoint too
