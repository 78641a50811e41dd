"""Claim records, the evidence a claim function returns, and the JSON-serialisable result.

The JSON schema of a result and of a results file lives in :mod:`verify.core.results`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from bounds.mp import in_float_range
from verify.core import variants


class Kind(StrEnum):
    """What a claim asserts; selects the verdict rule."""

    UPPER = "upper"  # measured <= theory
    LOWER = "lower"  # measured >= theory
    TWO_SIDED = "two-sided"  # theory = [lo, hi], lo <= measured <= hi
    RATE = "rate"  # theory = exponent, measured = RateFit, tol; the rate rule of verify.core.judge
    CONDITION = "condition"  # theory = required size, measured = largest reachable size
    PROBABILITY = "probability"  # theory = 1 - delta, measured = [successes, trials]
    IDENTITY = "identity"  # measured == theory to a stated relative tolerance
    QUALITATIVE = "qualitative"  # measured = bool: the stated property was observed


class Provenance(StrEnum):
    """How sure the formula is: EXACT (the paper's own text), EXACT-from-reviews (as the reviews quote
    it), THIRD-PARTY (a secondary account), DERIVED (derived by us from exact statements),
    RECONSTRUCTED (our reconstruction of what the paper leaves unrecovered), QUESTION (asked by a
    reviewer, not stated by the paper: its violation answers the reviewer, it is no finding)."""

    EXACT = "EXACT"
    EXACT_FROM_REVIEWS = "EXACT-from-reviews"
    DERIVED = "DERIVED"
    RECONSTRUCTED = "RECONSTRUCTED"
    THIRD_PARTY = "THIRD-PARTY"
    QUESTION = "QUESTION"


class Seeds(StrEnum):
    """How a claim's seeds combine into one verdict (the statement says which).

    none: the measurement is deterministic (no random draw); every: a statement for every draw (a
    bound, an inequality, an identity): the claim runs once per seed and holds only if it holds at
    every seed (violated names the first violating seed; slack is the minimum); binomial: a statement
    with probability >= 1 - delta: the claim runs once per seed and returns success (bool), judged by
    the exact binomial rule; pooled: an estimated exponent or constant: the claim gets the whole seed
    set (``ctx.seed_set``) and its estimate carries the seed-to-seed spread (pooled fit, bootstrap).
    """

    NONE = "none"
    EVERY = "every"
    BINOMIAL = "binomial"
    POOLED = "pooled"


#: Provenance tags whose statements are the papers' own (a violation is a finding against the paper);
#: a violated DERIVED or RECONSTRUCTED claim is our reconstruction's mismatch, reported apart.
PAPERS_OWN = frozenset({Provenance.EXACT, Provenance.EXACT_FROM_REVIEWS, Provenance.THIRD_PARTY})


class Verdict(StrEnum):
    HOLDS = "holds"
    VIOLATED = "violated"
    VACUOUS = "vacuous"
    OUT_OF_REGIME = "out_of_regime"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"


@dataclass(frozen=True)
class Rule:
    """A named pass rule of a claim (a tolerance, a window, a threshold) and why it is what it is.

    value: what the claim body reads (``ctx.rule(name)``); reason: one line on why this value;
    source: where it comes from: the paper's statement; a "reconstruction pass criterion" (the
    criterion written down when the paper was encoded for this suite, where the paper states none);
    or a choice of the suite ("attncheck").
    The report and the docs print every rule, so code and prose cannot drift apart.
    """

    value: Any
    reason: str
    source: str = "attncheck"

    def as_dict(self) -> dict[str, Any]:
        return {"value": to_jsonable(self.value), "reason": self.reason, "source": self.source}


#: What a choice's value and range rest on: the paper's own value, the paper's own range, a range a
#: careful reader would accept, our pilot run, or the only admissible value (its reason says why).
BASES = ("paper", "paper's range", "plausible", "pilot", "single")


def is_real(x: Any) -> bool:
    return isinstance(to_jsonable(x), int | float) and not isinstance(to_jsonable(x), bool)


def is_int(x: Any) -> bool:
    return isinstance(to_jsonable(x), int) and not isinstance(to_jsonable(x), bool)


@dataclass(frozen=True, kw_only=True)
class Choice:
    """A value a claim uses that its paper does not fix: a keyword parameter or a pass rule.

    value: the value used: a keyword parameter's quick value, or a pass rule (:class:`Rule`: the
    rule's value is then the choice's, and ``rule`` keeps the rule with its own reason and source);
    range: ``(lo, hi)``, lo < hi, the admissible values (integers when ``value`` is an int); options:
    the admissible values of a finite set (at least two, ``value`` among them); reason: why that
    range; basis: one of :data:`BASES`, ``"plausible"`` (a range a careful reader would accept) unless
    given; a ``"single"`` choice has neither range nor options (its reason says why a reader cannot pick
    another value), every other choice exactly one.
    """

    value: Any = field(kw_only=False)
    reason: str
    basis: str = "plausible"
    range: tuple[Any, Any] | None = None
    options: tuple[Any, ...] | None = None
    rule: Rule | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.value, Rule):
            object.__setattr__(self, "rule", self.value)
            object.__setattr__(self, "value", self.value.value)
        if self.basis not in BASES:
            raise ValueError(f"Choice.basis must be one of {BASES}, got {self.basis!r}")
        if not (isinstance(self.reason, str) and self.reason.strip()):
            raise ValueError(f"Choice.reason must say why the range is admissible, got {self.reason!r}")
        to_jsonable(self.value)  # TypeError for a value no result can hold
        given = (self.range is not None) + (self.options is not None)
        if self.basis == "single":
            if given:
                raise ValueError("Choice: a 'single' choice has no range or options (its reason says why)")
            return
        if given != 1:
            raise ValueError(f"Choice (basis {self.basis!r}): give exactly one of range=(lo, hi) or options=")
        if self.range is not None:
            self._check_range()
        else:
            self._check_options()

    def _check_range(self) -> None:
        if not (isinstance(self.range, tuple | list) and len(self.range) == 2):
            raise TypeError(f"Choice.range must be a pair (lo, hi), got {self.range!r}")
        if not is_real(self.value):
            raise TypeError(f"Choice.value of a range must be a real number, got {self.value!r}")
        integer = is_int(self.value)
        for end in self.range:
            if not (is_int(end) if integer else is_real(end)):
                kind = "integers (the value is an int)" if integer else "real numbers"
                raise TypeError(f"Choice.range ends must be {kind}, got {self.range!r}")
            if not math.isfinite(end):
                raise ValueError(f"Choice.range ends must be finite, got {self.range!r}")
        lo, hi = (int(e) if integer else float(e) for e in self.range)
        if not lo < hi:
            raise ValueError(f"Choice.range must have lo < hi, got ({lo!r}, {hi!r})")
        if not lo <= self.value <= hi:
            raise ValueError(f"Choice.value {self.value!r} lies outside its range ({lo!r}, {hi!r})")
        object.__setattr__(self, "range", (lo, hi))

    def _check_options(self) -> None:
        if isinstance(self.options, str) or not isinstance(self.options, Iterable):
            raise TypeError(f"Choice.options must be a sequence of values, got {self.options!r}")
        opts = tuple(self.options)
        keys = [repr(to_jsonable(o)) for o in opts]
        if len(opts) < 2 or len(set(keys)) != len(keys):
            raise ValueError(f"Choice.options must hold at least two distinct values, got {opts!r}")
        if repr(to_jsonable(self.value)) not in keys:
            raise ValueError(f"Choice.value {self.value!r} is not one of its options {opts!r}")
        object.__setattr__(self, "options", opts)

    def ends(self) -> list[Any]:
        """The points judged besides the value: the range's ends, or the other options, in order."""
        if self.range is not None:
            return [e for e in self.range if e != self.value]
        return [o for o in self.options or () if not same(o, self.value)]

    def at_value(self, value: Any) -> Choice | None:
        """This choice where a profile moves its value to ``value``: a range moves with it by the same
        factor (``value / self.value``, rounded outwards to integers for an int), keeping the reader's
        latitude relative to the value. A set of options stands as declared when ``value`` is one of
        them; scales with it when ``value`` is the declared value times one factor; else each option
        follows by the change that takes the declared value to it (:mod:`verify.core.variants`: a grid
        scaled, cut or extended at one end, entries scaled or one size larger). None
        where nothing carries over (a single value, an option that is none of those changes, a value of
        0 or a change of sign, a non-number)."""
        if same(value, self.value):
            return self
        if self.options is not None:
            return self._options_at(value)
        if self.range is None or not is_real(value) or (is_int(self.value) and not is_int(value)):
            return None
        if self.value == 0 or value / self.value <= 0:
            return None
        f = value / self.value
        lo, hi = sorted(e * f for e in self.range)
        lo, hi = min(lo, value), max(hi, value)  # an end at the value stays there despite rounding
        if is_int(self.value):
            lo, hi = math.floor(lo), math.ceil(hi)
        return Choice(
            value,
            reason=f"{self.reason} (range moved with the value, x{f:.4g})",
            basis=self.basis,
            range=(lo, hi),
        )

    def _options_at(self, value: Any) -> Choice | None:
        """:meth:`at_value` of a set of options."""
        if any(same(o, value) for o in self.options or ()):
            reason = f"{self.reason} (the profile's value is one of the options)"
            return Choice(value, reason=reason, basis=self.basis, options=self.options)
        integer = all(is_int(x) for x in (value if isinstance(value, tuple | list) else [value]))
        scaled = variants.relation(to_jsonable(self.value), to_jsonable(value))
        if scaled is not None and scaled[0] == "scale":  # every option scales with it, as a range does
            moved = [variants.apply(scaled, o, integer) for o in self.ends()]
            changes = f"scaled with the value, x{scaled[1]:.4g}"
        else:
            rels = [variants.relation(to_jsonable(self.value), to_jsonable(o)) for o in self.ends()]
            if not rels or None in rels:
                return None
            moved = [variants.apply(r, value, integer) for r in rels]
            changes = "moved with the value: " + ", ".join(variants.describe(r) for r in rels)
        if None in moved:
            return None
        options: list[Any] = []
        for o in (value, *moved):
            if not any(same(o, p) for p in options):
                options.append(o)
        if len(options) < 2:
            return None
        reason = f"{self.reason} (options {changes})"
        return Choice(value, reason=reason, basis=self.basis, options=tuple(options))

    @property
    def geometric(self) -> bool:
        """A range bisected geometrically: both ends > 0 and spanning more than 10x."""
        return self.range is not None and self.range[0] > 0 and self.range[1] > 10 * self.range[0]

    def describe(self) -> str:
        """The admissible values in words."""
        if self.range is not None:
            return f"[{self.range[0]:g}, {self.range[1]:g}]"
        if self.options is not None:
            return "{" + ", ".join(repr(o) for o in self.options) + "}"
        return "this value only"

    def as_dict(self) -> dict[str, Any]:
        return {
            "value": to_jsonable(self.value),
            "range": None if self.range is None else list(self.range),
            "options": None if self.options is None else to_jsonable(list(self.options)),
            "reason": self.reason,
            "basis": self.basis,
        }


