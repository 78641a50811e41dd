"""Papers are plugins: each is a package registered under the entry-point group ``attncheck.papers``.

A paper package ``pkg`` (e.g. ``verify.wu2023``) defines ``PAPER``, a :class:`PaperInfo`, and a
module or package ``pkg.claims`` whose import registers its claims. The four built-in papers are
registered in attncheck's own ``pyproject.toml`` exactly as a third-party paper would be::

    [project.entry-points."attncheck.papers"]
    wu2023 = "verify.wu2023"

The entry-point name must equal ``PAPER.key`` and the prefix of every claim id of the paper.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata, resources
from types import ModuleType

GROUP = "attncheck.papers"
#: The keys of the paper plugins being imported (innermost last): a claim registered meanwhile is theirs.
_LOADING: list[str] = []


@dataclass(frozen=True)
class PaperInfo:
    """Bibliographic metadata of one paper, written once (README table, report and docs read it).

    key: the claim-id prefix (``wu2023``); title, authors (``"Wu, Liu, Chrysos, Cevher"``), venue
    (``"NeurIPS 2023"``), year, arxiv (``"2311.01575"``), short: a one-line subject for tables.
    """

    key: str
    title: str
    authors: str
    venue: str
    year: int
    arxiv: str
    short: str

    @property
    def citation(self) -> str:
        """``Wu, Liu, Chrysos, Cevher (NeurIPS 2023, arXiv 2311.01575)``."""
        return f"{self.authors} ({self.venue}, arXiv {self.arxiv})"

    @property
    def url(self) -> str:
        return f"https://arxiv.org/abs/{self.arxiv}"


@dataclass(frozen=True)
class Paper:
    """A loaded paper plugin: its metadata and its package module."""

    info: PaperInfo
    package: ModuleType

    def companion(self, name: str) -> str | None:
        """The text of the file ``name`` shipped in the paper's package (``errata.md``,
        ``derivations.md``), or None when the package has none."""
        f = resources.files(self.package) / name
        return f.read_text(encoding="utf-8") if f.is_file() else None


class PluginError(RuntimeError):
    """A paper plugin that cannot be loaded; the message names the plugin and the cause."""


def _load(ep: metadata.EntryPoint) -> Paper:
    try:
        return _load_unchecked(ep)
    except Exception as exc:  # whatever the plugin's import raises, one line names it
        cause = f"{type(exc).__name__}: {exc}".splitlines()[0]
        raise PluginError(f"paper plugin {ep.name!r} ({ep.value}) cannot be loaded: {cause}") from exc


@contextlib.contextmanager
def loading(key: str) -> Iterator[None]:
    """The claims registered inside belong to paper ``key`` (a plugin's package and claims are
    imported inside it; :func:`loading_paper` tells the registry)."""
    _LOADING.append(key)
    try:
        yield
    finally:
        _LOADING.pop()


def loading_paper() -> str | None:
    """The key of the paper plugin being imported (the innermost), or None."""
    return _LOADING[-1] if _LOADING else None


def _load_unchecked(ep: metadata.EntryPoint) -> Paper:
    with loading(ep.name):  # a claim registered while the plugin imports is the paper's
        return _import(ep)


def _import(ep: metadata.EntryPoint) -> Paper:
    pkg = ep.load()
    info = getattr(pkg, "PAPER", None)
    if not isinstance(info, PaperInfo):
        raise TypeError(f"paper plugin {ep.name!r} ({ep.value}) must define PAPER = PaperInfo(...)")
    if info.key != ep.name:
        raise ValueError(f"paper plugin {ep.name!r}: PAPER.key is {info.key!r}; they must agree")
    importlib.import_module(f"{pkg.__name__}.claims")
    return Paper(info, pkg)


@functools.cache
def papers() -> dict[str, Paper]:
    """Every installed paper plugin by key (sorted), its claims imported (and so registered)."""
    eps = sorted(metadata.entry_points(group=GROUP), key=lambda ep: ep.name)
    if not eps:
        raise RuntimeError(
            f"no paper plugins in the entry-point group {GROUP!r}: install attncheck (pip install -e .)"
        )
    found: dict[str, Paper] = {}
    for ep in eps:
        if ep.name in found:  # the same distribution seen twice on sys.path
            continue
        found[ep.name] = _load(ep)
    return found


#: The distribution whose own entry points are the built-in papers.
DISTRIBUTION = "attncheck"


@functools.cache
def builtin_papers() -> tuple[str, ...]:
    """The keys of the papers attncheck ships (the entry points of its own ``pyproject.toml``), sorted;
    the papers its committed baseline and docs cover. A plugin installed beside them is not one."""
    eps = metadata.entry_points(group=GROUP)
    return tuple(sorted({ep.name for ep in eps if ep.dist is not None and ep.dist.name == DISTRIBUTION}))


def paper_info(key: str) -> PaperInfo:
    """The metadata of paper ``key``; KeyError naming the installed papers otherwise."""
    reg = papers()
    if key not in reg:
        raise KeyError(f"unknown paper {key!r}; installed: {sorted(reg)}")
    return reg[key].info


__all__ = [
    "GROUP",
    "Paper",
    "PaperInfo",
    "PluginError",
    "builtin_papers",
    "loading",
    "loading_paper",
    "paper_info",
    "papers",
]
