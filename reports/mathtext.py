"""Text for LaTeX: escaping, and the plain-ASCII mathematics of notes, statements and errata set as math.

Claim notes, plain statements and the text runs of the errata are written in ASCII (``beta_2^2``,
``T^-1/2``, ``||A - S*||_F``, ``1.00e+41``, ``<=``, ``max_i``, ``sqrt(N/d_m)``). :func:`prose` escapes such a
text for LaTeX and sets those pieces as inline math (``\\ensuremath``), so no caret, underscore or ``e+41``
reaches the page literally. One rule decides an underscore: a word that is a symbol with a short index
(``d_m``, ``sigma_min``, ``W_0``, ``theta_*``) or an indexed operator (``max_i``, ``sum_{k < K}``) is math;
any other word holding one (``H_offsets``, ``tau0_power``, ``model._head_hessians``) is a name from the
code, set whole in typewriter (:func:`code`). It also cleans what should never have been printed: NumPy
reprs (``np.float64(0.3)``), comma-less arrays (``[0.1 0.2]``), quoted dict keys (never an apostrophe)
and a doubled verdict prefix (``inconclusive: inconclusive:``). The output is always valid LaTeX: every
piece of math is built from a restricted alphabet.
"""

from __future__ import annotations

import re

import mpmath

from reports.texnum import tex_num
from verify.core import Verdict

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
_SUP = (
    rf"\{{[{_SAFE}()]{{1,20}}\}}|\([{_SAFE}]{{1,20}}\)"
    r"|-?1/\d+|-?\d+(?:\.\d+)?|-?[A-Za-z][A-Za-z0-9]{0,3}|\*"
)
_SUB = r"\{[A-Za-z0-9 ,:+\-]{1,12}\}|[A-Za-z0-9]{1,6}|\*|[+-](?![\w(])"
_BASE = (
    rf"(?:{_GREEK_RE})(?![A-Za-z0-9])|[A-Za-z]\*?(?=[_^])|[A-Za-z][A-Za-z0-9]*(?=\^)|\d+(?:\.\d+)?(?=\^)"
    r"|\d(?=_[A-Za-z])"
)
#: Operators whose subscript is an index (``max_i``, ``min_{k < K}``, ``argmin_lambda``).
_OPS = {
    "argmax": r"\arg\max",
    "argmin": r"\arg\min",
    "max": r"\max",
    "min": r"\min",
    "sup": r"\sup",
    "inf": r"\inf",
    "sum": r"\sum",
    "prod": r"\prod",
}
_OP_RE = "|".join(_OPS)
_OPSUB = rf"\{{[A-Za-z0-9 ,<=+\-]{{1,12}}\}}|(?:{_GREEK_RE})(?![A-Za-z0-9])|[A-Za-z0-9]{{1,2}}(?![A-Za-z0-9])"
#: A whole word that is mathematics: a symbol with a short sub- or superscript, or an indexed operator.
_MATH_WORD = (
    rf"(?:(?:{_BASE})(?:_(?:{_SUB}))?(?:\^(?:{_SUP}))?|(?:{_OP_RE})_(?:{_OPSUB}))(?![A-Za-z0-9]|[_.]\w)"
)
_RAD_CHARS = r"[A-Za-z0-9 _^.+\-*/,|]"
_MATH_RE = re.compile(
    rf"(?P<sqrt>(?<![\w\\])sqrt\((?P<rad>{_RAD_CHARS}*(?:\({_RAD_CHARS}*\){_RAD_CHARS}*)*)\))"
    rf"|(?<![\w\\])(?P<abase>(?:{_GREEK_RE})|[A-Za-z])(?:-(?P<acc>hat|bar|tilde)|(?P<bar>bar))(?![A-Za-z0-9])"
    rf"(?:_(?P<asub>{_SUB}))?(?:\^(?P<asup>{_SUP}))?(?![A-Za-z0-9])"
    rf"|(?P<ident>(?<![\w\\.])(?!{_MATH_WORD})[A-Za-z][\w.]*_[\w.]*[A-Za-z0-9])"
    rf"|(?<![\w\\])(?P<op>{_OP_RE})_(?P<opsub>{_OPSUB})"
    r"|(?P<sci>(?<![\w.])-?\d+(?:\.\d+)?[eE][+-]?\d+(?!\w|\.\w))"
    r"|(?P<dec>(?:(?<![\w.)\]])-)?(?<![\w.])\d+\.\d+(?!\w|\.\w)|(?<![\w.)\]])-\d+(?!\w|\.\w))"
    rf"|(?P<norm>\|\||\|(?=[_^]))(?:_(?P<nsub>{_SUB}))?(?:\^(?P<nsup>{_SUP}))?"
    r"|(?P<rel><=|>=|->|\+-|!=|(?<![^\s(\[])~)"
    rf"|(?P<pbase>\))(?:_(?P<psub>{_SUB}))?(?:\^(?P<psup>{_SUP}))?(?<!\))"
    rf"|(?<![\w\\])(?P<base>{_BASE})"
    rf"(?:_(?P<sub>{_SUB}))?(?:\^(?P<sup>{_SUP}))?(?![A-Za-z0-9])"
    rf"|\^(?P<gsup>\([{_SAFE}]{{1,20}}\)[A-Za-z0-9]{{0,3}}|-?1/\d+|-?[A-Za-z0-9.]{{1,8}}|\*)"
)
_RELS = {"<=": r"\le", ">=": r"\ge", "->": r"\to", "+-": r"\pm", "!=": r"\ne", "~": r"\sim"}
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
        elif tok in _OPS:
            out.append(_OPS[tok] + " ")
        elif tok.isalpha() and len(tok) > 1 and tok.islower():
            out.append(rf"\mathrm{{{tok}}}")
        else:
            out.append(tok.replace(" ", r"\,").replace("<=", r"\le ").replace(">=", r"\ge "))
    return "".join(out).strip()


