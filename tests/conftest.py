"""Toy claims for testing the machinery (registry, runner, CLI, reports, baseline) in isolation."""

from __future__ import annotations

from collections.abc import Iterator

import mpmath
import numpy as np
import pytest

from verify.core import Choice, Ctx, Evidence, Expect, Kind, Profiles, Provenance, Source, Verdict, claim
from verify.core.registry import _unregister
from verify.numerics.fit import fit_rate

TOY_IDS = ("toy.upper", "toy.rate", "toy.vacuous", "toy.finding", "toy.broken", "toy.crash")


def _noisy_power(args: tuple[int, float]) -> float:
    """One sweep point: a seeded noisy power law (module level, so a process pool can run it)."""
    seed, x = args
    return float(x**-0.5 * np.exp(np.random.default_rng([seed, int(x)]).normal(0, 0.01)))


def _register() -> None:
    @claim(
        "toy.upper",
        Source("Thm 1, Eq. (1)", Provenance.DERIVED),
        kind=Kind.UPPER,
        statement="x <= 1 & other $pecial_chars",
        profiles=Profiles(quick=dict(x=0.5, n=4), paper=dict(n=64)),
    )
    def upper(ctx: Ctx, *, x: float, n: int) -> Evidence:
        """Toy upper bound: measured x against theory 1."""
        return Evidence(
            theory=1.0, measured=x, series={"t": list(range(n)), "loss": [1.0 / (t + 1) for t in range(n)]}
        )

    @claim(
        "toy.rate",
        Source("Thm 2", Provenance.RECONSTRUCTED),
        kind=Kind.RATE,
        statement="y ~ x^-1/2",
        profiles=Profiles(quick=dict(points=8)),
    )
    def rate(ctx: Ctx, *, points: int) -> Evidence:
        """Toy rate: a noisy power law with exponent -1/2, sweep points through ctx.map."""
        xs = np.geomspace(4, 4096, points)
        ys = ctx.map(_noisy_power, [(ctx.seed, float(x)) for x in xs])
        return Evidence(theory=-0.5, measured=fit_rate(xs, np.array(ys), window=points), tol=0.05)

    @claim(
        "toy.vacuous",
        Source("Thm 3", Provenance.EXACT),
        kind=Kind.CONDITION,
        statement="width needed",
        expect=Expect(Verdict.VACUOUS),
    )
    def vacuous(ctx: Ctx) -> Evidence:
        """Toy condition needing a width of 1e41."""
        return Evidence(theory=mpmath.mpf("1e41"), measured=1e6)

    @claim(
        "toy.finding",
        Source("Lemma 4", Provenance.EXACT_FROM_REVIEWS),
        kind=Kind.LOWER,
        statement="a documented violation",
        expect=Expect(Verdict.VIOLATED),
        choices={"m": Choice(0.5, range=(0.4, 0.6), reason="a toy's measurement")},
    )
    def finding(ctx: Ctx, *, m: float) -> Evidence:
        """Toy documented finding: measured m below the claimed lower bound 1, for every admissible m."""
        return Evidence(theory=1.0, measured=m)

    @claim(
        "toy.broken",
        Source("Lemma 5", Provenance.DERIVED),
        kind=Kind.UPPER,
        statement="an unexpected violation",
    )
    def broken(ctx: Ctx) -> Evidence:
        """Toy regression: measured above the claimed upper bound, not expected."""
        return Evidence(theory=1.0, measured=2.0)

    @claim("toy.crash", Source("--", Provenance.DERIVED), kind=Kind.UPPER, statement="raises")
    def crash(ctx: Ctx) -> Evidence:
        """Toy claim that raises."""
        raise RuntimeError("boom")


@pytest.fixture
def toy_claims() -> Iterator[tuple[str, ...]]:
    _register()
    yield TOY_IDS
    for cid in TOY_IDS:
        _unregister(cid)
