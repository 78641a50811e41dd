"""The claim registry: ``@claim(...)`` registers a function under its claim id.

Paper packages are plugins (:mod:`verify.core.papers`, entry-point group ``attncheck.papers``);
:func:`load_all` imports every installed paper's claims, so a new paper needs no edit here.
"""

from __future__ import annotations

import fnmatch
import functools
import inspect
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from verify.core.choices import declare_choices
from verify.core.declare import Expect, Profiles, Report, SeedPlan, Source
from verify.core.papers import GROUP, loading_paper, papers
from verify.core.record import (
    Alternative,
    Choice,
    ClaimRecord,
    Evidence,
    Kind,
    Provenance,
    Rule,
    Search,
    Verdict,
)

ClaimFn = Callable[..., Evidence]

_REGISTRY: dict[str, Claim] = {}
#: Provenance tags of a claim about the paper itself: such a claim names its alternative world.
PAPER_TAGS = frozenset(
    {
        Provenance.EXACT,
        Provenance.EXACT_FROM_REVIEWS,
        Provenance.THIRD_PARTY,
        Provenance.DERIVED,
        Provenance.RECONSTRUCTED,
    }
)


@dataclass(frozen=True)
class Claim:
    record: ClaimRecord
    fn: ClaimFn

    @property
    def id(self) -> str:
        return self.record.id

    def param_names(self) -> tuple[str, ...]:
        sig = inspect.signature(self.fn)
        return tuple(n for n, p in sig.parameters.items() if p.kind == p.KEYWORD_ONLY)


