"""The claim framework: records, evidence, verdict rules, registry, runner.

A paper claim is one function decorated with :func:`verify.core.registry.claim`; it runs the theory
side (``bounds/``) and the experiment side (``verify/<paper>/``) and returns an
:class:`~verify.core.record.Evidence`. The runner applies the one verdict rule of the claim's kind
(:mod:`verify.core.judge`) and returns a :class:`~verify.core.record.Result`.
"""

from verify.core.choices import Choice
from verify.core.context import Ctx
from verify.core.parallel import run_claims
from verify.core.record import (
    Alternative,
    ClaimRecord,
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
    "Alternative",
    "Choice",
    "ClaimRecord",
    "Ctx",
    "Evidence",
    "Interval",
    "Kind",
    "Plot",
    "Provenance",
    "Result",
    "Rule",
    "Search",
    "Seeds",
    "Verdict",
    "claim",
    "get_claim",
    "match_claims",
    "registry",
    "run_claim",
    "run_claims",
]
