"""Seeds are part of every verdict: a claim's seed set, and how its per-seed evidence combines.

How the seeds combine follows the statement (:class:`~verify.core.record.Seeds`, on the record):

- ``none``: deterministic; one call at the base seed;
- ``pooled``: one call; the claim draws one replicate per seed of ``ctx.seed_set`` and its estimate
  (pooled fit, seed bootstrap) carries the seed-to-seed spread;
- ``every``: one call per seed, each judged by the rule of the kind; holds only if every seed holds;
  otherwise the first seed in the order error > violated > out_of_regime > inconclusive > vacuous
  decides and is named; slack is the minimum over seeds. A documented finding (``expect=violated``)
  violated at some seeds but not all is ``inconclusive``: a finding must show at every seed;
- ``binomial``: one call per seed, each returning success (``measured`` a bool, ``theory`` the
  claimed probability); the probability rule (Clopper-Pearson bounds) judges k successes of n seeds.

The claim's alternative world (:class:`~verify.core.record.Alternative`) is judged from the same
evidence when it is a re-judgement (a competing exponent, a tightened bound): the result then says
whether the measurement tells the paper's world from the alternative, and its resolution: the smallest
tightening factor or exponent shift these seeds detect (:mod:`verify.core.resolution`).
``world="alternative"`` judges only the alternative (the falsifier; the runner applies its parameter
overrides).

The calls of an ``every`` or ``binomial`` claim are independent: under a parallel map (``--jobs`` on a
single claim, ``--dask``) they are the sweep points, spread over the workers (each seed's own sweeps
then run serially in its worker); the evidence is the serial run's, bit for bit. A ``batched`` claim
runs all its seeds in one call when serial, and a batch of one per seed under a parallel map: each
seed's evidence is bit-identical either way (``verify/test_batched.py``).

Every per-seed verdict and value is kept in the result (``per_seed``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from verify.core.context import Ctx, Mapper, serial_map
from verify.core.format import fmt_resolution
from verify.core.judge import decide
from verify.core.progress import count_points
from verify.core.record import Alternative, ClaimRecord, Evidence, Kind, Seeds, Verdict
from verify.core.registry import Claim
from verify.core.resolution import rejudged_resolution

#: The order in which per-seed verdicts decide an ``every`` claim.
PRECEDENCE = (
    Verdict.ERROR,
    Verdict.VIOLATED,
    Verdict.OUT_OF_REGIME,
    Verdict.INCONCLUSIVE,
    Verdict.VACUOUS,
    Verdict.HOLDS,
)


def claim_seeds(
    rec: ClaimRecord, profile: str, base: int, override: Sequence[int] | None = None
) -> list[int]:
    """The seeds a claim runs at: ``override`` (``--seeds``), else ``n_seeds[profile]`` consecutive seeds
    from ``base``; a deterministic claim runs at ``base`` (or the first seed of ``override``)."""
    if override is not None:
        seeds = [int(s) for s in override]
        if not seeds or min(seeds) < 0 or len(set(seeds)) != len(seeds):
            raise ValueError(f"seeds must be distinct integers >= 0, got {list(override)}")
        return seeds[:1] if rec.seeds == Seeds.NONE else seeds
    if rec.seeds == Seeds.NONE:
        return [base]
    return list(range(base, base + dict(rec.n_seeds)[profile]))


@dataclass
class Judged:
    """The combined outcome over a claim's seeds (what the runner turns into a Result)."""

    verdict: Verdict
    slack: float | None
    theory: Any
    measured: Any
    seeds: list[int]
    notes: list[str] = field(default_factory=list)
    series: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    headline: dict[str, Any] | None = None
    worst: Any = None
    per_seed: list[dict[str, Any]] = field(default_factory=list)
    decision: dict[str, Any] = field(default_factory=dict)
    alternative: dict[str, Any] | None = None