def code(text: str) -> str:
    """A name from the code (a claim id, a parameter, a path) in typewriter, breakable after its dots."""
    return r"\texttt{" + escape(text).replace(".", r".\allowbreak{}") + "}"


def _math(m: re.Match[str]) -> str:
    if m.group("sqrt"):
        return r"\ensuremath{\sqrt{\mbox{" + prose(m.group("rad")) + "}}}"
    if m.group("abase"):
        base = m.group("abase")
        tex = rf"{_ACCENTS[m.group('acc') or 'bar']}{{{GREEK.get(base, base)}}}"
        if m.group("asub"):
            tex += "_{" + _script(m.group("asub")) + "}"
        if m.group("asup"):
            tex = "{" + tex + "}^{" + _script(m.group("asup")) + "}"
        return rf"\ensuremath{{{tex}}}"
    if m.group("ident"):
        return code(m.group("ident"))
    if m.group("op"):
        return rf"\ensuremath{{{_OPS[m.group('op')]}_{{{_script(m.group('opsub'))}}}}}"
    if m.group("sci"):
        s = m.group("sci")
        mant = s.lower().split("e")[0].lstrip("-")
        digits = len(mant.replace(".", "").lstrip("0")) or 1
        return rf"\ensuremath{{{tex_num(mpmath.mpf(s), digits=digits)}}}"
    if m.group("dec"):
        return rf"\ensuremath{{{m.group('dec')}}}"
    if m.group("norm"):
        tex = r"\|" if m.group("norm") == "||" else "|"
        if m.group("nsub"):
            tex += "_{" + _script(m.group("nsub")) + "}"
        if m.group("nsup"):
            tex += "^{" + _script(m.group("nsup")) + "}"
        return rf"\ensuremath{{{tex}}}"
    if m.group("gsup"):
        return r"\ensuremath{^{" + _script(m.group("gsup")) + "}}"
    if m.group("pbase"):
        sub, sup = m.group("psub"), m.group("psup")
        return (
            r")\ensuremath{"
            + (f"_{{{_script(sub)}}}" if sub else "")
            + (f"^{{{_script(sup)}}}" if sup else "")
            + "}"
        )
    if m.group("rel"):
        return rf"\ensuremath{{{_RELS[m.group('rel')]}}}"
    base, sub, sup = m.group("base"), m.group("sub"), m.group("sup")
    tex = GREEK.get(base, base).replace("*", "^{*}")
    if base not in GREEK and len(base) > 1 and base.isalpha():
        tex = rf"\mathrm{{{base}}}"
    if sub in _ACCENTS:
        tex = rf"{_ACCENTS[sub]}{{{tex}}}"
    elif sub == "star":
        tex += "^*"
    elif sub:
        tex += "_{" + _script(sub) + "}"
    if sup:
        tex = (
            ("{" + tex + "}" if sub in _ACCENTS or sub == "star" or "*" in base else tex)
            + "^{"
            + _script(sup)
            + "}"
        )
    return rf"\ensuremath{{{tex}}}"


