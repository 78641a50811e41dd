"""docs/authoring.md is executed: its Python blocks run in order in one namespace (their assertions
are the guide's promises), and every ``attncheck`` command it shows parses."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from verify.cli import _parser
from verify.core.registry import _unregister, registry

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "authoring.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_the_guides_python_blocks_run() -> None:
    blocks = _blocks("python")
    assert len(blocks) >= 4
    namespace: dict = {}
    try:
        for block in blocks:
            exec(compile(block, str(GUIDE), "exec"), namespace)
    finally:
        for cid in [cid for cid in registry() if cid.startswith("guide.")]:
            _unregister(cid)


@pytest.mark.parametrize(
    "line", [ln for b in _blocks("bash") for ln in b.splitlines() if ln.startswith("attncheck")]
)
def test_the_guides_commands_parse(line: str) -> None:
    args = shlex.split(line.split("#", 1)[0])[1:]
    assert _parser().parse_args(args).fn is not None


def test_the_guide_imports_only_what_verify_core_exports() -> None:
    import verify.core

    for block in _blocks("python"):
        for names in re.findall(r"from verify\.core import \(?([^)]*?)\)?\n(?!\s)", block, re.S):
            for name in (n.strip() for n in names.replace("\n", " ").split(",")):
                if name:
                    assert hasattr(verify.core, name), f"docs/authoring.md imports {name} from verify.core"
