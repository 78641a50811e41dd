"""The markdown converter (reports.markdown over reports.mathtext): examples, a round trip of generated
markdown back to its words and punctuation, and every errata and derivations file of the papers."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from reports.build import pdflatex_log_problems
from reports.latex import PREAMBLE
from reports.text import markdown_notes, prose, sentence

ROOT = Path(__file__).resolve().parents[1]
NOTES = sorted(ROOT.glob("verify/*/errata.md")) + sorted(ROOT.glob("verify/*/derivations.md"))


def detex(tex: str) -> str:
    """The LaTeX the converter writes, back to plain text: formatting commands and braces dropped,
    escapes and quotes undone, symbol commands as their names (``\\beta`` -> ``beta``)."""
    tex = re.sub(r"\\allowbreak\{\}|\\(?:begin|end)\{[A-Za-z*]+\}", " ", tex)
    tex = re.sub(r"\\text(?:less|greater|bar|asciitilde|asciicircum|backslash)\{\}", " ", tex)
    tex = re.sub(r"\\(?:le|ge|to|pm|ne|sim|times|dots)(?![A-Za-z])|\\,", " ", tex)
    tex = re.sub(r"\\(?:textbf|emph|texttt|ensuremath|mbox|mathrm|paragraph|item)(?![A-Za-z])", " ", tex)
    tex = re.sub(r"\\([A-Za-z]+)(?=\{[^}])", r"\1 ", tex)  # \sqrt{T} -> sqrt T
    tex = re.sub(r"\\([&%#_$|])|\\?[{}]", r"\1", tex)
    tex = re.sub(r"\\([A-Za-z]+)", r"\1", tex)
    return tex.replace("``", '"').replace("''", '"')


def words(text: str) -> list[str]:
    """The words, numbers, sentence punctuation and quotes of a text, quotes of either style as ``'`` and
    ``"``."""
    text = text.replace("``", '"').replace("''", '"').replace("`", "'").replace("$", " ")
    return re.findall(r"[A-Za-z0-9]+|[,.;:!?'\"]", text)


# ---------------------------------------------------------------- examples


def test_apostrophes_two_in_a_paragraph_survive() -> None:
    tex = markdown_notes("the paper's model and the reviewer's question\n")
    assert "the paper's model and the reviewer's question" in tex
    assert prose("the paper's model and the reviewer's question") == tex.strip()
    assert prose("{'a': 1}") == r"\{a: 1\}"  # a repr's quoted key is still cleaned


def test_quotes_are_typographic_and_nest() -> None:
    tex = markdown_notes("\"the closer m is to N, the 'better'\" it's said\n")
    assert tex.strip() == "``the closer m is to N, the `better''' it's said"


def test_double_backquoted_code_span() -> None:
    tex = markdown_notes("with the orthogonal P (``note.KD4``, and ``a`b``)\n")
    assert r"(\texttt{note.\allowbreak{}KD4}, and \texttt{a`b})" in tex
    assert "`\\texttt" not in tex


def test_underscore_words_are_math_or_code_never_half() -> None:
    tex = prose("H_offsets, tau0_power and model._head_hessians; d_m, sigma_min(F), W_0 and theta_*.")
    assert tex == (
        r"\texttt{H\_offsets}, \texttt{tau0\_power} and \texttt{model.\allowbreak{}\_head\_hessians}; "
        r"\ensuremath{d_{m}}, \ensuremath{\sigma_{\min}}(F), \ensuremath{W_{0}} and \ensuremath{\theta_{*}}."
    )
    assert r"\ensuremath{H}\_" not in markdown_notes("the H_offsets grid\n")


