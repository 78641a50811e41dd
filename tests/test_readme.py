"""The README's two commands are the ones CI runs and they name things that exist."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    first_block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert first_block and text.startswith("# attncheck\n\n" + first_block.group(0)), (
        "README must open with it"
    )
    return [line for line in first_block.group(1).splitlines() if line.strip()]


def test_readme_opens_with_exactly_two_commands() -> None:
    main_job, tests = _readme_commands()
    assert "pip install" in main_job and main_job.endswith("attncheck report")
    assert "pip install" in tests and tests.endswith("pytest -n auto")  # on every core (pytest-xdist)


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert _readme_commands()[1] in ci


def test_readme_extras_exist() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for cmd in _readme_commands():
        for group in re.findall(r"\.\[([a-z,]+)\]", cmd):
            assert set(group.split(",")) <= set(extras), group
