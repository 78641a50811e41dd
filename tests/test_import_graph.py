"""The import graph of attncheck's own modules, read from the source with ``ast``: ``bounds``,
``verify``, ``reports`` and every installed paper plugin (a plugin outside this tree included).

Every ``import`` statement is an arrow, wherever it stands: at the top, inside a function (a lazy
import runs all the same) or under ``if TYPE_CHECKING:`` (an arrow between layers that only the
type checker follows). An arrow points at the module it names (``from verify.core.record import
Result``: ``verify.core.record``; ``from verify.core import Ctx``: the facade ``verify.core``), not at
the packages above it. The walls kept: no circle, the theory (``bounds``) imports nothing from the
experiment side or the reports, the core names no paper package, and no paper imports another.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
from collections import deque
from collections.abc import Iterable, Iterator
from importlib import metadata
from pathlib import Path

from verify.core.papers import GROUP

ROOT = Path(__file__).resolve().parents[1]
OWN = ("bounds", "verify", "reports")

#: importer -> {imported module: "path:line" of the first import of it}
Graph = dict[str, dict[str, str]]


def _paper_packages() -> dict[str, Path]:
    """Each installed paper plugin's package name -> its folder (a one-module plugin: its file)."""
    found = {}
    for ep in metadata.entry_points(group=GROUP):
        name = ep.value.split(":", 1)[0]
        own = ROOT.joinpath(*name.split("."))
        if name.split(".", 1)[0] in OWN and own.is_dir():
            found[name] = own
            continue
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None, f"paper plugin {ep.name!r}: no module {name!r}"
        locations = spec.submodule_search_locations
        found[name] = Path(locations[0]) if locations else Path(spec.origin)
    return found


def _modules(roots: dict[str, Path]) -> dict[str, Path]:
    """Module name -> source file, for every ``.py`` file under each root (package name -> folder)."""
    modules = {}
    for package, folder in roots.items():
        files = folder.rglob("*.py") if folder.is_dir() else [folder]
        for path in files:
            parts = path.relative_to(folder).with_suffix("").parts if folder.is_dir() else ()
            if parts and parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((package, *parts))] = path
    return modules


def _imports(body: Iterable[ast.AST]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements in ``body`` and every block nested in it (function and class bodies, the
    branches of if / try / with / for / while / match), top to bottom; expressions are not entered."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        for block in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, block, None)
            if isinstance(inner, list):
                yield from _imports(inner)


def _named(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> Iterator[str]:
    """The dotted names an import statement in ``module`` names (``from a import b``: ``a.b``)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:  # relative: up from the module's package
        package = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
    yield from (f"{base}.{alias.name}" for alias in node.names)


def _graph(modules: dict[str, Path]) -> Graph:
    """Every module's arrows to the others: each name resolved to its longest prefix that is one of
    ``modules`` (a name outside them, numpy's say, is no arrow)."""
    graph: Graph = {}
    for module, path in modules.items():
        arrows = graph.setdefault(module, {})
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path)).body):
            for name in _named(node, module, path.name == "__init__.py"):
                target = _longest_module(name, modules)
                if target is not None and target != module:
                    arrows.setdefault(target, f"{where}:{node.lineno}")
    return graph