def same(a: Any, b: Any) -> bool:
    """The same value as a result stores it (a tuple and its list alike), an int never a float."""
    ja, jb = to_jsonable(a), to_jsonable(b)
    return ja == jb and isinstance(ja, int) == isinstance(jb, int)


@dataclass(frozen=True)
class Alternative:
    """The nearest plausible world in which a claim's statement is false (another law, model, scaling,
    initialisation or data; never a code bug), and how the claim runs it. A claim about a paper confirms
    it only if its falsifier, running this world, gets ``violated``; a claim that names none is a
    consistency check.

    world: the alternative in words; overrides: claim parameters that run it (e.g. another data law);
    exponent: for a rate claim, the nearest competing exponent q: the same measurement is judged
    against q (the claim's tolerance must be at most |p - q| / 2, so that "holds" separates the two);
    factor: for an upper / lower bound, the bound tightened by this factor > 1 (upper: theory / factor;
    lower: theory x factor), the resolution the measurement has (the worst-case search's ratio, where
    there is one); the tightened bound is judged by the same rule as the claim's own, on the hard side of
    the evidence's :class:`Interval` when it carries one (so the falsifier is violated only when the
    interval's lower end clears the tightened upper bound, or its upper end the tightened lower one).
    Overrides combine with exponent or factor. expect: the verdict the alternative world must give:
    ``violated`` for a claim expected to hold; for a condition claim (required size against the
    reachable one), which can only hold or be vacuous, the flipped verdict; for a documented violation,
    ``violated`` or (better) ``holds`` (:func:`verify.core.registry.claim` checks these). Its resolution
    (:mod:`verify.core.resolution`): the nearest world the claim still tells apart at its seeds (the
    smallest factor or exponent shift, measured in every run of a re-judged one; the override value
    nearest the paper's, on demand for one numeric override).
    """

    world: str
    overrides: tuple[tuple[str, Any], ...] = ()
    exponent: float | None = None
    factor: float | None = None
    expect: Verdict = Verdict.VIOLATED

    def __post_init__(self) -> None:
        if not (isinstance(self.world, str) and self.world.strip()):
            raise ValueError(f"Alternative.world must say what the alternative is, got {self.world!r}")
        items = self.overrides.items() if isinstance(self.overrides, dict) else self.overrides
        object.__setattr__(self, "overrides", tuple(sorted((str(k), v) for k, v in items)))
        if self.factor is not None and not (isinstance(self.factor, int | float) and self.factor > 1):
            raise ValueError(f"Alternative.factor must be a number > 1, got {self.factor!r}")
        if not (self.overrides or self.exponent is not None or self.factor is not None):
            raise ValueError("Alternative: give overrides, an exponent or a factor that runs the world")
        object.__setattr__(self, "expect", Verdict(self.expect))

    @property
    def rejudged(self) -> bool:
        """True when the alternative is the same measurement judged against another theory (no run)."""
        return not self.overrides

    def apply(self, kind: Kind, ev: Evidence) -> Evidence:
        """The evidence of the alternative world from the claim's own evidence (exponent / factor)."""
        theory = ev.theory
        if self.exponent is not None:
            if kind != Kind.RATE:
                raise ValueError(f"Alternative.exponent applies to rate claims, not {kind}")
            theory = float(self.exponent)
        if self.factor is not None:
            if kind not in (Kind.UPPER, Kind.LOWER):
                raise ValueError(f"Alternative.factor applies to upper / lower bounds, not {kind}")
            theory = (
                mpmath.mpf(theory) / self.factor if kind == Kind.UPPER else mpmath.mpf(theory) * self.factor
            )
        return replace(ev, theory=theory, headline=None if theory is not ev.theory else ev.headline)

    def describe(self) -> str:
        parts = [self.world]
        if self.overrides:
            parts.append("run with " + ", ".join(f"{k}={v!r}" for k, v in self.overrides))
        if self.exponent is not None:
            parts.append(f"competing exponent {self.exponent:g}")
        if self.factor is not None:
            parts.append(f"bound tightened {self.factor:g}-fold")
        return "; ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return {
            "world": self.world,
            "overrides": to_jsonable(dict(self.overrides)),
            "exponent": self.exponent,
            "factor": self.factor,
            "expect": str(self.expect),
        }


