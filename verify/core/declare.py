"""The value objects of a claim declaration, one concern each, that ``@claim`` takes:

- :class:`Source` -- where the statement comes from: reference, provenance tag, the quote's source;
- :class:`Profiles` -- the keyword parameters of the quick and the paper profile;
- :class:`SeedPlan` -- how the seeds combine, how many per profile, batched, a shared experiment;
- :class:`Expect` -- the verdict expected (per profile), a consistency check, a rival reading;
- :class:`Report` -- the statement in LaTeX and the figure's panels (:class:`~verify.core.record.Plot`).

The choices (:class:`~verify.core.record.Choice`) are the fifth: a choice of a keyword parameter
supplies its quick value, a choice of a pass rule (``Choice(Rule(...), ...)``) declares the rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from verify.core.context import SEED_COUNTS
from verify.core.record import Plot, Provenance, Seeds, Verdict


def _text(owner: str, name: str, value: Any) -> str:
    """``value``, a string, stripped; else a TypeError naming ``owner.name``."""
    if not isinstance(value, str):
        raise TypeError(f"{owner}.{name} must be a string, got {type(value).__name__}")
    return value.strip()


@dataclass(frozen=True)
class Source:
    """Where a claim's statement comes from.

    reference: the theorem / lemma / equation of the paper (``"Thm 3.1(a), Eq. (12)"``); provenance: how
    sure the formula is (:class:`~verify.core.record.Provenance`); quote: for a THIRD-PARTY or QUESTION
    statement, who states it (a reviewer, a later paper, a summary) and how reliable that source is.
    """

    reference: str
    provenance: Provenance
    quote: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "reference", _text("Source", "reference", self.reference))
        object.__setattr__(self, "provenance", Provenance(self.provenance))
        object.__setattr__(self, "quote", _text("Source", "quote", self.quote))


def _params(owner: str, params: Any) -> tuple[tuple[str, Any], ...]:
    """A mapping of parameter names to values (or its pairs) as sorted pairs; else a TypeError."""
    items = dict(params) if isinstance(params, tuple) else params
    if not isinstance(items, Mapping) or not all(isinstance(k, str) for k in items):
        raise TypeError(f"{owner} must map parameter names to values, got {type(params).__name__}")
    return tuple(sorted(items.items()))


@dataclass(frozen=True)
class Profiles:
    """The claim function's keyword parameters per profile: quick (the defaults; a parameter with a
    declared choice takes the choice's value instead) and paper (overrides of some for the paper profile).
    Stored as sorted ``(name, value)`` pairs."""

    quick: Mapping[str, Any] | tuple[tuple[str, Any], ...] = ()
    paper: Mapping[str, Any] | tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        for name in ("quick", "paper"):
            object.__setattr__(self, name, _params(f"Profiles.{name}", getattr(self, name)))


@dataclass(frozen=True)
class SeedPlan:
    """How a claim's seeds combine into its verdict and how many it runs.

    seeds: :class:`~verify.core.record.Seeds` (``NONE`` for a deterministic claim); quick / paper: the
    seed-set size per profile (None: :data:`~verify.core.context.SEED_COUNTS`, the least allowed);
    batched: an ``every`` / ``binomial`` claim whose function takes the seeds of ``ctx.seed_set`` at once
    (a leading seed axis through data, model and GD; ``ctx.for_seed(s)`` gives each seed's generators) and
    returns one Evidence per seed in order, each independent of the other seeds of the batch
    (``verify/test_batched.py`` pins every batched claim against its batches of one); experiment: the
    name of an experiment shared with other claims of the paper (cached per process; parallel runs keep
    the claims naming it on one worker).
    """

    seeds: Seeds = Seeds.NONE
    quick: int | None = None
    paper: int | None = None
    batched: bool = False
    experiment: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "seeds", Seeds(self.seeds))
        for prof, least in SEED_COUNTS.items():
            n = getattr(self, prof)
            if n is None:
                continue
            if self.seeds == Seeds.NONE:
                raise ValueError(f"SeedPlan.{prof}: a seed count for a deterministic claim (Seeds.NONE)")
            if not isinstance(n, int) or isinstance(n, bool) or n < least:
                raise ValueError(f"SeedPlan.{prof} must be an int >= {least}, got {n!r}")
        if not isinstance(self.batched, bool):
            raise TypeError(f"SeedPlan.batched must be a bool, got {type(self.batched).__name__}")
        if self.batched and self.seeds not in (Seeds.EVERY, Seeds.BINOMIAL):
            raise ValueError(
                f"SeedPlan.batched: only an 'every' or 'binomial' claim runs batched, not {self.seeds}"
            )
        object.__setattr__(self, "experiment", _text("SeedPlan", "experiment", self.experiment))

    @property
    def counts(self) -> dict[str, int]:
        """The seed-set size per profile (empty for a deterministic claim)."""
        if self.seeds == Seeds.NONE:
            return {}
        given = {p: getattr(self, p) for p in SEED_COUNTS if getattr(self, p) is not None}
        return dict(SEED_COUNTS) | given


@dataclass(frozen=True)
class Expect:
    """What the suite expects of a claim.

    verdict: the verdict expected (``violated`` for a documented finding); paper: the verdict expected in
    the paper profile when it differs (``verdict`` is then the quick profile's), e.g. a rate decided only
    at paper sizes; consistency: the claim checks the code (a gradient check, a closed form against Monte
    Carlo), never the paper, and is counted apart; readings: the statement this claim reads one way among
    others (the same text on each rival reading): the report groups them and the summaries say which
    reading the measurements support. also, why: a borderline claim, whose measured quantity sits at its
    threshold so that its seed set resolves the truth only some of the time: ``verdict`` and ``also``
    are ``inconclusive`` and one decided verdict (holds or violated), either is as expected, and ``why``
    says what was measured (e.g. a success rate and its interval straddling the claimed probability).
    It applies wherever ``verdict`` is the profile's expected verdict.
    """

    verdict: Verdict = Verdict.HOLDS
    paper: Verdict | None = None
    consistency: bool = False
    readings: str = ""
    also: Verdict | None = None
    why: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", Verdict(self.verdict))
        object.__setattr__(self, "paper", None if self.paper is None else Verdict(self.paper))
        if not isinstance(self.consistency, bool):
            raise TypeError(f"Expect.consistency must be a bool, got {type(self.consistency).__name__}")
        object.__setattr__(self, "readings", _text("Expect", "readings", self.readings))
        object.__setattr__(self, "also", None if self.also is None else Verdict(self.also))
        object.__setattr__(self, "why", _text("Expect", "why", self.why))
        if self.also is None:
            if self.why:
                raise ValueError("Expect.why goes with Expect.also (the second verdict it explains)")
            return
        pair = {self.verdict, self.also}
        if pair not in ({Verdict.INCONCLUSIVE, Verdict.HOLDS}, {Verdict.INCONCLUSIVE, Verdict.VIOLATED}):
            raise ValueError(
                "Expect.also: a borderline claim expects inconclusive and one of holds / violated, got "
                f"{self.verdict} and {self.also}"
            )
        if not self.why:
            raise ValueError("Expect.also needs Expect.why: what measurement makes the claim borderline")


@dataclass(frozen=True, init=False)
class Report:
    """What the report shows of a claim: ``tex``, the statement in LaTeX (text mode, math in ``$...$``;
    None: the report prints the plain statement), and the figure's panels, each a
    :class:`~verify.core.record.Plot` drawing the claim's series against its theory (none: no figure).
    ``Report(tex, plot_1, plot_2, ...)``."""

    tex: str
    plots: tuple[Plot, ...] = field(default=())

    def __init__(self, tex: str | None = None, *plots: Plot) -> None:
        if tex is not None and not (isinstance(tex, str) and tex.strip()):
            raise ValueError("Report.tex must be a non-empty string or None")
        for p in plots:
            if not isinstance(p, Plot):
                raise TypeError(f"Report: each panel must be a Plot, got {type(p).__name__}")
        object.__setattr__(self, "tex", (tex or "").strip())
        object.__setattr__(self, "plots", plots)


__all__ = ["Expect", "Profiles", "Report", "SeedPlan", "Source"]
