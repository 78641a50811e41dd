"""``attncheck new``: the skeleton of a plugin, installed from outside the repo beside the four papers,
is listed, run (and violated in its alternative world), reported, documented and baselined, and its
own tests (the claim battery) pass."""

from __future__ import annotations

import json
import subprocess
import sysconfig
import venv
from pathlib import Path

import pytest

from verify.cli import main
from verify.scaffold import check_key, new_plugin


def test_bad_keys_and_occupied_folders_are_refused(tmp_path: Path, capsys) -> None:
    for key in ("2bad", "Smith2027", "with-dash", "class", ""):
        with pytest.raises(ValueError, match="paper key must be"):
            check_key(key)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    assert main(["new", "smith2027", "--out", str(tmp_path / "full")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(python of a venv that sees this environment's packages, the skeleton of ``smith2027`` installed
    in it with pip, as a user would)."""
    root = tmp_path_factory.mktemp("scaffold")
    skeleton = root / "attncheck-smith2027"
    files = new_plugin("smith2027", skeleton)
    names = {p.name for p in files}
    assert names == {"pyproject.toml", "__init__.py", "claims.py", "errata.md", "test_smith2027.py"}
    py = _venv_seeing_this_environment(root / "venv")
    proc = _run(py, "-m", "pip", "install", "-q", "--no-deps", "-e", str(skeleton))
    assert proc.returncode == 0, proc.stderr
    return py, skeleton


def _venv_seeing_this_environment(where: Path) -> Path:
    """The python of a new venv at ``where`` whose ``sys.path`` ends with this environment's
    site-packages (processed as site dirs, so editable installs resolve). ``system_site_packages=True``
    would show the *base* interpreter's packages, not those of a venv pytest runs in."""
    venv.EnvBuilder(with_pip=False).create(where)
    py = where / "bin" / "python"
    purelib = _run(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    outer = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
    lines = [f"import site; site.addsitedir({d!r})" for d in outer]
    (Path(purelib) / "_attncheck_outer_env.pth").write_text("\n".join(lines) + "\n")
    return py


def _run(py: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(py), *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def test_the_skeleton_installs_and_runs_beside_the_four_papers(installed, tmp_path: Path) -> None:
    py, skeleton = installed
    listed = _run(py, "-m", "verify", "list")
    assert listed.returncode == 0, listed.stderr
    assert "smith2027.gradbound" in listed.stdout and "wu2023.prop1" in listed.stdout

    results = tmp_path / "r.json"
    run = _run(py, "-m", "verify", "run", "smith2027.*", "--json", str(results), "--quiet")
    assert run.returncode == 0, run.stderr
    (res,) = json.loads(results.read_text())["results"]
    assert res["verdict"] == "holds" and res["seeds"] == [0, 1, 2]

    out = tmp_path / "out"
    report = _run(py, "-m", "verify", "report", "--from", str(results), "--out", str(out), "--no-figures")
    assert report.returncode == 0, report.stderr
    assert r"\section{First, Second (Venue 2026)" in (out / "smith2027.tex").read_text()

    docs = _run(py, "-m", "verify", "docs", "--out", str(tmp_path / "docs"))
    page = (tmp_path / "docs" / "smith2027.md").read_text()
    assert docs.returncode == 0 and "### `smith2027.gradbound`" in page and "alternative world" in page

    base = tmp_path / "b.json"
    for action in ("update", "check"):
        gate = _run(py, "-m", "verify", "baseline", action, "--from", str(results), "--baseline", str(base))
        assert gate.returncode == 0, gate.stderr

    own = skeleton / "smith2027" / "test_smith2027.py"
    tests = _run(py, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(own), cwd=skeleton)
    assert tests.returncode == 0, tests.stdout[-2000:]
    # the claim battery: verdict, stability at one further seed set, alternative; the paper profile and
    # the two other further seed sets skipped (they run with --runslow)
    assert "3 passed, 3 skipped" in tests.stdout and "paper-scale; run with --runslow" in tests.stdout
    assert "a further stability seed set (one runs by default); run with --runslow" in tests.stdout
