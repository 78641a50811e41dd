"""Claims of Deora, Ghaderi, Taheri, Thrampoulidis, "On the Optimization and Generalization of
Multi-head Attention" (TMLR 2024; arXiv 2310.12680), one module per part of the paper.

The paper body was not available when the claims were written: the claims test our reconstruction
and derivations (``verify/deora2023/derivations.md``, cited as "derivation Sect. N"). DERIVED claims
are theorems about the reconstructed model (tested as hard properties); RECONSTRUCTED claims are the
paper's most likely statements (tested by shape: windows on slopes, soft checks); nothing here is
presented as the paper's own formula. A few checks assert two things at once; the second one is a
sub-id (``<id>.<part>``).

Importing this package registers every claim.
"""

from verify.deora2023.claims import (
    derivatives,
    generalization,
    generalization_rates,
    heads,
    mixture,
    model_bounds,
    ntk,
    quasiconvex,
    rates,
    realizability,
    self_bounded,
    training,
    training_heads,
)

__all__ = [
    "derivatives",
    "generalization",
    "generalization_rates",
    "heads",
    "mixture",
    "model_bounds",
    "ntk",
    "quasiconvex",
    "rates",
    "realizability",
    "self_bounded",
    "training",
    "training_heads",
]
