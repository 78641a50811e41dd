"""Verdicts at fresh seed sets: every seeded claim run at ``sets`` seed sets that no test uses, its
verdict at each set against the one its record expects (``attncheck stability``).

The battery checks the default set and three more (first seeds 0, 1000, 2000, 3000); a claim whose
verdict changes at one seed set in ten passes all four two times in three. This survey measures how
often: set j starts at ``first + STEP j``, ``STEP`` above any claim's seed count, so the sets are
disjoint from each other and, from the default ``first``, from every set the tests run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from verify.core.parallel import run_claims
from verify.core.record import Seeds
from verify.core.registry import Claim

#: Distance between the first seeds of consecutive sets (every seed count is at most this).
STEP = 1000
#: The default first seed of the first set: above every seed the tests and the docs' runs use.
FIRST = 100_000


@dataclass
class Tally:
    """One claim's verdicts at the surveyed sets: ``verdicts[first seed of the set]``."""

    claim_id: str
    expected: str
    verdicts: dict[int, str] = field(default_factory=dict)
    also: str | None = None

    @property
    def unexpected(self) -> list[int]:
        """The first seeds of the sets whose verdict is not the expected one (nor, for a borderline
        claim, its second expected verdict)."""
        return [b for b, v in self.verdicts.items() if v not in (self.expected, self.also)]

    def counts(self) -> str:
        """The verdicts with their counts, most frequent first: ``"holds 7, inconclusive 1"``."""
        return ", ".join(f"{v} {n}" for v, n in Counter(self.verdicts.values()).most_common())

    def to_dict(self) -> dict:
        return {
            "claim_id": self.claim_id,
            "expected": self.expected,
            "also": self.also,
            "verdicts": {str(b): v for b, v in self.verdicts.items()},
        }


def seed_bases(first: int, sets: int) -> list[int]:
    """The first seeds of ``sets`` disjoint seed sets from ``first``, :data:`STEP` apart."""
    if isinstance(first, bool) or not isinstance(first, int) or first < 0:
        raise ValueError(f"first must be an integer >= 0, got {first!r}")
    if isinstance(sets, bool) or not isinstance(sets, int) or sets < 1:
        raise ValueError(f"sets must be an integer >= 1, got {sets!r}")
    return [first + STEP * j for j in range(sets)]


def survey(
    claims: list[Claim],
    *,
    profile: str = "quick",
    first: int = FIRST,
    sets: int = 8,
    jobs: int = 1,
    done: Callable[[int, int, int], None] | None = None,
) -> list[Tally]:
    """The seeded ``claims`` (a deterministic one is left out) run at every set of
    :func:`seed_bases` (``first``, ``sets``) at ``profile``, verdicts only (no robustness judging),
    ``jobs`` workers; ``done(j, sets, first seed of set j)`` after set j. One :class:`Tally` per
    claim, in id order."""
    seeded = sorted((c for c in claims if c.record.seeds != Seeds.NONE), key=lambda c: c.id)
    tallies = {}
    for c in seeded:
        also = c.record.also_expected(profile)
        tallies[c.id] = Tally(c.id, str(c.record.expected(profile)), also=None if also is None else str(also))
    bases = seed_bases(first, sets)
    for j, base in enumerate(bases, 1):
        for r in run_claims(seeded, profile=profile, seed=base, jobs=jobs):
            tallies[r.claim_id].verdicts[base] = str(r.verdict)
        if done is not None:
            done(j, len(bases), base)
    return list(tallies.values())
