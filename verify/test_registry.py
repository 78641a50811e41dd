"""Registry-level checks over every built-in paper (a plugin installed beside them is checked by its own
tests): each claim about a paper has a falsifier (a test in
``verify/test_<paper>.py`` that flips its verdict by a measurement-side change), every record is
complete, and every documented finding is a violation of the claim it names."""

from __future__ import annotations

import importlib
import importlib.util
import inspect

import pytest

from tests.support import builtin_registry
from verify.core.papers import builtin_papers, papers
from verify.core.record import Seeds, Verdict
from verify.core.registry import registry


def _test_module(key: str) -> object | None:
    """A paper's claim tests: ``verify/test_<key>.py`` for the built-in papers, ``<package>.test_<key>``
    for a plugin that ships one, else None (a plugin's claims are then checked by what it ships)."""
    package = papers()[key].package.__name__
    for name in (f"verify.test_{key}", f"{package}.test_{key}"):
        if importlib.util.find_spec(name):  # the parent (verify, or the plugin's package) is imported
            return importlib.import_module(name)
    return None


def _falsifiers() -> dict[str, tuple[object, str]]:
    """claim id -> (the paper's test module, the name of its fault-injection test)."""
    out: dict[str, tuple[object, str]] = {}
    for key in builtin_papers():
        mod = _test_module(key)
        for cid, name in getattr(mod, "FALSIFIERS", {}).items():
            out[cid] = (mod, name)
    return out


def test_every_built_in_paper_claim_has_a_fault_injection_test() -> None:
    """Beside its alternative world (the claim battery's check ``alternative``, verify/testing.py), every
    claim of a paper that keeps a ``FALSIFIERS`` table has a test that injects a fault (a wrong bound,
    gradient or model) and sees it caught."""
    fals = _falsifiers()
    keyed = {key for key in builtin_papers() if hasattr(_test_module(key), "FALSIFIERS")}
    missing = sorted(
        c
        for c, cl in builtin_registry().items()
        if cl.record.paper in keyed and not cl.record.consistency and c not in fals
    )
    assert not missing, f"claims about a paper without a fault-injection test: {missing}"
    unknown = sorted(set(fals) - set(registry()))
    assert not unknown, f"falsifiers name unknown claims: {unknown}"
    for cid, (mod, name) in fals.items():
        fn = getattr(mod, name, None)
        assert name.startswith("test_") and inspect.isfunction(fn), f"{cid}: {name} is not a test function"


def test_consistency_checks_are_not_listed_as_falsifiable_paper_claims() -> None:
    fals = _falsifiers()
    listed = sorted(c for c in fals if c in registry() and registry()[c].record.consistency)
    assert not listed, f"consistency checks listed as paper claims: {listed}"


@pytest.mark.parametrize("cid", sorted(builtin_registry()))
def test_records_are_complete(cid: str) -> None:
    c = registry()[cid]
    rec = c.record
    assert rec.statement and rec.reference and (c.fn.__doc__ or "").strip(), cid
    assert "shared/" not in rec.reference + rec.statement + (c.fn.__doc__ or "")
    if rec.seeds == Seeds.NONE:
        assert not rec.n_seeds
    for name, rule in rec.rules:
        assert rule.reason.strip(), f"{cid}: rule {name!r} states no reason"


def test_findings_are_expected_violations_with_a_stated_provenance() -> None:
    findings = [c for c in builtin_registry().values() if c.record.expect == Verdict.VIOLATED]
    assert all(not c.record.consistency for c in findings), "a consistency check cannot be a finding"


def test_third_party_and_question_claims_name_their_source() -> None:
    """A THIRD-PARTY statement or a reviewer's QUESTION names who states it and how reliable that is."""
    missing = sorted(
        cid for cid, c in builtin_registry().items()
        if str(c.record.provenance) in ("THIRD-PARTY", "QUESTION") and not c.record.source
    )  # fmt: skip
    assert not missing, f"claims that name no source: {missing}"


def test_every_claim_about_a_paper_declares_its_choices() -> None:
    """The values a claim uses that its paper does not fix are declared (``choices=``), each with its
    range or options and why (:class:`verify.core.record.Choice` refuses one without): a reader sees
    which verdicts our choices decide (``attncheck run --robust``)."""
    bare = [cid for cid, c in builtin_registry().items() if not c.record.consistency and not c.record.choices]
    assert not bare, f"claims about a paper with no declared choices: {bare}"


def test_choices_follow_the_paper_profile() -> None:
    """At the paper profile every declared choice resolves (a range moves with its value, a set of options
    scales with it or follows by its change, :meth:`verify.core.record.Choice.at_value`), so a
    paper-profile verdict is judged over every choice; a choice that could not follow would leave the
    claim "not judged in full" and is caught here."""
    left = []
    for cid, c in builtin_registry().items():
        paper = c.record.params_for("paper")
        left += [(cid, n) for n, ch in c.record.choices if ch.at_value(paper.get(n, ch.value)) is None]
    assert not left


#: Sources of a pass rule that the paper does not fix: the suite's own choice or our reconstruction's
#: pass criterion (a rule from the paper or a derivation is the statement's, not ours).
OURS = ("attncheck", "reconstruction pass criterion")


def test_every_rule_of_ours_is_a_declared_choice() -> None:
    """A tolerance, threshold or margin we chose (:data:`OURS`) is a declared choice of its claim, with
    its range and reason, so ``--robust`` judges the verdict over it."""
    bare = [
        f"{cid}: {name}"
        for cid, c in builtin_registry().items()
        if not c.record.consistency
        for name, rule in c.record.rules
        if rule.source.startswith(OURS) and name not in dict(c.record.choices)
    ]
    assert not bare, f"rules of ours not declared as choices: {bare}"
