"""Text for LaTeX: escaping, and the plain-ASCII mathematics of notes, statements and errata set as math.

Claim notes and plain statements are written in ASCII (``beta_2^2``, ``T^-1/2``, ``||A - S*||_F``,
``1.00e+41``, ``<=``). :func:`prose` escapes such a text for LaTeX and sets those pieces as inline math
(``\\ensuremath``), so no caret, underscore or ``e+41`` reaches the page literally. It also cleans what
should never have been printed: NumPy reprs (``np.float64(0.3)``), comma-less arrays (``[0.1 0.2]``),
quoted dict keys and a doubled verdict prefix (``inconclusive: inconclusive:``). The output is always
valid LaTeX: every piece of math is built from a restricted alphabet.
"""

from __future__ import annotations

import re
from typing import Any

import mpmath

from reports.texnum import tex_num

_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\ensuremath{\$}",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
#: Non-ASCII characters the documents may meet, as LaTeX (anything else becomes "?").
_UNICODE = {
    "≤": r"\ensuremath{\le}",
    "≥": r"\ensuremath{\ge}",
    "×": r"\ensuremath{\times}",
    "−": "-",
    "–": "--",
    "—": "---",
    "…": r"\dots{}",
    "·": r"\ensuremath{\cdot}",
    "→": r"\ensuremath{\to}",
    "±": r"\ensuremath{\pm}",
    "√": r"\ensuremath{\surd}",
    "∞": r"\ensuremath{\infty}",
    "≈": r"\ensuremath{\approx}",
    "∼": r"\ensuremath{\sim}",
    "‖": r"\ensuremath{\|}",
    "‘": "`",
    "’": "'",
    "“": "``",
    "”": "''",
    "é": r"\'e",
    "è": r"\`e",
    "ö": r"\"o",
    "ü": r"\"u",
    "α": r"\ensuremath{\alpha}",
    "β": r"\ensuremath{\beta}",
    "γ": r"\ensuremath{\gamma}",
    "δ": r"\ensuremath{\delta}",
    "ε": r"\ensuremath{\varepsilon}",
    "η": r"\ensuremath{\eta}",
    "θ": r"\ensuremath{\theta}",
    "κ": r"\ensuremath{\kappa}",
    "λ": r"\ensuremath{\lambda}",
    "μ": r"\ensuremath{\mu}",
    "ρ": r"\ensuremath{\rho}",
    "σ": r"\ensuremath{\sigma}",
    "τ": r"\ensuremath{\tau}",
    "ζ": r"\ensuremath{\zeta}",
    "Θ": r"\ensuremath{\Theta}",
    "Σ": r"\ensuremath{\Sigma}",
    "Φ": r"\ensuremath{\Phi}",
}
_ESC_RE = re.compile("|".join(re.escape(k) for k in _ESCAPES) + r"|[^\x00-\x7f]")


def _escape_char(m: re.Match[str]) -> str:
    c = m.group()
    return _ESCAPES.get(c) or _UNICODE.get(c, "?")


def escape(text: str) -> str:
    """Escape LaTeX's special characters; known non-ASCII characters become LaTeX, others ``?``."""
    return _ESC_RE.sub(_escape_char, str(text))


GREEK = {
    "alpha": r"\alpha",
    "beta": r"\beta",
    "gamma": r"\gamma",
    "delta": r"\delta",
    "epsilon": r"\varepsilon",
    "eps": r"\varepsilon",
    "zeta": r"\zeta",
    "eta": r"\eta",
    "theta": r"\theta",
    "kappa": r"\kappa",
    "lambda": r"\lambda",
    "lam": r"\lambda",
    "mu": r"\mu",
    "nu": r"\nu",
    "xi": r"\xi",
    "rho": r"\rho",
    "sigma": r"\sigma",
    "tau": r"\tau",
    "phi": r"\phi",
    "psi": r"\psi",
    "omega": r"\omega",
    "Gamma": r"\Gamma",
    "Delta": r"\Delta",
    "Theta": r"\Theta",
    "Lambda": r"\Lambda",
    "Sigma": r"\Sigma",
    "Phi": r"\Phi",
    "Psi": r"\Psi",
    "Omega": r"\Omega",
}
_GREEK_RE = "|".join(sorted(GREEK, key=len, reverse=True))
_SAFE = r"A-Za-z0-9 ,.+\-*/"
_SUP = rf"\{{[{_SAFE}()]{{1,20}}\}}|\([{_SAFE}]{{1,20}}\)|-?1/\d+|-?\d+(?:\.\d+)?|-?[A-Za-z]\w{{0,3}}|\*"
_SUB = r"\{[A-Za-z0-9 ,]{1,12}\}|[A-Za-z0-9]{1,6}"
_MATH_RE = re.compile(
    r"(?P<sci>(?<![\w.])-?\d+(?:\.\d+)?[eE][+-]?\d+(?![\w.]))"
    r"|(?P<dec>(?:(?<![\w.)\]])-)?(?<![\w.])\d+\.\d+(?![\w.])|(?<![\w.)\]])-\d+(?![\w.]))"
    rf"|(?P<norm>\|\|(?:_(?P<nsub>{_SUB}))?(?:\^(?P<nsup>{_SUP}))?)"
    r"|(?P<rel><=|>=|->|\+-|!=|(?<= )~(?= ))"
    rf"|(?P<pbase>\))\^(?P<psup>{_SUP})"
    rf"|(?<![\w\\])(?P<base>(?:{_GREEK_RE})(?![A-Za-z0-9])|[A-Za-z](?=[_^])|[A-Za-z][A-Za-z0-9]*(?=\^)"
    r"|\d+(?:\.\d+)?(?=\^))"
    rf"(?:_(?P<sub>{_SUB}))?(?:\^(?P<sup>{_SUP}))?(?![A-Za-z0-9])"
    rf"|\^(?P<gsup>\([{_SAFE}]{{1,20}}\)[A-Za-z0-9]{{0,3}}|-?1/\d+|-?[A-Za-z0-9.]{{1,8}}|\*)"
)
_RELS = {"<=": r"\le", ">=": r"\ge", "->": r"\to", "+-": r"\pm", "!=": r"\ne", "~": r"\sim"}
_NAMED_SUB = {"max": r"\max", "min": r"\min", "inf": r"\inf", "sup": r"\sup"}
_ACCENTS = {"hat": r"\hat", "bar": r"\bar", "tilde": r"\tilde"}