def test_plain_text_maths_is_typeset() -> None:
    assert prose("max_i ||x_i|| and min_{k <= K}") == (
        r"\ensuremath{\max_{i}} \ensuremath{\|}\ensuremath{x_{i}}\ensuremath{\|} and "
        r"\ensuremath{\min_{k\,\le \,K}}"
    )
    assert prose("sum_n a and sqrt(T)") == r"\ensuremath{\sum_{n}} a and \ensuremath{\sqrt{\mbox{T}}}"
    assert prose("(1 - O(sqrt(N/d_m)))^2") == (
        r"(1 - O(\ensuremath{\sqrt{\mbox{N/\ensuremath{d_{m}}}}}))\ensuremath{^{2}}"
    )
    assert prose("min_width") == r"\texttt{min\_width}"  # an index longer than two letters: a name
    assert prose("y-hat_k, Zbar^T, lambda-bar_V; that") == (
        r"\ensuremath{\hat{y}_{k}}, \ensuremath{{\bar{Z}}^{T}}, \ensuremath{\bar{\lambda}_{V}}; that"
    )
    assert prose("A_{:,k}, (Z)_{:,k}, N(1_m, I) and v*_m; f(x)") == (
        r"\ensuremath{A_{:,k}}, (Z)\ensuremath{_{:,k}}, N(\ensuremath{1_{m}}, I) and "
        r"\ensuremath{v^{*}_{m}}; f(x)"
    )
    assert prose("V*^T, v*_m^2") == r"\ensuremath{{V^{*}}^{T}}, \ensuremath{{v^{*}_{m}}^{2}}"
    assert prose("at most 1e-14. Slope -0.5. Version 1.2.3.") == (
        r"at most \ensuremath{10^{-14}}. Slope \ensuremath{-0.5}. Version 1.2.3."
    )  # a number ending a sentence is one
    assert prose("~1e-15 and X~") == r"\ensuremath{\sim}\ensuremath{10^{-15}} and X\textasciitilde{}"


def test_lone_star_dollar_maths_and_emphasis() -> None:
    tex = markdown_notes("eps*lambda and train.* with $x_i^2$, _em_ and **bold**; costs $5 and $6\n")
    assert tex.strip() == (
        r"\ensuremath{\varepsilon}*\ensuremath{\lambda} and train.* with $x_i^2$, \emph{em} and "
        r"\textbf{bold}; costs \ensuremath{\$}5 and \ensuremath{\$}6"
    )


def test_blocks() -> None:
    tex = markdown_notes(
        "# Head\n\npara\n\n- a\n  - b\n- c\n\n1. one\n\n| x | y |\n|---|---|\n| 1 | `z` |\n\n    L <= 1\n",
        env="compactlist",
    )
    assert tex.startswith("\\paragraph*{Head}\npara\n\n\\begin{compactlist}\n\\item a\\begin{compactlist}\n")
    assert "\\begin{enumerate}\n\\item one\n\\end{enumerate}" in tex
    assert r"\textbf{x} & \textbf{y} \\ \midrule" in tex and r"1 & \texttt{z} \\" in tex
    assert "\\begin{quote}\nL \\ensuremath{\\le} 1\n\\end{quote}" in tex


def test_a_norm_in_a_table_is_no_cell_boundary() -> None:
    head = "| a | b | c |\n|---|---|---|\n"
    tex = markdown_notes(head + "| 1 | only through ||V*||_F (Lemma C.2) | open |\n")
    assert r"1 & only through \ensuremath{\|}V*\ensuremath{\|_{F}} (Lemma C.2) & open \\" in tex
    with pytest.raises(ValueError, match="more cells than its head"):
        markdown_notes(head + "| 1 | 2 | 3 | 4 |\n")  # CommonMark would drop the 4


