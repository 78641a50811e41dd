"""The README's two commands are the ones CI runs and they name things that exist; the README and the
guides it links (the rulebook, the operations guide, the changelog) quote a real run, never give a
number of our reconstruction as the authors', and link only to what exists."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The README and the prose it links to: the rulebook, the operations guide and the changelog.
GUIDES = ("README.md", "docs/verdicts.md", "docs/operations.md", "CHANGELOG.md")


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    first_block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert first_block and text.startswith("# attncheck\n\n" + first_block.group(0)), (
        "README must open with it"
    )
    return [line for line in first_block.group(1).splitlines() if line.strip()]


def test_readme_opens_with_exactly_two_commands() -> None:
    main_job, tests = _readme_commands()
    assert "pip install" in main_job and main_job.endswith("attncheck report --pdf")
    assert "pip install" in tests and tests.endswith("pytest -n auto")  # on every core (pytest-xdist)


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert _readme_commands()[1] in ci


def test_ci_runs_it_in_a_fresh_venv_made_from_the_checkout() -> None:
    """A run in the base interpreter hid a failure that only a venv shows: CI makes a new venv, enters
    it, and only then runs the README's command."""
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    at = ci.index(_readme_commands()[1])
    made = next(i for i, line in enumerate(ci) if line.startswith("python3 -m venv "))
    entered = next(i for i, line in enumerate(ci) if re.match(r"(\.|source) .*/bin/activate", line))
    assert made < entered < at, "the venv must be made and entered before the README's command"
    assert any(line.startswith('rm -rf "$venv_dir"') for line in ci[:made]), "the venv must be fresh"


def test_readme_extras_exist() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for cmd in _readme_commands():
        for group in re.findall(r"\.\[([a-z,]+)\]", cmd):
            assert set(group.split(",")) <= set(extras), group


def _readme_text_block() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```text\n(.*?)```", text, re.S)
    assert block, "the README shows a run's table and summary in its first text block"
    return block.group(1).splitlines()


def test_the_readme_quotes_what_a_quick_run_gives() -> None:
    """The README's excerpt rows carry each claim's verdict of the default quick run, and its summary
    rows (counts per paper) and lists (findings, answers, mismatches) are that run's, verbatim."""
    from tests.support import builtin_registry, cached_runs
    from verify.core.summary import summary_table

    ids = list(builtin_registry())
    results = dict(zip(ids, cached_runs(ids), strict=True))
    lines = _readme_text_block()
    ids = set(builtin_registry())
    rows = [ln.split() for ln in lines if ln.split() and ln.split()[0] in ids]
    assert len(rows) >= 8
    for cid, verdict, *_ in rows:
        r = results[cid]
        assert (r.verdict, r.robust is False) == (verdict.rstrip("~"), verdict.endswith("~")), (
            f"README says {cid} is {verdict}; the run: {r.verdict}" + ("~" if r.robust is False else "")
        )
    summary = summary_table(list(results.values())).splitlines()
    papers = {r.paper for r in results.values()}
    want = [ln for ln in summary if ln.split() and ln.split()[0] in papers]
    got = [ln for ln in lines if ln.split() and ln.split()[0] in papers]
    assert got == want, "\n".join(["README:", *got, "run:", *want])
    listed = " ".join(lines)
    for ln in summary:
        if ln.startswith(("findings", "answers", "our reconstruction")):
            for cid in ln.split(": ", 1)[1].split(", "):
                assert cid == "none" or cid in listed, f"the README's summary omits {cid}"


#: Phrases that attribute a number of our reconstruction to the authors, or misstate a measurement
#: (issue 24's audit); each sentence quoting such a number must say it is ours.
_OURS = ("3e6", "6.5e7", "3.6e6", "1e10", "1e13")
_NEVER = (
    "cannot be improved",
    "slows down with H",
    'the better" (Sec. 3.3',  # the sentence is at the end of Sect. 3.2 and in the Fig. 3 caption
    "Prop. 1 of Wu et al. needs",
)


def test_the_readme_never_attributes_our_reconstruction_to_the_authors() -> None:
    """The README and its guides (the findings' paragraphs live in docs/verdicts.md)."""
    for name in GUIDES:
        text = " ".join((ROOT / name).read_text().split())
        for phrase in _NEVER:
            assert phrase not in text, f"{name}: {phrase}"
        for sentence in re.split(r"(?<=[.;])\s", text):
            if any(n in sentence for n in _OURS):
                assert "our reconstruct" in sentence.lower(), f"{name}: {sentence}"


def test_the_readme_is_short_and_links_its_guides() -> None:
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 150
    for name in GUIDES[1:]:
        assert f"]({name})" in text, f"the README must link {name}"


def _anchors(path: Path) -> set[str]:
    """The GitHub anchors of the Markdown headings of ``path`` (fenced code skipped; a repeated heading
    gets -1, -2, ...)."""
    anchors: set[str] = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        fenced ^= line.startswith("```")
        heading = re.match(r"#{1,6} (.*)", line)
        if heading and not fenced:
            slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
            anchor, n = slug, 0
            while anchor in anchors:
                n += 1
                anchor = f"{slug}-{n}"
            anchors.add(anchor)
    return anchors


def test_every_relative_link_of_the_readme_and_its_guides_resolves() -> None:
    """Each link to a file of the repository names one that exists, and each #anchor a heading in it."""
    for name in (*GUIDES, "docs/README.md"):
        source = ROOT / name
        for target in re.findall(r"\]\(([^)\s]+)\)", source.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (source.parent / path).resolve() if path else source
            assert file.is_file(), f"{name} links {target}: no such file"
            if anchor and file.suffix == ".md":
                assert anchor in _anchors(file), f"{name} links {target}: no such heading"
