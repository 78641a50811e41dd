"""One test battery for the claims of any paper: ``@parametrize_with_claims(paper)``.

Modelled on scikit-learn's ``parametrize_with_checks``. A paper's test file (a plugin's too) reads::

    from verify.testing import parametrize_with_claims

    @parametrize_with_claims("wu2023")
    def test_claim(check):
        check()

and pytest runs, for every claim of the paper, the checks below at the session's claim profile
(``$ATTNCHECK_PROFILE``, default quick), each with the id ``<claim id>-<check>``:

- ``verdict``: over its seed set from 0, the claim reaches the verdict its record expects, on
  positive evidence (a rate's interval inside or outside its band, a probability's Clopper-Pearson
  bound on the target's side, a bound judged on an interval by its hard side); an expected violation
  or vacuity of a statement for every draw shows at every seed;
- ``holds``, for an expected violation (a finding, an answer, a reconstruction mismatch): the
  statement holds, ``xfail(strict=True)`` with the reason read from the record;
- ``stability@1000``, ``@2000``, ``@3000``, for a claim with random draws: its expected verdict at
  three further seed sets, each of the claim's own size from that base (:data:`STABILITY_BASES`), or
  a borderline claim's second one (``Expect.also``: at the default seeds only the first); for
  an expected violation of the paper's own statement the same robustness over its choices as at the
  default seeds (a finding is robust at every set); and where the ``alternative`` check runs, the
  alternative world's expected verdict at that set too (a falsifier must fail at every set). An
  expected violation (a finding must show at every seed set) runs all three by default; any other
  claim runs one of them by default (:func:`default_base`, fixed by its id) and the other two with
  ``--runslow`` (marked ``slow``), which keeps the default suite within its time on 2 cores;
- ``alternative``, for a claim about the paper (not a consistency check): in its alternative world it
  gives the verdict that world expects (``violated``; ``holds`` for the world in which an expected
  violation would hold); skipped where the claim leaves its premises at the profile's sizes (expected
  ``out_of_regime``): it is judged, and falsified, in the paper profile;
- ``robust``, for an expected violation of the paper's own statement: the run judged it over the
  claim's choices (robust, or naming the choice that decides it), or says which choice this profile
  moves;
- ``paper``, marked ``slow`` and skipped unless pytest runs with ``--runslow`` (a plugin declares both
  in its conftest.py, docs/authoring.md): the verdict the record expects in the paper profile.

The checks of one claim share one run at the profile's defaults (:func:`cached_run`, which the
baseline gate's tests share too); :func:`claim_checks` gives the same checks as plain callables.
"""

from __future__ import annotations

import functools
import os
import pickle
import tempfile
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

from bounds.checks import check_choice
from verify.core import (
    PAPERS_OWN,
    PROFILE_ENV,
    PROFILES,
    ClaimRecord,
    Result,
    Seeds,
    Verdict,
    registry,
    run_claim,
)

#: The base seeds of the three further seed sets of the stability checks. A seed set is below 1000
#: seeds, so the sets are disjoint from each other and from the default one (base 0).
STABILITY_BASES = (1000, 2000, 3000)

#: The skip of a paper-scale check: its reason (attncheck's conftest.py gives the same) and condition.
_SLOW = "paper-scale; run with --runslow"
_NO_RUNSLOW = "not config.getoption('--runslow', False)"
#: The skip of a further stability seed set of a claim that is no expected violation.
_FURTHER = "a further stability seed set (one runs by default); run with --runslow"


# ------------------------------------------------------------------------------------------ the run


def claim_profile() -> str:
    """The claim profile of this test session: ``$ATTNCHECK_PROFILE`` (default quick); another value is
    a ValueError naming the variable and the allowed profiles."""
    return check_choice(PROFILE_ENV, os.environ.get(PROFILE_ENV, "quick"), PROFILES)


def cached_run(claim_id: str, profile: str = "quick", seed: int = 0) -> Result:
    """``run_claim`` at the profile's defaults over the seed set from ``seed``, as the default run judges
    it (a violation of the paper's own statement judged over the claim's choices), computed once per
    test session; callers must not mutate it.

    Under pytest-xdist the workers of one session share the runs through files in a folder of the
    session (:func:`_shared`): the first worker to ask runs the claim, the others read it.
    """
    return _cached(claim_id, profile, seed, "paper")