_NP_SCALAR = re.compile(r"\bnp\.(?:float|int|uint|bool_?)\d*\(([^()]*)\)")
_ARRAY = re.compile(r"\[(\s*-?[\d.]+(?:[eE][+-]?\d+)?(?:\s+-?[\d.]+(?:[eE][+-]?\d+)?)+\s*)\]")
#: A quoted key of a repr (``{'a': 1}``); never an apostrophe inside or after a word (``paper's``).
_QUOTED = re.compile(r"(?<![\w'])'([A-Za-z_][\w./-]*)'(?![\w'])")
#: An opening quote: after a space or a bracket, before a non-space.
_OPENING = re.compile(r"""(?:(?<=^)|(?<=[\s(\[{]))(['"])(?=\S)""")
_DOUBLED = re.compile(rf"\b({'|'.join(Verdict)}): \1:")


def clean(text: str) -> str:
    """Remove repr artefacts: ``np.float64(x)`` -> ``x``, ``[1 2 3]`` -> ``[1, 2, 3]``, ``'key'`` ->
    ``key``, ``inconclusive: inconclusive:`` -> ``inconclusive:``."""
    text = _NP_SCALAR.sub(r"\1", str(text))
    text = _ARRAY.sub(lambda m: "[" + ", ".join(m.group(1).split()) + "]", text)
    text = _QUOTED.sub(r"\1", text)
    while _DOUBLED.search(text):
        text = _DOUBLED.sub(r"\1:", text)
    return text


def _quotes(text: str) -> str:
    """ASCII quotes as typographic ones: opening ones by their place, any other ``"`` closing; a ``'``
    that opens nothing stays an apostrophe (a closing single quote)."""
    text = _OPENING.sub(lambda m: "\u2018" if m.group(1) == "'" else "\u201c", text)
    return text.replace('"', "\u201d")


def prose(text: str) -> str:
    """A plain ASCII text (a note, a statement, an errata line) as LaTeX, its mathematics set as math,
    its quotes typographic."""
    text = _quotes(clean(text))
    out, pos = [], 0
    for m in _MATH_RE.finditer(text):
        out.append(escape(text[pos : m.start()]))
        out.append(_math(m))
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


_FIRST_WORD = re.compile(r"^([\"'(\u2018\u201c]*)([a-z]{2,})(?![\w.^])")


def sentence(text: str) -> str:
    """:func:`prose` for a text that starts a sentence: a lower-case first word is capitalised, unless it
    is a symbol (``d_m``, ``beta``) or a name from the code (``tau0_power``, ``wu2023.thm1``)."""
    m = _FIRST_WORD.match(str(text))
    if m and m.group(2) not in GREEK:
        text = m.group(1) + m.group(2).capitalize() + str(text)[m.end() :]
    return prose(text)


__all__ = ["GREEK", "clean", "code", "escape", "prose", "sentence"]