def _call(c: Claim, ctx: Ctx, params: dict[str, Any]) -> Evidence:
    return _checked(c, c.fn(ctx, **params))


def _call_batch(c: Claim, ctx: Ctx, params: dict[str, Any]) -> list[Evidence]:
    """A batched claim's evidence for every seed of ``ctx.seed_set``, in order."""
    out = c.fn(ctx, **params)
    if not isinstance(out, list) or len(out) != len(ctx.seed_set):
        raise TypeError(
            f"batched claim {c.id!r} must return a list of {len(ctx.seed_set)} Evidence (one per seed), "
            f"got {type(out).__name__}" + (f" of {len(out)}" if isinstance(out, list) else "")
        )
    return [_checked(c, ev) for ev in out]


def _checked(c: Claim, ev: Any) -> Evidence:
    if not isinstance(ev, Evidence):
        raise TypeError(f"claim {c.id!r} returned {type(ev).__name__}, not Evidence")
    if c.record.search is not None and ev.worst is None:
        raise ValueError(f"claim {c.id!r} declares a worst-case search, but its evidence has no worst")
    if c.record.search is None and ev.worst is not None:
        raise ValueError(f"claim {c.id!r} returns a worst case, but declares no search (Search)")
    return ev


def _single(kind: Kind, ev: Evidence, seeds: list[int]) -> Judged:
    verdict, slack, notes, decision = decide(kind, ev)
    return Judged(
        verdict, slack, ev.theory, ev.measured, list(ev.seeds or seeds), [*ev.notes, *notes],
        ev.series, ev.params, ev.headline, ev.worst, decision=decision,
    )  # fmt: skip


def _check_tolerance(rec: ClaimRecord, ev: Evidence) -> None:
    """A rate claim's band must separate its exponent from the competing one its record names."""
    alt = rec.alternative
    if rec.kind != Kind.RATE or alt is None or alt.exponent is None or ev.tol is None:
        return
    p, q = float(ev.theory), float(alt.exponent)
    if ev.tol > abs(p - q) / 2 * (1 + 1e-12):
        raise ValueError(
            f"claim {rec.id!r}: tolerance {ev.tol:g} exceeds half the distance from {p:g} to the competing "
            f"exponent {q:g} ({abs(p - q) / 2:g}): holds would not separate the two"
        )


def _row(seed: int, j: Judged) -> dict[str, Any]:
    return (
        {
            "seed": seed,
            "verdict": str(j.verdict),
            "theory": j.theory,
            "measured": j.measured,
            "slack": j.slack,
            "branch": j.decision.get("branch"),
        }
        | ({"worst_ratio": j.worst.ratio, "typical_ratio": j.worst.typical} if j.worst is not None else {})
        | ({"interval": j.decision["interval"]} if "interval" in j.decision else {})
    )


def _every(kind: Kind, per: list[tuple[int, Judged]], expect: Verdict = Verdict.HOLDS) -> Judged:
    verdicts = [j.verdict for _, j in per]
    overall = next(v for v in PRECEDENCE if v in verdicts)
    split = overall == Verdict.VIOLATED and expect == Verdict.VIOLATED and set(verdicts) != {overall}
    at = [(s, j) for s, j in per if j.verdict == overall]
    if overall in (Verdict.HOLDS, Verdict.VACUOUS):  # the tightest seed represents the set
        at.sort(key=lambda sj: float("inf") if sj[1].slack is None else sj[1].slack)
    seed, rep = at[0]
    slacks = [j.slack for _, j in per if j.slack is not None]
    counts = ", ".join(f"{v} {verdicts.count(v)}" for v in PRECEDENCE if v in verdicts)
    head = f"seeds {[s for s, _ in per]} (every seed must hold): {counts}; shown: seed {seed}"
    if overall == Verdict.VIOLATED:
        head += f", the first violating seed ({len(at)} of {len(per)} violate)"
    if split:  # a documented finding must show at every seed, or it is not a finding
        overall = Verdict.INCONCLUSIVE
        head += "; a finding must be violated at every seed, so the set is inconclusive"
    decision = {**rep.decision, "seed": seed, "every_seed": counts}
    return Judged(
        overall, min(slacks) if slacks else None, rep.theory, rep.measured, [s for s, _ in per],
        [head, *(f"seed {seed}: {n}" for n in rep.notes)], rep.series, rep.params, rep.headline,
        rep.worst, [_row(s, j) for s, j in per], decision,
    )  # fmt: skip