def cached_runs(claim_ids: Iterable[str], profile: str = "quick", seed: int = 0) -> list[Result]:
    """:func:`cached_run` of each claim of ``claim_ids``, in that order. A worker first runs every claim
    that no worker has taken yet, passing over those another worker is running, and then reads those:
    two workers that ask for the same claims (the gate and the README test) split them between them
    instead of one waiting for the other claim by claim."""
    ids = list(claim_ids)
    for cid in ids:
        _cached(cid, profile, seed, "paper", block=False)
    return [cached_run(cid, profile, seed) for cid in ids]


def cached_alternative(claim_id: str, profile: str = "quick") -> Result:
    """The claim's alternative world (``run_claim(..., world="alternative")``) at the profile's defaults
    over the seed set from 0, computed once per test session and shared as :func:`cached_run` shares its
    runs: the battery's ``alternative`` check and the paper tests that read that world run it once."""
    return _cached(claim_id, profile, 0, "alternative")


#: The runs this process holds, by (claim id, profile, first seed, world).
_RUNS: dict[tuple[str, str, int, str], Result] = {}


def _cached(claim_id: str, profile: str, seed: int, world: str, block: bool = True) -> Result | None:
    """The run from this process's store, else computed or read (:func:`_shared` under xdist); None
    when ``block`` is False and another worker is running it."""
    key = (claim_id, profile, seed, world)
    if key not in _RUNS:
        uid = os.environ.get("PYTEST_XDIST_TESTRUNUID")
        if uid is None:
            r = _default_run(claim_id, profile, seed, world)
        else:
            folder = Path(tempfile.gettempdir()) / f"attncheck-runs-{uid}"
            r = _shared(folder, claim_id, profile, seed, world, block=block)
        if r is None:
            return None
        _RUNS[key] = r
    return _RUNS[key]


def _default_run(claim_id: str, profile: str, seed: int, world: str = "paper") -> Result:
    return run_claim(claim_id, profile=profile, seed=seed, world=world, robust="findings")


def _shared(
    folder: Path,
    claim_id: str,
    profile: str,
    seed: int,
    world: str = "paper",
    wait: float = 900.0,
    block: bool = True,
) -> Result | None:
    """The run of ``claim_id`` in ``world`` from ``folder`` (private to this user, named by the session's
    random id), computing and publishing it when no worker has claimed it (an exclusive lock file); a
    worker that waits longer than ``wait`` seconds runs it itself; with ``block`` False, None instead of
    waiting for another worker's run."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    name = f"{claim_id}-{profile}-{seed}" + ("" if world == "paper" else f"-{world}")
    out = folder / f"{name}.pickle"
    try:
        os.close(os.open(out.with_suffix(".lock"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:  # another worker runs it: wait for its result
        deadline = time.monotonic() + (wait if block else 0.0)
        while True:
            if out.exists():
                return pickle.loads(out.read_bytes())
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        return _default_run(claim_id, profile, seed, world) if block else None
    r = _default_run(claim_id, profile, seed, world)
    tmp = out.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(pickle.dumps(r))
    os.replace(tmp, out)  # readers never see a half-written file
    return r


# ------------------------------------------------------------------------------------------ the checks


def _verdict(rec: ClaimRecord, profile: str) -> None:
    r = cached_run(rec.id, profile)
    assert r.verdict != Verdict.ERROR, f"{rec.id} errs: {r.notes}"
    assert r.verdict == r.expected, f"{rec.id}: {r.verdict}, expected {r.expected}: {r.notes}"
    if r.verdict in (Verdict.VIOLATED, Verdict.VACUOUS) and rec.seeds == Seeds.EVERY:
        verdicts = {row["verdict"] for row in r.per_seed}
        assert verdicts == {str(r.verdict)}, f"{rec.id}: not {r.verdict} at every seed: {r.per_seed}"
    _rests_on_evidence(r)


def _rests_on_evidence(r: Result) -> None:
    """The verdict rests on positive evidence, read from the decision the result records."""
    d, where = r.decision or {}, (r.claim_id, r.decision)
    if d.get("rule") == "rate" and r.verdict in (Verdict.HOLDS, Verdict.VIOLATED):
        (lo, hi), (blo, bhi) = d["interval"], d["band"]
        inside, outside = blo <= lo and hi <= bhi, hi < blo or lo > bhi
        assert inside if r.verdict == Verdict.HOLDS else outside, where
        assert d["tol"] > 0 and bhi - blo == pytest.approx(2 * d["tol"]), where
    if d.get("rule") == "probability" and r.verdict in (Verdict.HOLDS, Verdict.VIOLATED):
        lo, hi = d["interval"]
        assert lo >= d["target"] if r.verdict == Verdict.HOLDS else hi < d["target"], where
    if d.get("rule") in ("upper", "lower") and "interval" in d:
        upper = d["rule"] == "upper"
        assert d["hard_side"] == ("upper end" if upper else "lower end"), where
        assert d["sided"] in ("one-sided", "two-sided") and 0 < d["level"] < 1, where
        (lo, hi), t = d["interval"], d["theory"]
        if r.verdict == Verdict.HOLDS:
            assert d["side"] == d["hard_side"] and (hi <= t if upper else lo >= t), where
        if r.verdict == Verdict.VIOLATED:
            assert d["side"] != d["hard_side"] and (lo > t if upper else hi < t), where


def _holds(rec: ClaimRecord, profile: str) -> None:
    r = cached_run(rec.id, profile)
    assert r.verdict == Verdict.HOLDS, f"{rec.id}: {r.verdict}: {r.notes}"


def _is_finding(rec: ClaimRecord, profile: str) -> bool:
    """An expected violation of the paper's own statement: judged over its choices, robust at every set."""
    return rec.expected(profile) == Verdict.VIOLATED and rec.provenance in PAPERS_OWN


