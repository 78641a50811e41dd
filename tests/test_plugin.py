"""A fifth paper without touching the core: a toy paper package, installed as a distribution with an
``attncheck.papers`` entry point (a ``.dist-info`` folder on the path, as pip writes it), is listed,
run, reported, documented and baselined by the unchanged ``attncheck`` command."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support import baseline_results
from verify.core import Alternative, Ctx, Evidence, Expect, Kind, Profiles, Provenance, Report, Source, claim
from verify.core.gate import DEFAULT_BASELINE
from verify.core.papers import loading
from verify.core.registry import _unregister, registry

FILES = {
    "toy5paper/__init__.py": '''
        """Toy paper: least squares f(w) = |X w - y|^2 / (2 N), X (N, d), y (N,), w (d,)."""

        from verify.core import PaperInfo

        PAPER = PaperInfo(
            key="toy5", title="A Toy Fifth Paper", authors="Nobody", venue="nowhere 2026", year=2026,
            arxiv="0000.00000", short="least squares, a gradient-norm bound",
        )
        ''',
    "toy5paper/bounds.py": '''
        """The toy paper's bound: |grad f(w)| <= (|X|_2^2 |w| + |X|_2 |y|) / N."""


        def grad_norm_bound(op_norm: float, w_norm: float, y_norm: float, N: int) -> float:
            return (op_norm**2 * w_norm + op_norm * y_norm) / N
        ''',
    "toy5paper/model.py": '''
        """The toy model behind the shared protocol (verify.numerics.model)."""

        from dataclasses import dataclass

        import numpy as np

        from verify.numerics.model import ParamBlocks


        @dataclass(frozen=True)
        class Params(ParamBlocks):
            w: np.ndarray


        class LeastSquares:
            def forward(self, params, batch):
                return batch[0] @ params.w

            def loss(self, params, batch):
                r = self.forward(params, batch) - batch[1]
                return float(r @ r) / (2 * len(r))

            def loss_and_grad(self, params, batch):
                X, y = batch
                r = X @ params.w - y
                return float(r @ r) / (2 * len(r)), Params(w=X.T @ r / len(r))
        ''',
    "toy5paper/claims.py": '''
        """The toy paper's one claim."""

        import numpy as np

        from toy5paper import bounds as B
        from toy5paper.model import LeastSquares, Params
        from verify.core import (
            Alternative,
            Ctx,
            Evidence,
            Kind,
            Profiles,
            Provenance,
            SeedPlan,
            Seeds,
            Source,
            claim,
        )


        @claim(
            "toy5.gradbound", Source("Lemma 1", Provenance.EXACT), kind=Kind.UPPER,
            statement="|grad f(w)| <= (|X|_2^2 |w| + |X|_2 |y|) / N",
            profiles=Profiles(quick=dict(N=20, d=5), paper=dict(N=200, d=50)), seeds=SeedPlan(Seeds.EVERY),
            alternative=Alternative("the bound 100 times smaller", factor=100.0),
        )
        def gradbound(ctx: Ctx, *, N: int, d: int) -> Evidence:
            """Toy paper, Lemma 1. Kind: upper, EXACT."""
            rng = ctx.rng(0)
            X, y, w = rng.standard_normal((N, d)), rng.standard_normal(N), rng.standard_normal(d)
            _, g = LeastSquares().loss_and_grad(Params(w=w), (X, y))
            theory = B.grad_norm_bound(np.linalg.norm(X, 2), np.linalg.norm(w), np.linalg.norm(y), N)
            return Evidence(theory=theory, measured=float(np.linalg.norm(g.w)))
        ''',
    "toy5paper-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: toy5paper\nVersion: 0.1\n",
    "toy5paper-0.1.dist-info/entry_points.txt": "[attncheck.papers]\ntoy5 = toy5paper\n",
}


@pytest.fixture(scope="module")
def plugin(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("plugin")
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return root


def _attncheck(plugin: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(plugin), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "verify", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_a_fifth_paper_is_listed_run_reported_documented_and_baselined(plugin: Path, tmp_path: Path) -> None:
    listed = _attncheck(plugin, "list")
    assert listed.returncode == 0 and "toy5.gradbound" in listed.stdout and "wu2023.grad" in listed.stdout

    results = tmp_path / "r.json"
    run = _attncheck(plugin, "run", "toy5.*", "--json", str(results), "--quiet")
    assert run.returncode == 0, run.stderr
    (res,) = json.loads(results.read_text())["results"]
    assert res["claim_id"] == "toy5.gradbound" and res["verdict"] == "holds" and res["seeds"] == [0, 1, 2]

    out = tmp_path / "out"
    report = _attncheck(plugin, "report", "--from", str(results), "--out", str(out), "--no-figures")
    assert report.returncode == 0, report.stderr
    table = (out / "toy5.tex").read_text()
    title = r"\section{Nobody (nowhere 2026): least squares, a gradient-norm bound}"  # from its PaperInfo
    assert title in table and "gradbound" in table and "Lemma 1" in table
    front = (out / "front.tex").read_text()
    assert r"\emph{A Toy Fifth Paper}" in front and "arXiv:0000.00000" in front

    docs = _attncheck(plugin, "docs", "--out", str(tmp_path / "docs"))
    assert docs.returncode == 0 and "### `toy5.gradbound`" in (tmp_path / "docs" / "toy5.md").read_text()

    base = tmp_path / "b.json"
    for action in ("update", "check"):
        gate = _attncheck(plugin, "baseline", action, "--from", str(results), "--baseline", str(base))
        assert gate.returncode == 0, gate.stderr


def test_a_broken_plugin_is_a_one_line_error(tmp_path: Path) -> None:
    pkg = tmp_path / "brokenpaper"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("import numpy_does_not_exist\n")
    info = tmp_path / "brokenpaper-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: brokenpaper\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[attncheck.papers]\nbroken = brokenpaper\n")
    out = _attncheck(tmp_path, "list")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip() == (
        "attncheck: error: paper plugin 'broken' (brokenpaper) cannot be loaded: "
        "ModuleNotFoundError: No module named 'numpy_does_not_exist'"
    )


def _toy(ctx: Ctx, *, x: float) -> Evidence:
    """Toy paper, Lemma 1. Kind: upper; provenance: EXACT."""
    return Evidence(theory=1.0, measured=x)


_TOY = dict(source=Source("Lemma 1", Provenance.EXACT), kind=Kind.UPPER, statement="x <= 1")
_X = Profiles(quick={"x": 0.5})
_ALT = Alternative("a bound ten times smaller", factor=10.0)


def test_a_claim_parameter_that_is_not_keyword_only_is_named() -> None:
    def positional(ctx: Ctx, a: float) -> Evidence:
        """Toy paper, Lemma 1. Kind: upper; provenance: EXACT."""
        return Evidence(theory=1.0, measured=a)

    with pytest.raises(TypeError) as err:
        claim(
            "toyk.positional",
            profiles=Profiles(quick={"a": 0.5}),
            alternative=Alternative("a = 2", {"a": 2.0}),
            **_TOY,
        )(positional)
    assert str(err.value) == (
        "claim 'toyk.positional': parameter 'a' of positional must be keyword-only (a name after the *): "
        "def positional(ctx, *, a: ...) -- each parameter is passed by name, its quick value in profiles= or "
        "choices="
    )
    assert "toyk.positional" not in registry()


def test_a_claim_id_that_names_another_paper_than_its_module_is_an_error() -> None:
    def gradbound(ctx: Ctx, *, x: float) -> Evidence:
        """Toy paper, Lemma 1. Kind: upper; provenance: EXACT."""
        return Evidence(theory=1.0, measured=x)

    gradbound.__module__ = "verify.wu2023.extra"  # as if defined in a module of the wu2023 package
    with pytest.raises(ValueError) as err:
        claim("wu2032.gradbound", profiles=_X, alternative=_ALT, **_TOY)(gradbound)
    assert str(err.value) == (
        "claim 'wu2032.gradbound' (in verify.wu2023.extra) belongs to the paper 'wu2023', but its id "
        "prefix 'wu2032' is no installed paper: name it 'wu2023.<name>'"
    )
    with loading("wu2023"), pytest.raises(ValueError, match="its id prefix names the paper 'yang2024'"):
        claim("yang2024.gradbound", profiles=_X, alternative=_ALT, **_TOY)(_toy)
    assert "wu2032.gradbound" not in registry() and "yang2024.gradbound" not in registry()


def test_a_claim_about_the_paper_without_an_alternative_world_is_an_error() -> None:
    with loading("wu2023"), pytest.raises(ValueError) as err:
        claim("wu2023.noalt", profiles=_X, **_TOY)(_toy)
    assert str(err.value) == (
        "claim 'wu2023.noalt' (provenance EXACT) is a claim about the paper and names no alternative "
        "world: add alternative=Alternative('<the nearest world where the statement is false>', "
        "overrides={...} | exponent=... | factor=...), or expect=Expect(consistency=True) if it checks the "
        "code, not the paper"
    )
    assert "wu2023.noalt" not in registry()
    # a consistency check names none, and a toy registered outside any paper is not held to it
    with loading("wu2023"):
        claim("wu2023.noalt", profiles=_X, expect=Expect(consistency=True), **_TOY)(_toy)
    _unregister("wu2023.noalt")


# --- the core's checks with a plugin installed beside it ---------------------------------------------


@pytest.fixture(scope="module")
def skeleton(tmp_path_factory) -> Path:
    """``attncheck new smith2027``, installed beside the core as ``pip install -e`` does it: the project
    folder on the path and a ``.dist-info`` naming its entry point."""
    from verify.scaffold import new_plugin

    root = tmp_path_factory.mktemp("skeleton") / "attncheck-smith2027"
    new_plugin("smith2027", root)
    info = root / "attncheck_smith2027-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: attncheck-smith2027\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[attncheck.papers]\nsmith2027 = smith2027\n")
    return root


def _guide_lines() -> list[list[str]]:
    """The commands of docs/authoring.md's block that runs a plugin's own checks from its folder."""
    guide = (Path(__file__).resolve().parent.parent / "docs" / "authoring.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```bash\n(.*?)```", guide, re.S) if "cd attncheck-smith2027" in b]
    lines = [shlex.split(ln.split("#", 1)[0]) for ln in block.splitlines()]
    assert lines[0] == ["cd", "attncheck-smith2027"]
    return [ln for ln in lines[1:] if ln]


def test_the_core_gate_docs_and_tests_cover_the_built_in_papers_beside_a_plugin(
    skeleton: Path, tmp_path: Path
) -> None:
    """With the scaffold's plugin installed: the core's docs check and gate pass and never name it, the
    plugin's own gate, docs and tests run from its folder as docs/authoring.md shows them, and the
    core's tests that enumerate papers pass."""
    from verify.cli import read_results, write_results

    listed = _attncheck(skeleton, "list")
    assert listed.returncode == 0 and "smith2027.gradbound" in listed.stdout
    docs = _attncheck(skeleton, "docs", "--check")
    assert docs.returncode == 0, docs.stderr

    own = tmp_path / "smith.json"
    assert _attncheck(skeleton, "run", "smith2027.*", "--json", str(own), "--quiet").returncode == 0
    both = tmp_path / "both.json"
    write_results(both, baseline_results(DEFAULT_BASELINE) + read_results(own), "quick", 0)
    gate = _attncheck(skeleton, "baseline", "check", "--from", str(both))
    assert gate.returncode == 0, gate.stdout[-2000:] + gate.stderr
    assert "smith2027" not in gate.stdout and gate.stdout.endswith("baseline check passed\n")
    assert "1 results of papers the baseline does not cover (smith2027) are left out" in gate.stderr

    root = Path(__file__).resolve().parent.parent  # the tree under test, whatever the folder run from
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(skeleton), str(root)])}
    for line in _guide_lines():  # the plugin's own gate, docs and tests, as the guide shows them
        cmd = [sys.executable, *(["-m", "verify"] if line[0] == "attncheck" else []), *line[1:]]
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=skeleton, timeout=300)
        assert done.returncode == 0, f"{' '.join(line)}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        if line[1:3] == ["baseline", "check"]:
            assert done.stdout.splitlines()[0].startswith("smith2027.gradbound  same"), done.stdout
    assert json.loads((skeleton / "smith2027" / "baseline.json").read_text())["papers"] == ["smith2027"]
    assert sorted(p.name for p in (skeleton / "docs").iterdir()) == ["README.md", "smith2027.md"]
    assert "](../smith2027/errata.md)" in (skeleton / "docs" / "smith2027.md").read_text()

    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/test_docs.py", "verify/test_registry.py", "tests/test_baseline.py",
         "-k", "not survives"],
        capture_output=True, text=True, env=env, cwd=root, timeout=300,
    )  # fmt: skip
    assert tests.returncode == 0, tests.stdout[-3000:]


def test_a_plot_its_series_cannot_feed_is_an_error_not_a_missing_figure() -> None:
    from verify.core import Plot, Verdict, run_claim

    plot = Plot(x="t", curves=[("loss", "training loss")], xlabel="$t$", ylabel="loss", logy=True)

    def curve(ctx: Ctx, *, series: dict) -> Evidence:
        """Toy paper, Lemma 1. Kind: upper; provenance: EXACT."""
        return Evidence(theory=1.0, measured=0.5, series=series)

    claim("toyplot.curve", profiles=Profiles(quick={"series": {}}), report=Report(None, plot), **_TOY)(curve)
    try:
        good = {"t": [0, 1, 2], "loss": [1.0, 0.5, 0.25]}
        assert run_claim("toyplot.curve", series=good).verdict == Verdict.HOLDS
        for series, why in [
            ({"step": [0, 1, 2], "Loss": [1.0, 0.5, 0.25]},
             "the plot reads the series keys ['loss', 't']; the series hold ['Loss', 'step']"),
            ({"t": [0, 1, 2], "loss": [1.0, 0.5]}, "the plot: series 'loss' holds 2 values for 3 x values"),
            ({"t": [0, 1, 2], "loss": 0.25}, "the plot: series 'loss' is a float, not a list"),
        ]:  # fmt: skip
            r = run_claim("toyplot.curve", series=series)
            assert r.verdict == Verdict.ERROR
            assert r.notes == [f"ValueError: claim 'toyplot.curve': its plot= cannot be drawn: {why}"]
    finally:
        _unregister("toyplot.curve")
