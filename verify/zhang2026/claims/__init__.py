"""The claims of Zhang, Zhao, Gu, Cao (ICLR 2026), one module per part of the paper; importing this
package registers every ``zhang2026.*`` claim. What several modules share is in :mod:`.common` (no claim
module imports another).

Seeds. Claims whose measurement draws random numbers (V*, P, Monte Carlo samples, SGD batches) declare
how their seeds combine: ``every`` for statements about every draw, ``pooled`` for rates fitted across
seeds; the long tail runs through the exact (C1, g) reduction are deterministic and take no seeds.

Rates. Every "X ~ T^p" statement is judged by the shared rate rule (:mod:`verify.core.judge`) on a
grid of 4 times per decade with 5-point windows, so each local slope spans one decade
(:mod:`verify.zhang2026.claims.common`). A claim with one statement on several curves is a ``rate``
claim showing its least favourable curve; a claim with other conditions too (a constant, a max-entry
tolerance) is an ``upper`` claim over normalised violations whose headline is the paper's quantity (the
least favourable slope, or the constant furthest from its window).

Consistency checks (closed forms against Monte Carlo or full-matrix GD, identities of the model) are
flagged ``consistency=True``: they test the code and are counted apart from the paper's claims.
"""

from verify.zhang2026.claims import (
    closed_forms,
    examples,
    full_tf,
    invariants,
    mnist,
    protocol,
    reviewers,
    stepsize,
    thm31,
    thm31_constant,
    thm31_tstar,
    thm32,
    variants,
)

__all__ = [
    "closed_forms",
    "examples",
    "full_tf",
    "invariants",
    "mnist",
    "protocol",
    "reviewers",
    "stepsize",
    "thm31",
    "thm31_constant",
    "thm31_tstar",
    "thm32",
    "variants",
]