def _binomial(per: list[tuple[int, Evidence]]) -> Judged:
    stopped = [ev for _, ev in per if ev.inconclusive]
    if stopped:  # a seed that cannot be judged (a missing optional package): neither can the set
        return _single(Kind.PROBABILITY, stopped[0], [s for s, _ in per])
    for s, ev in per:
        if not isinstance(ev.measured, bool):
            raise TypeError(
                f"a binomial claim returns success as a bool per seed; seed {s} gave {ev.measured!r}"
            )
    p0 = {float(ev.theory) for _, ev in per}
    if len(p0) != 1:
        raise ValueError(f"a binomial claim states one probability for every seed, got {sorted(p0)}")
    failed = [(s, f) for s, ev in per for f in ev.failed]
    k = sum(ev.measured for _, ev in per if not ev.failed)
    n = sum(1 for _, ev in per if not ev.failed)
    combined = Evidence(
        theory=p0.pop(), measured=[k, n], failed=[f"seed {s}: {f}" for s, f in failed],
        series=per[0][1].series, params=per[0][1].params,
    )  # fmt: skip
    verdict, slack, notes, decision = decide(Kind.PROBABILITY, combined)
    losers = [s for s, ev in per if not ev.measured]
    rows = [
        {
            "seed": s,
            "verdict": "success" if ev.measured else "failure",
            "theory": ev.theory,
            "measured": ev.measured,
        }
        for s, ev in per
    ]
    seeds = [s for s, _ in per]
    notes = [
        f"seeds {seeds}: failures at {losers or 'none'}",
        *notes,
        *(f"seed {seeds[0]}: {n}" for n in per[0][1].notes),
    ]
    return Judged(verdict, slack, combined.theory, combined.measured, seeds, notes, combined.series,
                  combined.params, None, None, rows, decision)  # fmt: skip


@dataclass(frozen=True)
class _SeedCall:
    """One seed's call of an ``every`` / ``binomial`` claim (a sweep point of a parallel map)."""

    claim: Claim
    ctx: Ctx
    params: dict[str, Any]


def seed_calls(
    c: Claim,
    *,
    profile: str,
    seeds: list[int],
    params: dict[str, Any],
    rules: Mapping[str, Any] | None = None,
) -> list[_SeedCall]:
    """The independent per-seed calls of an ``every`` / ``binomial`` claim, as a parallel map runs them
    (each seed's own sweeps serial); :func:`run_seed_call` runs one. rules: rule values replacing the
    record's."""
    rules = {k: r.value for k, r in c.record.rules} | dict(rules or {})
    return [
        _SeedCall(c, Ctx(profile=profile, seed=s, rules=rules, seed_set=tuple(seeds)), params) for s in seeds
    ]


def run_seed_call(call: _SeedCall) -> Evidence:
    """One seed's evidence (a batch of one for a batched claim); an error names the seed."""
    try:
        if call.claim.record.batched:  # a batch of one
            return _call_batch(call.claim, replace(call.ctx, seed_set=(call.ctx.seed,)), call.params)[0]
        return _call(call.claim, call.ctx, call.params)
    except Exception as exc:
        raise RuntimeError(f"seed {call.ctx.seed}: {type(exc).__name__}: {exc}") from exc


