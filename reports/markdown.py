"""Markdown as LaTeX: CommonMark parsed by markdown-it-py, rendered from its token stream here.

The dialect of the errata and derivations: CommonMark with pipe tables and typographic quotes ("..." and
'...' become LaTeX's quotes; an apostrophe stays one), plus inline maths ``$...$`` passed to LaTeX as
written. A lone ``*`` is a character (``theta_*``, ``train.*``, ``eps*lambda``): emphasis is ``_..._``,
bold ``**...**``. In a table row a double bar touching a word is a norm (``||V*||_F``), not an empty cell.
Raw HTML is text. Text runs go through :func:`reports.mathtext.prose` (their ASCII
mathematics set as math, names holding an underscore as code), code spans through
:func:`reports.mathtext.code`; indented code blocks are displays of ASCII mathematics, fenced ones code.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from reports.mathtext import code, escape, prose


def _lone_star(state: StateInline, silent: bool) -> bool:
    """A ``*`` that is not part of a run of stars is a character, not emphasis."""
    if state.src[state.pos] != "*" or state.src[state.pos + 1 : state.pos + 2] == "*":
        return False
    if not silent:
        state.pending += "*"
    state.pos += 1
    return True


def _dollar_math(state: StateInline, silent: bool) -> bool:
    """``$...$`` (no space inside either dollar, no digit right after the closing one) as a ``math``
    token holding the LaTeX between the dollars."""
    src, start = state.src, state.pos
    if src[start] != "$" or start + 1 >= state.posMax or src[start + 1] in " \t\n$":
        return False
    end = src.find("$", start + 1, state.posMax)
    while end != -1 and (src[end - 1] in " \t\n\\" or src[end + 1 : end + 2].isdigit()):
        end = src.find("$", end + 1, state.posMax)
    if end == -1:
        return False
    if not silent:
        state.push("math", "", 0).content = src[start + 1 : end]
    state.pos = end + 1
    return True


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"typographer": True, "html": False}).enable(["table", "smartquotes"])
    md.inline.ruler.before("emphasis", "lone_star", _lone_star)
    md.inline.ruler.before("backticks", "dollar_math", _dollar_math)
    return md


_MD = _parser()

#: In a table row, a double bar touching a word is a norm (``||V*||_F``), not an empty cell.
_TABLE_NORM = re.compile(r"(?<=[^\s\\|])\|\|(?!\|)|(?<=\s)\|\|(?=[^\s|])")


def _norms_in_tables(md: str) -> str:
    """The markdown with the norms inside table rows escaped (``\\|\\|``), so they do not split cells."""
    return "\n".join(
        _TABLE_NORM.sub(r"\\|\\|", line) if line.lstrip().startswith("|") else line for line in md.split("\n")
    )


#: LaTeX of the inline tokens other than text and line breaks.
_INLINE: dict[str, Callable[[Token], str]] = {
    "code_inline": lambda t: code(t.content),
    "math": lambda t: f"${t.content}$",
    "strong_open": lambda t: r"\textbf{",
    "strong_close": lambda t: "}",
    "em_open": lambda t: r"\emph{",
    "em_close": lambda t: "}",
    "link_open": lambda t: rf"\href{{{escape(str(t.attrs['href']))}}}{{",
    "link_close": lambda t: "}",
    "image": lambda t: prose(t.content),
}


def _inline(tokens: Sequence[Token]) -> str:
    """Inline tokens as LaTeX: each run of text and soft line breaks as one :func:`prose` (so that its
    mathematics may span a line break)."""
    out: list[str] = []
    run: list[str] = []
    for t in tokens:
        if t.type in ("text", "softbreak"):
            run.append(t.content if t.type == "text" else " ")
            continue
        if run:
            out.append(prose("".join(run)))
            run.clear()
        if t.type == "hardbreak":
            if "".join(out).strip():  # a line to end
                out.append(r"\newline ")
            continue
        if t.type not in _INLINE:
            raise ValueError(f"markdown: no LaTeX for the inline token {t.type!r}")
        out.append(_INLINE[t.type](t))
    if run:
        out.append(prose("".join(run)))
    return "".join(out)


def _guard(tex: str) -> str:
    """A piece of LaTeX placed after ``\\item`` or ``\\\\``, whose leading bracket would open their
    optional argument."""
    return "{}" + tex if tex.startswith("[") else tex


def _table(tokens: Sequence[Token], lines: Sequence[str]) -> str:
    """A pipe table (its tokens from ``table_open`` to ``table_close``; ``lines``: the source) as a tabular
    of equal ragged-right columns, its head row bold. A row with more cells than the head is an error
    (CommonMark tables drop the excess)."""
    rows: list[list[str]] = []
    for t in tokens:
        if t.type == "tr_open":
            line = lines[t.map[0]] if t.map else ""
            if rows and len(re.split(r"(?<!\\)\|", line.strip().strip("|"))) > len(rows[0]):
                raise ValueError(
                    f"markdown: table row {line!r} has more cells than its head (a bar in a cell is \\|)"
                )
            rows.append([])
        elif t.type == "inline":
            # a narrow column may break a quotient of two values after its slash
            rows[-1].append(
                _guard(re.sub(r"(?<=[)}])/(?=\\ensuremath)", r"/\\allowbreak{}", _inline(t.children)))
            )
    n = max(len(r) for r in rows)
    col = rf">{{\raggedright\arraybackslash}}p{{\dimexpr(\linewidth-{2 * n}\tabcolsep)/{n}\relax}}"
    out = [r"\par\noindent{\setlength{\tabcolsep}{2pt}\begin{tabular}{" + col * n + "}", r"\toprule"]
    for i, row in enumerate(rows):
        cells = row + [""] * (n - len(row))
        if i == 0:
            cells = [rf"\textbf{{{c}}}" for c in cells]
        out.append(" & ".join(cells) + r" \\" + (r" \midrule" if i == 0 else ""))
    out += [r"\bottomrule", r"\end{tabular}}\par"]
    return "\n".join(out) + "\n"


def _display(t: Token) -> str:
    """A code block as a display, one line a line: indented blocks hold ASCII mathematics, fenced ones
    code."""
    typeset = prose if t.type == "code_block" else code
    lines = [_guard(typeset(line.strip())) for line in t.content.splitlines() if line.strip()]
    return "\\begin{quote}\n" + " \\\\\n".join(lines) + "\n\\end{quote}\n"


#: A heading's opening and closing LaTeX: a run-in paragraph heading (no entry in the contents, whose
#: moving argument a link or a line break would break), inside a list or quote a bold line.
_HEADING = {False: (r"\paragraph*{", "}\n"), True: (r"\textbf{", "}\\par\n")}


def _blocks(tokens: Sequence[Token], lines: Sequence[str], env: str) -> str:
    """Block tokens (parsed from ``lines``) as LaTeX; bullets in the list environment ``env``."""
    simple = {
        "bullet_list_open": rf"\begin{{{env}}}" + "\n",
        "bullet_list_close": rf"\end{{{env}}}" + "\n",
        "ordered_list_open": "\\begin{enumerate}\n",
        "ordered_list_close": "\\end{enumerate}\n",
        "list_item_open": r"\item ",
        "list_item_close": "\n",
        "blockquote_open": "\\begin{quote}\n",
        "blockquote_close": "\\end{quote}\n",
        "hr": "\\par\\medskip\n",
    }
    out: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type in simple:
            out.append(simple[t.type])
        elif t.type in ("heading_open", "heading_close"):
            out.append(_HEADING[t.level > 0][t.nesting < 0])
        elif t.type == "paragraph_open":
            pass
        elif t.type == "paragraph_close":
            out.append("" if t.hidden else "\n\n")
        elif t.type == "inline":
            out.append(_guard(_inline(t.children or [])))
        elif t.type in ("code_block", "fence"):
            out.append(_display(t))
        elif t.type == "table_open":
            end = next(j for j in range(i, len(tokens)) if tokens[j].type == "table_close")
            out.append(_table(tokens[i:end], lines))
            i = end
        else:
            raise ValueError(f"markdown: no LaTeX for the block token {t.type!r}")
        i += 1
    return "".join(out)


def markdown_notes(md: str, env: str = "itemize") -> str:
    """A markdown text (CommonMark, pipe tables, ``$...$`` maths) as LaTeX; bullets go in the list
    environment ``env``."""
    if not isinstance(md, str):
        raise TypeError(f"md must be a str, got {type(md).__name__}")
    if not re.fullmatch(r"[A-Za-z*]+", env):
        raise ValueError(f"env must name a LaTeX environment (letters), got {env!r}")
    md = _norms_in_tables(md)
    return _blocks(_MD.parse(md), md.split("\n"), env)


__all__ = ["markdown_notes"]
