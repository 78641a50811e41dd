"""Test-suite plumbing registered once: hypothesis profiles and the pytest profile variable.

Hypothesis profiles: ``ci`` (derandomized, bounded: the default, so the README's test command gives
the same examples on every machine and every run), ``dev`` (random examples, to explore), ``thorough``
(many random examples; for a night run). Select with ``HYPOTHESIS_PROFILE=<name>``. The claim profile
under pytest is ``ATTNCHECK_PROFILE`` (quick|paper).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from bounds.checks import check_choice
from verify.core.declare import Source
from verify.core.papers import builtin_papers
from verify.core.record import Kind, Provenance, Result, Verdict, from_jsonable
from verify.core.registry import Claim, _unregister, claim, registry
from verify.core.results import result_to_dict
from verify.testing import cached_run as cached_run  # the claim battery's session cache, re-exported
from verify.testing import cached_runs as cached_runs  # the same for many claims, split between workers
from verify.testing import claim_profile as claim_profile  # the session's profile, validated, re-exported

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=10,
    deadline=None,
    suppress_health_check=_SLOW_OK,
    print_blob=True,
)
settings.register_profile("dev", max_examples=10, deadline=None, suppress_health_check=_SLOW_OK)
settings.register_profile("thorough", max_examples=200, deadline=None, suppress_health_check=_SLOW_OK)


def load_hypothesis_profile() -> str:
    name = os.environ.get("HYPOTHESIS_PROFILE") or "ci"
    settings.load_profile(check_choice("HYPOTHESIS_PROFILE", name, ("ci", "dev", "thorough")))
    return name


def without_times(r: Result) -> dict:
    """``result_to_dict(r)`` without its wall and CPU times: what must be bit-identical between two runs."""
    return {k: v for k, v in result_to_dict(r).items() if k not in ("wall_time", "cpu_time")}


def builtin_registry() -> dict[str, Claim]:
    """The claims of attncheck's built-in papers (:func:`verify.core.papers.builtin_papers`), by id: the
    core's tests enumerate these, never a plugin installed beside them (its own tests check it)."""
    keys = builtin_papers()
    return {cid: c for cid, c in registry().items() if c.record.paper in keys}


#: Toy claims registered by :func:`toy_claim` in the running test, unregistered after it.
_TOYS: list[str] = []


@pytest.fixture(autouse=True)
def toy_cleanup() -> Iterator[None]:
    """Unregister the toy claims a test registered with :func:`toy_claim` (autouse where imported)."""
    yield
    while _TOYS:
        _unregister(_TOYS.pop())


def toy_claim(cid: str, kind: Kind = Kind.UPPER, **kw) -> Callable:
    """``@claim`` for a toy claim about a toy paper (reference "toy", EXACT unless ``source`` says
    otherwise, no parameters unless given), unregistered after the test by :func:`toy_cleanup`, which the
    test module must import."""
    _TOYS.append(cid)
    kw.setdefault("source", Source("toy", Provenance.EXACT))
    return claim(cid, kind=kind, statement="toy", **kw)


def baseline_results(baseline: Path) -> list[Result]:
    """Results that reproduce a baseline's entries exactly (what a quick run of its tree gives), for the
    gate's tests: verdict, slack, theory, measured, worst ratio, consistency and robustness."""
    doc = json.loads(baseline.read_text(encoding="utf-8"))
    fixed = dict(reference="", kind=Kind.UPPER, provenance=Provenance.DERIVED, statement="", params={})
    return [
        Result(
            claim_id=cid,
            paper=cid.split(".")[0],
            profile=doc["profile"],
            seeds=[0],
            theory=from_jsonable(e["theory"]),
            measured=from_jsonable(e["measured"]),
            slack=e["slack"],
            verdict=Verdict(e["verdict"]),
            expected=Verdict(e["verdict"]),
            consistency=e.get("consistency", False),
            worst={"ratio": e["worst_ratio"]} if "worst_ratio" in e else None,
            robust=e.get("robust"),
            depends_on=[_UNRECORDED] if e.get("robust") is False else [],
            **fixed,
        )
        for cid, e in doc["claims"].items()
    ]


# A baseline records whether a verdict is robust, not where it changes: a placeholder entry (a set
# choice's shape) for the results file's rule that a non-robust result names what decides it.
_UNRECORDED = {
    "choice": "unrecorded",
    "end": None,
    "verdict": "inconclusive",
    "at": None,
    "below": None,
    "above": None,
}