def evaluate(
    c: Claim,
    *,
    profile: str,
    seeds: list[int],
    mapper: Mapper,
    params: dict[str, Any],
    world: str = "paper",
    rules: Mapping[str, Any] | None = None,
) -> Judged:
    """Run claim ``c`` over ``seeds`` as its record's :class:`Seeds` says and combine the verdicts.

    world: ``"paper"`` judges the statement (and, alongside, a re-judged alternative); ``"alternative"``
    judges the record's alternative world only (the caller has applied its parameter overrides).
    rules: rule values replacing the record's (a robust run's rule choices).
    """
    rec = c.record
    rules = {k: r.value for k, r in rec.rules} | dict(rules or {})
    alt = rec.alternative
    if world not in ("paper", "alternative"):
        raise ValueError(f"world must be 'paper' or 'alternative', got {world!r}")
    if world == "alternative" and alt is None:
        raise ValueError(f"claim {c.id!r} names no alternative world")

    def ctx(seed: int) -> Ctx:
        return Ctx(profile=profile, seed=seed, mapper=mapper, rules=rules, seed_set=tuple(seeds))

    if rec.seeds in (Seeds.NONE, Seeds.POOLED):
        per = [(seeds[0], _call(c, ctx(seeds[0]), params))]
        seeds = seeds[:1] if rec.seeds == Seeds.NONE else seeds
    else:
        if mapper is serial_map and rec.batched:  # every seed in one batched call
            evidence = _call_batch(c, ctx(seeds[0]), params)
        else:
            calls = seed_calls(c, profile=profile, seeds=seeds, params=params, rules=rules)
            if mapper is serial_map:
                evidence = [run_seed_call(call) for call in calls]
            else:  # the seeds are the sweep points; each seed's own sweeps run serially in its worker
                count_points(total=len(calls))
                evidence = mapper(run_seed_call, calls)
        per = list(zip(seeds, evidence, strict=True))
    expect = rec.expected(profile)
    if world == "alternative":
        return _combine(rec, [(s, alt.apply(rec.kind, ev)) for s, ev in per], seeds, alt.expect, alt)
    out = _combine(rec, per, seeds, expect)
    if alt is not None and alt.rejudged and rec.seeds != Seeds.BINOMIAL:
        other = _combine(rec, [(s, alt.apply(rec.kind, ev)) for s, ev in per], seeds, alt.expect, alt)

        def verdict_of(f: Callable[[Evidence], Evidence]) -> Verdict:  # the same seeds, combined alike
            return _combine(rec, [(s, f(ev)) for s, ev in per], seeds, alt.expect, alt).verdict

        res = rejudged_resolution(alt, rec.kind, per[0][1].theory, verdict_of)
        out.alternative = {"world": alt.describe(), "verdict": str(other.verdict), "resolution": res}
        why = "" if res is None or res["value"] is None else f"; {res['note']}"  # None: the note is shown
        out.notes.append(f"resolution of the alternative world: {fmt_resolution(res)}{why}")
    return out


def _combine(
    rec: ClaimRecord,
    per: list[tuple[int, Evidence]],
    seeds: list[int],
    expect: Verdict,
    alt: Alternative | None = None,
) -> Judged:
    """The verdict over the seeds' evidence, as the record's :class:`Seeds` says; ``expect``: the verdict
    worked toward (the record's in this profile, or in the alternative world the falsifier's: a
    violation must show at every seed either way)."""
    if alt is None:
        for _, ev in per:
            _check_tolerance(rec, ev)
    if rec.seeds in (Seeds.NONE, Seeds.POOLED):
        return _single(rec.kind, per[0][1], seeds)
    if rec.seeds == Seeds.BINOMIAL:
        return _binomial(per)
    return _every(rec.kind, [(s, _single(rec.kind, ev, [s])) for s, ev in per], expect)


__all__ = ["PRECEDENCE", "Judged", "claim_seeds", "evaluate", "run_seed_call", "seed_calls"]
