"""Theory side of attncheck: each paper's bounds, conditions and rates as pure functions.

Magnitudes that can leave float64's range (widths of 1e41, probabilities of 1e-400) are computed
with mpmath (:mod:`bounds.mp`); inputs are validated by :mod:`bounds.checks`.
"""
