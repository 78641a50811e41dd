"""Claim documentation generated from the registry (``attncheck docs``), in the manner of PEPit's docs
built from its examples' docstrings: one Markdown page per paper, so the pages cannot drift from the
code. ``tests/test_docs.py`` fails when the committed pages under ``docs/`` are stale.

A page holds the paper's metadata (:class:`~verify.core.papers.PaperInfo`), the paper package's
docstring (model, notation, provenance of the formulas, in the project's own words), then one section
per claim in registry order: statement, reference, kind, provenance, how seeds combine, whether it is a
consistency check or else its alternative world and how its resolution is measured (in every run of a
re-judged alternative, on demand by ``attncheck alternatives`` for a world that is run), what it
expects, the assumptions checked before judging, the parameters of both profiles, every pass rule with
its reason and source, our choices (values the paper leaves open) with their admissible ranges, and the
claim function's docstring.

A docs folder holds the pages of its own papers: the repository's ``docs/`` those of the built-in
papers, a plugin's folder its own (``attncheck docs --papers KEY --out DIR`` writes it first; after
that ``attncheck docs --out DIR`` rewrites, and ``--check`` checks, the papers whose pages are there).
A page links its paper's errata and derivations relative to the folder it is written in.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from verify.core.papers import Paper, builtin_papers, papers
from verify.core.record import Verdict, to_jsonable
from verify.core.registry import Claim, registry
from verify.core.resolution import FACTOR_RTOL, OVERRIDE_STEPS, SHIFT_RTOL, numeric_override

#: Where ``attncheck docs`` writes by default (the repository's ``docs/``).
DEFAULT_DOCS = Path(__file__).resolve().parent.parent / "docs"

_KIND_NOTE = {
    "upper": "measured <= theory",
    "lower": "measured >= theory",
    "two-sided": "theory = [lo, hi] contains measured",
    "rate": "holds when the fitted exponent's 95% interval lies inside p +- tol",
    "condition": "the required size against the largest reachable one",
    "probability": "holds when the one-sided 95% Clopper-Pearson lower bound over seeds reaches 1 - delta",
    "identity": "measured = theory to a stated relative tolerance",
    "qualitative": "the stated property is observed",
}


def _value(v: object) -> str:
    return f"`{to_jsonable(v)}`"


def _params(c: Claim) -> list[str]:
    quick = dict(c.record.quick)
    paper = c.record.params_for("paper")
    if not quick:
        return ["- parameters: none"]
    rows = ["| parameter | quick | paper |", "|---|---|---|"]
    rows += [f"| `{k}` | {_value(quick[k])} | {_value(paper[k])} |" for k in sorted(quick)]
    return ["- parameters:", "", *rows, ""]


def _rules(c: Claim) -> list[str]:
    if not c.record.rules:
        return []
    rows = ["| rule | value | reason | source |", "|---|---|---|---|"]
    rows += [f"| `{name}` | {_value(r.value)} | {r.reason} | {r.source} |" for name, r in c.record.rules]
    return ["- pass rules:", "", *rows, ""]


def _choices(c: Claim) -> list[str]:
    if not c.record.choices:
        return []
    rows = ["| choice | value | admissible | basis | reason |", "|---|---|---|---|---|"]
    rows += [
        f"| `{name}` | {_value(ch.value)} | {ch.describe()} | {ch.basis} | {ch.reason} |"
        for name, ch in c.record.choices
    ]
    return [
        "- our choices (the paper leaves them open; `--robust` judges the verdict over them):",
        "",
        *rows,
        "",
    ]


def _search(c: Claim) -> list[str]:
    s = c.record.search
    if s is None:
        return []
    quick, paper = dict(c.record.quick)[s.budget], c.record.params_for("paper")[s.budget]
    return [
        f"- worst-case search ({s.method}): maximises {s.ratio} over {s.space}; budget `{s.budget}`: "
        f"quick {_value(quick)}, paper {_value(paper)}"
    ]


def _seeds(c: Claim) -> str:
    rec = c.record
    if str(rec.seeds) == "none":
        return "deterministic (one run)"
    counts = ", ".join(f"{p} {n}" for p, n in rec.n_seeds)
    return f"`{rec.seeds}` over a seed set ({counts} seeds)"


def _resolution(c: Claim) -> str:
    """How the alternative's resolution is measured (:mod:`verify.core.resolution`)."""
    rec, alt = c.record, c.record.alternative
    if alt.rejudged:
        if alt.factor is not None:
            what = f"the smallest factor in (1, {alt.factor:g}] tightening the bound that"
            tol = f"geometric bisection to {FACTOR_RTOL:.0%}"
        else:
            what = f"the smallest shift of the exponent toward {alt.exponent:g} that"
            tol = f"bisection to {SHIFT_RTOL:.0%} of the distance"
        return (
            f"measured in every run from the claim's own evidence: {what} the seeds detect (`{alt.expect}` "
            f"under the same seed combination; {tol}), in the result's `alternative.resolution`"
        )
    quick, paper = rec.params_for("quick"), rec.params_for("paper")
    found = numeric_override(alt, quick)
    if isinstance(found, str):
        return f"none, {found}"
    name, value = found
    values = _value(quick[name]) + (
        "" if paper[name] == quick[name] else f" in the quick profile, {_value(paper[name])} in the paper's"
    )
    return (
        f"on demand, `attncheck alternatives {rec.id}`: the value of `{name}` nearest the paper world's "
        f"({values}) at which the alternative world gives `{alt.expect}`; at most {OVERRIDE_STEPS} "
        f"bisection runs toward the override {_value(value)}"
    )


