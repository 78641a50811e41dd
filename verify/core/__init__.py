"""The claim framework: records, evidence, verdict rules, registry, runner.

A paper claim is one function decorated with :func:`verify.core.registry.claim`; it runs the theory
side (``bounds/``) and the experiment side (``verify/<paper>/``) and returns an
:class:`~verify.core.record.Evidence`. The runner applies the one verdict rule of the claim's kind
(:mod:`verify.core.judge`) and returns a :class:`~verify.core.record.Result`.

This module is the one door: claim modules, paper plugins and the author's guide import from here only
(``tests/test_facade.py``), never from the submodules.
"""

from verify.core.conditions import FAILS, Conditions
from verify.core.context import PROFILE_ENV, PROFILES, Ctx, experiment
from verify.core.declare import Expect, Profiles, Report, SeedPlan, Source
from verify.core.format import fmt_sci
from verify.core.judge import ROUNDOFF_RTOL, decide
from verify.core.papers import PaperInfo
from verify.core.parallel import run_claims
from verify.core.record import (
    PAPERS_OWN,
    Alternative,
    Choice,
    ClaimRecord,
    Curve,
    Evidence,
    Interval,
    Kind,
    Plot,
    Provenance,
    Result,
    Rule,
    Search,
    Seeds,
    Verdict,
)
from verify.core.registry import claim, get_claim, match_claims, registry
from verify.core.runner import run_claim

__all__ = [
    "FAILS",
    "PAPERS_OWN",
    "PROFILES",
    "PROFILE_ENV",
    "ROUNDOFF_RTOL",
    "Alternative",
    "Choice",
    "ClaimRecord",
    "Conditions",
    "Ctx",
    "Curve",
    "Evidence",
    "Expect",
    "Interval",
    "Kind",
    "PaperInfo",
    "Plot",
    "Profiles",
    "Provenance",
    "Report",
    "Result",
    "Rule",
    "Search",
    "SeedPlan",
    "Seeds",
    "Source",
    "Verdict",
    "claim",
    "decide",
    "experiment",
    "fmt_sci",
    "get_claim",
    "match_claims",
    "registry",
    "run_claim",
    "run_claims",
]
