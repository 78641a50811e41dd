"""pytest configuration of the zfb2024 plugin: the --runslow flag and the marker of the paper-profile
checks (when attncheck's own conftest is loaded too, its identical flag is kept)."""

from __future__ import annotations

import contextlib

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    with contextlib.suppress(ValueError):  # already added by attncheck's root conftest
        parser.addoption(
            "--runslow", action="store_true", default=False, help="also run the paper-profile checks"
        )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: paper-profile checks, run with --runslow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="paper profile; run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