def _script(text: str) -> str:
    """The inside of a sub- or superscript: brackets dropped, names as roman, Greek as symbols."""
    text = text[1:-1] if text[:1] in "({" and text[-1:] in ")}" else text
    out = []
    for tok in re.split(r"([A-Za-z]+)", text):
        if not tok:
            continue
        if tok in GREEK:
            out.append(GREEK[tok] + " ")
        elif tok in _NAMED_SUB:
            out.append(_NAMED_SUB[tok] + " ")
        elif tok.isalpha() and len(tok) > 1 and tok.islower():
            out.append(rf"\mathrm{{{tok}}}")
        else:
            out.append(tok.replace(" ", r"\,"))
    return "".join(out).strip()


def _math(m: re.Match[str]) -> str:
    if m.group("sci"):
        s = m.group("sci")
        mant = s.lower().split("e")[0].lstrip("-")
        digits = len(mant.replace(".", "").lstrip("0")) or 1
        return rf"\ensuremath{{{tex_num(mpmath.mpf(s), digits=digits)}}}"
    if m.group("dec"):
        return rf"\ensuremath{{{m.group('dec')}}}"
    if m.group("norm"):
        tex = r"\|"
        if m.group("nsub"):
            tex += "_{" + _script(m.group("nsub")) + "}"
        if m.group("nsup"):
            tex += "^{" + _script(m.group("nsup")) + "}"
        return rf"\ensuremath{{{tex}}}"
    if m.group("gsup"):
        return r"\ensuremath{^{" + _script(m.group("gsup")) + "}}"
    if m.group("pbase"):
        return r")\ensuremath{^{" + _script(m.group("psup")) + "}}"
    if m.group("rel"):
        return rf"\ensuremath{{{_RELS[m.group('rel')]}}}"
    base, sub, sup = m.group("base"), m.group("sub"), m.group("sup")
    tex = GREEK.get(base, base)
    if base not in GREEK and len(base) > 1 and base.isalpha():
        tex = rf"\mathrm{{{base}}}"
    if sub in _ACCENTS:
        tex = rf"{_ACCENTS[sub]}{{{tex}}}"
    elif sub == "star":
        tex += "^*"
    elif sub:
        tex += "_{" + _script(sub) + "}"
    if sup:
        tex = ("{" + tex + "}" if sub in _ACCENTS or sub == "star" else tex) + "^{" + _script(sup) + "}"
    return rf"\ensuremath{{{tex}}}"


_NP_SCALAR = re.compile(r"\bnp\.(?:float|int|uint|bool_?)\d*\(([^()]*)\)")
_ARRAY = re.compile(r"\[(\s*-?[\d.]+(?:[eE][+-]?\d+)?(?:\s+-?[\d.]+(?:[eE][+-]?\d+)?)+\s*)\]")
_QUOTED = re.compile(r"'([A-Za-z_][\w ./-]*)'")
_DOUBLED = re.compile(r"\b([A-Za-z_]+): \1:")


def clean(text: str) -> str:
    """Remove repr artefacts: ``np.float64(x)`` -> ``x``, ``[1 2 3]`` -> ``[1, 2, 3]``, ``'key'`` ->
    ``key``, ``inconclusive: inconclusive:`` -> ``inconclusive:``."""
    text = _NP_SCALAR.sub(r"\1", str(text))
    text = _ARRAY.sub(lambda m: "[" + ", ".join(m.group(1).split()) + "]", text)
    text = _QUOTED.sub(r"\1", text)
    while _DOUBLED.search(text):
        text = _DOUBLED.sub(r"\1:", text)
    return text