def test_bad_input() -> None:
    with pytest.raises(TypeError, match="md must be a str"):
        markdown_notes(b"x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="env must name"):
        markdown_notes("x", env="item}ize")


def test_sentence_capitalises_words_not_symbols() -> None:
    assert sentence("the growth in N") == "The growth in N"
    assert sentence("'larger H yields'") == "`Larger H yields'"
    assert sentence("d_m grows") == r"\ensuremath{d_{m}} grows"
    assert sentence("beta_2 is") == r"\ensuremath{\beta_{2}} is"
    assert sentence("tau0_power is") == r"\texttt{tau0\_power} is"


def test_real_errata_examples() -> None:
    line = (
        "Lemma C.3's constant (the student's own (1 - a)) is not the teacher's; ``note.KD4`` keeps "
        "max_h ||U_h|| <= 1 and sqrt(H)"
    )
    tex = markdown_notes(line + "\n")
    plain = line.replace("``", "").replace("||", "")
    assert words(detex(tex)) == words(plain)
    assert tex.count("'s") == 3


# ---------------------------------------------------------------- round trip

_WORDS = ["the", "paper", "model", "rate", "holds", "width", "Theorem", "N", "T", "seeds", "H", "it"]
#: (markdown, its plain text) of each kind of fragment
_FIXED = [
    ("paper's", "paper's"),
    ("papers'", "papers'"),
    ("don't", "don't"),
    ("d_m's", "d m's"),
    ("d_m", "d m"),
    ("sigma_min", "sigma min"),
    ("max_i", "max i"),
    ("min_{k}", "min k"),
    ("H_offsets", "H offsets"),
    ("tau0_power", "tau0 power"),
    ("W_0", "W 0"),
    ("beta_2^2", "beta 2 2"),
    ("sqrt(T)", "sqrt T"),
    ("sqrt(N/d_m)", "sqrt N d m"),
    ("0.25", "0.25"),
    ("x^2", "x 2"),
    ("a <= b", "a b"),
    ("50% & #1", "50 1"),
    ("$x_{i}^{2}$", "x i 2"),
    ("$\\alpha + \\sqrt{T}$", "alpha sqrt T"),
    ("``a`b``", "a'b"),
    ("`p_norm='inv_D'`", "p norm 'inv D'"),
]
_PUNCT = st.sampled_from(["", "", ",", ".", ";", ":"])


@st.composite
def _fragment(draw: st.DrawFn) -> tuple[str, str]:
    kind = draw(st.sampled_from(["word", "fixed", "quote", "nested", "code", "strong", "em"]))
    phrase = " ".join(draw(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=3)))
    if kind == "word":
        md = plain = phrase
    elif kind == "fixed":
        md, plain = draw(st.sampled_from(_FIXED))
    elif kind == "quote":
        md = plain = f'"{phrase}"'
    elif kind == "nested":
        inner = draw(st.sampled_from(_WORDS))
        md = plain = f"\"{phrase} '{inner}' {phrase}\""
    elif kind == "code":
        name = draw(st.from_regex(r"[a-z][a-z0-9_.]{0,8}[a-z0-9]", fullmatch=True))
        md, plain = f"`{name}`", name
    elif kind == "strong":
        md, plain = f"**{phrase}**", phrase
    else:
        md, plain = f"_{phrase}_", phrase
    punct = draw(_PUNCT)
    return md + punct, plain + punct


@st.composite
def _document(draw: st.DrawFn) -> tuple[str, str]:
    mds, plains = [], []
    for _ in range(draw(st.integers(1, 3))):
        first = " ".join(draw(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=2)))
        frags = draw(st.lists(_fragment(), min_size=1, max_size=8))
        seps = draw(st.lists(st.sampled_from([" ", " ", "\n"]), min_size=len(frags), max_size=len(frags)))
        md = first + "".join(sep + f for sep, (f, _) in zip(seps, frags, strict=True))
        mds.append(draw(st.sampled_from(["", "- "])) + md.replace("\n", "\n  "))
        plains.append(" ".join([first, *(p for _, p in frags)]))
    return "\n\n".join(mds) + "\n", " ".join(plains)


@settings(max_examples=300, deadline=None)
@given(_document())
def test_round_trip_keeps_words_and_punctuation(doc: tuple[str, str]) -> None:
    md, plain = doc
    tex = markdown_notes(md)
    assert words(detex(tex)) == words(plain), (md, tex)
    outside_code = re.sub(r"\\texttt\{(?:\\.|[^{}\\]|\{\})*\}", "", tex)
    assert r"\_" not in outside_code, tex  # an underscore is math or code, never a bare \_


# ---------------------------------------------------------------- the papers' own files


def plain(md: str) -> str:
    """The text of a markdown document as markdown-it (plain CommonMark, tables) parses it: its text,
    code spans and code blocks, markup dropped."""
    parts: list[str] = []
    for block in MarkdownIt("commonmark").enable("table").parse(md):
        parts.append(block.content if block.type in ("code_block", "fence") else "")
        parts += [t.content if t.type != "softbreak" else " " for t in block.children or []]
        parts.append("\n")
    return "".join(parts)


def _apostrophes(text: str) -> int:
    """Possessive and contraction apostrophes (``paper's``, ``don't``)."""
    return len(re.findall(r"(?<=[A-Za-z])'(?=[A-Za-z])", text))


