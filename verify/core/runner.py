"""Running claims: parameters from the profile, the claim function, the verdict rule, a Result."""

from __future__ import annotations

import contextlib
import platform
import time
import traceback
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import Any

from bounds.checks import check_choice, check_int
from verify.core.choices import judge
from verify.core.context import PROFILES, Mapper, serial_map, sweep_memo
from verify.core.record import Result, Verdict, to_jsonable
from verify.core.registry import Claim, get_claim, series_problems
from verify.core.seeds import claim_seeds, evaluate
from verify.numerics.threads import single_thread


def library_versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for dist in ("attncheck", "numpy", "scipy", "mpmath"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def run_claim(
    c: Claim | str,
    /,
    *,
    profile: str = "quick",
    seed: int = 0,
    seed_set: Sequence[int] | None = None,
    mapper: Mapper = serial_map,
    raise_errors: bool = False,
    world: str = "paper",
    rules: Mapping[str, Any] | None = None,
    robust: bool | str = False,
    **overrides: Any,
) -> Result:
    """Run one claim at the profile's parameters (``overrides`` replace some) and judge it.

    The claim runs over its seed set (:mod:`verify.core.seeds`: ``n_seeds`` consecutive seeds from
    ``seed``, or ``seed_set`` when given) with BLAS limited to one thread (:mod:`verify.numerics.threads`).
    An exception inside the claim becomes verdict ``error`` with the traceback's last line in the
    notes, unless ``raise_errors`` (tests use it to see the traceback). Unknown parameter names in
    ``overrides`` raise ``ValueError`` before anything runs. world: ``"paper"`` (the statement) or
    ``"alternative"``: the record's alternative world (:class:`~verify.core.record.Alternative`, its
    parameter overrides applied before ``overrides``), judged as the falsifier of the claim. A judged run
    (holds, violated, vacuous) of the paper world (the figure's) of a claim that declares ``plot=`` errs
    when its series, at any seed set, cannot feed the declared panels
    (:func:`~verify.core.registry.series_problems`), rather than drawing no figure.
    rules: values replacing some of the record's pass rules (unknown names raise ``ValueError``).
    robust: the verdict is judged over the record's choices too (:func:`judge_robustness`; the world
    must be ``"paper"``): always (True), never (False), or when it is a violation of the paper's own
    statement (``"findings"``, as the default run does: :func:`wants_robustness`); the result's times
    then include those runs. ``c`` is positional-only, so that a claim parameter named ``c`` can be
    overridden (and moved by a robust run) like any other.
    """
    c = get_claim(c) if isinstance(c, str) else c
    check_choice("profile", profile, PROFILES)
    robust = check_robust(robust)
    rules = dict(rules or {})
    declared = sorted(dict(c.record.rules))
    if set(rules) - set(declared):
        raise ValueError(
            f"claim {c.id!r} has no pass rules {sorted(set(rules) - set(declared))}; it declares {declared}"
        )
    if robust is True and world != "paper":
        raise ValueError(f"robust judges the paper world only, got world={world!r}")
    if world != "paper":  # the findings mode judges the paper world's violations only
        robust = False
    seed = check_int("seed", seed, low=0)
    seed_list = claim_seeds(c.record, profile, seed, seed_set)
    params = c.record.params_for(profile)
    if world == "alternative" and c.record.alternative is not None:
        overrides = dict(c.record.alternative.overrides) | overrides
    unknown = set(overrides) - set(c.param_names())
    if unknown:
        raise ValueError(f"claim {c.id!r} has no parameters {sorted(unknown)}; it takes {c.param_names()}")
    params.update(overrides)
    start, cpu = time.perf_counter(), time.process_time()
    with sweep_memo() if robust is not False else contextlib.nullcontext():  # points reused when judged
        result = _run(c, profile, seed, seed_list, mapper, params, world, rules, raise_errors)
        if wants_robustness(result, robust):
            judge_robustness(c, result, seed=seed, seed_set=seed_set, mapper=mapper, rules=rules, **overrides)
    result.wall_time = time.perf_counter() - start
    result.cpu_time = time.process_time() - cpu
    return result


def _run(
    c: Claim,
    profile: str,
    seed: int,
    seed_list: list[int],
    mapper: Mapper,
    params: dict[str, Any],
    world: str,
    rules: dict[str, Any],
    raise_errors: bool,
) -> Result:
    """The body of :func:`run_claim`: the claim evaluated and its result built (``error`` on an
    exception unless ``raise_errors``)."""
    try:
        with single_thread():
            j = evaluate(
                c, profile=profile, seeds=seed_list, mapper=mapper, params=params, world=world, rules=rules
            )
        series = to_jsonable(j.series)
        drawn = world == "paper" and j.verdict in (Verdict.HOLDS, Verdict.VIOLATED, Verdict.VACUOUS)
        if c.record.plot and drawn:
            problems = series_problems(c.record, series)
            if problems:  # a judged run draws its figure: a declaration its series cannot feed is a bug
                raise ValueError(f"claim {c.id!r}: its plot= cannot be drawn: {'; '.join(problems)}")
        fixed = _fixed(c, profile)
        if world == "alternative":  # the falsifier: the statement must fail in the alternative world
            fixed["expected"] = c.record.alternative.expect
            j.notes.insert(0, f"alternative world: {c.record.alternative.describe()}")
        result = Result(
            **fixed,
            params=to_jsonable(params | j.params),
            seeds=j.seeds,
            theory=to_jsonable(j.theory),
            measured=to_jsonable(j.measured),
            slack=j.slack,
            verdict=j.verdict,
            notes=j.notes
            + (
                [f"alternative world ({j.alternative['world']}): {j.alternative['verdict']}"]
                if j.alternative
                else []
            ),
            series=series,
            versions=library_versions(),
            per_seed=to_jsonable(j.per_seed),
            headline=to_jsonable(j.headline),
            worst=to_jsonable(j.worst),
            consistency=c.record.consistency,
            decision=to_jsonable(j.decision),
            alternative=to_jsonable(j.alternative),
        )
    except Exception as exc:
        if raise_errors:
            raise
        last = traceback.format_exception_only(exc)[-1].strip()
        result = error_result(c, profile=profile, seed=seed, note=last, params=params)
    return result


#: What a run judges over the claims' choices (:func:`wants_robustness`): ``False`` nothing, ``True``
#: every verdict (``--robust``), ``"findings"`` (the default run) every violated claim of a paper's own
#: statement, so that a finding is counted only when it is robust.
ROBUST_MODES = (False, True, "findings")


def check_robust(robust: object) -> bool | str:
    """``robust`` if it is one of :data:`ROBUST_MODES`, else ValueError naming them."""
    if not any(robust is m or (isinstance(m, str) and robust == m) for m in ROBUST_MODES):
        raise ValueError(f"robust must be one of {ROBUST_MODES}, got {robust!r}")
    return robust  # type: ignore[return-value]


def wants_robustness(r: Result, robust: bool | str) -> bool:
    """Whether a run in mode ``robust`` (:data:`ROBUST_MODES`) judges result ``r`` over its choices: every
    result (True), a violated claim of the paper's own statement, a finding if robust ("findings")."""
    if robust == "findings":
        return r.verdict == Verdict.VIOLATED and r.attribution == "paper"
    return robust is True


def judge_robustness(
    c: Claim,
    result: Result,
    *,
    seed: int = 0,
    seed_set: Sequence[int] | None = None,
    mapper: Mapper = serial_map,
    rules: Mapping[str, Any] | None = None,
    **overrides: Any,
) -> None:
    """Set ``result``'s ``robust`` and ``depends_on`` (and add its notes) by running claim ``c`` again
    at its choices' points (:func:`verify.core.choices.judge`), at the result's profile and the same
    seeds, ``rules`` and ``overrides`` as the run that gave ``result``."""
    rules = dict(rules or {})
    rule_names = {k for k, _ in c.record.rules}
    current = (
        c.record.params_for(result.profile) | overrides | {k: r.value for k, r in c.record.rules} | rules
    )

    def probe(name: str, value: Any) -> tuple[Verdict, str]:
        moved = (
            (rules | {name: value}, overrides) if name in rule_names else (rules, overrides | {name: value})
        )
        r = run_claim(
            c, profile=result.profile, seed=seed, seed_set=seed_set, mapper=mapper, rules=moved[0], **moved[1]
        )
        return r.verdict, r.notes[0] if r.notes else ""

    with sweep_memo():  # the choice points share their sweep points (and the run's, inside run_claim)
        found = judge(
            c.record.choices, current, result.verdict, probe, profile=c.record.params_for(result.profile)
        )
    result.robust, result.depends_on = found.robust, found.depends_on
    result.notes = [*result.notes, *found.notes]


def _fixed(c: Claim, profile: str) -> dict[str, Any]:
    rec = c.record
    return dict(
        claim_id=c.id, paper=rec.paper, reference=rec.reference, kind=rec.kind,
        provenance=rec.provenance, statement=rec.statement, profile=profile, expected=rec.expected(profile),
        also=rec.also_expected(profile),
    )  # fmt: skip


def error_result(
    c: Claim,
    *,
    profile: str,
    seed: int,
    note: str,
    params: dict[str, Any] | None = None,
    wall_time: float = 0.0,
) -> Result:
    """The ``error`` result of claim ``c`` at ``params`` (default: the profile's), ``note`` saying why.

    The runner uses it for an exception inside the claim; the parallel backends for a claim whose
    worker process died.
    """
    return Result(
        **_fixed(c, profile), params=to_jsonable(c.record.params_for(profile) if params is None else params),
        seeds=[seed],
        theory=None, measured=None, slack=None, verdict=Verdict.ERROR, notes=[note],
        wall_time=wall_time, versions=library_versions(),
    )  # fmt: skip
