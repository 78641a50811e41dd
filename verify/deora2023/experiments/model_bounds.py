"""Experiments of ``claims/model_bounds.py`` (.gradbound, .hessbound, .scaling.H, .scaling.H.grad): the
ratios of ||grad Phi|| and ||grad^2 Phi|| to beta_2 and beta_3 / sqrt(H), their worst-case searches, and the
H-scaling sweep of both norms at initialisation.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from bounds import deora2023 as B
from verify.core.context import Mapper, serial_map
from verify.deora2023 import data as D
from verify.deora2023 import model as M
from verify.deora2023.experiments.runs import (
    _rng,
    make_problem,
    polar_U,
    run_gd,
    split_z,
    unit_tokens,
    value_norm_max,
    worst_case_search,
)
from verify.deora2023.model import Params
from verify.numerics.worstcase import WorstCase


def value_norm_mean_sq(params: Params) -> float:
    """(1/H) sum_h ||U_h||_F^2."""
    return float(np.mean(np.sum(params["U"] ** 2, axis=(1, 2))))


def trained_problem(seed: int, H: int, steps: int) -> tuple[D.Problem, M.AttnParams]:
    """A mixture problem (n = 20) and theta_K after ``steps`` GD steps at eta = 1."""
    pr = make_problem(_rng(seed, 10), _rng(seed, 11), n=20, H=H)
    traj, _ = run_gd(pr.params0, pr.X, pr.y, 1.0, steps)
    return pr, traj.params


def grad_ratio(params: Params, X: np.ndarray) -> np.ndarray:
    """||grad Phi_i||^2 / beta_2(theta)^2 with the per-sample R_i = max_t ||x_{i,t}||."""
    g2 = M.grad_norms(params, X) ** 2  # validates params and X
    T = np.shape(params["U"])[1]
    m = value_norm_mean_sq(params)
    return np.array([g / B.grad_bound_sq(T, D.token_radius(x[None]), m) for g, x in zip(g2, X, strict=True)])


def _sym_norms(blocks: np.ndarray) -> np.ndarray:
    """Spectral norm of the symmetrised per-head blocks (n, H, q, q), max over heads: (n,)."""
    blocks = (blocks + np.swapaxes(blocks, -1, -2)) / 2
    return np.max(np.abs(np.linalg.eigvalsh(blocks)), axis=(1, 2))


def _per_sample_radius(X: np.ndarray) -> np.ndarray:
    return np.array([D.token_radius(x[None]) for x in X])


def hess_ratio_full(params: Params, X: np.ndarray) -> np.ndarray:
    """||grad^2 Phi_i|| / (beta_3/sqrt H) for every sample (exact, by the per-head blocks)."""
    H, T, _ = M.check_params(params)
    u = value_norm_max(params)
    bounds = np.array([B.hess_bound(T, r, u, H) for r in _per_sample_radius(X)])
    return _sym_norms(M.phi_head_blocks(params, X)) / bounds


def hess_ratio_v1(params: Params, X: np.ndarray) -> np.ndarray:
    """The same for the single-query variant V1 (query row 0, sqrt(T) -> 1) at the V1 point u_h = U_{h,0},
    with the V1 model's own Hessian (:func:`verify.deora2023.model.v1_head_blocks`; rows t >= 1 of U
    absent)."""
    H, _, _ = M.check_params(params)
    u1 = float(np.max(np.linalg.norm(params["U"][:, 0, :], axis=1)))
    bounds = np.array([B.hess_bound(1, r, u1, H) for r in _per_sample_radius(X)])
    return _sym_norms(M.v1_head_blocks(params, X)) / bounds


def hess_ratio(params: Params, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(:func:`hess_ratio_full`, :func:`hess_ratio_v1`) for every sample."""
    return hess_ratio_full(params, X), hess_ratio_v1(params, X)


