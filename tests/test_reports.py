"""LaTeX report: golden files from a fixed results file, escaping, a real pdflatex compile, figures."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import mpmath
import pytest

from reports.build import build_report
from reports.latex import escape, markdown_notes, num
from verify.cli import main, read_results

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("ATTNCHECK_UPDATE_GOLDEN") == "1"


@pytest.fixture
def report_dir(tmp_path: Path) -> Path:
    build_report(read_results(GOLDEN / "results.json"), tmp_path, figures=False)
    return tmp_path


@pytest.mark.parametrize("name", ["main.tex", "summary.tex", "toy.tex"])
def test_golden_tex(report_dir: Path, name: str) -> None:
    """The generated .tex equals the committed golden file (ATTNCHECK_UPDATE_GOLDEN=1 rewrites it)."""
    got = (report_dir / name).read_text()
    golden = GOLDEN / "expected" / name
    if UPDATE:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(got)
    assert got == golden.read_text()


def test_escaping_and_numbers() -> None:
    assert escape("a_b & 50% $x$ #1 {y} ~^\\ <|>") == (
        r"a\_b \& 50\% \$x\$ \#1 \{y\} \textasciitilde{}\textasciicircum{}\textbackslash{} "
        r"\textless{}\textbar{}\textgreater{}"
    )
    assert num(mpmath.mpf("1.234e41")) == r"$1.23\times10^{41}$"
    assert num(mpmath.mpf("5e-400")) == r"$5.00\times10^{-400}$"
    assert num(7) == "$7$"
    assert num({"slope": -1.0, "lo": -1.1, "hi": -0.9}) == "-1.000 [-1.100, -0.900]"
    assert num(True) == "yes"


def test_markdown_errata_subset() -> None:
    tex = markdown_notes("## Corrections\n- `tau0` was 1/2 & not 1\n  continued\n\nplain_text\n")
    assert r"\paragraph{Corrections}" in tex
    assert r"\item \texttt{tau0} was 1/2 \& not 1" in tex
    assert r"\end{itemize}" in tex and r"plain\_text" in tex


def _pdflatex() -> str:
    exe = shutil.which("pdflatex")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("pdflatex missing under CI: .ci/run must install it")
        pytest.skip("pdflatex not installed (`.ci/run` installs it)")
    return exe


def _compile(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_pdflatex(), "-interaction=nonstopmode", "-halt-on-error", "main.tex"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_main_tex_compiles_with_pdflatex(tmp_path: Path) -> None:
    written = build_report(read_results(GOLDEN / "results.json"), tmp_path, figures=True)
    proc = _compile(tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert (tmp_path / "main.pdf").stat().st_size > 1000
    assert written.main_tex == tmp_path / "main.tex"


def test_a_broken_table_does_not_compile(report_dir: Path) -> None:
    """The compile test can fail: an unescaped underscore in a table breaks pdflatex."""
    table = report_dir / "toy.tex"
    text = table.read_text()
    assert r"\textbf{claim}" in text
    table.write_text(text.replace(r"\textbf{claim}", r"\textbf{claim_id}", 1))
    assert _compile(report_dir).returncode != 0


def test_figures_are_written_and_referenced(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    build_report(read_results(GOLDEN / "results.json"), tmp_path, figures=True)
    assert (tmp_path / "fig" / "toy_upper.pdf").exists()
    assert r"\includegraphics" in (tmp_path / "main.tex").read_text()
    assert r"Fig.~\ref{fig:toy-upper}" in (tmp_path / "toy.tex").read_text()


def test_figures_are_skipped_with_a_note_without_matplotlib(tmp_path: Path, monkeypatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("no matplotlib")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    written = build_report(read_results(GOLDEN / "results.json"), tmp_path, figures=True)
    assert any("figures skipped" in n for n in written.notes)
    assert r"\includegraphics" not in (tmp_path / "main.tex").read_text()


def test_cli_report_from_saved_results(tmp_path: Path, capsys, toy_claims) -> None:
    code = main(["report", "--from", str(GOLDEN / "results.json"), "--out", str(tmp_path), "--no-figures"])
    assert code == 1  # the golden file holds an error and an unexpected violation
    assert (tmp_path / "main.tex").exists()
    assert main(["report", "--from", str(tmp_path / "missing.json")]) == 2