@dataclass(frozen=True)
class Curve:
    """One measured curve of a :class:`Plot`: the series key of its y values, its legend in words (mathtext
    allowed, e.g. ``"leaky ReLU $\\sigma$"``), and the series key of its own x values when it differs
    from the plot's. A y series holds one value per x, or one row of per-seed values per x: the figure
    then draws the seed mean with the seeds' range as a band."""

    y: str
    label: str
    x: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"y": self.y, "label": self.label, "x": self.x}


@dataclass(frozen=True)
class Search:
    """The worst-case search a claim runs for a bound stated for every input of a set
    (:mod:`verify.numerics.worstcase`), declared for the docs and the report.

    ratio: what is maximised (measured / bound, or bound / measured for a lower bound); space: the set
    searched and its parametrisation, in words; budget: the claim parameter that holds the search's
    size and budget (its quick and paper values are the profiles' budgets); method: the optimiser.
    """

    ratio: str
    space: str
    budget: str
    method: str = "multi-start L-BFGS-B"

    def __post_init__(self) -> None:
        for name in ("ratio", "space", "budget", "method"):
            if not (isinstance(getattr(self, name), str) and getattr(self, name).strip()):
                raise ValueError(f"Search.{name} must be a non-empty string, got {getattr(self, name)!r}")

    def as_dict(self) -> dict[str, str]:
        return {"ratio": self.ratio, "space": self.space, "budget": self.budget, "method": self.method}


