"""Every built-in paper's errata (`verify/<paper>/errata.md`) is a record of what the suite does and why:
the same nine sections in the same order, and no development history (issue numbers, sessions,
before-and-after accounts); the history lives in CHANGELOG.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verify.core.papers import builtin_papers

ROOT = Path(__file__).resolve().parent.parent

SECTIONS = (
    "What the code does differently from the paper",
    "Findings against the paper's own statements",
    "Where our reconstruction does not reproduce the paper",
    "Answers to referee questions",
    "Claims that hold by construction, and consistency checks",
    "Our choices and where the verdicts depend on them",
    "How seeds and rules enter the verdicts",
    "Worst-case searches",
    "Sources",
)

#: Words of a changelog, not of a record of what the suite does (matched case-insensitively).
HISTORY = (
    r"\bissue \d",
    r"\bissues \d",
    r"#\d",
    r"\bstop \d",
    r"session",
    r"before and after",
    r"previously",
    r"\bused to\b",
    r"first derivation",
    r"first reconstruction",
    r"first pass",
    r"re-anchored",
    r"revisited",
    r"was changed",
    r"\bnow\b",
    r"no longer",
)


def _errata(paper: str) -> Path:
    return ROOT / "verify" / paper / "errata.md"


def test_every_builtin_paper_is_covered() -> None:
    assert {"wu2023", "deora2023", "yang2024", "zhang2026"} <= set(builtin_papers())


@pytest.mark.parametrize("paper", sorted(builtin_papers()))
def test_errata_have_the_nine_sections_in_order(paper: str) -> None:
    lines = _errata(paper).read_text().splitlines()
    assert lines[0] == f"# {paper} errata", f"{_errata(paper)}:1: title must be '# {paper} errata'"
    headings = [line[3:].strip() for line in lines if line.startswith("## ")]
    assert tuple(headings) == SECTIONS, f"{_errata(paper)}: sections {headings}, expected {list(SECTIONS)}"


@pytest.mark.parametrize("paper", sorted(builtin_papers()))
def test_errata_carry_no_development_history(paper: str) -> None:
    path = _errata(paper)
    text = path.read_text()
    lines = text.splitlines()
    hits = []
    for pattern in HISTORY:  # a space in a pattern also matches a line break
        for m in re.finditer(pattern.replace(" ", r"\s+"), text, flags=re.IGNORECASE):
            number = text.count("\n", 0, m.start()) + 1
            hits.append(f"{path}:{number}: {pattern} in {lines[number - 1].strip()!r}")
    assert not hits, "development history in the errata (it belongs in CHANGELOG.md):\n" + "\n".join(hits)