def claim(
    id: str,
    source: Source,
    *,
    kind: Kind,
    statement: str,
    assumptions: Iterable[str] = (),
    profiles: Profiles | None = None,
    seeds: SeedPlan | None = None,
    expect: Expect | None = None,
    rules: Mapping[str, Rule] | None = None,
    choices: Mapping[str, Choice] | None = None,
    alternative: Alternative | None = None,
    search: Search | None = None,
    report: Report | None = None,
) -> Callable[[ClaimFn], ClaimFn]:
    """Register ``fn(ctx: Ctx, *, <params>) -> Evidence`` as the claim ``id`` (``<paper>.<name>``).

    source: reference, provenance and the quote's source (:class:`~verify.core.declare.Source`); kind:
    the verdict rule; statement: the claim in words; assumptions: what the claim checks before judging;
    profiles: the keyword parameters of both profiles (:class:`~verify.core.declare.Profiles`): every
    keyword-only parameter of ``fn`` gets a quick value there or from its choice; seeds: how the seeds
    combine and how many (:class:`~verify.core.declare.SeedPlan`); expect: the verdict expected, a
    consistency check, a rival reading (:class:`~verify.core.declare.Expect`); rules: the named pass
    rules that are no choice of ours (:class:`~verify.core.record.Rule`, read with ``ctx.rule(name)``);
    choices: the values the paper leaves open, over which ``--robust`` judges the verdict
    (:class:`~verify.core.record.Choice`, by keyword-parameter name, its value the quick one; or
    ``Choice(Rule(...), ...)`` by rule name, which declares the rule); alternative: the nearest plausible
    world in which the statement is false, and how the claim runs it
    (:class:`~verify.core.record.Alternative`): a claim about a paper names one (its falsifier runs it
    and must get ``violated``), a consistency check names none; search: the worst-case search the claim
    runs for a bound stated for every input of a set (:class:`~verify.core.record.Search`, its budget a
    keyword parameter); report: the statement in LaTeX and the figure's panels
    (:class:`~verify.core.declare.Report`). Unset value objects are their defaults: no parameters, no
    seeds (``Seeds.NONE``), expected to hold, no LaTeX and no figure.
    """
    if "." not in id:
        raise ValueError(f"claim id must look like '<paper>.<name>', got {id!r}")
    profiles, seeds = profiles or Profiles(), seeds or SeedPlan()
    expect, report = expect or Expect(), report or Report()
    for name, value, cls in (
        ("source", source, Source),
        ("profiles", profiles, Profiles),
        ("seeds", seeds, SeedPlan),
        ("expect", expect, Expect),
        ("report", report, Report),
    ):
        if not isinstance(value, cls):
            raise TypeError(f"claim {id!r}: {name} must be {cls.__name__}(...), got {type(value).__name__}")
    if alternative is not None and not isinstance(alternative, Alternative):
        raise TypeError(f"claim {id!r}: alternative must be an Alternative, got {type(alternative).__name__}")
    if alternative is not None and expect.consistency:
        raise ValueError(f"claim {id!r}: a consistency check names no alternative world")
    if search is not None and not isinstance(search, Search):
        raise TypeError(f"claim {id!r}: search must be a Search, got {type(search).__name__}")
    for name, rule in (rules or {}).items():
        if not isinstance(rule, Rule):
            raise TypeError(f"claim {id!r}: rule {name!r} must be a Rule, got {type(rule).__name__}")
    quick, all_rules, chosen = declare_choices(id, choices, dict(profiles.quick), rules or {})

    def register(fn: ClaimFn) -> ClaimFn:
        if id in _REGISTRY and _REGISTRY[id].fn.__qualname__ != fn.__qualname__:
            raise ValueError(f"claim id {id!r} is registered twice")
        if not (fn.__doc__ or "").strip():
            raise ValueError(f"claim {id!r} needs a docstring citing paper, theorem and equation")
        named = {*quick, *dict(profiles.paper)}
        named |= set(dict(alternative.overrides)) if isinstance(alternative, Alternative) else set()
        _check_signature(id, fn, named)
        owner = _owner(fn)
        if owner is not None:
            _check_paper_claim(id, fn, owner, source.provenance, expect.consistency, alternative)
        record = ClaimRecord(
            id=id,
            paper=id.split(".", 1)[0],
            reference=source.reference,
            kind=Kind(kind),
            provenance=source.provenance,
            statement=statement,
            assumptions=tuple(assumptions),
            quick=tuple(sorted(quick.items())),
            paper_params=profiles.paper,
            expect=expect.verdict,
            rules=tuple(sorted(all_rules.items())),
            seeds=seeds.seeds,
            n_seeds=tuple(sorted(seeds.counts.items())),
            consistency=expect.consistency,
            tex=report.tex,
            plot=report.plots,
            search=search,
            alternative=alternative,
            source=source.quote,
            experiment=seeds.experiment,
            batched=seeds.batched,
            readings=expect.readings,
            expect_paper=expect.paper,
            expect_also=expect.also,
            expect_why=expect.why,
            choices=chosen,
        )
        c = Claim(record, fn)
        unchosen = {n for n, ch in chosen if ch.rule is None} - set(c.param_names())
        if unchosen:
            raise ValueError(
                f"claim {id!r}: choices {sorted(unchosen)} name no keyword parameter of {fn.__name__}"
            )
        missing = set(c.param_names()) - set(dict(record.quick))
        if missing:
            raise ValueError(f"claim {id!r}: parameters {sorted(missing)} have no quick default")
        if search is not None and search.budget not in c.param_names():
            raise ValueError(f"claim {id!r}: the search budget {search.budget!r} is not a parameter")
        if alternative is not None:
            _check_alternative(id, record, alternative, c.param_names())
        unknown = set(dict(record.quick)) | set(dict(record.paper_params))
        unknown -= set(c.param_names())
        if unknown:
            raise ValueError(f"claim {id!r}: profile parameters {sorted(unknown)} are not arguments")
        _REGISTRY[id] = c
        fn.record = record  # type: ignore[attr-defined]
        return fn

    return register


