"""Unit tests of the deora2023 worst-case searches (verify.deora2023.experiments.*_search): the worst cases
they report, built by hand in closed form (where each bound is attained, or approached, and its value
there), and found worst cases that replay from their recorded z."""

from __future__ import annotations

import math

import numpy as np
import pytest

from verify.deora2023 import experiments as E
from verify.deora2023 import model as M

ONE = np.ones(1)


def _antipodal(T: int, d: int, R: float) -> np.ndarray:
    """One sample: T/2 tokens R e_1 and T/2 tokens -R e_1 (T even)."""
    X = np.zeros((1, T, d))
    X[0, : T // 2, 0], X[0, T // 2 :, 0] = R, -R
    return X


def _origin(H: int, T: int, d: int) -> dict[str, np.ndarray]:
    return {"U": np.zeros((H, T, d)), "W": np.zeros((H, d, d))}


@pytest.mark.parametrize(("T", "d", "R"), [(2, 1, 1.0), (2, 3, 0.3), (4, 2, 2.5), (6, 1, 1.0)])
def test_hessian_bound_is_attained_at_U_zero(T: int, d: int, R: float) -> None:
    """U = 0, W = 0 (uniform attention), tokens +-x in equal numbers: ||grad^2 Phi|| = sqrt(T) R^3 exactly,
    for the full model and V1 (the search's worst case: the constant of beta_3 cannot be improved)."""
    full, v1 = E.hess_ratio(_origin(1, T, d), _antipodal(T, d, R))
    assert full[0] == pytest.approx(1.0, abs=1e-12) and v1[0] == pytest.approx(1.0, abs=1e-12)


def test_hessian_bound_is_not_attained_at_odd_T() -> None:
    """With a third token at 0 the full-model ratio drops to 0.544 (T = 3): sqrt(T) is reached at even T."""
    X = np.array([[[1.0], [-1.0], [0.0]]])
    assert E.hess_ratio_full(_origin(1, 3, 1), X)[0] == pytest.approx(0.5443, abs=1e-4)


def test_weak_convexity_ratio_at_phi_zero_is_one_over_two_log_two() -> None:
    """At the Hessian bound's extremal point Phi = 0 and grad Phi = 0, so grad^2 L = l'(0) grad^2 Phi and
    max(0, -lambda_min) / ((beta_3/sqrt H) L) = |l'(0)| / l(0) = 1 / (2 ln 2): the one-head worst case."""
    q = E.wc_point(E.WcPoint(_origin(1, 2, 1), _antipodal(2, 1, 0.7), ONE, 100))
    assert E.sbwc_ratio(q) == pytest.approx(1 / (2 * math.log(2)), rel=1e-12)


def test_weak_convexity_constant_is_approached_with_two_heads() -> None:
    """Head 1 at the extremal point (U_1 = 0, W_1 = 0, tokens +-r), head 2 with U_2 = (a, -a), a = r^-1.5,
    and W_2 = 3 / r^2 makes y Phi -> infinity while R^2 max_h ||U_h|| -> 0 and grad Phi has no head-1
    part: the ratio tends to 1 as r -> 0 (0.78 at r = 1e-2, 0.97 at r = 1e-4), never reaching it."""
    ratios = []
    for r in (1e-1, 1e-2, 1e-3, 1e-4):
        a = r**-1.5
        params = {"U": np.array([[[0.0], [0.0]], [[a], [-a]]]), "W": np.array([[[0.0]], [[3.0 / r**2]]])}
        ratios.append(E.sbwc_ratio(E.wc_point(E.WcPoint(params, _antipodal(2, 1, r), ONE, 100))))
    assert np.all(np.diff(ratios) > 0) and 0.97 < ratios[-1] < 1.0, ratios


def test_global_smoothness_is_approached_as_R_goes_to_zero() -> None:
    """U = 0, W = 0, tokens R (1, 1/2): Phi = 0, ||grad^2 L|| -> l''(0) ||grad Phi||^2 = beta_2^2 / 4 while
    beta_3 / sqrt(H) = O(R^3) vanishes against beta_2^2 = O(R^2): the global ratio tends to 1 like 1 - cR
    (0.995 at R = 1e-3)."""
    ratios = [
        E.smooth_ratios(E.wc_point(E.WcPoint(_origin(1, 2, 1), R * np.array([[[1.0], [0.5]]]), ONE, 100)))[1]
        for R in (1e-1, 1e-3, 1e-5)
    ]
    assert np.all(np.diff(ratios) > 0) and ratios[-1] > 0.9999, ratios


def test_kappa3_sharp_constant() -> None:
    """The two-point s = ((3 - sqrt 3)/6, (3 + sqrt 3)/6) with v = b = (1, 0) gives |k3_s(v, b, b)| =
    p (1 - p) (1 - 2p) = 1 / (6 sqrt 3), i.e. 2 / (3 sqrt 3) = 0.3849 of range(v) range(b)^2 / 4."""
    p = (3 - math.sqrt(3)) / 6
    s, v = np.array([[p, 1 - p]]), np.array([[1.0, 0.0]])
    assert E.kappa3_ratios(s, v, v)[0] == pytest.approx(2 / (3 * math.sqrt(3)), rel=1e-12)


def test_taylor_ratio_at_the_smallest_step() -> None:
    """At the Hessian bound's extremal point along its most negative curvature, the Taylor ratio is
    1 - 2 lambda + O(lambda^2) (beta_3(lambda) grows like 1 + 2 R^2 lambda): 0.998 at lambda = 1e-3."""
    X = _antipodal(2, 1, 1.0)
    v = np.linalg.eigh(M.hessian_phi(_origin(1, 2, 1), X[0]))[1][:, 0]
    r = E.taylor_ratios(_origin(1, 2, 1), X, ONE, v[None], [E.TAYLOR_LAM_MIN])[0, 0]
    assert r == pytest.approx(1 - 2 * E.TAYLOR_LAM_MIN, abs=1e-5)


def test_loss_searches_replay() -> None:
    """A loss-level worst case replays from its z (:func:`loss_point`) and beats its random start."""
    w = E.loss_ratio_search(np.random.default_rng(0), "sbwc", 1, 2, 1, 1, 25)
    assert E.sbwc_ratio(E.loss_point(w)) == w.ratio and w.ratio > w.typical
    assert w.ratio == pytest.approx(1 / (2 * math.log(2)), rel=1e-3)


def test_hessian_search_replays() -> None:
    """The Hessian search's z rebuilds the point (polar U, tokens scaled to R = 1) and its ratio."""
    w = E.hess_ratio_search(np.random.default_rng(0), "full", 2, 1, 1, 20)
    u, root, W, x = E.split_z(np.array(w.z), (2, 1, 1, 2))
    params = {"U": E.polar_U(u, float(root[0]), 2, 1), "W": W.reshape(1, 1, 1)}
    assert E.hess_ratio_full(params, E.unit_tokens(x, 2, 1))[0] == w.ratio
    assert w.ratio > 0.999 and w.argument == {"variant": "full", "H": 1, "T": 2, "d": 1}