@dataclass(frozen=True)
class Plot:
    """One panel of the report's figures: a claim's ``series`` against its theory.

    x: the series key of the x axis; curves: the measured curves (:class:`Curve`, ``(key, label)`` pairs
    or dicts); xlabel / ylabel: axis labels in matplotlib mathtext (``"$T$"``); the theory, drawn beside
    the measurement, is any of: ``theory`` (a series key drawn as a line), ``const`` (a horizontal line),
    ``band`` ((lo, hi): a shaded pass band), ``slope`` (the stated power law x^slope, drawn as a guide
    over the fit window above the curves: rate claims); theory_label: its legend in words; logx / logy:
    log axes; title: an optional panel title in words; grid: (x_0, r) when the series hold no x values
    but were taken on a geometric grid, x_k = x_0 r^k (``x`` is then ``""``); fall: the factor by which
    the statement says each curve falls from its first point (drawn at first value / fall in the
    curve's colour). A rate claim's panel is one line, :meth:`rate`.
    """

    x: str
    curves: tuple[Curve, ...]
    xlabel: str
    ylabel: str
    theory: str | None = None
    const: float | None = None
    band: tuple[float, float] | None = None
    slope: float | None = None
    theory_label: str = "theory"
    logx: bool = False
    logy: bool = False
    title: str = ""
    grid: tuple[float, float] | None = None
    fall: float | None = None

    def __post_init__(self) -> None:
        curves = tuple(
            c if isinstance(c, Curve) else Curve(**c) if isinstance(c, dict) else Curve(*c)
            for c in self.curves
        )
        if not curves:
            raise ValueError(f"plot of {self.x!r}: at least one curve")
        object.__setattr__(self, "curves", curves)
        if (self.x == "") != (self.grid is not None):
            raise ValueError("plot: give either an x series key or a grid (x_0, r) with x = ''")
        if self.band is not None:
            lo, hi = self.band
            if not lo <= hi:
                raise ValueError(f"plot of {self.x!r}: band must be (lo, hi) with lo <= hi, got {self.band}")
            object.__setattr__(self, "band", (float(lo), float(hi)))
        if self.fall is not None:
            if isinstance(self.fall, bool) or not isinstance(self.fall, int | float):
                raise TypeError(f"plot of {self.x!r}: fall must be a number, got {self.fall!r}")
            if not (math.isfinite(self.fall) and self.fall > 1):
                raise ValueError(f"plot of {self.x!r}: fall must be a finite factor > 1, got {self.fall!r}")
            object.__setattr__(self, "fall", float(self.fall))

    @classmethod
    def rate(
        cls,
        exponent: float,
        x: str,
        curves: Any,
        xlabel: str,
        ylabel: str,
        *,
        symbol: str | None = None,
        theory_label: str | None = None,
        logy: bool = True,
        title: str = "",
        grid: tuple[float, float] | None = None,
    ) -> Plot:
        """The panel of a rate claim, "y ~ v^exponent": its curves on log axes (``logy=False``: x only)
        beside the reference power law of the stated ``exponent`` (``slope``), labelled
        ``theory: $v^{exponent}$`` (the exponent as a fraction, ``-1/2``), v the ``symbol`` (default:
        the first ``$...$`` of ``xlabel``); ``theory_label`` replaces that legend."""
        if isinstance(exponent, bool) or not isinstance(exponent, int | float) or not math.isfinite(exponent):
            raise TypeError(f"Plot.rate: exponent must be a finite number, got {exponent!r}")
        if theory_label is None:
            if symbol is None:
                found = re.search(r"\$([^$]+)\$", xlabel)
                if found is None:
                    raise ValueError(f"Plot.rate: xlabel {xlabel!r} has no $symbol$; give symbol=")
                symbol = found.group(1)
            theory_label = f"theory: ${symbol}^{{{Fraction(exponent).limit_denominator(64)}}}$"
        return cls(
            x=x,
            curves=curves,
            xlabel=xlabel,
            ylabel=ylabel,
            slope=float(exponent),
            theory_label=theory_label,
            logx=True,
            logy=logy,
            title=title,
            grid=grid,
        )

    @property
    def keys(self) -> tuple[str, ...]:
        """Every series key the panel reads."""
        keys = [k for k in (self.x, *(k for c in self.curves for k in (c.x, c.y))) if k]
        if self.theory:
            keys.append(self.theory)
        return tuple(dict.fromkeys(keys))

    def as_dict(self) -> dict[str, Any]:
        return {
            "x": self.x,
            "curves": [c.as_dict() for c in self.curves],
            "xlabel": self.xlabel,
            "ylabel": self.ylabel,
            "theory": self.theory,
            "const": self.const,
            "band": list(self.band) if self.band else None,
            "slope": self.slope,
            "theory_label": self.theory_label,
            "logx": self.logx,
            "logy": self.logy,
            "title": self.title,
            "grid": list(self.grid) if self.grid else None,
            "fall": self.fall,
        }