def _check_signature(claim_id: str, fn: ClaimFn, named: set[str]) -> None:
    """``fn(ctx, *, <params>)``: the runner passes the context by position and every parameter by
    name, so a parameter that is not keyword-only is an error naming it (not a complaint about the
    profiles or the alternative that name it) when the runner would have to fill it: it has no default,
    or the profiles, a choice or the alternative (``named``) give it a value. (A positional parameter with
    a default that nothing names is the function's own business.)"""
    name = getattr(fn, "__name__", "the claim function")
    params = list(inspect.signature(fn).parameters.values())
    if not params or params[0].kind not in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
        raise TypeError(f"claim {claim_id!r}: {name} must take the context first: def {name}(ctx, *, ...)")
    for p in params[1:]:
        filled = p.name in named or p.default is p.empty
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or (p.kind != p.KEYWORD_ONLY and filled):
            what = {p.VAR_POSITIONAL: f"*{p.name}", p.VAR_KEYWORD: f"**{p.name}"}.get(p.kind, p.name)
            raise TypeError(
                f"claim {claim_id!r}: parameter {what!r} of {name} must be keyword-only (a name after "
                f"the *): def {name}(ctx, *, {p.name}: ...) -- each parameter is passed by name, its "
                "quick value in profiles= or choices="
            )


@functools.cache
def _paper_packages() -> dict[str, str]:
    """Installed paper packages: module name (``verify.wu2023``) -> paper key (``wu2023``)."""
    return {ep.value.split(":", 1)[0]: ep.name for ep in metadata.entry_points(group=GROUP)}


def _owner(fn: ClaimFn) -> str | None:
    """The key of the paper a claim function belongs to: the paper whose package holds its module, else
    the paper plugin being imported; None for a claim registered outside any paper (a test's toy)."""
    module = getattr(fn, "__module__", None) or ""
    for package, key in _paper_packages().items():
        if module == package or module.startswith(package + "."):
            return key
    return loading_paper()


def _check_paper_claim(
    claim_id: str,
    fn: ClaimFn,
    owner: str,
    provenance: Provenance,
    consistency: bool,
    alternative: Alternative | None,
) -> None:
    """A claim of paper ``owner``: its id starts with ``owner.``; if it is about the paper (a paper
    provenance tag, not a consistency check) it names its alternative world."""
    prefix, where = claim_id.split(".", 1)[0], getattr(fn, "__module__", None) or "?"
    if prefix != owner:
        installed = _paper_packages().values()
        named = f"names the paper {prefix!r}" if prefix in installed else f"{prefix!r} is no installed paper"
        raise ValueError(
            f"claim {claim_id!r} (in {where}) belongs to the paper {owner!r}, but its id prefix {named}: "
            f"name it '{owner}.<name>'"
        )
    if provenance in PAPER_TAGS and not consistency and alternative is None:
        raise ValueError(
            f"claim {claim_id!r} (provenance {provenance}) is a claim about the paper and names no "
            "alternative world: add alternative=Alternative('<the nearest world where the statement is "
            "false>', overrides={...} | exponent=... | factor=...), or expect=Expect(consistency=True) if it "
            "checks the code, not the paper"
        )


def _check_alternative(claim_id: str, rec: ClaimRecord, alt: Alternative, params: tuple[str, ...]) -> None:
    """An alternative's overrides are the claim's parameters; its exponent / factor fit the kind; its
    expected verdict: violated for a claim expected to hold; the flipped verdict for a condition claim
    (holds <-> vacuous); for a documented violation, violated (the statement is false there too) or,
    better, holds (a world in which the statement would hold: the violation is no artefact of a check
    that cannot pass)."""
    kind = rec.kind
    if kind == Kind.CONDITION:
        if alt.expect == rec.expect or alt.expect not in (Verdict.HOLDS, Verdict.VACUOUS):
            raise ValueError(f"claim {claim_id!r}: a condition's alternative world flips holds and vacuous")
    elif rec.expect == Verdict.HOLDS and alt.expect != Verdict.VIOLATED:
        raise ValueError(f"claim {claim_id!r}: the alternative world of a claim that holds must violate it")
    elif alt.expect not in (Verdict.VIOLATED, Verdict.HOLDS):
        raise ValueError(f"claim {claim_id!r}: an alternative world is violated (or, for a finding, holds)")
    unknown = set(dict(alt.overrides)) - set(params)
    if unknown:
        raise ValueError(f"claim {claim_id!r}: the alternative overrides {sorted(unknown)}, not parameters")
    if kind == Kind.PROBABILITY and not alt.overrides:
        raise ValueError(f"claim {claim_id!r}: a probability claim's alternative must run another world")
    if alt.exponent is not None and kind != Kind.RATE:
        raise ValueError(f"claim {claim_id!r}: a competing exponent is for rate claims, not {kind}")
    if alt.factor is not None and kind not in (Kind.UPPER, Kind.LOWER):
        raise ValueError(f"claim {claim_id!r}: a tightening factor is for upper / lower bounds, not {kind}")


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _column_problem(values: Any, n: int) -> str | None:
    """Why ``values`` is no y series of ``n`` points (one number or None per x, or one non-empty row of
    per-seed numbers per x), or None when it is one."""
    if not isinstance(values, list):
        return f"is a {type(values).__name__}, not a list"
    if len(values) != n:
        return f"holds {len(values)} values for {n} x values"
    if all(_number(v) or v is None for v in values):
        return None
    if all(isinstance(r, list) and r and all(_number(v) for v in r) for r in values):
        return None
    return "holds something other than numbers (None for a missing point) or rows of per-seed numbers"


