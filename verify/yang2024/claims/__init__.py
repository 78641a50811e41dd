"""Checkable claims of Yang, Huang, Liang, Chi (NeurIPS 2024, arXiv 2408.10147), one module per part
of the paper; importing this package registers every ``yang2024.*`` claim. What two or more modules
share lives in ``common``; no claim module imports another.

Theory comes from ``bounds.yang2024`` (called through the module so a wrong bound is caught by the
tests), measurements from :mod:`verify.yang2024.experiments` on the reference model
:mod:`verify.yang2024.model`. Nothing is judged here: the runner applies the rule of each kind.
"""

from verify.yang2024.claims import (
    fig2,
    fig3,
    fig4,
    lemma5,
    multihead,
    prop1,
    ridge,
    speed,
    subset,
    thm1,
    thm1_pl,
    thm2,
    thm2_iters,
)

__all__ = [
    "fig2",
    "fig3",
    "fig4",
    "lemma5",
    "multihead",
    "prop1",
    "ridge",
    "speed",
    "subset",
    "thm1",
    "thm1_pl",
    "thm2",
    "thm2_iters",
]
