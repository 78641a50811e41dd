"""Numerically stable softmax along any axis and its vector-Jacobian product.

Row-wise softmax is ``axis=-1``; column-wise softmax (Zhang et al.'s position attention) is
``axis=-2``. Both stay finite for logits of +-1e4 and beyond.
"""

from __future__ import annotations

import numpy as np

#: a hot path may skip the softmax shift (the max) when every logit is known to lie in
#: [-SHIFT_FREE, SHIFT_FREE]: exp then stays within e^{+-300}, so sums of exp and their reciprocals are
#: finite and normal (the reference models of yang2024 and deora2023 use it)
SHIFT_FREE = 300.0

#: the reductions np.max and np.sum make on an ndarray, called without their Python wrappers (the same
#: ufunc reductions, so the same values; the wrappers cost about as much as the reductions on the small
#: arrays of a GD step)
_MAX, _SUM = np.maximum.reduce, np.add.reduce


def softmax(z: np.ndarray, axis: int = -1, *, overwrite: bool = False) -> np.ndarray:
    """softmax(z) along ``axis``; shape preserved, entries in [0, 1] summing to 1 along ``axis``.

    overwrite: compute in place in ``z`` (a float64 array the caller no longer needs) and return it,
    saving the temporaries in hot paths.
    """
    if overwrite:
        if not (isinstance(z, np.ndarray) and z.dtype == np.float64):
            raise TypeError("softmax(..., overwrite=True) needs a float64 ndarray")
        z -= _MAX(z, axis=axis, keepdims=True)
        np.exp(z, out=z)
        z /= _SUM(z, axis=axis, keepdims=True)
        return z
    z = np.asarray(z, dtype=np.float64)
    shifted = z - _MAX(z, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / _SUM(e, axis=axis, keepdims=True)


def softmax_vjp(p: np.ndarray, g: np.ndarray, axis: int = -1) -> np.ndarray:
    """Given ``p = softmax(z, axis)`` and an upstream gradient ``g = dL/dp`` (same shape), return
    ``dL/dz = p * (g - sum(g * p, axis))`` -- the product with (diag(p) - p p^T) along ``axis``."""
    return p * (g - _SUM(g * p, axis=axis, keepdims=True))