@dataclass(frozen=True)
class ClaimRecord:
    """Immutable description of one paper claim.

    id: claim id (``wu2023.prop1``); reference: theorem / lemma / equation in the paper; assumptions:
    what the claim checks before judging (a failure gives ``out_of_regime``); quick / paper: default
    parameters per profile; expect: the verdict the suite expects (``violated`` for a documented
    finding, so the CLI and the tests do not treat it as a regression); rules: the named pass rules
    (:class:`Rule`) the claim body reads through ``ctx.rule(name)``; seeds: how seeds combine
    (:class:`Seeds`), n_seeds: the seed-set size per profile (default
    :data:`verify.core.context.SEED_COUNTS`); consistency: the check holds by construction or tests the
    code (a gradient check, a closed form against Monte Carlo, a tautology), never a confirmation of
    the paper: counted apart. tex: the statement in LaTeX (text mode, math in ``$...$``), written from
    the paper's notation, for the report (empty: the report prints ``statement``); plot: the panels
    (:class:`Plot`) drawing the claim's series against its theory (empty: no figure); search: the
    worst-case search of a bound stated for every input (:class:`Search`; its evidence then carries a
    ``worst``); alternative: the world in which the statement would be false and how the claim runs it
    (:class:`Alternative`; required of every claim about a paper); source: where a THIRD-PARTY (or
    QUESTION) statement comes from and how reliable that source is (a reviewer, a later paper, a
    summary site), printed by the docs and the report; experiment: the name of an experiment the claim
    shares with other claims of its paper (cached per process), which parallel runs keep on one worker
    (:func:`verify.core.parallel.groups`); batched: an ``every`` / ``binomial`` claim whose function runs
    all the seeds of ``ctx.seed_set`` in one batched computation (a leading seed axis) and returns one
    :class:`Evidence` per seed, each bit-identical to its batch of one (:mod:`verify.core.seeds`);
    readings: the statement of which this claim is one reading, shared by the claims that read it
    otherwise (e.g. a width order as an abstract and as a citing paper state it): the report prints
    them as one row group and the summaries say which reading the measurements support
    (:func:`verify.core.summary.readings`); expect_paper: the verdict expected in the paper profile when
    it differs from ``expect`` (then the quick profile's): a claim decided only at paper sizes, or one
    whose paper-size verdict is a documented result of its own (:meth:`expected`); choices: the values
    the paper leaves open (:class:`~verify.core.record.Choice`, by parameter or rule name), over which
    a robust run judges the verdict.
    """

    id: str
    paper: str
    reference: str
    kind: Kind
    provenance: Provenance
    statement: str
    assumptions: tuple[str, ...] = ()
    quick: tuple[tuple[str, Any], ...] = ()
    paper_params: tuple[tuple[str, Any], ...] = ()
    expect: Verdict = Verdict.HOLDS
    rules: tuple[tuple[str, Rule], ...] = ()
    seeds: Seeds = Seeds.NONE
    n_seeds: tuple[tuple[str, int], ...] = ()
    consistency: bool = False
    tex: str = ""
    plot: tuple[Plot, ...] = ()
    search: Search | None = None
    alternative: Alternative | None = None
    source: str = ""
    experiment: str = ""
    batched: bool = False
    readings: str = ""
    expect_paper: Verdict | None = None
    choices: tuple[tuple[str, Choice], ...] = ()
    expect_also: Verdict | None = None
    expect_why: str = ""

    def expected(self, profile: str) -> Verdict:
        """The verdict this claim's record expects in ``profile``."""
        return self.expect_paper if profile == "paper" and self.expect_paper is not None else self.expect

    def also_expected(self, profile: str) -> Verdict | None:
        """A borderline claim's second expected verdict in ``profile`` (``Expect.also``), else None."""
        return self.expect_also if self.expected(profile) == self.expect else None

    def params_for(self, profile: str) -> dict[str, Any]:
        quick = dict(self.quick)
        return quick | dict(self.paper_params) if profile == "paper" else quick

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "paper": self.paper,
            "reference": self.reference,
            "kind": str(self.kind),
            "provenance": str(self.provenance),
            "statement": self.statement,
            "assumptions": list(self.assumptions),
            "quick": to_jsonable(dict(self.quick)),
            "paper_params": to_jsonable(dict(self.paper_params)),
            "expect": str(self.expect),
            "rules": {name: rule.as_dict() for name, rule in self.rules},
            "seeds": str(self.seeds),
            "n_seeds": dict(self.n_seeds),
            "consistency": self.consistency,
            "tex": self.tex,
            "plot": [p.as_dict() for p in self.plot],
            "search": None if self.search is None else self.search.as_dict(),
            "alternative": None if self.alternative is None else self.alternative.as_dict(),
            "source": self.source,
            "experiment": self.experiment,
            "batched": self.batched,
            "readings": self.readings,
            "expect_paper": None if self.expect_paper is None else str(self.expect_paper),
            "choices": {name: ch.as_dict() for name, ch in self.choices},
            "expect_also": None if self.expect_also is None else str(self.expect_also),
            "expect_why": self.expect_why,
        }