def series_problems(rec: ClaimRecord, series: Mapping[str, Any]) -> list[str]:
    """What keeps the claim's declared figures (its ``Report``'s panels) from being drawn from ``series``
    (the evidence's, as recorded: lists, not arrays): a key a panel reads that the series lack (a curve may
    be absent when another of its panel is there), an x series that is no list of finite numbers, a y or
    theory series of another length than its x. Empty when every panel can be drawn."""
    out: list[str] = []
    for i, p in enumerate(rec.plot):
        where = f"plot {i}" if len(rec.plot) > 1 else "the plot"
        present = [c for c in p.curves if c.y in series and (c.x is None or c.x in series)]
        absent = [k for k in (p.x, p.theory) if k and k not in series]
        absent += [] if present else [k for c in p.curves for k in (c.x, c.y) if k and k not in series]
        if absent:
            have = sorted(series)
            out.append(f"{where} reads the series keys {sorted(set(absent))}; the series hold {have}")
            continue
        lines = [(c.x or p.x, c.y) for c in present] + ([(p.x, p.theory)] if p.theory else [])
        for xkey, ykey in lines:
            if p.grid is not None:
                ys = series[ykey]
                n = len(ys) if isinstance(ys, list) else 0
            else:
                xs = series[xkey]
                if not (isinstance(xs, list) and xs and all(_number(x) for x in xs)):
                    out.append(f"{where}: series {xkey!r} (its x) must be a non-empty list of finite numbers")
                    continue
                n = len(xs)
            problem = _column_problem(series[ykey], n)
            if problem:
                out.append(f"{where}: series {ykey!r} {problem}")
    return out


def load_all() -> None:
    """Import the claims of every installed paper plugin so they register."""
    papers()


def registry() -> dict[str, Claim]:
    """All registered claims by id (sorted), after loading every paper."""
    load_all()
    return dict(sorted(_REGISTRY.items()))


def get_claim(claim_id: str) -> Claim:
    reg = registry()
    if claim_id not in reg:
        raise KeyError(f"unknown claim id {claim_id!r}; `attncheck list` shows the {len(reg)} ids")
    return reg[claim_id]


def match_claims(patterns: Iterable[str]) -> list[Claim]:
    """Claims whose id matches any glob pattern (all claims for no pattern).

    A pattern that matches nothing is an error, never an empty selection.
    """
    reg = registry()
    patterns = list(patterns)
    if not patterns:
        return list(reg.values())
    chosen: dict[str, Claim] = {}
    for pat in patterns:
        hits = [c for cid, c in reg.items() if fnmatch.fnmatchcase(cid, pat)]
        if not hits:
            raise LookupError(f"pattern {pat!r} matches no claim id; `attncheck list` shows them")
        chosen.update((c.id, c) for c in hits)
    return [chosen[k] for k in sorted(chosen)]


def _unregister(claim_id: str) -> None:
    """Remove a claim (for tests that register toy claims)."""
    _REGISTRY.pop(claim_id, None)


__all__ = [
    "PAPER_TAGS",
    "Claim",
    "claim",
    "get_claim",
    "load_all",
    "match_claims",
    "registry",
    "series_problems",
]
