"""The registered claims of Wu et al. 2023, one module per part of the paper. Importing this package
registers every claim. Theory values come from :mod:`bounds.wu2023` (called through the module
attribute ``B`` so tests can substitute a wrong bound), measured values from
:mod:`verify.wu2023.experiments`; claims never judge: the runner applies the rule of the kind.
What two or more claim modules share is in :mod:`.common`; no claim module imports another."""

from verify.wu2023.claims import (
    alpha,
    alpha_gram,
    assumptions,
    attention,
    d_below_n,
    fig9,
    fig9_ntk,
    gradients,
    ntk,
    prop1,
    prop1_proof,
    stepsize,
    tightness,
    training,
    width_order,
    widths,
)

__all__ = [
    "alpha",
    "alpha_gram",
    "assumptions",
    "attention",
    "d_below_n",
    "fig9",
    "fig9_ntk",
    "gradients",
    "ntk",
    "prop1",
    "prop1_proof",
    "stepsize",
    "tightness",
    "training",
    "width_order",
    "widths",
]
