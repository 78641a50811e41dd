"""Unit tests of the yang2024 worst-case searches (verify.yang2024.experiments): the ratios they maximise
against closed forms, the equality cases of Theorem 2's bounds built by hand (the searches' ratio 1 is
the bounds' true maximum, not an artefact), and the replay of a found worst case."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bounds import yang2024 as B
from verify.core import Ctx
from verify.yang2024 import data as D
from verify.yang2024 import experiments as E
from verify.yang2024 import model as M


def _attaining(seed: int, k: int) -> tuple[D.Problem, M.Params, np.ndarray]:
    """A problem (K = 5, N = 3), theta with H = N heads whose w makes A-hat - A = u e_k^T (u the
    lambda_min(G) eigenvector) and the prompt y = u: the equality case of both Theorem 2 bounds."""
    rng = np.random.default_rng(seed)
    p = D.make_problem(5, 3, 3, 2, 0.1, rng)
    Q = rng.standard_normal((p.N, p.d, p.d))
    C = M.Transformer(p.N).attention(Q, p).transpose(2, 1, 0)  # (K, N, H) = C_k
    u = np.linalg.eigh(p.G)[1][:, 0]
    target = p.A + np.outer(u, np.eye(p.K)[k])
    w = np.stack([np.linalg.solve(C[j], target[:, j]) for j in range(p.K)], axis=1)
    return p, M.Params(Q=Q, w=w), u[None]


@given(seed=st.integers(0, 2**16), H=st.integers(1, 4), n=st.integers(1, 5))
def test_ratios_match_their_closed_forms_and_stay_below_one(seed: int, H: int, n: int) -> None:
    """inference_ratio = lambda_min(G) ||R^T y||^2 / (2 Delta ||y||^2), copy ratio = max_{k<=N} |R_k . y|
    / sqrt(2 Delta ||y||^2 / lambda_min(G)), R = A-hat - A; both at most 1."""
    rng = np.random.default_rng(seed)
    p = D.make_problem(6, 3, 3, 2, 0.1, rng)
    th = M.Transformer(H).init(p, 1.0, rng).replace(w=rng.standard_normal((H, p.K)))
    y = rng.standard_normal((n, p.N))
    R = M.Transformer(H).forward(th, p) - p.A
    Delta, y2 = 0.5 * np.sum(R * (p.G @ R)), np.sum(y * y, axis=1)
    expected = p.lam_min_G * np.sum((y @ R) ** 2, axis=1) / (2 * Delta * y2)
    np.testing.assert_allclose(E.inference_ratio(th, p, y), expected, rtol=1e-9)
    _, q, D_ = E.copy_error(th, p, y)
    np.testing.assert_allclose(
        q, np.max(np.abs(y @ R[:, : p.N]), axis=1) / np.sqrt(2 * Delta * y2 / p.lam_min_G)
    )
    assert D_ == pytest.approx(Delta, rel=1e-12)
    assert np.all(expected <= 1 + 1e-12) and np.all(q <= 1 + 1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_theorem2_bounds_are_attained(seed: int) -> None:
    """A-hat - A = u e_1^T, y = u: both ratios equal 1, so neither constant can be improved."""
    p, th, y = _attaining(seed, 0)
    assert E.inference_ratio(th, p, y)[0] == pytest.approx(1.0, abs=1e-9)
    assert E.copy_error(th, p, y)[1][0] == pytest.approx(1.0, abs=1e-9)


def test_searches_replay_and_respect_the_bounds() -> None:
    """The recorded z of each search gives back its ratio; no ratio exceeds 1."""
    p = E.problem_for(0, D.Config(3, 2, 2, 2, 0.1))
    w = E.theta_prompt_search(Ctx(seed=0).rng(25), p, 4, E.inference_ratio, 1, 20)
    Q, wv, y = np.split(np.array(w.z), [16, 28])
    th = M.Params(Q=Q.reshape(4, 2, 2), w=wv.reshape(4, 3))
    assert E.inference_ratio(th, p, y[None])[0] == w.ratio <= 1
    assert w.argument == {"K": 3, "N": 2, "d": 2, "m": 2, "tau": 0.1, "H": 4}
    h = E.one_head_search(Ctx(seed=0).rng(26), p, 1, 20)
    floor = B.orthant_floor(p.Zbar, p.A)
    assert floor / E.fixed_Q_floor(np.array(h.z).reshape(1, 2, 2), p) == h.ratio <= 1
    assert h.ratio >= h.typical
