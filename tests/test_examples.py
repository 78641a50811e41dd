"""``reports/examples/`` shows today's report: its stamp names the built-in papers, their claim count, and
a committed tree whose page-drawing code is the current one (``python -m reports.examples`` redraws)."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest

from reports.examples import DRAWN_BY, EXAMPLES
from verify.core.registry import registry

ROOT = Path(__file__).resolve().parent.parent
REDRAW = "redraw them with `python -m reports.examples` from a committed tree"


def _stamp() -> dict:
    path = EXAMPLES / "stamp.json"
    assert path.is_file(), f"{path} is missing: {REDRAW}"
    return json.loads(path.read_text(encoding="utf-8"))


def _repository_papers() -> list[str]:
    """The papers of this repository, as the README's first command installs them: the built-in ones and
    those of the plugins under ``plugins/``."""
    keys: set[str] = set()
    for project in [ROOT / "pyproject.toml", *sorted((ROOT / "plugins").glob("*/pyproject.toml"))]:
        meta = tomllib.loads(project.read_text(encoding="utf-8"))
        keys |= set(meta["project"]["entry-points"]["attncheck.papers"])
    return sorted(keys)


def test_the_images_show_every_claim_of_the_repositorys_papers() -> None:
    stamp = _stamp()
    papers = _repository_papers()
    assert stamp["papers"] == papers, f"images of {stamp['papers']}, this repository's {papers}: {REDRAW}"
    claims = sum(1 for c in registry().values() if c.record.paper in papers)
    assert stamp["claims"] == claims, f"images of {stamp['claims']} claims, the tree has {claims}: {REDRAW}"
    assert stamp["problems"] == 0, "the drawn report had overfull boxes or undefined references"
    for name in ("front.png", "table.png", "figure.png"):
        assert (EXAMPLES / name).is_file(), f"{name} is missing: {REDRAW}"


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_the_images_were_drawn_by_todays_report_code() -> None:
    stamp = _stamp()
    assert stamp["dirty"] is False, f"the images were drawn from a tree with uncommitted changes: {REDRAW}"
    try:
        inside = _git("rev-parse", "--is-inside-work-tree")
    except OSError:
        pytest.skip("git is not installed: the stamp's commit cannot be compared")
    if inside.returncode != 0 or _git("cat-file", "-e", f"{stamp['commit']}^{{commit}}").returncode != 0:
        pytest.skip("not a git checkout with the stamp's commit (a shallow clone or an sdist)")
    assert _git("merge-base", "--is-ancestor", stamp["commit"], "HEAD").returncode == 0, (
        f"the images' commit {stamp['commit'][:12]} is not in this branch's history: {REDRAW}"
    )
    changed = _git("diff", "--name-only", stamp["commit"], "HEAD", "--", *DRAWN_BY).stdout.split()
    assert not changed, f"the page-drawing code changed since the images were drawn ({changed}): {REDRAW}"
