"""Unit tests of the zhang2026 worst-case search of Thm 3.2 (ii) (verify.zhang2026.experiments.ood_op_search):
the op-norm bound is attained by the rank-one point mass built by hand, the search reaches it from random
starts at any trained state, and a found worst case replays."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounds import zhang2026 as B
from bounds.mp import to_float
from verify.zhang2026 import data as Da
from verify.zhang2026 import experiments as E
from verify.zhang2026 import model as Mo


def _ratio(V: np.ndarray, S: np.ndarray, C1: float, g: float, X: np.ndarray) -> float:
    """B / op-norm bound at the point mass X~ = X, from the model's pieces (f* = V* X S*, TF = C1 V* X A)."""
    A = Mo.two_level_attention(g, S)
    diff = V @ X @ S - C1 * (V @ X @ A)
    bound = B.ood_B_op_bound(
        float(np.linalg.norm(V, 2)), float(np.linalg.norm(S - C1 * A, 2)), float(np.sum(X * X))
    )
    return 0.5 * float(np.sum(diff * diff)) / to_float(bound)


@settings(max_examples=5)
@given(seed=st.integers(0, 2**16), C1=st.floats(-2.0, 3.0), g=st.floats(-3.0, 6.0))
def test_op_norm_bound_is_attained_and_found(seed: int, C1: float, g: float) -> None:
    """X = a b^T (a: top right singular vector of V*, b: top left singular vector of S* - C1 A) gives ratio
    1 at any state; the search finds it from one random start, and its z replays."""
    rng = np.random.default_rng(seed)
    S, V = Da.s_circulant(8, 2), Da.random_v(2, 3, rng, 4.0)
    Delta = S - C1 * Mo.two_level_attention(g, S)
    a, b = np.linalg.svd(V)[2][0], np.linalg.svd(Delta)[0][:, 0]
    assert _ratio(V, S, C1, g, np.outer(a, b)) == pytest.approx(1.0, abs=1e-12)
    w = E.ood_op_search(rng, V, S, C1, g, 1, 100)
    assert 0.999 <= w.ratio <= 1.0 + 1e-12 and w.ratio >= w.typical
    assert _ratio(V, S, C1, g, np.array(w.z).reshape(3, 8)) == pytest.approx(w.ratio, rel=1e-12)
    assert w.argument == {"C1": C1, "g": g, "d": 3, "D": 8}