def claim_section(c: Claim) -> str:
    """The Markdown section of one claim."""
    rec = c.record
    doc = inspect.getdoc(c.fn) or ""
    lines = [
        f"### `{rec.id}`",
        "",
        f"> {rec.statement}",
        "",
        f"- reference: {rec.reference}",
        f"- kind: `{rec.kind}` ({_KIND_NOTE[str(rec.kind)]}); provenance: `{rec.provenance}`"
        + (f" (source: {rec.source})" if rec.source else ""),
        f"- seeds: {_seeds(c)}",
    ]
    if rec.consistency:
        lines.append("- consistency check: tests the code, never counted as a confirmation of the paper")
    elif rec.alternative is not None:
        world = rec.alternative.describe()
        lines.append(f"- alternative world (the falsifier runs it and must get `violated`): {world}")
        lines.append(f"- resolution of the alternative world: {_resolution(c)}")
    if rec.readings:
        lines.append(f"- one reading of {rec.readings} (the claims naming it are judged side by side)")
    if rec.batched:
        lines.append("- seeds batched: one computation over the seed set, each seed as if run alone")
    if rec.expect != Verdict.HOLDS:
        lines.append(f"- expected verdict: `{rec.expect}` (a documented result; see the errata)")
    if rec.expect_paper is not None:
        lines.append(f"- expected verdict in the paper profile: `{rec.expect_paper}` (see the errata)")
    if rec.expect_also is not None:
        lines.append(
            f"- borderline: `{rec.expect_also}` is as expected as `{rec.expect}` (which the default seed set "
            f"gives): {rec.expect_why}"
        )
    if rec.assumptions:
        lines.append("- checked before judging: " + "; ".join(rec.assumptions))
    lines += [*_search(c), *_params(c), *_rules(c), *_choices(c)]
    if doc:
        lines += ["", doc]
    return "\n".join(lines).rstrip() + "\n"


def _companions(paper: Paper, out: Path) -> list[str]:
    """Links to the paper's derivations (cited as "derivation Sect. N") and errata, where they exist,
    relative to the docs folder ``out`` (wherever the paper's package lives)."""
    where = paper.package.__name__.replace(".", "/")
    what = {"derivations.md": "our derivations and reconstructions, cited as \"derivation Sect. N\"",
            "errata.md": "the errata: differences, findings, choices, seeds, worst cases"}  # fmt: skip
    lines = []
    for name, text in what.items():
        if paper.companion(name) is not None:
            target = Path(str(resources.files(paper.package) / name))
            link = Path(os.path.relpath(target, Path(out).resolve())).as_posix()
            lines.append(f"- {text}: [`{where}/{name}`]({link})")
    return [*lines, ""] if lines else []


def paper_page(paper: Paper, out: Path = DEFAULT_DOCS) -> str:
    """The Markdown page of one paper, to be written into the folder ``out``."""
    info = paper.info
    claims = [c for c in registry().values() if c.record.paper == info.key]
    body = inspect.getdoc(paper.package) or ""
    head = [
        f"# {info.key}: {info.title}",
        "",
        f"{info.citation}: <{info.url}>. {info.short[0].upper()}{info.short[1:]}.",
        "",
        "*Generated by `attncheck docs` from the claim registry; do not edit by hand.*",
        "",
        body,
        "",
        *_companions(paper, out),
        f"## Claims ({len(claims)})",
        "",
        "| claim | kind | provenance | reference |",
        "|---|---|---|---|",
        *(
            f"| [`{c.id}`](#{c.id.replace('.', '')}) | {c.record.kind} | {c.record.provenance} | "
            f"{c.record.reference} |"
            for c in claims
        ),
        "",
    ]
    return "\n".join(head) + "\n" + "\n".join(claim_section(c) for c in claims)