def prose(text: str) -> str:
    """A plain ASCII text (a note, a statement, an errata line) as LaTeX, its mathematics set as math."""
    text = clean(text)
    out, pos = [], 0
    for m in _MATH_RE.finditer(text):
        out.append(escape(text[pos : m.start()]))
        out.append(_math(m))
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


_CODE_RE = re.compile(r"`([^`]+)`")
_BOLD_RE = re.compile(r"\*\*(.+?)\*\*")


def _code_and_prose(text: str) -> str:
    parts = _CODE_RE.split(text)
    return "".join(
        r"\texttt{" + escape(p).replace(".", r".\allowbreak{}") + "}" if i % 2 else prose(p)
        for i, p in enumerate(parts)
    )


def inline_markdown(text: str) -> str:
    """**bold** as bold (it may hold ``code``), ``code`` as typewriter (escaped, breakable at dots), the
    rest as :func:`prose`."""
    bits = _BOLD_RE.split(text)
    return "".join(
        rf"\textbf{{{_code_and_prose(b)}}}" if j % 2 else _code_and_prose(b) for j, b in enumerate(bits)
    )


def _md_blocks(md: str) -> list[tuple[str, int, Any]]:
    """The errata's markdown as blocks ``(kind, level, payload)``: ``h`` headings, ``p`` paragraphs and
    ``item`` bullets (level 0 or 1; their continuation lines joined, so emphasis may span lines) with
    text payloads, ``table`` pipe tables with a list of rows of cells (the ``|---|`` rule dropped)."""
    blocks: list[tuple[str, int, Any]] = []
    for raw in md.splitlines():
        line, indent = raw.strip(), len(raw) - len(raw.lstrip())
        prev = blocks[-1] if blocks else None
        if not line:
            blocks.append(("blank", 0, None))
        elif line.startswith("#"):
            blocks.append(("h", 0, line.lstrip("#").strip()))
        elif line.startswith("|"):
            inner = line[1:-1] if line.endswith("|") and not line.endswith("\\|") else line[1:]
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]
            if all(re.fullmatch(r":?-{3,}:?", c) for c in cells):
                continue
            if prev is not None and prev[0] == "table":
                prev[2].append(cells)
            else:
                blocks.append(("table", 0, [cells]))
        elif line.startswith(("- ", "* ")):
            blocks.append(("item", 1 if indent >= 2 else 0, line[2:]))
        elif prev is not None and prev[0] == "item" and indent >= 2:
            blocks[-1] = (prev[0], prev[1], prev[2] + " " + line)
        elif prev is not None and prev[0] == "p":
            blocks[-1] = ("p", 0, prev[2] + " " + line)
        else:
            blocks.append(("p", 0, line))
    return [b for b in blocks if b[0] != "blank"]


def _md_table(rows: list[list[str]]) -> str:
    """A pipe table as a tabular of equal ragged-right columns, its first row bold."""
    n = max(len(r) for r in rows)
    col = rf">{{\raggedright\arraybackslash}}p{{\dimexpr(\linewidth-{2 * n}\tabcolsep)/{n}\relax}}"
    lines = [r"\par\noindent{\setlength{\tabcolsep}{2pt}\begin{tabular}{" + col * n + "}", r"\toprule"]
    for i, row in enumerate(rows):
        # a narrow column may break a quotient of two values after its slash
        cells = [re.sub(r"(?<=[)}])/(?=\\ensuremath)", r"/\\allowbreak{}", inline_markdown(c)) for c in row]
        cells += [""] * (n - len(row))
        if i == 0:
            cells = [rf"\textbf{{{c}}}" for c in cells]
        lines.append(" & ".join(cells) + r" \\" + (r" \midrule" if i == 0 else ""))
    lines += [r"\bottomrule", r"\end{tabular}}\par"]
    return "\n".join(lines)


def markdown_notes(md: str, env: str = "itemize") -> str:
    """The markdown of the errata files (headings, paragraphs, bullets nested once, pipe tables,
    ``code`` and **bold** spanning lines) as LaTeX; bullets go in the list environment ``env``."""
    out: list[str] = []
    depth = 0  # open lists
    for kind, level, payload in _md_blocks(md):
        want = level + 1 if kind == "item" else 0
        while depth > want:
            out.append(rf"\end{{{env}}}")
            depth -= 1
        while depth < want:
            if depth and out[-1].startswith(r"\begin"):  # a nested bullet with no outer one
                out.append(r"\item[]")
            out.append(rf"\begin{{{env}}}")
            depth += 1
        if kind == "h":
            out.append(rf"\paragraph{{{inline_markdown(payload)}}}")
        elif kind == "item":
            out.append(r"\item " + inline_markdown(payload))
        elif kind == "table":
            out.append(_md_table(payload))
        else:
            out.append(inline_markdown(payload) + "\n")
    out += [rf"\end{{{env}}}"] * depth
    return "\n".join(out) + "\n"


__all__ = ["GREEK", "clean", "escape", "inline_markdown", "markdown_notes", "prose"]