@pytest.mark.parametrize("path", NOTES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_apostrophe_is_lost(path: Path) -> None:
    md = path.read_text()
    tex = markdown_notes(md, env="compactlist")
    assert _apostrophes(plain(md)) > 0
    assert _apostrophes(detex(tex)) == _apostrophes(plain(md))
    assert "`\\texttt" not in tex and "\\texttt{`" not in tex


def _compile(folder: Path, body: str) -> None:
    """``body`` in the report's preamble compiles with pdflatex, no overfull box over 1pt; skipped
    without pdflatex."""
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        pytest.skip("pdflatex is not installed")
    (folder / "doc.tex").write_text(PREAMBLE + "\\begin{document}\n" + body + "\\end{document}\n")
    run = subprocess.run(
        [pdflatex, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (folder / "doc.log").read_text(errors="replace")
    assert run.returncode == 0, log[-3000:]
    assert not pdflatex_log_problems(log), pdflatex_log_problems(log)


def test_the_errata_compile(tmp_path: Path) -> None:
    """All four errata in one document compile with pdflatex, no overfull box over 1pt."""
    body = "".join(
        rf"\section*{{{p.parent.name}}}{{\notesize\raggedright" + "\n"
        f"{markdown_notes(p.read_text(), env='compactlist')}\\par}}\n"
        for p in NOTES
        if p.name == "errata.md"
    )
    _compile(tmp_path, body)


#: Characters and pieces of the ASCII mathematics, LaTeX's special characters among them.
_ALPHABET = [
    *"abxyzHNT019 _^*|'\"`~$%#&{}()[]<>=+-/.,:\\",
    *["sqrt(", "max_", "beta", "||", "e-5", "-hat", "bar", "V*", "*_", "*^", ")_", "_{", "1_m"],
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_ALPHABET), max_size=40).map("".join))
def test_prose_of_any_ascii_is_well_formed(text: str) -> None:
    """Whatever the text, braces balance and no special character reaches LaTeX bare."""
    tex = prose(text)
    bare = re.sub(r"\\(?:[A-Za-z]+|[^A-Za-z])", "", tex)
    depth = 0
    for c in bare:
        depth += {"{": 1, "}": -1}.get(c, 0)
        assert depth >= 0, tex
    assert depth == 0, tex
    assert not set(bare) & set("%#&~$"), tex


def test_prose_of_random_ascii_compiles(tmp_path: Path) -> None:
    """prose() of 300 random strings of the same alphabet compiles (seeded)."""
    rng = random.Random(36)
    texts = ["".join(rng.choices(_ALPHABET, k=rng.randint(1, 40))) for _ in range(300)]
    _compile(tmp_path, "\\par\n".join(prose(t) for t in texts) + "\n")


#: The same, with the markdown's block and inline syntax (no ``$``: what is inside dollars is the
#: author's LaTeX).
_MD_ALPHABET = [
    *(c for c in _ALPHABET if c != "$"),
    *["\n", "\n\n", "\n- ", "\n  - ", "\n# ", "**", "\n| a | b |\n|---|---|\n| ", "\n    ", "\n```\n"],
    *["\n1. ", "\n> ", "[x](http://a_b%c#d)", "![alt_t](u)", "<b>", "\\\n"],
]


def test_markdown_edge_cases_compile(tmp_path: Path) -> None:
    """Each once broke pdflatex: a bracket after ``\\item`` or a table's ``\\\\``, a heading inside a
    list, a link and a line break in a heading, a line break ending no line."""
    cases = [
        "- [x] a\n",
        "| a | b |\n|---|---|\n| [1] | 2 |\n| x | y |\n| [3] | 4 |\n",
        "    a\n    [b]\n",
        "- # head\n",
        "# a [x](http://a_b%c#d) \\\nb\n",
        "- \\\n  x\n",
    ]
    _compile(tmp_path, "\\par\n".join(markdown_notes(md, env="compactlist") for md in cases))


def test_markdown_of_random_text_compiles(tmp_path: Path) -> None:
    """markdown_notes() of 200 random texts of markdown syntax compiles (seeded); a bracket after
    ``\\item`` or ``\\\\``, a heading inside a list or a link inside a heading once broke it."""
    rng = random.Random(36)
    texts = ["".join(rng.choices(_MD_ALPHABET, k=rng.randint(1, 60))) for _ in range(200)]
    docs = []
    for md in texts:
        try:
            docs.append(markdown_notes(md, env="compactlist"))
        except ValueError as e:  # a table row with more cells than its head
            assert "more cells" in str(e), e
    _compile(tmp_path, "{\\notesize\\raggedright\n" + "\\par\n".join(docs) + "\\par}\n")
