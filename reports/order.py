"""The paper's order of claims, derived from their references (by section, then theorem).

A reference names the paper's result first (``Thm 3.1(c)``, ``Lemma C.2``, ``Prop. 1``, ``Fig. 2a``,
``Examples 2.1-2.4``, ``Sect. 4.5``) or a section of our derivations for the paper
(``derivation Sect. 5.3``, in ``verify/<paper>/derivations.md``). The key is (group, numbers, sub-part,
kind, claim id) of the first numbered mention: group 0 when it is a result or section of the paper, 1
when it is a section of our derivations, 2 when the reference names
none (reviewer questions, reference-model checks); numbers are its dotted numbers (an appendix letter
counts after every numbered section); the claim id is the stable fallback.
"""

from __future__ import annotations

import re

#: The paper's numbered results, in the order a section usually states them (ties of one number).
_KINDS = {
    "sec": 0,
    "assumption": 1,
    "definition": 2,
    "example": 3,
    "lemma": 4,
    "prop": 5,
    "thm": 6,
    "cor": 7,
    "eq": 8,
    "fig": 9,
}
_ALIASES = {
    "sec": "sec",
    "sect": "sec",
    "section": "sec",
    "assumption": "assumption",
    "assumptions": "assumption",
    "definition": "definition",
    "def": "definition",
    "example": "example",
    "examples": "example",
    "ex": "example",
    "lemma": "lemma",
    "prop": "prop",
    "proposition": "prop",
    "thm": "thm",
    "theorem": "thm",
    "cor": "cor",
    "corollary": "cor",
    "eq": "eq",
    "eqs": "eq",
    "equation": "eq",
    "fig": "fig",
    "figs": "fig",
    "figure": "fig",
}
_NUM = r"(?P<num>[A-Z]?\d+(?:\.\d+)*|[A-Z](?:\.\d+)+)(?P<part>\(?[a-z]\)?)?"
_MENTION = re.compile(
    r"(?P<ours>derivation\s+)?\b(?P<kind>"
    + "|".join(sorted(_ALIASES, key=len, reverse=True))
    + r")\.?\s*\(?"
    + _NUM,
    re.IGNORECASE,
)


def _numbers(num: str) -> tuple[int, ...]:
    out = []
    for part in num.split("."):
        if part[:1].isalpha():
            out.append(100 + ord(part[0].upper()) - ord("A"))
            part = part[1:]
        if part:
            out.append(int(part))
    return tuple(out)


def reference_key(reference: str, claim_id: str = "") -> tuple:
    """Sort key of a claim in its paper's order (module docstring)."""
    m = _MENTION.search(reference)
    if m is None:
        return (2, (), "", 0, claim_id)
    kind = _ALIASES[m.group("kind").lower()]
    part = (m.group("part") or "").strip("()")
    group = 1 if m.group("ours") else 0
    return (group, _numbers(m.group("num")), part, _KINDS[kind], claim_id)


__all__ = ["reference_key"]