def _at_seeds(rec: ClaimRecord, profile: str, base: int) -> None:
    finding = _is_finding(rec, profile)
    r = run_claim(rec.id, profile=profile, seed=base, robust="findings" if finding else False)
    also = f" or {r.also}" if r.also else ""  # a borderline claim: either verdict at a further set
    assert r.as_expected, (
        f"{rec.id} at seeds from {base}: {r.verdict}, expected {r.expected}{also}; " + "; ".join(r.notes[:4])
    )
    if finding:  # a finding at the default seed set is one at every set, and a "depends on" stays one
        at_0 = cached_run(rec.id, profile).robust
        assert r.robust == at_0, (
            f"{rec.id} at seeds from {base}: robust {r.robust}, at the default seeds {at_0}; depends on "
            f"{[d['choice'] for d in r.depends_on or []]}"
        )
    if _judges_alternative(rec, profile):  # the alternative world can fail at this seed set too
        _check_alternative(
            rec,
            f" at seeds from {base}",
            lambda: r,
            lambda: run_claim(rec.id, profile=profile, seed=base, world="alternative"),
        )


def _judges_alternative(rec: ClaimRecord, profile: str) -> bool:
    """Whether the battery runs the claim's alternative world: a claim about a paper, unless it leaves
    its premises at this profile's sizes (expected ``out_of_regime``; judged in the paper profile)."""
    return not rec.consistency and not (rec.expected(profile) == Verdict.OUT_OF_REGIME and profile != "paper")


def _check_alternative(
    rec: ClaimRecord, where: str, paper_run: Callable[[], Result], world_run: Callable[[], Result]
) -> None:
    """The claim's alternative world gives the verdict it expects: read from the paper world's run
    (``paper_run``) when that run judges it (``rejudged``), else from ``world_run``; ``where`` names
    the seed set in the message."""
    alt = rec.alternative
    assert alt is not None, f"{rec.id} names no alternative world"
    if alt.rejudged:
        judged = paper_run().alternative
        assert judged is not None, f"{rec.id}{where}: the run did not judge its alternative"
        verdict = judged["verdict"]
    else:
        verdict = world_run().verdict
    assert verdict == alt.expect, (
        f"{rec.id}{where}: in its alternative world ({alt.describe()}) it is {verdict}"
    )


def _alternative(rec: ClaimRecord, profile: str) -> None:
    _check_alternative(
        rec, "", lambda: cached_run(rec.id, profile), lambda: cached_alternative(rec.id, profile)
    )


def _robust(rec: ClaimRecord, profile: str) -> None:
    r = cached_run(rec.id, profile)
    if r.robust is None:
        why = [n for n in r.notes if n.startswith("robustness: not judged")]
        moved = ("this run moves", "what this profile moves")
        assert why and any(m in why[-1] for m in moved), f"{rec.id}: not judged over its choices: {why}"
    else:
        assert r.robust or r.depends_on, f"{rec.id}: not robust, but names no choice that decides it"


def _paper(rec: ClaimRecord) -> None:
    r = run_claim(rec.id, profile="paper", seed=0)
    assert r.verdict != Verdict.ERROR, f"{rec.id} errs: {r.notes}"
    assert r.verdict == r.expected, f"{rec.id}: {r.verdict} (expected {r.expected}): {r.notes}"


