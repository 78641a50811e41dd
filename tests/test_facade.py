"""One door: the claim modules of every installed paper, the skeleton ``attncheck new`` writes and the
author's guide import from the ``verify.core`` facade only, never from its submodules (a lazy import
inside a function counts); and claim declarations stay short."""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
import re
import statistics
from pathlib import Path

import pytest

import verify.core
from verify.core.papers import builtin_papers, papers
from verify.scaffold import new_plugin

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "authoring.md"
#: The modules of the ``verify.core`` package, which only the facade may import.
SUBMODULES = frozenset(m.name for m in pkgutil.iter_modules(verify.core.__path__))


def _claim_modules(keys: tuple[str, ...] | None = None) -> list[Path]:
    """The files of each paper's ``claims`` (every module of a package ``claims/``), for the papers
    ``keys`` (default: every installed one)."""
    out: list[Path] = []
    for key, paper in papers().items():
        if keys is not None and key not in keys:
            continue
        origin = Path(importlib.util.find_spec(f"{paper.package.__name__}.claims").origin)
        out += sorted(origin.parent.glob("*.py")) if origin.name == "__init__.py" else [origin]
    return out


def submodule_imports(source: str) -> list[str]:
    """Every import of a ``verify.core`` submodule in ``source``, wherever it sits: ``"line N: module"``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.startswith("verify.core.")]
        elif isinstance(node, ast.ImportFrom) and node.module == "verify.core":
            names = [f"verify.core.{a.name}" for a in node.names if a.name in SUBMODULES]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("verify.core."):
            names = [node.module]
        else:
            continue
        found += [f"line {node.lineno}: {name}" for name in names]
    return found


def test_the_check_sees_every_form_of_a_submodule_import() -> None:
    source = (
        "from verify.core.record import Seeds\n"
        "import verify.core.judge as J\n"
        "from verify.core import Kind, record\n"
        "def f():\n"
        "    from verify.core.format import fmt_sci\n"
    )
    assert submodule_imports(source) == [
        "line 1: verify.core.record",
        "line 2: verify.core.judge",
        "line 3: verify.core.record",
        "line 5: verify.core.format",
    ]
    assert submodule_imports("from verify.core import Kind, Seeds, claim\nimport verify.core\n") == []


@pytest.mark.parametrize("path", _claim_modules(), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_a_claim_module_imports_only_the_facade(path: Path) -> None:
    bad = submodule_imports(path.read_text(encoding="utf-8"))
    assert not bad, f"{path} imports verify.core submodules (import them from verify.core): {bad}"


def test_the_skeleton_imports_only_the_facade(tmp_path: Path) -> None:
    files = [p for p in new_plugin("smith2027", tmp_path / "skeleton") if p.suffix == ".py"]
    assert {p.name for p in files} >= {"__init__.py", "claims.py"}
    bad = {p.name: submodule_imports(p.read_text(encoding="utf-8")) for p in files}
    assert not any(bad.values()), bad


def test_the_guide_imports_only_the_facade() -> None:
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    bad = [hit for block in blocks for hit in submodule_imports(block)]
    assert not bad, f"docs/authoring.md imports verify.core submodules: {bad}"


def declarations() -> list[tuple[str, int, int]]:
    """Per claim of the built-in papers: (id, lines of its ``@claim(...)`` from the ``@`` to the closing
    parenthesis, lines of its function from ``def`` to its last line, docstring included)."""
    out = []
    for path in _claim_modules(builtin_papers()):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and isinstance(dec.func, ast.Name) and dec.func.id == "claim":
                    out.append(
                        (
                            dec.args[0].value,
                            dec.end_lineno - dec.lineno + 2,
                            node.end_lineno - node.lineno + 1,
                        )
                    )
    return out


#: Issue 37 asks for the median declaration at most half its function. The value objects took it from
#: 1.68 (119 of 135 declarations longer than their function) to 0.93 (54 longer); what remains is the
#: claims' own prose (statement, LaTeX, alternative world, reference, search), which the records keep
#: verbatim. These bounds keep it from growing back; lower them as declarations shrink.
MEDIAN_RATIO, LONGER = 0.93, 54


def test_declarations_stay_short() -> None:
    decls = declarations()
    ratios = [d / f for _, d, f in decls]
    median, longer = statistics.median(ratios), sum(r > 1 for r in ratios)
    numbers = (
        f"{len(decls)} declarations: median declaration / function {median:.2f} (issue 37's target 0.5), "
        f"{longer} longer than their function; median lengths {statistics.median(d for _, d, _ in decls)} "
        f"and {statistics.median(f for _, _, f in decls)} lines"
    )
    print(numbers)
    assert len(decls) == len({cid for cid, _, _ in decls}) >= 100, numbers
    assert median <= MEDIAN_RATIO and longer <= LONGER, numbers