def _longest_module(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of the dotted ``name`` that is one of ``modules``, or None."""
    parts = name.split(".")
    prefixes = (".".join(parts[:k]) for k in range(len(parts), 0, -1))
    return next((p for p in prefixes if p in modules), None)


def _reach(graph: Graph, start: str) -> set[str]:
    """The modules an import of ``start`` reaches (``start`` itself only through a circle)."""
    seen: set[str] = set()
    todo = deque(graph[start])
    while todo:
        m = todo.popleft()
        if m not in seen:
            seen.add(m)
            todo.extend(graph[m])
    return seen


def _circles(graph: Graph) -> list[str]:
    """Each set of modules that import one another (a strongly connected component), written as one
    shortest circle through its first module with where each arrow is."""
    reach = {m: _reach(graph, m) for m in graph}
    groups = {frozenset(n for n in reach[m] if m in reach[n]) for m in graph if m in reach[m]}
    out = []
    for group in sorted(groups, key=sorted):
        start = min(group)
        back: dict[str, str] = {}
        todo = deque([start])
        while start not in back:  # breadth first inside the group, until an arrow returns to start
            m = todo.popleft()
            for n in sorted(graph[m]):
                if n in group and n not in back:
                    back[n] = m
                    todo.append(n)
        path = [start]
        while len(path) == 1 or path[-1] != start:
            path.append(back[path[-1]])
        path.reverse()
        steps = " -> ".join(f"{b} ({graph[a][b]})" for a, b in itertools.pairwise(path))
        out.append(f"{len(group)} modules {sorted(group)}: {start} -> {steps}")
    return out


PAPERS = _paper_packages()
MODULES = _modules({**{p: ROOT / p for p in OWN}, **PAPERS})
GRAPH = _graph(MODULES)


def _arrows(source: str, target: str) -> list[str]:
    """The arrows from a module in package ``source`` to one in package ``target``."""

    def within(m: str, package: str) -> bool:
        return m == package or m.startswith(package + ".")

    return [
        f"{a} -> {b} ({where})"
        for a, arrows in sorted(GRAPH.items())
        if within(a, source)
        for b, where in sorted(arrows.items())
        if within(b, target)
    ]


def test_the_graph_is_read_from_every_own_module() -> None:
    assert {"bounds.checks", "verify.core.record", "reports.latex", "verify.cli"} <= set(MODULES)
    assert {"verify.wu2023", "verify.yang2024", "verify.deora2023", "verify.zhang2026"} <= set(PAPERS)
    assert "verify.core.gate" in GRAPH["verify.cli"]
    assert any("verify.core" in GRAPH[m] for m in MODULES if m.startswith("verify.wu2023.claims."))


def test_a_lazy_a_relative_and_a_type_checking_import_close_a_circle(tmp_path: Path) -> None:
    files = {
        "__init__.py": "",
        "a.py": "from toy import b\n",
        "b.py": "import numpy\n\n\ndef f():\n    from .c import g\n",
        "c.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import toy.a\n",
        "d.py": "import toy.a\n",
    }
    (tmp_path / "toy").mkdir()
    for name, text in files.items():
        (tmp_path / "toy" / name).write_text(text)
    graph = _graph(_modules({"toy": tmp_path / "toy"}))
    assert graph["toy.d"] == {"toy.a": f"{tmp_path / 'toy' / 'd.py'}:1"}
    [circle] = _circles(graph)
    assert circle.startswith("3 modules ['toy.a', 'toy.b', 'toy.c']: toy.a -> toy.b (")
    assert circle.endswith("b.py:5) -> toy.a (" + str(tmp_path / "toy" / "c.py") + ":4)")


def test_no_import_circle() -> None:
    circles = _circles(GRAPH)
    assert not circles, "import circles (break each so its imports go one way):\n" + "\n".join(circles)


def test_bounds_import_nothing_from_the_experiment_side_or_the_reports() -> None:
    arrows = _arrows("bounds", "verify") + _arrows("bounds", "reports")
    assert not arrows, "bounds/ must stay pure theory:\n" + "\n".join(arrows)


def test_the_core_names_no_paper() -> None:
    arrows = [a for paper in PAPERS for a in _arrows("verify.core", paper)]
    assert not arrows, "verify/core must stay paper-blind:\n" + "\n".join(arrows)


def test_no_paper_imports_another() -> None:
    arrows = [a for p in PAPERS for q in PAPERS if p != q for a in _arrows(p, q)]
    assert not arrows, "papers are independent plugins:\n" + "\n".join(arrows)