def index_page(keys: Iterable[str] | None = None, out: Path = DEFAULT_DOCS) -> str:
    """``docs/README.md``: the papers ``keys`` (default: every installed one) and their pages, as written
    into the folder ``out`` (the authoring guide is linked from attncheck's own docs, named elsewhere;
    the rulebook and the operations guide only from attncheck's own)."""
    keys = _keys(keys)
    own = Path(out).resolve() == DEFAULT_DOCS.resolve()
    guide = "[authoring.md](authoring.md)" if own else "attncheck's `docs/authoring.md`"
    guides = (
        [
            "How a verdict is reached: [verdicts.md](verdicts.md). Running, timing and the tightness gate:",
            "[operations.md](operations.md).",
        ]
        if own
        else []
    )
    rows = [
        f"| [{p.info.key}]({p.info.key}.md) | {p.info.authors} {p.info.year}: {p.info.title} | "
        f"{sum(c.record.paper == key for c in registry().values())} |"
        for key, p in papers().items()
        if key in keys
    ]
    searched = sorted(
        (c.id, c.record, c.record.search)
        for c in registry().values()
        if c.record.search and c.record.paper in keys
    )
    search_rows = [
        f"| [`{cid}`]({rec.paper}.md#{_anchor(cid)}) | {s.ratio.replace('|', chr(92) + '|')} | "
        f"{_value(dict(rec.quick)[s.budget])} | {_value(rec.params_for('paper')[s.budget])} |"
        for cid, rec, s in searched
    ]
    return "\n".join(
        [
            "# Claim documentation",
            "",
            "One page per paper, generated by `attncheck docs` from the claim registry. Writing a paper",
            f"of your own: {guide}.",
            *guides,
            "",
            "| paper | title | claims |",
            "|---|---|---|",
            *rows,
            "",
            "## Bounds searched at their worst case",
            "",
            "Every bound stated for all inputs of a set is searched for the inputs that make it",
            "tightest (`verify/numerics/worstcase.py`: multi-start local optimisation, deterministic for",
            "a seed); the claim's section gives the set searched. Its budget is one parameter of the",
            "claim, with one value per profile. A ratio above 1 is a counterexample; within 1 % of 1 the",
            "bound is tight; the report draws, per paper, the typical ratio of random draws against the",
            "worst ratio found.",
            "",
            "| claim | ratio maximised | budget, quick | budget, paper |",
            "|---|---|---|---|",
            *search_rows,
            "",
        ]
    )


def _anchor(claim_id: str) -> str:
    """The GitHub anchor of a claim's section heading (``### `id` ``)."""
    return claim_id.replace(".", "").lower()


def _keys(keys: Iterable[str] | None) -> list[str]:
    """``keys`` checked against the installed papers (default: all of them)."""
    installed = papers()
    if keys is None:
        return list(installed)
    keys = list(keys)
    unknown = [k for k in keys if k not in installed]
    if unknown:
        raise ValueError(f"papers: no installed paper {unknown[0]!r}; installed: {sorted(installed)}")
    return keys


def folder_papers(out: Path = DEFAULT_DOCS) -> list[str]:
    """The papers whose docs live in the folder ``out``: the built-in papers for the repository's
    ``docs/``; elsewhere the installed papers with a page there, or every installed paper for a folder
    that holds none yet."""
    out = Path(out)
    if out.resolve() == DEFAULT_DOCS.resolve():
        return list(builtin_papers())
    present = [key for key in papers() if (out / f"{key}.md").is_file()]
    return present or list(papers())


def pages(keys: Iterable[str] | None = None, out: Path = DEFAULT_DOCS) -> dict[str, str]:
    """File name -> Markdown text of the pages of the papers ``keys`` (default: every installed paper)
    and their index, as written into the folder ``out``."""
    keys = _keys(keys)
    installed = papers()
    return {"README.md": index_page(keys, out)} | {f"{k}.md": paper_page(installed[k], out) for k in keys}


def write_docs(out: Path = DEFAULT_DOCS, keys: Iterable[str] | None = None) -> list[Path]:
    """Write the pages of the papers ``keys`` (default: :func:`folder_papers`) into ``out``; returns
    the paths written."""
    out = Path(out)
    keys = folder_papers(out) if keys is None else list(keys)
    if out.resolve() == DEFAULT_DOCS.resolve() and sorted(keys) != sorted(builtin_papers()):
        raise ValueError(
            f"papers: attncheck's {out} holds the built-in papers {list(builtin_papers())}, not "
            f"{sorted(keys)}; write a plugin's pages into its own folder with --out DIR"
        )
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in pages(keys, out).items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def stale_pages(out: Path = DEFAULT_DOCS, keys: Iterable[str] | None = None) -> list[str]:
    """Names of the pages under ``out`` that differ from what ``attncheck docs`` would write there: the
    pages of the papers ``keys`` (default: those whose docs live in ``out``, :func:`folder_papers`) and
    their index."""
    out = Path(out)
    return [
        name
        for name, text in pages(folder_papers(out) if keys is None else keys, out).items()
        if not (out / name).is_file() or (out / name).read_text(encoding="utf-8") != text
    ]


__all__ = [
    "DEFAULT_DOCS",
    "claim_section",
    "folder_papers",
    "pages",
    "paper_page",
    "stale_pages",
    "write_docs",
]
