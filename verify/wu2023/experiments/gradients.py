"""Experiments of :mod:`verify.wu2023.claims.gradients`: the ratio whose worst case tests the softmax's
1/2-Lipschitz bound."""

from __future__ import annotations

import numpy as np

from bounds import wu2023 as B
from verify.numerics.softmax import softmax

#: Smallest |L' - L|_F of :func:`softmax_lip_ratio`: the softmax difference then carries a relative
#: round-off of about 1e-14, far below the claim's margin 1e-12.
SOFTMAX_STEP = 1e-2


def softmax_lip_ratio(pair: np.ndarray, rtol: float) -> float:
    """|softmax(L) - softmax(L')|_F / (1/2 (1 + rtol) |L - L'|_F) for pair = (L, u) (2, k, k): L' = L + u
    (1 + SOFTMAX_STEP / |u|_F), so |L' - L|_F >= SOFTMAX_STEP keeps the difference of the softmaxes
    clear of round-off (the supremum is approached as L' -> L)."""
    L, u = pair
    step = u * (1 + SOFTMAX_STEP / np.linalg.norm(u))
    num = np.linalg.norm(softmax(L) - softmax(L + step))
    return float(num / (B.SOFTMAX_LIP * (1 + rtol) * np.linalg.norm(step)))
