"""Test-suite plumbing registered once: hypothesis profiles and the pytest profile variable.

Hypothesis profiles: ``ci`` (derandomized, bounded: the default under CI=true), ``dev`` (the
default otherwise), ``thorough`` (many examples; for a night run). Select with
``HYPOTHESIS_PROFILE=<name>``. The claim profile under pytest is ``ATTNCHECK_PROFILE`` (quick|paper).
"""

from __future__ import annotations

import functools
import os

from hypothesis import HealthCheck, settings

from bounds.checks import check_choice
from verify.core.context import PROFILES
from verify.core.record import Result
from verify.core.runner import run_claim

PROFILE_ENV = "ATTNCHECK_PROFILE"

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
    name = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
    settings.load_profile(check_choice("HYPOTHESIS_PROFILE", name, ("ci", "dev", "thorough")))
    return name


def claim_profile() -> str:
    """The claim profile tests run at: ``$ATTNCHECK_PROFILE`` (default quick)."""
    return check_choice(PROFILE_ENV, os.environ.get(PROFILE_ENV, "quick"), PROFILES)


@functools.cache
def cached_run(claim_id: str, profile: str = "quick", seed: int = 0) -> Result:
    """``run_claim`` at the profile's defaults, computed once per test session.

    The baseline gate and the claim tests share these runs; callers must not mutate the result.
    """
    return run_claim(claim_id, profile=profile, seed=seed)


def without_times(r: Result) -> dict:
    """``r.to_dict()`` without its wall and CPU times: what must be bit-identical between two runs."""
    return {k: v for k, v in r.to_dict().items() if k not in ("wall_time", "cpu_time")}
