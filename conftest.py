"""Root pytest configuration: hypothesis profiles, the --runslow flag, the claim profile fixture."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support import claim_profile, load_hypothesis_profile
from verify.numerics.threads import single_thread


@pytest.hookimpl(tryfirst=True)  # before hypothesis's own, so --hypothesis-profile still wins
def pytest_configure(config: pytest.Config) -> None:
    """Load the hypothesis profile and check the claim profile: a bad ``HYPOTHESIS_PROFILE`` or
    ``ATTNCHECK_PROFILE`` is one line naming the allowed values (pytest's usage error, exit 4)."""
    try:
        load_hypothesis_profile()
        claim_profile()
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--runslow",
        action="store_true",
        default=False,
        help="also run tests marked slow (paper-scale sizes, further stability seed sets)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="paper-scale; run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def profile() -> str:
    """The claim profile of this test session (``ATTNCHECK_PROFILE``, default quick)."""
    return claim_profile()


@pytest.fixture(scope="session", autouse=True)
def _one_blas_thread() -> Iterator[None]:
    """Every test runs with one BLAS thread, as the runner runs claims (speed and bit-identity)."""
    with single_thread():
        yield