@dataclass(frozen=True)
class ScalingPoint:
    """One init draw of the H-scaling sweep: paired init with W_0 ~ N(0, w_scale^2), n_inputs inputs."""

    seed: int
    H: int
    n_inputs: int
    key: int
    w_scale: float


def scaling_point(p: ScalingPoint) -> tuple[float, float]:
    """(median_i ||grad Phi_i||, median_i ||grad^2 Phi_i||) at a paired init with W_0 ~ N(0, w^2)."""
    rng = np.random.default_rng([p.seed, p.key])
    mix = D.Mixture()
    X, _, _ = mix.sample(np.random.default_rng([p.seed, p.key, 1]), p.n_inputs)
    params = M.init_params(rng, p.H, mix.T, mix.d, w_scale=p.w_scale)
    return float(np.median(M.grad_norms(params, X))), float(np.median(M.phi_hessian_norms(params, X)))


@dataclass(frozen=True)
class ScalingSweep:
    """One init draw per seed of ``seeds`` at every H of ``Hs``, ``n_inputs`` mixture inputs each."""

    seeds: tuple[int, ...]
    Hs: tuple[int, ...]
    n_inputs: int
    mapper: Mapper = field(default=serial_map, compare=False, repr=False)


@functools.cache
def scaling_sweep(s: ScalingSweep) -> np.ndarray:
    """(len(Hs), len(seeds), 2): :func:`scaling_point` for every H and seed (W_0 entries N(0, 0.09))."""
    items = [ScalingPoint(seed, H, s.n_inputs, H, 0.3) for H in s.Hs for seed in s.seeds]
    return np.array(s.mapper(scaling_point, items)).reshape(len(s.Hs), len(s.seeds), 2)


def grad_ratio_search(
    rng: np.random.Generator, H: int, T: int, d: int, starts: int, maxiter: int
) -> WorstCase:
    """Worst case of ||grad Phi(theta; X)||^2 / beta_2^2 over every theta = (U, W) and one sample X (T, d):
    the search variable z is (U, W, X) flattened; starts are N(0, 1) draws."""
    sizes = (H * T * d, H * d * d, T * d)

    def ratio(z: np.ndarray) -> float:
        U, W, X = split_z(z, sizes)
        params = {"U": U.reshape(H, T, d), "W": W.reshape(H, d, d)}
        return float(grad_ratio(params, X.reshape(1, T, d))[0])

    return worst_case_search(ratio, sum(sizes), rng, starts, maxiter, {"H": H, "T": T, "d": d})


def hess_ratio_search(
    rng: np.random.Generator, variant: str, T: int, d: int, starts: int, maxiter: int
) -> WorstCase:
    """Worst case of ||grad^2 Phi|| / (beta_3/sqrt H) over every theta and one sample X (T, d) at H = 1, for
    the full model (``variant`` "full") or V1 ("V1": U holds only the query row u). z = (direction of U,
    l, W, X): U in polar form (:func:`polar_U`; the bound has a kink at U = 0, where it can be attained),
    X scaled to R = 1 (the ratio is invariant under (X, U, W) -> (c X, U/c^2, W/c^2)). H = 1 loses nothing:
    the Hessian is block-diagonal over heads and beta_3 uses max_h ||U_h||, so the ratio at H heads is at
    most that of its worst head alone."""
    rows = {"full": T, "V1": 1}[variant]
    sizes = (rows * d, 1, d * d, T * d)
    measure = hess_ratio_full if variant == "full" else hess_ratio_v1

    def ratio(z: np.ndarray) -> float:
        u, root, W, x = split_z(z, sizes)
        params = {"U": polar_U(u, float(root[0]), T, d), "W": W.reshape(1, d, d)}
        return float(measure(params, unit_tokens(x, T, d))[0])

    arg = {"variant": variant, "H": 1, "T": T, "d": d}
    return worst_case_search(ratio, sum(sizes), rng, starts, maxiter, arg)
