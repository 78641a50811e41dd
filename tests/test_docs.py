"""The claim docs under docs/ (the built-in papers' pages; a plugin installed beside them keeps its own
docs folder) are generated from the registry and must be current; nothing the project ships cites a
path outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

from verify.cli import main
from verify.core.papers import builtin_papers
from verify.docs import DEFAULT_DOCS, folder_papers, pages, stale_pages

ROOT = Path(__file__).resolve().parent.parent


def test_committed_docs_are_current() -> None:
    stale = stale_pages()
    assert not stale, f"stale docs pages {stale}: run `attncheck docs` and commit docs/"


def test_every_paper_has_a_page_listing_every_claim() -> None:
    from verify.core.registry import registry

    text = pages(builtin_papers())
    assert set(text) == {"README.md", *(f"{key}.md" for key in builtin_papers())}
    for c in (c for c in registry().values() if c.record.paper in builtin_papers()):
        assert f"### `{c.id}`" in text[f"{c.record.paper}.md"]
        for name, rule in c.record.rules:
            assert f"`{name}`" in text[f"{c.record.paper}.md"] and rule.reason in text[f"{c.record.paper}.md"]


def test_docs_check_flags_a_stale_page(tmp_path: Path, capsys) -> None:
    assert main(["docs", "--out", str(tmp_path)]) == 0
    assert main(["docs", "--out", str(tmp_path), "--check"]) == 0
    (tmp_path / "wu2023.md").write_text("edited by hand\n")
    assert main(["docs", "--out", str(tmp_path), "--check"]) == 1
    assert "wu2023.md" in capsys.readouterr().err


def test_a_docs_folder_holds_its_own_papers_and_links_their_errata_from_where_it_is(
    tmp_path: Path, capsys
) -> None:
    assert folder_papers(DEFAULT_DOCS) == list(builtin_papers())
    out = tmp_path / "elsewhere" / "docs"
    assert main(["docs", "--papers", "wu2023", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "wu2023.md"]
    assert folder_papers(out) == ["wu2023"] and main(["docs", "--out", str(out), "--check"]) == 0
    page = (out / "wu2023.md").read_text()
    (link,) = re.findall(r"\[`verify/wu2023/errata.md`\]\(([^)]+)\)", page)
    assert (out / link).resolve() == ROOT / "verify" / "wu2023" / "errata.md"
    assert "](../verify/wu2023/errata.md)" in (DEFAULT_DOCS / "wu2023.md").read_text()
    assert main(["docs", "--papers", "smith2099", "--out", str(out)]) == 2
    assert "--papers: no installed paper 'smith2099'" in capsys.readouterr().err
    assert main(["docs", "--papers", "wu2023"]) == 2  # attncheck's docs/ holds the built-in papers
    assert "write a plugin's pages into its own folder with --out DIR" in capsys.readouterr().err


def test_nothing_cites_a_path_outside_the_repository() -> None:
    """Users never see the project's private specs: README, docs, errata and code must not cite them."""
    outside = re.compile(r"shared/(papers|seeds)|\.\./shared")
    files = [ROOT / "README.md", *DEFAULT_DOCS.glob("*.md")]
    for sub in ("bounds", "verify", "reports"):
        files += [p for p in (ROOT / sub).rglob("*") if p.suffix in (".py", ".md")]
    cited = [str(p.relative_to(ROOT)) for p in files if outside.search(p.read_text(encoding="utf-8"))]
    assert not cited, f"cite a path users cannot read: {cited}"
    # nor the specs by name ("spec Sect. 5.2", "the spec's 200 seeds"): a user cannot follow such a reference
    by_name = re.compile(r"\bspec(?:'s)?\b(?!\s*=)(?!\})", re.IGNORECASE)
    named = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in files
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if by_name.search(line)
    ]
    assert not named, f"cite the private spec by name: {named}"
