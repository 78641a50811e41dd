"""``attncheck new <key>``: the skeleton of a paper plugin that installs and runs one example claim.

The skeleton is the smallest plugin the registry accepts (docs/authoring.md explains each file):

- ``pyproject.toml`` -- the distribution ``attncheck-<key>`` and its entry point
  ``[project.entry-points."attncheck.papers"] <key> = "<key>"`` (the name equals ``PAPER.key``);
- ``<key>/__init__.py`` -- the package docstring (the paper's model and notation, printed on its docs
  page) and ``PAPER = PaperInfo(...)``;
- ``<key>/claims.py`` -- one example claim (an upper bound on a least-squares gradient, every seed, with
  its alternative world), imported by the core to register it;
- ``<key>/errata.md`` -- what the code does differently from the paper, shown in the report;
- ``<key>/test_<key>.py`` -- the claim battery (:func:`verify.testing.parametrize_with_claims`) on its
  claims: the verdict its record expects, at other seed sets too, and violated in its alternative world.
"""

from __future__ import annotations

import keyword
import re
import textwrap
from pathlib import Path

#: A paper key: a claim-id prefix, a Python package name and a report file name at once.
KEY_RE = re.compile(r"[a-z][a-z0-9_]*")

_FILES = {
    "pyproject.toml": """
        [build-system]
        requires = ["setuptools>=64"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "attncheck-{key}"
        version = "0.1.0"
        description = "attncheck claims of {key}"
        requires-python = ">=3.11"
        dependencies = ["attncheck"]

        [project.entry-points."attncheck.papers"]
        {key} = "{key}"

        [tool.setuptools.packages.find]
        include = ["{key}", "{key}.*"]

        [tool.setuptools.package-data]
        "*" = ["*.md", "*.json"]
        """,
    "{key}/__init__.py": '''
        """{key}: the paper's model, notation and assumptions in your own words (the docs page prints
        this docstring above the claims). Example: least squares f(w) = |X w - y|^2 / (2 N) with
        X (N, d), y (N,), w (d,); its gradient X^T (X w - y) / N."""

        from verify.core import PaperInfo

        PAPER = PaperInfo(
            key="{key}",
            title="The paper's title",
            authors="First, Second",
            venue="Venue 2026",
            year=2026,
            arxiv="0000.00000",
            short="a one-line subject for the report's section title",
        )
        ''',
    "{key}/claims.py": '''
        """The claims of {key}: one function per claim, registered by importing this module."""

        import numpy as np

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
            "{key}.gradbound",
            Source("Lemma 1, Eq. (3)", Provenance.EXACT),
            kind=Kind.UPPER,
            statement="|grad f(w)| <= (|X|_2^2 |w| + |X|_2 |y|) / N for every X, y, w",
            profiles=Profiles(quick=dict(N=20, d=5, scale=1.0), paper=dict(N=200, d=50)),
            seeds=SeedPlan(Seeds.EVERY),
            alternative=Alternative(
                "the bound without its |X|_2^2 |w| term (a gradient that ignores the weights)",
                overrides={{"scale": 0.0}},
            ),
        )
        def gradbound(ctx: Ctx, *, N: int, d: int, scale: float) -> Evidence:
            """{key}, Lemma 1, Eq. (3): the gradient-norm bound. Kind: upper; provenance: EXACT.

            scale: the weight of the bound's |X|_2^2 |w| term (1 in the paper, 0 in the alternative).
            """
            rng = ctx.rng(0)
            X, y, w = rng.standard_normal((N, d)), rng.standard_normal(N), 3.0 * rng.standard_normal(d)
            grad = X.T @ (X @ w - y) / N
            op = np.linalg.norm(X, 2)
            bound = (scale * op**2 * np.linalg.norm(w) + op * np.linalg.norm(y)) / N
            return Evidence(theory=float(bound), measured=float(np.linalg.norm(grad)))
        ''',
    "{key}/errata.md": """
        # {key}: errata

        What the code does differently from the paper, and every finding, with numbers.
        """,
    "{key}/test_{key}.py": '''
        """{key}'s claims under attncheck's claim battery (verify.testing): each claim's verdict, its
        stability at other seed sets, its alternative world and its paper profile."""

        from verify.testing import Check, parametrize_with_claims


        @parametrize_with_claims("{key}")
        def test_claim(check: Check) -> None:
            check()
        ''',
}


def check_key(key: str) -> str:
    """``key`` if it can name a paper (lower-case letters, digits, underscores; not a keyword)."""
    if not isinstance(key, str) or not KEY_RE.fullmatch(key) or keyword.iskeyword(key):
        raise ValueError(
            "paper key must be lower-case letters, digits and underscores, starting with a letter, "
            f"got {key!r}"
        )
    return key


def new_plugin(key: str, dest: Path) -> list[Path]:
    """Write the skeleton of plugin ``key`` into the new or empty folder ``dest``; the files written."""
    key = check_key(key)
    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ValueError(f"{dest} exists and is not an empty folder; choose a new one")
    written = []
    for name, text in _FILES.items():
        path = dest / name.format(key=key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip().format(key=key), encoding="utf-8")
        written.append(path)
    return written


__all__ = ["check_key", "new_plugin"]