@dataclass(frozen=True)
class Check:
    """One check of the battery on one claim: calling it runs it (an AssertionError when it fails).

    claim_id, name: what it checks (its id is ``<claim_id>-<name>``); run: the check itself; xfail: why
    it is expected to fail (strictly), read from the record; skip: why it does not run at this profile;
    slow: run only with ``--runslow`` (a paper-scale run, or a further stability seed set).
    """

    claim_id: str
    name: str
    run: Callable[[], None]
    xfail: str = ""
    skip: str = ""
    slow: bool = False

    @property
    def id(self) -> str:
        return f"{self.claim_id}-{self.name}"

    def __call__(self) -> None:
        self.run()

    def param(self) -> object:
        """This check as a ``pytest.param`` with its marks (xfail strict, skip, slow)."""
        marks = []
        if self.xfail:
            marks.append(pytest.mark.xfail(strict=True, reason=self.xfail))
        if self.skip:
            marks.append(pytest.mark.skip(reason=self.skip))
        if self.slow:  # skipped without --runslow also where no conftest.py skips `slow` (a plugin)
            reason = _SLOW if self.name == "paper" else _FURTHER
            marks += [pytest.mark.slow, pytest.mark.skipif(_NO_RUNSLOW, reason=reason)]
        return pytest.param(self, id=self.id, marks=marks)


def default_base(claim_id: str) -> int:
    """The one stability base a claim that is no expected violation runs by default: fixed by its id
    (CRC-32), so it does not move when claims are added, and spread evenly over the three bases."""
    return STABILITY_BASES[zlib.crc32(claim_id.encode()) % len(STABILITY_BASES)]


def _expected_violation(rec: ClaimRecord) -> str:
    """Why the claim is expected to be violated, from its record."""
    return f"expected violated ({rec.provenance}, {rec.reference}): {rec.statement}; see the errata"


def _checks_of(rec: ClaimRecord, profile: str) -> list[Check]:
    """The battery's checks of the claim ``rec`` at ``profile`` (the module docstring lists them)."""
    expect, seeded = rec.expected(profile), rec.seeds != Seeds.NONE

    def check(name: str, fn: Callable[..., None], *args: object, **how: str | bool) -> Check:
        return Check(rec.id, name, functools.partial(fn, rec, *args), **how)

    checks = [check("verdict", _verdict, profile)]
    if expect == Verdict.VIOLATED:
        checks.append(check("holds", _holds, profile, xfail=_expected_violation(rec)))
    if seeded:
        every = expect == Verdict.VIOLATED  # a finding shows at every seed set
        further = [] if every else [b for b in STABILITY_BASES if b != default_base(rec.id)]
        checks += [check(f"stability@{b}", _at_seeds, profile, b, slow=b in further) for b in STABILITY_BASES]
    if not rec.consistency:
        skip = ""
        if not _judges_alternative(rec, profile):
            skip = (
                f"{rec.id} leaves its premises at {profile} sizes: it is judged, and falsified, in the paper "
                "profile"
            )
        checks.append(check("alternative", _alternative, profile, skip=skip))
    if _is_finding(rec, profile):
        checks.append(check("robust", _robust, profile))
    checks.append(check("paper", _paper, slow=True))
    return checks


def claim_checks(paper: str, profile: str | None = None) -> list[Check]:
    """The battery's checks of every claim of ``paper`` (its key) at ``profile`` (default: the session's,
    ``$ATTNCHECK_PROFILE`` or quick), claim by claim in id order."""
    records = [c.record for c in registry().values() if c.record.paper == paper]
    if not records:
        raise LookupError(f"no claims of paper {paper!r}; `attncheck list` shows them")
    profile = profile or claim_profile()
    return [check for rec in records for check in _checks_of(rec, profile)]


def parametrize_with_claims(paper: str) -> pytest.MarkDecorator:
    """``pytest.mark.parametrize("check", ...)`` over :func:`claim_checks` of ``paper``, each check with
    its id and marks: the test it decorates calls ``check()``."""
    return pytest.mark.parametrize("check", [c.param() for c in claim_checks(paper)])


__all__ = [
    "STABILITY_BASES",
    "Check",
    "cached_alternative",
    "cached_run",
    "claim_checks",
    "claim_profile",
    "default_base",
    "parametrize_with_claims",
]