#: The sidedness of an :class:`Interval`.
SIDED = ("one-sided", "two-sided")


@dataclass(frozen=True)
class Interval:
    """The confidence interval of a measured quantity (a Monte-Carlo mean, a fitted slope) that an upper
    or lower bound is judged on (:mod:`verify.core.judge`, "the hard-side rule").

    lo / hi: its ends, lo <= hi, finite. level: its confidence level in (0, 1). sided: ``"two-sided"``
    (a ``level`` two-sided interval: each end is a one-sided (1 + level) / 2 limit, e.g. the 95% t
    interval whose ends are one-sided 97.5% limits) or ``"one-sided"`` (each end is a one-sided
    ``level`` limit on its own side). The verdict uses one end at a time: an upper bound holds when the
    upper end is at or below it (the hard side) and is violated when the lower end is above it.
    """

    lo: float
    hi: float
    level: float
    sided: str

    def __post_init__(self) -> None:
        for name in ("lo", "hi", "level"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
                raise TypeError(f"Interval.{name} must be a real number, got {type(v).__name__}")
            if not math.isfinite(float(v)):
                raise ValueError(f"Interval.{name} must be finite, got {v}")
            object.__setattr__(self, name, float(v))
        if not self.lo <= self.hi:
            raise ValueError(f"Interval must have lo <= hi, got [{self.lo}, {self.hi}]")
        if not 0.0 < self.level < 1.0:
            raise ValueError(f"Interval.level must lie in (0, 1), got {self.level}")
        if self.sided not in SIDED:
            raise ValueError(f"Interval.sided must be one of {SIDED}, got {self.sided!r}")

    def as_dict(self) -> dict[str, Any]:
        return {"lo": self.lo, "hi": self.hi, "level": self.level, "sided": self.sided}


@dataclass
class Evidence:
    """What a claim function returns: both sides' values; the runner judges them.

    theory / measured: per :class:`Kind` (see its comments). failed: assumptions that did not hold
    at this point (-> ``out_of_regime``, naming them). inconclusive: a reason the data cannot decide
    (-> ``inconclusive``). rtol: the relative tolerance of an identity / the round-off margin of a
    bound when the claim states one (default :data:`verify.core.judge.ROUNDOFF_RTOL`). trivial: a
    value at or beyond which an upper bound says nothing (e.g. the initial loss) -> ``vacuous``.
    seeds: the seeds used (default ``[ctx.seed]``). series: curves for figures. tol: the stated
    tolerance of a rate claim: the half-width of the band around its exponent
    (:mod:`verify.core.judge`). headline: what the table prints for a multi-condition claim,
    ``{"name", "theory", "measured"}`` (the paper's quantity), while the verdict stays that of every
    condition. worst: the :class:`~verify.numerics.worstcase.WorstCase` of a bound searched at its
    worst case (theory and
    measured are then the values at the worst argument found; the result keeps the typical ratio too).
    interval: the :class:`Interval` of a measured quantity that carries sampling error (a Monte-Carlo
    mean, a fitted slope) of an upper / lower bound; measured is then its point estimate, inside the
    interval, and the verdict is taken on the hard side (:mod:`verify.core.judge`): an upper bound
    holds only if the interval's upper end is at or below it, is violated only if its lower end is
    above it, and is inconclusive otherwise (a lower bound mirrored).
    """

    theory: Any
    measured: Any
    failed: list[str] = field(default_factory=list)
    inconclusive: str | None = None
    rtol: float | None = None
    trivial: Any = None
    tol: float | None = None
    headline: dict[str, Any] | None = None
    worst: Any = None
    interval: Interval | None = None
    seeds: list[int] | None = None
    notes: list[str] = field(default_factory=list)
    series: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class Result:
    """A judged claim at one parameter point. Its JSON form is the results schema's
    (:func:`verify.core.results.result_to_json` / :func:`~verify.core.results.result_from_json`).

    decision: what decided the verdict, as data (:func:`verify.core.judge.decide`: the rule, its
    branch, the estimate, its interval, the band or target it was held against); alternative: the
    claim's alternative world and its verdict on the same measurement, when the alternative is a
    re-judgement (a competing exponent, a tightened bound): ``{"world", "verdict", "resolution"}``
    (:mod:`verify.core.resolution`); robust: the verdict is the same at every point of the claim's
    choices (None: not judged, or no choices); depends_on: where it is not, one entry per end whose
    verdict differs (:mod:`verify.core.choices`); also: a borderline claim's second expected verdict
    (``Expect.also``; None for every other claim).
    """

    claim_id: str
    paper: str
    reference: str
    kind: Kind
    provenance: Provenance
    statement: str
    profile: str
    params: dict[str, Any]
    seeds: list[int]
    theory: Any
    measured: Any
    slack: float | None
    verdict: Verdict
    expected: Verdict
    notes: list[str] = field(default_factory=list)
    series: dict[str, Any] = field(default_factory=dict)
    wall_time: float = 0.0
    cpu_time: float = 0.0
    versions: dict[str, str] = field(default_factory=dict)
    per_seed: list[dict[str, Any]] = field(default_factory=list)
    headline: dict[str, Any] | None = None
    consistency: bool = False
    worst: dict[str, Any] | None = None
    decision: dict[str, Any] | None = None
    alternative: dict[str, Any] | None = None
    robust: bool | None = None
    depends_on: list[dict[str, Any]] = field(default_factory=list)
    also: Verdict | None = None

    @property
    def as_expected(self) -> bool:
        """The verdict is the one the claim's record expects (or, for a borderline claim, its second
        expected verdict ``also``)."""
        return self.verdict == self.expected or self.verdict == self.also

    @property
    def unexpected_failure(self) -> bool:
        """Any verdict other than the expected one (an ``error``, an unexpected ``violated``,
        ``vacuous``, ``out_of_regime`` or ``inconclusive``, or a documented finding that no longer
        shows): the CLI exits 1 on it."""
        return not self.as_expected

    @property
    def attribution(self) -> str:
        """``consistency`` (a check of the code), ``paper`` (a statement of the paper's own: EXACT,
        EXACT-from-reviews, THIRD-PARTY), ``question`` (a reviewer's question: a failure answers it)
        or ``reconstruction`` (DERIVED, RECONSTRUCTED: a failure is our reconstruction's, not a finding
        against the paper)."""
        if self.consistency:
            return "consistency"
        if self.provenance == Provenance.QUESTION:
            return "question"
        return "paper" if self.provenance in PAPERS_OWN else "reconstruction"


def to_jsonable(value: Any) -> Any:
    """Normalise a value for JSON: numpy -> Python, mpf -> float or ``{"$mpf": ...}``, tuples -> lists.

    Non-finite floats are refused (a NaN table is never written): the caller must say what it meant.
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, mpmath.mpf):
        if in_float_range(value):
            return float(value)
        return {"$mpf": mpmath.nstr(value, 20, min_fixed=1, max_fixed=0)}
    if isinstance(value, float | np.floating):
        x = float(value)
        if not math.isfinite(x):
            raise ValueError(f"non-finite value {x} cannot go into a result; use None or an mpf")
        return x
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "as_dict"):
        return to_jsonable(value.as_dict())
    raise TypeError(f"cannot serialise {type(value).__name__} into a result")


def from_jsonable(value: Any) -> Any:
    """Inverse of :func:`to_jsonable` for the ``{"$mpf": ...}`` encoding."""
    if isinstance(value, dict):
        if set(value) == {"$mpf"}:
            return mpmath.mpf(value["$mpf"])
        return {k: from_jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_jsonable(v) for v in value]
    return value
